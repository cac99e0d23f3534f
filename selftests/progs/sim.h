/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny deterministic network for the native protocol-program tests:
 * one flow of the userspace engine running a program from bpf/, the link
 * of kmod/progs/bpf_sim.h (a fixed one-way delay, tonic.ko's receiver model with
 * an ACK per packet and the signals the program asks for), scripted
 * losses (drop the n-th transmission of a segment), and one of two
 * receiver policies:
 *
 * - SIM_RCV_SACK: keeps out-of-order data; every data packet is answered
 *   with the cumulative ACK and a one-entry SACK, a NACK (nack = first
 *   missing segment) when it arrived out of order, and a grant of one
 *   segment, as asked for;
 * - SIM_RCV_ROCE: a RoCE responder: drops out-of-order packets, answers
 *   with cumulative ACKs only and NACKs each hole once (IB spec §9.7.5).
 *
 * Duplicates get a bare cumulative ACK (no DSACK here).
 * Every hook call is recorded (through a wrapper around the program's
 * struct tonic_proto_ops) so tests can assert on the window a hook chose,
 * and every transmission is logged so tests can assert exact
 * retransmission sets.  TAP helpers are shared with selftests/unit.
 */
#ifndef _TONIC_PROGS_SIM_H
#define _TONIC_PROGS_SIM_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tonic_prog.h"
#include "bpf_sim.h"
#include "../tap.h"

/* ---- the network ---- */

#define SIM_SEGS	2048	/* segments per run, at most */
#define SIM_LOG		16384	/* transmissions logged */
#define SIM_CALLS	16384	/* hook calls logged */
#define SIM_Q		8192	/* packets in flight */
#define SIM_ID		7
#define SIM_SEG_SIZE	1000

enum { SIM_RCV_SACK, SIM_RCV_ROCE };

/* One recorded hook call. */
struct sim_call {
	u8 op;			/* 'i' incoming, 'p' periodic */
	u8 timeout;
	u8 type;		/* event type */
	u8 dupack;
	u32 flight;		/* next_new - wnd_start after stage 1 */
	u32 wnd_in;
	u32 cum_acked;
	struct tonic_hook_out out;
	u64 now;
};

struct sim {
	struct tonic_engine *e;
	const struct tonic_proto_ops *prog;
	struct tonic_proto_ops wrap;
	int rcv_mode;
	struct tsim_link link;		/* link.rcv.rcv_nxt: next expected */
	u32 total;			/* segments to deliver */
	u8 drop[SIM_SEGS];		/* bit n: drop the (n+1)-th transmission */
	u8 ntx[SIM_SEGS];
	u32 late_ns[SIM_SEGS];		/* first transmission: extra delay */
	u64 sent_at[SIM_SEGS];		/* first transmission's time */
	u64 tx_gap_ns;			/* serialization time per segment */
	u64 tx_free;			/* when the link is free again */
	/* transmissions */
	u32 log_seg[SIM_LOG];
	u8 log_rtx[SIM_LOG];
	u64 log_t[SIM_LOG];
	unsigned int nlog;
	struct tsim_pkt q[SIM_Q];	/* the link's packets in flight */
	/* hooks */
	struct sim_call calls[SIM_CALLS];
	unsigned int ncalls;
};

static struct sim *sim_cur;

static void sim_rec(char op, struct tonic_flow_ctx *c, u32 wnd_in)
{
	struct sim *s = sim_cur;
	struct sim_call *k;

	if (s->ncalls >= SIM_CALLS)
		return;
	k = &s->calls[s->ncalls++];
	k->op = op;
	k->timeout = c->timeout;
	k->type = c->ev.type;
	k->dupack = op == 'i' && tonic_is_dupack(c);
	k->flight = c->next_new - c->wnd_start;
	k->wnd_in = wnd_in;
	k->cum_acked = c->wnd_start - c->old_wnd_start;
	k->out = c->out;
	k->now = c->now;
}

static int sim_w_init(struct tonic_flow_ctx *c, void *u)
{
	return sim_cur->prog->init ? sim_cur->prog->init(c, u) : 0;
}

static void sim_w_incoming(struct tonic_flow_ctx *c, void *u)
{
	u32 w = c->wnd;

	sim_cur->prog->incoming(c, u);
	sim_rec('i', c, w);
}

static void sim_w_periodic(struct tonic_flow_ctx *c, void *u)
{
	u32 w = c->wnd;

	sim_cur->prog->periodic(c, u);
	sim_rec('p', c, w);
}

/* Engine parameters every test starts from; change before sim_start(). */
static struct tonic_flow_params sim_params(void)
{
	struct tonic_flow_params p;

	memset(&p, 0, sizeof(p));
	p.flow_id = SIM_ID;
	p.seg_size = SIM_SEG_SIZE;
	p.wnd_max = 128;
	p.rto_init_ns = 10000000ULL;	/* 10 ms */
	p.rto_min_ns = 100000ULL;	/* 100 us */
	p.rto_max_ns = 1000000000ULL;
	p.rate_max_bps = 10000000000ULL;	/* 10 Gb/s link */
	return p;
}

static struct sim *sim_new(const struct tonic_proto_ops *prog, u32 signals,
			   int rcv_mode, u32 total)
{
	struct sim *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->prog = prog;
	s->wrap = *prog;
	s->wrap.init = sim_w_init;
	s->wrap.incoming = sim_w_incoming;
	s->wrap.periodic = sim_w_periodic;
	s->rcv_mode = rcv_mode;
	tsim_link_init(&s->link, SIM_ID, signals, SIM_SEG_SIZE,
		       rcv_mode == SIM_RCV_ROCE, s->q, SIM_Q);
	s->total = total;
	return s;
}

/* ACKs as the socket layer passes them on: RTT samples and DSACKs. */
static void sim_socket_acks(struct sim *s)
{
	s->link.dsack = true;
	s->link.sent_at = s->sent_at;
	s->link.ntx = s->ntx;
	s->link.nsegs = SIM_SEGS;
}

static int sim_start(struct sim *s, struct tonic_flow_params *p)
{
	sim_cur = s;
	s->e = tonic_engine_create(NULL);
	if (!s->e)
		return -1;
	p->ops = &s->wrap;
	if (tonic_engine_flow_add(s->e, p, 0))
		return -1;
	return tonic_engine_announce(s->e, SIM_ID, s->total, 0);
}

static void sim_free(struct sim *s)
{
	tonic_engine_destroy(s->e);
	free(s);
	sim_cur = NULL;
}

static void sim_tx(struct sim *s)
{
	struct tonic_seg_desc out[64];
	unsigned int n, i;
	u64 dep;

	while ((n = tonic_engine_tx(s->e, s->link.now, out, 64)) > 0) {
		for (i = 0; i < n; i++) {
			u32 seg = out[i].seg, k = s->ntx[seg]++;

			if (!k)
				s->sent_at[seg] = s->link.now;

			if (s->nlog < SIM_LOG) {
				s->log_seg[s->nlog] = seg;
				s->log_rtx[s->nlog] = out[i].rtx;
				s->log_t[s->nlog] = s->link.now;
				s->nlog++;
			}
			dep = s->link.now > s->tx_free ? s->link.now : s->tx_free;
			s->tx_free = dep + s->tx_gap_ns;
			if (k < 8 && (s->drop[seg] >> k) & 1)
				continue;
			if (tsim_link_send_at(&s->link, dep + s->link.owd +
					      (k ? 0 : s->late_ns[seg]),
					      1, seg, NULL))
				abort();
		}
	}
}

/*
 * Run until everything is delivered and acked, @until ns pass, or the
 * flow stalls (nothing in flight and no timer).  Return: 0 when done.
 */
static int sim_run(struct sim *s, u64 until)
{
	struct tonic_flow_stats st;

	for (;;) {
		sim_tx(s);
		if (!tonic_engine_flow_stats(s->e, SIM_ID, &st) &&
		    st.wnd_start == s->total)
			return 0;
		if (tsim_link_step(&s->link, s->e, until))
			return -1;
	}
}

/* Retransmitted segments in order; returns how many. */
static unsigned int sim_rtx(const struct sim *s, u32 *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nlog; i++)
		if (s->log_rtx[i] && n < max)
			out[n++] = s->log_seg[i];
	return n;
}

static struct tonic_flow_stats sim_stats(const struct sim *s)
{
	struct tonic_flow_stats st;

	memset(&st, 0, sizeof(st));
	tonic_engine_flow_stats(s->e, SIM_ID, &st);
	return st;
}

#endif /* _TONIC_PROGS_SIM_H */
