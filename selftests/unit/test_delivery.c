// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the data-delivery engine (delivery.c, engine.c): window
 * movement in incoming stage 1, window enforcement, retransmit-first
 * segment generation, sub-segments, a smaller C, notifications, stale ring entries
 * and the API's argument checks.  A scripted protocol decides the hook
 * outputs so every expectation is exact.
 */
#include "unit.h"

#define ID	42

static struct tonic_seg_desc out[1024];

static unsigned int tx(struct tonic_engine *e, u64 now)
{
	return tonic_engine_tx(e, now, out, 1024);
}

static struct tonic_engine *mk(u32 k, u32 wnd, u32 seq, u32 announce)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, k, wnd, &script_ops);

	script_reset();
	p.init_seq = seq;
	if (tonic_engine_flow_add(e, &p, 0) ||
	    tonic_engine_announce(e, ID, seq + announce, 0))
		tap_diag("setup failed");
	return e;
}

static void window_movement(void)
{
	struct tonic_engine *e = mk(128, 8, 0, 20);
	struct tonic_notify_desc nd[4];
	unsigned int n, i;

	n = tx(e, 1);
	CHECK_EQ(n, 8);
	for (i = 0; i < n; i++) {
		CHECK_EQ(out[i].seg, i);
		CHECK_EQ(out[i].rtx, 0);
		CHECK_EQ(out[i].len, 1000);
		CHECK_EQ(out[i].flow_id, ID);
	}
	CHECK_EQ(fstats(e, ID).in_flight, 8);
	ctrl1(e, ack_desc(ID, 3), 2);
	CHECK_EQ(script.last_in.old_wnd_start, 0);
	CHECK_EQ(script.last_in.wnd_start, 3);
	CHECK_EQ(script.last_in.newly_acked, 3);
	CHECK_EQ(tx(e, 3), 3);
	CHECK_EQ(out[0].seg, 8);
	CHECK_EQ(out[2].seg, 10);
	ctrl1(e, sack_desc(ID, 3, 5), 4);
	CHECK_EQ(script.last_in.newly_acked, 1);
	CHECK(tonic_ctx_is_acked(&script.last_in, 5));
	CHECK(!tonic_ctx_is_acked(&script.last_in, 4));
	ctrl1(e, sack_desc(ID, 3, 5), 5);	/* duplicate sack */
	CHECK_EQ(script.last_in.newly_acked, 0);
	ctrl1(e, ack_desc(ID, 6), 6);		/* 3,4 new; 5 was sacked */
	CHECK_EQ(script.last_in.newly_acked, 2);
	CHECK_EQ(fstats(e, ID).wnd_start, 6);
	ctrl1(e, ack_desc(ID, 4), 7);		/* old ack: no movement */
	CHECK_EQ(fstats(e, ID).wnd_start, 6);
	ctrl1(e, sack_desc(ID, 6, 200), 8);	/* sack beyond next_new */
	CHECK_EQ(script.last_in.newly_acked, 0);
	ctrl1(e, ack_desc(ID, 500), 9);		/* never sent: clipped */
	CHECK_EQ(fstats(e, ID).wnd_start, 11);
	CHECK_EQ(estats(e).ctrl_bad, 1);
	CHECK_EQ(fstats(e, ID).acked_segs, 11);
	/* head notifications are coalesced per flow */
	CHECK_EQ(tonic_engine_poll_notify(e, nd, 4), 1);
	CHECK_EQ(nd[0].flow_id, ID);
	CHECK_EQ(nd[0].flags, TONIC_NOTIFY_HEAD);
	CHECK_EQ(nd[0].head, 11);
	CHECK_EQ(tonic_engine_poll_notify(e, nd, 4), 0);
	tonic_engine_destroy(e);
}

static void window_enforced(void)
{
	struct tonic_engine *e = mk(128, 4, 0, 100);
	unsigned int i;

	CHECK_EQ(tx(e, 1), 4);
	CHECK_EQ(tx(e, 2), 0);
	/* grow to 10 through the hook */
	script.in_out.flags = TONIC_OUT_WND;
	script.in_out.wnd = 10;
	ctrl1(e, ack_desc(ID, 1), 3);
	CHECK_EQ(tx(e, 4), 7);			/* in flight 3 -> 10 */
	CHECK_EQ(fstats(e, ID).in_flight, 10);
	/* shrink: nothing new until in flight < wnd */
	script.in_out.wnd = 2;
	ctrl1(e, ack_desc(ID, 5), 5);
	CHECK_EQ(tx(e, 6), 0);
	for (i = 6; i < 11; i++)
		ctrl1(e, ack_desc(ID, i), 10 + i);
	CHECK_EQ(fstats(e, ID).in_flight, 1);
	CHECK_EQ(tx(e, 30), 1);
	CHECK_EQ(out[0].seg, 11);
	tonic_engine_destroy(e);
}

/* Marked segments go out first, in window order from the head. */
static void check_rtx_first(u32 k, u32 seq)
{
	struct tonic_engine *e = mk(k, 16, seq, 40);
	unsigned int n;

	CHECK_EQ(tx(e, 1), 16);
	script.in_out.flags = TONIC_OUT_RTX | TONIC_OUT_WND;
	script.in_out.wnd = 17;
	script.in_out.rtx_start = seq + 9;
	script.in_out.rtx_end = seq + 11;
	ctrl1(e, sack_desc(ID, seq + 2, seq + 4), 2);
	script.in_out.rtx_start = seq + 3;	/* 4 is acked: skipped */
	script.in_out.rtx_end = seq + 5;
	ctrl1(e, sack_desc(ID, seq + 2, seq + 6), 3);
	CHECK_EQ(fstats(e, ID).marked, 3);
	n = tx(e, 4);
	CHECK_EQ(n, 6);			/* 3 rtx, then 3 new (wnd 17) */
	CHECK_EQ(out[0].seg, seq + 3);
	CHECK_EQ(out[1].seg, seq + 9);
	CHECK_EQ(out[2].seg, seq + 10);
	CHECK_EQ(out[0].rtx, 1);
	CHECK_EQ(out[2].rtx, 1);
	CHECK_EQ(out[0].rtx_cnt, 1);
	CHECK_EQ(out[3].seg, seq + 16);
	CHECK_EQ(out[3].rtx, 0);
	CHECK_EQ(out[5].seg, seq + 18);
	/* mark 9 again: its count goes to 2 */
	script.in_out.rtx_start = seq + 9;
	script.in_out.rtx_end = seq + 10;
	ctrl1(e, ack_desc(ID, seq + 2), 5);
	CHECK_EQ(tx(e, 6), 1);
	CHECK_EQ(out[0].seg, seq + 9);
	CHECK_EQ(out[0].rtx_cnt, 2);
	CHECK_EQ(fstats(e, ID).rtx_sent, 4);
	CHECK_EQ(estats(e).segs_rtx, 4);
	tonic_engine_destroy(e);
}

static void rtx_first_selection(void)
{
	check_rtx_first(128, 0);
	check_rtx_first(128, 120);	/* window wraps the ring */
	check_rtx_first(32, 25);
	check_rtx_first(256, 0xfffffff8U);	/* and the 2^32 space */
}

static void subsegment(void)
{
	struct tonic_engine *e = mk(128, 10, 0, 0);
	struct tonic_notify_desc nd[2];

	CHECK_EQ(tonic_engine_announce(e, ID, 3, 100), 0);
	CHECK_EQ(tonic_engine_announce(e, ID, 5, 0), -EBUSY);
	CHECK_EQ(tx(e, 1), 3);
	CHECK_EQ(out[0].len, 1000);
	CHECK_EQ(out[2].len, 100);
	ctrl1(e, ack_desc(ID, 2), 2);
	CHECK_EQ(tonic_engine_poll_notify(e, nd, 2), 1);
	CHECK_EQ(nd[0].flags, TONIC_NOTIFY_HEAD);
	ctrl1(e, ack_desc(ID, 3), 3);
	CHECK_EQ(tonic_engine_poll_notify(e, nd, 2), 1);
	CHECK_EQ(nd[0].flags, TONIC_NOTIFY_HEAD | TONIC_NOTIFY_SUBSEG);
	CHECK_EQ(nd[0].head, 3);
	CHECK_EQ(tonic_engine_announce(e, ID, 5, 0), 0);
	CHECK_EQ(tx(e, 4), 2);
	CHECK_EQ(out[0].seg, 3);
	CHECK_EQ(out[0].len, 1000);
	tonic_engine_destroy(e);
}

/*
 * A path MTU drop: segments announced after tonic_engine_flow_resize()
 * are the new C, programs see it, and a sub-segment cut before (longer
 * than the new C, shorter than the first) is still accepted.
 */
static void resize(void)
{
	struct tonic_engine *e = mk(128, 10, 0, 2);

	CHECK_EQ(tonic_engine_flow_resize(e, ID, 1001), -EINVAL);
	CHECK_EQ(tonic_engine_flow_resize(e, ID, 0), -EINVAL);
	CHECK_EQ(tonic_engine_flow_resize(e, ID + 1, 500), -ENOENT);
	CHECK_EQ(tonic_engine_flow_resize(e, ID, 600), 0);
	CHECK_EQ(tonic_engine_announce(e, ID, 3, 1000), -EINVAL);
	CHECK_EQ(tonic_engine_announce(e, ID, 3, 900), 0);
	CHECK_EQ(tx(e, 1), 3);
	CHECK_EQ(out[0].len, 600);
	CHECK_EQ(out[2].len, 900);
	ctrl1(e, ack_desc(ID, 3), 2);
	CHECK_EQ(script.last_in.seg_size, 600);
	CHECK_EQ(tonic_engine_announce(e, ID, 5, 0), 0);
	CHECK_EQ(tx(e, 3), 2);
	CHECK_EQ(out[1].len, 600);
	tonic_engine_destroy(e);
}

/* Retransmissions acked while waiting in the ring are dropped, not sent. */
static void stale_ring_entries(void)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, 16, &script_ops);
	struct tonic_ctrl_desc g = ack_desc(ID, 0);

	script_reset();
	p.scheme = TONIC_CREDIT_GRANT;
	p.ring_size = 4;
	p.init_tokens = 4000;
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), 0);
	tonic_engine_announce(e, ID, 4, 0);
	CHECK_EQ(tx(e, 8), 4);			/* 0..3 sent, tokens spent */
	script.in_out.flags = TONIC_OUT_RTX;	/* resend them all */
	script.in_out.rtx_end = 4;
	ctrl1(e, ack_desc(ID, 0), 1);
	script.in_out.flags = 0;
	CHECK_EQ(tx(e, 4), 0);			/* no tokens */
	CHECK_EQ(fstats(e, ID).outstanding, 4);	/* ring full: N = 4 */
	ctrl1(e, ack_desc(ID, 2), 2);		/* 0 and 1 arrived after all */
	tonic_engine_announce(e, ID, 10, 0);
	g.type = TONIC_CTRL_GRANT;
	g.flags = TONIC_CF_GRANT;
	g.grant = 10000;
	ctrl1(e, g, 3);
	CHECK_EQ(tx(e, 16), 8);
	CHECK_EQ(out[0].seg, 2);
	CHECK_EQ(out[0].rtx, 1);
	CHECK_EQ(out[2].seg, 4);
	CHECK_EQ(out[2].rtx, 0);
	CHECK_EQ(out[7].seg, 9);
	CHECK_EQ(estats(e).stale_dropped, 2);
	CHECK_EQ(estats(e).ctrl_bad, 0);
	CHECK_EQ(fstats(e, ID).credit_bytes, 2000);
	tonic_engine_destroy(e);
}

/*
 * New segments waiting in the ring for credit were never sent: an ack of
 * them is clipped to what was sent (and counted), a selective ack of one
 * is ignored, and they still go out.
 */
static void unsent_ring_entries(void)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, 16, &script_ops);
	struct tonic_ctrl_desc g = ack_desc(ID, 0);

	script_reset();
	p.scheme = TONIC_CREDIT_GRANT;
	p.ring_size = 4;
	p.init_tokens = 2000;
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), 0);
	tonic_engine_announce(e, ID, 10, 0);
	CHECK_EQ(tx(e, 8), 2);			/* 0 and 1 sent */
	CHECK_EQ(fstats(e, ID).outstanding, 4);	/* 2..5 wait for credit */
	CHECK_EQ(fstats(e, ID).next_new, 6);
	ctrl1(e, sack_desc(ID, 5, 3), 1);
	CHECK_EQ(fstats(e, ID).wnd_start, 2);
	CHECK_EQ(fstats(e, ID).acked_segs, 2);
	CHECK_EQ(estats(e).ctrl_bad, 1);
	g.type = TONIC_CTRL_GRANT;
	g.flags = TONIC_CF_GRANT;
	g.grant = 10000;
	ctrl1(e, g, 2);
	CHECK_EQ(tx(e, 16), 8);
	CHECK_EQ(out[0].seg, 2);
	CHECK_EQ(out[1].seg, 3);
	CHECK_EQ(out[7].seg, 9);
	CHECK_EQ(estats(e).stale_dropped, 0);
	tonic_engine_destroy(e);
}

static void api_errors(void)
{
	struct tonic_engine *e = mk(128, 4, 0, 4);
	struct tonic_flow_params p = flow_params(7, 128, 4, NULL);
	struct tonic_flow_stats st;

	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), 0);
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), -EEXIST);
	p.flow_id = 8;
	p.wnd_max = 100;			/* not a power of two */
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), -EINVAL);
	p.wnd_max = 512;
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), -EINVAL);
	p.wnd_max = 128;
	p.seg_size = 0;
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), -EINVAL);
	p.seg_size = 1000;
	p.ring_size = TONIC_MAX_RING + 1;
	CHECK_EQ(tonic_engine_flow_add(e, &p, 0), -EINVAL);
	CHECK_EQ(tonic_engine_announce(e, 99, 5, 0), -ENOENT);
	CHECK_EQ(tonic_engine_announce(e, ID, 2, 0), -EINVAL);	/* behind */
	CHECK_EQ(tonic_engine_announce(e, ID, 6, 1000), -EINVAL);
	CHECK_EQ(tonic_engine_announce(e, ID, 4, 10), -EINVAL);
	CHECK_EQ(tonic_engine_flow_stats(e, 99, &st), -ENOENT);
	CHECK_EQ(tonic_engine_flow_remove(e, 99), -ENOENT);
	CHECK_EQ(tonic_engine_flow_remove(e, 7), 0);
	CHECK_EQ(tonic_engine_flow_remove(e, 7), -ENOENT);
	CHECK_EQ(estats(e).flows, 1);
	tonic_engine_destroy(e);
	CHECK_EQ(script.n_release, 1);
}

int main(void)
{
	tap_plan(8);
	TAP_RUN(window_movement);
	TAP_RUN(window_enforced);
	TAP_RUN(rtx_first_selection);
	TAP_RUN(subsegment);
	TAP_RUN(resize);
	TAP_RUN(stale_ring_entries);
	TAP_RUN(unsent_ring_entries);
	TAP_RUN(api_errors);
	return tap_exit();
}
