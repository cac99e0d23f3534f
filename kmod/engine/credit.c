// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic engine: the credit engine's arithmetic (Tonic §3.3).
 *
 * Three schemes.  WINDOW has no credit here (the window is enforced by the
 * data-delivery engine).  GRANT counts bytes: credit = tokens granted -
 * bytes sent.  RATE is a token bucket with rate R and maximum burst D:
 * credit(t) = min(credit(t0) + R * (t - t0), D); a flow lacking L bytes
 * sleeps for T = L / R on the credit timer heap.
 *
 * Rate representation.  Tonic's Appendix B shows that one integer
 * bytes-per-cycle value cannot cover 1 Mb/s..100 Gb/s: it either cannot
 * go low or quantises high rates (a 20 Gb/s flow of 1500 B segments waits
 * 1000 cycles instead of 8).  Tonic keeps several representations R1..Rk
 * and picks the most precise that fits.  We take that idea to its limit:
 * a rate is a 24-bit mantissa and a per-flow binary exponent,
 *
 *	R = rate_mant / 2^rate_shift  bytes per ns,   2^23 <= rate_mant < 2^24
 *
 * and the flow's credit is kept in units of 2^-rate_shift bytes, so an
 * accrual is one multiply (elapsed_ns * rate_mant) with no rounding: the
 * only error is the truncation of the mantissa, below 2^-23 relative, for
 * every rate from 100 kb/s to 1.6 Tb/s.  Elapsed time is capped at 2^39 ns
 * (the bucket is full long before) so the product fits in 63 bits.
 */
#include "flow.h"

#define CR_MANT_BITS		24
#define CR_MAX_ELAPSED_NS	(1ULL << 39)
#define CR_NS_PER_S_X8		8000000000ULL	/* bits/s -> bytes/ns */
#define CR_GRANT_MAX		(1LL << 62)

static unsigned int cr_fls64(u64 x)
{
	unsigned int n = 0;

	while (x) {
		x >>= 1;
		n++;
	}
	return n;
}

/*
 * The bucket holds D plus one nanosecond of credit: timers are whole ns,
 * so a flow woken at ceil(L / R) has a sub-ns excess that must carry over
 * to the next segment (with D = L it would be lost on every segment: 3 %
 * at 400 Gb/s with 1500 B segments).
 */
static s64 cr_cap(const struct tonic_flow *f)
{
	return (s64)(((u64)f->burst << f->rate_shift) + f->rate_mant);
}

/* Convert the credit to a new exponent. */
static void cr_rescale(struct tonic_flow *f, unsigned int shift)
{
	u64 mag = f->credit < 0 ? -(u64)f->credit : (u64)f->credit;

	if (shift > f->rate_shift)
		mag <<= shift - f->rate_shift;
	else
		mag >>= f->rate_shift - shift;
	f->credit = f->credit < 0 ? -(s64)mag : (s64)mag;
	f->rate_shift = shift;
}

/**
 * tonic_cr_set_rate() - set a flow's rate, keeping its credit in bytes
 * @f: flow
 * @bps: rate in bits per second, already within the flow's bounds
 */
void tonic_cr_set_rate(struct tonic_flow *f, u64 bps)
{
	/* leave headroom so burst << shift and a charge fit in s64 */
	unsigned int s = 62 - cr_fls64((u64)f->burst + TONIC_MAX_SEGMENT_BYTES);
	u64 m = 0;

	if (s > 48)
		s = 48;
	for (; s > 0; s--) {
		if (bps > (U64_MAX >> s))
			continue;
		m = tenv_div64(bps << s, CR_NS_PER_S_X8);
		if (m < (1ULL << CR_MANT_BITS))
			break;
	}
	if (!m)
		m = 1;
	cr_rescale(f, s);
	f->rate_mant = (u32)m;
	f->rate_bps = bps;
}

void tonic_cr_accrue(struct tonic_flow *f, u64 now)
{
	u64 elapsed = now - f->credit_t;
	s64 cap = cr_cap(f);
	u64 add;

	f->credit_t = now;
	if (f->credit >= cap)
		return;
	if (elapsed >= CR_MAX_ELAPSED_NS) {
		f->credit = cap;
		return;
	}
	add = elapsed * f->rate_mant;
	if (add >= (u64)(cap - f->credit))
		f->credit = cap;
	else
		f->credit += (s64)add;
}

/**
 * tonic_cr_wait_ns() - time until a rate flow has credit for @len bytes
 * @f: flow (credit accrued up to f->credit_t)
 * @len: bytes
 *
 * Return: T = L / R rounded up, or U64_MAX for the other schemes (they
 * wait for tokens, not time).
 */
u64 tonic_cr_wait_ns(const struct tonic_flow *f, u32 len)
{
	s64 need;

	if (f->scheme != TONIC_CREDIT_RATE)
		return U64_MAX;
	need = ((s64)len << f->rate_shift) - f->credit;
	if (need <= 0)
		return 0;
	return tenv_div64((u64)need + f->rate_mant - 1, f->rate_mant);
}

/* Add granted tokens (also used for timeout retransmissions). */
void tonic_cr_grant(struct tonic_flow *f, u64 bytes)
{
	if (f->scheme != TONIC_CREDIT_GRANT)
		return;
	if (bytes > (u64)(CR_GRANT_MAX - f->credit))
		f->credit = CR_GRANT_MAX;
	else
		f->credit += (s64)bytes;
}

s64 tonic_cr_credit_bytes(const struct tonic_flow *f)
{
	if (f->scheme == TONIC_CREDIT_RATE)
		return f->credit >> f->rate_shift;
	return f->credit;
}
