/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: IRN's default workload (workload.c).
 */
#ifndef _SIM_WORKLOAD_H
#define _SIM_WORKLOAD_H

#include "sim.h"

double wl_mean_size(void);
u64 wl_size(struct sim_rng *rng);

/*
 * Poisson flows from every host at @load of @rate_bps until @t_end;
 * @setup adjusts each new flow's parameters.
 */
int wl_generate(struct sim *s, const struct sim_proto *p, u32 seg_size,
		double load, u64 rate_bps, u64 t_end,
		void (*setup)(struct sim_flow *f, void *arg), void *arg);

#endif /* _SIM_WORKLOAD_H */
