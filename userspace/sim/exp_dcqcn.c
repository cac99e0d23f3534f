// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: Tonic §6.2, RoCEv2 with DCQCN (experiment 3).
 *
 * 40 Gb/s links, 4 us base RTT (1 us per link), 1000 B segments, the
 * dcqcn program with DCQCN's default parameters (g = 1/256, F = 5, R_AI
 * 40 Mb/s, R_HAI 200 Mb/s, alpha and rate timers 55 us, byte counter
 * 10 MB; the periodic hook ticks every 5 us so the 55 us timers are
 * honoured), switches marking ECN as DCQCN recommends (RED, Kmin 5 KB,
 * Kmax 200 KB, Pmax 1 %), CNPs at most every 50 us per flow, and a 5.5 MB
 * buffer.
 *
 * converge: flow A from host 0 starts alone, flow B from host 1 joins;
 * both go to host 2: rate traces.  200 flows: 100 from each of two
 * senders into one receiver; per-flow throughput over the second half of
 * the run (the paper: 203 +- 0.2 Mb/s), spread and Jain's index.
 */
#include "exp.h"
#include "trace.h"

#define DC_RATE		40000000000ULL
#define DC_LINK_NS	1000ULL
#define DC_C		1000U
#define DC_TIMER_NS	55000ULL
#define DC_TICK_NS	5000ULL

static const struct sim_link dc_link = {
	.rate_bps = DC_RATE,
	.delay_ns = DC_LINK_NS,
	.buf_bytes = 5500000,
	.kmin = 5000,
	.kmax = 200000,
	.pmax_ppm = 10000,
};

static void dc_params(struct sim_flow *f)
{
	f->params.init_rate_bps = DC_RATE;
	f->params.rate_max_bps = DC_RATE;
	f->params.rto_init_ns = 1000000;
	f->params.rto_min_ns = 1000000;
}

static int dc_world(struct sim *s, const struct exp_opts *o)
{
	struct sim_cfg cfg = { .seed = o->seed };

	sim_params_dcqcn(DC_RATE, DC_TIMER_NS, 0);
	sim_proto_set_tick("dcqcn", DC_TICK_NS);
	if (sim_init(s, &cfg) || sim_topo_star(s, 3, &dc_link))
		return -ENOMEM;
	return 0;
}

static void dc_mark(struct sim *s, struct sim_call *c)
{
	u32 i;

	for (i = 0; i < s->nflows; i++)
		s->flows[i]->mark_bytes = s->flows[i]->bytes_delivered;
	(void)c;
}

static int dc_converge(struct sim_report *r, const struct exp_opts *o,
		       const struct sim_proto *p)
{
	u64 join = o->small ? 1000000 : 10000000;
	u64 dur = o->small ? 4000000 : 60000000;
	struct sim_call mark = { .fn = dc_mark };
	struct sim_flow *fl[2];
	struct exp_trace tr;
	struct sim_file sf;
	struct sim s;
	int err;

	err = dc_world(&s, o);
	if (err)
		return err;
	fl[0] = sim_flow_new(&s, 0, 2, p, DC_C, 0, 0);
	fl[1] = sim_flow_new(&s, 1, 2, p, DC_C, 0, join);
	if (!fl[0] || !fl[1])
		return -ENOMEM;
	dc_params(fl[0]);
	dc_params(fl[1]);
	if (rep_open(r, &sf, "dcqcn", "converge.dat"))
		return -EIO;
	err = exp_trace_start(&s, &tr, &sf, fl, 2, 0, 100000, dur);
	if (err)
		return err;
	sim_call_at(&s, join, &mark);
	sim_run(&s, dur);
	rep_metric(r, "dcqcn", "converge_a_gbps",
		   (fl[0]->bytes_delivered - fl[0]->mark_bytes) * 8.0 /
		   (dur - join));
	rep_metric(r, "dcqcn", "converge_b_gbps",
		   fl[1]->bytes_delivered * 8.0 / (dur - join));
	rep_metric(r, "dcqcn", "converge_cnps",
		   (double)(fl[0]->rcv.cnps + fl[1]->rcv.cnps));
	err = exp_check(r, "dcqcn", &s);
	rep_close(&sf);
	exp_trace_free(&tr);
	sim_free(&s);
	return err;
}

static int dc_many(struct sim_report *r, const struct exp_opts *o,
		   const struct sim_proto *p)
{
	u32 per = o->small ? 10 : 100, n = 2 * per, i;
	u64 dur = o->small ? 6000000 : 100000000, warm = dur / 2;
	struct sim_call mark = { .fn = dc_mark };
	struct stat_sum st;
	struct sim_file sf;
	double *v, loss = 0;
	struct sim s;
	int err;

	err = dc_world(&s, o);
	v = calloc(n, sizeof(*v));
	if (err || !v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct sim_flow *f = sim_flow_new(&s, (u16)(i / per), 2, p, DC_C,
						  0, sim_rng_below(&s.rng, 100000));

		if (!f)
			return -ENOMEM;
		dc_params(f);
	}
	sim_call_at(&s, warm, &mark);
	sim_run(&s, dur);
	for (i = 0; i < n; i++) {
		struct sim_flow *f = s.flows[i];

		v[i] = (f->bytes_delivered - f->mark_bytes) * 8.0 /
		       (dur - warm) * 1e3;		/* Mb/s */
		loss += (double)f->rtx_segs;
	}
	stat_summarise(v, n, &st);
	rep_metric(r, "dcqcn", "flows200", n);
	rep_metric(r, "dcqcn", "mean200_mbps", st.mean);
	rep_metric(r, "dcqcn", "mean200_wire_mbps",
		   st.mean * (DC_C + SIM_HDR_BYTES) / DC_C);
	rep_metric(r, "dcqcn", "sd200_mbps", st.sd);
	rep_metric(r, "dcqcn", "min200_mbps", st.min);
	rep_metric(r, "dcqcn", "max200_mbps", st.max);
	rep_metric(r, "dcqcn", "jain200", st.jain);
	rep_metric(r, "dcqcn", "rtx200_segs", loss);
	rep_metric(r, "dcqcn", "max_queue200_bytes",
		   (double)s.nodes[3].ports[2].max_qbytes);
	if (rep_open(r, &sf, "dcqcn", "thr200-cdf.dat"))
		return -EIO;
	stat_cdf(&sf, v, n);
	rep_close(&sf);
	err = exp_check(r, "dcqcn", &s);
	free(v);
	sim_free(&s);
	return err;
}

int exp_dcqcn(struct sim_report *r, const struct exp_opts *o)
{
	const struct sim_proto *p = sim_proto_find("dcqcn");
	int err;

	if (!p) {
		fprintf(stderr, "dcqcn: the dcqcn program is not built in\n");
		return 0;
	}
	err = dc_converge(r, o, p);
	return err ? err : dc_many(r, o, p);
}
