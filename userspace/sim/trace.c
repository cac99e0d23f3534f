// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: periodic sampling of flows (window, rate, throughput).
 */
#include "trace.h"

static void trace_fire(struct sim *s, struct sim_call *c)
{
	struct exp_trace *t = c->ctx;
	u32 i;

	rep_printf(t->sf, "%.3f", s->now / 1e6);
	for (i = 0; i < t->n; i++) {
		struct sim_flow *f = t->flows[i];
		struct tonic_flow_stats st = { 0 };
		u64 b = f->bytes_delivered - t->last[i];

		if (f->started && !f->sender_done)
			tonic_engine_flow_stats(s->hosts[f->src].eng, f->id, &st);
		t->last[i] = f->bytes_delivered;
		rep_printf(t->sf, " %u %u %.4f %.4f", st.wnd, st.in_flight,
			   st.rate_bps / 1e9, b * 8.0 / t->every);
	}
	rep_printf(t->sf, "\n");
	if (s->now + t->every <= t->end)
		sim_call_at(s, s->now + t->every, &t->call);
}

/*
 * Sample @n flows every @every ns from @start to @end into @sf.  Columns:
 * time (ms), then per flow: window (segments), in flight, rate (Gb/s,
 * rate-based schemes), delivered throughput over the interval (Gb/s).
 */
int exp_trace_start(struct sim *s, struct exp_trace *t, struct sim_file *sf,
		    struct sim_flow **flows, u32 n, u64 start, u64 every,
		    u64 end)
{
	t->sf = sf;
	t->flows = flows;
	t->n = n;
	t->every = every;
	t->end = end;
	t->last = calloc(n, sizeof(*t->last));
	if (!t->last)
		return -ENOMEM;
	t->call.fn = trace_fire;
	t->call.ctx = t;
	sim_call_at(s, start, &t->call);
	return 0;
}

void exp_trace_free(struct exp_trace *t)
{
	free(t->last);
	t->last = NULL;
}
