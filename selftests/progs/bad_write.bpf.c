// SPDX-License-Identifier: GPL-2.0
/*
 * bad_write - a broken protocol program the verifier must reject.
 *
 * It writes fl->wnd, a read-only copy of the flow's window, instead of
 * asking for a new window through fl->out.  Loading it must fail with
 * "tonic: write to read-only field 'wnd'" (selftests/vm/test_bpf_load.sh).
 */
#include "tonic_prog.h"

struct bad_write_flow {
	u32 x;
};

TONIC_INIT(bad_write, fl, user)
{
	return 0;
}

TONIC_INCOMING(bad_write, fl, user)
{
	fl->wnd = 5;	/* wrong: use tonic_set_wnd(fl, 5) */
}

TONIC_PERIODIC(bad_write, fl, user)
{
}

TONIC_PROTO(bad_write, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK,
	    struct bad_write_flow, TONIC_MERGE_INCOMING_WINS, 0);
