/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic engine: private state and the prototypes shared by its files.
 *
 * struct tonic_flow is the fixed per-flow state of both engines (Tonic
 * §3.2, §3.3); it is followed in the same allocation by the flow's N-entry
 * ring of segment addresses and the protocol's user state.  struct
 * tonic_engine holds the flow table, the three FIFOs (active, ready-to-tx,
 * notify) and the two timer heaps.  Nothing here is visible to protocols.
 */
#ifndef _TONIC_FLOW_H
#define _TONIC_FLOW_H

#include "engine.h"
#include "bitmap.h"

/* flow->flags */
#define TF_ACTIVE	0x001	/* in the active FIFO */
#define TF_READY	0x002	/* in the ready-to-tx FIFO */
#define TF_NOTIFY	0x004	/* in the notify FIFO */
#define TF_SUBSEG	0x008	/* tail - 1 is a sub-segment, not yet acked */
#define TF_DEAD		0x010	/* removed; freed when the last FIFO drops it */
#define TF_CTRL		0x020	/* a control event came at ctrl_now */
#define TF_RTO		0x040	/* retransmission timer armed (rto_expiry) */
#define TF_PERIODIC	0x080	/* ops->periodic_ns != 0 */
#define TF_RESENT	0x100	/* rtx_sent != 0: rtxc_lo/hi may have bits */
#define TF_PROBE	0x800	/* the armed timer is an early one (TONIC_OUT_PROBE) */
#define TF_ACKFREQ	0x1000	/* ack_ratio != 0: emission flags ACKREQ itself */
#define TF_NOTE_SHIFT	9	/* pending TONIC_NOTIFY_* bits, << this */
#define TF_NOTE_MASK	((TONIC_NOTIFY_HEAD | TONIC_NOTIFY_SUBSEG) << TF_NOTE_SHIFT)
#define TF_INFIFO	(TF_ACTIVE | TF_READY | TF_NOTIFY)

/*
 * struct tonic_flow - fixed per-flow state (members described inline)
 *
 * Allocated cache-line aligned and laid out by who touches what (the
 * offsets are checked below):
 *
 * - line 0: everything tonic_engine_tx() reads or writes per segment of a
 *   window-scheme flow (generation, cut-through emission, re-activation,
 *   arming the retransmission timer), and the notification bits;
 * - line 1: the rest of what the control path reads per event (the
 *   protocol, the bounds the hook context reports, the step);
 * - line 2: the acked and marked ring bitmaps (stage 1, generation of a
 *   retransmission, the hook context);
 * - line 3: the credit engine (rate and grant flows), the ring and heap
 *   bookkeeping, periodic work;
 * - then what only retransmissions and statistics touch, the N-entry ring
 *   and, on a line of its own, the protocol's user state (tonic_flow_user()).
 *
 * A window-scheme flow costs one line per segment decision and three plus
 * its user state per control event.
 */
struct tonic_flow {
	/* line 0: data delivery engine and emission, hot */
	u32 id;
	u32 wnd_start;		/* first segment not cumulatively acked */
	u32 next_new;		/* next never-sent segment */
	u32 tail;		/* one past the last announced segment */
	u16 wnd;		/* congestion window, segments, 1..k */
	u16 k;			/* K: ring bitmap size, power of two */
	u16 nmarked;		/* bits set in rtx[] */
	u16 flags;		/* TF_*, pending notifications */
	u8 scheme;		/* enum tonic_credit_scheme */
	u8 ring_size;		/* N */
	u8 ring_head;
	u8 ring_cnt;		/* outstanding addresses in the credit engine */
	u32 seg_size;		/* C */
	u64 segs_sent;
	u64 rto_expiry;		/* valid with TF_RTO */
	u64 rto_ns;		/* amount used when the engine arms it */
	u64 dd_key;		/* deadline of our dd_timers entry; U64_MAX: none */

	/* line 1: control path */
	const struct tonic_proto_ops *ops;
	u64 acked_segs;
	u64 ctrl_now;		/* step of the last control event (TF_CTRL) */
	u64 rate_bps;
	u64 rate_min_bps;
	u64 rate_max_bps;
	u64 rto_min_ns;
	u64 rto_max_ns;

	/* line 2: per-segment state, ring-indexed by seg % k */
	u64 acked[TB_WORDS];	/* selectively acked */
	u64 rtx[TB_WORDS];	/* marked for retransmission */

	/* line 3: credit engine, ring, heaps, periodic work */
	u32 rate_mant;
	u32 burst;		/* D, bytes */
	s64 credit;		/* rate: 2^-rate_shift bytes; grant: bytes */
	u64 credit_t;		/* time of the last rate accrual */
	u64 periodic_next;	/* next periodic hook call, 0 = none */
	u32 last_len;		/* length of the sub-segment tail - 1 */
	u16 ring_rtx;		/* ring slot holds a retransmission (N <= 16) */
	u8 ack_ratio;		/* new segments per ACKREQ; 0: receiver's choice */
	u8 ack_cnt;		/* new segments sent since the last ACKREQ */
	u32 dd_heap;		/* 1 + index in the rtx/periodic timer heap */
	u32 cr_heap;		/* 1 + index in the credit timer heap */
	u8 rate_shift;		/* rate = rate_mant / 2^rate_shift bytes/ns */
	u8 fifo_refs;		/* FIFOs holding a removed flow */
	u16 rto_low_segs;	/* in flight at most this: rto_low_ns floor */
	u64 rto_low_ns;		/* <= rto_min_ns */

	/* retransmission counts and totals */
	u64 rtxc_lo[TB_WORDS];	/* 2-bit transmit-again count, low bit */
	u64 rtxc_hi[TB_WORDS];	/* and high bit */
	u64 timeouts;
	u64 probes;
	u64 violations;
	u64 rtx_sent;
	u32 seg_max;		/* C at flow add: no sub-segment reaches it */
	u32 ring[];		/* N segment indices; then the user state */
};

#define TONIC_FLOW_LINE(field, n) \
	_Static_assert(offsetof(struct tonic_flow, field) == 64 * (n), \
		       "struct tonic_flow: " #field " must start line " #n)
TONIC_FLOW_LINE(ops, 1);
TONIC_FLOW_LINE(acked, 2);
TONIC_FLOW_LINE(rate_mant, 3);
TONIC_FLOW_LINE(rtxc_lo, 4);

/* Offset of the user state: after the ring, on a new cache line. */
static inline size_t tonic_flow_user_off(unsigned int ring_size)
{
	return (offsetof(struct tonic_flow, ring) + ring_size * sizeof(u32) +
		63) & ~(size_t)63;
}

/* The protocol's per-flow state (ops->user_size bytes). */
static inline void *tonic_flow_user(const struct tonic_flow *f)
{
	return (u8 *)f + tonic_flow_user_off(f->ring_size);
}

struct tonic_fifo {
	struct tonic_flow **q;
	u32 head;
	u32 cnt;
	u32 mask;
};

struct tonic_heap_ent {
	u64 key;
	struct tonic_flow *f;
};

struct tonic_heap {
	struct tonic_heap_ent *h;
	u32 n;
	u32 cap;
	bool dd;		/* which index field of the flow it keeps */
};

struct tonic_ft_ent {
	u32 id;
	struct tonic_flow *f;
};

struct tonic_flowtab {
	struct tonic_ft_ent *t;
	u32 mask;
	u32 n;
};

struct tonic_engine {
	struct tonic_flowtab tab;
	struct tonic_fifo active;
	struct tonic_fifo ready;
	struct tonic_fifo notify;
	struct tonic_heap dd_timers;	/* rtx timeout + periodic */
	struct tonic_heap cr_timers;	/* rate credit wake-ups */
	u32 cap;			/* FIFO capacity */
	u32 zombies;			/* removed flows still in a FIFO */
	u64 flow_bytes;			/* bytes of all flow allocations */
	u8 scratch[TONIC_MAX_USER_BYTES];	/* discarded user writes */
	struct tonic_engine_stats st;
};

/* flowtable.c */
int tonic_ft_init(struct tonic_flowtab *t, u32 hint);
void tonic_ft_free(struct tonic_flowtab *t);
struct tonic_flow *tonic_ft_find(const struct tonic_flowtab *t, u32 id);
u32 tonic_ft_slot(const struct tonic_flowtab *t, u32 id);
struct tonic_flow *tonic_ft_find_at(const struct tonic_flowtab *t, u32 id,
				    u32 i);
int tonic_ft_insert(struct tonic_flowtab *t, struct tonic_flow *f);
void tonic_ft_delete(struct tonic_flowtab *t, u32 id);
size_t tonic_ft_bytes(const struct tonic_flowtab *t);

/* sched.c */
int tonic_fifo_init(struct tonic_fifo *q, u32 cap);
void tonic_fifo_free(struct tonic_fifo *q);
int tonic_fifo_grow(struct tonic_fifo *q, u32 cap);
int tonic_heap_init(struct tonic_heap *h, u32 cap, bool dd);
void tonic_heap_free(struct tonic_heap *h);
int tonic_heap_grow(struct tonic_heap *h, u32 cap);
void tonic_heap_set(struct tonic_heap *h, struct tonic_flow *f, u64 key);
void tonic_heap_del(struct tonic_heap *h, struct tonic_flow *f);
struct tonic_flow *tonic_heap_pop(struct tonic_heap *h, u64 now);

static inline void tonic_fifo_push(struct tonic_fifo *q, struct tonic_flow *f)
{
	q->q[(q->head + q->cnt++) & q->mask] = f;
}

static inline struct tonic_flow *tonic_fifo_pop(struct tonic_fifo *q)
{
	struct tonic_flow *f = q->q[q->head];

	q->head = (q->head + 1) & q->mask;
	q->cnt--;
	return f;
}

/* The flow @ahead positions behind the head (for prefetching). */
static inline struct tonic_flow *tonic_fifo_peek(const struct tonic_fifo *q,
						 u32 ahead)
{
	return ahead < q->cnt ? q->q[(q->head + ahead) & q->mask] : NULL;
}

static inline u64 tonic_heap_top(const struct tonic_heap *h)
{
	return h->n ? h->h[0].key : U64_MAX;
}

/* delivery.c */
u32 tonic_dd_stage1(struct tonic_engine *eng, struct tonic_flow *f,
		    const struct tonic_ctrl_desc *ev);
u32 tonic_dd_next_rtx(struct tonic_flow *f);
void tonic_dd_timer_sync_slow(struct tonic_engine *eng, struct tonic_flow *f,
			      u64 now);
u32 tonic_dd_mark(struct tonic_flow *f, u32 from, u32 cnt);

static inline u32 tonic_dd_seg_len(const struct tonic_flow *f, u32 seg)
{
	if (unlikely(f->flags & TF_SUBSEG) && seg == f->tail - 1)
		return f->last_len;
	return f->seg_size;
}

static inline bool tonic_dd_seg_stale(const struct tonic_flow *f, u32 seg)
{
	return tonic_seq_before(seg, f->wnd_start) ||
	       tb_test(f->acked, seg & (f->k - 1));
}

/* How often a segment in the window was resent before (0..3). */
static inline unsigned int tonic_dd_rtx_cnt(const struct tonic_flow *f,
					    u32 seg)
{
	unsigned int i = seg & (f->k - 1);

	return tb_test(f->rtxc_lo, i) + 2 * tb_test(f->rtxc_hi, i);
}

/**
 * tonic_dd_next_seg() - segment generation (fixed function)
 * @f: flow
 * @seg: the segment chosen
 *
 * The first segment marked for retransmission, searched from the window
 * head with the Appendix C method, goes before any new segment.  A new
 * segment is the next never-sent one, if announced and inside the window.
 * Retransmissions are not limited by the window: a protocol marks only
 * what it wants resent.
 *
 * Return: 1 for a retransmission, 0 for a new segment, -1 for none.
 */
static inline int tonic_dd_next_seg(struct tonic_flow *f, u32 *seg)
{
	if (unlikely(f->nmarked)) {
		*seg = tonic_dd_next_rtx(f);
		return 1;
	}
	if (f->next_new != f->tail && f->next_new - f->wnd_start < f->wnd) {
		*seg = f->next_new++;
		return 0;
	}
	return -1;
}

/**
 * tonic_dd_sent_end() - one past the last segment actually emitted
 * @f: flow
 *
 * next_new counts segments generation took, and a rate or grant flow
 * may hold new ones in its ring waiting for credit: those were never
 * sent, and no receiver can have acknowledged them.  New segments enter
 * the ring in order and leave it in order, so they are its last
 * non-retransmission entries.
 */
static inline u32 tonic_dd_sent_end(const struct tonic_flow *f)
{
	u32 i, queued = 0, slot = f->ring_head;

	for (i = 0; i < f->ring_cnt; i++) {
		queued += !(f->ring_rtx & (1U << slot));
		if (++slot == f->ring_size)
			slot = 0;
	}
	return f->next_new - queued;
}

/*
 * Make sure the rtx/periodic heap fires no later than @key.  dd_key
 * mirrors the flow's heap entry, so the common case (the entry already
 * fires earlier) reads no heap memory.
 */
static inline void tonic_dd_heap_want(struct tonic_engine *eng,
				      struct tonic_flow *f, u64 key)
{
	if (f->dd_key > key || unlikely(key == U64_MAX && !f->dd_heap))
		tonic_heap_set(&eng->dd_timers, f, key);
}

/**
 * tonic_dd_arm_rto() - (re)arm the retransmission timer
 * @eng: engine
 * @f: flow
 * @expiry: deadline in ns
 *
 * Moving the deadline later is O(1): the heap entry stays where it is,
 * fires early and is re-queued by the timer code.
 */
static inline void tonic_dd_arm_rto(struct tonic_engine *eng,
				    struct tonic_flow *f, u64 expiry)
{
	f->rto_expiry = expiry;
	f->flags = (f->flags | TF_RTO) & ~TF_PROBE;
	tonic_dd_heap_want(eng, f, expiry);
}

/**
 * tonic_dd_timer_sync() - keep the timers consistent with the window
 * @eng: engine
 * @f: flow
 * @now: time in ns
 *
 * With segments in flight or marked the retransmission timer must run
 * (a protocol cannot wedge a flow by stopping it); with nothing in flight
 * it is stopped.  Periodic work runs only while data is in flight.
 */
static inline void tonic_dd_timer_sync(struct tonic_engine *eng,
				       struct tonic_flow *f, u64 now)
{
	bool busy = f->next_new != f->wnd_start || f->nmarked;

	if (!busy) {
		f->flags &= ~(TF_RTO | TF_PROBE);
		if (f->flags & TF_PERIODIC)	/* else it stays 0 */
			f->periodic_next = 0;
		return;
	}
	if (!(f->flags & TF_RTO))
		tonic_dd_arm_rto(eng, f, now + f->rto_ns);
	if (unlikely(f->flags & TF_PERIODIC))
		tonic_dd_timer_sync_slow(eng, f, now);
}

/* ctx.c */

/*
 * Lowest retransmission timeout for the flow's current flight: IRN's
 * RTO_low (§3.1 of the IRN paper) while at most rto_low_segs segments are
 * outstanding, too few for duplicate acks to detect a loss, else rto_min.
 * Outstanding: sent and not acked; a segment acked selectively above a
 * hole is not in the network any more (RFC 6675's pipe counts it out too).
 */
static inline u64 tonic_rto_floor(const struct tonic_flow *f)
{
	u32 flight = f->next_new - f->wnd_start;

	if (flight > f->rto_low_segs)
		flight -= tb_count(f->acked, f->k, f->wnd_start & (f->k - 1),
				   flight);
	return flight <= f->rto_low_segs ? f->rto_low_ns : f->rto_min_ns;
}

/**
 * tonic_ctx_fill() - snapshot a flow for a hook
 * @f: flow
 * @c: context to fill; the event fields and @c->out are zeroed
 * @now: time in ns
 *
 * Every field is written (the struct has no padding), so no memset.
 */
static inline void tonic_ctx_fill(const struct tonic_flow *f,
				  struct tonic_flow_ctx *c, u64 now)
{
	c->flow_id = f->id;
	c->timeout = 0;
	c->now = now;
	memset(&c->ev, 0, sizeof(c->ev));
	c->newly_acked = 0;
	c->old_wnd_start = f->wnd_start;
	c->wnd_start = f->wnd_start;
	c->next_new = f->next_new;
	c->tail = f->tail;
	c->wnd = f->wnd;
	c->wnd_max = f->k;
	c->seg_size = f->seg_size;
	c->marked = f->nmarked;
	c->ack_ratio = f->ack_ratio;
	c->rate_bps = f->rate_bps;
	c->rate_min_bps = f->rate_min_bps;
	c->rate_max_bps = f->rate_max_bps;
	c->rto_ns = f->rto_ns;
	c->rto_min_ns = tonic_rto_floor(f);
	c->rto_max_ns = f->rto_max_ns;
	c->probe_min_ns = f->rto_low_ns;
	memcpy(c->acked, f->acked, sizeof(c->acked));
	memcpy(c->rtx, f->rtx, sizeof(c->rtx));
	memset(&c->out, 0, sizeof(c->out));
}

_Static_assert(sizeof(struct tonic_flow_ctx) ==
	       offsetof(struct tonic_flow_ctx, out) +
	       sizeof(struct tonic_hook_out),
	       "tonic_ctx_fill() writes every byte: no padding, out last");
u32 tonic_ctx_apply(struct tonic_engine *eng, struct tonic_flow *f,
		    const struct tonic_flow_ctx *c, u64 now);

static inline bool tonic_dd_has_work(const struct tonic_flow *f)
{
	if (f->ring_cnt >= f->ring_size)
		return false;
	if (f->nmarked)
		return true;
	return f->next_new != f->tail &&
	       f->next_new - f->wnd_start < f->wnd;
}

/* credit.c */
void tonic_cr_set_rate(struct tonic_flow *f, u64 bps);
void tonic_cr_accrue(struct tonic_flow *f, u64 now);
u64 tonic_cr_wait_ns(const struct tonic_flow *f, u32 len);
void tonic_cr_grant(struct tonic_flow *f, u64 bytes);
s64 tonic_cr_credit_bytes(const struct tonic_flow *f);

/**
 * tonic_cr_ok() - may the flow send @len bytes at @now?
 * @f: flow
 * @len: bytes of its next segment
 * @now: time in ns
 */
static inline bool tonic_cr_ok(struct tonic_flow *f, u32 len, u64 now)
{
	if (likely(f->scheme == TONIC_CREDIT_WINDOW))
		return true;
	if (f->scheme == TONIC_CREDIT_RATE) {
		tonic_cr_accrue(f, now);
		return f->credit >= ((s64)len << f->rate_shift);
	}
	return f->credit >= len;	/* grant */
}

/* Charge a transmission that tonic_cr_ok() allowed. */
static inline void tonic_cr_charge(struct tonic_flow *f, u32 len)
{
	if (f->scheme == TONIC_CREDIT_RATE)
		f->credit -= (s64)len << f->rate_shift;
	else if (f->scheme == TONIC_CREDIT_GRANT)
		f->credit -= len;
}

#endif /* _TONIC_FLOW_H */
