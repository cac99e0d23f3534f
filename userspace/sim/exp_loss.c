// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: bulk transfer over a lossy path, as make bench's loss1
 * and loss5 paths (scripts/bench-vm.sh), to see where timeouts come from.
 *
 * Two hosts on one switch, 1 Gb/s, 125 us per link (a 500 us base RTT,
 * about the TCG guest's), random loss on every link so that each
 * direction loses the given share of its packets (data and ACKs), a
 * 200 ms minimum RTO with the 1 ms low timeout while at most 3 segments
 * are outstanding (the module's defaults), K = 128, C = 1400.  One flow
 * per program for 3 s: rack (the module's built-in), sack and the
 * engine's NewReno.  timeouts_long counts the timeouts that waited
 * rto_min or more; -v prints every timeout with the flow's state just
 * before it.
 */
#include <math.h>
#include "exp.h"

#define LOSS_RATE	1000000000ULL
#define LOSS_LINK_NS	125000ULL
#define LOSS_C		1400U
#define LOSS_RTO_MIN	200000000ULL
#define LOSS_RTO_LOW	1000000ULL

/* The sender's timeouts, seen around each engine timer event. */
struct loss_watch {
	struct sim_flow *f;
	struct tonic_flow_stats before;
	u64 last_to;
	u64 long_to;		/* timeouts that waited rto_min or more */
	int trace;
};

static void loss_on_timer(struct sim *s, struct sim_host *h, bool after)
{
	struct loss_watch *w = s->user;
	struct tonic_flow_stats st = { 0 };

	if (h != &s->hosts[w->f->src])
		return;
	if (!after) {
		tonic_engine_flow_stats(h->eng, w->f->id, &w->before);
		return;
	}
	tonic_engine_flow_stats(h->eng, w->f->id, &st);
	if (st.timeouts == w->before.timeouts)
		return;
	if (w->before.rto_ns >= LOSS_RTO_MIN)
		w->long_to++;
	if (w->trace)
		fprintf(stderr, "  %.6f s: timeout after %.1f ms, flight %u, window %u, segments %u..%u, %.1f ms after the last\n",
			s->now / 1e9, w->before.rto_ns / 1e6,
			w->before.in_flight, w->before.wnd,
			w->before.wnd_start, w->before.next_new - 1,
			w->last_to ? (s->now - w->last_to) / 1e6 : 0.0);
	w->last_to = s->now;
}

static int loss_one(struct sim_report *r, const struct exp_opts *o,
		    const char *proto, double loss)
{
	u64 dur = o->small ? 100000000ULL : 3000000000ULL;
	/* each direction crosses two links */
	struct sim_link l = {
		.rate_bps = LOSS_RATE,
		.delay_ns = LOSS_LINK_NS,
		.loss_ppm = (u32)((1.0 - sqrt(1.0 - loss)) * 1e6 + 0.5),
	};
	const struct sim_proto *p = sim_proto_find(proto);
	struct sim_cfg cfg = { .seed = o->seed };
	struct tonic_flow_stats st = { 0 };
	struct loss_watch w = { .trace = o->trace };
	char e[64];
	struct sim s;
	int err;

	snprintf(e, sizeof(e), "loss%g-%s", loss * 100, proto);
	if (!p) {
		fprintf(stderr, "%s: the %s program is not built in\n", e, proto);
		return 0;
	}
	if (sim_init(&s, &cfg) || sim_topo_star(&s, 2, &l))
		return -ENOMEM;
	w.f = sim_flow_new(&s, 0, 1, p, LOSS_C, 0, 0);
	if (!w.f)
		return -ENOMEM;
	w.f->params.rto_min_ns = LOSS_RTO_MIN;
	w.f->params.rto_low_ns = LOSS_RTO_LOW;
	w.f->params.rto_low_segs = 3;
	s.user = &w;
	s.on_timer = loss_on_timer;
	if (w.trace)
		fprintf(stderr, "%s:\n", e);
	sim_run(&s, dur);
	tonic_engine_flow_stats(s.hosts[0].eng, w.f->id, &st);
	rep_metric(r, e, "goodput_mbps", w.f->bytes_delivered * 8e3 / dur);
	rep_metric(r, e, "rtx_segs", (double)w.f->rtx_segs);
	rep_metric(r, e, "timeouts", (double)st.timeouts);
	rep_metric(r, e, "timeouts_long", (double)w.long_to);
	rep_metric(r, e, "probes", (double)st.probes);
	err = exp_check(r, e, &s);
	sim_free(&s);
	return err;
}

int exp_loss(struct sim_report *r, const struct exp_opts *o)
{
	static const char * const protos[] = { "rack", "sack", "newreno" };
	static const double losses[] = { 0.01, 0.05 };
	unsigned int i, j;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(losses) && !err; i++)
		for (j = 0; j < ARRAY_SIZE(protos) && !err; j++)
			err = loss_one(r, o, protos[j], losses[i]);
	return err;
}
