// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic handshake arithmetic (negotiate.h).
 */
#include "negotiate.h"
#include "accept.h"

/* The largest power of two not above @x (x > 0). */
static u16 tonic_pow2_floor(u16 x)
{
	while (x & (x - 1))
		x &= x - 1;
	return x;
}

void tonic_syn_choose(const struct tonic_syn_view *v, u16 window,
		      u32 signals, u32 user_seg, struct tonic_syn_choice *c)
{
	u16 k = min_t(u16, v->window, window);

	if (k < 1)
		k = 1;
	if (k > TONIC_MAX_WINDOW)
		k = TONIC_MAX_WINDOW;
	c->window = tonic_pow2_floor(k);
	c->signals = (v->signals & TONIC_SIGNALS_KNOWN) | signals;
	c->seg_size = v->seg_size;
	if (user_seg)
		c->seg_size = min_t(u32, c->seg_size, user_seg);
}

int tonic_syn_accept(const struct tonic_syn_view *v, u16 *seg_size,
		     u16 *window, u32 *signals)
{
	if (!tonic_syn_usable(v))
		return -EINVAL;
	*seg_size = min(*seg_size, v->seg_size);
	*window = tonic_pow2_floor(min_t(u16, *window, v->window));
	*signals |= (v->signals & TONIC_SIGNALS_KNOWN) | TONIC_SIG_ACK;
	return 0;
}
