// SPDX-License-Identifier: GPL-2.0
/*
 * ndp - receiver-driven transport in the style of NDP for Tonic.
 *
 * NDP (Handley, Raiciu, Agache, Voinescu, Moore, Antichi, Wojcik:
 * "Re-architecting datacenter networks and stacks for low latency and
 * high performance", SIGCOMM 2017), as Tonic runs it (Tonic §3.3 and its
 * public RTL):
 * - credit: grant tokens.  The receiver returns a PULL (grant) per packet
 *   it gets; the engine lets the flow send only as many bytes as it was
 *   granted (plus the flow's initial tokens, NDP's first-RTT window) and
 *   pays for timeout retransmissions itself (Tonic §3.3);
 * - §3.2: a NACK (NDP's trimmed header; here, the receiver's report of an
 *   out-of-order arrival) marks just the segment it names;
 * - a timeout marks everything sent and not acked [wnd_start, next_new).
 *
 * NDP has no congestion window: the window stays at K.  Switch trimming
 * does not exist here, so a NACK may be spurious under reordering; that
 * costs a duplicate, never data.
 */
#include "tonic_prog.h"

/* Retransmission timeout; 0 = the flow's (net.tonic.rto_min_ms based). */
TONIC_PARAM_U64(ndp_rto_ns, 0);
TONIC_PARAM_U32(ndp_ack_ratio, 0);		/* segments per ACK; 0: receiver's */

struct ndp {
	u64 rto_ns;
	u32 last_nack;		/* NACKed segment resent last */
	u32 pad;
};

TONIC_INIT(ndp, fl, user)
{
	struct ndp *st = TONIC_STATE(user, struct ndp);

	st->rto_ns = ndp_rto_ns ? ndp_rto_ns : fl->rto_ns;
	st->last_nack = fl->wnd_start - 1;
	tonic_set_wnd(fl, fl->wnd_max);
	tonic_set_ack_ratio(fl, ndp_ack_ratio);
	return 0;
}

TONIC_INCOMING(ndp, fl, user)
{
	struct ndp *st = TONIC_STATE(user, struct ndp);
	u32 seg = fl->ev.nack;

	if (tonic_cum_acked(fl))
		tonic_set_timer(fl, st->rto_ns);
	/* one resend per NACKed segment until the window moves past it */
	if ((fl->ev.flags & TONIC_CF_NACK) && !tonic_is_acked(fl, seg) &&
	    tonic_seq_before(seg, fl->next_new) && seg != st->last_nack &&
	    !tonic_is_marked(fl, seg)) {
		tonic_mark_rtx(fl, seg, seg + 1);
		st->last_nack = seg;
	}
}

TONIC_PERIODIC(ndp, fl, user)
{
	struct ndp *st = TONIC_STATE(user, struct ndp);

	if (!fl->timeout)
		return;
	tonic_mark_rtx(fl, fl->wnd_start, fl->next_new);
	st->last_nack = fl->wnd_start - 1;
	tonic_set_timer(fl, st->rto_ns);
}

TONIC_PROTO(ndp, TONIC_CREDIT_GRANT,
	    TONIC_SIG_ACK | TONIC_SIG_NACK | TONIC_SIG_GRANT, struct ndp,
	    TONIC_MERGE_INCOMING_WINS, 0);
