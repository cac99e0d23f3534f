/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: periodic sampling of flows (trace.c).
 */
#ifndef _SIM_TRACE_H
#define _SIM_TRACE_H

#include "sim.h"
#include "report.h"

struct exp_trace {
	struct sim_call call;
	struct sim_file *sf;
	struct sim_flow **flows;
	u32 n;
	u64 every;
	u64 end;
	u64 *last;
};

int exp_trace_start(struct sim *s, struct exp_trace *t, struct sim_file *sf,
		    struct sim_flow **flows, u32 n, u64 start, u64 every,
		    u64 end);
void exp_trace_free(struct exp_trace *t);

#endif /* _SIM_TRACE_H */
