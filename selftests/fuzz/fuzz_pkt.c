// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pkt.c - libFuzzer harness for the receive path's portable parts.
 *
 * One input is one simulated connection: a preamble choosing its start
 * state and settings (conn_init()), then a sequence of operations, each a
 * kind byte and, for a packet, a flags byte and a length byte before the
 * packet (LLVMFuzzerTestOneInput(); gen_seeds.py writes them).  Every packet goes through
 * the portable parser (kmod/engine/pkt.c); a valid one drives the sender
 * engine (kmod/engine/, one flow, the built-in NewReno or a protocol of
 * bpf/ built natively) and the receiver model (kmod/engine/receiver.c) the
 * way kmod/sock/input.c and kmod/sock/sndbuf.c do.  After every operation the
 * engine's and the receiver's invariants are asserted; a failed one aborts,
 * which libFuzzer reports as a crash.
 *
 * The socket-layer glue below is a model of input.c/sndbuf.c (kernel code
 * cannot run here): the state machine, the acceptance checks and the
 * clamps are copied from there, and must follow them.  What runs
 * unmodified is the parser, the engine, the protocols and the receiver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "flow.h"
#include "receiver.h"
#include "pkt.h"

#define TONIC_PROG(p)							\
	extern const struct tonic_proto_ops tonic_prog_##p;		\
	extern const u32 tonic_prog_##p##_signals;
#include "progs.h"
#undef TONIC_PROG

/* Program knobs (plain globals natively, rodata in BPF). */
extern u32 irn_dcqcn, rack_tlp;
extern u64 dcqcn_byte_counter;

static const u32 newreno_signals = TONIC_NEWRENO_SIGNALS;

static const struct {
	const struct tonic_proto_ops *ops;
	const u32 *signals;
} protos[] = {
	{ NULL, &newreno_signals },	/* the built-in */
#define TONIC_PROG(p) { &tonic_prog_##p, &tonic_prog_##p##_signals },
#include "progs.h"
#undef TONIC_PROG
};

#define NPROTOS		(sizeof(protos) / sizeof(protos[0]))
#define FLOW		0
#define SPORT		4000
#define DPORT		5000
#define MAX_WINDOW	TONIC_MAX_WINDOW
#define MS		1000000ULL
#define SENT_LOG	1024	/* emitted segments kept for the loopback peer */
#define MAX_SEGS	4096	/* the application writes at most this much */

#define FUZZ_CHECK(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz_pkt: %s:%d: invariant failed: %s: " fmt "\n", \
			__FILE__, __LINE__, #cond, ##__VA_ARGS__);	\
		abort();						\
	}								\
} while (0)

/* Socket states, as TCP's (kmod/sock/input.c). */
enum st {
	ST_ESTABLISHED,
	ST_SYN_SENT,
	ST_SYN_RECV,
	ST_CLOSE_WAIT,
	ST_FIN_WAIT1,
	ST_LAST_ACK,
	ST_FIN_WAIT2,
	ST_CLOSING,
	ST_LISTEN,
	ST_CLOSED,
};

/*
 * One endpoint.  Segment numbers are the engine's: the sender's start at
 * @base (the kernel's start at 0; a base near 2^32 tests wrapping), the
 * receiver's at @rbase.  On the wire they are ISN + 1 + (n - base).
 */
struct conn {
	enum st state;
	u32 iss, irs, base, rbase;
	u16 seg_size;
	u16 window;
	u32 signals;
	const struct tonic_proto_ops *ops;
	struct tonic_engine *eng;
	u64 now;

	/* sender: head <= tonic-tail <= tail, as sndbuf.c */
	u32 snd_una, snd_ann, snd_end;
	u32 end_len;		/* length of the short last segment, or 0 */
	bool subseg_wait;
	u32 peer_wnd, peer_edge;
	bool fin_queued, fin_sent, fin_acked;
	u32 fin_seg;

	/* receiver */
	struct tonic_rcv rcv;
	struct tonic_rcv_cfg cfg;
	bool peer_fin;
	u32 rcv_low;		/* rcv_nxt never moves back */

	/* shadow state for the invariants */
	u32 sent_hi;		/* one past the highest segment emitted */
	bool sent_any;
	u32 head_seen;		/* last head notified */
	u64 sent_at[MAX_WINDOW];
	u8 rtx_seen[MAX_WINDOW];

	/*
	 * A packet from the input acked what the peer's receiver does not
	 * hold (cumulatively or selectively), or went to the engine raw:
	 * the transfer need not finish (drain()).
	 */
	bool forged_sack;

	/* the loopback peer's receiver and what we emitted for it */
	struct tonic_rcv peer;
	struct tonic_seg_desc log[SENT_LOG];
	u32 nlog;
};

static bool seg_before(u32 a, u32 b)
{
	return tonic_seq_before(a, b);
}

/* ---- invariants ---- */

/* The checks are not what is fuzzed: no coverage feedback from them. */
#define FUZZ_NOCOV	__attribute__((no_sanitize("coverage")))

static FUZZ_NOCOV void check_engine(struct conn *c)
{
	struct tonic_engine_stats est;
	struct tonic_flow_stats fs;
	struct tonic_flow *f;
	u32 i, k, nm = 0;

	if (!c->eng)
		return;
	f = tonic_ft_find(&c->eng->tab, FLOW);
	FUZZ_CHECK(f, "the flow is gone");
	k = f->k;
	FUZZ_CHECK(k && k <= TONIC_MAX_WND_SEGS && !(k & (k - 1)), "k %u", k);
	FUZZ_CHECK(k == c->window, "k %u window %u", k, c->window);
	FUZZ_CHECK(f->wnd >= 1 && f->wnd <= k, "wnd %u k %u", f->wnd, k);
	/* head <= next_new <= tail, in flight at most K */
	FUZZ_CHECK(f->next_new - f->wnd_start <= f->tail - f->wnd_start,
		   "wnd_start %u next_new %u tail %u", f->wnd_start,
		   f->next_new, f->tail);
	FUZZ_CHECK(f->next_new - f->wnd_start <= k, "in flight %u > k %u",
		   f->next_new - f->wnd_start, k);
	FUZZ_CHECK(f->tail == c->snd_ann, "engine tail %u, announced %u",
		   f->tail, c->snd_ann);
	/* nothing acknowledged or generated that was never emitted */
	FUZZ_CHECK(f->next_new - (c->sent_any ? c->sent_hi : c->base) <=
		   f->ring_cnt, "next_new %u, emitted up to %u, ring %u",
		   f->next_new, c->sent_hi, f->ring_cnt);
	FUZZ_CHECK(!seg_before(f->wnd_start, c->snd_una) &&
		   !seg_before(c->snd_ann, f->wnd_start),
		   "wnd_start %u outside [snd_una %u, snd_ann %u]",
		   f->wnd_start, c->snd_una, c->snd_ann);
	/* bitmaps: marks and acks only for sent segments, never both */
	for (i = 0; i < k; i++) {
		u32 s = f->wnd_start + ((i - f->wnd_start) & (k - 1));
		bool a = tb_test(f->acked, i), m = tb_test(f->rtx, i);

		nm += m;
		FUZZ_CHECK(!(a && m), "segment %u acked and marked", s);
		FUZZ_CHECK(!(a || m) || seg_before(s, f->next_new),
			   "segment %u (bit %u) acked %d marked %d, next_new %u",
			   s, i, a, m, f->next_new);
	}
	for (i = k; i < TONIC_MAX_WND_SEGS; i++)
		FUZZ_CHECK(!tb_test(f->acked, i) && !tb_test(f->rtx, i),
			   "bit %u beyond k %u", i, k);
	FUZZ_CHECK(nm == f->nmarked, "nmarked %u, bits %u", f->nmarked, nm);
	FUZZ_CHECK(f->ring_cnt <= f->ring_size, "ring %u/%u", f->ring_cnt,
		   f->ring_size);

	FUZZ_CHECK(!tonic_engine_flow_stats(c->eng, FLOW, &fs), "stats");
	FUZZ_CHECK(fs.marked <= fs.in_flight, "marked %u in flight %u",
		   fs.marked, fs.in_flight);
	tonic_engine_stats(c->eng, &est);
	FUZZ_CHECK(est.flows == 1, "flows %llu", (unsigned long long)est.flows);
	FUZZ_CHECK(est.segs_rtx <= est.segs_sent, "rtx %llu sent %llu",
		   (unsigned long long)est.segs_rtx,
		   (unsigned long long)est.segs_sent);
}

static FUZZ_NOCOV void check_rcv(const struct tonic_rcv *r,
				 const struct tonic_rcv_cfg *cfg)
{
	u32 win = cfg->window && cfg->window < TONIC_RCV_WND ? cfg->window :
		  TONIC_RCV_WND;
	u32 i, held = 0;

	for (i = 0; i < TONIC_RCV_WND; i++) {
		u32 s = r->rcv_nxt + ((i - r->rcv_nxt) & (TONIC_RCV_WND - 1));

		if (!(r->ooo[i / 64] >> (i % 64) & 1))
			continue;
		held++;
		FUZZ_CHECK(s != r->rcv_nxt && s - r->rcv_nxt < win,
			   "held %u, rcv_nxt %u window %u", s, r->rcv_nxt, win);
	}
	FUZZ_CHECK(held == r->held, "held %u, bits %u", r->held, held);
	FUZZ_CHECK(r->held < win, "held %u window %u", r->held, win);
}

static FUZZ_NOCOV void check_all(struct conn *c)
{
	FUZZ_CHECK(!seg_before(c->snd_ann, c->snd_una) &&
		   !seg_before(c->snd_end, c->snd_ann),
		   "snd_una %u snd_ann %u snd_end %u", c->snd_una, c->snd_ann,
		   c->snd_end);
	FUZZ_CHECK(c->snd_ann - c->snd_una <= c->window,
		   "announced %u past head, K %u", c->snd_ann - c->snd_una,
		   c->window);
	check_engine(c);
	if (c->state == ST_SYN_SENT || c->state == ST_LISTEN)
		return;
	check_rcv(&c->rcv, &c->cfg);
	FUZZ_CHECK(!seg_before(c->rcv.rcv_nxt, c->rcv_low), "rcv_nxt %u < %u",
		   c->rcv.rcv_nxt, c->rcv_low);
	c->rcv_low = c->rcv.rcv_nxt;
	FUZZ_CHECK(c->rcv.delivered + c->peer_fin == c->rcv.rcv_nxt - c->rbase,
		   "delivered %llu fin %d rcv_nxt %u base %u",
		   (unsigned long long)c->rcv.delivered, c->peer_fin,
		   c->rcv.rcv_nxt, c->rbase);
}

/* ---- sender: sndbuf.c ---- */

static void flow_start(struct conn *c)
{
	struct tonic_engine_cfg ecfg = { .flows_hint = 1 };
	struct tonic_flow_params p = {
		.flow_id = FLOW,
		.seg_size = c->seg_size,
		.wnd_max = c->window,
		.init_seq = c->snd_una,
		.rto_min_ns = 200 * MS,
		.rto_max_ns = 120000 * MS,
		.rto_low_ns = 1 * MS,
		.rto_low_segs = 3,
		.ops = c->ops,
	};
	int err;

	if (c->ops && c->ops->scheme == TONIC_CREDIT_GRANT)
		p.init_tokens = (u32)c->window * c->seg_size;
	c->eng = tonic_engine_create(&ecfg);
	FUZZ_CHECK(c->eng, "no engine");
	err = tonic_engine_flow_add(c->eng, &p, c->now);
	FUZZ_CHECK(!err, "flow_add %d (C %u K %u)", err, c->seg_size, c->window);
}

static void conn_close(struct conn *c)
{
	c->state = ST_CLOSED;
	tonic_engine_destroy(c->eng);
	c->eng = NULL;
}

static void advance_head(struct conn *c, u32 head)
{
	FUZZ_CHECK(!seg_before(head, c->head_seen), "head %u went back from %u",
		   head, c->head_seen);
	FUZZ_CHECK(!seg_before(c->snd_ann, head), "head %u past announced %u",
		   head, c->snd_ann);
	FUZZ_CHECK(c->sent_any && !seg_before(c->sent_hi, head),
		   "head %u acknowledges what was never sent (up to %u)",
		   head, c->sent_hi);
	c->head_seen = head;
	while (seg_before(c->snd_una, head) && c->snd_una != c->snd_ann)
		c->snd_una++;
}

static void notify(struct conn *c)
{
	struct tonic_notify_desc nd[4];
	unsigned int n, i;

	do {
		n = tonic_engine_poll_notify(c->eng, nd, 4);
		for (i = 0; i < n; i++) {
			FUZZ_CHECK(nd[i].flow_id == FLOW, "flow %u", nd[i].flow_id);
			if (nd[i].flags & TONIC_NOTIFY_HEAD)
				advance_head(c, nd[i].head);
			if (nd[i].flags & TONIC_NOTIFY_SUBSEG) {
				FUZZ_CHECK(c->subseg_wait, "SUBSEG not waited for");
				c->subseg_wait = false;
			}
		}
	} while (n == 4);
}

static void announce(struct conn *c)
{
	u32 limit = c->snd_una + c->window, tail = c->snd_ann, last_len = 0;
	int err;

	if (c->subseg_wait)
		return;
	if (seg_before(c->peer_edge, limit))
		limit = c->peer_edge;
	while (seg_before(tail, limit) && seg_before(tail, c->snd_end)) {
		if (tail + 1 == c->snd_end && c->end_len)
			last_len = c->end_len;
		tail++;
		if (last_len)
			break;
	}
	if (tail == c->snd_ann)
		return;
	err = tonic_engine_announce(c->eng, FLOW, tail, last_len);
	FUZZ_CHECK(!err, "announce %u..%u len %u: %d", c->snd_ann, tail,
		   last_len, err);
	c->snd_ann = tail;
	if (last_len)
		c->subseg_wait = true;
}

static void tx(struct conn *c)
{
	struct tonic_seg_desc d[16];
	unsigned int n, i;

	do {
		struct tonic_flow *f = tonic_ft_find(&c->eng->tab, FLOW);

		n = tonic_engine_tx(c->eng, c->now, d, 16);
		for (i = 0; i < n; i++) {
			u32 slot = d[i].seg & (MAX_WINDOW - 1);
			bool fresh = !c->sent_any || !seg_before(d[i].seg, c->sent_hi);

			/* output.c finds the segment's skb in [head, tonic-tail) */
			FUZZ_CHECK(!seg_before(d[i].seg, c->snd_una) &&
				   seg_before(d[i].seg, c->snd_ann),
				   "emitted %u outside [%u, %u)", d[i].seg,
				   c->snd_una, c->snd_ann);
			FUZZ_CHECK(!seg_before(d[i].seg, f->wnd_start) &&
				   !tb_test(f->acked, d[i].seg & (f->k - 1)),
				   "emitted %u already acked (head %u)", d[i].seg,
				   f->wnd_start);
			FUZZ_CHECK(d[i].len == (d[i].seg + 1 == c->snd_ann &&
						c->subseg_wait ? c->end_len :
						c->seg_size),
				   "segment %u len %u", d[i].seg, d[i].len);
			FUZZ_CHECK(!d[i].rtx == fresh, "segment %u rtx %u, sent up to %u",
				   d[i].seg, d[i].rtx, c->sent_hi);
			if (fresh) {
				FUZZ_CHECK(!c->sent_any || d[i].seg == c->sent_hi,
					   "new segment %u skips from %u",
					   d[i].seg, c->sent_hi);
				c->sent_hi = d[i].seg + 1;
				c->sent_any = true;
			}
			if (d[i].rtx)
				c->rtx_seen[slot] = 1;
			else if (!c->sent_at[slot])
				c->sent_at[slot] = c->now;
			if (c->nlog < SENT_LOG)
				c->log[c->nlog++] = d[i];
		}
	} while (n == 16);
}

static bool can_send_data(const struct conn *c)
{
	return c->state == ST_ESTABLISHED || c->state == ST_CLOSE_WAIT ||
	       c->state == ST_FIN_WAIT1 || c->state == ST_LAST_ACK;
}

static void push(struct conn *c)
{
	if (!can_send_data(c) || !c->eng)
		return;
	announce(c);
	tx(c);
	notify(c);
	if (!c->subseg_wait) {
		announce(c);
		tx(c);
	}
	/* tonic_maybe_send_fin() */
	if (c->fin_queued && !c->fin_sent && c->snd_una == c->snd_end) {
		c->fin_seg = c->snd_end;
		c->fin_sent = true;
	}
}

/* tonic_ack_rcv(); @raw skips its clamps to hit the engine's own checks */
static void ack_rcv(struct conn *c, u32 ack, u32 sack, u8 flags, u32 grant,
		    u32 wnd, bool raw)
{
	struct tonic_ctrl_desc ev[3] = {};
	unsigned int n = 0;
	u32 cum = ack;

	if (!seg_before(ack + wnd, c->peer_edge)) {
		c->peer_edge = ack + wnd;
		c->peer_wnd = wnd;
	}
	if (!c->eng)
		return;
	if (!raw) {
		if (seg_before(c->snd_ann, cum))
			cum = c->snd_ann;
		if (seg_before(cum, c->snd_una))
			cum = c->snd_una;
	}
	if (flags & TONIC_F_SACK) {
		struct tonic_ctrl_desc *e = &ev[n++];
		bool in_win = raw || (!seg_before(sack, c->snd_una) &&
				      seg_before(sack, c->snd_ann));

		e->flow_id = FLOW;
		e->type = TONIC_CTRL_ACK;
		e->flags = TONIC_CF_CUMACK;
		e->cumack = cum;
		if (in_win && !(flags & TONIC_F_DUP)) {
			u32 slot = sack & (MAX_WINDOW - 1);

			e->flags |= TONIC_CF_SACK;
			e->sack = sack;
			if (c->sent_at[slot] && !c->rtx_seen[slot]) {
				e->flags |= TONIC_CF_RTT;
				e->rtt_ns = c->now - c->sent_at[slot];
			}
		}
		if (flags & TONIC_F_DUP) {
			e->flags |= TONIC_CF_DUP;
			e->sack = sack;
		}
		if (flags & TONIC_F_NACK) {
			e->type = TONIC_CTRL_NACK;
			e->flags |= TONIC_CF_NACK;
			e->nack = raw ? sack : cum;
		}
		if (flags & TONIC_F_ECE)
			e->flags |= TONIC_CF_ECE;
	} else if (raw || seg_before(c->snd_una, cum)) {
		ev[n].flow_id = FLOW;
		ev[n].type = TONIC_CTRL_ACK;
		ev[n].flags = TONIC_CF_CUMACK;
		ev[n].cumack = cum;
		n++;
	}
	if (flags & TONIC_F_CNP) {
		ev[n].flow_id = FLOW;
		ev[n].type = TONIC_CTRL_CNP;
		n++;
	}
	if (flags & TONIC_F_GRANT) {
		ev[n].flow_id = FLOW;
		ev[n].type = TONIC_CTRL_GRANT;
		ev[n].flags = TONIC_CF_GRANT;
		ev[n].grant = grant;
		n++;
	}
	if (n)
		tonic_engine_ctrl(c->eng, ev, n, c->now);
	notify(c);
	push(c);
}

/* ---- receiver: input.c ---- */

static void data_rcv(struct conn *c, u32 seg, u32 len, u8 flags, bool ce,
		     bool nomem)
{
	struct tonic_rcv_seg in = {
		.seg = seg, .len = len, .ce = ce,
		.ackreq = flags & TONIC_F_ACKREQ,
	};
	struct tonic_rcv_ack ack;
	unsigned int what;
	u32 newly, before = c->rcv.rcv_nxt;

	in.verdict = c->peer_fin ? TONIC_RCV_DUP :
		     tonic_rcv_verdict(&c->rcv, &c->cfg, seg);
	if (nomem && (in.verdict == TONIC_RCV_NEXT ||
		      in.verdict == TONIC_RCV_HOLD))
		in.verdict = TONIC_RCV_DROP;
	what = tonic_rcv_take(&c->rcv, &c->cfg, &in, c->now, &ack, &newly);
	FUZZ_CHECK(newly == c->rcv.rcv_nxt - before, "newly %u moved %u",
		   newly, c->rcv.rcv_nxt - before);
	FUZZ_CHECK(!newly || in.verdict == TONIC_RCV_NEXT, "verdict %u newly %u",
		   in.verdict, newly);
	if (what & TONIC_RCV_SEND_ACK) {
		FUZZ_CHECK(ack.cumack == c->rcv.rcv_nxt, "ack %u rcv_nxt %u",
			   ack.cumack, c->rcv.rcv_nxt);
		FUZZ_CHECK(!(ack.flags & ~0x3fU), "ack flags %#x", ack.flags);
		FUZZ_CHECK(!(ack.flags & TONIC_RF_NACK) ||
			   (c->cfg.signals & TONIC_SIG_NACK), "NACK not negotiated");
	}
}

static void fin_rcv(struct conn *c, u32 seg)
{
	if (seg != c->rcv.rcv_nxt)
		return;
	c->rcv.rcv_nxt++;
	c->peer_fin = true;
	tonic_rcv_purge(&c->rcv);
	switch (c->state) {
	case ST_ESTABLISHED:
		c->state = ST_CLOSE_WAIT;
		break;
	case ST_FIN_WAIT1:
		c->state = ST_CLOSING;
		break;
	case ST_FIN_WAIT2:
		conn_close(c);
		break;
	default:
		break;
	}
}

/* Our FIN was acknowledged: true if the connection is over. */
static bool fin_acked(struct conn *c)
{
	c->fin_acked = true;
	switch (c->state) {
	case ST_FIN_WAIT1:
		c->state = ST_FIN_WAIT2;
		return false;
	case ST_CLOSING:
	case ST_LAST_ACK:
		conn_close(c);
		return true;
	default:
		return false;
	}
}

static bool rst_valid(const struct conn *c, u32 seq)
{
	s32 off = seq - (c->irs + 1) - (c->rcv.rcv_nxt - c->rbase);
	s32 win = (c->window ? c->window : MAX_WINDOW) + 2;

	return off >= -win && off <= win;
}

static void rcv_synsent(struct conn *c, const struct tonic_pkt *p)
{
	if (p->ack != c->iss + 1)
		return;
	if (p->type == TONIC_PKT_RST) {
		conn_close(c);
		return;
	}
	if (p->type != TONIC_PKT_SYNACK || !tonic_syn_usable(&p->syn))
		return;
	/* tonic_negotiate_synack() */
	c->seg_size = min(c->seg_size, p->syn.seg_size);
	c->window = min_t(u16, c->window, p->syn.window);
	while (c->window & (c->window - 1))
		c->window &= c->window - 1;
	c->signals |= p->syn.signals | TONIC_SIG_ACK;
	c->irs = p->seq;
	c->cfg.signals = c->signals;
	c->cfg.window = c->window;
	c->cfg.seg_size = c->seg_size;
	c->peer_wnd = min_t(u32, p->wnd, c->window);
	c->peer_edge = c->snd_una + c->peer_wnd;
	c->state = ST_ESTABLISHED;
	flow_start(c);
	push(c);
}

/*
 * A listener's SYN: what tonic_negotiate_req() makes of it (the request
 * sock is the connection in SYN_RECV here).  The preamble's C stands for
 * what the route allows.
 */
static void rcv_listen(struct conn *c, const struct tonic_pkt *p)
{
	u32 wanted = p->syn.seg_size, win;

	if (p->type != TONIC_PKT_SYN)
		return;
	win = min_t(u32, p->syn.window, c->window);
	win = win < 1 ? 1 : win > MAX_WINDOW ? MAX_WINDOW : win;
	while (win & (win - 1))
		win &= win - 1;
	c->window = win;
	c->signals |= p->syn.signals;
	if (wanted && wanted < c->seg_size)
		c->seg_size = max_t(u32, wanted, TONIC_MIN_SEGMENT);
	c->irs = p->seq;
	c->cfg.signals = c->signals;
	c->cfg.window = c->window;
	c->cfg.seg_size = c->seg_size;
	c->peer_wnd = c->window;
	c->peer_edge = c->snd_una + c->window;
	c->state = ST_SYN_RECV;
}

static void conn_rcv(struct conn *c, const struct tonic_pkt *p, bool raw,
		     bool ce, bool nomem)
{
	u32 seq, ack;

	switch (c->state) {
	case ST_CLOSED:
		return;
	case ST_SYN_SENT:
		rcv_synsent(c, p);
		return;
	case ST_LISTEN:
		rcv_listen(c, p);
		return;
	default:
		break;
	}
	seq = p->seq - (c->irs + 1) + c->rbase;
	ack = p->ack - (c->iss + 1) + c->base;
	switch (p->type) {
	case TONIC_PKT_SYN:
	case TONIC_PKT_SYNACK:
		return;
	case TONIC_PKT_RST:
		if (rst_valid(c, p->seq))
			conn_close(c);
		return;
	}
	if (seg_before(c->snd_end + 1, ack) ||
	    seg_before(ack + MAX_WINDOW * 2, c->snd_una))
		return;
	if (c->state == ST_SYN_RECV) {
		c->peer_wnd = min_t(u32, p->wnd, c->window);
		c->peer_edge = ack + c->peer_wnd;
		c->state = ST_ESTABLISHED;
		flow_start(c);
	}
	if (c->fin_sent && !c->fin_acked && seg_before(c->fin_seg, ack) &&
	    fin_acked(c))
		return;
	switch (p->type) {
	case TONIC_PKT_ACK:
		ack_rcv(c, ack, p->sack - (c->iss + 1) + c->base, p->flags,
			p->grant, p->wnd, raw);
		break;
	case TONIC_PKT_DATA:
		ack_rcv(c, ack, 0, 0, 0, p->wnd, raw);
		if (c->state == ST_SYN_SENT || c->state == ST_SYN_RECV ||
		    c->state == ST_CLOSED)
			break;
		data_rcv(c, seq, p->len, p->flags, ce, nomem);
		break;
	case TONIC_PKT_FIN:
		ack_rcv(c, ack, 0, 0, 0, p->wnd, raw);
		if (c->state != ST_CLOSED)
			fin_rcv(c, seq);
		break;
	}
}

/* ---- operations ---- */

static void pkt_in(struct conn *c, const u8 *buf, u32 len, bool raw, bool ce,
		   bool nomem)
{
	struct tonic_pkt p;
	enum tonic_pkt_err err = tonic_pkt_parse(buf, len, &p);

	if (err) {
		FUZZ_CHECK(err <= TONIC_PKT_EPORT, "error %d", err);
		return;
	}
	FUZZ_CHECK(p.hdr_len + p.len == len, "hdr %u len %u of %u", p.hdr_len,
		   p.len, len);
	FUZZ_CHECK(p.type && p.type < __TONIC_PKT_MAX && p.source && p.dest,
		   "type %u ports %u %u", p.type, p.source, p.dest);
	FUZZ_CHECK(strlen(p.syn.protocol) < sizeof(p.syn.protocol), "name");
	conn_rcv(c, &p, raw, ce, nomem);
}

/* A packet the input made (not the loopback peer's). */
static void pkt_inject(struct conn *c, const u8 *buf, u32 len, bool raw,
		       bool ce, bool nomem)
{
	struct tonic_pkt p;

	/* acks what the peer does not have: the sender may free it */
	if (!tonic_pkt_parse(buf, len, &p) && c->state != ST_SYN_SENT &&
	    c->state != ST_LISTEN &&
	    (raw || (p.type == TONIC_PKT_ACK && (p.flags & TONIC_F_SACK)) ||
	     seg_before(c->peer.rcv_nxt, p.ack - (c->iss + 1) + c->base)))
		c->forged_sack = true;
	pkt_in(c, buf, len, raw, ce, nomem);
}

static void put16(u8 *b, u16 v)
{
	b[0] = v >> 8;
	b[1] = v;
}

static void put32(u8 *b, u32 v)
{
	put16(b, v >> 16);
	put16(b + 2, v);
}

/* An ACK on the wire, as output.c builds it, for the loopback peer. */
static void send_ack(struct conn *c, const struct tonic_rcv_ack *a)
{
	u8 b[TONIC_HDR_LEN] = {};

	put16(b + offsetof(struct tonichdr, source), DPORT);
	put16(b + offsetof(struct tonichdr, dest), SPORT);
	b[offsetof(struct tonichdr, type)] = TONIC_PKT_ACK;
	b[offsetof(struct tonichdr, flags)] = a->flags;
	put32(b + offsetof(struct tonichdr, seq), c->irs + 1);
	put32(b + offsetof(struct tonichdr, ack), c->iss + 1 + (a->cumack - c->base));
	put32(b + offsetof(struct tonichdr, sack), c->iss + 1 + (a->sack - c->base));
	put16(b + offsetof(struct tonichdr, wnd), c->window);
	put32(b + offsetof(struct tonichdr, grant), a->grant);
	pkt_in(c, b, sizeof(b), false, false, false);
}

/*
 * An honest peer: the segments emitted since last time reach its
 * receiver model except those @loss drops (bit i % 6 for the i-th); its
 * ACKs come back through the parser.  Then its delayed ACK, its answer to
 * a window probe, and an ACK of our FIN once everything arrived.
 */
static void loopback(struct conn *c, u8 loss)
{
	static struct tonic_seg_desc log[SENT_LOG];
	struct tonic_rcv_cfg pcfg = c->cfg;
	struct tonic_rcv_ack a;
	u32 i, n = c->nlog, newly;

	/* What the ACKs below make us send waits for the next round. */
	memcpy(log, c->log, n * sizeof(log[0]));
	c->nlog = 0;
	pcfg.delack_segs = 2;
	for (i = 0; i < n && c->state != ST_CLOSED; i++) {
		struct tonic_rcv_seg in = {
			.seg = log[i].seg, .len = log[i].len,
			.ackreq = i + 1 == n,
		};

		if (loss >> (i % 6) & 1)
			continue;
		if (tonic_rcv_data(&c->peer, &pcfg, &in, c->now, &a, &newly) &
		    TONIC_RCV_SEND_ACK)
			send_ack(c, &a);
	}
	if (c->state != ST_CLOSED && tonic_rcv_delack(&c->peer, &a))
		send_ack(c, &a);
	/* A zero window and nothing in flight: the sender probes (timer.c)
	 * and the peer's answer carries its window.
	 */
	if (c->state != ST_CLOSED && c->snd_una == c->snd_ann &&
	    seg_before(c->snd_ann, c->snd_end) &&
	    !seg_before(c->snd_ann, c->peer_edge)) {
		a = (struct tonic_rcv_ack){ .cumack = c->peer.rcv_nxt };
		send_ack(c, &a);
	}
	if (c->fin_sent && !c->fin_acked && c->peer.rcv_nxt == c->fin_seg &&
	    c->state != ST_CLOSED) {
		a = (struct tonic_rcv_ack){ .flags = TONIC_RF_SACK,
			.cumack = c->fin_seg + 1, .sack = c->fin_seg };
		send_ack(c, &a);
	}
}

/* The application writes @segs more segments, the last @short_len long. */
static void app_write(struct conn *c, u32 segs, u32 short_len)
{
	if (c->fin_queued || !segs || c->snd_end - c->base + segs > MAX_SEGS)
		return;
	/* A short tail not yet announced grows into a full segment. */
	if (c->end_len && c->snd_ann != c->snd_end)
		c->end_len = 0;
	else if (c->end_len && c->subseg_wait)
		return;		/* kernel: new data waits behind it */
	c->end_len = short_len % c->seg_size;
	c->snd_end += segs;
	push(c);
}

static void app_close(struct conn *c)
{
	if (c->fin_queued)
		return;
	if (c->state == ST_ESTABLISHED)
		c->state = ST_FIN_WAIT1;
	else if (c->state == ST_CLOSE_WAIT)
		c->state = ST_LAST_ACK;
	else
		return;
	c->fin_queued = true;
	push(c);
}

/*
 * @delta ns pass.  The socket's timer (timer.c) fires at each engine
 * deadline on the way: rate credit paces a flow in steps of microseconds.
 */
static void timers(struct conn *c, u64 delta)
{
	u64 end = c->now + delta;
	struct tonic_rcv_ack a;
	int i;

	for (i = 0; i < 256 && c->eng; i++) {
		u64 t = tonic_engine_next_timer(c->eng);

		if (t > end)
			break;
		c->now = t > c->now ? t : c->now;
		tonic_engine_timers(c->eng, c->now);
		notify(c);
		push(c);
	}
	c->now = end;
	if (!c->eng)
		return;
	tonic_engine_timers(c->eng, c->now);
	if (c->state != ST_SYN_SENT)
		tonic_rcv_delack(&c->rcv, &a);
	notify(c);
	push(c);
}

/*
 * Preamble (12 bytes, missing ones read as 0):
 *   [0] start state (low 3 bits: enum st but 7 means "established,
 *       peer window 0"; bit 3: a listener, its SYN to come; bits 4-6:
 *       irn with DCQCN, rack without tail-loss probes, dcqcn's byte
 *       counter at 10 kB), [1] protocol, [2] log2 K,
 *   [3] our signals (TONIC_SIG_* bits), [4] delack_segs,
 *   [5..6] C (big endian; at least TONIC_MIN_SEGMENT), [7] segments
 *   queued at the start, [8] length of a short last one, [9..12] base
 */
#define PREAMBLE	13

static void conn_init(struct conn *c, const u8 *pre)
{
	unsigned int st = pre[0] & 7, proto = pre[1] % NPROTOS;
	bool zero_wnd = st >= ST_CLOSING;

	memset(c, 0, sizeof(*c));
	irn_dcqcn = !!(pre[0] & 0x10);
	rack_tlp = !(pre[0] & 0x20);
	dcqcn_byte_counter = pre[0] & 0x40 ? 10000 : 10000000;
	c->iss = 0x10000000;
	c->irs = 0x20000000;
	c->base = (u32)pre[9] << 24 | (u32)pre[10] << 16 | pre[11] << 8 | pre[12];
	c->rbase = c->base ^ 0x80000000;
	c->now = 1000 * MS;
	c->ops = protos[proto].ops;
	c->signals = TONIC_SIG_ACK | pre[3] | *protos[proto].signals;
	c->window = 1U << (pre[2] % 9);
	c->seg_size = max_t(u32, TONIC_MIN_SEGMENT, ((u32)pre[5] << 8 | pre[6]) % 9001);
	c->snd_una = c->snd_ann = c->snd_end = c->head_seen = c->base;
	c->cfg = (struct tonic_rcv_cfg){
		.signals = c->signals, .window = c->window,
		.seg_size = c->seg_size, .policy = TONIC_RCV_SACK,
		.delack_segs = pre[4] % 4, .cnp_interval_ns = 50000,
	};
	tonic_rcv_init(&c->rcv, c->rbase);
	c->rcv_low = c->rbase;
	tonic_rcv_init(&c->peer, c->base);
	c->peer_wnd = zero_wnd ? 0 : c->window;
	c->peer_edge = c->base + c->peer_wnd;

	if (pre[0] & 8)
		st = ST_LISTEN;
	switch (st) {
	case ST_LISTEN:
	case ST_SYN_SENT:
		c->state = st;
		break;
	case ST_SYN_RECV:
		c->state = ST_SYN_RECV;
		break;
	default:
		c->state = ST_ESTABLISHED;
		flow_start(c);
		break;
	}
	c->snd_end = c->base;
	if (c->state == ST_ESTABLISHED)
		app_write(c, pre[7], pre[8]);
	else
		c->snd_end += pre[7];	/* queued behind the handshake */
	if (st == ST_CLOSE_WAIT || st == ST_LAST_ACK)
		fin_rcv(c, c->rcv.rcv_nxt);
	if (st == ST_FIN_WAIT1 || st == ST_LAST_ACK || st == ST_FIN_WAIT2)
		app_close(c);
}

/*
 * Liveness: from wherever the input left it, an honest peer that loses
 * nothing more must get the whole transfer acknowledged (and our FIN),
 * through every protocol's recovery, timeouts and backoff, a window the
 * input closed, a pending sub-segment.  Not after a forged ack: data the
 * sender believes acked is never resent (a segment sacked is kept from
 * retransmission, as RFC 2018 allows; the socket layer's acceptance
 * checks are what keep forged acks out).
 */
static void summary(const struct conn *c);

static void summary(const struct conn *c);

static void drain(struct conn *c)
{
	int r;

	if (c->forged_sack || c->state == ST_CLOSED || !c->eng ||
	    !can_send_data(c))
		return;
	/* Each round delivers what was emitted, or else waits for the
	 * engine's next deadline: at worst one segment a round (K = 1, or a
	 * recovery that resends one segment per timeout).
	 */
	for (r = 0; r < 4 * MAX_SEGS + 1000 && c->state != ST_CLOSED; r++) {
		u64 t;

		if (c->snd_una == c->snd_end && (!c->fin_queued || c->fin_acked))
			return;
		if (c->nlog) {
			loopback(c, 0);
		} else {
			loopback(c, 0);		/* probes, delayed ACK, FIN */
			/* at least 50 ms: a periodic tick (DCQCN: 250 us)
			 * must not hold the clock back; timers() runs
			 * every deadline on the way
			 */
			t = c->eng ? tonic_engine_next_timer(c->eng) : U64_MAX;
			timers(c, t > c->now + 50 * MS && t - c->now < 1000000 * MS ?
				  t - c->now : 50 * MS);
		}
		check_all(c);
	}
	if (c->state == ST_CLOSED)
		return;
	if (c->snd_una != c->snd_end || (c->fin_queued && !c->fin_acked))
		summary(c);
	FUZZ_CHECK(c->snd_una == c->snd_end && (!c->fin_queued || c->fin_acked),
		   "transfer stuck: acked %u of %u (announced %u, emitted %u), fin %d/%d",
		   c->snd_una - c->base, c->snd_end - c->base,
		   c->snd_ann - c->base, c->sent_any ? c->sent_hi - c->base : 0,
		   c->fin_sent,
		   c->fin_acked);
}

/* FUZZ_PKT_VERBOSE=1: where an input left the connection (seeds, crashes). */
static void summary(const struct conn *c)
{
	struct tonic_engine_stats est = {};

	if (c->eng)
		tonic_engine_stats(c->eng, &est);
	fprintf(stderr, "fuzz_pkt: state %d C %u K %u sent %u/%u acked %u fin %d/%d "
		"| received %llu peer_fin %d | peer got %u forged %d | engine segs %llu rtx %llu "
		"timeouts %llu bad %llu\n", c->state, c->seg_size, c->window,
		c->sent_any ? c->sent_hi - c->base : 0, c->snd_end - c->base,
		c->snd_una - c->base, c->fin_sent, c->fin_acked,
		(unsigned long long)c->rcv.delivered, c->peer_fin,
		c->peer.rcv_nxt - c->base, c->forged_sack,
		(unsigned long long)est.segs_sent,
		(unsigned long long)est.segs_rtx,
		(unsigned long long)est.timeouts,
		(unsigned long long)est.ctrl_bad);
	if (c->eng) {
		struct tonic_flow_stats fs;

		tonic_engine_flow_stats(c->eng, FLOW, &fs);
		fprintf(stderr, "fuzz_pkt: flow head %u next %u tail %u wnd %u "
			"ring %u marked %u rate %llu credit %lld next timer %lld "
			"ann %u edge %u\n", fs.wnd_start - c->base,
			fs.next_new - c->base, fs.tail - c->base, fs.wnd,
			fs.outstanding, fs.marked,
			(unsigned long long)fs.rate_bps, (long long)fs.credit_bytes,
			(long long)(tonic_engine_next_timer(c->eng) - c->now),
			c->snd_ann - c->base, c->peer_edge - c->base);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct conn c;
	u8 pre[PREAMBLE] = {};
	size_t i = 0;

	memcpy(pre, data, size < PREAMBLE ? size : PREAMBLE);
	i = size < PREAMBLE ? size : PREAMBLE;
	conn_init(&c, pre);
	check_all(&c);

	/*
	 * Operations: one byte; its low two bits say what.
	 *   0 packet: bits 2-7 ms to wait first (0-63); then one byte of
	 *     flags (bit 0: raw, the engine gets the fields unclamped;
	 *     bit 1: CE; bit 2: no receive memory), one byte of length,
	 *     and that many bytes from the Tonic header on
	 *   1 time: bits 2-7 x 10 ms pass; timers run
	 *   2 application: bits 2-7 = 63: close(); else write that many
	 *     segments, the next byte the short last one's length
	 *   3 loopback: bits 2-7 the loss pattern (see loopback())
	 */
	while (i < size && c.state != ST_CLOSED) {
		u8 op = data[i++], arg = op >> 2;

		switch (op & 3) {
		case 0: {
			u8 fl, len;

			if (size - i < 2)
				goto out;
			fl = data[i++];
			len = data[i++];
			if (len > size - i)
				len = size - i;
			timers(&c, arg * MS);
			if (c.state != ST_CLOSED)
				pkt_inject(&c, data + i, len, fl & 1, fl & 2,
					   fl & 4);
			i += len;
			break;
		}
		case 1:
			timers(&c, arg * 10 * MS);
			break;
		case 2:
			if (arg == 63) {
				app_close(&c);
			} else {
				u8 sl = i < size ? data[i++] : 0;

				if (c.state != ST_SYN_SENT && c.state != ST_SYN_RECV &&
				    c.state != ST_LISTEN)
					app_write(&c, arg, sl);
			}
			break;
		case 3:
			loopback(&c, arg);
			break;
		}
		check_all(&c);
	}
	drain(&c);
out:
	if (getenv("FUZZ_PKT_VERBOSE"))
		summary(&c);
	tonic_engine_destroy(c.eng);
	c.eng = NULL;
	return 0;
}
