// SPDX-License-Identifier: GPL-2.0
/*
 * dcqcn - RoCEv2 with DCQCN for Tonic.
 *
 * Credit: rate (Tonic §3.3), set by DCQCN (dcqcn.h; Zhu et al.,
 * SIGCOMM 2015, §3.1) from CNPs, a timer and a byte counter.
 *
 * Loss recovery: RoCEv2's go-back-N (InfiniBand Architecture
 * Specification Vol. 1, Release 1.2.1, §9.7.5: a requester that gets a
 * NAK "PSN sequence error" resends from that PSN; IRN §2 summarises it).
 * The receiver's first NACK of a hole names the first missing segment; we
 * mark [that segment, next_new) once per hole, ignoring the NACKs of the
 * same hole that follow.  A timeout goes back to wnd_start.  The engine
 * does not resend segments the receiver already acked selectively, so
 * with a SACKing receiver this degrades gracefully; against a RoCE
 * receiver (cumulative ACKs only) it is exactly go-back-N.
 *
 * There is no window: it stays at K, the ring-bitmap size.
 */
#include "tonic_prog.h"
#include "dcqcn.h"

/* RoCE's fixed retransmission timeout; 0 = the flow's. */
TONIC_PARAM_U64(dcqcn_rto_ns, 0);
TONIC_PARAM_U32(dcqcn_ack_ratio, 0);		/* segments per ACK; 0: receiver's */

struct dcqcn_flow {
	struct dcqcn cc;
	u64 rto_ns;
	u32 gbn_seg;		/* hole we went back for last */
	u32 gbn_valid;
};

TONIC_INIT(dcqcn, fl, user)
{
	struct dcqcn_flow *st = TONIC_STATE(user, struct dcqcn_flow);

	st->rto_ns = dcqcn_rto_ns ? dcqcn_rto_ns : fl->rto_ns;
	dcqcn_cc_init(&st->cc, fl);
	tonic_set_wnd(fl, fl->wnd_max);
	tonic_set_ack_ratio(fl, dcqcn_ack_ratio);
	return 0;
}

TONIC_INCOMING(dcqcn, fl, user)
{
	struct dcqcn_flow *st = TONIC_STATE(user, struct dcqcn_flow);
	u32 seg = fl->ev.nack;

	if (fl->ev.type == TONIC_CTRL_CNP) {
		dcqcn_cc_cnp(&st->cc, fl);
		return;
	}
	if (tonic_cum_acked(fl)) {
		tonic_set_timer(fl, st->rto_ns);
		dcqcn_cc_acked(&st->cc, fl);
	}
	if ((fl->ev.flags & TONIC_CF_NACK) &&
	    tonic_seq_before(seg, fl->next_new) &&
	    !tonic_seq_before(seg, fl->wnd_start) &&
	    (!st->gbn_valid || seg != st->gbn_seg)) {
		tonic_mark_rtx(fl, seg, fl->next_new);	/* go back N */
		st->gbn_seg = seg;
		st->gbn_valid = 1;
	}
}

TONIC_PERIODIC(dcqcn, fl, user)
{
	struct dcqcn_flow *st = TONIC_STATE(user, struct dcqcn_flow);

	if (!fl->timeout) {
		dcqcn_cc_tick(&st->cc, fl);
		return;
	}
	tonic_mark_rtx(fl, fl->wnd_start, fl->next_new);
	st->gbn_seg = fl->wnd_start;
	st->gbn_valid = 1;
	tonic_set_timer(fl, st->rto_ns);
}

TONIC_PROTO(dcqcn, TONIC_CREDIT_RATE,
	    TONIC_SIG_ACK | TONIC_SIG_NACK | TONIC_SIG_CNP, struct dcqcn_flow,
	    TONIC_MERGE_INCOMING_WINS, DCQCN_TICK_NS);
