// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the flow scheduler (engine.c, sched.c): round-robin
 * fairness through the active FIFO (cut-through path) and through the
 * per-flow rings and the ready-to-tx FIFO, the N-entry ring limit, and the
 * timer heap against a naive model.
 */
#include "unit.h"

#define NFLOWS	64

static struct tonic_seg_desc out[4096];

static struct tonic_engine *mk_flows(u32 n, u8 scheme, u32 tokens)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	u32 i;

	script_reset();
	for (i = 0; i < n; i++) {
		struct tonic_flow_params p = flow_params(1000 + i * 7, 256,
							 256, &script_ops);

		p.scheme = scheme;
		p.init_tokens = tokens;
		if (tonic_engine_flow_add(e, &p, 0) ||
		    tonic_engine_announce(e, p.flow_id, 1U << 20, 0))
			tap_diag("setup failed");
	}
	return e;
}

/* After every batch, of any size, no flow is more than one ahead. */
static void fairness_window_flows(void)
{
	struct tonic_engine *e = mk_flows(NFLOWS, TONIC_CREDIT_WINDOW, 0);
	u32 cnt[NFLOWS] = { 0 };
	unsigned int round, i;

	for (round = 0; round < 200; round++) {
		unsigned int n = tonic_engine_tx(e, round, out, 1 + rnd(97));
		u32 lo = U32_MAX, hi = 0;

		for (i = 0; i < n; i++)
			cnt[(out[i].flow_id - 1000) / 7]++;
		for (i = 0; i < NFLOWS; i++) {
			lo = min(lo, cnt[i]);
			hi = max(hi, cnt[i]);
		}
		CHECK(hi - lo <= 1);
		/* ack everything so windows never limit */
		for (i = 0; i < n; i++)
			ctrl1(e, ack_desc(out[i].flow_id, out[i].seg + 1),
			      round);
	}
	CHECK_EQ(estats(e).cut_through, estats(e).segs_sent);
	tonic_engine_destroy(e);
}

/* Through the rings: grants release N addresses per flow, served RR. */
static void fairness_ready_fifo(void)
{
	struct tonic_engine *e = mk_flows(NFLOWS, TONIC_CREDIT_GRANT, 0);
	struct tonic_ctrl_desc g[NFLOWS];
	unsigned int i, n;

	CHECK_EQ(tonic_engine_tx(e, 0, out, 4096), 0);
	for (i = 0; i < NFLOWS; i++) {
		CHECK_EQ(fstats(e, 1000 + i * 7).outstanding, TONIC_DEF_RING);
		memset(&g[i], 0, sizeof(g[i]));
		g[i].flow_id = 1000 + i * 7;
		g[i].type = TONIC_CTRL_GRANT;
		g[i].flags = TONIC_CF_GRANT;
		g[i].grant = 1000 * 1000;
	}
	tonic_engine_ctrl(e, g, NFLOWS, 1);
	n = tonic_engine_tx(e, 1, out, 4 * NFLOWS);
	CHECK_EQ(n, 4 * NFLOWS);
	/* strict round robin: flow order repeats every NFLOWS addresses */
	for (i = NFLOWS; i < n; i++)
		CHECK_EQ(out[i].flow_id, out[i - NFLOWS].flow_id);
	for (i = 0; i < NFLOWS; i++)
		CHECK_EQ(out[i].flow_id, 1000 + i * 7);
	CHECK_EQ(out[NFLOWS].seg, 1);
	tonic_engine_destroy(e);
}

/* The ring never holds more than N addresses. */
static void ring_limit(void)
{
	unsigned int n;

	for (n = 1; n <= TONIC_MAX_RING; n++) {
		struct tonic_engine *e = tonic_engine_create(NULL);
		struct tonic_flow_params p = flow_params(5, 128, 128,
							 &script_ops);

		p.scheme = TONIC_CREDIT_GRANT;
		p.ring_size = (u8)n;
		tonic_engine_flow_add(e, &p, 0);
		tonic_engine_announce(e, 5, 100, 0);
		tonic_engine_tx(e, 0, out, 64);
		CHECK_EQ(fstats(e, 5).outstanding, n);
		CHECK_EQ(fstats(e, 5).next_new, n);
		tonic_engine_destroy(e);
	}
}

/*
 * A flow alone in the scheduler is served in one step as far as its
 * window, its credit and the batch go, in order, as the round-robin
 * would serve it.
 */
static void lone_flow_runs(void)
{
	struct tonic_engine *e = mk_flows(1, TONIC_CREDIT_WINDOW, 0);
	unsigned int n, i;

	n = tonic_engine_tx(e, 0, out, 100);
	CHECK_EQ(n, 100);
	for (i = 0; i < n; i++)
		CHECK_EQ(out[i].seg, i);
	/* the window (256) stops it */
	CHECK_EQ(tonic_engine_tx(e, 0, out, 4096), 156);
	CHECK_EQ(out[155].seg, 255);
	CHECK_EQ(tonic_engine_tx(e, 0, out, 4096), 0);
	CHECK_EQ(estats(e).cut_through, 256);
	tonic_engine_destroy(e);

	/*
	 * Rate credit for two segments (the default burst): the next ones
	 * wait in the ring, which generation then fills.
	 */
	e = mk_flows(1, TONIC_CREDIT_RATE, 2000);
	CHECK_EQ(tonic_engine_tx(e, 0, out, 4096), 2);
	CHECK_EQ(out[1].seg, 1);
	CHECK_EQ(fstats(e, 1000).outstanding, TONIC_DEF_RING);
	CHECK_EQ(fstats(e, 1000).next_new, 2 + TONIC_DEF_RING);
	tonic_engine_destroy(e);

	/* two flows alternate, whatever the batch */
	e = mk_flows(2, TONIC_CREDIT_WINDOW, 0);
	n = tonic_engine_tx(e, 0, out, 40);
	CHECK_EQ(n, 40);
	for (i = 0; i < n; i++) {
		CHECK_EQ(out[i].flow_id, 1000 + (i & 1) * 7);
		CHECK_EQ(out[i].seg, i / 2);
	}
	tonic_engine_destroy(e);
}

/* Timers fire in deadline order whatever order they were set in. */
static void timer_order(void)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	static u64 due[300];
	unsigned int i, fired = 0;
	u64 last = 0;

	script_reset();
	for (i = 0; i < 300; i++) {
		struct tonic_flow_params p = flow_params(i, 16, 16,
							 &script_ops);

		due[i] = 1000 + rnd(100000);
		p.rto_init_ns = due[i];
		p.rto_min_ns = 1;
		tonic_engine_flow_add(e, &p, 0);
		tonic_engine_announce(e, i, 1, 0);
	}
	CHECK_EQ(tonic_engine_tx(e, 0, out, 4096), 300);
	/* remove a third while queued: the heap must stay consistent */
	for (i = 0; i < 300; i += 3)
		tonic_engine_flow_remove(e, i);
	for (;;) {
		u64 t = tonic_engine_next_timer(e);
		u64 before = estats(e).timeouts;

		if (t == U64_MAX || fired >= 200)
			break;
		CHECK(t >= last);
		last = t;
		script.per_out.flags = TONIC_OUT_TIMER_STOP;
		tonic_engine_timers(e, t);
		fired += estats(e).timeouts - before;
		/* the expired flow must be one whose deadline is t */
		CHECK_EQ(due[script.last_per.flow_id], t);
		/* stopping with data in flight re-arms it: remove the flow */
		tonic_engine_flow_remove(e, script.last_per.flow_id);
	}
	CHECK_EQ(fired, 200);
	tonic_engine_destroy(e);
}

int main(void)
{
	tap_plan(5);
	TAP_RUN(fairness_window_flows);
	TAP_RUN(fairness_ready_fifo);
	TAP_RUN(ring_limit);
	TAP_RUN(lone_flow_runs);
	TAP_RUN(timer_order);
	return tap_exit();
}
