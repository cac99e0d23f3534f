// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the ACK ratio a protocol chooses (struct tonic_hook_out
 * .ack_ratio): which segments the engine flags TONIC_SEG_ACKREQ (every
 * N-th new one, the one that fills the window, the one that uses up a
 * grant) and TONIC_SEG_ACKFREQ, the clamp, and the receiver model's side
 * (kmod/engine/receiver.c): the cap for ACKFREQ segments, ACKREQ, and a
 * batch's ACK at its end.
 */
#include "unit.h"

#define ID	7

static struct tonic_seg_desc out[256];

static unsigned int tx(struct tonic_engine *e, u64 now)
{
	return tonic_engine_tx(e, now, out, 256);
}

/* A flow of @wnd segments (K 128, 200 announced) whose program asks @ratio. */
static struct tonic_engine *mk(u32 wnd, u32 ratio, u8 scheme, u32 tokens)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, wnd, &script_ops);

	script_reset();
	p.scheme = scheme;
	p.init_tokens = tokens;
	if (tonic_engine_flow_add(e, &p, 0) ||
	    tonic_engine_announce(e, ID, 200, 0))
		tap_diag("setup failed");
	/* An event whose hook sets the ratio; then the hooks ask nothing. */
	script.in_out.flags = TONIC_OUT_ACK_RATIO;
	script.in_out.ack_ratio = ratio;
	ctrl1(e, ack_desc(ID, 0), 1);
	memset(&script.in_out, 0, sizeof(script.in_out));
	return e;
}

/* Segments among out[0..n) flagged ACKREQ, as a bit mask by index. */
static u64 reqs(unsigned int n)
{
	u64 m = 0;
	unsigned int i;

	for (i = 0; i < n && i < 64; i++)
		if (out[i].flags & TONIC_SEG_ACKREQ)
			m |= 1ULL << i;
	return m;
}

static bool all_ackfreq(unsigned int n, bool want)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!!(out[i].flags & TONIC_SEG_ACKFREQ) != want)
			return false;
	return true;
}

static void default_ratio(void)
{
	struct tonic_engine *e = mk(32, 0, 0, 0);

	CHECK_EQ(tx(e, 2), 32);
	CHECK_EQ(reqs(32), 0);
	CHECK(all_ackfreq(32, false));
	CHECK_EQ(script.last_in.ack_ratio, 0);
	tonic_engine_destroy(e);
}

static void every_nth(void)
{
	struct tonic_engine *e = mk(32, 4, 0, 0);

	ctrl1(e, ack_desc(ID, 0), 2);
	CHECK_EQ(script.last_in.ack_ratio, 4);	/* the hook sees it */
	CHECK_EQ(tx(e, 3), 32);
	CHECK(all_ackfreq(32, true));
	CHECK_EQ(reqs(32), 0x88888888ULL);	/* 3, 7, ..., 31 (window full) */
	CHECK_EQ(fstats(e, ID).violations, 0);
	tonic_engine_destroy(e);
}

/* A ratio that does not divide the window: the window's last one asks. */
static void window_full(void)
{
	struct tonic_engine *e = mk(10, 4, 0, 0);

	CHECK_EQ(tx(e, 2), 10);
	CHECK_EQ(reqs(10), (1U << 3) | (1U << 7) | (1U << 9));
	ctrl1(e, ack_desc(ID, 4), 3);
	CHECK_EQ(tx(e, 4), 4);			/* 10..13: 13 fills it again */
	CHECK_EQ(out[0].seg, 10);
	CHECK_EQ(reqs(4), 1U << 3);
	ctrl1(e, ack_desc(ID, 6), 5);
	CHECK_EQ(tx(e, 6), 2);			/* 14, 15: the window's last */
	CHECK_EQ(reqs(2), 1U << 1);
	tonic_engine_destroy(e);
}

static void resends_and_change(void)
{
	struct tonic_engine *e = mk(8, 3, 0, 0);

	CHECK_EQ(tx(e, 2), 8);
	CHECK_EQ(reqs(8), (1U << 2) | (1U << 5) | (1U << 7));
	/* A resend: ACKFREQ, its ACKREQ is the socket's (rtx) */
	script.in_out.flags = TONIC_OUT_RTX;
	script.in_out.rtx_start = 1;
	script.in_out.rtx_end = 2;
	ctrl1(e, ack_desc(ID, 1), 3);
	CHECK_EQ(tx(e, 4), 2);
	CHECK_EQ(out[0].seg, 1);
	CHECK_EQ(out[0].rtx, 1);
	CHECK_EQ(out[0].flags, TONIC_SEG_ACKFREQ);
	CHECK_EQ(out[1].seg, 8);		/* new: fills the window */
	CHECK_EQ(out[1].flags, TONIC_SEG_ACKFREQ | TONIC_SEG_ACKREQ);
	/* Back to the receiver's default: no flags at all. */
	script.in_out.flags = TONIC_OUT_ACK_RATIO;
	script.in_out.ack_ratio = 0;
	ctrl1(e, ack_desc(ID, 5), 5);
	memset(&script.in_out, 0, sizeof(script.in_out));
	CHECK_EQ(tx(e, 6), 4);
	CHECK_EQ(reqs(4), 0);
	CHECK(all_ackfreq(4, false));
	CHECK_EQ(fstats(e, ID).violations, 0);
	tonic_engine_destroy(e);
}

static void clamped(void)
{
	struct tonic_engine *e = mk(128, 100, 0, 0);

	CHECK_EQ(fstats(e, ID).violations, 1);
	ctrl1(e, ack_desc(ID, 0), 2);
	CHECK_EQ(script.last_in.ack_ratio, TONIC_MAX_ACK_RATIO);
	CHECK_EQ(tx(e, 3), 128);
	CHECK_EQ(reqs(64), 1ULL << 63);
	tonic_engine_destroy(e);
}

/* A grant flow asks when its last token is spent. */
static void grant_spent(void)
{
	struct tonic_engine *e = mk(64, 8, TONIC_CREDIT_GRANT, 5 * 1000);

	CHECK_EQ(tx(e, 2), 5);
	CHECK_EQ(reqs(5), 1U << 4);
	tonic_engine_destroy(e);
}

/* ---- receiver ---- */

static struct tonic_rcv_cfg rcfg(bool batch)
{
	struct tonic_rcv_cfg c = {
		.signals = TONIC_SIG_ACK, .seg_size = 1000, .delack_segs = 2,
		.delack_max = 16, .batch = batch,
	};

	return c;
}

/* Segment @seg in order; returns tonic_rcv_data()'s bits. */
static unsigned int rseg(struct tonic_rcv *r, const struct tonic_rcv_cfg *c,
			 u32 seg, bool ackfreq, bool ackreq,
			 struct tonic_rcv_ack *ack)
{
	struct tonic_rcv_seg in = {
		.seg = seg, .len = 1000, .ackreq = ackreq, .ackfreq = ackfreq,
	};
	u32 newly;

	return tonic_rcv_data(r, c, &in, 0, ack, &newly);
}

static void receiver_cap(void)
{
	struct tonic_rcv_cfg c = rcfg(false);
	struct tonic_rcv_ack ack;
	struct tonic_rcv r;
	unsigned int acks = 0, s;

	tonic_rcv_init(&r, 0);
	/* Without ACKFREQ: delack_segs, ACKREQ at once. */
	for (s = 0; s < 10; s++)
		acks += rseg(&r, &c, s, false, false, &ack) == TONIC_RCV_SEND_ACK;
	CHECK_EQ(acks, 5);
	CHECK_EQ(rseg(&r, &c, 10, false, true, &ack), TONIC_RCV_SEND_ACK);
	/* ACKFREQ: wait for ACKREQ... */
	for (s = 11; s < 18; s++)
		CHECK_EQ(rseg(&r, &c, s, true, false, &ack), TONIC_RCV_ARM_DELACK);
	CHECK_EQ(rseg(&r, &c, 18, true, true, &ack), TONIC_RCV_SEND_ACK);
	CHECK_EQ(ack.cumack, 19);
	/* ... or delack_max */
	acks = 0;
	for (s = 19; s < 19 + 48; s++)
		acks += rseg(&r, &c, s, true, false, &ack) == TONIC_RCV_SEND_ACK;
	CHECK_EQ(acks, 3);
	CHECK_EQ(r.pending, 0);
	/* A hole is news whatever the sender asked. */
	CHECK_EQ(rseg(&r, &c, 70, true, false, &ack), TONIC_RCV_SEND_ACK);
	CHECK_EQ(ack.cumack, 67);
	CHECK_EQ(r.acks, 5 + 1 + 1 + 3 + 1);
}

static void receiver_batch(void)
{
	struct tonic_rcv_cfg b = rcfg(true), c1;
	struct tonic_rcv_ack ack;
	struct tonic_rcv r;
	unsigned int s;

	tonic_rcv_init(&r, 0);
	/* ACKREQ in the middle of a batch: one ACK, at its end. */
	for (s = 0; s < 20; s++)
		CHECK_EQ(rseg(&r, &b, s, true, s == 7 || s == 15, &ack),
			 TONIC_RCV_ARM_DELACK);
	CHECK_EQ(r.acks, 0);
	CHECK_EQ(tonic_rcv_batch_end(&r, &b, &ack), TONIC_RCV_SEND_ACK);
	CHECK_EQ(ack.cumack, 20);
	CHECK_EQ(r.acks, 1);
	CHECK_EQ(tonic_rcv_batch_end(&r, &b, &ack), 0);
	/* No ACKREQ, fewer than delack_max: the delayed-ACK timer. */
	for (s = 20; s < 30; s++)
		rseg(&r, &b, s, true, false, &ack);
	CHECK_EQ(tonic_rcv_batch_end(&r, &b, &ack), TONIC_RCV_ARM_DELACK);
	CHECK(tonic_rcv_delack(&r, &ack));
	CHECK_EQ(ack.cumack, 30);
	/* Without ACKFREQ: delack_segs at the end. */
	rseg(&r, &b, 30, false, false, &ack);
	CHECK_EQ(tonic_rcv_batch_end(&r, &b, &ack), TONIC_RCV_ARM_DELACK);
	rseg(&r, &b, 31, false, false, &ack);
	CHECK_EQ(tonic_rcv_batch_end(&r, &b, &ack), TONIC_RCV_SEND_ACK);
	/* An ACK for another reason answers an ACKREQ waiting in the batch. */
	rseg(&r, &b, 32, true, true, &ack);
	CHECK_EQ(rseg(&r, &b, 34, true, false, &ack), TONIC_RCV_SEND_ACK);
	CHECK_EQ(tonic_rcv_batch_end(&r, &b, &ack), 0);
	/* Threshold 1 acknowledges every segment, batch or not. */
	c1 = b;
	c1.delack_max = 1;
	CHECK_EQ(rseg(&r, &c1, 33, true, false, &ack), TONIC_RCV_SEND_ACK);
	CHECK_EQ(ack.cumack, 35);
}

/*
 * tonic_rcv_take_run() leaves the state and answer of n single takes in a
 * batch: runs of 1 to 64 segments, full or short last, ACKREQ anywhere
 * or nowhere, with and without ACKFREQ, over several thresholds.
 */
static void receiver_run(void)
{
	static const u8 th[] = { 2, 4, 16 };
	unsigned int n, i, k, q, what1, what2, end1, end2;
	struct tonic_rcv_ack a1, a2, e1, e2;
	struct tonic_rcv r1, r2;
	struct tonic_rcv_cfg b;
	u32 newly, last, req;

	for (k = 0; k < 3; k++) {
		b = rcfg(true);
		b.delack_segs = th[k];
		b.delack_max = th[k] * 2;
		for (n = 1; n <= 64; n++) {
			for (q = 0; q < 8; q++) {
				bool freq = q & 1, shrt = q & 2;

				req = q & 4 ? n / 2 : n;	/* n: none */
				last = shrt ? 700 : 1000;
				tonic_rcv_init(&r1, 100);
				r1.pending = 1;
				r2 = r1;
				what1 = TONIC_RCV_ARM_DELACK;
				for (i = 0; i < n; i++) {
					struct tonic_rcv_seg in = {
						.seg = 100 + i, .ackfreq = freq,
						.len = i + 1 < n ? 1000 : last,
						.ackreq = i == req,
					};

					what1 = tonic_rcv_data(&r1, &b, &in, 0,
							       &a1, &newly);
				}
				CHECK(tonic_rcv_run_ok(&r2, &b, 100, n, freq));
				what2 = tonic_rcv_take_run(&r2, &b, n, last,
							   req < n, freq, &a2);
				CHECK_EQ(what2, what1);
				if (what1 == TONIC_RCV_SEND_ACK)
					CHECK(!memcmp(&a1, &a2, sizeof(a1)));
				CHECK(!memcmp(&r1, &r2, sizeof(r1)));
				end1 = tonic_rcv_batch_end(&r1, &b, &e1);
				end2 = tonic_rcv_batch_end(&r2, &b, &e2);
				CHECK_EQ(end2, end1);
				if (end1 == TONIC_RCV_SEND_ACK)
					CHECK(!memcmp(&e1, &e2, sizeof(e1)));
			}
		}
	}
	/* What a run may not be. */
	tonic_rcv_init(&r1, 100);
	CHECK(!tonic_rcv_run_ok(&r1, &b, 101, 4, false));	/* a hole */
	b.window = 8;
	CHECK(tonic_rcv_run_ok(&r1, &b, 100, 8, false));
	CHECK(!tonic_rcv_run_ok(&r1, &b, 100, 9, false));	/* window */
	b.delack_segs = 1;
	CHECK(!tonic_rcv_run_ok(&r1, &b, 100, 4, false));	/* each ACKed */
	CHECK(tonic_rcv_run_ok(&r1, &b, 100, 4, true));
	b.signals |= TONIC_SIG_GRANT;
	CHECK(!tonic_rcv_run_ok(&r1, &b, 100, 4, true));	/* grants */
	b = rcfg(false);
	CHECK(!tonic_rcv_run_ok(&r1, &b, 100, 4, false));	/* no batch */
	b = rcfg(true);
	r1.held = 1;
	CHECK(!tonic_rcv_run_ok(&r1, &b, 100, 4, false));	/* held */
}

/*
 * tonic_rcv_take_to_ack() then tonic_rcv_take_run() and the batch's end
 * (a backlog run, input.c) send the ACKs n lone full segments would have
 * sent, and leave the same state: every n up to 64, every pending count
 * below the threshold, with and without ACKFREQ.
 */
static void receiver_to_ack(void)
{
	struct tonic_rcv_cfg lone = rcfg(false), b = rcfg(true);
	unsigned int n, p, q, i, k1, k2;
	struct tonic_rcv_ack a, acks1[64], acks2[64];
	struct tonic_rcv r1, r2;
	u32 newly, step, rest;

	for (q = 0; q < 2; q++) {
		bool freq = q;
		u32 thresh = freq ? b.delack_max : b.delack_segs;

		for (n = 1; n <= 64; n++) {
			for (p = 0; p < thresh; p++) {
				tonic_rcv_init(&r1, 100 - p);
				for (i = 0; i < p; i++)	/* pending, unacked */
					rseg(&r1, &lone, 100 - p + i, freq,
					     false, &a);
				r2 = r1;
				k1 = 0;
				for (i = 0; i < n; i++) {
					struct tonic_rcv_seg in = {
						.seg = 100 + i, .len = 1000,
						.ackfreq = freq,
					};

					if (tonic_rcv_data(&r1, &lone, &in, 0,
							   &a, &newly) ==
					    TONIC_RCV_SEND_ACK)
						acks1[k1++] = a;
				}
				k2 = 0;
				rest = n;
				while ((step = tonic_rcv_take_to_ack(&r2, &b,
								     rest, freq,
								     &a))) {
					acks2[k2++] = a;
					rest -= step;
				}
				CHECK(rest >= 1);
				tonic_rcv_take_run(&r2, &b, rest, 1000, false,
						   freq, &a);
				if (tonic_rcv_batch_end(&r2, &b, &a) ==
				    TONIC_RCV_SEND_ACK)
					acks2[k2++] = a;
				CHECK_EQ(k2, k1);
				CHECK(!memcmp(acks1, acks2, k1 * sizeof(a)));
				CHECK_EQ(r2.pending, r1.pending);
				CHECK_EQ(r2.rcv_nxt, r1.rcv_nxt);
				CHECK_EQ(r2.acks, r1.acks);
			}
		}
	}
}

int main(void)
{
	tap_plan(10);
	TAP_RUN(default_ratio);
	TAP_RUN(every_nth);
	TAP_RUN(window_full);
	TAP_RUN(resends_and_change);
	TAP_RUN(clamped);
	TAP_RUN(grant_spent);
	TAP_RUN(receiver_cap);
	TAP_RUN(receiver_batch);
	TAP_RUN(receiver_run);
	TAP_RUN(receiver_to_ack);
	return tap_exit();
}
