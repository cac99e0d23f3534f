/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic transport-logic engine: the offload boundary.
 *
 * This is the API a hardware (FPGA/NIC) backend would implement as well as
 * the in-kernel software engine.  It is message-shaped: the caller hands in
 * descriptors (flow parameters, segment announcements, control events) and
 * takes descriptors out (segment addresses to transmit, notifications that
 * the send buffer head may advance or that a sub-segment was delivered).
 * The engine never touches payload bytes.
 *
 * Time: every call that may depend on time takes @now in nanoseconds from
 * the caller's clock (monotonic, never going backwards).
 *
 * One "step" (Tonic §3.4) is everything the caller hands in
 * with the same @now: control events delivered with tonic_engine_ctrl()
 * and the timer work run by tonic_engine_timers() at that @now.  The merge
 * rules are applied per step, see Documentation/engine.md.
 *
 * Context: an engine instance is not thread-safe.  The caller serialises
 * every call on one instance (in tonic.ko: one instance per socket, every
 * call under that socket's lock).  No call sleeps; tonic_engine_create()
 * and tonic_engine_flow_add() may allocate memory.
 */
#ifndef _TONIC_ENGINE_H
#define _TONIC_ENGINE_H

#include "tonic_env.h"

/* Limits of the fixed part (Tonic §3.2, §6). */
#define TONIC_MAX_WND_SEGS	256	/* K: bitmap size, power of two */
#define TONIC_DEF_WND_SEGS	128	/* Tonic's default K */
#define TONIC_MAX_RING		16	/* N: addresses per flow in the credit engine */
#define TONIC_DEF_RING		4
#define TONIC_MAX_USER_BYTES	512	/* per-flow protocol state */
#define TONIC_MIN_RATE_BPS	100000ULL		/* 100 kb/s */
#define TONIC_MAX_RATE_BPS	1600000000000ULL	/* 1.6 Tb/s */
#define TONIC_MAX_BURST_BYTES	(16U << 20)
#define TONIC_MAX_ACK_RATIO	64	/* segments per ACK a protocol may ask for */

/* Default retransmission-timer parameters (RFC 6298 §2; Linux TCP_RTO_MIN). */
#define TONIC_DEF_RTO_INIT_NS	1000000000ULL	/* 1 s */
#define TONIC_DEF_RTO_MIN_NS	200000000ULL	/* 200 ms */
#define TONIC_DEF_RTO_MAX_NS	120000000000ULL	/* 120 s */

/**
 * enum tonic_credit_scheme - how the credit engine limits a flow (§3.3)
 * @TONIC_CREDIT_DEFAULT: use the protocol's scheme (flow parameters only)
 * @TONIC_CREDIT_WINDOW: congestion window only (no credit limit)
 * @TONIC_CREDIT_RATE: rate with maximum burst (token bucket)
 * @TONIC_CREDIT_GRANT: tokens granted by the receiver
 */
enum tonic_credit_scheme {
	TONIC_CREDIT_DEFAULT = 0,
	TONIC_CREDIT_WINDOW,
	TONIC_CREDIT_RATE,
	TONIC_CREDIT_GRANT,
};

/**
 * enum tonic_merge_prio - who wins user-state writes within one step
 * @TONIC_MERGE_PERIODIC_WINS: periodic runs after incoming on its output
 * @TONIC_MERGE_INCOMING_WINS: periodic's user-state writes are discarded
 *	when incoming ran for the same flow in the same step (its window,
 *	rate, timer and retransmission outputs still apply)
 */
enum tonic_merge_prio {
	TONIC_MERGE_PERIODIC_WINS = 0,
	TONIC_MERGE_INCOMING_WINS,
};

/* Control event types: the receiver signals of kmod/wire.h. */
enum tonic_ctrl_type {
	TONIC_CTRL_ACK = 1,	/* cumulative ack, optional selective ack */
	TONIC_CTRL_NACK,	/* cumulative ack + the segment reported missing */
	TONIC_CTRL_GRANT,	/* receiver grants credit (NDP PULL) */
	TONIC_CTRL_CNP,		/* congestion notification (DCQCN) */
};

/**
 * enum tonic_ctrl_flag - which fields of struct tonic_ctrl_desc are valid
 * @TONIC_CF_CUMACK: @cumack
 * @TONIC_CF_SACK: @sack
 * @TONIC_CF_NACK: @nack
 * @TONIC_CF_GRANT: @grant
 * @TONIC_CF_ECE: the packet carried an ECN echo
 * @TONIC_CF_RTT: @rtt_ns
 * @TONIC_CF_DUP: @sack arrived again (a DSACK)
 *
 * Enums rather than macros (like the others of this file) so that BPF
 * programs get them from the module's BTF (kmod/progs/bpf_ops.c emits them).
 */
enum tonic_ctrl_flag {
	TONIC_CF_CUMACK		= 0x01,
	TONIC_CF_SACK		= 0x02,
	TONIC_CF_NACK		= 0x04,
	TONIC_CF_GRANT		= 0x08,
	TONIC_CF_ECE		= 0x10,
	TONIC_CF_RTT		= 0x20,
	TONIC_CF_DUP		= 0x40,
};

/**
 * struct tonic_ctrl_desc - one incoming control event
 * @flow_id: flow it is for
 * @type: enum tonic_ctrl_type
 * @flags: TONIC_CF_* bits saying which fields are valid
 * @cumack: next expected segment (all segments before it were received)
 * @sack: a segment received out of order (one-entry SACK); with
 *	TONIC_CF_DUP, a segment the receiver got twice
 * @nack: the segment reported missing (NACK)
 * @grant: bytes of credit granted
 * @rtt_ns: an RTT sample measured by the caller (Karn's rule is its job)
 * @reserved: zero (padding the layout explicitly)
 */
struct tonic_ctrl_desc {
	u32 flow_id;
	u8 type;
	u8 flags;
	u16 reserved;
	u32 cumack;
	u32 sack;
	u32 nack;
	u32 grant;
	u64 rtt_ns;
};

/**
 * enum tonic_seg_flag - struct tonic_seg_desc.flags
 * @TONIC_SEG_ACKREQ: ask the receiver for an ACK now: the flow's ACK
 *	ratio is reached, or this segment fills its window or uses up its
 *	grant (only for a flow whose protocol set an ACK ratio)
 * @TONIC_SEG_ACKFREQ: the flow's protocol set an ACK ratio: the
 *	receiver may hold its ACK until a TONIC_SEG_ACKREQ segment, up to
 *	its own cap (the wire's TONIC_F_ACKFREQ)
 */
enum tonic_seg_flag {
	TONIC_SEG_ACKREQ	= 0x01,
	TONIC_SEG_ACKFREQ	= 0x02,
};

/**
 * struct tonic_seg_desc - one segment address for the DMA pipeline
 * @flow_id: flow
 * @seg: segment index (serial number, wraps at 2^32)
 * @len: bytes (C, or the sub-segment length for the final sub-segment)
 * @rtx: 1 if this is a retransmission
 * @rtx_cnt: saturating count of earlier transmissions (0..3)
 * @flags: TONIC_SEG_* bits
 * @reserved: zero (padding the layout explicitly)
 */
struct tonic_seg_desc {
	u32 flow_id;
	u32 seg;
	u32 len;
	u8 rtx;
	u8 rtx_cnt;
	u8 flags;
	u8 reserved;
};

#define TONIC_NOTIFY_HEAD	0x1	/* cumulative ack moved: @head is new */
#define TONIC_NOTIFY_SUBSEG	0x2	/* the sub-segment was delivered */

/**
 * struct tonic_notify_desc - news for the socket layer (coalesced per flow)
 * @flow_id: flow
 * @flags: TONIC_NOTIFY_* bits
 * @head: every segment before @head is cumulatively acked; the socket may
 *	free their bytes and advance its head pointer
 */
struct tonic_notify_desc {
	u32 flow_id;
	u32 flags;
	u32 head;
};

struct tonic_proto_ops;

/**
 * struct tonic_flow_params - everything tonic_engine_flow_add() needs
 * @flow_id: any u32 not in use in this engine
 * @seg_size: C in bytes (1..TONIC_MAX_SEGMENT_BYTES)
 * @wnd_max: K, a power of two in [1, TONIC_MAX_WND_SEGS]; 0 = default 128
 * @ring_size: N in [1, TONIC_MAX_RING]; 0 = TONIC_DEF_RING
 * @scheme: enum tonic_credit_scheme; DEFAULT = the protocol's
 * @init_wnd: initial window in segments; 0 = protocol decides (else K)
 * @init_seq: first segment index
 * @init_rate_bps: initial rate in bits per second (rate scheme)
 * @rate_min_bps: lowest rate a protocol may set; 0 = TONIC_MIN_RATE_BPS
 * @rate_max_bps: highest rate a protocol may set; 0 = TONIC_MAX_RATE_BPS
 * @burst_bytes: D for the rate scheme; 0 = 2 segments
 * @init_tokens: initial credit in bytes (grant scheme)
 * @rto_init_ns: first retransmission timeout; 0 = TONIC_DEF_RTO_INIT_NS
 * @rto_min_ns: lowest timeout a protocol may set; 0 = TONIC_DEF_RTO_MIN_NS
 * @rto_max_ns: highest timeout a protocol may set; 0 = TONIC_DEF_RTO_MAX_NS
 * @rto_low_ns: lowest timeout while at most @rto_low_segs segments are
 *	outstanding (sent, not acked; IRN's RTO_low: too few for duplicate
 *	acks to find a loss); a window that small asks for every ACK at
 *	once; capped at @rto_min_ns
 * @rto_low_segs: IRN's N; 0 = no low timeout, @rto_min_ns always applies
 * @ops: protocol; NULL = the built-in NewReno (tonic_newreno_ops)
 * @reserved: zero (padding the layout explicitly)
 */
struct tonic_flow_params {
	u32 flow_id;
	u32 seg_size;
	u16 wnd_max;
	u8 ring_size;
	u8 scheme;
	u32 init_wnd;
	u32 init_seq;
	u64 init_rate_bps;
	u64 rate_min_bps;
	u64 rate_max_bps;
	u32 burst_bytes;
	u32 init_tokens;
	u64 rto_init_ns;
	u64 rto_min_ns;
	u64 rto_max_ns;
	u64 rto_low_ns;
	u32 rto_low_segs;
	u32 reserved;
	const struct tonic_proto_ops *ops;
};

#define TONIC_MAX_SEGMENT_BYTES	(1U << 20)

/**
 * enum tonic_out_flag - which fields of struct tonic_hook_out are meant
 * @TONIC_OUT_RTX: mark [rtx_start, rtx_end)
 * @TONIC_OUT_WND: set the window to wnd
 * @TONIC_OUT_RATE: set the rate to rate_bps
 * @TONIC_OUT_TIMER: (re)arm the rtx timer, timer_ns from now
 * @TONIC_OUT_TIMER_STOP: stop the rtx timer
 * @TONIC_OUT_PROBE: with TONIC_OUT_TIMER: an early timer (see struct
 *	tonic_hook_out)
 * @TONIC_OUT_ACK_RATIO: set the flow's ACK ratio to ack_ratio
 */
enum tonic_out_flag {
	TONIC_OUT_RTX		= 0x01,
	TONIC_OUT_WND		= 0x02,
	TONIC_OUT_RATE		= 0x04,
	TONIC_OUT_TIMER		= 0x08,
	TONIC_OUT_TIMER_STOP	= 0x10,
	TONIC_OUT_PROBE		= 0x20,
	TONIC_OUT_ACK_RATIO	= 0x40,
};

/**
 * enum tonic_timeout_kind - struct tonic_flow_ctx.timeout in the periodic hook
 * @TONIC_TIMEOUT_RTO: the retransmission timer expired
 * @TONIC_TIMEOUT_PROBE: an early (TONIC_OUT_PROBE) timer expired
 */
enum tonic_timeout_kind {
	TONIC_TIMEOUT_RTO	= 1,
	TONIC_TIMEOUT_PROBE	= 2,
};

/**
 * struct tonic_hook_out - what a protocol hook asks for
 * @flags: TONIC_OUT_* bits; unset bits leave the engine state alone
 * @rtx_start: first segment to mark for retransmission
 * @rtx_end: one past the last segment to mark
 * @wnd: new window in segments
 * @rate_bps: new rate in bits per second
 * @timer_ns: retransmission timeout from now
 * @ack_ratio: new segments per ACK the flow asks its receiver for
 *	(0 = the receiver's default, net.tonic.delack_segs)
 * @reserved: zero
 *
 * The engine validates everything: the range is clipped to the segments
 * sent and not yet cumulatively acked, the window to [1, K], the rate to
 * the flow's bounds, the timer to its RTO bounds and the ACK ratio to
 * [0, TONIC_MAX_ACK_RATIO].  Each clip counts as one violation in the
 * flow's and the engine's counters.
 *
 * The ACK ratio (QUIC's ACK frequency, draft-ietf-quic-ack-frequency, in
 * Tonic's terms): with a ratio N the engine flags every N-th new segment,
 * the segment that fills the window and the one that uses up a grant
 * TONIC_SEG_ACKREQ, and every segment TONIC_SEG_ACKFREQ; the receiver
 * then holds plain in-order segments until an ACKREQ one, at most its cap
 * (net.tonic.delack_max) or the delayed-ACK timer.  A loss-recovery
 * logic that counts duplicate ACKs or clocks its window by ACKs keeps a
 * low ratio; one that detects losses by time may ask for a high one.
 *
 * TONIC_OUT_PROBE with TONIC_OUT_TIMER arms the flow's one timer early,
 * for a protocol's own deadline (a tail-loss probe, a reordering window):
 * @timer_ns may go down to the context's @probe_min_ns, the amount the
 * engine uses for its own re-arming (@rto_ns) is left alone, and the
 * expiry reaches the periodic hook as TONIC_TIMEOUT_PROBE, not counted as
 * a timeout.  Linux TCP multiplexes its retransmission timer the same way
 * (icsk_pending: ICSK_TIME_LOSS_PROBE, ICSK_TIME_REO_TIMEOUT).
 */
struct tonic_hook_out {
	u32 flags;
	u32 rtx_start;
	u32 rtx_end;
	u32 wnd;
	u64 rate_bps;
	u64 timer_ns;
	u32 ack_ratio;
	u32 reserved;
};

/**
 * struct tonic_flow_ctx - the view a protocol hook gets of one flow
 *
 * Every field except @out is a read-only copy made for this call; a hook
 * never gets a pointer into engine state.  The acked and marked bitmaps
 * are copies too and are read through tonic_ctx_*() below.  (For BPF this
 * is the struct_ops context: only @out and the user area are writable.)
 *
 * @flow_id: flow
 * @now: the step's time in ns
 * @ev: the control event (incoming only; zero for periodic)
 * @timeout: periodic only: TONIC_TIMEOUT_RTO if the retransmission timer
 *	expired, TONIC_TIMEOUT_PROBE if an early timer did, else 0
 * @newly_acked: segments newly acked by this event (cumulative + selective)
 * @old_wnd_start: window start before stage 1
 * @wnd_start: first unacked segment after stage 1
 * @next_new: the next never-sent segment (highest sent + 1)
 * @tail: one past the last announced segment
 * @wnd: current window in segments
 * @wnd_max: K
 * @seg_size: C in bytes
 * @marked: segments currently marked for retransmission
 * @ack_ratio: the flow's ACK ratio (0: the receiver's default; see
 *	struct tonic_hook_out)
 * @rate_bps: current rate
 * @rate_min_bps: lowest allowed rate
 * @rate_max_bps: highest allowed rate
 * @rto_ns: the timeout the engine uses when it arms the timer itself
 * @rto_min_ns: lowest allowed timeout now: the flow's rto_low_ns while
 *	at most rto_low_segs segments are outstanding, else its rto_min_ns
 * @rto_max_ns: highest allowed timeout
 * @probe_min_ns: lowest allowed early (TONIC_OUT_PROBE) timer: the flow's
 *	rto_low_ns
 * @acked: ring bitmap of selectively acked segments (bit = seg % K)
 * @rtx: ring bitmap of segments marked for retransmission
 * @out: the hook's outputs, zeroed before every call
 */
struct tonic_flow_ctx {
	u32 flow_id;
	u32 timeout;
	u64 now;
	struct tonic_ctrl_desc ev;
	u32 newly_acked;
	u32 old_wnd_start;
	u32 wnd_start;
	u32 next_new;
	u32 tail;
	u32 wnd;
	u32 wnd_max;
	u32 seg_size;
	u32 marked;
	u32 ack_ratio;
	u64 rate_bps;
	u64 rate_min_bps;
	u64 rate_max_bps;
	u64 rto_ns;
	u64 rto_min_ns;
	u64 rto_max_ns;
	u64 probe_min_ns;
	u64 acked[TONIC_MAX_WND_SEGS / 64];
	u64 rtx[TONIC_MAX_WND_SEGS / 64];
	struct tonic_hook_out out;
};

/**
 * struct tonic_proto_ops - a transport protocol's programmable part
 * @name: short name ("newreno")
 * @scheme: enum tonic_credit_scheme the protocol uses
 * @merge_prio: enum tonic_merge_prio for its user state
 * @user_size: bytes of per-flow user state (<= TONIC_MAX_USER_BYTES); the
 *	engine allocates exactly this much per flow, zeroed
 * @periodic_ns: call @periodic every this many ns while the flow has data
 *	in flight; 0 = only when the retransmission timer expires
 *
 * @init: set up the user state of a new flow.  @ctx->out may set the
 *	initial window, rate and timer.  Optional.  A non-zero return fails
 *	tonic_engine_flow_add().
 *
 * @incoming: stage 2 of control-event processing (§3.2.3).  Runs after
 *	the fixed stage 1 moved @ctx->wnd_start to the cumulative ack and set
 *	the selectively acked bit.  May mark a range for retransmission, set
 *	window/rate and re-arm or stop the timer through @ctx->out.
 *	Required.
 *
 * @periodic: timer work.  Called with @ctx->timeout = 1 when the
 *	retransmission timer expired (a timeout for the flow), and with 0
 *	every @periodic_ns.  Same outputs as @incoming.  Without
 *	TONIC_OUT_TIMER the engine re-arms an expired timer with
 *	@ctx->rto_ns so a flow can never wedge.  Required.
 *
 * @release: the flow is being removed.  Optional.
 *
 * Context: called from engine calls, under the caller's serialisation; a
 * hook must not sleep nor call back into the engine.  @user is the
 * flow's user state (@user_size bytes).
 */
struct tonic_proto_ops {
	const char *name;
	u8 scheme;
	u8 merge_prio;
	u16 user_size;
	u64 periodic_ns;
	int (*init)(struct tonic_flow_ctx *ctx, void *user);
	void (*incoming)(struct tonic_flow_ctx *ctx, void *user);
	void (*periodic)(struct tonic_flow_ctx *ctx, void *user);
	void (*release)(struct tonic_flow_ctx *ctx, void *user);
};

/* The built-in default protocol (newreno.c). */
extern const struct tonic_proto_ops tonic_newreno_ops;
/*
 * The receiver signals (TONIC_SIG_* of <linux/tonic.h>) the built-in asks
 * for; sockets always had them (the netem selftests count its NACKs, ECN
 * echoes and CNPs).
 */
#define TONIC_NEWRENO_SIGNALS	(TONIC_SIG_ACK | TONIC_SIG_NACK | \
				 TONIC_SIG_CNP | TONIC_SIG_ECE)

/**
 * struct tonic_newreno_params - NewReno knobs (defaults in brackets)
 * @dupthresh: duplicate acks that trigger fast retransmit [3]
 * @init_cwnd: initial window in segments when the flow gives none [10]
 * @ack_ratio: segments per ACK asked of the receiver (struct
 *	tonic_hook_out); 0 = the receiver's default [0]
 */
struct tonic_newreno_params {
	u32 dupthresh;
	u32 init_cwnd;
	u32 ack_ratio;
};

extern struct tonic_newreno_params tonic_newreno_params;

/* Read-only bitmap queries a hook may use (bitmap copies in the ctx). */
bool tonic_ctx_is_acked(const struct tonic_flow_ctx *ctx, u32 seg);
bool tonic_ctx_is_marked(const struct tonic_flow_ctx *ctx, u32 seg);
u32 tonic_ctx_first_acked(const struct tonic_flow_ctx *ctx, u32 from);
u32 tonic_ctx_first_unacked(const struct tonic_flow_ctx *ctx, u32 from);
u32 tonic_ctx_count_acked(const struct tonic_flow_ctx *ctx, u32 from,
			  u32 to);

/**
 * struct tonic_flow_stats - snapshot of one flow
 * @flow_id: flow
 * @wnd_start: first unacked segment
 * @next_new: next never-sent segment
 * @tail: announced end
 * @wnd: window in segments
 * @wnd_max: K
 * @in_flight: next_new - wnd_start
 * @outstanding: addresses waiting in the credit engine's ring
 * @marked: segments marked for retransmission
 * @rate_bps: current rate
 * @credit_bytes: credit (rate: token bucket; grant: tokens left)
 * @rto_ns: current timeout amount
 * @segs_sent: segment addresses emitted
 * @rtx_sent: retransmissions among them
 * @timeouts: retransmission timer expiries handled
 * @probes: early (TONIC_OUT_PROBE) timer expiries handled
 * @acked_segs: segments acked (cumulatively or selectively)
 * @violations: hook outputs the engine had to clip
 * @reserved: zero (padding the layout explicitly)
 */
struct tonic_flow_stats {
	u32 flow_id;
	u32 wnd_start;
	u32 next_new;
	u32 tail;
	u32 wnd;
	u32 wnd_max;
	u32 in_flight;
	u32 outstanding;
	u32 marked;
	u32 reserved;
	u64 rate_bps;
	s64 credit_bytes;
	u64 rto_ns;
	u64 segs_sent;
	u64 rtx_sent;
	u64 timeouts;
	u64 probes;
	u64 acked_segs;
	u64 violations;
};

/**
 * struct tonic_engine_stats - engine-wide counters
 * @flows: flows in the engine
 * @segs_sent: segment addresses emitted
 * @segs_rtx: retransmissions among them
 * @timeouts: timeouts handled
 * @timeouts_merged: timeouts dropped because an ack came in the same step
 * @probes: early (TONIC_OUT_PROBE) timer expiries handled
 * @violations: hook outputs clipped (all flows)
 * @batches: tonic_engine_tx() calls that emitted at least one segment
 * @ctrl_events: control events processed
 * @ctrl_bad: control events ignored (unknown flow, out of range acks)
 * @stale_dropped: ring entries dropped at emission (acked meanwhile)
 * @cut_through: segments generated and emitted in one step (§3.4)
 * @bytes_state: bytes of memory the engine holds
 */
struct tonic_engine_stats {
	u64 flows;
	u64 segs_sent;
	u64 segs_rtx;
	u64 timeouts;
	u64 timeouts_merged;
	u64 probes;
	u64 violations;
	u64 batches;
	u64 ctrl_events;
	u64 ctrl_bad;
	u64 stale_dropped;
	u64 cut_through;
	u64 bytes_state;
};

/**
 * struct tonic_engine_cfg - engine creation parameters
 * @flows_hint: expected number of flows (tables are sized for it; they
 *	grow on demand); 0 = 1024
 */
struct tonic_engine_cfg {
	u32 flows_hint;
};

struct tonic_engine;

/**
 * tonic_engine_create() - make an engine instance
 * @cfg: parameters (NULL = defaults)
 *
 * Context: may allocate (GFP_KERNEL for the tables).
 * Return: the engine, or NULL without memory.
 */
struct tonic_engine *tonic_engine_create(const struct tonic_engine_cfg *cfg);

/**
 * tonic_engine_destroy() - remove every flow and free the engine
 * @eng: engine (NULL is fine)
 *
 * Calls each flow's release hook.
 */
void tonic_engine_destroy(struct tonic_engine *eng);

/**
 * tonic_engine_flow_add() - add a flow
 * @eng: engine
 * @p: parameters (validated)
 * @now: current time in ns
 *
 * Return: 0, -EINVAL for bad parameters, -EEXIST if the id is in use,
 * -ENOMEM, or the protocol's init error.
 */
int tonic_engine_flow_add(struct tonic_engine *eng,
			  const struct tonic_flow_params *p, u64 now);

/**
 * tonic_engine_flow_remove() - remove a flow; its id may be reused at once
 * @eng: engine
 * @flow_id: flow
 *
 * Addresses of the flow not yet emitted are dropped.
 * Return: 0 or -ENOENT.
 */
int tonic_engine_flow_remove(struct tonic_engine *eng, u32 flow_id);

/**
 * tonic_engine_flow_resize() - C shrinks for the segments still to come
 * @eng: engine
 * @flow_id: flow
 * @seg_size: the new C in bytes, 1 to the current one
 *
 * The path MTU dropped (sock/socket.c): the segments announced from now
 * on are @seg_size bytes.  Those announced before keep their length on
 * the wire; the credit engine charges every segment @seg_size from now
 * on, and programs see the new C.  A sub-segment may still be as long as
 * anything below the C the flow was added with (it was cut before).
 *
 * Return: 0, -ENOENT or -EINVAL (@seg_size 0 or larger than C).
 */
int tonic_engine_flow_resize(struct tonic_engine *eng, u32 flow_id,
			     u32 seg_size);

/**
 * tonic_engine_announce() - tonic-tail advance: new segments to send
 * @eng: engine
 * @flow_id: flow
 * @tail: new end (exclusive) of the announced segments
 * @last_len: 0 if every new segment is C bytes; otherwise the length of
 *	the final one (a sub-segment, 1 to one less than the flow's first
 *	C: tonic_engine_flow_resize())
 *
 * After a sub-segment, nothing more may be announced until the engine
 * reports TONIC_NOTIFY_SUBSEG (the sub-segment was cumulatively acked).
 * Return: 0, -ENOENT, -EBUSY (sub-segment pending) or -EINVAL (@tail
 * behind the current tail, or @last_len out of range).
 */
int tonic_engine_announce(struct tonic_engine *eng, u32 flow_id, u32 tail,
			  u32 last_len);

/**
 * tonic_engine_ctrl() - deliver incoming control events
 * @eng: engine
 * @ev: events, processed in order
 * @n: how many
 * @now: current time in ns (the step these events belong to)
 *
 * Return: how many events were for a known flow and processed.
 */
unsigned int tonic_engine_ctrl(struct tonic_engine *eng,
			       const struct tonic_ctrl_desc *ev,
			       unsigned int n, u64 now);

/**
 * tonic_engine_timers() - run expired timers and periodic work
 * @eng: engine
 * @now: current time in ns
 *
 * Handles retransmission timeouts, periodic hooks and rate-credit timers
 * due at or before @now.
 */
void tonic_engine_timers(struct tonic_engine *eng, u64 now);

/**
 * tonic_engine_next_timer() - when tonic_engine_timers() has work next
 * @eng: engine
 *
 * Return: the earliest deadline in ns, or U64_MAX if none.
 */
u64 tonic_engine_next_timer(const struct tonic_engine *eng);

/**
 * tonic_engine_tx() - take segment addresses to transmit
 * @eng: engine
 * @now: current time in ns
 * @out: array to fill
 * @max: its size
 *
 * Runs the flow scheduler (active FIFO → generation → per-flow ring →
 * ready-to-tx FIFO → emission) until @max addresses are out or nothing
 * can be sent at @now.  Flows are served round-robin.
 * Return: addresses written to @out.
 */
unsigned int tonic_engine_tx(struct tonic_engine *eng, u64 now,
			     struct tonic_seg_desc *out, unsigned int max);

/**
 * tonic_engine_poll_notify() - take head/sub-segment notifications
 * @eng: engine
 * @out: array to fill
 * @max: its size
 *
 * Return: notifications written; at most one per flow (coalesced).
 */
unsigned int tonic_engine_poll_notify(struct tonic_engine *eng,
				      struct tonic_notify_desc *out,
				      unsigned int max);

/**
 * tonic_engine_flow_stats() - snapshot one flow
 * @eng: engine
 * @flow_id: flow
 * @st: filled in
 * Return: 0 or -ENOENT.
 */
int tonic_engine_flow_stats(const struct tonic_engine *eng, u32 flow_id,
			    struct tonic_flow_stats *st);

/**
 * tonic_engine_stats() - engine-wide counters
 * @eng: engine
 * @st: filled in
 */
void tonic_engine_stats(const struct tonic_engine *eng,
			struct tonic_engine_stats *st);

/**
 * tonic_engine_flow_bytes() - memory one flow costs
 * @ops: protocol (NULL = NewReno)
 * @ring_size: N
 *
 * Return: bytes per flow including its share of the engine's tables.
 */
size_t tonic_engine_flow_bytes(const struct tonic_proto_ops *ops,
			       unsigned int ring_size);

#endif /* _TONIC_ENGINE_H */
