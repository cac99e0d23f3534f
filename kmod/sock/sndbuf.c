// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the send buffer and the glue to the engine.
 *
 * The send buffer is sk_write_queue: skbs of payload page fragments (as
 * TCP's), each holding a run of up to 64 KB of consecutive segments, all
 * of C bytes but the queue's last one, which may be short and still grow
 * (TONIC_SKB_CB()->seg is the run's first segment, ->nsegs how many,
 * ->seg_size its C: smaller in the runs cut after a path MTU drop).
 * Segment s starts (s - seg) x C bytes into its skb; transmitting builds
 * a packet that references those pages rather than copying bytes, and a
 * run's skb is freed once its last segment is acknowledged, so the send
 * buffer costs an allocation per 64 KB, not per segment.
 * Three pointers, counted in segments (Tonic §5 and Appendix D):
 *
 *   head (snd_una) <= tonic-tail (snd_ann) <= tail (snd_end)
 *
 * [head, tonic-tail) is announced to the engine and not yet cumulatively
 * acknowledged; tonic_sock.segs maps each of them to its skb.
 * [tonic-tail, tail) is not announced yet; only the last of them may be
 * shorter than C and still grow.  A short tail is announced as a
 * sub-segment when tonic_tail_due() says so (Nagle's rule with the flush
 * delay T as its timer); after that nothing is announced until the engine
 * reports the sub-segment delivered.  Announcements stop at head + K (the engine's
 * window) and at the peer's advertised receive window.
 *
 * Every socket has its own engine instance holding one flow (id 0),
 * created at the first send in process context (tonic_engine_create()
 * may sleep).  All calls happen under the socket lock.
 */
#include <linux/sched/signal.h>
#include <net/proto_memory.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#include "protocol.h"
#include "engine.h"
#include "runfill.h"

#define TONIC_TX_BATCH	16
/* The longest a corked short tail waits, as tcp(7) documents for TCP_CORK. */
#define TONIC_CORK_MAX_US	200000
#define TONIC_MAX_RTO_STRIKES	15	/* as tcp_retries2 */
/* Most bytes of one send-buffer skb, as TCP's legacy 64 KB skbs. */
#define TONIC_RUN_MAX		GSO_LEGACY_MAX_SIZE

static inline struct sk_buff **tonic_seg_slot(struct tonic_sock *tsk, u32 seg)
{
	return &tsk->segs[seg & (TONIC_RING - 1)];
}

/* One past the last segment of send-buffer skb @skb. */
static u32 tonic_run_end(const struct sk_buff *skb)
{
	return TONIC_SKB_CB(skb)->seg + TONIC_SKB_CB(skb)->nsegs;
}

/* Bytes of segment @seg, which send-buffer skb @skb holds. */
static u32 tonic_seg_len(const struct tonic_sock *tsk,
			 const struct sk_buff *skb, u32 seg)
{
	u32 c = tonic_run_c(skb), off = (seg - TONIC_SKB_CB(skb)->seg) * c;

	return off < skb->len ? min_t(u32, skb->len - off, c) : 0;
}

/**
 * tonic_sndbuf_bytes() - bytes written and not yet acknowledged
 * @sk: the socket, locked
 *
 * Return: what SIOCOUTQ reports.
 */
int tonic_sndbuf_bytes(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	const struct sk_buff *skb = skb_peek(&sk->sk_write_queue);
	int n = 0;

	if (!skb)
		return 0;
	/* The head run's acknowledged segments are all full ones. */
	n -= (tsk->snd_una - TONIC_SKB_CB(skb)->seg) * tonic_run_c(skb);
	skb_queue_walk(&sk->sk_write_queue, skb)
		n += skb->len;
	return n;
}

/**
 * tonic_all_acked() - every byte written was acknowledged
 * @sk: the socket
 *
 * Return: true if the send buffer is empty.
 */
bool tonic_all_acked(const struct sock *sk)
{
	return skb_queue_empty(&sk->sk_write_queue);
}

/* The caller reclaims the forward allocation once, after a run of frees. */
static void tonic_free_seg(struct sock *sk, struct sk_buff *skb)
{
	sk_wmem_queued_add(sk, -skb->truesize);
	if (sk_has_account(sk))
		sk_forward_alloc_add(sk, skb->truesize);
	__kfree_skb(skb);
}

/*
 * Send memory for @size bytes; while the write has @ahead more to come,
 * for up to a super-packet's worth at once, so that the protocol's
 * memory counters are raised once per super-packet, not per segment.
 */
static bool tonic_wmem_schedule(struct sock *sk, int size, size_t ahead)
{
	if (size <= sk->sk_forward_alloc)
		return true;
	ahead = min_t(size_t, ahead, GSO_LEGACY_MAX_SIZE);
	if (ahead > (size_t)size && !sk_under_memory_pressure(sk) &&
	    sk_wmem_schedule(sk, ahead))
		return true;
	return sk_wmem_schedule(sk, size);
}

/**
 * tonic_sndbuf_purge() - free the whole send buffer
 * @sk: the socket, locked
 */
void tonic_sndbuf_purge(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&sk->sk_write_queue)) != NULL)
		tonic_free_seg(sk, skb);
	sk_mem_reclaim(sk);
	memset(tsk->segs, 0, sizeof(tsk->segs));
	tsk->ann_skb = NULL;
	tsk->snd_ann = tsk->snd_end;
	tsk->snd_una = tsk->snd_end;
	tsk->flush_at = 0;
}

/**
 * tonic_flow_start() - create the engine flow of an established connection
 * @sk: the socket
 *
 * Return: 0 or -ENOMEM.
 */
int tonic_flow_start(struct sock *sk)
{
	struct tonic_net *tn = tonic_sk_net(sk);
	struct tonic_engine_cfg cfg = { .flows_hint = 1 };
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_flow_params p = {};
	int err;

	if (tsk->eng)
		return 0;
	tsk->eng = tonic_engine_create(&cfg);
	if (!tsk->eng)
		return -ENOMEM;
	tsk->clamps_seen = 0;
	p.flow_id = TONIC_FLOW_ID;
	p.seg_size = tsk->snd_seg_size;
	p.wnd_max = tsk->window;
	p.init_seq = tsk->snd_una;
	p.rto_min_ns = (u64)READ_ONCE(tn->rto_min_ms) * NSEC_PER_MSEC;
	p.rto_max_ns = (u64)READ_ONCE(tn->rto_max_ms) * NSEC_PER_MSEC;
	/* RFC 6298 §2.2 with the handshake's RTT: SRTT + 4 x RTT / 2 */
	if (tsk->srtt_us)
		p.rto_init_ns = 3ULL * tsk->srtt_us * NSEC_PER_USEC;
	p.rto_low_ns = (u64)READ_ONCE(tn->rto_low_us) * NSEC_PER_USEC;
	p.rto_low_segs = READ_ONCE(tn->rto_low_segs);
	if (!tsk->proto_ops)	/* not set by a handshake: cannot happen */
		tonic_proto_resolve(sock_net(sk), tsk->proto_name,
				    &tsk->proto_ops, tsk->proto_used);
	p.ops = tsk->proto_ops;
	/* A grant-scheme protocol (NDP) starts with a first window of
	 * credit, K x C bytes; the receiver's grants refill it.
	 */
	if (p.ops->scheme == TONIC_CREDIT_GRANT)
		p.init_tokens = (u32)tsk->window * tsk->snd_seg_size;
	err = tonic_engine_flow_add(tsk->eng, &p, tonic_now());
	if (err) {
		tonic_engine_destroy(tsk->eng);
		tsk->eng = NULL;
		return err;
	}
	return 0;
}

/**
 * tonic_flow_stop() - destroy the engine flow
 * @sk: the socket
 */
void tonic_flow_stop(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tonic_engine_destroy(tsk->eng);
	tsk->eng = NULL;
}

/* The limit announcements may not pass: engine window and peer window. */
static u32 tonic_announce_limit(const struct tonic_sock *tsk)
{
	u32 limit = tsk->snd_una + tsk->window;

	if (tonic_seg_before(tsk->peer_edge, limit))
		limit = tsk->peer_edge;
	return limit;
}

/**
 * tonic_flush_pending() - a partial tail waits for its flush deadline
 * @sk: the socket, locked
 *
 * Return: true if tonic_sock.flush_at is a deadline the timer must honour.
 */
bool tonic_flush_pending(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	return tsk->flush_at && tsk->ann_skb && !tsk->subseg_wait &&
	       tonic_seg_before(tsk->snd_ann, tonic_announce_limit(tsk));
}

/**
 * tonic_probe_needed() - the peer's window stops us and nothing is in flight
 * @sk: the socket, locked
 *
 * Return: true if a window probe must be scheduled.
 */
bool tonic_probe_needed(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	return tsk->ann_skb && !tsk->subseg_wait &&
	       tsk->snd_una == tsk->snd_ann &&
	       !tonic_seg_before(tsk->snd_ann, tsk->peer_edge);
}

/*
 * May the short tail go now?  Nagle's rule (RFC 896, as TCP's
 * tcp_nagle_test()): at once when nothing is in flight, else after the
 * flush delay T, during which more data may fill the segment.
 * TCP_NODELAY or T = 0 send at once; TCP_CORK and MSG_MORE hold the tail
 * for more data (bounded by TONIC_CORK_MAX_US, so nothing waits forever);
 * shutdown() and close() send it at once.
 */
static bool tonic_tail_due(const struct tonic_sock *tsk, u64 now)
{
	if (tsk->fin_queued)
		return true;
	if (tsk->writing)
		return false;
	if (tsk->flush_at && now >= tsk->flush_at)
		return true;
	if (tsk->cork || tsk->more)
		return false;
	return tsk->nodelay || !tsk->flush_delay_us ||
	       tsk->snd_una == tsk->snd_ann;
}

/* Segment @seg of run @skb goes to the engine: its ring entries. */
static void tonic_ann_seg(struct tonic_sock *tsk, struct sk_buff *skb, u32 seg)
{
	u32 slot = seg & (TONIC_RING - 1);

	tsk->segs[slot] = skb;
	tsk->sent_at[slot] = 0;
	/* Only ever changed under the socket lock. */
	__clear_bit(slot, tsk->rtx_seen);
}

static void tonic_announce(struct sock *sk, u64 now)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct sk_buff *skb = tsk->ann_skb;
	u32 limit, tail = tsk->snd_ann;
	u32 last_len = 0;
	bool force;

	if (tsk->subseg_wait || !skb)
		goto arm;

	force = tonic_tail_due(tsk, now);
	limit = tonic_announce_limit(tsk);
	while (skb && tonic_seg_before(tail, limit)) {
		/* A run's segments are full up to @full; only the queue's
		 * last segment may be short, so it is @full if any.
		 */
		u32 full = TONIC_SKB_CB(skb)->seg + skb->len / tonic_run_c(skb);

		while (tonic_seg_before(tail, full) &&
		       tonic_seg_before(tail, limit))
			tonic_ann_seg(tsk, skb, tail++);
		if (tail == tonic_run_end(skb)) {
			skb = skb_queue_is_last(&sk->sk_write_queue, skb) ?
			      NULL : skb->next;
			continue;
		}
		/* At the limit, or at the short last segment. */
		if (tail != full || !tonic_seg_before(tail, limit) || !force)
			break;
		last_len = tonic_seg_len(tsk, skb, tail);
		tonic_ann_seg(tsk, skb, tail++);
		if (tail == tonic_run_end(skb))
			skb = skb_queue_is_last(&sk->sk_write_queue, skb) ?
			      NULL : skb->next;
		if (last_len)
			break;
	}
	if (tail == tsk->snd_ann)
		goto arm;
	if (tonic_engine_announce(tsk->eng, TONIC_FLOW_ID, tail, last_len)) {
		net_warn_ratelimited("tonic: engine refused announce %u..%u\n",
				     tsk->snd_ann, tail);
		goto arm;
	}
	tsk->snd_ann = tail;
	tsk->ann_skb = skb;
	if (last_len) {
		tsk->subseg_wait = true;
		tsk->flush_at = 0;
		tsk->stats.subsegments++;
		TONIC_SK_INC_STATS(sk, TONIC_MIB_SUBSEGS);
	}
arm:
	/* A short tail that has to wait: T, or the cork limit. */
	skb = tsk->ann_skb;
	if (skb && tonic_seg_len(tsk, skb, tsk->snd_ann) < tonic_run_c(skb) &&
	    !tsk->fin_queued && !tsk->writing) {
		if (!tsk->flush_at)
			tsk->flush_at = now + (u64)(tsk->cork || tsk->more ?
						    TONIC_CORK_MAX_US :
						    tsk->flush_delay_us) *
					      NSEC_PER_USEC;
	} else {
		tsk->flush_at = 0;
	}
}

static void tonic_advance_head(struct sock *sk, u32 head)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	bool freed = false;

	while (tonic_seg_before(tsk->snd_una, head) &&
	       tsk->snd_una != tsk->snd_ann) {
		struct sk_buff *skb = *tonic_seg_slot(tsk, tsk->snd_una);
		u32 seg = tsk->snd_una, end;

		if (WARN_ON_ONCE(!skb)) {
			tsk->snd_una++;
			continue;
		}
		/* The run's segments up to head: all full but its last. */
		end = tonic_run_end(skb);
		if (tonic_seg_before(head, end))
			end = head;
		if (tonic_seg_before(tsk->snd_ann, end))
			end = tsk->snd_ann;
		tsk->stats.bytes_acked += end == tonic_run_end(skb) ?
			skb->len - (seg - TONIC_SKB_CB(skb)->seg) * tonic_run_c(skb) :
			(end - seg) * tonic_run_c(skb);
		for (; seg != end; seg++)
			*tonic_seg_slot(tsk, seg) = NULL;
		tsk->snd_una = end;
		/* A run's skb goes with its last segment. */
		if (end != tonic_run_end(skb))
			continue;
		__skb_unlink(skb, &sk->sk_write_queue);
		tonic_free_seg(sk, skb);
		freed = true;
	}
	if (freed) {
		tsk->rto_strikes = 0;
		sk_mem_reclaim(sk);
		/* As tcp_check_space(): only a writer that ran out waits. */
		if (sk->sk_socket &&
		    test_bit(SOCK_NOSPACE, &sk->sk_socket->flags))
			sk->sk_write_space(sk);
	}
}

static void tonic_notify(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_notify_desc nd[4];
	unsigned int n, i;

	do {
		n = tonic_engine_poll_notify(tsk->eng, nd, ARRAY_SIZE(nd));
		for (i = 0; i < n; i++) {
			if (nd[i].flow_id != TONIC_FLOW_ID)
				continue;
			if (nd[i].flags & TONIC_NOTIFY_HEAD)
				tonic_advance_head(sk, nd[i].head);
			if (nd[i].flags & TONIC_NOTIFY_SUBSEG)
				tsk->subseg_wait = false;
		}
	} while (n == ARRAY_SIZE(nd));
}

static void tonic_tx(struct sock *sk, u64 now)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_seg_desc d[TONIC_TX_BATCH];
	u8 fl[TONIC_TX_BATCH];
	bool nospace = sk->sk_socket &&
		       test_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	struct tonic_gso gso;
	unsigned int n, i, j;

	n = tonic_engine_tx(tsk->eng, now, d, ARRAY_SIZE(d));
	/* Most pushes that an ACK makes find nothing to send. */
	if (!n)
		return;
	tonic_gso_begin(sk, &gso);
	for (;;) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_ENGINE_BATCHES);
		for (i = 0; i < n; i++) {
			u32 slot = d[i].seg & (TONIC_RING - 1);

			fl[i] = 0;
			if (d[i].rtx)
				__set_bit(slot, tsk->rtx_seen);
			else if (!tsk->sent_at[slot])
				tsk->sent_at[slot] = now;
			/* The receiver may hold its ACK: ask for one
			 * for the last segment of a finished write, so
			 * the end of a write never waits for the
			 * delayed-ACK timer (TCP's PSH plays that part),
			 * and where the program's ACK ratio asks.  With
			 * a ratio, also for the last one sent while the
			 * writer waits for space only an ACK frees.
			 */
			if ((d[i].flags & TONIC_SEG_ACKREQ) ||
			    (d[i].seg + 1 == tsk->snd_ann && !tsk->ann_skb &&
			     !tsk->writing) ||
			    ((d[i].flags & TONIC_SEG_ACKFREQ) &&
			     d[i].seg + 1 == tsk->snd_ann && nospace))
				fl[i] |= TONIC_F_ACKREQ;
			if (d[i].flags & TONIC_SEG_ACKFREQ)
				fl[i] |= TONIC_F_ACKFREQ;
		}
		/* Consecutive segments of one kind go out together. */
		for (i = 0; i < n; ) {
			j = i + 1;
			while (j < n && d[j].seg == d[j - 1].seg + 1 &&
			       d[j].rtx == d[i].rtx)
				j++;
			i += tonic_xmit_run(sk, d[i].seg, j - i, d[i].rtx,
					    &fl[i], &gso);
		}
		if (n < ARRAY_SIZE(d))
			break;
		n = tonic_engine_tx(tsk->eng, now, d, ARRAY_SIZE(d));
		if (!n)
			break;
	}
	tonic_gso_end(sk, &gso);
}

static bool tonic_can_send_data(const struct sock *sk)
{
	return (1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT |
				      TCPF_FIN_WAIT1 | TCPF_LAST_ACK);
}

static void tonic_maybe_send_fin(struct sock *sk, u64 now)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_net *tn = tonic_sk_net(sk);

	if (!tsk->fin_queued || tsk->fin_sent || !tonic_all_acked(sk))
		return;
	tsk->fin_seg = tsk->snd_end;
	tsk->fin_sent = true;
	tsk->retries = 0;
	tsk->rto_ms = READ_ONCE(tn->rto_min_ms);
	tsk->ctl_at = now + (u64)tsk->rto_ms * NSEC_PER_MSEC;
	tonic_send_ctl(sk, TONIC_PKT_FIN, tsk->fin_seg, 0, 0, 0);
}

/**
 * tonic_push() - announce what may be announced and transmit what the
 * engine selects
 * @sk: the socket, locked
 */
void tonic_push(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u64 now = tonic_now();

	if (!tonic_can_send_data(sk))
		return;
	if (tsk->eng) {
		bool wait;
		u32 una;

		tonic_announce(sk, now);
		tonic_tx(sk, now);
		una = tsk->snd_una;
		wait = tsk->subseg_wait;
		tonic_notify(sk);
		/*
		 * The head moved or a sub-segment was delivered: more may be
		 * announced.  Only an engine hook (an ACK, a timer) brings
		 * such news, and its caller takes it in at once, so this
		 * seldom finds any and the push is not repeated for nothing.
		 */
		if (!tsk->subseg_wait && tsk->ann_skb &&
		    (wait || tsk->snd_una != una)) {
			tonic_announce(sk, now);
			tonic_tx(sk, now);
		}
		tsk->engine_at = tonic_engine_next_timer(tsk->eng);
		if (tsk->engine_at == U64_MAX)
			tsk->engine_at = 0;
	}
	tonic_maybe_send_fin(sk, now);
	if (!tsk->fin_sent && tonic_probe_needed(sk) && !tsk->ctl_at) {
		tsk->retries = 0;
		tsk->rto_ms = READ_ONCE(tonic_sk_net(sk)->rto_min_ms);
		tsk->ctl_at = now + (u64)tsk->rto_ms * NSEC_PER_MSEC;
	}
	tonic_timer_update(sk);
}

/* Count the program outputs the engine had to clamp since last time. */
static void tonic_count_clamps(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_engine_stats est;

	tonic_engine_stats(tsk->eng, &est);
	if (est.violations > tsk->clamps_seen) {
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_PROG_CLAMPED,
				est.violations - tsk->clamps_seen);
		tsk->clamps_seen = est.violations;
	}
}

/* What tonic_ack_rcv() does with a packet that may change something. */
static void tonic_ack_news(struct sock *sk, u32 ack, u32 sack, u8 flags,
			   u32 grant, u32 wnd)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_ctrl_desc ev[TONIC_ACK_EVENTS];
	u32 slot = sack & (TONIC_RING - 1);
	struct tonic_ack_pkt p = {
		.sack = sack, .flags = flags, .grant = grant,
	};
	struct tonic_acc_view v;
	struct tonic_acc_ack a;
	u64 now = tonic_now();
	unsigned int n, i;

	/* The ack clamped to what was announced, the window to K
	 * (engine/accept.c).
	 */
	tonic_acc_view_of(sk, &v);
	tonic_acc_ack(&v, ack, wnd, &a);
	if (a.update) {
		tsk->peer_edge = a.edge;
		tsk->peer_wnd = a.wnd;
		if (tsk->ctl_at && !tsk->fin_sent && !tonic_probe_needed(sk))
			tsk->ctl_at = 0;
	}
	if (a.old)
		TONIC_SK_INC_STATS(sk, TONIC_MIB_ACKS_LATE);
	if (!tsk->eng)
		goto push;

	/* Karn: no RTT sample from a segment sent more than once. */
	if (tsk->sent_at[slot] && !test_bit(slot, tsk->rtx_seen))
		p.rtt_ns = now - tsk->sent_at[slot];
	n = tonic_acc_ack_events(&v, &a, &p, TONIC_FLOW_ID, ev);
	for (i = 0; i < n; i++) {
		switch (ev[i].type) {
		case TONIC_CTRL_NACK:
			TONIC_SK_INC_STATS(sk, TONIC_MIB_NACKS_IN);
			break;
		case TONIC_CTRL_CNP:
			TONIC_SK_INC_STATS(sk, TONIC_MIB_CNPS_IN);
			break;
		case TONIC_CTRL_GRANT:
			TONIC_SK_INC_STATS(sk, TONIC_MIB_GRANTS_IN);
			break;
		}
		if (ev[i].flags & TONIC_CF_RTT) {
			u32 us = div_u64(ev[i].rtt_ns, NSEC_PER_USEC);

			tsk->srtt_us = tsk->srtt_us ?
				(tsk->srtt_us * 7 + us) / 8 : us;
		}
	}
	if (n) {
		tonic_engine_ctrl(tsk->eng, ev, n, now);
		tonic_count_clamps(sk);
	}
	tonic_notify(sk);
push:
	/*
	 * Not deferred to release_cb for the ACKs of a backlog, though one
	 * push would let their segments go as one super-packet: release_cb
	 * runs with BHs off and the socket spinlock held, and with it rack
	 * resent 6 % of a clean-path bulk transfer, all spuriously: most
	 * likely the datagrams waited in this CPU's backlog while an ACK
	 * on the other CPU sent later ones (issue 14, stage 2).
	 */
	tonic_push(sk);
}

/**
 * tonic_ack_rcv() - feed an incoming ACK to the engine
 * @sk: the socket, locked
 * @ack: cumulative ack, relative to our numbering
 * @sack: selectively acked segment, relative
 * @flags: TONIC_F_* of the packet
 * @grant: grant tokens
 * @wnd: the peer's receive window
 */
void tonic_ack_rcv(struct sock *sk, u32 ack, u32 sack, u8 flags, u32 grant,
		   u32 wnd)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	/* The peer is alive: window probes start counting afresh. */
	if (!tsk->fin_sent)
		tsk->retries = 0;
	/* TCP's header prediction (engine/accept.h), without the view. */
	if (tonic_acc_ack_idle(tsk->snd_una, tsk->peer_wnd, tsk->peer_edge,
			       tsk->window, ack, wnd, flags))
		return;
	tonic_ack_news(sk, ack, sack, flags, grant, wnd);
}

/*
 * How long TCP keeps resending to a silent peer before ETIMEDOUT
 * (tcp_model_timeout()): @boundary timeouts from @rto_min_ms, doubling up
 * to TCP_RTO_MAX.  It does not depend on rto_max_ms, so a lower cap
 * probes a path more often without giving up on it sooner.
 */
static u64 tonic_dead_after_ns(u32 rto_min_ms, unsigned int boundary)
{
	u64 rto = (u64)rto_min_ms * NSEC_PER_MSEC, sum = 0;
	u64 cap = (u64)jiffies_to_msecs(TCP_RTO_MAX) * NSEC_PER_MSEC;

	while (boundary--) {
		sum += min(rto, cap);
		rto = min(rto * 2, cap);
	}
	return sum;
}

/*
 * No progress through this many timeouts, and for as long as TCP would
 * have waited (or TCP_USER_TIMEOUT, if set): the peer is gone.  An orphan gives up after fin_retries
 * timeouts, like TCP's tcp_orphan_retries.
 */
static bool tonic_peer_dead(const struct sock *sk, u64 now)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	const struct tonic_net *tn = tonic_sk_net(sk);
	u32 user_ms = READ_ONCE(inet_csk(sk)->icsk_user_timeout);

	/* TCP_USER_TIMEOUT: counted from the first timeout without progress */
	if (user_ms && tsk->rto_strikes &&
	    now - tsk->stall_at >= (u64)user_ms * NSEC_PER_MSEC)
		return true;
	if (sock_flag(sk, SOCK_DEAD))
		return tsk->rto_strikes > READ_ONCE(tn->fin_retries);
	return tsk->rto_strikes > TONIC_MAX_RTO_STRIKES &&
	       now - tsk->stall_at >=
	       tonic_dead_after_ns(READ_ONCE(tn->rto_min_ms),
				   TONIC_MAX_RTO_STRIKES);
}

/**
 * tonic_flow_timer() - run the engine's timers and periodic work
 * @sk: the socket, locked
 * @now: current time, ns
 */
void tonic_flow_timer(struct sock *sk, u64 now)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_flow_stats st;
	u64 before = 0, early = 0;

	if (!tsk->eng)
		return;
	if (!tonic_engine_flow_stats(tsk->eng, TONIC_FLOW_ID, &st)) {
		before = st.timeouts;
		early = st.probes;
	}
	tonic_engine_timers(tsk->eng, now);
	tonic_count_clamps(sk);
	if (tonic_engine_flow_stats(tsk->eng, TONIC_FLOW_ID, &st))
		goto out;
	if (st.probes > early)
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_EARLY_TIMERS, st.probes - early);
	if (st.timeouts > before) {
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_TIMEOUTS,
				st.timeouts - before);
		tonic_nl_event_flow(sk, TONIC_EVENT_TIMEOUT, 0);
		if (!tsk->rto_strikes)
			tsk->stall_at = now;
		tsk->rto_strikes += min_t(u64, st.timeouts - before,
					  255 - tsk->rto_strikes);
	}
out:
	tonic_notify(sk);
	if (tonic_peer_dead(sk, now)) {
		tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
		tonic_reset(sk, ETIMEDOUT);
	}
}

/**
 * tonic_flow_info() - fill the engine part of TONIC_INFO
 * @sk: the socket, locked
 * @info: output
 */
void tonic_flow_info(struct sock *sk, struct tonic_info *info)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_flow_stats st;

	if (!tsk->eng ||
	    tonic_engine_flow_stats(tsk->eng, TONIC_FLOW_ID, &st))
		return;
	info->cwnd = st.wnd;
	info->rate = st.rate_bps / 8;
	info->outstanding = st.in_flight;
	info->retransmits = st.rtx_sent;
	info->timeouts = st.timeouts;
}

/*
 * Copy @len bytes of @msg into @pfrag's page after its offset, for the
 * segments to come to take without copying: one user copy (and one
 * hardened-usercopy check) per page fragment, as TCP's per 32 KB skb
 * fragment, rather than one per segment.
 */
static bool tonic_copy_ahead(struct sock *sk, struct msghdr *msg,
			     struct page_frag *pfrag, size_t len)
{
	void *to = page_address(pfrag->page) + pfrag->offset;

	if (sk->sk_route_caps & NETIF_F_NOCACHE_COPY)
		return copy_from_iter_full_nocache(to, len, &msg->msg_iter);
	return copy_from_iter_full(to, len, &msg->msg_iter);
}

/* Give back the bytes copied ahead that no segment took. */
static void tonic_unstage(struct msghdr *msg, struct page *page,
			  size_t *staged)
{
	if (!*staged)
		return;
	iov_iter_revert(&msg->msg_iter, *staged);
	put_page(page);
	*staged = 0;
}

/*
 * Bytes the queue's last segment, in @skb (the queue's tail), can still
 * take: none once it is full or announced.
 */
static u32 tonic_tail_room(const struct tonic_sock *tsk,
			   const struct sk_buff *skb)
{
	u32 last = tonic_run_end(skb) - 1;
	u32 len = tonic_seg_len(tsk, skb, last);

	if (len >= tonic_run_c(skb) || tonic_seg_before(last, tsk->snd_ann))
		return 0;
	return tonic_run_c(skb) - len;
}

/*
 * May @skb, the queue's tail, its last segment full, take one more
 * segment: one of its C (not a run cut before a path MTU drop), within
 * TONIC_RUN_MAX, and with fragments left for C bytes however the pages
 * fall.
 */
static bool tonic_run_open(const struct tonic_sock *tsk,
			   const struct sk_buff *skb)
{
	u32 c = tsk->snd_seg_size;

	return tonic_run_c(skb) == c &&
	       tonic_seg_len(tsk, skb, tonic_run_end(skb) - 1) == c &&
	       skb->len + c <= TONIC_RUN_MAX &&
	       TONIC_SKB_CB(skb)->nsegs < U16_MAX &&
	       skb_shinfo(skb)->nr_frags + DIV_ROUND_UP(c, PAGE_SIZE) + 1 <=
	       MAX_SKB_FRAGS;
}

/*
 * Bytes of whole segments after the one just filled that @skb, the
 * queue's tail, may take at once from @avail more bytes at hand: at
 * most @segs segments, and each one only if it could have been started
 * alone (tonic_run_open() and sk_stream_memory_free() at its start),
 * counting @fill bytes still to be queued before the first and the
 * fragment this copy may add (@merge: none).
 */
static u32 tonic_run_more(struct sock *sk, const struct sk_buff *skb,
			  u32 fill, size_t avail, u32 segs, bool merge)
{
	struct tonic_run_fill f = {
		.c = tonic_run_c(skb),
		.queued = READ_ONCE(sk->sk_wmem_queued) + fill,
		.sndbuf = READ_ONCE(sk->sk_sndbuf),
		.len = skb->len + fill,
		.run_max = TONIC_RUN_MAX,
		.nsegs = TONIC_SKB_CB(skb)->nsegs,
		.segs = segs,
		.avail = min_t(size_t, avail, U32_MAX),
	};

	/* A copy step adds one fragment at most. */
	if (f.c != tonic_sk(sk)->snd_seg_size ||
	    skb_shinfo(skb)->nr_frags + !merge + DIV_ROUND_UP(f.c, PAGE_SIZE) +
	    1 > MAX_SKB_FRAGS)
		return 0;
	return tonic_run_fill_bytes(&f);
}

/*
 * Give back the queue's last segment if it was started for bytes that
 * could then not be had (no page, no memory, a fault): no push may
 * announce an empty segment.
 */
static void tonic_unstart_seg(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct sk_buff *skb = skb_peek_tail(&sk->sk_write_queue);

	if (!skb || tsk->snd_end == tsk->snd_ann ||
	    tonic_seg_len(tsk, skb, tsk->snd_end - 1))
		return;
	tsk->snd_end--;
	if (tsk->snd_end == tsk->snd_ann)
		tsk->ann_skb = NULL;
	if (--TONIC_SKB_CB(skb)->nsegs)
		return;
	__skb_unlink(skb, &sk->sk_write_queue);
	tonic_free_seg(sk, skb);
}

/**
 * tonic_sndbuf_append() - copy user data to the tail of the send buffer
 * @sk: the socket, locked by the user
 * @msg: the data
 * @size: bytes wanted
 * @timeo: in/out send timeout for sk_stream_wait_memory()
 *
 * Return: bytes copied, or a negative errno if nothing was copied.
 */
int tonic_sndbuf_append(struct sock *sk, struct msghdr *msg, size_t size,
			long *timeo)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 batch = 1, full = 0;
	size_t copied = 0;
	/* Bytes of the write copied ahead to @spage at @soff. */
	size_t staged = 0;
	struct page *spage = NULL;
	u32 soff = 0;
	int err = 0;

	if (!tsk->eng) {
		err = tonic_flow_start(sk);
		if (err)
			return err;
	}
	sk_clear_bit(SOCKWQ_ASYNC_NOSPACE, sk);
	tsk->writing = true;
	/* On the UDP wire, full segments go to the engine a super-packet's
	 * worth at a time (as TCP fills a 64 KB skb before pushing it).
	 */
	if (tsk->udp && READ_ONCE(tonic_sk_net(sk)->gso_segs) > 1)
		batch = clamp_t(u32, 0xffff / (TONIC_HDR_LEN + tsk->snd_seg_size), 1,
				READ_ONCE(tonic_sk_net(sk)->gso_segs));

	while (copied < size) {
		struct sk_buff *skb = skb_peek_tail(&sk->sk_write_queue);
		u32 room = skb ? tonic_tail_room(tsk, skb) : 0;
		struct page_frag *pfrag;
		u32 more, done;
		bool merge;
		size_t copy;
		int i;

		if (sk->sk_err || (sk->sk_shutdown & SEND_SHUTDOWN)) {
			err = -EPIPE;
			break;
		}
		if (!room) {
			if (!sk_stream_memory_free(sk))
				goto wait;
			if (skb && tonic_run_open(tsk, skb)) {
				TONIC_SKB_CB(skb)->nsegs++;
			} else {
				/* Payload only: transmissions reference
				 * its pages (tonic_xmit_seg()).
				 */
				skb = alloc_skb(0, sk->sk_allocation);
				if (!skb)
					goto wait;
				if (!tonic_wmem_schedule(sk, skb->truesize,
							 skb->truesize + size -
							 copied)) {
					__kfree_skb(skb);
					goto wait;
				}
				TONIC_SKB_CB(skb)->seg = tsk->snd_end;
				TONIC_SKB_CB(skb)->nsegs = 1;
				TONIC_SKB_CB(skb)->seg_size = tsk->snd_seg_size;
				sk_wmem_queued_add(sk, skb->truesize);
				sk_mem_charge(sk, skb->truesize);
				__skb_queue_tail(&sk->sk_write_queue, skb);
			}
			tsk->snd_end++;
			if (!tsk->ann_skb)
				tsk->ann_skb = skb;
			room = tonic_run_c(skb);
		}

		copy = min_t(size_t, size - copied, room);
		if (!staged) {
			pfrag = sk_page_frag(sk);
			if (!sk_page_frag_refill(sk, pfrag))
				goto wait;
			staged = min_t(size_t, size - copied,
				       pfrag->size - pfrag->offset);
			if (!tonic_copy_ahead(sk, msg, pfrag, staged)) {
				staged = 0;
				err = -EFAULT;
				break;
			}
			/* Taken from the fragment at once (bytes left over
			 * when the write stops early are just not used), the
			 * page held until they are all in segments.
			 */
			spage = pfrag->page;
			soff = pfrag->offset;
			pfrag->offset += staged;
			get_page(spage);
		}
		i = skb_shinfo(skb)->nr_frags;
		merge = skb_can_coalesce(skb, i, spage, soff);
		if (!merge && i >= MAX_SKB_FRAGS) {
			/* Cannot happen with C <= 65000 and order-0 pages. */
			err = -EMSGSIZE;
			break;
		}
		copy = min_t(size_t, copy, staged);
		/*
		 * The segment filled, the staged bytes fill more at once:
		 * one copy step per page fragment, not per segment, with
		 * the same segments, memory checks and batch pushes.
		 */
		more = 0;
		if (copy == room && full + 1 < batch)
			more = tonic_run_more(sk, skb, room,
					      min_t(size_t, size - copied,
						    staged) - room,
					      batch - full - 1, merge);
		if (!tonic_wmem_schedule(sk, copy + more, size - copied)) {
			if (!more || !tonic_wmem_schedule(sk, copy,
							  size - copied))
				goto wait;
			more = 0;
		}
		done = copy == room;
		if (more) {
			u32 n = DIV_ROUND_UP(more, tonic_run_c(skb));

			TONIC_SKB_CB(skb)->nsegs += n;
			tsk->snd_end += n;
			if (!tsk->ann_skb)
				tsk->ann_skb = skb;
			done += more / tonic_run_c(skb);
			copy += more;
		}
		if (copied + copy == size)
			tsk->writing = false;
		skb_len_add(skb, copy);
		sk_wmem_queued_add(sk, copy);
		sk_mem_charge(sk, copy);
		if (merge) {
			skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], copy);
		} else {
			skb_fill_page_desc(skb, i, spage, soff, copy);
			page_ref_inc(spage);
		}
		soff += copy;
		staged -= copy;
		copied += copy;
		if (!staged)
			put_page(spage);
		full += done;
		if (full >= batch) {
			full = 0;
			tonic_push(sk);
		}
		continue;
wait:
		/* Waiting releases the socket: the staged bytes are copied
		 * again after it.
		 */
		tonic_unstage(msg, spage, &staged);
		tonic_unstart_seg(sk);
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		/* Push everything, a short tail too (TCP_NAGLE_PUSH before
		 * TCP sleeps): its run's memory comes back only once its
		 * last segment is acknowledged.
		 */
		tsk->writing = false;
		tonic_push(sk);
		err = sk_stream_wait_memory(sk, timeo);
		tsk->writing = true;
		if (err)
			break;
	}
	tonic_unstage(msg, spage, &staged);
	tonic_unstart_seg(sk);
	tsk->writing = false;
	tonic_push(sk);
	return copied ? copied : err;
}
