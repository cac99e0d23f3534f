/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: the seeded pseudo-random number generator.
 *
 * xorshift64* seeded through splitmix64, so that any seed (including 0)
 * gives a good state.  Same seed, same sequence, on every machine: the
 * simulator draws every random number from one generator in event order,
 * and event order is total (time, then insertion sequence).
 */
#ifndef _SIM_RNG_H
#define _SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s;
};

static inline uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	r->s = sim_splitmix64(&x);
	if (!r->s)
		r->s = 1;
}

static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift, bias < 2^-32). */
static inline uint32_t sim_rng_below(struct sim_rng *r, uint32_t n)
{
	return (uint32_t)(((sim_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* True with probability ppm / 1e6. */
static inline int sim_rng_ppm(struct sim_rng *r, uint32_t ppm)
{
	return ppm && sim_rng_below(r, 1000000) < ppm;
}

/* Uniform in [0, 1) with 53 bits (for workload generation only). */
static inline double sim_rng_unit(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* _SIM_RNG_H */
