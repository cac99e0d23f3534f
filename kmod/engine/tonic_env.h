/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic transport-logic engine: the environment it runs in.
 *
 * The engine is portable C.  This header is the only place that knows
 * whether it is built into tonic.ko (__KERNEL__) or into the userspace
 * library used by the unit tests, the benchmark and the simulator.  It maps
 * integer types, allocation, logging, bit operations and 64-bit division.
 *
 * Time is never read here: every engine entry point takes the current time
 * in nanoseconds from its caller.  Locking is the caller's job too: one
 * engine instance is not thread-safe and its callers must serialise all
 * calls on it (in the kernel, one spinlock per engine instance).
 *
 * No floating point and no 128-bit arithmetic is used anywhere in the
 * engine: rates and protocol parameters are fixed-point integers.
 */
#ifndef _TONIC_ENV_H
#define _TONIC_ENV_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/printk.h>
#include <linux/prefetch.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <asm/byteorder.h>

#define tenv_zalloc(sz)		kzalloc((sz), GFP_ATOMIC)
#define tenv_free(p)		kfree(p)
/*
 * Zeroed and aligned to a cache line (freed with tenv_free).  kmalloc
 * aligns power-of-two sizes naturally; above 256 bytes every kmalloc
 * cache is a power of two, so rounding up costs no memory.
 */
#define tenv_zalloc_lines(sz)	kzalloc(roundup_pow_of_two(max_t(size_t, (sz), 64)), \
					GFP_ATOMIC)
/* Large tables (hash, FIFOs, timer heaps): may come from vmalloc. */
#define tenv_kvzalloc(sz)	kvzalloc((sz), GFP_KERNEL)
#define tenv_kvfree(p)		kvfree(p)

#define tenv_warn(fmt, ...)	pr_warn_ratelimited("tonic: " fmt, ##__VA_ARGS__)

static inline unsigned int tenv_ffs64(u64 x)	/* x != 0 */
{
	return __ffs64(x);
}

static inline unsigned int tenv_popcount64(u64 x)
{
	return hweight64(x);
}

static inline u64 tenv_div64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

#define tenv_prefetch(p)	prefetch(p)

/* Wire fields (big endian) to host order. */
#define tenv_be16(x)		be16_to_cpu(x)
#define tenv_be32(x)		be32_to_cpu(x)

#else /* !__KERNEL__ */

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <endian.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef U16_MAX
#define U16_MAX		((u16)~0U)
#endif
#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif
#ifndef S64_MAX
#define S64_MAX		((s64)(U64_MAX >> 1))
#endif

#ifndef min
#define min(a, b)	((a) < (b) ? (a) : (b))
#endif
#ifndef max
#define max(a, b)	((a) > (b) ? (a) : (b))
#endif
#ifndef min_t
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#endif
#ifndef max_t
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#endif
#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/*
 * Userspace allocation.  tenv_alloc_fail_after lets tests inject an
 * allocation failure: when it is > 0 it counts down and the allocation
 * that brings it to 0 fails.
 */
extern int tenv_alloc_fail_after;

static inline void *tenv_zalloc(size_t sz)
{
	if (tenv_alloc_fail_after > 0 && --tenv_alloc_fail_after == 0)
		return NULL;
	return calloc(1, sz);
}

static inline void tenv_free(void *p)
{
	free(p);
}

/* Zeroed, aligned to a 64-byte cache line, @sz a multiple of 64. */
static inline void *tenv_zalloc_lines(size_t sz)
{
	void *p;

	if (tenv_alloc_fail_after > 0 && --tenv_alloc_fail_after == 0)
		return NULL;
	p = aligned_alloc(64, sz);
	if (p)
		memset(p, 0, sz);
	return p;
}

#define tenv_kvzalloc(sz)	tenv_zalloc(sz)
#define tenv_kvfree(p)		tenv_free(p)

#define tenv_warn(fmt, ...)	fprintf(stderr, "tonic: " fmt, ##__VA_ARGS__)

static inline unsigned int tenv_ffs64(u64 x)	/* x != 0 */
{
	return (unsigned int)__builtin_ctzll(x);
}

static inline unsigned int tenv_popcount64(u64 x)
{
#ifdef __POPCNT__
	return (unsigned int)__builtin_popcountll(x);
#else
	/* without -mpopcnt the builtin is a libgcc call; SWAR is inline */
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline u64 tenv_div64(u64 a, u64 b)
{
	return a / b;
}

#define tenv_prefetch(p)	__builtin_prefetch(p)

#define tenv_be16(x)		be16toh(x)
#define tenv_be32(x)		be32toh(x)

#endif /* __KERNEL__ */

/* Serial-number comparison of 32-bit segment indices (RFC 1982 style). */
static inline bool tonic_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool tonic_seq_after(u32 a, u32 b)
{
	return (s32)(b - a) < 0;
}

#endif /* _TONIC_ENV_H */
