/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram: exact below 64 ns, then 64 sub-buckets per
 * power of two (worst-case relative error 1/64, about 1.6 %). Values are
 * nanoseconds; the exact minimum, maximum and sum are kept beside it.
 */
#ifndef TONIC_PERF_HIST_H
#define TONIC_PERF_HIST_H

#include <stdint.h>
#include <string.h>

#define HIST_SUB_BITS	6
#define HIST_SUB	(1u << HIST_SUB_BITS)
#define HIST_MAX_EXP	44			/* 2^44 ns: about 4.9 hours */
#define HIST_BUCKETS	((HIST_MAX_EXP - HIST_SUB_BITS + 2) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min, max;
	double sum;
	uint64_t b[HIST_BUCKETS];
};

static inline void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static inline unsigned int hist_bucket(uint64_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	if (e > HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Lowest and highest value that land in bucket i. */
static inline uint64_t hist_lo(unsigned int i)
{
	unsigned int e, sub;

	if (i < HIST_SUB)
		return i;
	e = i / HIST_SUB + HIST_SUB_BITS - 1;
	sub = i % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (e - HIST_SUB_BITS);
}

static inline uint64_t hist_hi(unsigned int i)
{
	unsigned int e;

	if (i < HIST_SUB)
		return i;
	e = i / HIST_SUB + HIST_SUB_BITS - 1;
	return hist_lo(i) + ((uint64_t)1 << (e - HIST_SUB_BITS)) - 1;
}

static inline void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_bucket(v)]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

static inline void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/*
 * The q-quantile (0 < q <= 1): the value of the ceil(q * count)-th smallest
 * sample, reported as the middle of its bucket and clamped to [min, max].
 */
static inline double hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int i;
	double v;

	if (!h->count)
		return 0;
	rank = (uint64_t)(q * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_BUCKETS)
		i--;
	v = ((double)hist_lo(i) + (double)hist_hi(i)) / 2;
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

#endif /* TONIC_PERF_HIST_H */
