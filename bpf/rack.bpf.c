// SPDX-License-Identifier: GPL-2.0
/*
 * rack - RACK-TLP loss detection with NewReno's congestion response.
 *
 * RFC 8985 (Cheng, Cardwell, Dukkipati, Jha: "The RACK-TLP Loss Detection
 * Algorithm for TCP", 2021) in Tonic's segment space.  Also built into
 * tonic.ko (kmod/progs/builtin_rack.c compiles this file natively), so the
 * built-in and the program cannot differ.
 *
 * RACK: a segment is lost when a segment sent after it was delivered and
 * a reordering window has passed since.  Tonic sends new segments in
 * sequence order, so "sent after" is "above" for segments never resent:
 * @fack is one past the highest segment delivered, and the holes below it
 * are lost reo_wnd after it first passed them (two pending deadlines,
 * @reo and @reo2, stand for the per-segment send times RACK keeps; a
 * third joins @reo2, with its own later deadline once reordering was
 * seen, so that no hole is given up early).  A resent segment is lost
 * when a segment first sent after the resend (at or above @rtx_fence) was
 * delivered, reo_wnd ago.
 * - reo_wnd (§6.2 step 4): 0 while no reordering was seen and the flow is
 *   in recovery or dupthresh segments above the hole were delivered (so
 *   with no reordering, RACK acts as three duplicate ACKs); otherwise
 *   min_rtt / 4 times a multiplier, up to SRTT.  The multiplier grows by
 *   one, at most once per round trip, with each DSACK of a resend, and
 *   at once to cover how long a reordered hole stayed open (plus one),
 *   measured when it fills outside a recovery; it goes back to 1 after
 *   rack_reo_persist recoveries without either.  Once reordering was
 *   seen, a window that grew also covers the holes already pending (as
 *   Linux applies reo_wnd when it checks, tcp_rack_detect_loss()).
 * - Reordering is seen when a hole is filled by its first transmission:
 *   one never resent, or one marked lost less than min_rtt ago (its
 *   resend cannot have arrived yet), or a resend is reported as a
 *   duplicate (DSACK).
 *
 * TLP (§7): with no loss being recovered and no reordering deadline
 * pending, a probe timeout (PTO) of 2 * SRTT is armed ahead of the RTO.
 * When it fires, the highest segment sent is resent once, so that a lost
 * tail draws a SACK and RACK repairs it without the RTO.  A DSACK of the
 * probe says nothing was lost; a cumulative ACK past the probe without
 * one says the probe repaired a loss: the window is halved (§7.4.2).
 * The receiver acks the end of every write at once, so PTO needs no
 * delayed-ACK allowance (WCDelAckT).
 *
 * Congestion response, in segments: slow start and congestion avoidance
 * as RFC 5681; on the first loss RACK finds, ssthresh = max(FlightSize /
 * 2, 2), cwnd = ssthresh, recover = highest sent (RFC 6582: one reduction
 * per window).  The window the engine gets counts the selectively acked
 * segments as well (RFC 6675's pipe), so data keeps flowing past a hole.
 * Recovery ends when the cumulative ACK passes recover.  A recovery whose
 * every resend comes back as a DSACK is undone (RFC 3708, as Linux).
 * Timeout: as newreno.bpf.c (ssthresh, cwnd = 1, go-back-N by marking,
 * RTO backoff kept until an RTT sample, undo on a DSACK of the first
 * resend).
 *
 * The probe and reordering deadlines use the flow's one timer as an early
 * timer (TONIC_OUT_PROBE): they do not count as timeouts, and their floor
 * is the flow's rto_low_ns (net.tonic.rto_low_us).
 */
#include "tonic_prog.h"

TONIC_PARAM_U32(rack_dupthresh, 3);		/* RFC 8985 §6.2 step 4 */
TONIC_PARAM_U32(rack_init_cwnd, 10);		/* RFC 6928 */
TONIC_PARAM_U32(rack_reo_persist, 16);		/* Linux tcp_rack_reo_wnd() */
TONIC_PARAM_U32(rack_reo_mult_max, 255);	/* reo_wnd <= this * min_rtt / 4 */
TONIC_PARAM_U32(rack_reo_measure, 1);		/* 0: reo_wnd grows by DSACKs only */
TONIC_PARAM_U32(rack_tlp, 1);			/* 0: no tail-loss probe */
TONIC_PARAM_U32(rack_ack_ratio, 16);		/* segments per ACK; 0: receiver's */
TONIC_PARAM_U32(rack_acks_per_wnd, 2);		/* fewer per ACK in small windows; 0: off */

enum { RACK_OPEN, RACK_RECOVERY, RACK_RTO_RECOVERY };

/* struct rack.flags */
#define RACK_REO	0x01	/* reo_end/reo_at pending */
#define RACK_REO2	0x02	/* reo2_end/reo2_at pending */
#define RACK_RELOST	0x04	/* the resends below lost_end due at relost_at */
#define RACK_TLP_ARMED	0x08	/* the timer is the probe timeout (tlp_at) */
#define RACK_TLP_OUT	0x10	/* a probe went, tlp_seg, not yet judged */
#define RACK_REORDER	0x20	/* reordering seen on this flow */
#define RACK_UNDO	0x40	/* undo_cnt resends may all be spurious */

struct rack {
	struct tonic_rtt rtt;
	u64 min_rtt_ns;		/* lowest RTT sample: reo_wnd's unit */
	u64 rto_at;		/* the retransmission timeout is due; 0 = unset */
	u64 reo_at;		/* holes below reo_end are lost at this time */
	u64 reo2_at;		/* and those below reo2_end at this one */
	u64 reo_t;		/* @fack passed the holes below reo_end then */
	u64 reo2_t;		/* and those below reo2_end then */
	u64 relost_at;		/* RACK_RELOST's deadline */
	u64 tlp_at;		/* RACK_TLP_ARMED's deadline */
	u64 mult_at;		/* when reo_mult last grew */
	u64 lost_t;		/* @fack passed the holes below lost_end then */
	u64 mark_t;		/* [mark_from, lost_end) were marked lost then */
	u32 fack;		/* one past the highest segment delivered */
	u32 lost_end;		/* segments below were marked lost (resent) */
	u32 rtx_fence;		/* next_new when that last happened */
	u32 mark_from;		/* the last holes marked lost start here */
	u32 reo_end;
	u32 reo2_end;
	u32 cwnd;		/* congestion window; the engine's counts SACKs */
	u32 ssthresh;
	u32 recover;		/* next_new when recovery began */
	u32 rtx_next;		/* after a timeout: next segment to resend */
	u32 cwnd_cnt;		/* congestion-avoidance accumulator */
	u32 undo_lo;		/* resends of the episode: [undo_lo, undo_hi) */
	u32 undo_hi;
	u32 tlp_seg;		/* the probe's segment */
	u32 tlp_high;		/* next_new when the probe went */
	u16 undo_cnt;		/* resends not yet reported as duplicates */
	u16 prior_cwnd;		/* before recovery, for an undo */
	u16 prior_ssthresh;
	u8 state;
	u8 flags;		/* RACK_* */
	u8 reo_mult;
	u8 reo_persist;		/* recoveries left before reo_mult resets */
	u16 pad;
};

static __always_inline u64 rack_min64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/* §6.2 step 4: how long a hole may stay open behind delivered data. */
static __always_inline u64 rack_reo_wnd(const struct rack *st,
					struct tonic_flow_ctx *fl)
{
	if (!(st->flags & RACK_REORDER) &&
	    (st->state != RACK_OPEN ||
	     tonic_count_acked(fl, fl->wnd_start, fl->next_new) >=
	     rack_dupthresh))
		return 0;
	return rack_min64((st->min_rtt_ns >> 2) * st->reo_mult,
			  st->rtt.srtt_ns);
}

/* Mark [from, to) lost; the engine skips what was acked meanwhile. */
static __always_inline void rack_mark(struct rack *st,
				      struct tonic_flow_ctx *fl, u32 from,
				      u32 to)
{
	u32 n;

	if (!tonic_seq_before(from, to))
		return;
	n = (to - from) - tonic_count_acked(fl, from, to);
	if (!n)
		return;
	tonic_mark_rtx(fl, from, to);
	st->rtx_fence = fl->next_new;
	if (st->state == RACK_OPEN) {		/* first loss of a window */
		u32 w = tonic_min(st->cwnd, tonic_flight(fl));

		st->prior_cwnd = st->cwnd;
		st->prior_ssthresh = tonic_min(st->ssthresh, 65535U);
		st->ssthresh = tonic_max(w / 2, 2U);
		st->recover = fl->next_new;
		st->state = RACK_RECOVERY;
		st->flags |= RACK_UNDO;
		st->undo_lo = from;
		st->undo_cnt = 0;
	}
	if (st->state == RACK_RECOVERY) {
		st->undo_hi = to;
		st->undo_cnt += tonic_min(n, 65535U - st->undo_cnt);
	}
}

/* Drop the oldest reordering deadline; the newer one moves up. */
static __always_inline void rack_reo_pop(struct rack *st)
{
	st->flags &= ~RACK_REO;
	if (st->flags & RACK_REO2) {
		st->flags = (st->flags & ~RACK_REO2) | RACK_REO;
		st->reo_end = st->reo2_end;
		st->reo_at = st->reo2_at;
		st->reo_t = st->reo2_t;
	}
}

/* Forget the oldest deadline once every hole below it has filled. */
static __always_inline void rack_reo_prune(struct rack *st,
					   struct tonic_flow_ctx *fl)
{
	if (!(st->flags & RACK_REO) ||
	    tonic_seq_before(tonic_first_unacked(fl, st->lost_end),
			     st->reo_end))
		return;
	rack_reo_pop(st);
}

/*
 * Hole @seg was delivered by its first transmission: reordering, not
 * loss.  Either it was never resent, or it was marked lost so recently
 * that its resend cannot have arrived yet (less than min_rtt ago; Linux's
 * tcp_rack_advance() draws the line there too).  How long it stayed open
 * behind @fack is known from its deadline's slot, or from when the
 * marked ones were passed; reo_wnd grows at once to cover that, plus a
 * unit, instead of by one unit per DSACK of a resend it would have cost.
 * A never-resent hole is measured only outside a recovery: amid losses
 * (and lost ACKs) the times say less, and at 5 % loss a window grown
 * from them cost goodput and timeouts.
 */
static __always_inline void rack_reordered(struct rack *st,
					   struct tonic_flow_ctx *fl, u32 seg)
{
	u64 unit = st->min_rtt_ns >> 2, t = fl->now, need;

	if (tonic_seq_before(seg, st->lost_end)) {
		if (tonic_seq_before(seg, st->mark_from) ||
		    fl->now - st->mark_t >= st->min_rtt_ns)
			return;			/* maybe the resend */
		t = st->lost_t;
	} else if (st->state != RACK_OPEN) {
		t = fl->now;		/* amid losses: seen, not measured */
	} else if ((st->flags & RACK_REO) &&
		   tonic_seq_before(seg, st->reo_end)) {
		t = st->reo_t;
	} else if ((st->flags & RACK_REO2) &&
		   tonic_seq_before(seg, st->reo2_end)) {
		t = st->reo2_t;
	}
	st->flags |= RACK_REORDER;
	if (!unit || !rack_reo_measure)
		return;
	need = (fl->now - t) / unit + 1;
	if (need > 1)				/* still there: keep it */
		st->reo_persist = rack_reo_persist;
	if (need > st->reo_mult)
		st->reo_mult = tonic_min(need, (u64)rack_reo_mult_max);
}

/* Note what this event delivered: @fack, reordering, new holes. */
static __always_inline void rack_update(struct rack *st,
					struct tonic_flow_ctx *fl)
{
	u32 old_fack = st->fack, hi = fl->wnd_start;
	u64 reo_wnd;

	if ((fl->ev.flags & TONIC_CF_SACK) &&
	    tonic_seq_before(hi, fl->ev.sack + 1))
		hi = fl->ev.sack + 1;
	if (tonic_seq_before(fl->old_wnd_start, old_fack) &&
	    tonic_seq_before(fl->old_wnd_start, fl->wnd_start))
		rack_reordered(st, fl, fl->old_wnd_start);
	if ((fl->ev.flags & TONIC_CF_SACK) &&
	    tonic_seq_before(fl->ev.sack, old_fack) &&
	    !tonic_seq_before(fl->ev.sack, st->lost_end))
		rack_reordered(st, fl, fl->ev.sack);
	rack_reo_prune(st, fl);
	rack_reo_prune(st, fl);
	if (!tonic_seq_before(old_fack, hi))
		return;
	st->fack = hi;
	reo_wnd = rack_reo_wnd(st, fl);
	/* the first delivery of a segment sent after the last resends */
	if (tonic_seq_before(st->rtx_fence, hi) &&
	    tonic_seq_before(fl->wnd_start, st->lost_end) &&
	    !(st->flags & RACK_RELOST)) {
		st->flags |= RACK_RELOST;
		st->relost_at = fl->now + reo_wnd;
	}
	/* no hole below @hi that is not already marked lost */
	if (!tonic_seq_before(tonic_first_unacked(fl, st->lost_end), hi))
		return;
	if (!(st->flags & RACK_REO)) {
		st->flags |= RACK_REO;
		st->reo_end = hi;
		st->reo_at = fl->now + reo_wnd;
		st->reo_t = fl->now;
	} else if (!(st->flags & RACK_REO2)) {
		st->flags |= RACK_REO2;
		st->reo2_end = hi;
		st->reo2_at = fl->now + reo_wnd;
		st->reo2_t = fl->now;
	} else {
		/* both taken: the newer one takes these holes.  With
		 * reordering seen, also their time, so that none is given
		 * up early (only waits longer); else it keeps its own, and
		 * losses are found as soon as before.
		 */
		st->reo2_end = hi;
		if (st->flags & RACK_REORDER) {
			st->reo2_at = fl->now + reo_wnd;
			st->reo2_t = fl->now;
		}
	}
}

/*
 * The oldest slot's deadline: as set, or later once reordering was seen
 * and reo_wnd has grown since (pending holes get the wider window).
 */
static __always_inline u64 rack_reo_at(const struct rack *st, u64 reo_wnd)
{
	u64 at = st->reo_t + reo_wnd;

	return (st->flags & RACK_REORDER) && at > st->reo_at ? at : st->reo_at;
}

/* The oldest reordering deadline, if due: its holes are lost. */
static __always_inline void rack_reo_due(struct rack *st,
					 struct tonic_flow_ctx *fl, u64 reo_wnd)
{
	if (!(st->flags & RACK_REO) || rack_reo_at(st, reo_wnd) > fl->now)
		return;
	if (tonic_seq_before(st->lost_end, st->reo_end)) {
		st->lost_end = st->reo_end;
		st->lost_t = st->reo_t;
	}
	rack_reo_pop(st);
}

/* §6.2 step 5: mark what is due by now. */
static __always_inline void rack_detect(struct rack *st,
					struct tonic_flow_ctx *fl)
{
	u64 reo_wnd;
	u32 from;

	if (tonic_seq_before(st->lost_end, fl->wnd_start))
		st->lost_end = fl->wnd_start;
	from = st->lost_end;
	reo_wnd = rack_reo_wnd(st, fl);
	rack_reo_due(st, fl, reo_wnd);
	rack_reo_due(st, fl, reo_wnd);
	if (from != st->lost_end) {		/* new holes, first resends */
		st->mark_from = from;
		st->mark_t = fl->now;
	}
	if ((st->flags & RACK_RELOST) && st->relost_at <= fl->now) {
		st->flags &= ~RACK_RELOST;
		from = fl->wnd_start;		/* resent, lost again */
	}
	rack_mark(st, fl, from, st->lost_end);
}

/* A DSACK of @seg: a resend was spurious, or the probe was not needed. */
static __always_inline u32 rack_dsack(struct rack *st,
				      struct tonic_flow_ctx *fl, u32 cwnd)
{
	u32 seg = fl->ev.sack;

	if ((st->flags & RACK_TLP_OUT) && seg == st->tlp_seg) {
		st->flags &= ~RACK_TLP_OUT;
		return cwnd;
	}
	if (!tonic_seq_before(seg, st->lost_end))
		return cwnd;
	st->flags |= RACK_REORDER;
	st->reo_persist = rack_reo_persist;
	if (st->reo_mult < rack_reo_mult_max &&
	    fl->now - st->mult_at >= st->rtt.srtt_ns) {
		st->reo_mult++;
		st->mult_at = fl->now;
	}
	if (!(st->flags & RACK_UNDO) || tonic_seq_before(seg, st->undo_lo) ||
	    !tonic_seq_before(seg, st->undo_hi))
		return cwnd;
	if (st->undo_cnt > 1) {
		st->undo_cnt--;
		return cwnd;
	}
	/* every resend of the episode was spurious: undo it */
	st->flags &= ~RACK_UNDO;
	st->ssthresh = tonic_max(st->ssthresh, (u32)st->prior_ssthresh);
	st->state = RACK_OPEN;		/* also ends a timeout's go-back-N */
	return tonic_max(cwnd, (u32)st->prior_cwnd);
}

/* A cumulative ACK of @acked segments. */
static __always_inline u32 rack_newack(struct rack *st,
				       struct tonic_flow_ctx *fl, u32 cwnd,
				       u32 acked)
{
	st->rto_at = 0;				/* RFC 6298 §5.3: restart */
	if (st->state != RACK_OPEN &&
	    !tonic_seq_before(fl->wnd_start, st->recover)) {
		if (st->state == RACK_RECOVERY) {
			cwnd = st->ssthresh;
			if (st->reo_persist && !--st->reo_persist)
				st->reo_mult = 1;
		}
		st->state = RACK_OPEN;
		return cwnd;
	}
	if (st->state == RACK_RECOVERY)
		return cwnd;
	cwnd = tonic_reno_grow(cwnd, st->ssthresh, acked, &st->cwnd_cnt);
	if (st->state == RACK_RTO_RECOVERY)
		tonic_gbn_mark(fl, &st->rtx_next, cwnd, st->recover);
	return cwnd;
}

/* §7.4: a cumulative ACK past the probe, with no DSACK of it. */
static __always_inline u32 rack_tlp_judge(struct rack *st,
					  struct tonic_flow_ctx *fl, u32 cwnd)
{
	if (!(st->flags & RACK_TLP_OUT) ||
	    !tonic_seq_after(fl->wnd_start, st->tlp_high))
		return cwnd;
	st->flags &= ~RACK_TLP_OUT;
	if (st->state != RACK_OPEN)
		return cwnd;
	st->ssthresh = tonic_max(tonic_min(cwnd, tonic_flight(fl) + 1) / 2, 2U);
	return st->ssthresh;
}

/*
 * The window for the engine: cwnd segments in the network plus those
 * selectively acked above the window start (RFC 6675's pipe).
 */
static __always_inline void rack_set_wnd(struct rack *st,
					 struct tonic_flow_ctx *fl, u32 cwnd)
{
	u32 w;

	st->cwnd = tonic_min(tonic_max(cwnd, 1U), fl->wnd_max);
	w = st->cwnd;
	if (st->state != RACK_RTO_RECOVERY)
		w += tonic_count_acked(fl, fl->wnd_start, fl->next_new);
	tonic_set_wnd(fl, tonic_min(w, fl->wnd_max));
	tonic_set_ack_ratio_wnd(fl, rack_ack_ratio, rack_acks_per_wnd, st->cwnd);
}

/* Arm the one timer for the earliest of RTO, reordering and TLP. */
static __always_inline void rack_arm(struct rack *st,
				     struct tonic_flow_ctx *fl)
{
	u64 rto = tonic_rto_clamp(fl, st->rtt.rto_ns), at, pto;
	bool early = false;

	st->flags &= ~RACK_TLP_ARMED;
	if (!tonic_flight(fl)) {
		st->rto_at = 0;
		tonic_set_timer(fl, rto);	/* the engine's amount */
		return;
	}
	/* restarted by new ACKs, and pulled in when the floor drops (few
	 * segments left outstanding: rto_low)
	 */
	if (!st->rto_at || st->rto_at - fl->now > rto)
		st->rto_at = fl->now + rto;
	at = st->rto_at;
	if ((st->flags & RACK_REO) &&
	    rack_reo_at(st, rack_reo_wnd(st, fl)) < at) {
		at = rack_reo_at(st, rack_reo_wnd(st, fl));
		early = true;
	}
	if ((st->flags & RACK_RELOST) && st->relost_at < at) {
		at = st->relost_at;
		early = true;
	}
	if (!early && rack_tlp && st->state == RACK_OPEN && st->rtt.srtt_ns &&
	    !(st->flags & (RACK_TLP_OUT | RACK_REO))) {
		/* §7.2: PTO, but never after the RTO it stands in for */
		pto = fl->now + tonic_max(2 * st->rtt.srtt_ns,
					  fl->probe_min_ns);
		at = rack_min64(at, pto);
		early = true;
		st->tlp_at = at;
		st->flags |= RACK_TLP_ARMED;
	}
	if (early) {
		tonic_set_probe_timer(fl, tonic_max(at > fl->now ?
						    at - fl->now : 0,
						    fl->probe_min_ns));
		return;
	}
	/* the RTO; never below the floor (a clamp counts as a violation) */
	tonic_set_timer(fl, tonic_rto_clamp(fl, at > fl->now ?
					    at - fl->now : 0));
}

TONIC_INIT(rack, fl, user)
{
	struct rack *st = TONIC_STATE(user, struct rack);
	u32 w = fl->wnd ? fl->wnd : rack_init_cwnd;

	tonic_rtt_init(&st->rtt, fl);
	st->ssthresh = fl->wnd_max;
	st->recover = fl->wnd_start;
	st->fack = fl->wnd_start;
	st->lost_end = fl->wnd_start;
	st->rtx_fence = fl->wnd_start;
	st->reo_mult = 1;
	rack_set_wnd(st, fl, w);
	return 0;
}

TONIC_INCOMING(rack, fl, user)
{
	struct rack *st = TONIC_STATE(user, struct rack);
	u32 acked = tonic_cum_acked(fl), cwnd = st->cwnd;

	if ((fl->ev.flags & TONIC_CF_RTT) && fl->ev.rtt_ns &&
	    (!st->min_rtt_ns || fl->ev.rtt_ns < st->min_rtt_ns))
		st->min_rtt_ns = fl->ev.rtt_ns;
	tonic_rtt_sample(&st->rtt, fl);
	if (fl->ev.flags & TONIC_CF_DUP)
		cwnd = rack_dsack(st, fl, cwnd);
	if (acked)
		cwnd = rack_newack(st, fl, cwnd, acked);
	cwnd = rack_tlp_judge(st, fl, cwnd);
	if (st->state != RACK_RTO_RECOVERY) {
		rack_update(st, fl);
		rack_detect(st, fl);
		if (st->state == RACK_RECOVERY)
			cwnd = st->ssthresh;
	}
	rack_set_wnd(st, fl, cwnd);
	rack_arm(st, fl);
}

TONIC_PERIODIC(rack, fl, user)
{
	struct rack *st = TONIC_STATE(user, struct rack);

	if (fl->timeout == TONIC_TIMEOUT_PROBE) {
		if ((st->flags & RACK_TLP_ARMED) && st->tlp_at <= fl->now &&
		    st->state == RACK_OPEN && tonic_flight(fl)) {
			/* §7.3: resend the highest segment sent */
			st->flags |= RACK_TLP_OUT;
			st->tlp_seg = fl->next_new - 1;
			st->tlp_high = fl->next_new;
			tonic_mark_rtx(fl, st->tlp_seg, fl->next_new);
			st->rto_at = 0;			/* §7.3: restart */
		}
		if (st->state != RACK_RTO_RECOVERY) {
			rack_detect(st, fl);
			rack_set_wnd(st, fl, st->state == RACK_RECOVERY ?
				     st->ssthresh : st->cwnd);
		}
		rack_arm(st, fl);
		return;
	}
	if (!fl->timeout)
		return;
	/* A timeout is undone as a recovery is, when its first resend
	 * comes back as a duplicate; the window restored is the one before
	 * the first timeout of this stall.
	 */
	if (st->state != RACK_RTO_RECOVERY || !(st->flags & RACK_UNDO) ||
	    st->undo_lo != fl->wnd_start) {
		st->prior_cwnd = st->cwnd;
		st->prior_ssthresh = tonic_min(st->ssthresh, 65535U);
	}
	st->ssthresh = tonic_max(tonic_flight(fl) / 2, 2U);
	st->recover = fl->next_new;
	st->state = RACK_RTO_RECOVERY;
	st->flags = (st->flags & RACK_REORDER) | RACK_UNDO;
	st->undo_lo = fl->wnd_start;
	st->undo_hi = fl->wnd_start + 1;
	st->undo_cnt = 1;
	st->cwnd_cnt = 0;
	st->rtx_next = fl->wnd_start + 1;
	st->lost_end = fl->next_new;
	st->rtx_fence = fl->next_new;
	st->rto_at = 0;
	tonic_rtt_backoff(&st->rtt, fl);
	tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
	rack_set_wnd(st, fl, 1);
	tonic_set_rto(fl, &st->rtt);
}

TONIC_PROTO(rack, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK, struct rack,
	    TONIC_MERGE_INCOMING_WINS, 0);
