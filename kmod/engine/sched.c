// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the flow scheduler's queues and the timer heaps.
 *
 * The active, ready-to-tx and notify sets are FIFOs (round-robin between
 * flows, Tonic §3.1).  A flow is in each FIFO at most once (a flag in the
 * flow guards it), so a ring array with one slot per flow never overflows;
 * it is an array rather than a list so the scheduler can prefetch the
 * flows it will serve next.
 *
 * Timers are two binary min-heaps of (deadline, flow): one for the
 * retransmission timer and periodic work, one for rate-credit wake-ups
 * (T = L / R, §3.3).  Each flow remembers its index so it can be removed
 * or moved in O(log n).  The retransmission heap is lazy: when an ack
 * pushes a timer later, only the flow's field changes; the heap entry
 * fires early and is re-inserted at the real deadline (delivery.c).
 */
#include "flow.h"

int tonic_fifo_init(struct tonic_fifo *q, u32 cap)
{
	q->q = tenv_kvzalloc((size_t)cap * sizeof(*q->q));
	if (!q->q)
		return -ENOMEM;
	q->head = 0;
	q->cnt = 0;
	q->mask = cap - 1;
	return 0;
}

void tonic_fifo_free(struct tonic_fifo *q)
{
	tenv_kvfree(q->q);
	q->q = NULL;
}

/* @cap is a power of two larger than the current one. */
int tonic_fifo_grow(struct tonic_fifo *q, u32 cap)
{
	struct tonic_flow **nq;
	u32 i;

	nq = tenv_kvzalloc((size_t)cap * sizeof(*nq));
	if (!nq)
		return -ENOMEM;
	for (i = 0; i < q->cnt; i++)
		nq[i] = q->q[(q->head + i) & q->mask];
	tenv_kvfree(q->q);
	q->q = nq;
	q->head = 0;
	q->mask = cap - 1;
	return 0;
}

int tonic_heap_init(struct tonic_heap *h, u32 cap, bool dd)
{
	h->h = tenv_kvzalloc((size_t)cap * sizeof(*h->h));
	if (!h->h)
		return -ENOMEM;
	h->n = 0;
	h->cap = cap;
	h->dd = dd;
	return 0;
}

void tonic_heap_free(struct tonic_heap *h)
{
	tenv_kvfree(h->h);
	h->h = NULL;
}

int tonic_heap_grow(struct tonic_heap *h, u32 cap)
{
	struct tonic_heap_ent *nh;

	nh = tenv_kvzalloc((size_t)cap * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	memcpy(nh, h->h, (size_t)h->n * sizeof(*nh));
	tenv_kvfree(h->h);
	h->h = nh;
	h->cap = cap;
	return 0;
}

static u32 *heap_idx(const struct tonic_heap *h, struct tonic_flow *f)
{
	return h->dd ? &f->dd_heap : &f->cr_heap;
}

static void heap_put(struct tonic_heap *h, u32 i, struct tonic_heap_ent e)
{
	h->h[i] = e;
	*heap_idx(h, e.f) = i + 1;
	if (h->dd)
		e.f->dd_key = e.key;	/* see tonic_dd_heap_want() */
}

static void heap_up(struct tonic_heap *h, u32 i)
{
	struct tonic_heap_ent e = h->h[i];

	while (i) {
		u32 p = (i - 1) / 2;

		if (h->h[p].key <= e.key)
			break;
		heap_put(h, i, h->h[p]);
		i = p;
	}
	heap_put(h, i, e);
}

static void heap_down(struct tonic_heap *h, u32 i)
{
	struct tonic_heap_ent e = h->h[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->h[c + 1].key < h->h[c].key)
			c++;
		if (e.key <= h->h[c].key)
			break;
		heap_put(h, i, h->h[c]);
		i = c;
	}
	heap_put(h, i, e);
}

/* Insert @f with deadline @key, or move it there if already queued. */
void tonic_heap_set(struct tonic_heap *h, struct tonic_flow *f, u64 key)
{
	u32 idx = *heap_idx(h, f);
	struct tonic_heap_ent e = { .key = key, .f = f };

	if (idx) {
		u64 old = h->h[idx - 1].key;

		h->h[idx - 1].key = key;
		if (key < old)
			heap_up(h, idx - 1);
		else
			heap_down(h, idx - 1);
		return;
	}
	/* capacity is kept >= number of flows by the engine */
	heap_put(h, h->n, e);
	heap_up(h, h->n++);
}

void tonic_heap_del(struct tonic_heap *h, struct tonic_flow *f)
{
	u32 idx = *heap_idx(h, f);
	struct tonic_heap_ent last;

	if (!idx)
		return;
	*heap_idx(h, f) = 0;
	if (h->dd)
		f->dd_key = U64_MAX;
	if (idx - 1 == --h->n)
		return;
	last = h->h[h->n];
	heap_put(h, idx - 1, last);
	heap_up(h, idx - 1);
	heap_down(h, *heap_idx(h, last.f) - 1);
}

/* Remove and return the earliest flow if its deadline is <= @now. */
struct tonic_flow *tonic_heap_pop(struct tonic_heap *h, u64 now)
{
	struct tonic_flow *f;

	if (!h->n || h->h[0].key > now)
		return NULL;
	f = h->h[0].f;
	tonic_heap_del(h, f);
	return f;
}
