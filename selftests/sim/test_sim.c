// SPDX-License-Identifier: GPL-2.0
/*
 * Fast structural tests of the simulator (userspace/sim/), TAP 13.
 *
 * The event queue orders by (time, insertion); the receiver logic produces
 * the kernel's signals; and small versions of each experiment keep bytes
 * conserved, deliver no segment twice (checked inside every run by
 * exp_check()), reproduce byte for byte from one seed, and share a
 * bottleneck fairly between identical flows.
 */
#include <math.h>
#include <stdarg.h>
#include "exp.h"
#include "../tap.h"

/*
 * One result with a formatted description. Nothing here skips: make builds
 * every protocol program this links, so a missing one is a failure.
 */
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
}

static void test_evq(void)
{
	struct sim_evq q;
	struct sim_ev ev = { 0 }, prev = { 0 };
	struct sim_rng rng;
	int i, order = 1;

	sim_rng_seed(&rng, 7);
	sim_evq_init(&q);
	for (i = 0; i < 5000; i++) {
		ev.t = sim_rng_below(&rng, 100);
		ev.a = i;
		sim_evq_push(&q, &ev);
	}
	for (i = 0; sim_evq_pop(&q, &ev); i++) {
		if (i && (ev.t < prev.t || (ev.t == prev.t && ev.a < prev.a)))
			order = 0;
		prev = ev;
	}
	ok(order && i == 5000, "event queue pops by (time, insertion order)");
	sim_evq_free(&q);
}

static void test_rng(void)
{
	struct sim_rng a, b, c;
	int i, same = 1, diff = 0;

	sim_rng_seed(&a, 42);
	sim_rng_seed(&b, 42);
	sim_rng_seed(&c, 43);
	for (i = 0; i < 1000; i++) {
		u64 x = sim_rng_next(&a);

		same &= x == sim_rng_next(&b);
		diff |= x != sim_rng_next(&c);
	}
	ok(same && diff, "PRNG: same seed same stream, other seed differs");
}

/* One data segment through the receiver model. */
static unsigned int rcv1(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			 u32 seg, bool ce, u64 now, struct tonic_rcv_ack *a,
			 u32 *n)
{
	struct tonic_rcv_seg in = { .seg = seg, .len = 1000, .ce = ce };

	return tonic_rcv_data(r, cfg, &in, now, a, n);
}

static void test_rcv(void)
{
	struct tonic_rcv_cfg sack = { .policy = TONIC_RCV_SACK,
				      .signals = TONIC_SIG_ACK | TONIC_SIG_NACK |
						 TONIC_SIG_ECE | TONIC_SIG_CNP,
				      .delack_segs = 2,
				      .cnp_interval_ns = 50000 };
	struct tonic_rcv_cfg gbn = { .policy = TONIC_RCV_GBN,
				     .signals = TONIC_SIG_ACK | TONIC_SIG_NACK };
	struct tonic_rcv r;
	struct tonic_rcv_ack a;
	unsigned int w;
	u32 n;

	tonic_rcv_init(&r, 100);
	w = rcv1(&r, &sack, 100, false, 0, &a, &n);
	ok(w == TONIC_RCV_ARM_DELACK && n == 1,
	   "receiver: first in-order segment waits for a delayed ACK");
	w = rcv1(&r, &sack, 101, false, 0, &a, &n);
	ok(w == TONIC_RCV_SEND_ACK && a.cumack == 102 && a.sack == 101 &&
	   a.flags == TONIC_RF_SACK, "receiver: second segment is acked");
	w = rcv1(&r, &sack, 104, false, 0, &a, &n);
	ok(w == TONIC_RCV_SEND_ACK && a.cumack == 102 && a.sack == 104 &&
	   (a.flags & TONIC_RF_NACK) && !n && r.held == 1,
	   "receiver: out-of-order segment is held and NACKed at once");
	w = rcv1(&r, &sack, 103, true, 10, &a, &n);
	ok((a.flags & TONIC_RF_CNP) && (a.flags & TONIC_RF_ECE),
	   "receiver: CE gives ECN echo and a CNP");
	w = rcv1(&r, &sack, 102, true, 20, &a, &n);
	ok(w == TONIC_RCV_SEND_ACK && n == 3 && a.cumack == 105 &&
	   !(a.flags & TONIC_RF_CNP) && r.held == 0 && r.delivered == 5,
	   "receiver: filling the hole delivers 3, CNP rate-limited");
	w = rcv1(&r, &sack, 101, false, 30, &a, &n);
	ok((a.flags & TONIC_RF_DUP) && !n && r.delivered == 5,
	   "receiver: duplicate is acked, not delivered again");

	tonic_rcv_init(&r, 0);
	rcv1(&r, &gbn, 0, false, 0, &a, &n);
	w = rcv1(&r, &gbn, 2, false, 0, &a, &n);
	ok(w == TONIC_RCV_SEND_ACK && (a.flags & TONIC_RF_NACK) &&
	   a.cumack == 1 && r.dropped_ooo == 1,
	   "go-back-N receiver: drops out of order, NACKs");
	w = rcv1(&r, &gbn, 3, false, 0, &a, &n);
	ok(w == 0 && r.dropped_ooo == 2, "go-back-N receiver: one NACK per gap");
}

/*
 * A program's ACK ratio reaches the simulated receiver as it reaches a
 * socket's (ACKREQ, ACKFREQ): rack with ratio 16 on a clean 10 Gb/s
 * path gets one ACK per 16 segments once its window is large, where the
 * receiver's default would send one per 2.
 */
static void test_ack_ratio(void)
{
	static const struct sim_link link = {
		.rate_bps = 10000000000ULL, .delay_ns = 2500,
		.buf_bytes = 5500000,
	};
	const struct sim_proto *p = sim_proto_find("rack");
	struct sim_cfg cfg = { .seed = 1 };
	double per_seg = 1;
	struct sim_flow *f;
	struct sim s;

	if (p && !sim_init(&s, &cfg) && !sim_topo_star(&s, 2, &link)) {
		f = sim_flow_new(&s, 0, 1, p, 1000, 0, 0);
		if (f) {
			f->params.wnd_max = 256;
			sim_run(&s, 20000000ULL);
			per_seg = (double)s.tot.ctrl_sent /
				  s.tot.data_arrived_segs;
		}
		sim_free(&s);
	}
	ok(per_seg > 1.0 / 17 && per_seg < 0.08,
	   "rack: its ACK ratio (16) holds in the simulator (%.3f ACKs per segment)",
	   per_seg);
}

typedef int (*exp_fn)(struct sim_report *r, const struct exp_opts *o);

static int run(exp_fn fn, u64 seed, struct sim_report *r)
{
	struct exp_opts o = { .seed = seed, .small = 1 };

	rep_init(r, NULL, 0);
	return fn(r, &o) || r->failed;
}

/* A metric of the report; NAN (no comparison holds) if it is missing. */
static double metric(const struct sim_report *r, const char *k)
{
	double v;

	if (rep_get(r, k, &v)) {
		tap_diag("metric %s missing from the report", k);
		return NAN;
	}
	return v;
}

static void test_exp(const char *name, exp_fn fn)
{
	struct sim_report a, b, c;
	int ea, eb;

	ea = run(fn, 1, &a);
	ok(!ea && a.nmetrics > 0,
	   "%s: runs, reports metrics; bytes conserved, no segment delivered twice%s%s",
	   name, a.failed ? ": " : "", a.failed ? a.why : "");
	eb = run(fn, 1, &b);
	ok(!eb && a.hash == b.hash, "%s: same seed, same output (%016llx)",
	   name, (unsigned long long)a.hash);
	run(fn, 2, &c);
	ok(a.hash != c.hash, "%s: another seed, other output", name);
}

int main(void)
{
	struct sim_report r;
	double v;

	(void)tap_cur_bad;	/* tap.h's per-case flag: ok() reports directly */
	tap_plan(34);
	test_evq();
	test_rng();
	test_rcv();
	test_ack_ratio();

	test_exp("reno1", exp_reno1);
	run(exp_reno1, 1, &r);
	v = metric(&r, "reno1.goodput_gbps");
	ok(v > 8.5 && v < 9.3, "reno1: one flow fills the 10 Gb/s link (%.2f)", v);
	/* both present (NAN == NAN is false) and equal */
	ok(metric(&r, "reno1.rtx_segs") == metric(&r, "reno1.rcv_drops"),
	   "reno1: one retransmission per receiver drop");
	ok(metric(&r, "reno1p.segs_sent") == metric(&r, "reno1.segs_sent") &&
	   metric(&r, "reno1p.rtx_segs") == metric(&r, "reno1.rtx_segs"),
	   "reno1: the newreno program behaves as the built-in NewReno");

	test_exp("reno200", exp_reno200);
	run(exp_reno200, 1, &r);
	v = metric(&r, "reno200.total_gbps");
	ok(v > 8.5, "reno200: flows share the bottleneck fully (%.2f Gb/s)", v);
	v = metric(&r, "reno200.jain");
	ok(v > 0.8, "reno200: identical flows get a fair share (Jain %.3f)", v);

	test_exp("dcqcn", exp_dcqcn);
	run(exp_dcqcn, 1, &r);
	v = metric(&r, "dcqcn.jain200");
	ok(v > 0.95, "dcqcn: identical flows get a fair share (Jain %.3f)", v);

	test_exp("irn", exp_irn);
	run(exp_irn, 1, &r);
	ok(metric(&r, "irn.roce-pfc.drops") == 0 && metric(&r, "irn.roce-pfc.pauses") > 0 &&
	   metric(&r, "irn.roce.drops") > 0,
	   "irn: congestion drops packets, with PFC it pauses instead");
	v = metric(&r, "irn.irn.flows_done");
	ok(v > 0 && v == metric(&r, "irn.irn.flows"),
	   "irn: every IRN flow completes despite losses (%.0f)", v);

	test_exp("loss", exp_loss);
	return tap_exit();
}
