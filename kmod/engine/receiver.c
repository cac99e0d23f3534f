// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic receiver model: data segment in, ACK out (receiver.h).
 */
#include "receiver.h"

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

void tonic_rcv_purge(struct tonic_rcv *r)
{
	memset(r->ooo, 0, sizeof(r->ooo));
	r->held = 0;
}

u8 tonic_rcv_verdict(const struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
		     u32 seg)
{
	u32 win = cfg->window && cfg->window < TONIC_RCV_WND ? cfg->window :
		  TONIC_RCV_WND;

	if (tonic_seq_before(seg, r->rcv_nxt))
		return TONIC_RCV_DUP;
	if (seg - r->rcv_nxt >= win)
		return TONIC_RCV_BEYOND;
	if (seg == r->rcv_nxt)
		return TONIC_RCV_NEXT;
	return cfg->policy == TONIC_RCV_GBN ? TONIC_RCV_SKIP : TONIC_RCV_HOLD;
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

/* Out of order: keep it, unless it is kept already. */
static void rcv_hold(struct tonic_rcv *r, struct tonic_rcv_seg *in)
{
	if (rcv_test(r, in->seg)) {
		in->verdict = TONIC_RCV_DUP;
		r->dups++;
		return;
	}
	rcv_set(r, in->seg, true);
	r->held++;
	r->held_total++;
}

/* CE seen: ECN echo and a CNP at most every cnp_interval_ns, if asked. */
static u32 rcv_congestion(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			  u64 now)
{
	u32 flags = 0;

	if (cfg->signals & TONIC_SIG_ECE)
		flags |= TONIC_RF_ECE;
	if ((cfg->signals & TONIC_SIG_CNP) &&
	    (!r->cnp_sent || now - r->last_cnp >= cfg->cnp_interval_ns)) {
		flags |= TONIC_RF_CNP;
		r->cnp_sent = 1;
		r->last_cnp = now;
		r->cnps++;
	}
	return flags;
}

unsigned int tonic_rcv_take(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			    struct tonic_rcv_seg *in, u64 now,
			    struct tonic_rcv_ack *ack, u32 *newly)
{
	/* A hole being filled, a short segment: no delay. */
	bool quick = r->held || (cfg->seg_size && in->len < cfg->seg_size);
	u32 thresh = tonic_rcv_thresh(cfg, in->ackfreq);
	bool send = true;
	u32 flags = TONIC_RF_SACK;

	*newly = 0;
	switch (in->verdict) {
	case TONIC_RCV_NEXT:
		*newly = rcv_advance(r);
		break;
	case TONIC_RCV_HOLD:
		rcv_hold(r, in);
		if (in->verdict == TONIC_RCV_DUP)
			flags |= TONIC_RF_DUP;
		if (cfg->signals & TONIC_SIG_NACK)
			flags |= TONIC_RF_NACK;
		quick = true;
		break;
	case TONIC_RCV_SKIP:
		r->dropped_ooo++;
		if (cfg->signals & TONIC_SIG_NACK)
			flags |= TONIC_RF_NACK;
		send = !r->nack_gap;	/* one NACK per gap (RoCE) */
		r->nack_gap = 1;
		quick = true;
		break;
	case TONIC_RCV_DUP:
		r->dups++;
		flags |= TONIC_RF_DUP;
		break;
	case TONIC_RCV_BEYOND:
		r->beyond++;
		flags = 0;
		break;
	default:		/* TONIC_RCV_DROP */
		flags = 0;
		break;
	}

	if (in->ce) {
		u32 cong = rcv_congestion(r, cfg, now);

		send |= !!(cong & TONIC_RF_CNP);
		flags |= cong;
	}
	ack->grant = 0;
	if ((cfg->signals & TONIC_SIG_GRANT) && (flags & TONIC_RF_SACK)) {
		flags |= TONIC_RF_GRANT;
		ack->grant = in->len;
		send = true;
	}
	if (!send)
		return 0;
	/*
	 * Only a plain in-order SACK may wait; every other flag is news.
	 * ACKREQ is news too, except in a batch, whose end is as soon.
	 */
	r->ackfreq = in->ackfreq;
	if (flags == TONIC_RF_SACK && !quick && thresh > 1) {
		if (cfg->batch) {
			r->pending++;
			r->due |= in->ackreq;
			return TONIC_RCV_ARM_DELACK;
		}
		if (!in->ackreq && ++r->pending < thresh)
			return TONIC_RCV_ARM_DELACK;
	}

	r->pending = 0;
	r->due = 0;
	ack->flags = flags;
	ack->cumack = r->rcv_nxt;
	ack->sack = in->seg;
	r->acks++;
	if (flags & TONIC_RF_NACK)
		r->nacks++;
	return TONIC_RCV_SEND_ACK;
}

/* One ACK for every in-order segment taken so far. */
static void rcv_ack_all(struct tonic_rcv *r, struct tonic_rcv_ack *ack)
{
	r->pending = 0;
	r->due = 0;
	ack->flags = TONIC_RF_SACK;
	ack->cumack = r->rcv_nxt;
	ack->sack = r->rcv_nxt - 1;
	ack->grant = 0;
	r->acks++;
}

bool tonic_rcv_run_ok(const struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
		      u32 seg, u32 n, bool ackfreq)
{
	u32 win = cfg->window && cfg->window < TONIC_RCV_WND ? cfg->window :
		  TONIC_RCV_WND;

	return cfg->batch && !r->held && seg == r->rcv_nxt && n && n <= win &&
	       tonic_rcv_thresh(cfg, ackfreq) > 1 &&
	       !(cfg->signals & TONIC_SIG_GRANT);
}

unsigned int tonic_rcv_take_run(struct tonic_rcv *r,
				const struct tonic_rcv_cfg *cfg, u32 n,
				u32 last_len, bool ackreq, bool ackfreq,
				struct tonic_rcv_ack *ack)
{
	r->rcv_nxt += n;
	r->delivered += n;
	r->nack_gap = 0;
	r->ackfreq = ackfreq;
	/* A short last segment is acknowledged at once, the others with it. */
	if (cfg->seg_size && last_len < cfg->seg_size) {
		rcv_ack_all(r, ack);
		return TONIC_RCV_SEND_ACK;
	}
	r->pending += n;
	r->due |= ackreq;
	return TONIC_RCV_ARM_DELACK;
}

u32 tonic_rcv_take_to_ack(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			  u32 n, bool ackfreq, struct tonic_rcv_ack *ack)
{
	u32 thresh = tonic_rcv_thresh(cfg, ackfreq), step;

	if (n < 2 || r->pending + n <= thresh)
		return 0;
	step = r->pending < thresh ? thresh - r->pending : 1;
	tonic_rcv_take_run(r, cfg, step, cfg->seg_size, false, ackfreq, ack);
	/* pending is now at least thresh (> 1): this is its ACK */
	tonic_rcv_delack(r, ack);
	return step;
}

unsigned int tonic_rcv_data(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			    struct tonic_rcv_seg *in, u64 now,
			    struct tonic_rcv_ack *ack, u32 *newly)
{
	in->verdict = tonic_rcv_verdict(r, cfg, in->seg);
	return tonic_rcv_take(r, cfg, in, now, ack, newly);
}

bool tonic_rcv_delack(struct tonic_rcv *r, struct tonic_rcv_ack *ack)
{
	if (!r->pending)
		return false;
	rcv_ack_all(r, ack);
	return true;
}

unsigned int tonic_rcv_batch_end(struct tonic_rcv *r,
				 const struct tonic_rcv_cfg *cfg,
				 struct tonic_rcv_ack *ack)
{
	if (!r->pending)
		return 0;
	if (!r->due && r->pending < tonic_rcv_thresh(cfg, r->ackfreq))
		return TONIC_RCV_ARM_DELACK;
	tonic_rcv_delack(r, ack);
	return TONIC_RCV_SEND_ACK;
}

unsigned int tonic_rcv_ack_ctrl(const struct tonic_rcv_ack *ack, u32 flow_id,
				bool sack, struct tonic_ctrl_desc *ev)
{
	unsigned int n = 1;

	memset(ev, 0, 2 * sizeof(*ev));
	ev[0].flow_id = flow_id;
	ev[0].type = TONIC_CTRL_ACK;
	ev[0].flags = TONIC_CF_CUMACK;
	ev[0].cumack = ack->cumack;
	if (!(ack->flags & TONIC_RF_DUP)) {
		if (sack && (ack->flags & TONIC_RF_SACK)) {
			ev[0].flags |= TONIC_CF_SACK;
			ev[0].sack = ack->sack;
		}
		if (ack->flags & TONIC_RF_NACK) {
			ev[0].type = TONIC_CTRL_NACK;
			ev[0].flags |= TONIC_CF_NACK;
			ev[0].nack = ack->cumack;
		}
	}
	if (ack->flags & TONIC_RF_GRANT) {
		ev[n].flow_id = flow_id;
		ev[n].type = TONIC_CTRL_GRANT;
		ev[n].flags = TONIC_CF_GRANT;
		ev[n++].grant = ack->grant;
	}
	return n;
}
