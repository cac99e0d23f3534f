// SPDX-License-Identifier: GPL-2.0
/*
 * reno - TCP Reno congestion control and loss recovery for Tonic.
 *
 * RFC 5681 (Allman, Paxson, Blanton: "TCP Congestion Control", 2009), in
 * segments, as in Tonic's public RTL:
 * - §3.1 slow start below ssthresh, then congestion avoidance (one segment
 *   per window of acked segments);
 * - §3.2 fast retransmit on the third duplicate ACK: ssthresh =
 *   max(FlightSize / 2, 2), resend wnd_start, cwnd = ssthresh + 3, inflate
 *   by one per further duplicate; the first new ACK ends fast recovery
 *   with cwnd = ssthresh (Reno, unlike NewReno, also on a partial ACK);
 * - §3.1 / RFC 6298 §5: on a timeout ssthresh = max(FlightSize / 2, 2),
 *   cwnd = 1, RTO doubled, and everything outstanding is resent.
 *
 * Differences: Tonic never moves next_new back, so the go-back-N after a
 * timeout is done by marking [rtx_next, wnd_start + cwnd) on each new ACK.
 * Duplicate ACKs are counted per control event.
 */
#include "tonic_prog.h"

TONIC_PARAM_U32(reno_dupthresh, 3);	/* RFC 5681 §3.2 */
TONIC_PARAM_U32(reno_init_cwnd, 10);	/* RFC 6928 */
TONIC_PARAM_U32(reno_ack_ratio, 0);		/* segments per ACK; 0: receiver's */

enum { RENO_OPEN, RENO_FAST_RECOVERY, RENO_RTO_RECOVERY };

struct reno {
	struct tonic_rtt rtt;
	u32 ssthresh;
	u32 dupacks;
	u32 cwnd_cnt;		/* congestion-avoidance accumulator */
	u32 recover;		/* next_new at the timeout */
	u32 rtx_next;		/* after a timeout: next segment to resend */
	u32 state;
};

TONIC_INIT(reno, fl, user)
{
	struct reno *st = TONIC_STATE(user, struct reno);
	u32 w = fl->wnd ? fl->wnd : reno_init_cwnd;

	tonic_rtt_init(&st->rtt, fl);
	st->ssthresh = fl->wnd_max;	/* "arbitrarily high" (§3.1) */
	tonic_set_wnd(fl, tonic_min(tonic_max(w, 1U), fl->wnd_max));
	tonic_set_ack_ratio(fl, reno_ack_ratio);
	return 0;
}

TONIC_INCOMING(reno, fl, user)
{
	struct reno *st = TONIC_STATE(user, struct reno);
	u32 acked = tonic_cum_acked(fl), cwnd = fl->wnd;

	tonic_rtt_sample(&st->rtt, fl);
	if (acked) {
		st->dupacks = 0;
		tonic_set_rto(fl, &st->rtt);	/* RFC 6298 §5.3 */
		if (st->state == RENO_FAST_RECOVERY) {
			cwnd = st->ssthresh;		/* §3.2 step 6 */
			st->state = RENO_OPEN;
		} else {
			cwnd = tonic_reno_grow(cwnd, st->ssthresh, acked,
					       &st->cwnd_cnt);
		}
		if (st->state == RENO_RTO_RECOVERY) {
			if (!tonic_seq_before(fl->wnd_start, st->recover))
				st->state = RENO_OPEN;
			else
				tonic_gbn_mark(fl, &st->rtx_next, cwnd,
					       st->recover);
		}
	} else if (tonic_is_dupack(fl)) {
		if (st->state == RENO_FAST_RECOVERY) {
			cwnd++;				/* §3.2 step 4 */
		} else if (st->state == RENO_OPEN &&
			   ++st->dupacks == reno_dupthresh) {
			/* §3.2 steps 2-3 */
			st->ssthresh = tonic_max(tonic_flight(fl) / 2, 2U);
			tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
			cwnd = st->ssthresh + 3;
			st->state = RENO_FAST_RECOVERY;
		}
	}
	tonic_set_wnd(fl, tonic_min(tonic_max(cwnd, 1U), fl->wnd_max));
}

TONIC_PERIODIC(reno, fl, user)
{
	struct reno *st = TONIC_STATE(user, struct reno);

	if (!fl->timeout)
		return;
	st->ssthresh = tonic_max(tonic_flight(fl) / 2, 2U);	/* eq. (4) */
	st->state = RENO_RTO_RECOVERY;
	st->recover = fl->next_new;
	st->rtx_next = fl->wnd_start + 1;
	st->dupacks = 0;
	st->cwnd_cnt = 0;
	tonic_rtt_backoff(&st->rtt, fl);
	tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
	tonic_set_wnd(fl, 1);
	tonic_set_rto(fl, &st->rtt);
}

TONIC_PROTO(reno, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK, struct reno,
	    TONIC_MERGE_INCOMING_WINS, 0);
