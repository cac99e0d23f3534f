// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: Tonic §6.2, NewReno end to end (experiments 1 and 2).
 *
 * 10 Gb/s links, 10 us base RTT (2.5 us per link, two links each way),
 * 5.5 MB switch buffer, 200 ms minimum RTO, 1000 B segments, delayed ACKs
 * at the receiver, the engine's built-in NewReno with K = 256.
 *
 * reno1: one flow; the receiver drops data packets at random (1e-4), so
 * the window (capped at K, which the 5.5 MB buffer never limits) shows
 * NewReno's recovery; traces of cwnd and of sent sequence numbers.
 * reno200: two senders with 100 flows each into one receiver for 5 s;
 * losses come from the bottleneck buffer; CDFs of per-flow throughput and
 * of per-flow retransmissions.  Both run with the built-in NewReno and
 * again with the newreno program (reno_both() below).
 */
#include "exp.h"
#include "trace.h"

#define RENO_RATE	10000000000ULL
#define RENO_LINK_NS	2500ULL
#define RENO_BUF	5500000ULL
#define RENO_C		1000U
#define RENO_K		256U
#define RENO_RTO_MIN	200000000ULL

static const struct sim_link reno_link = {
	.rate_bps = RENO_RATE,
	.delay_ns = RENO_LINK_NS,
	.buf_bytes = RENO_BUF,
	.jitter_ns = 400,	/* < 869 ns per data packet */
};

static void reno_params(struct sim_flow *f)
{
	f->params.wnd_max = RENO_K;
	f->params.rto_min_ns = RENO_RTO_MIN;
}

struct seq_trace {
	struct sim_file sf;
	u64 until;
};

static void seq_on_tx(struct sim *s, struct sim_flow *f,
		      const struct tonic_seg_desc *d)
{
	struct seq_trace *t = s->user;

	if (s->now <= t->until)
		rep_printf(&t->sf, "%.4f %u %u\n", s->now / 1e6, d->seg, d->rtx);
	(void)f;
}

static int reno1_one(struct sim_report *r, const struct exp_opts *o,
		     const char *e, const struct sim_proto *p)
{
	u64 dur = o->small ? 20000000ULL : 1000000000ULL;
	struct sim_cfg cfg = { .seed = o->seed };
	struct tonic_flow_stats st = { 0 };
	struct seq_trace seq = { .until = o->small ? dur : 50000000ULL };
	struct sim_file cw;
	struct exp_trace tr;
	struct sim_flow *f;
	struct sim s;
	int err;

	if (sim_init(&s, &cfg) || sim_topo_star(&s, 2, &reno_link))
		return -ENOMEM;
	f = sim_flow_new(&s, 0, 1, p, RENO_C, 0, 0);
	if (!f)
		return -ENOMEM;
	reno_params(f);
	f->rcv_drop_ppm = 100;
	if (rep_open(r, &cw, e, "cwnd.dat") || rep_open(r, &seq.sf, e, "seq.dat"))
		return -EIO;
	s.user = &seq;
	s.on_tx = seq_on_tx;
	err = exp_trace_start(&s, &tr, &cw, &f, 1, 0, 50000, dur);
	if (err)
		return err;
	sim_run(&s, dur);
	tonic_engine_flow_stats(s.hosts[0].eng, f->id, &st);
	rep_metric(r, e, "goodput_gbps", f->bytes_delivered * 8.0 / dur);
	rep_metric(r, e, "segs_sent", (double)f->segs_sent);
	rep_metric(r, e, "rtx_segs", (double)f->rtx_segs);
	rep_metric(r, e, "rcv_drops", (double)f->rcv_dropped);
	rep_metric(r, e, "timeouts", (double)st.timeouts);
	rep_metric(r, e, "max_queue_bytes",
		   (double)s.nodes[2].ports[1].max_qbytes);
	err = exp_check(r, e, &s);
	rep_close(&cw);
	rep_close(&seq.sf);
	exp_trace_free(&tr);
	sim_free(&s);
	return err;
}

static int reno200_one(struct sim_report *r, const struct exp_opts *o,
		       const char *e, const struct sim_proto *nr)
{
	u32 per = o->small ? 10 : 100, n = 2 * per, i;
	u64 dur = o->small ? 30000000ULL : 5000000000ULL;
	struct sim_cfg cfg = { .seed = o->seed };
	struct sim_file thr, rtx, tr_f;
	struct sim_flow **fl;
	struct stat_sum sum;
	struct exp_trace tr;
	double *v, *w, tot = 0, rtot = 0, to = 0;
	struct sim s;
	int err;

	fl = calloc(n, sizeof(*fl));
	v = calloc(n, sizeof(*v));
	w = calloc(n, sizeof(*w));
	if (!fl || !v || !w || sim_init(&s, &cfg) ||
	    sim_topo_star(&s, 3, &reno_link))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		u64 start = sim_rng_below(&s.rng, 1000000);

		fl[i] = sim_flow_new(&s, (u16)(i / per), 2, nr, RENO_C, 0, start);
		if (!fl[i])
			return -ENOMEM;
		reno_params(fl[i]);
	}
	if (rep_open(r, &thr, e, "thr-cdf.dat") ||
	    rep_open(r, &rtx, e, "rtx-cdf.dat") ||
	    rep_open(r, &tr_f, e, "trace.dat"))
		return -EIO;
	err = exp_trace_start(&s, &tr, &tr_f, fl, 2, 0, dur / 500, dur);
	if (err)
		return err;
	sim_run(&s, dur);
	for (i = 0; i < n; i++) {
		struct tonic_flow_stats st = { 0 };

		tonic_engine_flow_stats(s.hosts[fl[i]->src].eng, fl[i]->id, &st);
		v[i] = fl[i]->bytes_delivered * 8.0 /
		       (dur - fl[i]->start_ns) * 1e3;	/* Mb/s */
		w[i] = (double)fl[i]->rtx_segs;
		tot += v[i];
		rtot += w[i];
		to += (double)st.timeouts;
	}
	stat_summarise(v, n, &sum);
	rep_metric(r, e, "flows", n);
	rep_metric(r, e, "total_gbps", tot / 1e3);
	rep_metric(r, e, "mean_mbps", sum.mean);
	rep_metric(r, e, "sd_mbps", sum.sd);
	rep_metric(r, e, "min_mbps", sum.min);
	rep_metric(r, e, "max_mbps", sum.max);
	rep_metric(r, e, "jain", sum.jain);
	stat_summarise(w, n, &sum);
	rep_metric(r, e, "rtx_segs_total", rtot);
	rep_metric(r, e, "rtx_segs_mean", sum.mean);
	rep_metric(r, e, "rtx_segs_max", sum.max);
	rep_metric(r, e, "timeouts_total", to);
	rep_metric(r, e, "queue_drops", (double)s.nodes[3].ports[2].drops);
	stat_cdf(&thr, v, n);
	stat_cdf(&rtx, w, n);
	err = exp_check(r, e, &s);
	rep_close(&thr);
	rep_close(&rtx);
	rep_close(&tr_f);
	exp_trace_free(&tr);
	sim_free(&s);
	free(fl);
	free(v);
	free(w);
	return err;
}

/*
 * Each runs twice when the newreno program exists: the engine's built-in
 * NewReno ("reno1", "reno200") and bpf/newreno.bpf.c compiled natively
 * ("reno1p", "reno200p"), two implementations of one protocol on one
 * fixed part, as Tonic §6.2 compares Tonic with a hard-coded stack.
 */
static int reno_both(struct sim_report *r, const struct exp_opts *o,
		     int (*one)(struct sim_report *, const struct exp_opts *,
				const char *, const struct sim_proto *),
		     const char *e, const char *ep)
{
	const struct sim_proto *prog = sim_proto_find("newreno-prog");
	int err = one(r, o, e, sim_proto_find("newreno"));

	if (!err && prog)
		err = one(r, o, ep, prog);
	return err;
}

int exp_reno1(struct sim_report *r, const struct exp_opts *o)
{
	return reno_both(r, o, reno1_one, "reno1", "reno1p");
}

int exp_reno200(struct sim_report *r, const struct exp_opts *o)
{
	return reno_both(r, o, reno200_one, "reno200", "reno200p");
}
