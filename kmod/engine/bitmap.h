/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic engine: ring bitmaps of K bits (K a power of two, 1..256).
 *
 * Segment s of a flow lives at bit (s % K).  The window slides by clearing
 * the bits of the segments that leave it; nothing is ever shifted.  A
 * search for the first set bit starting at the window head H uses Tonic's
 * Appendix C method: clear bits [0, H) in a copy A' of the map; the answer
 * is the first set bit of A' if it has one, else the first set bit of A.
 * Every function here is pure and has no state of its own.
 */
#ifndef _TONIC_BITMAP_H
#define _TONIC_BITMAP_H

#include "tonic_env.h"

#define TB_WORDS	4	/* 256 bits */

static inline unsigned int tb_nwords(unsigned int k)
{
	return (k + 63) / 64;
}

static inline bool tb_test(const u64 *map, unsigned int i)
{
	return (map[i / 64] >> (i % 64)) & 1;
}

static inline void tb_set(u64 *map, unsigned int i)
{
	map[i / 64] |= 1ULL << (i % 64);
}

static inline void tb_clear(u64 *map, unsigned int i)
{
	map[i / 64] &= ~(1ULL << (i % 64));
}

/* Bits [lo, hi) of one word, 0 <= lo < hi <= 64. */
static inline u64 tb_word_mask(unsigned int lo, unsigned int hi)
{
	u64 m = hi == 64 ? ~0ULL : (1ULL << hi) - 1;

	return m & ~((1ULL << lo) - 1);
}

/* First set bit in [lo, hi) (no wrap), or hi if none. */
static inline unsigned int tb_ffs_lin(const u64 *map, unsigned int lo,
				      unsigned int hi)
{
	unsigned int w;

	if (lo >= hi)
		return hi;
	for (w = lo / 64; w * 64 < hi; w++) {
		unsigned int b0 = w * 64;
		u64 x = map[w] & tb_word_mask(max(lo, b0) - b0,
					      min(hi, b0 + 64) - b0);

		if (x)
			return b0 + tenv_ffs64(x);
	}
	return hi;
}

/*
 * tb_ffs_from - Appendix C find-first-set in a K-bit ring from head @h.
 * Return: the bit index, or @k if the map is empty.
 */
static inline unsigned int tb_ffs_from(const u64 *map, unsigned int k,
				       unsigned int h)
{
	unsigned int w, nw = tb_nwords(k);
	u64 kmask = k >= 64 ? ~0ULL : (1ULL << k) - 1;

	/* A' = A with bits [0, h) cleared */
	for (w = h / 64; w < nw; w++) {
		u64 x = map[w] & kmask;

		if (w == h / 64)
			x &= ~((1ULL << (h % 64)) - 1);
		if (x)
			return w * 64 + tenv_ffs64(x);
	}
	/* A' empty: first set bit of A (it is below h if any) */
	for (w = 0; w <= h / 64 && w < nw; w++) {
		u64 x = map[w] & kmask;

		if (x)
			return w * 64 + tenv_ffs64(x);
	}
	return k;
}

/* First zero bit from head @h in a K-bit ring, or @k if all are set. */
static inline unsigned int tb_ffz_from(const u64 *map, unsigned int k,
				       unsigned int h)
{
	u64 inv[TB_WORDS];
	unsigned int w;

	for (w = 0; w < tb_nwords(k); w++)
		inv[w] = ~map[w];
	return tb_ffs_from(inv, k, h);
}

/* Bits [off, off + len) of one word, 1 <= len <= 64 - off. */
static inline u64 tb_run_mask(unsigned int off, unsigned int len)
{
	return (~0ULL >> (64 - len)) << off;
}

/*
 * Apply @op to @cnt ring bits starting at @i (cnt <= k), one word-sized
 * run at a time: 0 counts, 1 sets, 2 clears.  Return: bits that were set
 * (count, clear).
 */
static inline unsigned int tb_range_op(u64 *map, unsigned int k,
				       unsigned int i, unsigned int cnt,
				       int op)
{
	unsigned int n = 0;

	while (cnt) {
		unsigned int b = i & (k - 1), off = b % 64;
		unsigned int len = min(cnt, min(k - b, 64 - off));
		u64 m = tb_run_mask(off, len), *w = &map[b / 64];

		if (op != 1)		/* count or clear: how many set */
			n += tenv_popcount64(*w & m);
		if (op == 1)
			*w |= m;
		else if (op == 2)
			*w &= ~m;
		i += len;
		cnt -= len;
	}
	return n;
}

static inline unsigned int tb_count(const u64 *map, unsigned int k,
				    unsigned int i, unsigned int cnt)
{
	return tb_range_op((u64 *)map, k, i, cnt, 0);
}

static inline void tb_set_range(u64 *map, unsigned int k, unsigned int i,
				unsigned int cnt)
{
	tb_range_op(map, k, i, cnt, 1);
}

/* Clear a range; returns how many bits were set in it. */
static inline unsigned int tb_clear_range(u64 *map, unsigned int k,
					  unsigned int i, unsigned int cnt)
{
	return tb_range_op(map, k, i, cnt, 2);
}

/*
 * Set the bits of @cnt ring positions from @i in @map where @skip has no
 * bit set (mark unacked segments).  Return: how many bits became set.
 */
static inline unsigned int tb_set_unless(u64 *map, const u64 *skip,
					 unsigned int k, unsigned int i,
					 unsigned int cnt)
{
	unsigned int n = 0;

	while (cnt) {
		unsigned int b = i & (k - 1), off = b % 64;
		unsigned int len = min(cnt, min(k - b, 64 - off));
		u64 add = tb_run_mask(off, len) & ~skip[b / 64] & ~map[b / 64];

		n += tenv_popcount64(add);
		map[b / 64] |= add;
		i += len;
		cnt -= len;
	}
	return n;
}

#endif /* _TONIC_BITMAP_H */
