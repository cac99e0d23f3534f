// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the data-delivery engine's fixed functions (Tonic §3.2).
 *
 * Owns the per-segment state of a flow's window: the acked and
 * marked-for-retransmission ring bitmaps, the 2-bit transmit-again count,
 * the window start and the next new segment, and the retransmission timer.
 * It implements incoming stage 1 (wnd_start = max(wnd_start, cumack),
 * acked[sack] = 1, slide the bitmaps) and segment generation
 * (retransmit the first marked segment before any new one; send a new
 * segment only inside the window).  The programmable stage 2 lives in the
 * protocol ops and its outputs are checked in ctx.c; the queues are in
 * engine.c and sched.c.
 */
#include "flow.h"

/*
 * Slide the window start to @cum; return segments newly acked by it.  The
 * bits of the segments leaving the window are cleared in all four ring
 * bitmaps in one pass, a word-sized run at a time.
 */
static u32 dd_advance(struct tonic_flow *f, u32 cum)
{
	u32 k = f->k, i = f->wnd_start;
	u32 adv = cum - f->wnd_start;	/* <= k: next_new - wnd_start <= k */
	u32 cnt = adv, sacked = 0, unmarked = 0;
	bool marks = f->nmarked, counts = f->flags & TF_RESENT;

	while (cnt) {
		unsigned int b = i & (k - 1), off = b % 64, w = b / 64;
		unsigned int len = min(cnt, min(k - b, 64 - off));
		u64 m = tb_run_mask(off, len);

		sacked += tenv_popcount64(f->acked[w] & m);
		f->acked[w] &= ~m;
		if (marks) {
			unmarked += tenv_popcount64(f->rtx[w] & m);
			f->rtx[w] &= ~m;
		}
		if (counts) {
			f->rtxc_lo[w] &= ~m;
			f->rtxc_hi[w] &= ~m;
		}
		i += len;
		cnt -= len;
	}
	f->nmarked -= unmarked;
	f->wnd_start = cum;
	return adv - sacked;
}

/**
 * tonic_dd_stage1() - fixed stage of incoming control-event processing
 * @eng: engine (for the bad-event counter)
 * @f: flow
 * @ev: the event
 *
 * Return: segments newly acked, cumulatively or selectively.
 */
u32 tonic_dd_stage1(struct tonic_engine *eng, struct tonic_flow *f,
		    const struct tonic_ctrl_desc *ev)
{
	u32 newly = 0, sent = f->ring_cnt ? tonic_dd_sent_end(f) : f->next_new;

	if ((ev->flags & TONIC_CF_CUMACK) &&
	    tonic_seq_after(ev->cumack, f->wnd_start)) {
		u32 cum = ev->cumack;

		if (tonic_seq_after(cum, sent)) {
			/* acks data never sent: a confused or lying peer */
			eng->st.ctrl_bad++;
			cum = sent;
		}
		if (tonic_seq_after(cum, f->wnd_start))
			newly += dd_advance(f, cum);
	}
	/* Nor can a segment still queued for credit have arrived. */
	if ((ev->flags & TONIC_CF_SACK) &&
	    !tonic_seq_before(ev->sack, f->wnd_start) &&
	    tonic_seq_before(ev->sack, sent)) {
		u32 i = ev->sack & (f->k - 1);

		if (!tb_test(f->acked, i)) {
			tb_set(f->acked, i);
			newly++;
			if (tb_test(f->rtx, i)) {
				tb_clear(f->rtx, i);
				f->nmarked--;
			}
		}
	}
	f->acked_segs += newly;
	return newly;
}

static void dd_bump_rtx_cnt(struct tonic_flow *f, unsigned int i)
{
	if (!tb_test(f->rtxc_lo, i)) {
		tb_set(f->rtxc_lo, i);
	} else if (!tb_test(f->rtxc_hi, i)) {
		tb_clear(f->rtxc_lo, i);
		tb_set(f->rtxc_hi, i);
	} else {
		/* saturated at 3 */
	}
}

/*
 * Generation of a retransmission (tonic_dd_next_seg() with marks): the
 * first marked segment from the window head, by the Appendix C method.
 */
u32 tonic_dd_next_rtx(struct tonic_flow *f)
{
	u32 km = f->k - 1, h = f->wnd_start & km;
	u32 i = tb_ffs_from(f->rtx, f->k, h);

	tb_clear(f->rtx, i);
	f->nmarked--;
	dd_bump_rtx_cnt(f, i);
	return f->wnd_start + ((i - h) & km);
}

/**
 * tonic_dd_mark() - mark unacked segments for retransmission
 * @f: flow
 * @from: first segment, in [wnd_start, next_new)
 * @cnt: how many, with from + cnt <= next_new
 *
 * Return: segments newly marked.
 */
u32 tonic_dd_mark(struct tonic_flow *f, u32 from, u32 cnt)
{
	u32 n = tb_set_unless(f->rtx, f->acked, f->k, from & (f->k - 1), cnt);

	f->nmarked += n;
	return n;
}

/* tonic_dd_timer_sync() of a busy flow whose protocol has periodic work. */
void tonic_dd_timer_sync_slow(struct tonic_engine *eng, struct tonic_flow *f,
			      u64 now)
{
	if (!f->periodic_next) {
		f->periodic_next = now + f->ops->periodic_ns;
		tonic_dd_heap_want(eng, f, f->periodic_next);
	}
}
