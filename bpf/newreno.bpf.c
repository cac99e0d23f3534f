// SPDX-License-Identifier: GPL-2.0
/*
 * newreno - TCP NewReno for Tonic.
 *
 * RFC 6582 (Henderson, Floyd, Gurtov, Nishida: "The NewReno Modification
 * to TCP's Fast Recovery Algorithm", 2012) on RFC 5681, in segments:
 * - §3.2 step 2: a third duplicate ACK starts fast recovery only if the
 *   ACK covers "recover" (no second reduction for losses of one window);
 *   then ssthresh = max(FlightSize / 2, 2), recover = highest sent,
 *   resend wnd_start, cwnd = ssthresh + 3;
 * - step 4: each further duplicate inflates cwnd by one;
 * - step 5, partial ACK (advances but below recover): resend the new
 *   wnd_start at once, deflate cwnd by the amount acked and add one; only
 *   the first partial ACK restarts the timer ("impatient" variant);
 *   this is what recovers several losses of one window without a timeout;
 * - step 3, full ACK: cwnd = min(ssthresh, FlightSize + 1) (option 1).
 * - Timeout: as reno.bpf.c (ssthresh, cwnd = 1, go-back-N by marking).
 * - A flight of dupthresh or fewer segments needs FlightSize - 1
 *   duplicates (RFC 5827 early retransmit).
 * - In recovery, dupthresh SACKs of segments sent after the hole was
 *   resent, with the hole still open: the resend was lost, resend again.
 * - The receiver reports the segment a fast retransmit or a timeout
 *   resent first as a duplicate (TONIC_CF_DUP): the resend was spurious,
 *   so cwnd and ssthresh go back to their values before it and a
 *   timeout's go-back-N stops (RFC 3708).  The timeout itself stays
 *   backed off until an RTT sample (Karn).
 *
 * The same algorithm is built into the engine (kmod/engine/newreno.c) as
 * the default; this program exists so it can be changed and replaced.
 */
#include "tonic_prog.h"

TONIC_PARAM_U32(newreno_dupthresh, 3);		/* RFC 5681 §3.2 */
TONIC_PARAM_U32(newreno_init_cwnd, 10);	/* RFC 6928 */
TONIC_PARAM_U32(newreno_ack_ratio, 0);		/* segments per ACK; 0: receiver's */

enum { NRS_OPEN, NRS_FAST_RECOVERY, NRS_RTO_RECOVERY };

struct newreno_flow {
	struct tonic_rtt rtt;
	u32 ssthresh;
	u32 dupacks;
	u32 recover;		/* highest sent when recovery began */
	u32 cwnd_cnt;
	u32 rtx_next;		/* after a timeout: next segment to resend */
	u16 state;
	u16 partial_seen;
	u32 undo_seg;		/* the fast-retransmitted segment */
	u32 lost_next;		/* highest sent + 1 when the hole was resent */
	u16 prior_cwnd;		/* before fast recovery, for an undo */
	u16 prior_ssthresh;
	u8 undo;		/* undo_seg's resend may be spurious */
	u8 lost_sacks;		/* SACKs of segments sent after that resend */
	u16 pad;
};

static __always_inline void nr_resend_hole(struct newreno_flow *st,
					   struct tonic_flow_ctx *fl)
{
	tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
	st->lost_next = fl->next_new;
	st->lost_sacks = 0;
}

TONIC_INIT(newreno, fl, user)
{
	struct newreno_flow *st = TONIC_STATE(user, struct newreno_flow);
	u32 w = fl->wnd ? fl->wnd : newreno_init_cwnd;

	tonic_rtt_init(&st->rtt, fl);
	st->ssthresh = fl->wnd_max;
	st->recover = fl->wnd_start;
	tonic_set_wnd(fl, tonic_min(tonic_max(w, 1U), fl->wnd_max));
	tonic_set_ack_ratio(fl, newreno_ack_ratio);
	return 0;
}

static __always_inline u32 nr_newack(struct newreno_flow *st, struct tonic_flow_ctx *fl,
			   u32 cwnd, u32 acked)
{
	st->dupacks = 0;
	if (st->state != NRS_OPEN &&
	    !tonic_seq_before(fl->wnd_start, st->recover)) {
		if (st->state == NRS_FAST_RECOVERY)	/* full ACK, step 3 */
			cwnd = tonic_min(st->ssthresh,
					 tonic_max(tonic_flight(fl), 1U) + 1);
		st->state = NRS_OPEN;
		tonic_set_rto(fl, &st->rtt);
		return cwnd;
	}
	if (st->state == NRS_FAST_RECOVERY) {		/* partial ACK, step 5 */
		nr_resend_hole(st, fl);
		cwnd = (cwnd > acked ? cwnd - acked : 0) + 1;
		if (!st->partial_seen)
			tonic_set_rto(fl, &st->rtt);
		st->partial_seen = 1;
		return cwnd;
	}
	tonic_set_rto(fl, &st->rtt);		/* RFC 6298 §5.3 */
	cwnd = tonic_reno_grow(cwnd, st->ssthresh, acked, &st->cwnd_cnt);
	if (st->state == NRS_RTO_RECOVERY)
		tonic_gbn_mark(fl, &st->rtx_next, cwnd, st->recover);
	return cwnd;
}

TONIC_INCOMING(newreno, fl, user)
{
	struct newreno_flow *st = TONIC_STATE(user, struct newreno_flow);
	u32 acked = tonic_cum_acked(fl), cwnd = fl->wnd;
	u32 flight = tonic_flight(fl), thresh = newreno_dupthresh;

	if ((fl->ev.flags & TONIC_CF_DUP) && st->undo &&
	    fl->ev.sack == st->undo_seg) {		/* spurious: undo */
		st->undo = 0;
		st->ssthresh = tonic_max(st->ssthresh, (u32)st->prior_ssthresh);
		st->state = NRS_OPEN;	/* also ends a timeout's go-back-N */
		cwnd = tonic_max(cwnd, (u32)st->prior_cwnd);
	}
	tonic_rtt_sample(&st->rtt, fl);
	if (flight <= thresh)				/* RFC 5827 */
		thresh = tonic_max(flight - 1, 1U);
	if (acked) {
		cwnd = nr_newack(st, fl, cwnd, acked);
	} else if (tonic_is_dupack(fl)) {
		if (st->state == NRS_FAST_RECOVERY) {
			/* the hole's resend lost as well? */
			if ((fl->ev.flags & TONIC_CF_SACK) &&
			    !tonic_seq_before(fl->ev.sack, st->lost_next) &&
			    ++st->lost_sacks >= newreno_dupthresh)
				nr_resend_hole(st, fl);
			cwnd++;					/* step 4 */
		} else if (st->state == NRS_OPEN &&
			   ++st->dupacks >= thresh &&
			   !tonic_seq_before(fl->wnd_start, st->recover)) {
			/* step 2 */
			st->prior_cwnd = cwnd;
			st->prior_ssthresh = st->ssthresh;
			st->undo_seg = fl->wnd_start;
			st->undo = 1;
			st->ssthresh = tonic_max(flight / 2, 2U);
			st->recover = fl->next_new;
			st->state = NRS_FAST_RECOVERY;
			st->partial_seen = 0;
			nr_resend_hole(st, fl);
			cwnd = st->ssthresh + 3;
		}
	}
	tonic_set_wnd(fl, tonic_min(tonic_max(cwnd, 1U), fl->wnd_max));
}

TONIC_PERIODIC(newreno, fl, user)
{
	struct newreno_flow *st = TONIC_STATE(user, struct newreno_flow);

	if (!fl->timeout)
		return;
	/* A timeout is undone as a fast retransmit is, when its first
	 * resend comes back as a duplicate; the window restored is the one
	 * before the first timeout of this stall.
	 */
	if (st->state != NRS_RTO_RECOVERY || !st->undo ||
	    st->undo_seg != fl->wnd_start) {
		st->prior_cwnd = fl->wnd;
		st->prior_ssthresh = tonic_min(st->ssthresh, 65535U);
		st->undo_seg = fl->wnd_start;
	}
	st->ssthresh = tonic_max(tonic_flight(fl) / 2, 2U);
	st->recover = fl->next_new;
	st->state = NRS_RTO_RECOVERY;
	st->undo = 1;
	st->dupacks = 0;
	st->cwnd_cnt = 0;
	st->rtx_next = fl->wnd_start + 1;
	tonic_rtt_backoff(&st->rtt, fl);
	tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
	tonic_set_wnd(fl, 1);
	tonic_set_rto(fl, &st->rtt);
}

TONIC_PROTO(newreno, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK, struct newreno_flow,
	    TONIC_MERGE_INCOMING_WINS, 0);
