/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic SYN cookies: the arithmetic of the ISN a listener answers with
 * when it keeps no request sock.
 *
 * Portable C, built into tonic.ko (kmod/sock/syncookie.c computes the
 * keyed hash, reads the clock and makes the child) and natively (the
 * packet fuzzer and the unit tests, with hashes of their own).
 *
 * The ISN is count << 29 | (hash + data) mod 2^29, where count is the
 * minute (mod 8; a cookie lives TONIC_COOKIE_AGE minutes), hash the
 * caller's keyed hash of the connection and that minute, and data the 11
 * bits the listener chose: C as an index into the table of C a cookie can
 * carry (rounded down), log2(K), and the receiver signals (TONIC_SIG_ACK
 * is implied).  A forged ACK passes with odds of 2^-18.
 */
#ifndef _TONIC_COOKIE_H
#define _TONIC_COOKIE_H

#include "tonic_env.h"
#include <linux/tonic.h>

#define TONIC_COOKIE_BITS	29
#define TONIC_COOKIE_MASK	((1U << TONIC_COOKIE_BITS) - 1)
#define TONIC_COOKIE_AGE	2	/* minutes, TCP's MAX_SYNCOOKIE_AGE */
/* data: bits 0-2 C index, 3-6 log2(K), 7-10 signals >> 1 */
#define TONIC_COOKIE_DATA_BITS	11

/**
 * struct tonic_cookie_opts - what a SYN cookie carries of the handshake
 * @seg_size: C
 * @window: K, a power of two up to TONIC_MAX_WINDOW
 * @signals: TONIC_SIG_*, TONIC_SIG_ACK always set
 */
struct tonic_cookie_opts {
	u16 seg_size;
	u16 window;
	u32 signals;
};

/**
 * tonic_cookie_encode() - round a listener's choice to what a cookie
 *	carries, and encode it
 * @o: C (at least TONIC_MIN_SEGMENT), K (1 to TONIC_MAX_WINDOW) and the
 *	signals the listener chose; rounded in place (C down to the table,
 *	K down to a power of two, unknown signals dropped, ACK added)
 *
 * Return: the 11 data bits of the cookie.
 */
u32 tonic_cookie_encode(struct tonic_cookie_opts *o);

/**
 * tonic_cookie_isn() - the ISN of a SYN-ACK carrying a cookie
 * @count: the minute
 * @hash: the caller's keyed hash of the connection and @count
 * @data: tonic_cookie_encode()'s bits
 *
 * Return: the cookie, our ISN.
 */
static inline u32 tonic_cookie_isn(u32 count, u32 hash, u32 data)
{
	return count << TONIC_COOKIE_BITS | ((hash + data) & TONIC_COOKIE_MASK);
}

/**
 * tonic_cookie_age() - how old a cookie claims to be
 * @cookie: our ISN as the peer's ack brought it back (ack - 1)
 * @now: the minute now
 *
 * Return: its age in minutes (the caller hashes with @now - age), or -1
 * if it is older than TONIC_COOKIE_AGE.
 */
int tonic_cookie_age(u32 cookie, u32 now);

/**
 * tonic_cookie_decode() - the data of a cookie
 * @cookie: our ISN as the peer's ack brought it back
 * @hash: the caller's keyed hash for the cookie's minute
 *
 * Return: the data bits, or -1 if the cookie is not one we made (the
 * bits above the data are not 0, or K would exceed TONIC_MAX_WINDOW).
 */
int tonic_cookie_decode(u32 cookie, u32 hash);

/**
 * tonic_cookie_opts() - what the data bits of a valid cookie say
 * @data: tonic_cookie_decode()'s result, not negative
 * @o: filled in
 */
void tonic_cookie_opts(u32 data, struct tonic_cookie_opts *o);

#endif /* _TONIC_COOKIE_H */
