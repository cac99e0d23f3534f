// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the API of engine.h and the flow scheduler (Tonic §3.1).
 *
 * Flows move between three FIFOs.  The data-delivery engine pops a flow
 * from the active FIFO, generates its next segment address (delivery.c)
 * and appends it to the flow's N-entry ring; the credit engine pops a flow
 * from the ready-to-tx FIFO, emits the head of its ring, charges credit
 * (credit.c) and tells the data-delivery side one address left.  The
 * notify FIFO carries head-advance and sub-segment news to the caller.
 *
 * Merge rules (§3.4) as they map onto this API: a step is one value of
 * @now.  A generation and an emission for the same flow in the same
 * scheduler step cancel out: the address goes straight to the output and
 * the ring and the outstanding count are left alone ("cut-through").  A
 * retransmission timeout due in the step in which the flow got a control
 * event is dropped (and re-checked at the next step).  A periodic hook in
 * the same step as an incoming one writes user state only if the protocol
 * says periodic wins.
 */
#include "flow.h"

#define ENG_DEF_FLOWS		1024
/*
 * How far ahead the scheduler prefetches flows in a FIFO, and the control
 * path looks up (and prefetches) the flows of events to come.  With a
 * million flows every flow is a DRAM (and TLB) miss of 100-200 ns; one
 * decision takes ~10 ns.
 */
#define ENG_PREFETCH_AHEAD	16
#define ENG_CTRL_AHEAD		8	/* power of two */

static u32 eng_pow2(u32 n)
{
	u32 p = 1;

	while (p < n && p < (1U << 31))
		p <<= 1;
	return p;
}

struct tonic_engine *tonic_engine_create(const struct tonic_engine_cfg *cfg)
{
	u32 hint = cfg && cfg->flows_hint ? cfg->flows_hint : ENG_DEF_FLOWS;
	struct tonic_engine *eng;
	u32 cap = eng_pow2(hint);

	eng = tenv_kvzalloc(sizeof(*eng));
	if (!eng)
		return NULL;
	eng->cap = cap;
	if (tonic_ft_init(&eng->tab, hint) ||
	    tonic_fifo_init(&eng->active, cap) ||
	    tonic_fifo_init(&eng->ready, cap) ||
	    tonic_fifo_init(&eng->notify, cap) ||
	    tonic_heap_init(&eng->dd_timers, cap, true) ||
	    tonic_heap_init(&eng->cr_timers, cap, false)) {
		tonic_engine_destroy(eng);
		return NULL;
	}
	return eng;
}

/* One allocation per flow, in whole cache lines. */
static size_t eng_flow_alloc_size(const struct tonic_proto_ops *ops,
				  unsigned int ring)
{
	return (tonic_flow_user_off(ring) + ops->user_size + 63) & ~63UL;
}

static void eng_release(struct tonic_flow *f)
{
	struct tonic_flow_ctx c;

	if (!f->ops->release)
		return;
	tonic_ctx_fill(f, &c, 0);
	f->ops->release(&c, tonic_flow_user(f));
}

/* Drop one FIFO's reference to a removed flow. */
static void eng_zombie_put(struct tonic_engine *eng, struct tonic_flow *f)
{
	if (--f->fifo_refs)
		return;
	eng->zombies--;
	tenv_free(f);
}

static void eng_fifo_drain_zombies(struct tonic_engine *eng,
				   struct tonic_fifo *q)
{
	while (q->q && q->cnt) {
		struct tonic_flow *f = tonic_fifo_pop(q);

		if (f->flags & TF_DEAD)
			eng_zombie_put(eng, f);
	}
}

void tonic_engine_destroy(struct tonic_engine *eng)
{
	u32 i;

	if (!eng)
		return;
	eng_fifo_drain_zombies(eng, &eng->active);
	eng_fifo_drain_zombies(eng, &eng->ready);
	eng_fifo_drain_zombies(eng, &eng->notify);
	for (i = 0; eng->tab.t && i <= eng->tab.mask; i++) {
		struct tonic_flow *f = eng->tab.t[i].f;

		if (f) {
			eng_release(f);
			tenv_free(f);
		}
	}
	tonic_ft_free(&eng->tab);
	tonic_fifo_free(&eng->active);
	tonic_fifo_free(&eng->ready);
	tonic_fifo_free(&eng->notify);
	tonic_heap_free(&eng->dd_timers);
	tonic_heap_free(&eng->cr_timers);
	tenv_kvfree(eng);
}

/* Room in every FIFO and heap for one more flow. */
static int eng_reserve(struct tonic_engine *eng)
{
	u32 need = eng->tab.n + eng->zombies + 1, cap;
	int err;

	if (need <= eng->cap)
		return 0;
	cap = eng->cap * 2;
	err = tonic_fifo_grow(&eng->active, cap);
	if (!err)
		err = tonic_fifo_grow(&eng->ready, cap);
	if (!err)
		err = tonic_fifo_grow(&eng->notify, cap);
	if (!err)
		err = tonic_heap_grow(&eng->dd_timers, cap);
	if (!err)
		err = tonic_heap_grow(&eng->cr_timers, cap);
	if (err)
		return err;	/* grown FIFOs stay grown: harmless */
	eng->cap = cap;
	return 0;
}

static int eng_check_params(const struct tonic_flow_params *p,
			    const struct tonic_proto_ops *ops)
{
	u32 k = p->wnd_max;

	if (!p->seg_size || p->seg_size > TONIC_MAX_SEGMENT_BYTES)
		return -EINVAL;
	if (k && (k > TONIC_MAX_WND_SEGS || (k & (k - 1))))
		return -EINVAL;
	if (p->ring_size > TONIC_MAX_RING || p->scheme > TONIC_CREDIT_GRANT)
		return -EINVAL;
	if (p->burst_bytes > TONIC_MAX_BURST_BYTES)
		return -EINVAL;
	if (!ops->incoming || !ops->periodic ||
	    ops->user_size > TONIC_MAX_USER_BYTES ||
	    ops->scheme < TONIC_CREDIT_WINDOW ||
	    ops->scheme > TONIC_CREDIT_GRANT)
		return -EINVAL;
	return 0;
}

static u64 eng_or(u64 v, u64 def)
{
	return v ? v : def;
}

/* Fill the fixed state of a new flow from validated parameters. */
static void eng_flow_setup(struct tonic_flow *f,
			   const struct tonic_flow_params *p,
			   const struct tonic_proto_ops *ops, u64 now)
{
	f->id = p->flow_id;
	f->ops = ops;
	f->dd_key = U64_MAX;		/* not in the timer heap */
	if (ops->periodic_ns)
		f->flags |= TF_PERIODIC;
	f->k = p->wnd_max ? p->wnd_max : TONIC_DEF_WND_SEGS;
	f->ring_size = p->ring_size ? p->ring_size : TONIC_DEF_RING;
	f->scheme = p->scheme ? p->scheme : ops->scheme;
	f->seg_size = p->seg_size;
	f->seg_max = p->seg_size;
	f->wnd_start = p->init_seq;
	f->next_new = p->init_seq;
	f->tail = p->init_seq;
	f->wnd = (u16)min_t(u32, p->init_wnd, f->k);
	f->rate_min_bps = max(p->rate_min_bps, TONIC_MIN_RATE_BPS);
	f->rate_max_bps = min(eng_or(p->rate_max_bps, TONIC_MAX_RATE_BPS),
			      TONIC_MAX_RATE_BPS);
	if (f->rate_max_bps < f->rate_min_bps)
		f->rate_max_bps = f->rate_min_bps;
	f->burst = p->burst_bytes ? p->burst_bytes : 2 * p->seg_size;
	f->burst = max(f->burst, p->seg_size);
	f->credit_t = now;
	tonic_cr_set_rate(f, min(max(eng_or(p->init_rate_bps, f->rate_max_bps),
				     f->rate_min_bps), f->rate_max_bps));
	f->credit = 0;
	if (f->scheme == TONIC_CREDIT_RATE)
		f->credit = (s64)((u64)min(p->init_tokens, f->burst) <<
				  f->rate_shift);
	else if (f->scheme == TONIC_CREDIT_GRANT)
		f->credit = p->init_tokens;
	f->rto_min_ns = eng_or(p->rto_min_ns, TONIC_DEF_RTO_MIN_NS);
	f->rto_max_ns = max(eng_or(p->rto_max_ns, TONIC_DEF_RTO_MAX_NS),
			    f->rto_min_ns);
	f->rto_ns = min(max(eng_or(p->rto_init_ns, TONIC_DEF_RTO_INIT_NS),
			    f->rto_min_ns), f->rto_max_ns);
	f->rto_low_segs = 0;
	f->rto_low_ns = f->rto_min_ns;
	if (p->rto_low_segs && p->rto_low_ns) {
		f->rto_low_segs = min_t(u32, p->rto_low_segs, TONIC_MAX_WND_SEGS);
		f->rto_low_ns = min(p->rto_low_ns, f->rto_min_ns);
	}
}

int tonic_engine_flow_add(struct tonic_engine *eng,
			  const struct tonic_flow_params *p, u64 now)
{
	const struct tonic_proto_ops *ops = p->ops ? p->ops : &tonic_newreno_ops;
	unsigned int ring = p->ring_size ? p->ring_size : TONIC_DEF_RING;
	struct tonic_flow_ctx c;
	struct tonic_flow *f;
	size_t sz;
	int err;

	err = eng_check_params(p, ops);
	if (err)
		return err;
	if (tonic_ft_find(&eng->tab, p->flow_id))
		return -EEXIST;
	err = eng_reserve(eng);
	if (err)
		return err;
	sz = eng_flow_alloc_size(ops, ring);
	f = tenv_zalloc_lines(sz);
	if (!f)
		return -ENOMEM;
	eng_flow_setup(f, p, ops, now);
	if (ops->init) {
		tonic_ctx_fill(f, &c, now);
		err = ops->init(&c, tonic_flow_user(f));
		if (err)
			goto fail;
		tonic_ctx_apply(eng, f, &c, now);
	}
	if (!f->wnd)
		f->wnd = f->k;
	err = tonic_ft_insert(&eng->tab, f);
	if (err)
		goto fail;
	eng->flow_bytes += sz;
	return 0;
fail:
	tonic_heap_del(&eng->dd_timers, f);
	tonic_heap_del(&eng->cr_timers, f);
	tenv_free(f);
	return err;
}

int tonic_engine_flow_remove(struct tonic_engine *eng, u32 flow_id)
{
	struct tonic_flow *f = tonic_ft_find(&eng->tab, flow_id);

	if (!f)
		return -ENOENT;
	tonic_ft_delete(&eng->tab, flow_id);
	tonic_heap_del(&eng->dd_timers, f);
	tonic_heap_del(&eng->cr_timers, f);
	eng_release(f);
	eng->flow_bytes -= eng_flow_alloc_size(f->ops, f->ring_size);
	f->fifo_refs = !!(f->flags & TF_ACTIVE) + !!(f->flags & TF_READY) +
		       !!(f->flags & TF_NOTIFY);
	if (!f->fifo_refs) {
		tenv_free(f);
		return 0;
	}
	f->flags |= TF_DEAD;
	eng->zombies++;
	return 0;
}

int tonic_engine_flow_resize(struct tonic_engine *eng, u32 flow_id,
			     u32 seg_size)
{
	struct tonic_flow *f = tonic_ft_find(&eng->tab, flow_id);

	if (!f)
		return -ENOENT;
	if (!seg_size || seg_size > f->seg_size)
		return -EINVAL;
	f->seg_size = seg_size;
	return 0;
}

static inline void eng_activate(struct tonic_engine *eng,
				struct tonic_flow *f)
{
	if (!(f->flags & TF_ACTIVE) && tonic_dd_has_work(f)) {
		f->flags |= TF_ACTIVE;
		tonic_fifo_push(&eng->active, f);
	}
}

static void eng_notify(struct tonic_engine *eng, struct tonic_flow *f,
		       u32 what)
{
	f->flags |= what << TF_NOTE_SHIFT;
	if (!(f->flags & TF_NOTIFY)) {
		f->flags |= TF_NOTIFY;
		tonic_fifo_push(&eng->notify, f);
	}
}

int tonic_engine_announce(struct tonic_engine *eng, u32 flow_id, u32 tail,
			  u32 last_len)
{
	struct tonic_flow *f = tonic_ft_find(&eng->tab, flow_id);

	if (!f)
		return -ENOENT;
	if (f->flags & TF_SUBSEG)
		return -EBUSY;
	if (tonic_seq_before(tail, f->tail))
		return -EINVAL;
	if (last_len && (last_len >= f->seg_max || tail == f->tail))
		return -EINVAL;
	if (last_len) {
		f->flags |= TF_SUBSEG;
		f->last_len = last_len;
	}
	f->tail = tail;
	eng_activate(eng, f);
	return 0;
}

/* Drop stale addresses at the head of the ring; true if one is left. */
static bool eng_ring_head(struct tonic_engine *eng, struct tonic_flow *f,
			  u32 *seg)
{
	while (f->ring_cnt) {
		*seg = f->ring[f->ring_head];
		if (!tonic_dd_seg_stale(f, *seg))
			return true;
		/* acked while queued: never send data the socket may free */
		eng->st.stale_dropped++;
		f->ring_rtx &= ~(1U << f->ring_head);
		if (++f->ring_head == f->ring_size)
			f->ring_head = 0;
		f->ring_cnt--;
	}
	return false;
}

/* Put a flow with queued addresses in ready-to-tx, or wait for credit. */
static void eng_credit_check(struct tonic_engine *eng, struct tonic_flow *f,
			     u64 now)
{
	u64 wait;
	u32 seg, len;

	if (f->flags & TF_READY)
		return;
	if (!eng_ring_head(eng, f, &seg)) {
		tonic_heap_del(&eng->cr_timers, f);
		return;
	}
	len = tonic_dd_seg_len(f, seg);
	if (tonic_cr_ok(f, len, now)) {
		tonic_heap_del(&eng->cr_timers, f);
		f->flags |= TF_READY;
		tonic_fifo_push(&eng->ready, f);
		return;
	}
	wait = tonic_cr_wait_ns(f, len);
	if (wait != U64_MAX)
		tonic_heap_set(&eng->cr_timers, f, now + wait);
}

/*
 * After new segments went out: if the flight has outgrown RTO_low (more
 * than rto_low_segs outstanding), the timeout the last hook set with the
 * low floor would now fire on any ACK late by more than rto_low_ns, and
 * resend a whole window.  Raise it to rto_min_ns, the floor the next hook
 * will see, and move a running retransmission timer (not an early one)
 * out with it.
 */
static inline void eng_rto_outgrown(struct tonic_engine *eng,
				    struct tonic_flow *f, u64 now)
{
	if (likely(f->rto_ns >= f->rto_min_ns) ||
	    tonic_rto_floor(f) != f->rto_min_ns)
		return;
	f->rto_ns = f->rto_min_ns;
	if ((f->flags & (TF_RTO | TF_PROBE)) == TF_RTO &&
	    f->rto_expiry < now + f->rto_ns)
		tonic_dd_arm_rto(eng, f, now + f->rto_ns);
}

/*
 * The flow's ACK ratio (struct tonic_hook_out): ask for an ACK every
 * ack_ratio new segments, and on the segment that fills the window or
 * uses up the grant, after which nothing more leaves until an ACK
 * comes: without it a ratio that does not divide the window would wait
 * for the receiver's delayed-ACK timer.  Retransmissions ask anyway.
 */
static void eng_ack_mark(struct tonic_flow *f, u32 seg, int rtx,
			 struct tonic_seg_desc *d)
{
	d->flags = TONIC_SEG_ACKFREQ;
	if (rtx)
		return;
	if (++f->ack_cnt >= f->ack_ratio ||
	    seg + 1 - f->wnd_start >= f->wnd ||
	    (f->scheme == TONIC_CREDIT_GRANT && f->credit < f->seg_size)) {
		d->flags |= TONIC_SEG_ACKREQ;
		f->ack_cnt = 0;
	}
}

/*
 * A window of at most rto_low_segs segments asks for every ACK at once:
 * only the low timeout (RTO_low, tonic_rto_floor()) finds a loss in so few
 * segments, and a receiver holding its ACK for half the window (up to its
 * delayed-ACK time) would otherwise make that timeout fire for a segment
 * that arrived.  Larger windows keep their ACK ratio, also when few
 * segments are out (a write after an idle spell).
 */
static inline bool eng_small_wnd(const struct tonic_flow *f)
{
	return unlikely(f->wnd <= f->rto_low_segs) &&
	       f->rto_low_ns < f->rto_min_ns;
}

/*
 * tonic_dd_timer_sync() of a flow that is busy now (a segment was just
 * emitted): arm the timer, and the periodic work with it.
 */
static inline void eng_busy_timer(struct tonic_engine *eng,
				  struct tonic_flow *f, u64 now)
{
	if (!(f->flags & TF_RTO)) {
		tonic_dd_arm_rto(eng, f, now + f->rto_ns);
		if (unlikely(f->flags & TF_PERIODIC))
			tonic_dd_timer_sync_slow(eng, f, now);
	}
}

/* Hand one address to the caller and charge it (§3.1 step 7). */
static inline void eng_emit(struct tonic_engine *eng, struct tonic_flow *f,
			    u32 seg, int rtx, u64 now, struct tonic_seg_desc *d)
{
	u32 len = tonic_dd_seg_len(f, seg);

	d->flow_id = f->id;
	d->seg = seg;
	d->len = len;
	d->rtx = rtx;
	d->rtx_cnt = 0;
	d->flags = 0;
	d->reserved = 0;
	tonic_cr_charge(f, len);
	if (unlikely(f->flags & TF_ACKFREQ))
		eng_ack_mark(f, seg, rtx, d);
	if (!rtx && eng_small_wnd(f))
		d->flags |= TONIC_SEG_ACKREQ;
	f->segs_sent++;
	if (unlikely(rtx)) {
		d->rtx_cnt = tonic_dd_rtx_cnt(f, seg);
		f->rtx_sent++;
		f->flags |= TF_RESENT;
		eng->st.segs_rtx++;
	}
	if (!rtx)
		eng_rto_outgrown(eng, f, now);
	eng_busy_timer(eng, f, now);
}

/*
 * eng_dd_run() for a window flow alone in the scheduler with nothing
 * marked or queued: its next new segments, as many as the window, the
 * announced data and @room allow, emitted in one loop with the per-flow
 * work done once.  What eng_emit() would do for each in turn, the same
 * descriptors and the same state after.
 */
static unsigned int eng_dd_new_run(struct tonic_engine *eng,
				   struct tonic_flow *f, u64 now,
				   struct tonic_seg_desc *d, unsigned int room)
{
	u32 first = f->next_new, seg = first, in_wnd = first - f->wnd_start;
	struct tonic_seg_desc *ask;
	unsigned int n;

	if (first == f->tail || in_wnd >= f->wnd)
		return 0;
	n = min_t(u32, room, min_t(u32, f->tail - first, f->wnd - in_wnd));
	for (; seg != first + n; seg++, d++) {
		*d = (struct tonic_seg_desc){
			.flow_id = f->id,
			.seg = seg,
			.len = f->seg_size,
		};
		if (unlikely(f->flags & TF_ACKFREQ))
			eng_ack_mark(f, seg, 0, d);
	}
	if (unlikely(f->flags & TF_SUBSEG) && seg == f->tail)
		d[-1].len = f->last_len;
	if (eng_small_wnd(f))
		for (ask = d - n; ask != d; ask++)
			ask->flags |= TONIC_SEG_ACKREQ;
	f->next_new = seg;
	f->segs_sent += n;
	eng->st.cut_through += n;
	eng_rto_outgrown(eng, f, now);		/* as eng_emit() */
	eng_busy_timer(eng, f, now);
	return n;
}

/* Queue a generated address in the flow's ring to wait for credit. */
static void eng_ring_put(struct tonic_engine *eng, struct tonic_flow *f,
			 u32 seg, int rtx, u64 now)
{
	u32 slot = f->ring_head + f->ring_cnt;

	if (slot >= f->ring_size)
		slot -= f->ring_size;
	f->ring[slot] = seg;
	if (rtx)
		f->ring_rtx |= 1U << slot;
	else
		f->ring_rtx &= ~(1U << slot);
	f->ring_cnt++;
	eng_credit_check(eng, f, now);
}

/*
 * Generate addresses for @f, popped from the active FIFO, and emit them
 * as they come while the ring is empty and credit allows (§3.4 cut-through).
 * A flow alone in the scheduler (both FIFOs empty) would be popped again
 * at once, so it goes on here, up to @room addresses, in the order the
 * round-robin would give them.  Returns the addresses written to @d.
 */
static unsigned int eng_dd_run(struct tonic_engine *eng, struct tonic_flow *f,
			       u64 now, struct tonic_seg_desc *d,
			       unsigned int room)
{
	unsigned int n = 0;
	u32 seg;
	int rtx;

	if (f->scheme == TONIC_CREDIT_WINDOW && !f->nmarked && !f->ring_cnt &&
	    !eng->active.cnt && !eng->ready.cnt)
		return eng_dd_new_run(eng, f, now, d, room);
	do {
		rtx = tonic_dd_next_seg(f, &seg);
		if (rtx < 0)
			break;
		if (f->ring_cnt ||
		    !tonic_cr_ok(f, tonic_dd_seg_len(f, seg), now)) {
			eng_ring_put(eng, f, seg, rtx, now);
			break;
		}
		eng_emit(eng, f, seg, rtx, now, &d[n++]);
		eng->st.cut_through++;
	} while (n < room && !eng->active.cnt && !eng->ready.cnt);
	return n;
}

/* One data-delivery step: returns the addresses it wrote to @d. */
static unsigned int eng_dd_step(struct tonic_engine *eng, u64 now,
				struct tonic_seg_desc *d, unsigned int room)
{
	struct tonic_flow *f = tonic_fifo_pop(&eng->active);
	struct tonic_flow *next = tonic_fifo_peek(&eng->active,
						   ENG_PREFETCH_AHEAD);
	unsigned int n;

	if (next)
		tenv_prefetch(next);
	f->flags &= ~TF_ACTIVE;
	if (unlikely(f->flags & TF_DEAD)) {
		eng_zombie_put(eng, f);
		return 0;
	}
	n = eng_dd_run(eng, f, now, d, room);
	eng_activate(eng, f);
	return n;
}

/* One credit-engine step: returns 1 if it wrote *d. */
static unsigned int eng_cr_step(struct tonic_engine *eng, u64 now,
				struct tonic_seg_desc *d)
{
	struct tonic_flow *f = tonic_fifo_pop(&eng->ready);
	struct tonic_flow *next = tonic_fifo_peek(&eng->ready,
						   ENG_PREFETCH_AHEAD);
	unsigned int n = 0;
	u32 seg;

	if (next)
		tenv_prefetch(next);
	f->flags &= ~TF_READY;
	if (unlikely(f->flags & TF_DEAD)) {
		eng_zombie_put(eng, f);
		return 0;
	}
	if (eng_ring_head(eng, f, &seg) &&
	    tonic_cr_ok(f, tonic_dd_seg_len(f, seg), now)) {
		int rtx = !!(f->ring_rtx & (1U << f->ring_head));

		if (++f->ring_head == f->ring_size)
			f->ring_head = 0;
		f->ring_cnt--;		/* §3.1 step 9 */
		if (unlikely(f->nmarked) && tb_test(f->rtx, seg & (f->k - 1))) {
			/* marked while queued: this emission serves the mark */
			tb_clear(f->rtx, seg & (f->k - 1));
			f->nmarked--;
		}
		eng_emit(eng, f, seg, rtx, now, d);
		n = 1;
	}
	eng_activate(eng, f);
	eng_credit_check(eng, f, now);
	return n;
}

static void eng_credit_timers(struct tonic_engine *eng, u64 now)
{
	struct tonic_flow *f;

	while ((f = tonic_heap_pop(&eng->cr_timers, now)))
		eng_credit_check(eng, f, now);
}

unsigned int tonic_engine_tx(struct tonic_engine *eng, u64 now,
			     struct tonic_seg_desc *out, unsigned int max)
{
	unsigned int n = 0;

	if (tonic_heap_top(&eng->cr_timers) <= now)
		eng_credit_timers(eng, now);
	while (n < max) {
		if (eng->active.cnt)
			n += eng_dd_step(eng, now, &out[n], max - n);
		else if (!eng->ready.cnt)
			break;
		if (n < max && eng->ready.cnt)
			n += eng_cr_step(eng, now, &out[n]);
	}
	if (n) {
		eng->st.segs_sent += n;
		eng->st.batches++;
	}
	return n;
}

/* Everything after a hook ran: timers, activity, credit, notifications. */
static void eng_after_hook(struct tonic_engine *eng, struct tonic_flow *f,
			   u32 old_start, u64 now)
{
	if (f->wnd_start != old_start) {
		u32 what = TONIC_NOTIFY_HEAD;

		if ((f->flags & TF_SUBSEG) && f->wnd_start == f->tail) {
			f->flags &= ~TF_SUBSEG;
			what |= TONIC_NOTIFY_SUBSEG;
		}
		eng_notify(eng, f, what);
	}
	tonic_dd_timer_sync(eng, f, now);
	eng_activate(eng, f);
	if (f->ring_cnt)
		eng_credit_check(eng, f, now);
}

static void eng_ctrl_one(struct tonic_engine *eng, struct tonic_flow *f,
			 const struct tonic_ctrl_desc *ev, u64 now)
{
	u32 old = f->wnd_start, newly;
	struct tonic_flow_ctx c;

	newly = tonic_dd_stage1(eng, f, ev);
	if (ev->flags & TONIC_CF_GRANT)
		tonic_cr_grant(f, ev->grant);
	tonic_ctx_fill(f, &c, now);
	c.ev = *ev;
	c.newly_acked = newly;
	c.old_wnd_start = old;
	f->ops->incoming(&c, tonic_flow_user(f));
	tonic_ctx_apply(eng, f, &c, now);
	f->flags |= TF_CTRL;
	f->ctrl_now = now;
	eng_after_hook(eng, f, old, now);
}

/* Warm what the control path reads of any flow (lines 0-2, see flow.h). */
static void eng_prefetch_flow(const struct tonic_flow *f)
{
	const u8 *p = (const u8 *)f;

	tenv_prefetch(p);
	tenv_prefetch(p + 64);
	tenv_prefetch(p + 128);
}

/* Later, with line 0 in: the user state, and the credit line if used. */
static void eng_prefetch_flow_more(const struct tonic_flow *f)
{
	tenv_prefetch(tonic_flow_user(f));
	if (f->scheme != TONIC_CREDIT_WINDOW)
		tenv_prefetch(&f->rate_mant);
}

/*
 * Events are processed in order; their flows are looked up ENG_CTRL_AHEAD
 * events early (hash slots twice as early) so that table and flow cache
 * misses overlap.  Nothing in a control event adds or removes flows, so a
 * pointer found early is still valid when its event comes.
 */
unsigned int tonic_engine_ctrl(struct tonic_engine *eng,
			       const struct tonic_ctrl_desc *ev,
			       unsigned int n, u64 now)
{
	struct tonic_flow *ahead[ENG_CTRL_AHEAD];
	u32 slot[ENG_CTRL_AHEAD];
	const u32 mask = ENG_CTRL_AHEAD - 1;
	unsigned int i, j, done = 0;

	/* stage 1 (2 * AHEAD early): hash slot; stage 2 (AHEAD): the flow */
	for (j = 0; j < n && j < 2 * ENG_CTRL_AHEAD; j++) {
		u32 s = tonic_ft_slot(&eng->tab, ev[j].flow_id);

		if (j < ENG_CTRL_AHEAD) {
			ahead[j] = tonic_ft_find_at(&eng->tab, ev[j].flow_id, s);
			if (ahead[j])
				eng_prefetch_flow(ahead[j]);
		} else {
			slot[j & mask] = s;
			tenv_prefetch(&eng->tab.t[s]);
		}
	}
	for (i = 0; i < n; i++) {
		struct tonic_flow *f = ahead[i & mask], *g;

		j = i + ENG_CTRL_AHEAD;
		if (j < n) {
			g = tonic_ft_find_at(&eng->tab, ev[j].flow_id,
					     slot[j & mask]);
			ahead[j & mask] = g;
			if (g)
				eng_prefetch_flow(g);
		}
		j = i + 2 * ENG_CTRL_AHEAD;
		if (j < n) {
			slot[j & mask] = tonic_ft_slot(&eng->tab,
						       ev[j].flow_id);
			tenv_prefetch(&eng->tab.t[slot[j & mask]]);
		}
		j = i + ENG_CTRL_AHEAD / 2;
		if (j < n && ahead[j & mask])	/* line 0 is in by now */
			eng_prefetch_flow_more(ahead[j & mask]);
		if (!f) {
			eng->st.ctrl_bad++;
			continue;
		}
		eng_ctrl_one(eng, f, &ev[i], now);
		done++;
	}
	eng->st.ctrl_events += done;
	return done;
}

/* Run the periodic hook; @timeout says whether the rtx timer expired. */
static void eng_periodic(struct tonic_engine *eng, struct tonic_flow *f,
			 bool timeout, u64 now)
{
	bool same_step = (f->flags & TF_CTRL) && f->ctrl_now == now;
	void *user = tonic_flow_user(f);
	struct tonic_flow_ctx c;
	bool probe = false;
	u32 marked;

	if (same_step && f->ops->merge_prio == TONIC_MERGE_INCOMING_WINS) {
		/* incoming's user writes win: periodic writes a scratch copy */
		memcpy(eng->scratch, user, f->ops->user_size);
		user = eng->scratch;
	}
	tonic_ctx_fill(f, &c, now);
	if (timeout) {
		probe = f->flags & TF_PROBE;
		f->flags &= ~TF_PROBE;
		c.timeout = probe ? TONIC_TIMEOUT_PROBE : TONIC_TIMEOUT_RTO;
	}
	f->ops->periodic(&c, user);
	marked = tonic_ctx_apply(eng, f, &c, now);
	if (timeout) {
		if (probe) {
			f->probes++;
			eng->st.probes++;
		} else {
			f->timeouts++;
			eng->st.timeouts++;
		}
		/* grant scheme: the receiver will not pay for these (§3.3) */
		tonic_cr_grant(f, (u64)marked * f->seg_size);
		if (!(c.out.flags & (TONIC_OUT_TIMER | TONIC_OUT_TIMER_STOP)))
			tonic_dd_arm_rto(eng, f, now + f->rto_ns);
	}
	eng_after_hook(eng, f, f->wnd_start, now);
}

static void eng_dd_timer(struct tonic_engine *eng, struct tonic_flow *f,
			 u64 now)
{
	bool rto = (f->flags & TF_RTO) && f->rto_expiry <= now;
	bool per = f->periodic_next && f->periodic_next <= now;
	u64 key = U64_MAX;

	if (rto && (f->flags & TF_CTRL) && f->ctrl_now == now) {
		/* §3.4: ack and timeout in one step: drop the timeout */
		eng->st.timeouts_merged++;
		rto = false;
	}
	if (per)
		f->periodic_next = now + f->ops->periodic_ns;
	if (rto || per)
		eng_periodic(eng, f, rto, now);
	if (f->flags & TF_RTO)
		key = f->rto_expiry;
	if (f->periodic_next)
		key = min(key, f->periodic_next);
	if (key == U64_MAX)
		return;
	tonic_heap_set(&eng->dd_timers, f, max(key, now + 1));
}

void tonic_engine_timers(struct tonic_engine *eng, u64 now)
{
	struct tonic_flow *f;

	while ((f = tonic_heap_pop(&eng->dd_timers, now)))
		eng_dd_timer(eng, f, now);
	eng_credit_timers(eng, now);
}

u64 tonic_engine_next_timer(const struct tonic_engine *eng)
{
	return min(tonic_heap_top(&eng->dd_timers),
		   tonic_heap_top(&eng->cr_timers));
}

unsigned int tonic_engine_poll_notify(struct tonic_engine *eng,
				      struct tonic_notify_desc *out,
				      unsigned int max)
{
	unsigned int n = 0;

	while (n < max && eng->notify.cnt) {
		struct tonic_flow *f = tonic_fifo_pop(&eng->notify);

		f->flags &= ~TF_NOTIFY;
		if (f->flags & TF_DEAD) {
			eng_zombie_put(eng, f);
			continue;
		}
		out[n].flow_id = f->id;
		out[n].flags = (f->flags & TF_NOTE_MASK) >> TF_NOTE_SHIFT;
		out[n].head = f->wnd_start;
		f->flags &= ~TF_NOTE_MASK;
		n++;
	}
	return n;
}

int tonic_engine_flow_stats(const struct tonic_engine *eng, u32 flow_id,
			    struct tonic_flow_stats *st)
{
	const struct tonic_flow *f = tonic_ft_find(&eng->tab, flow_id);

	if (!f)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->flow_id = f->id;
	st->wnd_start = f->wnd_start;
	st->next_new = f->next_new;
	st->tail = f->tail;
	st->wnd = f->wnd;
	st->wnd_max = f->k;
	st->in_flight = f->next_new - f->wnd_start;
	st->outstanding = f->ring_cnt;
	st->marked = f->nmarked;
	st->rate_bps = f->rate_bps;
	st->credit_bytes = tonic_cr_credit_bytes(f);
	st->rto_ns = f->rto_ns;
	st->segs_sent = f->segs_sent;
	st->rtx_sent = f->rtx_sent;
	st->timeouts = f->timeouts;
	st->probes = f->probes;
	st->acked_segs = f->acked_segs;
	st->violations = f->violations;
	return 0;
}

void tonic_engine_stats(const struct tonic_engine *eng,
			struct tonic_engine_stats *st)
{
	*st = eng->st;
	st->flows = eng->tab.n;
	st->bytes_state = sizeof(*eng) + eng->flow_bytes +
			  tonic_ft_bytes(&eng->tab) +
			  3 * (u64)eng->cap * sizeof(struct tonic_flow *) +
			  2 * (u64)eng->cap * sizeof(struct tonic_heap_ent);
}

size_t tonic_engine_flow_bytes(const struct tonic_proto_ops *ops,
			       unsigned int ring_size)
{
	if (!ops)
		ops = &tonic_newreno_ops;
	if (!ring_size)
		ring_size = TONIC_DEF_RING;
	/* the hash table is at most half full: two entries per flow */
	return eng_flow_alloc_size(ops, ring_size) +
	       2 * sizeof(struct tonic_ft_ent) +
	       3 * sizeof(struct tonic_flow *) +
	       2 * sizeof(struct tonic_heap_ent);
}
