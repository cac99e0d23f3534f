/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: the protocol table and program parameters (proto.c).
 */
#ifndef _SIM_PROTO_H
#define _SIM_PROTO_H

#include "sim.h"

#define SIM_DELACK_NS		500000ULL	/* 500 us */
#define SIM_CNP_INTERVAL_NS	50000ULL	/* DCQCN: 50 us */

/* NULL when the protocol's program is not built in. */
const struct sim_proto *sim_proto_find(const char *name);
/* Call the protocol's periodic hook every @ns (a deployment parameter). */
void sim_proto_set_tick(const char *name, u64 ns);

/* Set the programs' parameters (those that exist) for an experiment. */
void sim_params_dcqcn(u64 line_bps, u64 timer_ns, u64 rto_ns);
void sim_params_irn(u64 line_bps, u64 rto_low, u64 rto_high, u32 bdp_segs,
		    bool dcqcn, u64 timer_ns);

#endif /* _SIM_PROTO_H */
