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

/* Slide the window start to @cum; return segments newly acked by it. */
static u32 dd_advance(struct tonic_flow *f, u32 cum)
{
	u32 k = f->k, h = f->wnd_start & (k - 1);
	u32 adv = cum - f->wnd_start;	/* <= k: next_new - wnd_start <= k */
	u32 sacked;

	sacked = tb_clear_range(f->acked, k, h, adv);
	if (f->nmarked)
		f->nmarked -= tb_clear_range(f->rtx, k, h, adv);
	if (f->rtx_sent) {
		tb_clear_range(f->rtxc_lo, k, h, adv);
		tb_clear_range(f->rtxc_hi, k, h, adv);
	}
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
	u32 newly = 0;

	if ((ev->flags & TONIC_CF_CUMACK) &&
	    tonic_seq_after(ev->cumack, f->wnd_start)) {
		u32 cum = ev->cumack;

		if (tonic_seq_after(cum, f->next_new)) {
			/* acks data never sent: a confused or lying peer */
			eng->st.ctrl_bad++;
			cum = f->next_new;
		}
		newly += dd_advance(f, cum);
	}
	if ((ev->flags & TONIC_CF_SACK) &&
	    !tonic_seq_before(ev->sack, f->wnd_start) &&
	    tonic_seq_before(ev->sack, f->next_new)) {
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

/**
 * tonic_dd_rtx_cnt() - how often a segment in the window was resent (0..3)
 * @f: flow
 * @seg: segment in [wnd_start, next_new)
 */
unsigned int tonic_dd_rtx_cnt(const struct tonic_flow *f, u32 seg)
{
	unsigned int i = seg & (f->k - 1);

	return tb_test(f->rtxc_lo, i) + 2 * tb_test(f->rtxc_hi, i);
}

/**
 * tonic_dd_next_seg() - segment generation (fixed function)
 * @f: flow
 * @seg: the segment chosen
 *
 * The first segment marked for retransmission, searched from the window
 * head with the Appendix C method, goes before any new segment.  A new
 * segment is the next never-sent one, if announced and inside the window.
 * Retransmissions are not limited by the window: a protocol marks only
 * what it wants resent.
 *
 * Return: 1 for a retransmission, 0 for a new segment, -1 for none.
 */
int tonic_dd_next_seg(struct tonic_flow *f, u32 *seg)
{
	if (f->nmarked) {
		u32 km = f->k - 1, h = f->wnd_start & km;
		u32 i = tb_ffs_from(f->rtx, f->k, h);

		tb_clear(f->rtx, i);
		f->nmarked--;
		dd_bump_rtx_cnt(f, i);
		*seg = f->wnd_start + ((i - h) & km);
		return 1;
	}
	if (f->next_new != f->tail && f->next_new - f->wnd_start < f->wnd) {
		*seg = f->next_new++;
		return 0;
	}
	return -1;
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

/* Make sure the timer heap fires no later than @key. */
static void dd_heap_want(struct tonic_engine *eng, struct tonic_flow *f,
			 u64 key)
{
	if (!f->dd_heap || eng->dd_timers.h[f->dd_heap - 1].key > key)
		tonic_heap_set(&eng->dd_timers, f, key);
}

/**
 * tonic_dd_arm_rto() - (re)arm the retransmission timer
 * @eng: engine
 * @f: flow
 * @expiry: deadline in ns
 *
 * Moving the deadline later is O(1): the heap entry stays where it is,
 * fires early and is re-queued by the timer code.
 */
void tonic_dd_arm_rto(struct tonic_engine *eng, struct tonic_flow *f,
		      u64 expiry)
{
	f->rto_expiry = expiry;
	f->flags |= TF_RTO;
	dd_heap_want(eng, f, expiry);
}

/**
 * tonic_dd_timer_sync() - keep the timers consistent with the window
 * @eng: engine
 * @f: flow
 * @now: time in ns
 *
 * With segments in flight or marked the retransmission timer must run
 * (a protocol cannot wedge a flow by stopping it); with nothing in flight
 * it is stopped.  Periodic work runs only while data is in flight.
 */
void tonic_dd_timer_sync(struct tonic_engine *eng, struct tonic_flow *f,
			 u64 now)
{
	bool busy = f->next_new != f->wnd_start || f->nmarked;
	u64 per = f->ops->periodic_ns;

	if (!busy) {
		f->flags &= ~TF_RTO;
		f->periodic_next = 0;
		return;
	}
	if (!(f->flags & TF_RTO))
		tonic_dd_arm_rto(eng, f, now + f->rto_ns);
	if (per && !f->periodic_next) {
		f->periodic_next = now + per;
		dd_heap_want(eng, f, f->periodic_next);
	}
}
