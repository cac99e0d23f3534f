// SPDX-License-Identifier: GPL-2.0
/*
 * sack - SACK-based loss recovery for Tonic, in the style of RFC 6675.
 *
 * RFC 6675 (Blanton, Allman, Wang, Jarvinen, Kojo, Nishida: "A
 * Conservative Loss Recovery Algorithm Based on Selective Acknowledgment
 * (SACK) for TCP", 2012), with the receiver's one-entry SACK per data
 * packet feeding the acked bitmap (scoreboard):
 * - §4 IsLost(S): at least DupThresh segments above S are SACKed;
 * - §5 step 4: recovery starts on DupThresh duplicate ACKs or when
 *   IsLost(wnd_start); RecoveryPoint = HighData (next_new - 1),
 *   ssthresh = cwnd = max(FlightSize / 2, 2);
 * - §5 NextSeg() rule 1: resend every unSACKed segment S with IsLost(S),
 *   each once (HighRxt remembers how far we went);
 * - §5 step C: leave recovery when the cumulative ACK covers
 *   RecoveryPoint;
 * - §5.1: on a timeout cwnd = 1 and the scoreboard is kept: unSACKed
 *   segments are resent, cwnd at a time, SACKed ones skipped.
 *
 * Differences: the engine limits next_new - wnd_start by the window, not
 * RFC 6675's "pipe"; in recovery the window is ssthresh plus the segments
 * SACKed inside it, which lets new data flow as pipe would.  Marked
 * retransmissions are not limited by the window in Tonic.
 */
#include "tonic_prog.h"

TONIC_PARAM_U32(sack_dupthresh, 3);	/* RFC 6675 §2 DupThresh */
TONIC_PARAM_U32(sack_init_cwnd, 10);	/* RFC 6928 */
TONIC_PARAM_U32(sack_ack_ratio, 16);		/* segments per ACK; 0: receiver's */
TONIC_PARAM_U32(sack_acks_per_wnd, 2);		/* fewer per ACK in small windows; 0: off */

enum { SACK_OPEN, SACK_RECOVERY, SACK_RTO_RECOVERY };

struct sack {
	struct tonic_rtt rtt;
	u32 ssthresh;
	u32 dupacks;
	u32 recovery_point;	/* next_new when recovery began */
	u32 high_rxt;		/* segments below this were resent */
	u32 cwnd_cnt;
	u32 state;
};

/*
 * The end of the lost region: one past the highest segment S with
 * IsLost(S), found by bisection (the SACK count above S only falls as S
 * grows); wnd_start if none.  Eight steps cover K = 256.
 */
static __always_inline u32 sack_lost_end(struct tonic_flow_ctx *fl)
{
	u32 lo = 0, hi = tonic_flight(fl), mid, i;

	/* invariant: IsLost(wnd_start + lo - 1) (or lo == 0), !IsLost(.. hi) */
	for (i = 0; i < 9 && lo < hi; i++) {
		mid = (lo + hi) / 2;
		if (tonic_count_acked(fl, fl->wnd_start + mid + 1, fl->next_new) >=
		    sack_dupthresh)
			lo = mid + 1;
		else
			hi = mid;
	}
	return fl->wnd_start + lo;
}

/* The window, and the ACK ratio that goes with it. */
static __always_inline void sack_set_wnd(struct tonic_flow_ctx *fl, u32 cwnd)
{
	cwnd = tonic_min(tonic_max(cwnd, 1U), fl->wnd_max);
	tonic_set_wnd(fl, cwnd);
	tonic_set_ack_ratio_wnd(fl, sack_ack_ratio, sack_acks_per_wnd, cwnd);
}

TONIC_INIT(sack, fl, user)
{
	struct sack *st = TONIC_STATE(user, struct sack);
	u32 w = fl->wnd ? fl->wnd : sack_init_cwnd;

	tonic_rtt_init(&st->rtt, fl);
	st->ssthresh = fl->wnd_max;
	st->recovery_point = fl->wnd_start;
	sack_set_wnd(fl, w);
	return 0;
}

TONIC_INCOMING(sack, fl, user)
{
	struct sack *st = TONIC_STATE(user, struct sack);
	u32 acked = tonic_cum_acked(fl), cwnd = fl->wnd, lost;

	tonic_rtt_sample(&st->rtt, fl);
	if (acked) {
		st->dupacks = 0;
		tonic_set_rto(fl, &st->rtt);
	} else if (tonic_is_dupack(fl)) {
		st->dupacks++;
	}
	if (st->state != SACK_OPEN &&
	    !tonic_seq_before(fl->wnd_start, st->recovery_point)) {
		st->state = SACK_OPEN;			/* step C */
		cwnd = st->ssthresh;
	}
	if (st->state == SACK_OPEN && tonic_flight(fl) &&
	    (st->dupacks >= sack_dupthresh ||
	     tonic_count_acked(fl, fl->wnd_start + 1, fl->next_new) >=
	     sack_dupthresh)) {
		/* step 4: enter loss recovery */
		st->recovery_point = fl->next_new;
		st->ssthresh = tonic_max(tonic_flight(fl) / 2, 2U);
		st->high_rxt = fl->wnd_start;
		st->state = SACK_RECOVERY;
		cwnd = st->ssthresh;
	}
	if (st->state == SACK_RECOVERY) {
		/* NextSeg() rule 1: every lost segment, once */
		lost = sack_lost_end(fl);
		if (tonic_seq_before(st->high_rxt, fl->wnd_start))
			st->high_rxt = fl->wnd_start;
		if (tonic_seq_before(st->high_rxt, lost)) {
			tonic_mark_rtx(fl, st->high_rxt, lost);
			st->high_rxt = lost;
		}
		/* let new data go out as pipe falls (see the header) */
		cwnd = st->ssthresh +
		       tonic_count_acked(fl, fl->wnd_start, fl->next_new);
	} else if (acked && st->state == SACK_RTO_RECOVERY) {
		/* §5.1: after a timeout resend unSACKed segments, cwnd at a time */
		cwnd = tonic_min(cwnd + acked, st->ssthresh);
		tonic_gbn_mark(fl, &st->high_rxt, cwnd, st->recovery_point);
	} else if (acked) {
		cwnd = tonic_reno_grow(cwnd, st->ssthresh, acked,
				       &st->cwnd_cnt);
	}
	sack_set_wnd(fl, cwnd);
}

TONIC_PERIODIC(sack, fl, user)
{
	struct sack *st = TONIC_STATE(user, struct sack);

	if (!fl->timeout)
		return;
	st->ssthresh = tonic_max(tonic_flight(fl) / 2, 2U);
	st->recovery_point = fl->next_new;
	st->state = SACK_RTO_RECOVERY;
	st->dupacks = 0;
	st->cwnd_cnt = 0;
	st->high_rxt = fl->wnd_start + 1;
	tonic_rtt_backoff(&st->rtt, fl);
	tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
	sack_set_wnd(fl, 1);
	tonic_set_rto(fl, &st->rtt);
}

TONIC_PROTO(sack, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK, struct sack,
	    TONIC_MERGE_INCOMING_WINS, 0);
