// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the built-in default protocol, NewReno.
 *
 * NewReno congestion control and loss recovery (RFC 6582, on RFC 5681),
 * written against the Tonic hook interface so the engine works with no
 * program attached.  Window-based credit; everything is in segments.
 *
 * - Open: slow start below ssthresh (cwnd += newly cum-acked segments,
 *   at most up to ssthresh, as Linux's tcp_slow_start()), then congestion
 *   avoidance (in theory cwnd += 1 / cwnd per acked segment; in integers a
 *   counter that adds one segment per cwnd acked).
 * - dupthresh duplicate acks (an ack that does not advance wnd_start while
 *   data is in flight, and does not report a duplicate), when the ack
 *   covers recover (RFC 6582 §3.2 step 2): ssthresh = max(flight / 2, 2),
 *   mark wnd_start, cwnd = ssthresh + 3, recover = next_new.  Further
 *   duplicates inflate cwnd by one.  A flight too small to produce
 *   dupthresh duplicates needs flight - 1 (RFC 5827 early retransmit).
 * - A resent hole that is still open after dupthresh segments sent after
 *   it were selectively acked was lost again: it is resent once more (as
 *   Linux's former tcp_mark_lost_retrans()), rather than waiting for the
 *   timeout.
 * - Partial ack (advances but below recover): mark the new wnd_start,
 *   deflate cwnd by the newly acked amount and add one (§3.2 step 5); the
 *   first partial ack restarts the timer.  Full ack: cwnd =
 *   min(ssthresh, max(flight, 1) + 1) (§3.2 step 3 option 1).
 * - Timeout: ssthresh = max(flight / 2, 2), cwnd = 1, RTO doubled (RFC
 *   6298 §5.5), recover = next_new.
 * - Spurious fast retransmit or timeout (RFC 3708, as Linux's DSACK
 *   undo): when the receiver reports the segment resent first as a
 *   duplicate (TONIC_CF_DUP), the original was only reordered or late:
 *   cwnd and ssthresh go back to their values before recovery, and a
 *   timeout's go-back-N stops.  A timeout is spurious when the RTT
 *   exceeds it, e.g. before the first RTT sample on a long path; the
 *   timeout itself stays backed off (Karn).  dupthresh stays: without
 *   RACK's timing, a larger one turns losses in small windows into
 *   timeouts.
 *
 * Differences from a byte-stream TCP: Tonic never moves next_new back, so
 * the go-back-N that RFC 5681 gets after a timeout by resetting snd_nxt is
 * done by marking: after a timeout each ack marks the segments from a
 * private retransmission pointer up to wnd_start + cwnd (below recover);
 * segments already selectively acked are skipped by the engine.  The RTO
 * is RFC 6298's SRTT/RTTVAR when the caller passes RTT samples
 * (TONIC_CF_RTT), otherwise the flow's initial RTO with backoff.
 */
#include "engine.h"

struct tonic_newreno_params tonic_newreno_params = {
	.dupthresh = 3,		/* RFC 5681 §3.2 */
	.init_cwnd = 10,	/* RFC 6928 */
	.ack_ratio = 0,		/* dupack counting: benchmarks.md, ACK ratio */
};

enum newreno_state {
	NR_OPEN = 0,
	NR_FAST_RECOVERY,
	NR_RTO_RECOVERY,
};

/* struct newreno.flags */
#define NR_PARTIAL_SEEN	0x01	/* a partial ack restarted the timer */
#define NR_UNDO		0x02	/* undo_seg's resend may be spurious */

struct newreno {
	u32 ssthresh;
	u32 recover;		/* next_new when recovery began */
	u32 rtx_next;		/* after a timeout: next segment to resend */
	u32 undo_seg;		/* the fast-retransmitted segment */
	u32 lost_next;		/* next_new when the hole was last resent */
	u16 dupacks;
	u16 cwnd_cnt;		/* congestion-avoidance accumulator */
	u16 prior_cwnd;		/* before fast recovery, for an undo */
	u16 prior_ssthresh;
	u8 state;		/* enum newreno_state */
	u8 flags;		/* NR_* */
	u8 lost_sacks;		/* SACKs of segments sent after that resend */
	u8 reserved;
	u64 srtt_ns;		/* 0 until the first sample */
	u64 rttvar_ns;
	u64 rto_ns;		/* SRTT + 4 RTTVAR, or backed off */
};

static void nr_mark(struct tonic_flow_ctx *ctx, u32 start, u32 end)
{
	ctx->out.flags |= TONIC_OUT_RTX;
	ctx->out.rtx_start = start;
	ctx->out.rtx_end = end;
}

static u64 nr_clamp_rto(const struct tonic_flow_ctx *ctx, u64 rto)
{
	return min(max(rto, ctx->rto_min_ns), ctx->rto_max_ns);
}

/* RFC 6298 §2: SRTT, RTTVAR (alpha = 1/8, beta = 1/4), RTO. */
static void nr_rtt_sample(struct newreno *s, const struct tonic_flow_ctx *ctx,
			  u64 r)
{
	if (!s->srtt_ns) {
		s->srtt_ns = r;
		s->rttvar_ns = r / 2;
	} else {
		u64 err = s->srtt_ns > r ? s->srtt_ns - r : r - s->srtt_ns;

		s->rttvar_ns = (3 * s->rttvar_ns + err) / 4;
		s->srtt_ns = (7 * s->srtt_ns + r) / 8;
	}
	s->rto_ns = min(s->srtt_ns + max(4 * s->rttvar_ns, 1ULL),
			ctx->rto_max_ns);
}

static int newreno_init(struct tonic_flow_ctx *ctx, void *user)
{
	struct newreno *s = user;
	u32 w = ctx->wnd ? ctx->wnd : tonic_newreno_params.init_cwnd;

	s->ssthresh = ctx->wnd_max;	/* "arbitrarily high" (RFC 5681 §3.1) */
	s->rto_ns = ctx->rto_ns;
	ctx->out.flags |= TONIC_OUT_WND | TONIC_OUT_ACK_RATIO;
	ctx->out.wnd = min(max(w, 1U), ctx->wnd_max);
	ctx->out.ack_ratio = tonic_newreno_params.ack_ratio;
	return 0;
}

/* Resend the hole at wnd_start; watch for that resend being lost too. */
static void nr_resend_hole(struct newreno *s, struct tonic_flow_ctx *ctx)
{
	nr_mark(ctx, ctx->wnd_start, ctx->wnd_start + 1);
	s->lost_next = ctx->next_new;
	s->lost_sacks = 0;
}

/* In fast recovery: SACKs beyond the resend while the hole stays open. */
static void nr_lost_resend(struct newreno *s, struct tonic_flow_ctx *ctx)
{
	if (!(ctx->ev.flags & TONIC_CF_SACK) ||
	    tonic_seq_before(ctx->ev.sack, s->lost_next))
		return;
	if (++s->lost_sacks >= tonic_newreno_params.dupthresh)
		nr_resend_hole(s, ctx);
}

static u32 nr_dupack(struct newreno *s, struct tonic_flow_ctx *ctx, u32 cwnd)
{
	u32 flight = ctx->next_new - ctx->wnd_start;
	u32 thresh = tonic_newreno_params.dupthresh;

	if (s->state == NR_FAST_RECOVERY) {
		nr_lost_resend(s, ctx);
		return cwnd + 1;			/* §3.2 step 4 */
	}
	if (s->state != NR_OPEN)
		return cwnd;
	if (s->dupacks < U16_MAX)
		s->dupacks++;
	if (flight <= thresh)				/* RFC 5827 */
		thresh = max(flight - 1, 1U);
	if (s->dupacks < thresh)
		return cwnd;
	if (tonic_seq_before(ctx->wnd_start, s->recover))
		return cwnd;				/* §3.2 step 2 */
	s->prior_cwnd = cwnd;
	s->prior_ssthresh = s->ssthresh;
	s->undo_seg = ctx->wnd_start;
	s->flags |= NR_UNDO;
	s->ssthresh = max(flight / 2, 2U);
	s->recover = ctx->next_new;
	s->state = NR_FAST_RECOVERY;
	s->flags &= ~NR_PARTIAL_SEEN;
	nr_resend_hole(s, ctx);
	return s->ssthresh + 3;
}

/* After a timeout: resend from rtx_next up to wnd_start + cwnd. */
static void nr_rto_resend(struct newreno *s, struct tonic_flow_ctx *ctx,
			  u32 cwnd)
{
	u32 end = ctx->wnd_start + cwnd;

	if (tonic_seq_before(s->rtx_next, ctx->wnd_start))
		s->rtx_next = ctx->wnd_start;
	if (tonic_seq_after(end, s->recover))
		end = s->recover;
	if (tonic_seq_before(s->rtx_next, end)) {
		nr_mark(ctx, s->rtx_next, end);
		s->rtx_next = end;
	}
}

static u32 nr_newack(struct newreno *s, struct tonic_flow_ctx *ctx, u32 cwnd,
		     u32 acked, bool *timer)
{
	u32 flight = ctx->next_new - ctx->wnd_start;

	s->dupacks = 0;
	*timer = true;					/* RFC 6298 §5.3 */
	if (s->state != NR_OPEN && !tonic_seq_before(ctx->wnd_start,
						     s->recover)) {
		if (s->state == NR_FAST_RECOVERY)	/* full ack */
			cwnd = min(s->ssthresh, max(flight, 1U) + 1);
		/* Karn: the backed-off timeout stays until a first
		 * transmission gives an RTT sample (nr_rtt_sample()).  Going
		 * back to the initial timeout here, with no sample yet, made
		 * every segment of a path whose RTT exceeds it time out and
		 * be resent, so no sample ever came.
		 */
		s->state = NR_OPEN;
		return cwnd;
	}
	if (s->state == NR_FAST_RECOVERY) {		/* partial ack */
		nr_resend_hole(s, ctx);
		cwnd = (cwnd > acked ? cwnd - acked : 0) + 1;
		*timer = !(s->flags & NR_PARTIAL_SEEN);
		s->flags |= NR_PARTIAL_SEEN;
		return cwnd;
	}
	if (cwnd < s->ssthresh) {			/* slow start */
		cwnd = min(cwnd + acked, max(s->ssthresh, cwnd));
	} else {					/* congestion avoidance */
		s->cwnd_cnt += acked;
		if (s->cwnd_cnt >= cwnd) {
			s->cwnd_cnt -= cwnd;
			cwnd++;
		}
	}
	if (s->state == NR_RTO_RECOVERY)
		nr_rto_resend(s, ctx, min(cwnd, (u32)ctx->wnd_max));
	return cwnd;
}

/* The resend of undo_seg was spurious: restore the window. */
static u32 nr_undo(struct newreno *s, u32 cwnd)
{
	s->flags &= ~NR_UNDO;
	s->ssthresh = max_t(u32, s->ssthresh, s->prior_ssthresh);
	s->state = NR_OPEN;
	return max_t(u32, cwnd, s->prior_cwnd);
}

static void newreno_incoming(struct tonic_flow_ctx *ctx, void *user)
{
	struct newreno *s = user;
	u32 acked = ctx->wnd_start - ctx->old_wnd_start;
	u32 cwnd = ctx->wnd;
	bool timer = false;

	if ((ctx->ev.flags & TONIC_CF_DUP) && (s->flags & NR_UNDO) &&
	    ctx->ev.sack == s->undo_seg)
		cwnd = nr_undo(s, cwnd);
	if (ctx->ev.flags & TONIC_CF_RTT)
		nr_rtt_sample(s, ctx, ctx->ev.rtt_ns);
	if (acked)
		cwnd = nr_newack(s, ctx, cwnd, acked, &timer);
	else if ((ctx->ev.flags & TONIC_CF_CUMACK) &&
		 !(ctx->ev.flags & TONIC_CF_DUP) &&	/* no hole news */
		 ctx->next_new != ctx->wnd_start)
		cwnd = nr_dupack(s, ctx, cwnd);
	ctx->out.flags |= TONIC_OUT_WND;
	ctx->out.wnd = min(max(cwnd, 1U), ctx->wnd_max);
	if (timer) {
		/* The floor depends on the flight (rto_low): clamp now. */
		ctx->out.flags |= TONIC_OUT_TIMER;
		ctx->out.timer_ns = nr_clamp_rto(ctx, s->rto_ns);
	}
}

static void newreno_periodic(struct tonic_flow_ctx *ctx, void *user)
{
	struct newreno *s = user;
	u32 flight = ctx->next_new - ctx->wnd_start;

	if (!ctx->timeout)
		return;
	/* What an undo restores: the window before the first timeout of
	 * this stall, not the collapsed one of a repeated timeout.
	 */
	if (s->state != NR_RTO_RECOVERY || !(s->flags & NR_UNDO) ||
	    s->undo_seg != ctx->wnd_start) {
		s->prior_cwnd = ctx->wnd;
		s->prior_ssthresh = min_t(u32, s->ssthresh, U16_MAX);
		s->undo_seg = ctx->wnd_start;
	}
	s->ssthresh = max(flight / 2, 2U);		/* RFC 5681 eq. 4 */
	s->recover = ctx->next_new;
	s->state = NR_RTO_RECOVERY;
	s->flags = NR_UNDO;
	s->dupacks = 0;
	s->cwnd_cnt = 0;
	s->rtx_next = ctx->wnd_start + 1;
	s->rto_ns = nr_clamp_rto(ctx, 2 * nr_clamp_rto(ctx, s->rto_ns));
	nr_mark(ctx, ctx->wnd_start, ctx->wnd_start + 1);
	ctx->out.flags |= TONIC_OUT_WND | TONIC_OUT_TIMER;
	ctx->out.wnd = 1;
	ctx->out.timer_ns = s->rto_ns;
}

const struct tonic_proto_ops tonic_newreno_ops = {
	.name		= "newreno",
	.scheme		= TONIC_CREDIT_WINDOW,
	.merge_prio	= TONIC_MERGE_INCOMING_WINS,
	.user_size	= sizeof(struct newreno),
	.init		= newreno_init,
	.incoming	= newreno_incoming,
	.periodic	= newreno_periodic,
};
