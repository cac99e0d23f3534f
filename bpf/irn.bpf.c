// SPDX-License-Identifier: GPL-2.0
/*
 * irn - Improved RoCE NIC loss recovery and flow control for Tonic.
 *
 * IRN (Mittal, Shpiner, Panda, Zahavi, Krishnamurthy, Ratnasamy, Shenker:
 * "Revisiting Network Support for RDMA", SIGCOMM 2018), §3 and §4:
 * - §3.1 loss recovery: a NACK (sent by the receiver for every
 *   out-of-order arrival, carrying the cumulative ACK and the segment that
 *   arrived) starts recovery.  In recovery a segment is lost if a higher
 *   one was selectively acked, so a NACK for segment s marks the unacked
 *   segments of [max(wnd_start, last marked), s); each is resent once.
 *   Recovery ends when the cumulative ACK passes the recovery sequence
 *   (the last regular segment sent before it began).
 * - §3.1 timeouts: RTO_low when at most N = 3 segments are in flight,
 *   else RTO_high.  A timeout marks [wnd_start, highest SACK) (at least
 *   wnd_start) and starts recovery.
 * - §3.2 BDP-FC: at most bdp_segs segments in flight (the window).
 * - §3.3 rate: a fixed line rate, or DCQCN (dcqcn.h) with irn_dcqcn = 1.
 *
 * Defaults are for the test VM (~0.5 ms RTT, ~1 Gb/s): RTO_low 2 ms,
 * RTO_high 8 ms.  The paper's 40 Gb/s, 2 us-per-hop setup uses 100 us and
 * 320 us and a BDP cap of 110 1 KB packets.  The engine clamps timeouts
 * to the flow's [rto_min, rto_max].
 */
#include "tonic_prog.h"
#define DCQCN_IN_IRN
#include "dcqcn.h"

TONIC_PARAM_U64(irn_rto_low_ns, 2000000ULL);	/* paper: 100 us */
TONIC_PARAM_U64(irn_rto_high_ns, 8000000ULL);	/* paper: 320 us */
TONIC_PARAM_U32(irn_rto_n, 3);			/* N */
TONIC_PARAM_U32(irn_bdp_segs, 110);		/* BDP-FC cap */
TONIC_PARAM_U32(irn_dcqcn, 0);			/* 1: DCQCN rate */
TONIC_PARAM_U32(irn_ack_ratio, 0);		/* segments per ACK; 0: receiver's */

struct irn {
	struct dcqcn cc;
	u32 recovery;
	u32 recovery_seq;	/* next_new when recovery began */
	u32 high_marked;	/* segments below were marked in this recovery */
	u32 high_sack;		/* one past the highest SACKed segment */
};

static __always_inline void irn_timer(struct tonic_flow_ctx *fl)
{
	/* §3.1: RTO_low only for flows with at most N packets in flight */
	tonic_set_timer(fl, tonic_flight(fl) > irn_rto_n ? irn_rto_high_ns :
							   irn_rto_low_ns);
}

TONIC_INIT(irn, fl, user)
{
	struct irn *st = TONIC_STATE(user, struct irn);

	st->high_sack = fl->wnd_start;
	dcqcn_cc_init(&st->cc, fl);
	tonic_set_wnd(fl, tonic_min(tonic_max(irn_bdp_segs, 1U), fl->wnd_max));
	/* also the amount the engine arms the timer with from now on */
	tonic_set_timer(fl, irn_rto_low_ns);
	tonic_set_ack_ratio(fl, irn_ack_ratio);
	return 0;
}

static __always_inline void irn_enter(struct irn *st, struct tonic_flow_ctx *fl)
{
	if (st->recovery)
		return;
	st->recovery = 1;
	st->recovery_seq = fl->next_new;
	st->high_marked = fl->wnd_start;
}

TONIC_INCOMING(irn, fl, user)
{
	struct irn *st = TONIC_STATE(user, struct irn);
	u32 sack = fl->ev.sack, start;

	if (fl->ev.type == TONIC_CTRL_CNP) {
		if (irn_dcqcn)
			dcqcn_cc_cnp(&st->cc, fl);
		return;
	}
	if (tonic_cum_acked(fl)) {
		irn_timer(fl);
		if (irn_dcqcn)
			dcqcn_cc_acked(&st->cc, fl);
	}
	if (st->recovery &&
	    !tonic_seq_before(fl->wnd_start, st->recovery_seq))
		st->recovery = 0;			/* recovery sequence passed */
	if (tonic_seq_before(st->high_sack, fl->wnd_start))
		st->high_sack = fl->wnd_start;
	if (!(fl->ev.flags & TONIC_CF_SACK) ||
	    !tonic_seq_after(sack, fl->wnd_start))
		return;
	if (tonic_seq_before(st->high_sack, sack + 1))
		st->high_sack = sack + 1;
	if (fl->ev.flags & TONIC_CF_NACK)
		irn_enter(st, fl);
	if (!st->recovery)
		return;
	/* everything unacked below a selectively acked segment is lost */
	start = st->high_marked;
	if (tonic_seq_before(start, fl->wnd_start))
		start = fl->wnd_start;
	if (tonic_seq_before(start, sack)) {
		tonic_mark_rtx(fl, start, sack);
		st->high_marked = sack;
	}
}

TONIC_PERIODIC(irn, fl, user)
{
	struct irn *st = TONIC_STATE(user, struct irn);
	u32 end;

	if (!fl->timeout) {
		if (irn_dcqcn)
			dcqcn_cc_tick(&st->cc, fl);
		return;
	}
	if (!tonic_flight(fl)) {	/* the timer set by init, nothing sent */
		tonic_stop_timer(fl);
		return;
	}
	st->recovery = 0;
	irn_enter(st, fl);
	end = st->high_sack;
	if (!tonic_seq_after(end, fl->wnd_start))
		end = fl->wnd_start + 1;
	tonic_mark_rtx(fl, fl->wnd_start, end);
	st->high_marked = end;
	irn_timer(fl);
}

TONIC_PROTO(irn, TONIC_CREDIT_RATE,
	    TONIC_SIG_ACK | TONIC_SIG_NACK | TONIC_SIG_CNP, struct irn,
	    TONIC_MERGE_INCOMING_WINS, DCQCN_TICK_NS);
