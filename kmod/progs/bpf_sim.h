/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic: a deterministic one-flow network for running protocol programs
 * without sockets, portable between tonic.ko (kmod/progs/bpf_sim.c, a debugfs
 * file for the VM selftests) and userspace (build/progs/tsim).  Both run
 * the same engine and the same program source, so for one scenario they
 * must print the same result: that is what the VM test compares.
 *
 * One flow of C = 1000 bytes, K = 128, a link with a one-way delay of 50
 * us and no rate limit (10 Gb/s cap), scripted losses (drop the first
 * transmission of chosen segments), and tonic.ko's receiver model
 * (receiver.h), an ACK per packet, with the program's signals: either
 * TCP/IRN-like (keeps out-of-order data, cumulative ACK + one-entry SACK,
 * NACK on out-of-order arrival and a grant per packet if asked) or a RoCE
 * responder (go-back-N: drops out-of-order data, NACKs each hole once).
 * Duplicates get a bare cumulative ACK (a DSACK if @dsack is set).  Time
 * is virtual.
 * The link and receiver (struct tsim_link) also carry the native program
 * tests of selftests/progs/sim.h.
 */
#ifndef _TONIC_BPF_SIM_H
#define _TONIC_BPF_SIM_H

#include "engine.h"
#include "receiver.h"
#include <linux/tonic.h>

#define TSIM_SEGS	1024
#define TSIM_Q		2048
#define TSIM_RTX	64
#define TSIM_ID		1
#define TSIM_C		1000

struct tsim_pkt {
	u64 t;
	u32 seq;
	u32 seg;
	u32 to_rcv;
	struct tonic_ctrl_desc ev;
};

/**
 * struct tsim_link - a flow's path and the receiver at its end, shared
 *	with the native program tests (selftests/progs/sim.h)
 * @now: virtual time, ns
 * @owd: one-way delay, ns
 * @flow_id: the sender's flow
 * @sack: selective ACKs reach the sender (false: a RoCE responder's)
 * @stalled: nothing was in flight and no timer armed
 * @rcv: the receiver, tonic.ko's model
 * @rcv_cfg: its settings: the protocol's signals, an ACK per packet
 * @q: packets in flight
 * @q_max: at most this many in @q
 * @nq: how many
 * @seq: insertion counter: FIFO among packets due at the same time
 * @dsack: report duplicates (TONIC_CF_DUP), as the socket layer does
 * @sent_at: if set, first-transmission times by segment: ACKs of segments
 *	sent once carry an RTT sample, as the socket layer's (Karn)
 * @ntx: transmissions by segment
 * @nsegs: entries of @sent_at and @ntx
 */
struct tsim_link {
	u64 now;
	u64 owd;
	u32 flow_id;
	bool sack;
	bool stalled;
	struct tonic_rcv rcv;
	struct tonic_rcv_cfg rcv_cfg;
	struct tsim_pkt *q;
	u32 q_max;
	u32 nq;
	u32 seq;
	bool dsack;
	const u64 *sent_at;
	const u8 *ntx;
	u32 nsegs;
};

static inline void tsim_link_init(struct tsim_link *l, u32 flow_id,
				  u32 signals, u32 seg_size, bool roce,
				  struct tsim_pkt *q, u32 q_max)
{
	memset(l, 0, sizeof(*l));
	l->owd = 50000;
	l->flow_id = flow_id;
	l->sack = !roce;
	tonic_rcv_init(&l->rcv, 0);
	l->rcv_cfg.signals = signals | TONIC_SIG_ACK;
	l->rcv_cfg.seg_size = seg_size;
	l->rcv_cfg.policy = roce ? TONIC_RCV_GBN : TONIC_RCV_SACK;
	l->q = q;
	l->q_max = q_max;
}

/* Put a data segment (@to_rcv) or a control event on the wire, due at @t. */
static inline int tsim_link_send_at(struct tsim_link *l, u64 t, u32 to_rcv,
				    u32 seg, const struct tonic_ctrl_desc *ev)
{
	struct tsim_pkt *k;

	if (l->nq >= l->q_max)
		return -ENOSPC;
	k = &l->q[l->nq++];
	memset(k, 0, sizeof(*k));
	k->t = t;
	k->seq = l->seq++;
	k->to_rcv = to_rcv;
	k->seg = seg;
	if (ev)
		k->ev = *ev;
	return 0;
}

/* The same, after the link's one-way delay. */
static inline int tsim_link_send(struct tsim_link *l, u32 to_rcv, u32 seg,
				 const struct tonic_ctrl_desc *ev)
{
	return tsim_link_send_at(l, l->now + l->owd, to_rcv, seg, ev);
}

/* A data segment reached the receiver: its ACK goes back as events. */
static inline void tsim_link_rcv(struct tsim_link *l, u32 seg)
{
	struct tonic_rcv_seg in = { .seg = seg, .len = l->rcv_cfg.seg_size };
	struct tonic_ctrl_desc ev[2];
	struct tonic_rcv_ack ack;
	unsigned int n, i;
	u32 newly;

	if (!(tonic_rcv_data(&l->rcv, &l->rcv_cfg, &in, l->now, &ack, &newly) &
	      TONIC_RCV_SEND_ACK))
		return;
	n = tonic_rcv_ack_ctrl(&ack, l->flow_id, l->sack, ev);
	if (l->dsack && (ack.flags & TONIC_RF_DUP)) {
		ev[0].flags |= TONIC_CF_DUP;
		ev[0].sack = seg;
	}
	for (i = 0; i < n; i++)
		tsim_link_send(l, 0, 0, &ev[i]);
}

/* Index of the earliest packet (FIFO among equal times), or -1. */
static inline int tsim_link_first(const struct tsim_link *l)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < l->nq; i++)
		if (best < 0 || l->q[i].t < l->q[best].t ||
		    (l->q[i].t == l->q[best].t && l->q[i].seq < l->q[best].seq))
			best = i;
	return best;
}

/*
 * Advance to the next event, a packet's arrival or the engine @e's timer,
 * and run it.  Return: 0, or -1 if there is none (@l->stalled) or it
 * comes after @until.
 */
static inline int tsim_link_step(struct tsim_link *l, struct tonic_engine *e,
				 u64 until)
{
	int i = tsim_link_first(l);
	u64 tp = i >= 0 ? l->q[i].t : U64_MAX;
	u64 tt = tonic_engine_next_timer(e);

	if (tp == U64_MAX && tt == U64_MAX) {
		l->stalled = true;
		return -1;
	}
	l->now = tp < tt ? tp : tt;
	if (l->now > until)
		return -1;
	if (tp <= tt) {
		struct tsim_pkt k = l->q[i];

		l->q[i] = l->q[--l->nq];
		if (k.to_rcv) {
			tsim_link_rcv(l, k.seg);
			return 0;
		}
		if (l->sent_at && (k.ev.flags & TONIC_CF_SACK) &&
		    k.ev.sack < l->nsegs && l->ntx[k.ev.sack] == 1) {
			k.ev.flags |= TONIC_CF_RTT;
			k.ev.rtt_ns = l->now - l->sent_at[k.ev.sack];
		}
		tonic_engine_ctrl(e, &k.ev, 1, l->now);
	} else {
		tonic_engine_timers(e, l->now);
	}
	return 0;
}

struct tsim {
	struct tonic_engine *e;
	struct tsim_link link;
	u32 total;
	u32 roce;
	u32 nrtx;
	u32 nsent;
	u8 drop[TSIM_SEGS];
	u8 ntx[TSIM_SEGS];
	u32 rtx[TSIM_RTX];	/* first TSIM_RTX retransmitted segments */
	struct tsim_pkt q[TSIM_Q];
};

static inline int tsim_start(struct tsim *s, const struct tonic_proto_ops *ops,
			     u32 signals, u32 total, u32 roce)
{
	struct tonic_flow_params p;

	if (total > TSIM_SEGS)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.flow_id = TSIM_ID;
	p.seg_size = TSIM_C;
	p.wnd_max = 128;
	p.rto_init_ns = 10000000ULL;
	p.rto_min_ns = 100000ULL;
	p.rto_max_ns = 1000000000ULL;
	p.rate_max_bps = 10000000000ULL;
	p.init_tokens = 10 * TSIM_C;
	p.ops = ops;
	tsim_link_init(&s->link, TSIM_ID, signals, TSIM_C, roce, s->q, TSIM_Q);
	s->total = total;
	s->roce = roce;
	s->e = tonic_engine_create(NULL);
	if (!s->e)
		return -ENOMEM;
	if (tonic_engine_flow_add(s->e, &p, 0) ||
	    tonic_engine_announce(s->e, TSIM_ID, total, 0))
		return -EINVAL;
	return 0;
}

static inline void tsim_stop(struct tsim *s)
{
	tonic_engine_destroy(s->e);
	s->e = NULL;
}

static inline void tsim_tx(struct tsim *s)
{
	struct tonic_seg_desc out[16];
	unsigned int n, i;

	while ((n = tonic_engine_tx(s->e, s->link.now, out, 16)) > 0) {
		for (i = 0; i < n; i++) {
			u32 seg = out[i].seg;

			if (seg >= TSIM_SEGS)
				continue;
			s->nsent++;
			if (out[i].rtx && s->nrtx < TSIM_RTX)
				s->rtx[s->nrtx++] = seg;
			if (s->ntx[seg]++ == 0 && s->drop[seg])
				continue;
			tsim_link_send(&s->link, 1, seg, NULL);
		}
	}
}

/*
 * Process up to @max events.  Return: 1 when everything is acked, 0 when
 * there is more to do, -1 if the flow stalled (nothing pending).
 */
static inline int tsim_run(struct tsim *s, unsigned int max)
{
	struct tonic_flow_stats st;
	unsigned int n;

	for (n = 0; n < max; n++) {
		tsim_tx(s);
		if (!tonic_engine_flow_stats(s->e, TSIM_ID, &st) &&
		    st.wnd_start == s->total)
			return 1;
		if (tsim_link_step(&s->link, s->e, U64_MAX))
			return -1;
	}
	return 0;
}

/* One line both builds print identically for the same scenario. */
static inline int tsim_report(const struct tsim *s, const char *proto,
			      int state, char *buf, int len)
{
	struct tonic_flow_stats st;
	unsigned int i;
	int n;

	memset(&st, 0, sizeof(st));
	if (s->e)
		tonic_engine_flow_stats(s->e, TSIM_ID, &st);
	n = snprintf(buf, len,
		     "proto=%s state=%s cum=%u sent=%u timeouts=%llu violations=%llu wnd=%u rate=%llu rtx=",
		     proto, state > 0 ? "done" : state < 0 ? "stalled" : "running",
		     s->link.rcv.rcv_nxt, s->nsent, (unsigned long long)st.timeouts,
		     (unsigned long long)st.violations, st.wnd,
		     (unsigned long long)st.rate_bps);
	for (i = 0; i < s->nrtx && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%u", i ? "," : "", s->rtx[i]);
	if (n < len)
		n += snprintf(buf + n, len - n, "\n");
	return n < len ? n : len - 1;
}

#endif /* _TONIC_BPF_SIM_H */
