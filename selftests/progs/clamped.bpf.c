// SPDX-License-Identifier: GPL-2.0
/*
 * clamped - a hostile protocol program the verifier accepts but the engine
 * must contain: on every ACK it asks for a window far above K and marks a
 * retransmission range that reaches beyond everything sent. The engine
 * clamps both (window to K, range to the unacked segments) and counts each
 * clip; data must still arrive intact (selftests/vm/test_bpf_clamp.sh).
 */
#include "tonic_prog.h"

struct clamped_flow {
	u32 calls;
};

TONIC_INIT(clamped, fl, user)
{
	tonic_set_wnd(fl, 8);
	return 0;
}

TONIC_INCOMING(clamped, fl, user)
{
	struct clamped_flow *st = TONIC_STATE(user, struct clamped_flow);

	st->calls++;
	tonic_set_wnd(fl, 1000000);		/* > K: clamped to K */
	if (!(st->calls & 63)) {		/* past next_new: clipped */
		fl->out.flags |= TONIC_OUT_RTX;
		fl->out.rtx_start = fl->wnd_start;
		fl->out.rtx_end = fl->next_new + 100000;
	}
}

TONIC_PERIODIC(clamped, fl, user)
{
	if (fl->timeout)
		tonic_mark_rtx(fl, fl->wnd_start, fl->wnd_start + 1);
}

TONIC_PROTO(clamped, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK,
	    struct clamped_flow, TONIC_MERGE_INCOMING_WINS, 0);
