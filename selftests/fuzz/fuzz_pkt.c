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
 * What runs unmodified is the parser, the acceptance checks of the socket
 * layer (kmod/engine/accept.c: RFC 5961, the request sock, FIN, the ack
 * and window clamps, ICMP, DATA lengths), the SYN-cookie arithmetic
 * (kmod/engine/cookie.c), the engine, the protocols and the receiver.
 * The glue below stands for what the kernel's sk_buff and socket code
 * provide around them (kmod/sock/input.c, sndbuf.c, handshake.c,
 * syncookie.c): queues, timers, the socket's fields, and acting on each
 * verdict as those files do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "flow.h"
#include "receiver.h"
#include "pkt.h"
#include "accept.h"
#include "cookie.h"
#include "negotiate.h"

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

#define MINUTE		(60000 * MS)

/*
 * One endpoint.  Segment numbers are the engine's: the sender's start at
 * @base (the kernel's start at 0; a base near 2^32 tests wrapping), the
 * receiver's at @rbase.  On the wire they are ISN + 1 + (n - base).
 */
struct conn {
	int state;		/* TCP_*, as the kernel's sk_state */
	bool req;		/* SYN_RECV as a request sock (before the child) */
	bool cookies;		/* a listener answering with SYN cookies */
	u32 clock;		/* added to the minute of the cookie clock */
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
	struct tonic_rcv_lens lens;	/* relative numbers, as the kernel's */

	/* the last SYN cookie sent, and the verdicts counted */
	bool cookie_sent;
	u32 cookie_irs, cookie_minute;
	struct tonic_cookie_opts cookie_opts;
	u32 challenges, resets, refused;

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

/*
 * What the acceptance checks read of the connection, in the kernel's
 * numbers (tonic_acc_view_of()): relative to each side's ISN + 1, that is
 * the harness's minus @base (ours) or @rbase (the peer's).
 */
static void view(const struct conn *c, struct tonic_acc_view *v)
{
	*v = (struct tonic_acc_view){
		.rcv_nxt = c->rcv.rcv_nxt - c->rbase,
		.snd_una = c->snd_una - c->base,
		.snd_ann = c->snd_ann - c->base,
		.fin_seg = c->fin_seg - c->base,
		.peer_edge = c->peer_edge - c->base,
		.window = c->window,
		.state = c->state,
		.fin_sent = c->fin_sent,
		.fin_acked = c->fin_acked,
		.peer_fin = c->peer_fin,
	};
}

/* The receiver's rcv_nxt and held, relative (for the length checks). */
static void rcv_rel(const struct conn *c, struct tonic_rcv *r)
{
	memset(r, 0, sizeof(*r));
	r->rcv_nxt = c->rcv.rcv_nxt - c->rbase;
	r->held = c->rcv.held;
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
	/* the peer's edge: from an ack no further than announced, a
	 * window no larger than K
	 */
	FUZZ_CHECK(!seg_before(c->snd_ann + c->window, c->peer_edge),
		   "peer edge %u past snd_ann %u + K %u", c->peer_edge,
		   c->snd_ann, c->window);
	check_engine(c);
	if (c->state == TCP_SYN_SENT || c->state == TCP_LISTEN)
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
	c->state = TCP_CLOSE;
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
	return c->state == TCP_ESTABLISHED || c->state == TCP_CLOSE_WAIT ||
	       c->state == TCP_FIN_WAIT1 || c->state == TCP_LAST_ACK;
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

/*
 * @raw: events straight from the packet's fields, past the clamps of
 * tonic_acc_ack() and tonic_acc_sack_ok(), to hit the engine's own checks.
 */
static unsigned int raw_ack_events(u32 ack, const struct tonic_ack_pkt *p,
				   struct tonic_ctrl_desc *ev)
{
	struct tonic_ctrl_desc *e = ev;
	unsigned int i, n;

	memset(ev, 0, TONIC_ACK_EVENTS * sizeof(*ev));
	e->type = TONIC_CTRL_ACK;
	e->flags = TONIC_CF_CUMACK;
	e->cumack = ack;
	e->sack = p->sack;
	if (p->flags & TONIC_F_SACK) {
		if (p->flags & TONIC_F_DUP) {
			e->flags |= TONIC_CF_DUP;
		} else {
			e->flags |= TONIC_CF_SACK;
			if (p->rtt_ns) {
				e->flags |= TONIC_CF_RTT;
				e->rtt_ns = p->rtt_ns;
			}
		}
		if (p->flags & TONIC_F_NACK) {
			e->type = TONIC_CTRL_NACK;
			e->flags |= TONIC_CF_NACK;
			e->nack = p->sack;
		}
		if (p->flags & TONIC_F_ECE)
			e->flags |= TONIC_CF_ECE;
	}
	e++;
	if (p->flags & TONIC_F_CNP)
		e++->type = TONIC_CTRL_CNP;
	if (p->flags & TONIC_F_GRANT) {
		e->type = TONIC_CTRL_GRANT;
		e->flags = TONIC_CF_GRANT;
		e++->grant = p->grant;
	}
	n = e - ev;
	for (i = 0; i < n; i++)
		ev[i].flow_id = FLOW;
	return n;
}

/*
 * tonic_ack_rcv(): @ack and @sack in the engine's numbers, which start
 * at c->base; the acceptance code works relative to our ISN + 1.
 */
static void ack_rcv(struct conn *c, u32 ack, u32 sack, u8 flags, u32 grant,
		    u32 wnd, bool raw)
{
	struct tonic_ctrl_desc ev[TONIC_ACK_EVENTS];
	u32 slot = sack & (MAX_WINDOW - 1);
	struct tonic_ack_pkt p = {
		.sack = sack - c->base, .flags = flags, .grant = grant,
	};
	struct tonic_acc_view v;
	struct tonic_acc_ack a;
	unsigned int n, i;
	bool idle;

	view(c, &v);
	/* what the kernel's header prediction skips (tonic_ack_rcv()) */
	idle = tonic_acc_ack_idle(v.snd_una, c->peer_wnd, v.peer_edge,
				  c->window, ack - c->base, wnd, flags);
	tonic_acc_ack(&v, ack - c->base, wnd, &a);
	FUZZ_CHECK(!idle || (!a.old && a.wnd == c->peer_wnd &&
			     (!a.update || a.edge == v.peer_edge)),
		   "idle ack %u moves the window %u/%u edge %u/%u",
		   ack, a.wnd, c->peer_wnd, a.edge, v.peer_edge);
	FUZZ_CHECK(!seg_before(a.cum, v.snd_una) && !seg_before(v.snd_ann, a.cum),
		   "cum %u outside [%u, %u]", a.cum, v.snd_una, v.snd_ann);
	FUZZ_CHECK(a.wnd <= c->window, "window %u > K %u", a.wnd, c->window);
	if (a.update) {
		FUZZ_CHECK(!seg_before(a.edge + c->base, c->peer_edge),
			   "edge %u moves back from %u", a.edge + c->base,
			   c->peer_edge);
		c->peer_edge = a.edge + c->base;
		c->peer_wnd = a.wnd;
	}
	if (!c->eng)
		return;
	if (c->sent_at[slot] && !c->rtx_seen[slot])
		p.rtt_ns = c->now - c->sent_at[slot];
	if (raw) {
		p.sack = sack;
		n = raw_ack_events(ack, &p, ev);
	} else {
		n = tonic_acc_ack_events(&v, &a, &p, FLOW, ev);
		FUZZ_CHECK(!idle || !n, "idle ack %u makes %u events", ack, n);
	}
	for (i = 0; i < n && !raw; i++) {
		struct tonic_ctrl_desc *e = &ev[i];

		FUZZ_CHECK(!a.old || (!(e->flags & TONIC_CF_CUMACK) &&
				      e->type != TONIC_CTRL_NACK),
			   "late ack %u counted as a duplicate or a NACK", ack);
		if (e->type == TONIC_CTRL_ACK || e->type == TONIC_CTRL_NACK)
			e->cumack += c->base;
		if (e->flags & TONIC_CF_NACK)
			e->nack += c->base;
		if (e->flags & (TONIC_CF_SACK | TONIC_CF_DUP))
			e->sack += c->base;
	}
	if (n)
		tonic_engine_ctrl(c->eng, ev, n, c->now);
	notify(c);
	push(c);
}

/* ---- receiver: input.c ---- */

/*
 * A GRO batch's length check (tonic_len_run_bad()) answers as the
 * single one of each of its segments, here for a run ending with this
 * segment, in the lengths the connection has kept so far.
 */
static void check_len_run(const struct conn *c, const struct tonic_rcv *r,
			  u32 seq, u32 len, u32 cs)
{
	u32 n = 1 + (seq ^ len) % 64, i, first = seq - (n - 1);
	bool bad = false;

	for (i = 0; i < n; i++)
		bad |= tonic_len_bad(&c->lens, r, cs, first + i,
				     i + 1 < n ? cs : len);
	FUZZ_CHECK(tonic_len_run_bad(&c->lens, r, cs, first, n, len) == bad,
		   "run of %u to %u (len %u): not as single checks", n, seq,
		   len);
}

/*
 * A delayed ACK waits for fewer segments than the sender allows (ACKFREQ:
 * delack_max, else delack_segs), and never for one that asked (ACKREQ).
 */
static void check_delack(const struct tonic_rcv *r,
			 const struct tonic_rcv_cfg *cfg,
			 const struct tonic_rcv_seg *in, unsigned int what)
{
	u32 most = r->ackfreq ? cfg->delack_max : cfg->delack_segs;

	FUZZ_CHECK(r->pending < max_t(u32, most, 1),
		   "%u segments wait for an ACK (at most %u)", r->pending, most);
	FUZZ_CHECK(!(what & TONIC_RCV_ARM_DELACK) || !in->ackreq,
		   "ACKREQ left to the delayed-ACK timer");
}

/* tonic_data_rcv(): a segment of @cs bytes of C (tonic_len_c()). */
static void data_rcv(struct conn *c, u32 seg, u32 len, u32 cs, u8 flags,
		     bool ce, bool nomem)
{
	struct tonic_rcv_seg in = {
		.seg = seg, .len = len, .ce = ce,
		.ackreq = flags & TONIC_F_ACKREQ,
		.ackfreq = flags & TONIC_F_ACKFREQ,
	};
	struct tonic_rcv_ack ack;
	unsigned int what;
	u32 newly, before = c->rcv.rcv_nxt;

	c->cfg.seg_size = cs;
	in.verdict = c->peer_fin ? TONIC_RCV_DUP :
		     tonic_rcv_verdict(&c->rcv, &c->cfg, seg);
	if (nomem && (in.verdict == TONIC_RCV_NEXT ||
		      in.verdict == TONIC_RCV_HOLD))
		in.verdict = TONIC_RCV_DROP;
	what = tonic_rcv_take(&c->rcv, &c->cfg, &in, c->now, &ack, &newly);
	c->cfg.seg_size = c->seg_size;
	if (in.verdict == TONIC_RCV_NEXT || in.verdict == TONIC_RCV_HOLD) {
		struct tonic_rcv r;

		rcv_rel(c, &r);
		tonic_len_keep(&c->lens, &r, cs, seg - c->rbase, len,
			       in.verdict == TONIC_RCV_HOLD);
	}
	FUZZ_CHECK(newly == c->rcv.rcv_nxt - before, "newly %u moved %u",
		   newly, c->rcv.rcv_nxt - before);
	check_delack(&c->rcv, &c->cfg, &in, what);
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

/* tonic_fin_rcv(): @seg in the harness's numbers. */
static void fin_rcv(struct conn *c, u32 seg)
{
	struct tonic_acc_view v;
	int state;

	view(c, &v);
	if (tonic_acc_fin(&v, seg - c->rbase) != TONIC_ACC_OK)
		return;		/* dropped, or a repeat acked again */
	FUZZ_CHECK(!c->peer_fin, "a second FIN taken at %u", seg);
	c->rcv.rcv_nxt++;
	c->peer_fin = true;
	tonic_rcv_purge(&c->rcv);
	state = tonic_acc_fin_state(c->state);
	if (state == TCP_CLOSE)
		conn_close(c);
	else
		c->state = state;
}

/* Our FIN was acknowledged: true if the connection is over. */
static bool fin_acked(struct conn *c)
{
	int state = tonic_acc_fin_acked_state(c->state);

	c->fin_acked = true;
	if (state == TCP_CLOSE) {
		conn_close(c);
		return true;
	}
	c->state = state;
	return false;
}

/* K, C and the signals are chosen: the receiver and the window follow. */
static void conn_chosen(struct conn *c)
{
	c->cfg.signals = c->signals;
	c->cfg.window = c->window;
	c->cfg.seg_size = c->seg_size;
}

/* tonic_rcv_synsent() */
static void rcv_synsent(struct conn *c, const struct tonic_pkt *p)
{
	switch (tonic_acc_synsent(c->iss, p->type, p->ack)) {
	case TONIC_ACC_OK:
		break;
	case TONIC_ACC_RESET:
		c->resets++;
		conn_close(c);
		return;
	default:
		return;
	}
	/* tonic_negotiate_synack() */
	if (tonic_syn_accept(&p->syn, &c->seg_size, &c->window, &c->signals))
		return;
	c->irs = p->seq;
	conn_chosen(c);
	c->peer_wnd = min_t(u32, p->wnd, c->window);
	c->peer_edge = c->snd_una + c->peer_wnd;
	c->state = TCP_ESTABLISHED;
	flow_start(c);
	push(c);
}

/* The harness's keyed hash of a cookie (the kernel's is SipHash). */
static u32 cookie_hash(u32 irs, u32 minute)
{
	return irs * 0x9e3779b1U ^ minute * 0x85ebca6bU;
}

static u32 cookie_minute(const struct conn *c)
{
	return (u32)(c->now / MINUTE) + c->clock;
}

/* tonic_pick_seg_size(): the preamble's C stands for the route's. */
static u16 pick_seg_size(const struct conn *c, u32 wanted)
{
	return wanted && wanted < c->seg_size ?
	       max_t(u32, wanted, TONIC_MIN_SEGMENT) : c->seg_size;
}

/*
 * A listener's SYN: what tonic_negotiate_req() makes of it
 * (tonic_syn_choose()).  Then a request sock (the connection in
 * SYN_RECV, @req), or with SYN cookies (tonic_cookie_make()) nothing but
 * the SYN-ACK's ISN.
 */
static void rcv_syn(struct conn *c, const struct tonic_pkt *p)
{
	struct tonic_syn_choice ch;

	tonic_syn_choose(&p->syn, c->window, c->signals, 0, &ch);
	FUZZ_CHECK(ch.window && ch.window <= MAX_WINDOW &&
		   !(ch.window & (ch.window - 1)) && ch.window <= c->window,
		   "K %u chosen, ours %u", ch.window, c->window);
	if (c->cookies) {
		struct tonic_cookie_opts o = {
			.seg_size = pick_seg_size(c, ch.seg_size),
			.window = ch.window, .signals = ch.signals,
		};
		u32 data;

		data = tonic_cookie_encode(&o);
		FUZZ_CHECK(!(data >> TONIC_COOKIE_DATA_BITS), "data %#x", data);
		c->cookie_sent = true;
		c->cookie_irs = p->seq;
		c->cookie_minute = cookie_minute(c);
		c->cookie_opts = o;
		c->iss = tonic_cookie_isn(c->cookie_minute,
					  cookie_hash(p->seq, c->cookie_minute),
					  data);
		return;
	}
	c->window = ch.window;
	c->signals = ch.signals;
	c->seg_size = pick_seg_size(c, ch.seg_size);
	c->irs = p->seq;
	conn_chosen(c);
	c->peer_wnd = c->window;
	c->peer_edge = c->snd_una + c->window;
	c->state = TCP_SYN_RECV;
	c->req = true;
}

/*
 * An ACK or DATA at a listener that sent SYN cookies
 * (tonic_cookie_check()): true if it carried one and the child (the
 * connection in SYN_RECV) is made.
 */
static bool cookie_check(struct conn *c, const struct tonic_pkt *p)
{
	u32 cookie = p->ack - 1, irs = p->seq - 1, now = cookie_minute(c);
	struct tonic_cookie_opts o;
	int age, data;

	if (p->type != TONIC_PKT_ACK && p->type != TONIC_PKT_DATA)
		return false;
	age = tonic_cookie_age(cookie, now);
	data = age < 0 ? -1 :
	       tonic_cookie_decode(cookie, cookie_hash(irs, now - age));
	/* the cookie of the SYN we answered, in its time, is good */
	if (c->cookie_sent && cookie == c->iss && irs == c->cookie_irs &&
	    now - c->cookie_minute <= TONIC_COOKIE_AGE)
		FUZZ_CHECK(data >= 0, "our cookie %#x refused (age %d)",
			   cookie, age);
	if (data < 0) {
		c->refused++;
		return false;
	}
	tonic_cookie_opts(data, &o);
	FUZZ_CHECK(o.seg_size >= TONIC_MIN_SEGMENT && o.window &&
		   o.window <= MAX_WINDOW && !(o.window & (o.window - 1)) &&
		   (o.signals & TONIC_SIG_ACK) &&
		   !(o.signals & ~TONIC_SIGNALS_KNOWN),
		   "cookie C %u K %u signals %#x", o.seg_size, o.window,
		   o.signals);
	if (c->cookie_sent && cookie == c->iss && irs == c->cookie_irs)
		FUZZ_CHECK(o.seg_size == c->cookie_opts.seg_size &&
			   o.window == c->cookie_opts.window &&
			   o.signals == c->cookie_opts.signals,
			   "cookie says C %u K %u signals %#x, sent %u %u %#x",
			   o.seg_size, o.window, o.signals,
			   c->cookie_opts.seg_size, c->cookie_opts.window,
			   c->cookie_opts.signals);
	c->iss = cookie;
	c->irs = irs;
	c->seg_size = o.seg_size;
	c->window = o.window;
	c->signals = o.signals;
	conn_chosen(c);
	c->peer_wnd = c->window;
	c->peer_edge = c->snd_una + c->window;
	c->state = TCP_SYN_RECV;
	return true;
}

/* tonic_rcv_listen(): true if the packet goes on to the child. */
static bool rcv_listen(struct conn *c, const struct tonic_pkt *p)
{
	if (p->type == TONIC_PKT_SYN) {
		rcv_syn(c, p);
		return false;
	}
	return c->cookies && cookie_check(c, p);
}

/* tonic_check_req(): true if the child is made and takes the packet. */
static bool rcv_req(struct conn *c, const struct tonic_pkt *p)
{
	switch (tonic_acc_req(c->iss, c->irs, p->type, p->seq, p->ack)) {
	case TONIC_ACC_OK:
		c->req = false;
		return true;
	case TONIC_ACC_RESET:
		c->resets++;
		conn_close(c);
		return false;
	case TONIC_ACC_REFUSE:
		c->refused++;
		return false;
	default:
		return false;
	}
}

/* tonic_rcv_conn(): the verdicts of tonic_acc_conn() acted on. */
static void conn_rcv(struct conn *c, const struct tonic_pkt *p, bool raw,
		     bool ce, bool nomem)
{
	struct tonic_acc_view v;
	enum tonic_acc verdict;
	struct tonic_rcv r;
	u32 seq, ack, cs;

	switch (c->state) {
	case TCP_CLOSE:
		return;
	case TCP_SYN_SENT:
		rcv_synsent(c, p);
		return;
	case TCP_LISTEN:
		if (!rcv_listen(c, p))
			return;
		break;
	default:
		if (c->req && !rcv_req(c, p))
			return;
		break;
	}
	seq = p->seq - (c->irs + 1);
	ack = p->ack - (c->iss + 1);
	view(c, &v);
	verdict = tonic_acc_conn(&v, p->type, seq, ack);
	/* raw: an ACK straight to the engine, whatever its numbers */
	if (raw && p->type == TONIC_PKT_ACK &&
	    (verdict == TONIC_ACC_DROP || verdict == TONIC_ACC_STALE))
		verdict = TONIC_ACC_OK;
	switch (verdict) {
	case TONIC_ACC_OK:
		break;
	case TONIC_ACC_RESET:
		FUZZ_CHECK(p->type == TONIC_PKT_RST && seq == v.rcv_nxt,
			   "reset by type %u seq %u, rcv_nxt %u", p->type, seq,
			   v.rcv_nxt);
		c->resets++;
		conn_close(c);
		return;
	case TONIC_ACC_CHALLENGE:
	case TONIC_ACC_STALE:
		c->challenges++;
		return;
	default:
		return;
	}
	if (c->state == TCP_SYN_RECV) {
		c->peer_wnd = min_t(u32, p->wnd, c->window);
		c->peer_edge = ack + c->base + c->peer_wnd;
		c->state = TCP_ESTABLISHED;
		flow_start(c);
	}
	if (tonic_acc_fin_acked(&v, ack) && fin_acked(c))
		return;
	switch (p->type) {
	case TONIC_PKT_ACK:
		ack_rcv(c, ack + c->base, p->sack - (c->iss + 1) + c->base,
			p->flags, p->grant, p->wnd, raw);
		break;
	case TONIC_PKT_DATA:
		rcv_rel(c, &r);
		cs = tonic_len_c(c->seg_size, p->sack);
		if (!cs)
			break;
		check_len_run(c, &r, seq, p->len, cs);
		if (tonic_len_bad(&c->lens, &r, cs, seq, p->len))
			break;
		ack_rcv(c, ack + c->base, 0, 0, 0, p->wnd, raw);
		if (!tonic_acc_data_state(c->state))
			break;
		data_rcv(c, seq + c->rbase, p->len, cs, p->flags, ce, nomem);
		break;
	case TONIC_PKT_FIN:
		ack_rcv(c, ack + c->base, 0, 0, 0, p->wnd, raw);
		if (c->state != TCP_CLOSE)
			fin_rcv(c, seq + c->rbase);
		break;
	}
}

/*
 * An ICMP error quoting a packet whose seq is @seq (tonic_v4_err()):
 * acted on only if tonic_icmp_seq_ok() (the kernel's demux for a request
 * sock: its SYN-ACK).  A handshake fails at once; a connection only
 * records the error.
 */
static void icmp_in(struct conn *c, u32 seq)
{
	struct tonic_acc_view v;

	if (c->state == TCP_CLOSE)
		return;
	if (c->req) {
		if (tonic_icmp_req_ok(c->iss, seq))
			conn_close(c);
		return;
	}
	view(c, &v);
	if (!tonic_icmp_seq_ok(&v, c->iss, seq))
		return;
	FUZZ_CHECK(c->state != TCP_LISTEN, "ICMP taken by a listener");
	if (c->state == TCP_SYN_SENT)
		conn_close(c);
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
	if (!tonic_pkt_parse(buf, len, &p) && c->state != TCP_SYN_SENT &&
	    c->state != TCP_LISTEN &&
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
	/* the peer's tonic-tail: what it sent, all of which we hold */
	put32(b + offsetof(struct tonichdr, seq),
	      c->irs + 1 + (c->rcv.rcv_nxt - c->rbase));
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
	for (i = 0; i < n && c->state != TCP_CLOSE; i++) {
		/* The flags output.c puts on the wire (TONIC_F_ACK*). */
		struct tonic_rcv_seg in = {
			.seg = log[i].seg, .len = log[i].len,
			.ackreq = i + 1 == n || log[i].rtx ||
				  (log[i].flags & TONIC_SEG_ACKREQ),
			.ackfreq = log[i].flags & TONIC_SEG_ACKFREQ,
		};
		unsigned int what;

		if (loss >> (i % 6) & 1)
			continue;
		what = tonic_rcv_data(&c->peer, &pcfg, &in, c->now, &a, &newly);
		check_delack(&c->peer, &pcfg, &in, what);
		if (what & TONIC_RCV_SEND_ACK)
			send_ack(c, &a);
	}
	if (c->state != TCP_CLOSE && tonic_rcv_delack(&c->peer, &a))
		send_ack(c, &a);
	/* A zero window and nothing in flight: the sender probes (timer.c)
	 * and the peer's answer carries its window.
	 */
	if (c->state != TCP_CLOSE && c->snd_una == c->snd_ann &&
	    seg_before(c->snd_ann, c->snd_end) &&
	    !seg_before(c->snd_ann, c->peer_edge)) {
		a = (struct tonic_rcv_ack){ .cumack = c->peer.rcv_nxt };
		send_ack(c, &a);
	}
	if (c->fin_sent && !c->fin_acked && c->peer.rcv_nxt == c->fin_seg &&
	    c->state != TCP_CLOSE) {
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
	if (c->state == TCP_ESTABLISHED)
		c->state = TCP_FIN_WAIT1;
	else if (c->state == TCP_CLOSE_WAIT)
		c->state = TCP_LAST_ACK;
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
	if (c->state != TCP_SYN_SENT)
		tonic_rcv_delack(&c->rcv, &a);
	notify(c);
	push(c);
}

/*
 * Preamble (13 bytes, missing ones read as 0):
 *   [0] start state (low 3 bits: enum pre_state; bit 3: a listener, its
 *       SYN to come; bits 4-6: irn with DCQCN, rack without tail-loss
 *       probes, dcqcn's byte counter at 10 kB; bit 7: the listener
 *       answers with SYN cookies, net.tonic.syncookies = 2),
 *   [1] protocol, [2] log2 K, [3] our signals (TONIC_SIG_* bits),
 *   [4] delack_segs (low 2 bits) and delack_max (the rest), [5..6] C (big endian; at least TONIC_MIN_SEGMENT),
 *   [7] segments queued at the start, [8] length of a short last one,
 *   [9..12] base (its top 3 bits also set the cookie clock's minute)
 */
#define PREAMBLE	13

enum pre_state {
	PRE_ESTABLISHED,
	PRE_SYN_SENT,
	PRE_SYN_RECV,		/* a request sock */
	PRE_CLOSE_WAIT,
	PRE_FIN_WAIT1,
	PRE_LAST_ACK,
	PRE_FIN_WAIT2,		/* FIN-wait-1 with a FIN acked to come */
	PRE_ZERO_WND,		/* established, the peer's window 0 */
};

static void conn_init(struct conn *c, const u8 *pre)
{
	unsigned int st = pre[0] & 7, proto = pre[1] % NPROTOS;

	memset(c, 0, sizeof(*c));
	irn_dcqcn = !!(pre[0] & 0x10);
	rack_tlp = !(pre[0] & 0x20);
	dcqcn_byte_counter = pre[0] & 0x40 ? 10000 : 10000000;
	c->iss = 0x10000000;
	c->irs = 0x20000000;
	c->base = (u32)pre[9] << 24 | (u32)pre[10] << 16 | pre[11] << 8 | pre[12];
	c->rbase = c->base ^ 0x80000000;
	c->clock = c->base >> 29;
	c->now = 1000 * MS;
	c->ops = protos[proto].ops;
	c->signals = TONIC_SIG_ACK | pre[3] | *protos[proto].signals;
	c->window = 1U << (pre[2] % 9);
	c->seg_size = max_t(u32, TONIC_MIN_SEGMENT, ((u32)pre[5] << 8 | pre[6]) % 9001);
	c->snd_una = c->snd_ann = c->snd_end = c->head_seen = c->base;
	c->cfg = (struct tonic_rcv_cfg){
		.signals = c->signals, .window = c->window,
		.seg_size = c->seg_size, .policy = TONIC_RCV_SACK,
		.delack_segs = pre[4] % 4, .delack_max = max(pre[4] >> 2, 1),
		.cnp_interval_ns = 50000,
	};
	tonic_rcv_init(&c->rcv, c->rbase);
	c->rcv_low = c->rbase;
	tonic_rcv_init(&c->peer, c->base);
	c->peer_wnd = st == PRE_ZERO_WND ? 0 : c->window;
	c->peer_edge = c->base + c->peer_wnd;

	if (pre[0] & 8) {
		c->state = TCP_LISTEN;
		c->cookies = pre[0] & 0x80;
	} else if (st == PRE_SYN_SENT) {
		c->state = TCP_SYN_SENT;
	} else if (st == PRE_SYN_RECV) {
		c->state = TCP_SYN_RECV;
		c->req = true;
	} else {
		c->state = TCP_ESTABLISHED;
		flow_start(c);
	}
	c->snd_end = c->base;
	if (c->state == TCP_ESTABLISHED)
		app_write(c, pre[7], pre[8]);
	else
		c->snd_end += pre[7];	/* queued behind the handshake */
	if (c->state != TCP_ESTABLISHED)
		return;
	if (st == PRE_CLOSE_WAIT || st == PRE_LAST_ACK)
		fin_rcv(c, c->rcv.rcv_nxt);
	if (st == PRE_FIN_WAIT1 || st == PRE_LAST_ACK || st == PRE_FIN_WAIT2)
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

static void drain(struct conn *c)
{
	int r;

	if (c->forged_sack || c->state == TCP_CLOSE || !c->eng ||
	    !can_send_data(c))
		return;
	/* Each round delivers what was emitted, or else waits for the
	 * engine's next deadline: at worst one segment a round (K = 1, or a
	 * recovery that resends one segment per timeout).
	 */
	for (r = 0; r < 4 * MAX_SEGS + 1000 && c->state != TCP_CLOSE; r++) {
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
	if (c->state == TCP_CLOSE)
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
	fprintf(stderr, "fuzz_pkt: state %d (TCP_*) C %u K %u sent %u/%u acked %u fin %d/%d "
		"| received %llu peer_fin %d | peer got %u forged %d | engine segs %llu rtx %llu "
		"timeouts %llu bad %llu | challenges %u resets %u refused %u\n",
		c->state, c->seg_size, c->window,
		c->sent_any ? c->sent_hi - c->base : 0, c->snd_end - c->base,
		c->snd_una - c->base, c->fin_sent, c->fin_acked,
		(unsigned long long)c->rcv.delivered, c->peer_fin,
		c->peer.rcv_nxt - c->base, c->forged_sack,
		(unsigned long long)est.segs_sent,
		(unsigned long long)est.segs_rtx,
		(unsigned long long)est.timeouts,
		(unsigned long long)est.ctrl_bad, c->challenges, c->resets,
		c->refused);
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
	 *     flags (bit 0: raw, an ACK goes to the engine unclamped;
	 *     bit 1: CE; bit 2: no receive memory; bit 3: not the packet
	 *     but an ICMP error quoting it, the seq of its bytes 8-11), one
	 *     byte of length, and that many bytes from the Tonic header on
	 *   1 time: bits 2-7 x 10 ms pass; timers run
	 *   2 application: bits 2-7 = 63: close(); else write that many
	 *     segments, the next byte the short last one's length
	 *   3 loopback: bits 2-7 the loss pattern (see loopback())
	 */
	while (i < size && c.state != TCP_CLOSE) {
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
			if (c.state != TCP_CLOSE && (fl & 8) && len >= 12)
				icmp_in(&c, (u32)data[i + 8] << 24 |
					(u32)data[i + 9] << 16 |
					(u32)data[i + 10] << 8 | data[i + 11]);
			else if (c.state != TCP_CLOSE)
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

				if (c.state != TCP_SYN_SENT && c.state != TCP_SYN_RECV &&
				    c.state != TCP_LISTEN)
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
