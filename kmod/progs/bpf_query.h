/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic: the one output helper protocol programs share.
 *
 * Portable C over the engine's struct tonic_flow_ctx, used by the
 * bpf_tonic_mark_rtx() kfunc (kmod/progs/bpf_ops.c) and by the native build of
 * the programs in bpf/ (bpf/tonic_prog.h), so both behave the same.  The
 * read-only queries are the engine's tonic_ctx_*() (kmod/engine/ctx.c).
 */
#ifndef _TONIC_BPF_QUERY_H
#define _TONIC_BPF_QUERY_H

#include "engine.h"

/**
 * tonic_q_mark_rtx() - ask the engine to mark [@start, @end) for retransmission
 * @c: flow context
 * @start: first segment
 * @end: one past the last
 *
 * A second call in the same hook widens the range to cover both.  The
 * engine clips the range to the segments sent and not yet acked, and skips
 * selectively acked ones.
 */
static inline void tonic_q_mark_rtx(struct tonic_flow_ctx *c, u32 start, u32 end)
{
	if (!tonic_seq_before(start, end))
		return;
	if (c->out.flags & TONIC_OUT_RTX) {
		if (tonic_seq_before(c->out.rtx_start, start))
			start = c->out.rtx_start;
		if (tonic_seq_after(c->out.rtx_end, end))
			end = c->out.rtx_end;
	}
	c->out.flags |= TONIC_OUT_RTX;
	c->out.rtx_start = start;
	c->out.rtx_end = end;
}

#endif /* _TONIC_BPF_QUERY_H */
