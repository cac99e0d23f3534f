// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: flow lookup by id.
 *
 * Flow ids are any u32 (Tonic's are limited to [0, 2048)).  An open
 * addressing hash table with linear probing maps an id to its flow; the
 * table stays at most half full and doubles when needed, and deletion
 * shifts later entries back so there are no tombstones.  Each entry keeps
 * the id next to the pointer so a probe never touches flow memory.
 */
#include "flow.h"

#define FT_MIN_SLOTS	64

static u32 ft_hash(u32 id, u32 mask)
{
	/*
	 * MurmurHash3's fmix32 finalizer, then the high bits scaled to the
	 * table.  (Plain Fibonacci hashing degenerates into chains of
	 * hundreds when the ids themselves are Fibonacci-spread.)
	 */
	id ^= id >> 16;
	id *= 0x85ebca6bU;
	id ^= id >> 13;
	id *= 0xc2b2ae35U;
	id ^= id >> 16;
	return (u32)(((u64)id * ((u64)mask + 1)) >> 32);
}

static u32 ft_slots_for(u32 n)
{
	u32 s = FT_MIN_SLOTS;

	while (s < 2 * (u64)n && s < (1U << 31))
		s <<= 1;
	return s;
}

int tonic_ft_init(struct tonic_flowtab *t, u32 hint)
{
	u32 slots = ft_slots_for(hint);

	t->t = tenv_kvzalloc((size_t)slots * sizeof(*t->t));
	if (!t->t)
		return -ENOMEM;
	t->mask = slots - 1;
	t->n = 0;
	return 0;
}

void tonic_ft_free(struct tonic_flowtab *t)
{
	tenv_kvfree(t->t);
	t->t = NULL;
}

/* The slot a lookup of @id starts at (for tonic_ft_find_at()). */
u32 tonic_ft_slot(const struct tonic_flowtab *t, u32 id)
{
	return ft_hash(id, t->mask);
}

/* tonic_ft_find() with the start slot computed earlier by tonic_ft_slot(). */
struct tonic_flow *tonic_ft_find_at(const struct tonic_flowtab *t, u32 id,
				    u32 i)
{
	for (;;) {
		const struct tonic_ft_ent *e = &t->t[i];

		if (!e->f)
			return NULL;
		if (e->id == id)
			return e->f;
		i = (i + 1) & t->mask;
	}
}

struct tonic_flow *tonic_ft_find(const struct tonic_flowtab *t, u32 id)
{
	u32 i = ft_hash(id, t->mask);

	for (;;) {
		const struct tonic_ft_ent *e = &t->t[i];

		if (!e->f)
			return NULL;
		if (e->id == id)
			return e->f;
		i = (i + 1) & t->mask;
	}
}

static void ft_place(struct tonic_ft_ent *tab, u32 mask, u32 id,
		     struct tonic_flow *f)
{
	u32 i = ft_hash(id, mask);

	while (tab[i].f)
		i = (i + 1) & mask;
	tab[i].id = id;
	tab[i].f = f;
}

static int ft_grow(struct tonic_flowtab *t)
{
	u32 slots = (t->mask + 1) * 2, i;
	struct tonic_ft_ent *nt;

	nt = tenv_kvzalloc((size_t)slots * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (i = 0; i <= t->mask; i++)
		if (t->t[i].f)
			ft_place(nt, slots - 1, t->t[i].id, t->t[i].f);
	tenv_kvfree(t->t);
	t->t = nt;
	t->mask = slots - 1;
	return 0;
}

int tonic_ft_insert(struct tonic_flowtab *t, struct tonic_flow *f)
{
	int err;

	if (2 * (u64)(t->n + 1) > t->mask + 1) {
		err = ft_grow(t);
		if (err)
			return err;
	}
	ft_place(t->t, t->mask, f->id, f);
	t->n++;
	return 0;
}

/* Backward-shift deletion (Knuth 6.4 Algorithm R). */
void tonic_ft_delete(struct tonic_flowtab *t, u32 id)
{
	u32 i = ft_hash(id, t->mask), j, h;

	while (t->t[i].f && t->t[i].id != id)
		i = (i + 1) & t->mask;
	if (!t->t[i].f)
		return;
	j = i;
	for (;;) {
		t->t[i].f = NULL;
		do {
			j = (j + 1) & t->mask;
			if (!t->t[j].f) {
				t->n--;
				return;
			}
			h = ft_hash(t->t[j].id, t->mask);
			/* leave j alone while its home h lies cyclically in (i, j] */
		} while (i <= j ? (i < h && h <= j) : (i < h || h <= j));
		t->t[i] = t->t[j];
		i = j;
	}
}

size_t tonic_ft_bytes(const struct tonic_flowtab *t)
{
	return (size_t)(t->mask + 1) * sizeof(*t->t);
}
