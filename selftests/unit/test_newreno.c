// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the built-in NewReno (newreno.c) driven through the engine
 * by a lossy, in-order network model: exact retransmitted segment sets
 * and timeout counts for known loss patterns, the window after fast
 * recovery, RTO backoff, and RFC 6298 RTT estimation.
 */
#include "unit.h"

#define ID	1
#define RTT_NS	10000000ULL		/* 10 ms */
#define RTO_NS	200000000ULL		/* 200 ms */

static struct tonic_seg_desc out[1024];

struct run {
	u8 lose[RCV_MAX];	/* bit i: drop the (i+1)-th transmission */
	u8 sent[RCV_MAX];
	u32 rtx[64];		/* retransmitted segments, in order */
	u64 rtx_t[64];		/* and when */
	unsigned int nrtx;
	u64 end_t;
	struct rcv r;
};

static struct run run;

#define RTO_LOW_NS	20000000ULL		/* 20 ms */

static struct tonic_engine *mk_low(u32 total, u32 init_wnd, u32 low_segs)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, init_wnd, NULL);

	memset(&run, 0, sizeof(run));
	rcv_init(&run.r, ID);
	p.rto_init_ns = RTO_NS;
	p.rto_min_ns = RTO_NS;
	p.rto_low_ns = RTO_LOW_NS;
	p.rto_low_segs = low_segs;
	if (tonic_engine_flow_add(e, &p, 0) ||
	    tonic_engine_announce(e, ID, total, 0))
		tap_diag("setup failed");
	return e;
}

static struct tonic_engine *mk(u32 total, u32 init_wnd, bool rtt_samples)
{
	(void)rtt_samples;
	return mk_low(total, init_wnd, 0);
}

/* Rounds: send what the engine allows, deliver one RTT later. */
static void simulate(struct tonic_engine *e, u32 total, bool rtt_samples)
{
	struct tonic_ctrl_desc acks[1024];
	u64 t = 0;
	int iter;

	for (iter = 0; iter < 1000 && run.r.m.rcv_nxt < total; iter++) {
		unsigned int n = tonic_engine_tx(e, t, out, 1024), i, na = 0;

		if (!n) {
			t = tonic_engine_next_timer(e);
			if (t == U64_MAX)
				break;
			tonic_engine_timers(e, t);
			continue;
		}
		for (i = 0; i < n; i++) {
			u32 s = out[i].seg;
			u8 k = run.sent[s]++;

			if (out[i].rtx && run.nrtx < 64) {
				run.rtx_t[run.nrtx] = t;
				run.rtx[run.nrtx++] = s;
			}
			if (k < 8 && (run.lose[s] >> k) & 1)
				continue;
			acks[na] = rcv_data(&run.r, s);
			if (rtt_samples && !out[i].rtx) {
				acks[na].flags |= TONIC_CF_RTT;
				acks[na].rtt_ns = RTT_NS;
			}
			na++;
		}
		t += RTT_NS;
		tonic_engine_ctrl(e, acks, na, t);
		tonic_engine_timers(e, t);
	}
	run.end_t = t;
}

/* Two holes in one window: fast retransmit, then one partial ack. */
static void two_losses_fast_recovery(void)
{
	struct tonic_engine *e = mk(20, 10, false);
	struct tonic_flow_stats st;

	run.lose[2] = 1;
	run.lose[5] = 1;
	simulate(e, 20, false);
	st = fstats(e, ID);
	CHECK_EQ(run.r.m.rcv_nxt, 20);
	CHECK_EQ(run.nrtx, 2);
	CHECK_EQ(run.rtx[0], 2);
	CHECK_EQ(run.rtx[1], 5);
	CHECK_EQ(run.rtx_t[0], RTT_NS);		/* first round of acks */
	CHECK_EQ(run.rtx_t[1], 2 * RTT_NS);	/* after the partial ack */
	CHECK_EQ(st.timeouts, 0);
	CHECK_EQ(st.rtx_sent, 2);
	CHECK_EQ(st.segs_sent, 22);
	CHECK_EQ(st.wnd_start, 20);
	CHECK_EQ(st.in_flight, 0);
	tonic_engine_destroy(e);
}

/* Exact window trace: after recovery cwnd = min(ssthresh, flight + 1). */
static void window_after_recovery(void)
{
	struct tonic_engine *e = mk(200, 10, false);
	struct tonic_ctrl_desc a[16];
	unsigned int i, n;

	n = tonic_engine_tx(e, 0, out, 1024);
	CHECK_EQ(n, 10);
	/* seg 0 lost: nine duplicate acks with sacks */
	for (i = 1; i < 10; i++)
		a[i - 1] = sack_desc(ID, 0, i);
	tonic_engine_ctrl(e, a, 3, 1);
	/* ssthresh = max(10 / 2, 2) = 5, cwnd = 5 + 3 */
	CHECK_EQ(fstats(e, ID).wnd, 8);
	CHECK_EQ(fstats(e, ID).marked, 1);
	tonic_engine_ctrl(e, a + 3, 6, 2);	/* inflate by 6 */
	CHECK_EQ(fstats(e, ID).wnd, 14);
	n = tonic_engine_tx(e, 3, out, 1024);
	CHECK_EQ(out[0].seg, 0);
	CHECK_EQ(out[0].rtx, 1);
	CHECK_EQ(n, 5);				/* rtx + 4 new (in flight 14) */
	ctrl1(e, ack_desc(ID, 10), 4);		/* below recover = 10? no: full */
	/* full ack: cwnd = min(5, max(flight = 4, 1) + 1) = 5 */
	CHECK_EQ(fstats(e, ID).wnd, 5);
	tonic_engine_destroy(e);
}

/* Tail loss: no duplicate acks, so the RTO recovers it. */
static void tail_loss_timeout(void)
{
	struct tonic_engine *e = mk(10, 10, false);
	struct tonic_flow_stats st;

	run.lose[8] = 1;
	run.lose[9] = 1;
	simulate(e, 10, false);
	st = fstats(e, ID);
	CHECK_EQ(run.r.m.rcv_nxt, 10);
	CHECK_EQ(st.timeouts, 1);
	CHECK_EQ(run.nrtx, 2);
	CHECK_EQ(run.rtx[0], 8);
	CHECK_EQ(run.rtx[1], 9);
	/* sent at 0, timer armed at 0 and restarted by the ack at 10 ms */
	CHECK_EQ(run.rtx_t[0], RTT_NS + RTO_NS);
	CHECK_EQ(run.rtx_t[1], 2 * RTT_NS + RTO_NS);
	/* 1 after the RTO; ssthresh = max(2 / 2, 2): slow start to 2 */
	CHECK_EQ(st.wnd, 2);
	/* Karn: no RTT sample yet, so the backed-off timeout stays */
	CHECK_EQ(st.rto_ns, 2 * RTO_NS);
	tonic_engine_destroy(e);
}

/* A lost retransmission: fast retransmit fails, the RTO resends it. */
static void lost_retransmission(void)
{
	struct tonic_engine *e = mk(12, 10, false);
	struct tonic_flow_stats st;

	run.lose[2] = 3;		/* first and second transmission */
	simulate(e, 12, false);
	st = fstats(e, ID);
	CHECK_EQ(run.r.m.rcv_nxt, 12);
	CHECK_EQ(run.nrtx, 2);
	CHECK_EQ(run.rtx[0], 2);
	CHECK_EQ(run.rtx[1], 2);
	CHECK_EQ(st.timeouts, 1);
	CHECK_EQ(st.rtx_sent, 2);
	tonic_engine_destroy(e);
}

/* After an RTO with many holes, go-back-N by marking, skipping sacked. */
static void timeout_go_back_n(void)
{
	struct tonic_engine *e = mk(8, 8, false);
	unsigned int i;

	for (i = 1; i < 8; i++)
		if (i != 4)
			run.lose[i] = 1;	/* only 0 and 4 arrive */
	simulate(e, 8, false);
	CHECK_EQ(run.r.m.rcv_nxt, 8);
	CHECK_EQ(fstats(e, ID).timeouts, 1);
	/* 1 after the RTO; then cwnd 2: 2,3; then 5,6 (4 was sacked); 7 */
	CHECK_EQ(run.nrtx, 6);
	CHECK_EQ(run.rtx[0], 1);
	CHECK_EQ(run.rtx[1], 2);
	CHECK_EQ(run.rtx[2], 3);
	CHECK_EQ(run.rtx[3], 5);
	CHECK_EQ(run.rtx[4], 6);
	CHECK_EQ(run.rtx[5], 7);
	tonic_engine_destroy(e);
}

/* RFC 6298 with samples; RTO doubles per timeout up to rto_max. */
static void rto_estimation_and_backoff(void)
{
	struct tonic_engine *e = mk(20, 10, true);
	struct tonic_flow_stats st;
	u64 t;
	int i;

	simulate(e, 20, true);
	st = fstats(e, ID);
	/* srtt = 10 ms, rttvar -> small: clamped up to rto_min */
	CHECK_EQ(st.rto_ns, RTO_NS);
	CHECK_EQ(st.timeouts, 0);
	/* now lose everything: the timer backs off 200, 400, 800 ms */
	tonic_engine_announce(e, ID, 21, 0);
	t = run.end_t;
	CHECK_EQ(tonic_engine_tx(e, t, out, 16), 1);
	for (i = 0; i < 3; i++) {
		u64 sent = t;
		int guard = 0;

		/* the heap is lazy: a wake-up may come early and do nothing */
		while (fstats(e, ID).timeouts == (u64)i && guard++ < 10) {
			t = tonic_engine_next_timer(e);
			tonic_engine_timers(e, t);
		}
		CHECK_EQ(t - sent, RTO_NS << i);
		CHECK_EQ(tonic_engine_tx(e, t, out, 16), 1);
		CHECK_EQ(out[0].seg, 20);
		CHECK_EQ(out[0].rtx_cnt, i < 2 ? i + 1 : 3);
	}
	CHECK_EQ(fstats(e, ID).timeouts, 3);
	CHECK_EQ(fstats(e, ID).wnd, 1);
	tonic_engine_destroy(e);
}

/*
 * IRN's RTO_low: a tail loss with at most rto_low_segs segments in flight
 * waits max(SRTT + 4 RTTVAR, rto_low), not rto_min; a larger flight keeps
 * rto_min, and rto_low_segs = 0 turns the low floor off.
 */
static void rto_low_small_flight(void)
{
	static const struct { u32 low_segs, lost, first_rtx_ms; } c[] = {
		{ 3, 3, 10 + 20 },	/* flight 3 <= N: rto_low */
		{ 3, 4, 10 + 200 },	/* flight 4 > N: rto_min */
		{ 0, 1, 10 + 200 },	/* off */
	};
	unsigned int i, j;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct tonic_engine *e = mk_low(10, 10, c[i].low_segs);

		for (j = 10 - c[i].lost; j < 10; j++)
			run.lose[j] = 1;
		simulate(e, 10, true);
		CHECK_EQ(run.r.m.rcv_nxt, 10);
		CHECK_EQ(fstats(e, ID).timeouts, 1);
		CHECK_EQ(run.rtx[0], 10 - c[i].lost);
		CHECK_EQ(run.rtx_t[0], c[i].first_rtx_ms * 1000000ULL);
		CHECK_EQ(fstats(e, ID).violations, 0);
		tonic_engine_destroy(e);
	}
}

/*
 * The floor follows the flight: a timeout set while two segments were in
 * flight (rto_low applies) must not survive into a refilled window, or an
 * ACK late by more than rto_low would time out and resend all of it.
 */
static void rto_low_outgrown(void)
{
	struct tonic_engine *e = mk_low(2, 10, 3);
	u64 t;

	simulate(e, 2, true);		/* flight 2: rto_low applies */
	CHECK_EQ(run.r.m.rcv_nxt, 2);
	CHECK(fstats(e, ID).rto_ns < RTO_NS);
	t = run.end_t;
	tonic_engine_announce(e, ID, 20, 0);
	CHECK(tonic_engine_tx(e, t, out, 1024) > 3);
	CHECK_EQ(fstats(e, ID).rto_ns, RTO_NS);
	/* the old deadline may still wake the engine, but times nothing out */
	tonic_engine_timers(e, tonic_engine_next_timer(e));
	CHECK_EQ(fstats(e, ID).timeouts, 0);
	CHECK_EQ(tonic_engine_next_timer(e), t + RTO_NS);
	CHECK_EQ(fstats(e, ID).violations, 0);
	tonic_engine_destroy(e);
}

/*
 * Outstanding is sent and not acked: a flight of 10 with 7 of them acked
 * selectively above the hole leaves 3 in the network, and the hook sees
 * the low floor; with 6 acked, 4 are left and rto_min applies.  A window
 * of at most rto_low_segs asks for every ACK at once (TONIC_SEG_ACKREQ),
 * so that a delayed ACK cannot outlast rto_low; a larger one does not.
 */
static struct tonic_engine *mk_script(u32 init_wnd)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, init_wnd,
						 &script_ops);

	script_reset();
	p.rto_min_ns = RTO_NS;
	p.rto_low_ns = RTO_LOW_NS;
	p.rto_low_segs = 3;
	if (tonic_engine_flow_add(e, &p, 0) ||
	    tonic_engine_announce(e, ID, 20, 0))
		tap_diag("setup failed");
	return e;
}

static void rto_low_outstanding(void)
{
	struct tonic_engine *e = mk_script(10);
	unsigned int i, asked = 0;

	CHECK_EQ(tonic_engine_tx(e, 0, out, 1024), 10);
	for (i = 0; i < 10; i++)
		asked += !!(out[i].flags & TONIC_SEG_ACKREQ);
	CHECK_EQ(asked, 0);
	for (i = 1; i <= 6; i++)
		ctrl1(e, sack_desc(ID, 0, i), i);
	CHECK_EQ(script.last_in.rto_min_ns, RTO_NS);
	ctrl1(e, sack_desc(ID, 0, 7), 7);
	CHECK_EQ(script.last_in.rto_min_ns, RTO_LOW_NS);	/* 0, 8, 9 */
	tonic_engine_destroy(e);

	e = mk_script(3);
	CHECK_EQ(tonic_engine_tx(e, 0, out, 1024), 3);
	for (asked = 0, i = 0; i < 3; i++)
		asked += !!(out[i].flags & TONIC_SEG_ACKREQ);
	CHECK_EQ(asked, 3);
	tonic_engine_destroy(e);
}

/* dupacks for @n segments above a hole at @cum, SACKing @from onwards */
static void dupacks(struct tonic_engine *e, u32 cum, u32 from, u32 n, u64 t)
{
	while (n--)
		ctrl1(e, sack_desc(ID, cum, from++), t);
}

/*
 * Reordering, not loss: segment 0 arrives after 1-3, so the third dupack
 * fast-retransmits it, and the receiver then reports the resent copy as
 * a duplicate (DSACK).  NewReno undoes the window reduction; the next
 * real hole is still found with three dupacks.
 */
static void spurious_fast_retransmit_undone(void)
{
	struct tonic_engine *e = mk(40, 10, false);
	struct tonic_ctrl_desc dup = ack_desc(ID, 4);
	u64 t = RTT_NS;

	CHECK_EQ(tonic_engine_tx(e, 0, out, 1024), 10);
	dupacks(e, 0, 1, 3, t);
	CHECK_EQ(fstats(e, ID).wnd, 5 + 3);		/* fast recovery */
	CHECK_EQ(tonic_engine_tx(e, t, out, 1024), 1);
	CHECK(out[0].rtx && out[0].seg == 0);
	ctrl1(e, sack_desc(ID, 4, 0), t);		/* the original */
	dup.flags |= TONIC_CF_DUP;
	dup.sack = 0;
	ctrl1(e, dup, t);				/* the resent copy */
	CHECK(fstats(e, ID).wnd >= 10);			/* undone */

	/* everything up to 10 acked; then a hole at 10 */
	tonic_engine_tx(e, t, out, 1024);
	for (u32 s = 4; s < 10; s++)
		ctrl1(e, sack_desc(ID, s + 1, s), 2 * t);
	tonic_engine_tx(e, 2 * t, out, 1024);
	CHECK(fstats(e, ID).next_new >= 15);
	dupacks(e, 10, 11, 2, 3 * t);
	CHECK_EQ(fstats(e, ID).marked, 0);
	dupacks(e, 10, 13, 1, 3 * t);
	CHECK_EQ(fstats(e, ID).marked, 1);		/* the third */
	tonic_engine_destroy(e);
}

/* RFC 5827: 3 segments in flight can only give 2 dupacks; 2 suffice. */
static void early_retransmit_small_flight(void)
{
	struct tonic_engine *e = mk(4, 4, false);

	CHECK_EQ(tonic_engine_tx(e, 0, out, 1024), 4);
	ctrl1(e, sack_desc(ID, 1, 0), RTT_NS);		/* 1 is lost */
	dupacks(e, 1, 2, 1, RTT_NS);
	CHECK_EQ(fstats(e, ID).marked, 0);
	dupacks(e, 1, 3, 1, RTT_NS);
	CHECK_EQ(fstats(e, ID).marked, 1);
	CHECK_EQ(tonic_engine_tx(e, RTT_NS, out, 1024), 1);
	CHECK(out[0].rtx && out[0].seg == 1);
	CHECK_EQ(fstats(e, ID).timeouts, 0);
	tonic_engine_destroy(e);
}

/*
 * The fast retransmission of 2 is lost as well; the segments sent after
 * it are acked selectively, and after three of them 2 is sent a third
 * time, without waiting for the timeout.
 */
static void lost_retransmission_resent(void)
{
	struct tonic_engine *e = mk(60, 10, false);

	run.lose[2] = 3;		/* first and second transmission */
	simulate(e, 60, false);
	CHECK_EQ(run.r.m.rcv_nxt, 60);
	CHECK_EQ(fstats(e, ID).timeouts, 0);
	CHECK_EQ(run.nrtx, 2);
	CHECK_EQ(run.rtx[0], 2);
	CHECK_EQ(run.rtx[1], 2);
	CHECK_EQ(run.rtx_t[1], 2 * RTT_NS);	/* a round later, no RTO */
	tonic_engine_destroy(e);
}

int main(void)
{
	tap_plan(12);
	TAP_RUN(two_losses_fast_recovery);
	TAP_RUN(window_after_recovery);
	TAP_RUN(tail_loss_timeout);
	TAP_RUN(lost_retransmission);
	TAP_RUN(timeout_go_back_n);
	TAP_RUN(rto_estimation_and_backoff);
	TAP_RUN(rto_low_small_flight);
	TAP_RUN(rto_low_outgrown);
	TAP_RUN(rto_low_outstanding);
	TAP_RUN(spurious_fast_retransmit_undone);
	TAP_RUN(early_retransmit_small_flight);
	TAP_RUN(lost_retransmission_resent);
	return tap_exit();
}
