// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic receiver logic: data segment in, control signals out (rcv.h).
 */
#include "rcv.h"

#define RCV_MASK	(TONIC_RCV_WND - 1)

static bool rcv_test(const struct tonic_rcv *r, u32 seg)
{
	u32 b = seg & RCV_MASK;

	return r->ooo[b / 64] >> (b % 64) & 1;
}

static void rcv_set(struct tonic_rcv *r, u32 seg, bool on)
{
	u32 b = seg & RCV_MASK;

	if (on)
		r->ooo[b / 64] |= 1ULL << (b % 64);
	else
		r->ooo[b / 64] &= ~(1ULL << (b % 64));
}

void tonic_rcv_init(struct tonic_rcv *r, u32 init_seq)
{
	memset(r, 0, sizeof(*r));
	r->rcv_nxt = init_seq;
}

/* In-order arrival: deliver it and everything held behind it. */
static u32 rcv_advance(struct tonic_rcv *r)
{
	u32 n = 1;

	r->rcv_nxt++;
	while (r->held && rcv_test(r, r->rcv_nxt)) {
		rcv_set(r, r->rcv_nxt, false);
		r->held--;
		r->rcv_nxt++;
		n++;
	}
	r->delivered += n;
	r->nack_gap = 0;
	return n;
}

unsigned int tonic_rcv_data(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			    u32 seg, u32 len, bool ce, u64 now,
			    struct tonic_rcv_ack *ack, u32 *newly)
{
	bool immediate = false, send = true;
	u32 flags = TONIC_RF_SACK;

	*newly = 0;
	if (seg == r->rcv_nxt) {
		bool filled = r->held != 0;

		*newly = rcv_advance(r);
		/* RFC 5681 §4.2: ack at once when a hole gets filled */
		immediate = filled || *newly > 1;
	} else if (tonic_seq_before(seg, r->rcv_nxt)) {
		r->dups++;
		flags |= TONIC_RF_DUP;
		immediate = true;
	} else if (seg - r->rcv_nxt >= TONIC_RCV_WND) {
		r->beyond++;
		flags |= TONIC_RF_NACK;
		immediate = true;
	} else if (cfg->policy == TONIC_RCV_GBN) {
		r->dropped_ooo++;
		flags |= TONIC_RF_NACK;
		immediate = true;
		send = !r->nack_gap;	/* one NACK per gap (RoCE) */
		r->nack_gap = 1;
	} else {
		if (rcv_test(r, seg)) {
			r->dups++;
			flags |= TONIC_RF_DUP;
		} else {
			rcv_set(r, seg, true);
			r->held++;
		}
		flags |= TONIC_RF_NACK;
		immediate = true;
	}

	if (ce) {
		flags |= TONIC_RF_ECE;
		immediate = true;
		if (cfg->cnp_interval_ns &&
		    (!r->cnp_sent || now - r->last_cnp >= cfg->cnp_interval_ns)) {
			flags |= TONIC_RF_CNP;
			r->cnp_sent = 1;
			r->last_cnp = now;
			r->cnps++;
			send = true;
		}
	}
	ack->grant = 0;
	if (cfg->grant) {
		flags |= TONIC_RF_GRANT;
		ack->grant = len;
		immediate = true;
		send = true;
	}

	if (*newly && !immediate && cfg->delack_segs > 1) {
		r->pending += *newly;
		if (r->pending < cfg->delack_segs)
			return TONIC_RCV_ARM_DELACK;
	}
	if (!send)
		return 0;
	r->pending = 0;
	ack->flags = flags;
	ack->cumack = r->rcv_nxt;
	ack->sack = seg;
	r->acks++;
	if (flags & TONIC_RF_NACK)
		r->nacks++;
	return TONIC_RCV_SEND_ACK;
}

bool tonic_rcv_delack(struct tonic_rcv *r, struct tonic_rcv_ack *ack)
{
	if (!r->pending)
		return false;
	r->pending = 0;
	ack->flags = TONIC_RF_SACK;
	ack->cumack = r->rcv_nxt;
	ack->sack = r->rcv_nxt - 1;
	ack->grant = 0;
	r->acks++;
	return true;
}
