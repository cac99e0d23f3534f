// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of output validation (ctx.c): each kind of bad hook output
 * is clipped exactly and counted, and a protocol returning random garbage
 * on every event can never make the engine send outside the window or the
 * announced data, leave the window outside [1, K], or wedge a flow.
 */
#include "unit.h"

#define ID	77

static struct tonic_seg_desc out[1024];

static struct tonic_engine *mk(u32 k)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, k, 8, &script_ops);

	script_reset();
	p.rate_min_bps = 1000000;
	p.rate_max_bps = 1000000000;
	p.rto_min_ns = 1000;
	p.rto_max_ns = 1000000;
	tonic_engine_flow_add(e, &p, 0);
	tonic_engine_announce(e, ID, 1000, 0);
	return e;
}

static void out_and_ack(struct tonic_engine *e, struct tonic_hook_out o,
			u32 cum, u64 now)
{
	script.in_out = o;
	ctrl1(e, ack_desc(ID, cum), now);
	memset(&script.in_out, 0, sizeof(script.in_out));
}

static void exact_clips(void)
{
	struct tonic_engine *e = mk(128);
	struct tonic_hook_out o;

	CHECK_EQ(tonic_engine_tx(e, 0, out, 1024), 8);
	memset(&o, 0, sizeof(o));
	o.flags = TONIC_OUT_WND;
	o.wnd = 0;
	out_and_ack(e, o, 1, 1);
	CHECK_EQ(fstats(e, ID).wnd, 1);
	CHECK_EQ(fstats(e, ID).violations, 1);
	o.wnd = 100000;
	out_and_ack(e, o, 1, 2);
	CHECK_EQ(fstats(e, ID).wnd, 128);
	CHECK_EQ(fstats(e, ID).violations, 2);
	/* range sticking out both ends: clipped to [1, 8), 2 violations */
	o.flags = TONIC_OUT_RTX;
	o.rtx_start = 0xfffffff0U;
	o.rtx_end = 500;
	out_and_ack(e, o, 1, 3);
	CHECK_EQ(fstats(e, ID).marked, 7);
	CHECK_EQ(fstats(e, ID).violations, 4);
	/* reversed range: nothing marked, one violation */
	o.rtx_start = 6;
	o.rtx_end = 2;
	out_and_ack(e, o, 1, 4);
	CHECK_EQ(fstats(e, ID).marked, 7);
	CHECK_EQ(fstats(e, ID).violations, 5);
	/* rate and timer to their bounds, unknown flag bit */
	o.flags = TONIC_OUT_RATE | TONIC_OUT_TIMER | 0x8000;
	o.rate_bps = U64_MAX;
	o.timer_ns = 0;
	out_and_ack(e, o, 1, 5);
	CHECK_EQ(fstats(e, ID).rate_bps, 1000000000);
	CHECK_EQ(fstats(e, ID).rto_ns, 1000);
	CHECK_EQ(fstats(e, ID).violations, 8);
	o.flags = TONIC_OUT_RATE;
	o.rate_bps = 0;
	out_and_ack(e, o, 1, 6);
	CHECK_EQ(fstats(e, ID).rate_bps, 1000000);
	CHECK_EQ(estats(e).violations, 9);
	/* a good output counts nothing */
	o.flags = TONIC_OUT_WND;
	o.wnd = 50;
	out_and_ack(e, o, 1, 7);
	CHECK_EQ(estats(e).violations, 9);
	tonic_engine_destroy(e);
}

static struct tonic_hook_out garbage(void)
{
	struct tonic_hook_out o;

	o.flags = (u32)rnd64();
	o.rtx_start = (u32)rnd64();
	o.rtx_end = rnd(2) ? (u32)rnd64() : o.rtx_start + rnd(300);
	o.wnd = rnd(2) ? (u32)rnd64() : rnd(300);
	o.rate_bps = rnd64() >> rnd(64);
	o.timer_ns = rnd64() >> rnd(64);
	return o;
}

/* Hostile program on every hook; the receiver loses 10 % of data. */
static void check_hostile(u32 k)
{
	struct tonic_engine *e = mk(k);
	struct rcv r;
	u64 t = 0;
	int iter;

	rcv_init(&r, ID);
	for (iter = 0; iter < 20000 && r.m.rcv_nxt < 1000; iter++) {
		unsigned int n, i;
		struct tonic_flow_stats st = fstats(e, ID);

		script.in_out = garbage();
		script.per_out = garbage();
		n = tonic_engine_tx(e, t, out, 1024);
		for (i = 0; i < n; i++) {
			/* never outside the window nor the announced data */
			CHECK(!tonic_seq_before(out[i].seg, st.wnd_start));
			CHECK(out[i].seg - st.wnd_start < k);
			CHECK(out[i].seg < 1000);
			if (rnd(10))
				ctrl1(e, rcv_data(&r, out[i].seg), t);
		}
		st = fstats(e, ID);
		CHECK(st.wnd >= 1 && st.wnd <= k);
		CHECK(st.in_flight <= k);
		CHECK(st.rate_bps >= 1000000 && st.rate_bps <= 1000000000);
		CHECK(st.rto_ns >= 1000 && st.rto_ns <= 1000000);
		if (!n) {
			/* nothing to send: the timer must be running */
			t = tonic_engine_next_timer(e);
			CHECK(t != U64_MAX);
			if (t == U64_MAX)
				break;
			tonic_engine_timers(e, t);
		} else {
			t += 1000;
		}
	}
	CHECK(fstats(e, ID).violations > 0);
	/* then a sane program: the flow finishes (it was never wedged) */
	memset(&script.in_out, 0, sizeof(script.in_out));
	for (iter = 0; iter < 100000 && r.m.rcv_nxt < 1000; iter++) {
		unsigned int n, i;

		script.per_out.flags = TONIC_OUT_RTX | TONIC_OUT_WND;
		script.per_out.rtx_start = r.m.rcv_nxt;
		script.per_out.rtx_end = r.m.rcv_nxt + k;
		script.per_out.wnd = k;
		n = tonic_engine_tx(e, t, out, 1024);
		for (i = 0; i < n; i++)
			ctrl1(e, rcv_data(&r, out[i].seg), t);
		t = n ? t + 1000 : tonic_engine_next_timer(e);
		tonic_engine_timers(e, t);
	}
	CHECK_EQ(r.m.rcv_nxt, 1000);
	tonic_engine_destroy(e);
}

static void hostile_k128(void)
{
	check_hostile(128);
}

static void hostile_k256(void)
{
	check_hostile(256);
}

int main(void)
{
	tap_plan(3);
	TAP_RUN(exact_clips);
	TAP_RUN(hostile_k128);
	TAP_RUN(hostile_k256);
	return tap_exit();
}
