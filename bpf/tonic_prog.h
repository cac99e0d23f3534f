/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tonic_prog.h - write a Tonic protocol program once, build it two ways.
 *
 * BPF (clang -target bpf, __bpf__ defined): the hooks become struct_ops
 * programs of struct tonic_ops (kmod/progs/bpf_ops.h), the bitmap queries become
 * the bpf_tonic_* kfuncs, parameters become const volatile rodata that a
 * loader may set before load, and TONIC_PROTO() emits the struct_ops map.
 *
 * Native (the userspace engine tests and the simulator): the hooks become
 * plain C functions, the queries the engine's tonic_ctx_*(), parameters
 * plain globals the tests may change, and TONIC_PROTO() emits
 * "const struct tonic_proto_ops tonic_prog_<name>".
 *
 * A program:
 *
 *	#include "tonic_prog.h"
 *	TONIC_PARAM_U32(reno_dupthresh, 3);	// RFC 5681 §3.2
 *	struct reno { u32 ssthresh; ... };	// <= TONIC_USER_BYTES
 *	TONIC_INIT(reno, fl, user) { struct reno *st = TONIC_STATE(user, struct reno); ... return 0; }
 *	TONIC_INCOMING(reno, fl, user) { ... }
 *	TONIC_PERIODIC(reno, fl, user) { ... }
 *	TONIC_PROTO(reno, TONIC_CREDIT_WINDOW, TONIC_SIG_ACK, struct reno,
 *		    TONIC_MERGE_INCOMING_WINS, 0);
 *
 * Rules that keep both builds equal (and the verifier happy): no function
 * pointers, no writable globals (per-flow state lives in the user area),
 * loops with a constant bound, integer arithmetic only (fixed point, no
 * signed division), and writes only to fl->out (through the tonic_set_*()
 * helpers below) and to the user state.  See Documentation/programs.md.
 */
#ifndef _TONIC_PROG_H
#define _TONIC_PROG_H

#ifdef __bpf__

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * The engine's constants (TONIC_CTRL_*, TONIC_CF_*, TONIC_OUT_*,
 * TONIC_SIG_*, TONIC_USER_BYTES) are enums of tonic.ko and come with its
 * BTF in vmlinux.h.
 */

extern bool bpf_tonic_is_acked(struct tonic_flow_ctx *fl, u32 seg) __ksym;
extern bool bpf_tonic_is_marked(struct tonic_flow_ctx *fl, u32 seg) __ksym;
extern u32 bpf_tonic_first_acked(struct tonic_flow_ctx *fl, u32 from) __ksym;
extern u32 bpf_tonic_first_unacked(struct tonic_flow_ctx *fl, u32 from) __ksym;
extern u32 bpf_tonic_count_acked(struct tonic_flow_ctx *fl, u32 from,
				 u32 to) __ksym;
extern void bpf_tonic_mark_rtx(struct tonic_flow_ctx *fl, u32 start,
			       u32 end) __ksym;

#define tonic_is_acked(fl, s)		bpf_tonic_is_acked(fl, s)
#define tonic_is_marked(fl, s)		bpf_tonic_is_marked(fl, s)
#define tonic_first_acked(fl, s)	bpf_tonic_first_acked(fl, s)
#define tonic_first_unacked(fl, s)	bpf_tonic_first_unacked(fl, s)
#define tonic_count_acked(fl, a, b)	bpf_tonic_count_acked(fl, a, b)
#define tonic_mark_rtx(fl, a, b)	bpf_tonic_mark_rtx(fl, a, b)

/* rodata a loader may set before load (tonic prog load FILE VAR=VALUE) */
#define TONIC_PARAM_U32(name, val)	const volatile u32 name = (val)
#define TONIC_PARAM_U64(name, val)	const volatile u64 name = (val)

#define TONIC_INIT(p, fl, u)						\
	SEC("struct_ops/" #p "_init")					\
	int BPF_PROG(p##_init, struct tonic_flow_ctx *fl, struct tonic_user *u)
#define TONIC_INCOMING(p, fl, u)					\
	SEC("struct_ops/" #p "_incoming")				\
	void BPF_PROG(p##_incoming, struct tonic_flow_ctx *fl,		\
		      struct tonic_user *u)
#define TONIC_PERIODIC(p, fl, u)					\
	SEC("struct_ops/" #p "_periodic")				\
	void BPF_PROG(p##_periodic, struct tonic_flow_ctx *fl,		\
		      struct tonic_user *u)

#define TONIC_PROTO(p, sch, sig, state, prio, per_ns)			\
	_Static_assert(sizeof(state) <= TONIC_USER_BYTES,		\
		       #p ": state too big");				\
	SEC(".struct_ops.link")						\
	struct tonic_ops p##_ops = {					\
		.init = (void *)p##_init,				\
		.incoming = (void *)p##_incoming,			\
		.periodic = (void *)p##_periodic,			\
		.scheme = (sch),					\
		.signals = (sig),					\
		.user_size = sizeof(state),				\
		.merge_prio = (prio),					\
		.periodic_ns = (per_ns),				\
		.name = #p,						\
	};								\
	char _license[] SEC("license") = "GPL"

static __always_inline bool tonic_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static __always_inline bool tonic_seq_after(u32 a, u32 b)
{
	return (s32)(b - a) < 0;
}

#else /* native */

#include "engine.h"
#include "bpf_query.h"
#include "bpf_user.h"
#include <linux/tonic.h>

#define tonic_is_acked(fl, s)		tonic_ctx_is_acked(fl, s)
#define tonic_is_marked(fl, s)		tonic_ctx_is_marked(fl, s)
#define tonic_first_acked(fl, s)	tonic_ctx_first_acked(fl, s)
#define tonic_first_unacked(fl, s)	tonic_ctx_first_unacked(fl, s)
#define tonic_count_acked(fl, a, b)	tonic_ctx_count_acked(fl, a, b)
#define tonic_mark_rtx(fl, a, b)	tonic_q_mark_rtx(fl, a, b)

#ifndef __always_inline
#define __always_inline	inline
#endif

/* plain globals the tests and the simulator may change */
#define TONIC_PARAM_U32(name, val)	u32 name = (val)
#define TONIC_PARAM_U64(name, val)	u64 name = (val)

/* natively @u is a void *: programs only use it through TONIC_STATE() */
#define TONIC_INIT(p, fl, u)						\
	static int p##_init(struct tonic_flow_ctx *fl, void *u)
#define TONIC_INCOMING(p, fl, u)					\
	static void p##_incoming(struct tonic_flow_ctx *fl, void *u)
#define TONIC_PERIODIC(p, fl, u)					\
	static void p##_periodic(struct tonic_flow_ctx *fl, void *u)

#define TONIC_PROTO(p, sch, sig, state, prio, per_ns)			\
	_Static_assert(sizeof(state) <= TONIC_USER_BYTES,		\
		       #p ": state too big");				\
	const u32 tonic_prog_##p##_signals = (sig);			\
	const struct tonic_proto_ops tonic_prog_##p = {			\
		.name = #p,						\
		.scheme = (sch),					\
		.merge_prio = (prio),					\
		.user_size = sizeof(state),				\
		.periodic_ns = (per_ns),				\
		.init = p##_init,					\
		.incoming = p##_incoming,				\
		.periodic = p##_periodic,				\
	}

#endif /* __bpf__ */

/* The program's state in the user area. */
#define TONIC_STATE(u, type)	((type *)(void *)(u))

#define tonic_min(a, b)		((a) < (b) ? (a) : (b))
#define tonic_max(a, b)		((a) > (b) ? (a) : (b))

/* Segments sent and not cumulatively acked. */
static __always_inline u32 tonic_flight(const struct tonic_flow_ctx *fl)
{
	return fl->next_new - fl->wnd_start;
}

/* Cumulative progress of this event. */
static __always_inline u32 tonic_cum_acked(const struct tonic_flow_ctx *fl)
{
	return fl->wnd_start - fl->old_wnd_start;
}

/*
 * An ACK that moved nothing while data is in flight (RFC 5681 §2) and
 * does not just report a duplicate segment (no news of a hole).
 */
static __always_inline bool tonic_is_dupack(const struct tonic_flow_ctx *fl)
{
	return (fl->ev.flags & (TONIC_CF_CUMACK | TONIC_CF_DUP)) ==
	       TONIC_CF_CUMACK &&
	       fl->wnd_start == fl->old_wnd_start &&
	       fl->next_new != fl->wnd_start;
}

/*
 * RFC 5681 §3.1: slow start below @ssthresh (cwnd += acked, up to
 * ssthresh), else congestion avoidance: one segment per cwnd acked,
 * counted in *@cnt.  Returns the new cwnd.
 */
static __always_inline u32 tonic_reno_grow(u32 cwnd, u32 ssthresh, u32 acked,
					   u32 *cnt)
{
	if (cwnd < ssthresh)
		return tonic_min(cwnd + acked, ssthresh);
	*cnt += acked;
	if (*cnt >= cwnd) {
		*cnt -= cwnd;
		cwnd++;
	}
	return cwnd;
}

/*
 * Go-back-N after a timeout, by marking (Tonic never moves next_new back):
 * resend from *@next up to wnd_start + @cwnd, never past @recover, and
 * remember where it stopped.  The engine skips selectively acked ones.
 */
static __always_inline void tonic_gbn_mark(struct tonic_flow_ctx *fl,
					   u32 *next, u32 cwnd, u32 recover)
{
	u32 end = fl->wnd_start + tonic_min(cwnd, fl->wnd_max);

	if (tonic_seq_before(*next, fl->wnd_start))
		*next = fl->wnd_start;
	if (tonic_seq_after(end, recover))
		end = recover;
	if (tonic_seq_before(*next, end)) {
		tonic_mark_rtx(fl, *next, end);
		*next = end;
	}
}

static __always_inline void tonic_set_wnd(struct tonic_flow_ctx *fl, u32 wnd)
{
	fl->out.flags |= TONIC_OUT_WND;
	fl->out.wnd = wnd;
}

static __always_inline void tonic_set_rate(struct tonic_flow_ctx *fl, u64 bps)
{
	fl->out.flags |= TONIC_OUT_RATE;
	fl->out.rate_bps = bps;
}

/*
 * Ask for an ACK every @n new segments (1..64; the engine also asks on the
 * segment that fills the window) instead of the receiver's default
 * (net.tonic.delack_segs, 2); 0 returns to that default.  Set it in init,
 * change it in any hook.
 */
static __always_inline void tonic_set_ack_ratio(struct tonic_flow_ctx *fl,
						u32 n)
{
	fl->out.flags |= TONIC_OUT_ACK_RATIO;
	fl->out.ack_ratio = n;
}

/*
 * tonic_set_ack_ratio(@ratio), lowered to @cwnd / @per_wnd (at least 2, a
 * receiver's default) so that a window cut by losses still gets @per_wnd
 * ACKs and is clocked by them; @per_wnd 0 keeps @ratio.  Only a change is
 * handed to the engine.
 */
static __always_inline void tonic_set_ack_ratio_wnd(struct tonic_flow_ctx *fl,
						    u32 ratio, u32 per_wnd,
						    u32 cwnd)
{
	if (ratio && per_wnd)
		ratio = tonic_min(ratio, tonic_max(cwnd / per_wnd, 2U));
	if (ratio != fl->ack_ratio)
		tonic_set_ack_ratio(fl, ratio);
}

/* (Re)arm the retransmission timer @ns from now. */
static __always_inline void tonic_set_timer(struct tonic_flow_ctx *fl, u64 ns)
{
	fl->out.flags = (fl->out.flags | TONIC_OUT_TIMER) & ~TONIC_OUT_PROBE;
	fl->out.timer_ns = ns;
}

/*
 * Arm the timer early, @ns from now (>= fl->probe_min_ns), for the
 * program's own deadline: the periodic hook sees TONIC_TIMEOUT_PROBE.
 */
static __always_inline void tonic_set_probe_timer(struct tonic_flow_ctx *fl,
						  u64 ns)
{
	fl->out.flags |= TONIC_OUT_TIMER | TONIC_OUT_PROBE;
	fl->out.timer_ns = ns;
}

static __always_inline void tonic_stop_timer(struct tonic_flow_ctx *fl)
{
	fl->out.flags |= TONIC_OUT_TIMER_STOP;
}

/*
 * RFC 6298 retransmission timer, for the programs that want one.  Samples
 * come with the event (TONIC_CF_RTT; the socket applies Karn's rule).
 */
struct tonic_rtt {
	u64 srtt_ns;		/* 0 until the first sample */
	u64 rttvar_ns;
	u64 rto_ns;		/* SRTT + 4 RTTVAR, or backed off; the
				 * floor is applied when it is armed
				 */
	u64 base_ns;		/* the flow's initial timeout */
};

static __always_inline u64 tonic_rto_clamp(const struct tonic_flow_ctx *fl, u64 rto)
{
	return tonic_min(tonic_max(rto, fl->rto_min_ns), fl->rto_max_ns);
}

static __always_inline void tonic_rtt_init(struct tonic_rtt *r,
				 const struct tonic_flow_ctx *fl)
{
	r->rto_ns = fl->rto_ns;
	r->base_ns = fl->rto_ns;
}

/* RFC 6298 §2.2-2.4: alpha = 1/8, beta = 1/4, RTO = SRTT + 4 RTTVAR. */
static __always_inline void tonic_rtt_sample(struct tonic_rtt *r,
				   const struct tonic_flow_ctx *fl)
{
	u64 m = fl->ev.rtt_ns, err;

	if (!(fl->ev.flags & TONIC_CF_RTT) || !m)
		return;
	if (!r->srtt_ns) {
		r->srtt_ns = m;
		r->rttvar_ns = m / 2;
	} else {
		err = r->srtt_ns > m ? r->srtt_ns - m : m - r->srtt_ns;
		r->rttvar_ns = (3 * r->rttvar_ns + err) / 4;
		r->srtt_ns = (7 * r->srtt_ns + m) / 8;
	}
	r->rto_ns = tonic_min(r->srtt_ns + tonic_max(4 * r->rttvar_ns, 1ULL),
			      fl->rto_max_ns);
}

/*
 * Arm the timer with the current timeout, clamped now: the lowest timeout
 * allowed depends on the flight (rto_low while few segments are out).
 */
static __always_inline void tonic_set_rto(struct tonic_flow_ctx *fl,
					  const struct tonic_rtt *r)
{
	tonic_set_timer(fl, tonic_rto_clamp(fl, r->rto_ns));
}

/* RFC 6298 §5.5: back off: twice the timeout that fired, floor included. */
static __always_inline void tonic_rtt_backoff(struct tonic_rtt *r,
				    const struct tonic_flow_ctx *fl)
{
	r->rto_ns = tonic_rto_clamp(fl, 2 * tonic_rto_clamp(fl, r->rto_ns));
}

#endif /* _TONIC_PROG_H */
