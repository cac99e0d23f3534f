// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: the event queue, a binary min-heap keyed by (time,
 * insertion sequence).  The sequence makes the order of simultaneous
 * events total and reproducible: first scheduled, first run.
 */
#include "sim.h"

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_evq_init(struct sim_evq *q)
{
	memset(q, 0, sizeof(*q));
	q->cap = 1024;
	q->h = malloc(q->cap * sizeof(*q->h));
	return q->h ? 0 : -ENOMEM;
}

void sim_evq_free(struct sim_evq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = 0;
}

void sim_evq_push(struct sim_evq *q, const struct sim_ev *ev)
{
	struct sim_ev e = *ev;
	u32 i;

	if (q->n == q->cap) {
		struct sim_ev *h = realloc(q->h, 2 * q->cap * sizeof(*h));

		if (!h) {
			fprintf(stderr, "sim: out of memory for events\n");
			abort();
		}
		q->h = h;
		q->cap *= 2;
	}
	e.seq = q->seq++;
	i = q->n++;
	while (i) {
		u32 parent = (i - 1) / 2;

		if (!ev_before(&e, &q->h[parent]))
			break;
		q->h[i] = q->h[parent];
		i = parent;
	}
	q->h[i] = e;
}

bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev)
{
	struct sim_ev last;
	u32 i = 0;

	if (!q->n)
		return false;
	*ev = q->h[0];
	last = q->h[--q->n];
	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && ev_before(&q->h[c + 1], &q->h[c]))
			c++;
		if (!ev_before(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n)
		q->h[i] = last;
	return true;
}
