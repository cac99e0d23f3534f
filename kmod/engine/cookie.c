// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic SYN cookies: encoding and checking the ISN (cookie.h).
 */
#include "cookie.h"
#include "accept.h"

/* C a cookie can carry, ascending: a chosen C is rounded down to one. */
static const u16 tonic_cookie_segs[] = {
	TONIC_MIN_SEGMENT, 256, 536, 1024, 1204, 1424, 1444, 8900,
};

#define TONIC_COOKIE_NSEGS	(sizeof(tonic_cookie_segs) / \
				 sizeof(tonic_cookie_segs[0]))

u32 tonic_cookie_encode(struct tonic_cookie_opts *o)
{
	unsigned int i = TONIC_COOKIE_NSEGS - 1;
	u32 w = min_t(u32, o->window, TONIC_MAX_WINDOW);
	u32 log = 0;

	while (i && tonic_cookie_segs[i] > o->seg_size)
		i--;
	o->seg_size = tonic_cookie_segs[i];
	while (2U << log <= w)
		log++;
	o->window = 1U << log;
	o->signals = (o->signals & TONIC_SIGNALS_KNOWN) | TONIC_SIG_ACK;
	return i | log << 3 | (o->signals >> 1) << 7;
}

int tonic_cookie_age(u32 cookie, u32 now)
{
	u32 age = (now - (cookie >> TONIC_COOKIE_BITS)) &
		  (~0U >> TONIC_COOKIE_BITS);

	return age > TONIC_COOKIE_AGE ? -1 : (int)age;
}

int tonic_cookie_decode(u32 cookie, u32 hash)
{
	u32 data = (cookie - hash) & TONIC_COOKIE_MASK;

	if (data >> TONIC_COOKIE_DATA_BITS ||
	    1U << (data >> 3 & 15) > TONIC_MAX_WINDOW)
		return -1;
	return data;
}

void tonic_cookie_opts(u32 data, struct tonic_cookie_opts *o)
{
	o->seg_size = tonic_cookie_segs[data & 7];
	o->window = 1U << (data >> 3 & 15);
	o->signals = (data >> 7) << 1 | TONIC_SIG_ACK;
}
