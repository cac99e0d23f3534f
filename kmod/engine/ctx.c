// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the protocol-hook boundary.
 *
 * Builds the read-only view of a flow a hook gets (struct tonic_flow_ctx),
 * validates and clamps everything the hook asks for, and implements the
 * read-only bitmap queries a hook may call on its copy.  Program output
 * is never trusted, so that no program can corrupt the engine: a
 * retransmission range is clipped to the segments sent and not yet
 * cumulatively acked, a window to [1, K], a rate and a timeout to the
 * flow's bounds, an ACK ratio to [0, TONIC_MAX_ACK_RATIO].  Each clip
 * counts as one violation.  Falling back to
 * the built-in protocol after repeated violations is the BPF glue's
 * decision, not ours.
 */
#include "flow.h"

#define TONIC_OUT_ALL	(TONIC_OUT_RTX | TONIC_OUT_WND | TONIC_OUT_RATE | \
			 TONIC_OUT_TIMER | TONIC_OUT_TIMER_STOP | \
			 TONIC_OUT_PROBE | TONIC_OUT_ACK_RATIO)

static u64 ctx_clamp(u64 v, u64 lo, u64 hi, u32 *bad)
{
	if (v < lo) {
		(*bad)++;
		return lo;
	}
	if (v > hi) {
		(*bad)++;
		return hi;
	}
	return v;
}

/* Mark [start, end) after clipping it to [wnd_start, next_new). */
static u32 ctx_apply_rtx(struct tonic_flow *f, u32 start, u32 end, u32 *bad)
{
	s32 lo = (s32)(start - f->wnd_start);
	s32 hi = (s32)(end - f->wnd_start);
	s32 inflight = (s32)(f->next_new - f->wnd_start);

	if (hi < lo) {
		(*bad)++;
		return 0;
	}
	if (lo < 0) {
		(*bad)++;
		lo = 0;
	}
	if (hi > inflight) {
		(*bad)++;
		hi = inflight;
	}
	if (hi <= lo)
		return 0;
	return tonic_dd_mark(f, f->wnd_start + lo, hi - lo);
}

static void ctx_apply_rate(struct tonic_flow *f, u64 bps, u64 now, u32 *bad)
{
	bps = ctx_clamp(bps, f->rate_min_bps, f->rate_max_bps, bad);
	if (f->scheme == TONIC_CREDIT_RATE)
		tonic_cr_accrue(f, now);	/* credit so far at the old rate */
	tonic_cr_set_rate(f, bps);
}

/**
 * tonic_ctx_apply() - carry out a hook's validated outputs
 * @eng: engine (violation counter, timers)
 * @f: flow
 * @c: the context the hook filled in
 * @now: time in ns
 *
 * Return: segments newly marked for retransmission.
 */
u32 tonic_ctx_apply(struct tonic_engine *eng, struct tonic_flow *f,
		    const struct tonic_flow_ctx *c, u64 now)
{
	const struct tonic_hook_out *o = &c->out;
	u32 bad = 0, marked = 0;

	if (o->flags & ~TONIC_OUT_ALL)
		bad++;
	if (o->flags & TONIC_OUT_WND)
		f->wnd = (u16)ctx_clamp(o->wnd, 1, f->k, &bad);
	if (o->flags & TONIC_OUT_RATE)
		ctx_apply_rate(f, o->rate_bps, now, &bad);
	if (o->flags & TONIC_OUT_RTX)
		marked = ctx_apply_rtx(f, o->rtx_start, o->rtx_end, &bad);
	if (o->flags & TONIC_OUT_ACK_RATIO) {
		f->ack_ratio = (u8)ctx_clamp(o->ack_ratio, 0,
					     TONIC_MAX_ACK_RATIO, &bad);
		if (f->ack_ratio)
			f->flags |= TF_ACKFREQ;
		else
			f->flags &= ~TF_ACKFREQ;
	}
	if (o->flags & TONIC_OUT_TIMER_STOP)
		f->flags &= ~(TF_RTO | TF_PROBE);
	if ((o->flags & (TONIC_OUT_TIMER | TONIC_OUT_PROBE)) ==
	    (TONIC_OUT_TIMER | TONIC_OUT_PROBE)) {
		/* early: leaves the engine's own timeout (rto_ns) alone */
		tonic_dd_arm_rto(eng, f, now + ctx_clamp(o->timer_ns,
							 c->probe_min_ns,
							 f->rto_max_ns, &bad));
		f->flags |= TF_PROBE;
	} else if (o->flags & TONIC_OUT_TIMER) {
		f->rto_ns = ctx_clamp(o->timer_ns, c->rto_min_ns,
				      f->rto_max_ns, &bad);
		tonic_dd_arm_rto(eng, f, now + f->rto_ns);
	}
	if (bad) {
		f->violations += bad;
		eng->st.violations += bad;
	}
	return marked;
}

/* Position of @seg relative to the window, or -1 outside [start, next). */
static s32 ctx_off(const struct tonic_flow_ctx *c, u32 seg)
{
	s32 off = (s32)(seg - c->wnd_start);

	if (off < 0 || off >= (s32)(c->next_new - c->wnd_start))
		return -1;
	return off;
}

/**
 * tonic_ctx_is_acked() - was @seg acked (cumulatively or selectively)?
 * @ctx: hook context
 * @seg: segment
 */
bool tonic_ctx_is_acked(const struct tonic_flow_ctx *ctx, u32 seg)
{
	if (tonic_seq_before(seg, ctx->wnd_start))
		return true;
	if (ctx_off(ctx, seg) < 0)
		return false;
	return tb_test(ctx->acked, seg & (ctx->wnd_max - 1));
}

/**
 * tonic_ctx_is_marked() - is @seg marked for retransmission?
 * @ctx: hook context
 * @seg: segment
 */
bool tonic_ctx_is_marked(const struct tonic_flow_ctx *ctx, u32 seg)
{
	if (ctx_off(ctx, seg) < 0)
		return false;
	return tb_test(ctx->rtx, seg & (ctx->wnd_max - 1));
}

/* First segment in [from, next_new) whose acked bit equals @want. */
static u32 ctx_find(const struct tonic_flow_ctx *ctx, u32 from, bool want)
{
	u32 k = ctx->wnd_max, end = ctx->next_new, i, n, r;
	u64 map[TB_WORDS];

	if (tonic_seq_before(from, ctx->wnd_start))
		from = ctx->wnd_start;
	if (!tonic_seq_before(from, end))
		return end;
	for (i = 0; i < TB_WORDS; i++)
		map[i] = want ? ctx->acked[i] : ~ctx->acked[i];
	n = end - from;
	i = from & (k - 1);
	/* search [i, min(i + n, k)), then the wrapped part [0, rest) */
	r = tb_ffs_lin(map, i, min(i + n, k));
	if (r < min(i + n, k))
		return from + (r - i);
	if (i + n > k) {
		r = tb_ffs_lin(map, 0, i + n - k);
		if (r < i + n - k)
			return from + (k - i) + r;
	}
	return end;
}

/**
 * tonic_ctx_first_acked() - first selectively acked segment >= @from
 * @ctx: hook context
 * @from: where to start (clipped to wnd_start)
 *
 * Return: the segment, or next_new if none is in [from, next_new).
 */
u32 tonic_ctx_first_acked(const struct tonic_flow_ctx *ctx, u32 from)
{
	return ctx_find(ctx, from, true);
}

/**
 * tonic_ctx_first_unacked() - first unacked segment >= @from
 * @ctx: hook context
 * @from: where to start (clipped to wnd_start)
 *
 * Return: the segment, or next_new if all of [from, next_new) is acked.
 */
u32 tonic_ctx_first_unacked(const struct tonic_flow_ctx *ctx, u32 from)
{
	return ctx_find(ctx, from, false);
}

/**
 * tonic_ctx_count_acked() - selectively acked segments in [@from, @to)
 * @ctx: hook context
 * @from: first segment (clipped to wnd_start)
 * @to: end (clipped to next_new)
 */
u32 tonic_ctx_count_acked(const struct tonic_flow_ctx *ctx, u32 from, u32 to)
{
	if (tonic_seq_before(from, ctx->wnd_start))
		from = ctx->wnd_start;
	if (tonic_seq_after(to, ctx->next_new))
		to = ctx->next_new;
	if (!tonic_seq_before(from, to))
		return 0;
	return tb_count(ctx->acked, ctx->wnd_max, from & (ctx->wnd_max - 1),
			to - from);
}
