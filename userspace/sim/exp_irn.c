// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: IRN vs RoCE, with and without PFC (IRN §4.2, reduced).
 *
 * IRN's default scenario is a 54-host three-tier fat tree of 40 Gb/s
 * links with 2 us per link, 70 % load of heavy-tailed flows (workload.c),
 * 1 KB MTU, per-port buffers of twice the BDP, PFC thresholds at buffer
 * minus one link's BDP of headroom, RTO_high 320 us, RTO_low 100 us with
 * N = 3, and no explicit congestion control in the base comparison
 * (§4.2.1-4.2.3).  Here: a two-tier leaf-spine of 4 leaves x 4 hosts and
 * 4 spines (full bisection, 16 hosts), the same links and load, a 4-hop
 * longest path (BDP 80 KB, buffers 160 KB, PFC xoff 140 KB / xon 120 KB),
 * BDP-FC cap 80 packets, and a few milliseconds of arrivals.  Four configurations on the same
 * workload: IRN without PFC, IRN with PFC, RoCE (go-back-N) with PFC (no
 * timeouts: with PFC RoCE disables them) and RoCE without PFC (fixed
 * RTO_high).  Metrics: average slowdown (FCT over the FCT alone on the
 * empty path), average and 99th-percentile FCT, retransmitted bytes,
 * drops and pauses.  Flows still unfinished when the run stops (at most
 * 100 ms) count with FCT = end - start, a lower bound.
 */
#include "exp.h"
#include "workload.h"

#define IRN_RATE	40000000000ULL
#define IRN_LINK_NS	2000ULL
#define IRN_C		1000U
#define IRN_BUF		160000ULL
#define IRN_XOFF	140000ULL
#define IRN_XON		120000ULL
#define IRN_LOAD	0.7
#define IRN_RTO_HIGH	320000ULL
#define IRN_RTO_LOW	100000ULL
#define IRN_BDP_SEGS	80	/* 80 KB BDP / 1 KB MTU */

struct irn_cfg {
	const char *name;
	const char *proto;
	bool pfc;
};

static const struct irn_cfg irn_cfgs[] = {
	{ "irn", "irn", false },
	{ "irn-pfc", "irn", true },
	{ "roce-pfc", "roce", true },
	{ "roce", "roce", false },
};

struct irn_geo {
	u32 leaves, hpl, spines;
	bool pfc;
};

static void irn_setup(struct sim_flow *f, void *arg)
{
	const struct irn_geo *g = arg;

	f->params.wnd_max = 128;		/* IRN: bitmaps of 128 */
	f->params.init_rate_bps = IRN_RATE;
	f->params.rate_max_bps = IRN_RATE;
	f->params.rto_init_ns = IRN_RTO_HIGH;
	f->params.rto_min_ns = 10000;
	f->params.rto_max_ns = 100000000;
	if (f->proto->rcv.policy == TONIC_RCV_GBN) {
		f->params.wnd_max = TONIC_MAX_WND_SEGS;
		if (g->pfc)			/* IRN §4.1: no timeouts */
			f->params.rto_init_ns = f->params.rto_min_ns =
				100000000;
	}
}

/* FCT of the flow alone on its empty path at line rate (ns). */
static double ideal_fct(const struct sim_flow *f, const struct irn_geo *g)
{
	double hops = f->src / g->hpl == f->dst / g->hpl ? 2 : 4;
	double first = (double)(f->nsegs > 1 ? IRN_C : f->size) + SIM_HDR_BYTES;
	double all = (double)f->size + (double)f->nsegs * SIM_HDR_BYTES;

	return all * 8e9 / IRN_RATE + (hops - 1) * first * 8e9 / IRN_RATE +
	       hops * IRN_LINK_NS;
}

static void irn_metric(struct sim_report *r, const char *cfg, const char *key,
		       double v)
{
	char k[64];

	snprintf(k, sizeof(k), "%s.%s", cfg, key);
	rep_metric(r, "irn", k, v);
}

static int irn_one(struct sim_report *r, const struct exp_opts *o,
		   const struct irn_cfg *c, struct sim_file *fct_f)
{
	struct irn_geo g = { 4, 4, 4, c->pfc };
	u64 arr = 8000000, cap = 100000000;
	struct sim_cfg cfg = { .seed = o->seed, .pfc = c->pfc,
			       .pfc_xoff = IRN_XOFF, .pfc_xon = IRN_XON };
	struct sim_link l = { .rate_bps = IRN_RATE, .delay_ns = IRN_LINK_NS,
			      .buf_bytes = IRN_BUF };
	const struct sim_proto *p = sim_proto_find(c->proto);
	double *fct, *sd, sum_sd = 0, sum_fct = 0, rtx = 0, bytes = 0;
	u64 drops = 0, pauses = 0, t;
	struct sim s;
	u32 i, n = 0, done = 0;
	int err;

	if (!p)
		return 1;
	/* IRN §4.1: no explicit congestion control, line rate */
	sim_params_irn(IRN_RATE, IRN_RTO_LOW, IRN_RTO_HIGH, IRN_BDP_SEGS,
		       false, 55000);
	sim_params_dcqcn(IRN_RATE, 55000, 0);
	if (o->small) {
		/* 4:1 oversubscribed uplinks: congestion in a small run */
		g = (struct irn_geo){ 2, 4, 1, c->pfc };
		arr = 500000;
		cap = 20000000;
	}
	if (sim_init(&s, &cfg) ||
	    sim_topo_leafspine(&s, g.leaves, g.hpl, g.spines, &l))
		return -ENOMEM;
	err = wl_generate(&s, p, IRN_C, IRN_LOAD, IRN_RATE, arr, irn_setup, &g);
	if (err)
		return err;
	/* run the arrivals, then drain (bounded) */
	for (t = arr; t <= cap && s.flows_done < s.nflows; t += arr)
		sim_run(&s, t);
	fct = calloc(s.nflows + 1, sizeof(*fct));
	sd = calloc(s.nflows + 1, sizeof(*sd));
	if (!fct || !sd)
		return -ENOMEM;
	for (i = 0; i < s.nflows; i++) {
		struct sim_flow *f = s.flows[i];

		/* unfinished flows count with a lower bound: now - start */
		u64 t_fct = f->done ? f->fct_ns : s.now - f->start_ns;

		rtx += (double)f->rtx_bytes;
		bytes += (double)f->size;
		done += f->done;
		fct[n] = t_fct / 1e3;			/* us */
		sd[n] = t_fct / ideal_fct(f, &g);
		sum_fct += fct[n];
		sum_sd += sd[n];
		rep_printf(fct_f, "%s %llu %.3f %.4f %d\n", c->name,
			   (unsigned long long)f->size, fct[n], sd[n], f->done);
		n++;
	}
	for (i = 0; i < s.nnodes; i++) {
		u32 j;

		for (j = 0; j < s.nodes[i].nports; j++) {
			drops += s.nodes[i].ports[j].drops;
			pauses += s.nodes[i].ports[j].pauses;
		}
	}
	irn_metric(r, c->name, "flows", s.nflows);
	irn_metric(r, c->name, "flows_done", done);
	irn_metric(r, c->name, "avg_slowdown", n ? sum_sd / n : 0);
	irn_metric(r, c->name, "avg_fct_us", n ? sum_fct / n : 0);
	irn_metric(r, c->name, "p99_fct_us", stat_percentile(fct, n, 99));
	irn_metric(r, c->name, "rtx_bytes", rtx);
	irn_metric(r, c->name, "rtx_frac", bytes > 0 ? rtx / bytes : 0);
	irn_metric(r, c->name, "drops", (double)drops);
	irn_metric(r, c->name, "pauses", (double)pauses);
	irn_metric(r, c->name, "sim_ms", s.now / 1e6);
	err = exp_check(r, "irn", &s);
	free(fct);
	free(sd);
	sim_free(&s);
	return err;
}

int exp_irn(struct sim_report *r, const struct exp_opts *o)
{
	struct sim_file fct_f;
	unsigned int i;
	int err = 0;

	if (rep_open(r, &fct_f, "irn", "fct.dat"))
		return -EIO;
	for (i = 0; i < ARRAY_SIZE(irn_cfgs) && !err; i++) {
		err = irn_one(r, o, &irn_cfgs[i], &fct_f);
		if (err == 1) {		/* protocol not built in */
			fprintf(stderr, "irn: %s: protocol %s not built, skipped\n",
				irn_cfgs[i].name, irn_cfgs[i].proto);
			err = 0;
		}
	}
	rep_close(&fct_f);
	return err;
}
