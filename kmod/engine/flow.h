/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic engine: private state and the prototypes shared by its files.
 *
 * struct tonic_flow is the fixed per-flow state of both engines (TONIC.md
 * §3, §4, §9); it is followed in the same allocation by the flow's N-entry
 * ring of segment addresses and the protocol's user state.  struct
 * tonic_engine holds the flow table, the three FIFOs (active, ready-to-tx,
 * notify) and the two timer heaps.  Nothing here is visible to protocols.
 */
#ifndef _TONIC_FLOW_H
#define _TONIC_FLOW_H

#include "engine.h"
#include "bitmap.h"

/* flow->flags */
#define TF_ACTIVE	0x01	/* in the active FIFO */
#define TF_READY	0x02	/* in the ready-to-tx FIFO */
#define TF_NOTIFY	0x04	/* in the notify FIFO */
#define TF_SUBSEG	0x08	/* tail - 1 is a sub-segment, not yet acked */
#define TF_DEAD		0x10	/* removed; freed when the last FIFO drops it */
#define TF_CTRL		0x20	/* a control event came at ctrl_now */
#define TF_RTO		0x40	/* retransmission timer armed (rto_expiry) */
#define TF_INFIFO	(TF_ACTIVE | TF_READY | TF_NOTIFY)

/**
 * struct tonic_flow - fixed per-flow state
 *
 * The first cache line is what tonic_engine_tx() touches per segment.
 */
struct tonic_flow {
	/* data delivery engine, hot */
	u32 id;
	u32 wnd_start;		/* first segment not cumulatively acked */
	u32 next_new;		/* next never-sent segment */
	u32 tail;		/* one past the last announced segment */
	u16 wnd;		/* congestion window, segments, 1..k */
	u16 k;			/* K: ring bitmap size, power of two */
	u8 ring_size;		/* N */
	u8 ring_head;
	u8 ring_cnt;		/* outstanding addresses in the credit engine */
	u8 flags;		/* TF_* */
	u32 seg_size;		/* C */
	u32 last_len;		/* length of the sub-segment tail - 1 */
	u16 nmarked;		/* bits set in rtx[] */
	u8 scheme;		/* enum tonic_credit_scheme */
	u8 rate_shift;		/* rate = rate_mant / 2^rate_shift bytes/ns */
	u32 ring_rtx;		/* ring slot holds a retransmission */
	u64 segs_sent;
	u64 rto_expiry;		/* valid with TF_RTO */
	u32 dd_heap;		/* 1 + index in the rtx/periodic timer heap */
	u32 cr_heap;		/* 1 + index in the credit timer heap */

	/* per-segment state, ring-indexed by seg % k */
	u64 acked[TB_WORDS];	/* selectively acked */
	u64 rtx[TB_WORDS];	/* marked for retransmission */
	u64 rtxc_lo[TB_WORDS];	/* 2-bit transmit-again count, low bit */
	u64 rtxc_hi[TB_WORDS];	/* and high bit */

	/* credit engine */
	u32 rate_mant;
	u32 burst;		/* D, bytes */
	s64 credit;		/* rate: 2^-rate_shift bytes; grant: bytes */
	u64 credit_t;		/* time of the last rate accrual */
	u64 rate_bps;
	u64 rate_min_bps;
	u64 rate_max_bps;

	/* timers */
	u64 rto_ns;		/* amount used when the engine arms it */
	u64 rto_min_ns;
	u64 rto_max_ns;
	u64 periodic_next;	/* next periodic hook call, 0 = none */
	u64 ctrl_now;		/* step of the last control event (TF_CTRL) */

	/* totals */
	u64 rtx_sent;
	u64 timeouts;
	u64 acked_segs;
	u64 violations;

	u32 notify;		/* pending TONIC_NOTIFY_* */
	u8 fifo_refs;		/* FIFOs holding a removed flow */
	const struct tonic_proto_ops *ops;
	void *user;		/* ops->user_size bytes after the ring */
	u32 ring[];		/* N segment indices */
};

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
void tonic_ft_prefetch(const struct tonic_flowtab *t, u32 id);
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
int tonic_dd_next_seg(struct tonic_flow *f, u32 *seg);
void tonic_dd_arm_rto(struct tonic_engine *eng, struct tonic_flow *f,
		      u64 expiry);
void tonic_dd_timer_sync(struct tonic_engine *eng, struct tonic_flow *f,
			 u64 now);
unsigned int tonic_dd_rtx_cnt(const struct tonic_flow *f, u32 seg);
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

/* ctx.c */
void tonic_ctx_fill(const struct tonic_flow *f, struct tonic_flow_ctx *c,
		    u64 now);
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
bool tonic_cr_ok(struct tonic_flow *f, u32 len, u64 now);
void tonic_cr_charge(struct tonic_flow *f, u32 len);
u64 tonic_cr_wait_ns(const struct tonic_flow *f, u32 len);
void tonic_cr_grant(struct tonic_flow *f, u64 bytes);
s64 tonic_cr_credit_bytes(const struct tonic_flow *f);

#endif /* _TONIC_FLOW_H */
