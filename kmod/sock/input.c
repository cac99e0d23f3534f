// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the receive path.
 *
 * Per connection state machine and the receiver's storage: the
 * out-of-order ring bounded by the window K, in-order delivery to
 * sk_receive_queue, receive memory.  Which segment is new, held or a
 * duplicate and which ACK answers it (cumulative + selective ACK, and as
 * negotiated NACK, ECN echo, rate-limited CNP, grants; delayed or not) is
 * the receiver model's decision (engine/receiver.c), shared with the
 * simulators.
 */
#include <linux/filter.h>
#include <linux/random.h>
#include <net/inet_common.h>
#include <net/inet_connection_sock.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/proto_memory.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"

/**
 * tonic_purge_ooo() - drop all out-of-order segments
 * @sk: the socket
 */
void tonic_purge_ooo(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	int i;

	if (!tsk->rcv.held)
		return;
	for (i = 0; i < TONIC_RING; i++) {
		if (tsk->ooo[i]) {
			kfree_skb(tsk->ooo[i]);
			tsk->ooo[i] = NULL;
		}
	}
	tonic_rcv_purge(&tsk->rcv);
}

/**
 * tonic_rcv_space() - the reader freed receive space; maybe send a window update
 * @sk: the socket, locked by the user
 */
void tonic_rcv_space(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 old, wnd;

	if (!((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_FIN_WAIT1 |
				     TCPF_FIN_WAIT2)))
		return;
	old = tsk->rcv_adv_edge - tsk->rcv.rcv_nxt;
	wnd = tonic_recv_window(sk);
	/* Tell the sender when the window grew a lot or reopened. */
	if (wnd > old && (old < wnd / 2 || !old))
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, 0, 0, 0);
}

/* The receiver model's settings for @sk: what the handshake chose, the
 * namespace's delayed-ACK and CNP knobs as they are now.
 */
static void tonic_rcv_cfg(const struct sock *sk, struct tonic_rcv_cfg *cfg)
{
	const struct tonic_net *tn = tonic_sk_net(sk);
	const struct tonic_sock *tsk = tonic_sk(sk);

	cfg->signals = tsk->signals;
	cfg->window = tsk->window;
	cfg->seg_size = tsk->seg_size;
	cfg->policy = TONIC_RCV_SACK;
	cfg->delack_segs = READ_ONCE(tn->delack_segs);
	cfg->delack_max = READ_ONCE(tn->delack_max);
	/* In a GRO batch plain in-order segments wait for its end, which
	 * acknowledges them together (tonic_batch_end()).  delack_segs 1
	 * still acknowledges each.
	 */
	cfg->batch = tsk->rcv_batch;
	cfg->cnp_interval_ns = (u64)READ_ONCE(tn->cnp_interval_us) *
			       NSEC_PER_USEC;
}

/* Receive memory for @skb, or false (the segment is dropped). */
static bool tonic_rmem_ok(struct sock *sk, struct sk_buff *skb)
{
	return atomic_read(&sk->sk_rmem_alloc) <= 2 * READ_ONCE(sk->sk_rcvbuf) &&
	       sk_rmem_schedule(sk, skb, skb->truesize);
}

/*
 * Append @skb's bytes to the tail of the receive queue when it can take
 * them (as tcp_try_coalesce()): the reader then copies and frees one skb
 * for many segments.  Only the memory the tail gains is charged (in
 * *@charged); @skb is freed, which gives back its own charge if it was
 * held out of order.
 */
static bool tonic_try_coalesce(struct sock *sk, struct sk_buff *skb,
			       u32 *charged)
{
	struct sk_buff *tail = skb_peek_tail(&sk->sk_receive_queue);
	bool stolen;
	int delta;

	if (!tail || !skb_try_coalesce(tail, skb, &stolen, &delta))
		return false;
	atomic_add(delta, &sk->sk_rmem_alloc);
	sk_mem_charge(sk, delta);
	kfree_skb_partial(skb, stolen);
	TONIC_SK_INC_STATS(sk, TONIC_MIB_RCV_COALESCE);
	*charged = delta;
	return true;
}

/*
 * Queue @skb, @segs segments in order; @held: it waited out of order,
 * already charged.
 */
static void tonic_queue_rcv(struct sock *sk, struct sk_buff *skb, bool held,
			    u32 segs)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 len = skb->len, charged, per;

	if (!tonic_try_coalesce(sk, skb, &charged)) {
		if (!held)
			skb_set_owner_r(skb, sk);
		/* A lone datagram over veth or loopback is still a clone of
		 * the sender's skb, which no later segment could be appended
		 * to: give it its own head, cheap while its bytes are all in
		 * page fragments (owned, so its truesize stays as charged).
		 * Without memory it stays a clone, only not merged into.
		 */
		if (!skb_headlen(skb))
			skb_unclone(skb, GFP_ATOMIC);
		charged = skb->truesize;
		__skb_queue_tail(&sk->sk_receive_queue, skb);
	}
	/* What a segment costs the receive buffer: the window's unit. */
	per = charged / segs;
	if (!tsk->rcv_truesize)
		tsk->rcv_truesize = per;
	while (segs--)
		tsk->rcv_truesize = (tsk->rcv_truesize * 7 + per) / 8;
	tsk->stats.bytes_received += len;
}

/* In order: queue @skb and the @newly - 1 held segments it unblocked. */
static void tonic_deliver(struct sock *sk, struct sk_buff *skb, u32 newly)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 seg = TONIC_SKB_CB(skb)->seg;

	tonic_queue_rcv(sk, skb, false, 1);
	while (--newly) {
		struct sk_buff **slot = &tsk->ooo[++seg & (TONIC_RING - 1)];

		skb = *slot;
		*slot = NULL;
		if (!WARN_ON_ONCE(!skb))
			tonic_queue_rcv(sk, skb, true, 1);
	}
	if (tsk->rcv_batch)
		tsk->rcv_batch_wake = true;	/* one wake-up, at its end */
	else if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_data_ready(sk);
}

/* Queue, hold or free @skb as the receiver model decided. */
static void tonic_data_keep(struct sock *sk, struct sk_buff *skb,
			    const struct tonic_rcv_seg *in, u32 newly)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	switch (in->verdict) {
	case TONIC_RCV_NEXT:
		tonic_deliver(sk, skb, newly);
		return;
	case TONIC_RCV_HOLD:
		tsk->stats.ooo_segs_in++;
		skb_set_owner_r(skb, sk);
		tsk->ooo[in->seg & (TONIC_RING - 1)] = skb;
		return;
	case TONIC_RCV_DUP:
		tsk->stats.dup_segs_in++;
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_DUP);
		break;
	case TONIC_RCV_BEYOND:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_WINDOW);
		break;
	default:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_MEM);
		break;
	}
	kfree_skb(skb);
}

/* Delayed ACK (RFC 5681 §4.2, as TCP): at most delack_us from now. */
static void tonic_delack_arm(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	if (tsk->delack_at)
		return;
	tsk->delack_at = tonic_now() +
			 (u64)READ_ONCE(tonic_sk_net(sk)->delack_us) * NSEC_PER_USEC;
	tonic_timer_update(sk);
}

/*
 * A data segment @seg (relative) arrived.  The receiver model
 * (engine/receiver.c) says where it goes and which ACK answers it; here
 * the skb is kept or freed and the ACK sent or delayed.
 */
static void tonic_data_rcv(struct sock *sk, struct sk_buff *skb, u32 seg,
			   u32 c)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_rcv_seg in = {
		.seg = seg,
		.len = skb->len - TONIC_HDR_LEN,
		.ce = TONIC_SKB_CB(skb)->ce,
		.ackreq = tonic_hdr(skb)->flags & TONIC_F_ACKREQ,
		.ackfreq = tonic_hdr(skb)->flags & TONIC_F_ACKFREQ,
	};
	struct tonic_rcv_cfg cfg;
	struct tonic_rcv_ack ack;
	unsigned int what;
	u32 newly;

	tsk->stats.segs_in++;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_SEGS_IN);
	tonic_rcv_cfg(sk, &cfg);
	cfg.seg_size = c;

	/* Nothing follows the peer's FIN: anything is a duplicate. */
	in.verdict = tsk->peer_fin ? TONIC_RCV_DUP :
		     tonic_rcv_verdict(&tsk->rcv, &cfg, seg);
	if (in.verdict == TONIC_RCV_NEXT || in.verdict == TONIC_RCV_HOLD) {
		if (!tonic_rmem_ok(sk, skb)) {
			in.verdict = TONIC_RCV_DROP;
		} else {
			skb_dst_drop(skb);
			__skb_pull(skb, TONIC_HDR_LEN);
			TONIC_SKB_CB(skb)->seg = seg;
			TONIC_SKB_CB(skb)->offset = 0;
		}
	}
	what = tonic_rcv_take(&tsk->rcv, &cfg, &in, in.ce ? tonic_now() : 0,
			      &ack, &newly);
	if (in.verdict == TONIC_RCV_NEXT || in.verdict == TONIC_RCV_HOLD)
		tonic_len_keep(&tsk->lens, &tsk->rcv, c, seg, in.len,
			       in.verdict == TONIC_RCV_HOLD);
	tonic_data_keep(sk, skb, &in, newly);

	if (what & TONIC_RCV_SEND_ACK)
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, ack.sack, ack.flags,
			       ack.grant);
	else if ((what & TONIC_RCV_ARM_DELACK) && !tsk->rcv_batch)
		tonic_delack_arm(sk);
}

static void tonic_fin_rcv(struct sock *sk, u32 seg)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_acc_view v;
	int state;

	tonic_acc_view_of(sk, &v);
	switch (tonic_acc_fin(&v, seg)) {
	case TONIC_ACC_OK:
		break;
	case TONIC_ACC_REPLY:
		/* A retransmitted FIN (our ACK was lost): ack it again. */
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, seg, TONIC_F_SACK, 0);
		return;
	default:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		return;
	}
	tsk->rcv.rcv_nxt++;
	tsk->peer_fin = true;
	tonic_purge_ooo(sk);
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	sock_set_flag(sk, SOCK_DONE);
	tonic_send_ctl(sk, TONIC_PKT_ACK, 0, seg, TONIC_F_SACK, 0);

	state = tonic_acc_fin_state(sk->sk_state);
	if (state == TCP_CLOSE) {
		/* No TIME_WAIT: the connection is over. */
		tonic_done(sk);
		return;
	}
	if (state != sk->sk_state)
		tonic_set_state(sk, state);
	if (!sock_flag(sk, SOCK_DEAD)) {
		sk->sk_state_change(sk);
		if (sk->sk_shutdown == SHUTDOWN_MASK ||
		    sk->sk_state == TCP_CLOSE)
			sk_wake_async(sk, SOCK_WAKE_WAITD, POLL_HUP);
		else
			sk_wake_async(sk, SOCK_WAKE_WAITD, POLL_IN);
	}
}

/* Our FIN was acknowledged. Returns true if the socket is gone. */
static bool tonic_fin_acked(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tsk->fin_acked = true;
	tsk->ctl_at = 0;
	switch (tonic_acc_fin_acked_state(sk->sk_state)) {
	case TCP_FIN_WAIT2:
		tonic_set_state(sk, TCP_FIN_WAIT2);
		if (sock_flag(sk, SOCK_DEAD)) {
			tsk->linger2_at = tonic_now() + 60ULL * NSEC_PER_SEC;
			tonic_timer_update(sk);
		} else {
			sk->sk_state_change(sk);
		}
		return false;
	case TCP_CLOSE:
		tonic_done(sk);
		return true;
	}
	return false;
}

/*
 * RFC 5961 §7 as tcp_send_challenge_ack(): an ACK carrying rcv_nxt, so
 * that a peer that really lost its state answers it with an exact RST.
 * At most net.tonic.challenge_ack_limit a second per namespace, the
 * budget of each second drawn at random so that the counter tells an
 * attacker nothing (CVE-2016-5696).
 */
static void tonic_challenge_ack(struct sock *sk)
{
	struct tonic_net *tn = tonic_sk_net(sk);
	u32 limit = READ_ONCE(tn->challenge_ack_limit);
	u32 now, count;

	if (limit != INT_MAX) {
		now = jiffies / HZ;
		if (now != READ_ONCE(tn->challenge_stamp)) {
			u32 half = (limit + 1) >> 1;

			WRITE_ONCE(tn->challenge_stamp, now);
			WRITE_ONCE(tn->challenge_count, limit ?
				   get_random_u32_inclusive(half,
							    limit + half - 1) : 0);
		}
		count = READ_ONCE(tn->challenge_count);
		if (!count)
			return;
		WRITE_ONCE(tn->challenge_count, count - 1);
	}
	TONIC_SK_INC_STATS(sk, TONIC_MIB_CHALLENGE_ACKS);
	tonic_send_ctl(sk, TONIC_PKT_ACK, 0, 0, 0, 0);
}

static void tonic_rcv_synsent(struct sock *sk, struct sk_buff *skb)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_sock *tsk = tonic_sk(sk);

	switch (tonic_acc_synsent(tsk->iss, th->type, ntohl(th->ack))) {
	case TONIC_ACC_OK:
		break;
	case TONIC_ACC_RESET:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_RSTS_IN);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_CONN_FAILED);
		tonic_reset(sk, ECONNREFUSED);
		return;
	default:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		return;
	}
	if (tonic_negotiate_synack(sk, (const struct tonic_synopt *)(th + 1))) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_MALFORMED);
		return;
	}
	tsk->irs = ntohl(th->seq);
	tonic_rcv_init(&tsk->rcv, 0);
	tsk->peer_wnd = min_t(u32, ntohs(th->wnd), tsk->window);
	tsk->peer_edge = tsk->peer_wnd;
	tsk->ctl_at = 0;
	if (!tsk->retries)			/* Karn */
		tonic_handshake_rtt(sk, tsk->syn_at);
	tsk->retries = 0;

	security_inet_conn_established(sk, skb);
	INET_ECN_xmit(sk);
	tonic_connection_established(sk);
	tonic_send_ctl(sk, TONIC_PKT_ACK, 0, 0, 0, 0);
	tonic_timer_update(sk);
}

/*
 * A packet that found the listener may belong to a connection made since
 * (it waited in the listener's backlog while an earlier packet of the
 * same SYN-cookie handshake made the child): hand it over from the
 * backlog (no listener spinlock held), or drop it (the peer resends).
 * Return: true if @skb was consumed.
 */
static bool tonic_rcv_relookup(struct sock *sk, struct sk_buff *skb)
{
	/* The packet's family: IPv4's for IPv4 to a dual-stack listener. */
	const struct tonic_af_ops *af = skb->protocol == htons(ETH_P_IP) ?
					&tonic_ipv4_af_ops : tonic_af(sk);
	bool refcounted;
	struct sock *nsk;

	nsk = af->lookup(skb, tonic_hdr(skb), &refcounted);
	if (!nsk || nsk == sk || nsk->sk_state == TCP_LISTEN ||
	    nsk->sk_state == TCP_TIME_WAIT ||
	    nsk->sk_state == TCP_NEW_SYN_RECV) {
		if (nsk && refcounted)
			sock_gen_put(nsk);
		return false;
	}
	if (sock_owned_by_user(sk)) {
		tonic_sk_receive_skb(nsk, skb, refcounted);
		return true;
	}
	if (refcounted)
		sock_put(nsk);
	kfree_skb(skb);
	return true;
}

/* Return: true if @skb was consumed (by a child). */
static bool tonic_rcv_listen(struct sock *sk, struct sk_buff *skb)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct sock *child;

	if (th->type == TONIC_PKT_SYN) {
		inet_csk(sk)->icsk_af_ops->conn_request(sk, skb);
		return false;
	}
	if (th->type == TONIC_PKT_RST)
		return false;
	if (tonic_rcv_relookup(sk, skb))
		return true;
	child = tonic_cookie_check(sk, skb);
	if (!child)
		return false;		/* a cookie, but no child: drop */
	if (!IS_ERR(child)) {
		tonic_child_process(sk, child, skb);
		return true;
	}
	TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_NOSOCK);
	tonic_af(sk)->send_reset(sock_net(sk), skb);
	return false;
}

/*
 * Answer a packet tonic_acc_conn() refused (RFC 5961): an ACK to a
 * repeated SYN-ACK, a challenge ACK, the reset, or a counted drop.
 */
static void tonic_rcv_refused(struct sock *sk, enum tonic_acc acc)
{
	int err;

	switch (acc) {
	case TONIC_ACC_REPLY:
		/* Our final ACK was lost: the server repeats its SYN-ACK. */
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, 0, 0, 0);
		break;
	case TONIC_ACC_CHALLENGE:
		/* A peer that really restarted or reset answers the
		 * challenge with an exact RST.
		 */
		tonic_challenge_ack(sk);
		break;
	case TONIC_ACC_STALE:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		tonic_challenge_ack(sk);
		break;
	case TONIC_ACC_RESET:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_RSTS_IN);
		err = tonic_acc_rst_err(sk->sk_state);
		if (err)
			tonic_reset(sk, -err);
		else
			tonic_done(sk);
		break;
	case TONIC_ACC_DROP:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		break;
	default:
		break;
	}
}

/*
 * The admission of a packet of a connection: a lone datagram (@n 1) or a
 * GRO batch of @n DATA segments from @seq.  RFC 5961 and the ack's range
 * (engine/accept.c), then what any acceptable packet tells: the peer is
 * alive, the handshake is over, our FIN arrived.  A lone datagram is
 * answered here when refused; a batch is refused unanswered and before
 * our FIN's state changes, so that its datagrams, taken one by one, meet
 * the same rules as lone ones.
 *
 * Inline: per packet, and each caller's @n is a constant.
 *
 * Return: true if the packet goes on to its type's processing; false:
 * drop it (a batch: take it apart).
 */
static __always_inline bool tonic_rcv_admit(struct sock *sk, u8 type,
					    u32 seq, u32 ack, u32 wnd, u32 n)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_acc_view v;
	enum tonic_acc acc;

	tonic_acc_view_of(sk, &v);
	acc = tonic_acc_conn(&v, type, seq, ack);
	if (acc != TONIC_ACC_OK) {
		if (n == 1)
			tonic_rcv_refused(sk, acc);
		return false;
	}
	if (n > 1 && tonic_acc_fin_acked(&v, ack))
		return false;

	tonic_keepalive_rcv(sk);	/* the peer is alive */
	if (sk->sk_state == TCP_SYN_RECV) {
		tsk->peer_wnd = min_t(u32, wnd, tsk->window);
		tsk->peer_edge = ack + tsk->peer_wnd;
		INET_ECN_xmit(sk);
		tonic_connection_established(sk);
	}
	return !(tonic_acc_fin_acked(&v, ack) && tonic_fin_acked(sk));
}

/*
 * The admission of DATA past tonic_rcv_admit(): @n segments from @seq,
 * each @c bytes but the last, @last (a lone datagram: @n 1, @last its
 * length), @c the C their header names (tonic_data_c(), 0: none valid).
 * Their lengths, then the ack and window they carry, then the reader and
 * the state.  A lone datagram is answered and counted here
 * when refused; a batch is refused unanswered (but for the ack it
 * carries, which its first datagram then finds taken).
 *
 * Return: true if the segments go to the receiver model.
 */
static __always_inline bool tonic_data_admit(struct sock *sk, u32 seq,
					     u32 ack, u32 wnd, u32 n, u32 last,
					     u32 c)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	bool bad;

	/* Nothing of a segment of impossible length counts. */
	if (!c)
		bad = true;
	else if (n == 1)
		bad = tonic_len_bad(&tsk->lens, &tsk->rcv, c, seq, last);
	else
		bad = tonic_len_run_bad(&tsk->lens, &tsk->rcv, c, seq, n, last);
	if (bad) {
		if (n == 1)
			TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_MALFORMED);
		return false;
	}
	tonic_ack_rcv(sk, ack, 0, 0, 0, wnd);
	if (sock_flag(sk, SOCK_DEAD) &&
	    !tonic_seq_before(seq, tsk->rcv.rcv_nxt)) {
		if (n > 1)
			return false;
		/* New data for a socket nobody can read any more. */
		tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
		tonic_done(sk);
		return false;
	}
	return tonic_acc_data_state(sk->sk_state);
}

static void tonic_rcv_conn(struct sock *sk, struct sk_buff *skb)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 seq = ntohl(th->seq) - (tsk->irs + 1);
	u32 ack = ntohl(th->ack) - (tsk->iss + 1);
	u32 len = skb->len - TONIC_HDR_LEN;
	u32 wnd = ntohs(th->wnd);
	u32 c;

	if (!tonic_rcv_admit(sk, th->type, seq, ack, wnd, 1))
		goto drop;
	switch (th->type) {
	case TONIC_PKT_ACK:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_ACKS_IN);
		tonic_ack_rcv(sk, ack, ntohl(th->sack) - (tsk->iss + 1),
			      th->flags, ntohl(th->grant), wnd);
		break;
	case TONIC_PKT_DATA:
		c = tonic_data_c(tsk, th);
		if (!tonic_data_admit(sk, seq, ack, wnd, 1, len, c))
			goto drop;
		tonic_data_rcv(sk, skb, seq, c);
		return;
	case TONIC_PKT_FIN:
		tonic_ack_rcv(sk, ack, 0, 0, 0, wnd);
		if (sk->sk_state != TCP_CLOSE)
			tonic_fin_rcv(sk, seq);
		break;
	case TONIC_PKT_PROBE:
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, 0, 0, 0);
		break;
	}
drop:
	kfree_skb(skb);
}

/**
 * tonic_rcv() - protocol-independent receive of one packet (backlog_rcv)
 * @sk: the socket, bh-locked or owned
 * @skb: the packet; data at the Tonic header, checksum verified
 *
 * Return: 0 (the skb is consumed).
 */
int tonic_rcv(struct sock *sk, struct sk_buff *skb)
{
	bool consumed;

	/* For the next packets' early demux (edemux.c). */
	if ((1 << sk->sk_state) & ~(TCPF_LISTEN | TCPF_CLOSE))
		tonic_rx_dst_keep(sk, skb);
	if (TONIC_SKB_CB(skb)->batch)
		return tonic_rcv_batch(sk, skb);
	switch (sk->sk_state) {
	case TCP_LISTEN:
		/* The backlog runs with BHs on; hashing a request or child
		 * and locking a child want them off, as in softirq.
		 */
		local_bh_disable();
		consumed = tonic_rcv_listen(sk, skb);
		local_bh_enable();
		if (consumed)
			return 0;
		break;
	case TCP_SYN_SENT:
		tonic_rcv_synsent(sk, skb);
		break;
	case TCP_CLOSE:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		break;
	default:
		tonic_rcv_conn(sk, skb);
		return 0;
	}
	consume_skb(skb);
	return 0;
}

/*
 * The end of a GRO batch: one ACK for the in-order segments it left
 * unacknowledged if one asked for it (ACKREQ) or there are as many as a
 * lone segment waits for (or the delayed-ACK timer), then one wake-up of
 * the reader.
 */
static void tonic_batch_end(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_rcv_cfg cfg;
	struct tonic_rcv_ack ack;
	unsigned int what = 0;

	tsk->rcv_batch = false;
	if ((1 << sk->sk_state) & TONIC_DATA_STATES) {
		tonic_rcv_cfg(sk, &cfg);
		what = tonic_rcv_batch_end(&tsk->rcv, &cfg, &ack);
	}
	if (what & TONIC_RCV_SEND_ACK)
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, ack.sack, ack.flags, 0);
	else if (what & TONIC_RCV_ARM_DELACK)
		tonic_delack_arm(sk);
	if (tsk->rcv_batch_wake && !sock_flag(sk, SOCK_DEAD))
		sk->sk_data_ready(sk);
	tsk->rcv_batch_wake = false;
}

/*
 * A run of @n full in-order segments from the backlog, the last excepted
 * (tonic_backlog_merge()): take them with the ACKs lone datagrams would
 * have had (tonic_rcv_take_to_ack()), so that merging in the backlog
 * keeps the ACK ratio the receiver promised.  GRO's batches, like TCP's,
 * get one ACK instead.
 *
 * Return: the segments left for the caller to take, 1 to @n.
 */
static u32 tonic_backlog_acks(struct sock *sk, const struct tonic_rcv_cfg *cfg,
			      u32 n, bool ackfreq)
{
	struct tonic_rcv *r = &tonic_sk(sk)->rcv;
	struct tonic_rcv_ack ra;
	u32 step;

	while ((step = tonic_rcv_take_to_ack(r, cfg, n, ackfreq, &ra))) {
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, ra.sack, ra.flags, 0);
		n -= step;
	}
	return n;
}

/*
 * The fast path of a GRO batch (sock/gro.c): segments rcv_nxt to
 * rcv_nxt + n - 1, all in the window, none CE, nothing held out of
 * order.  It passes the admission of a lone datagram once, for its n
 * segments (tonic_rcv_admit(), tonic_data_admit()), the receiver model
 * takes them together, and the skb goes to the receive queue whole, as
 * TCP queues a GRO packet.  Anything else is left to the datagrams one
 * by one (false), whose first then does not take the same ack again.
 *
 * Return: true if @skb was consumed.
 */
static bool tonic_batch_fast(struct sock *sk, struct sk_buff *skb)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 n = skb_shinfo(skb)->gso_segs, size = skb_shinfo(skb)->gso_size;
	u32 seq = ntohl(th->seq) - (tsk->irs + 1);
	u32 ack = ntohl(th->ack) - (tsk->iss + 1);
	u32 last = skb->len - TONIC_HDR_LEN - (n - 1) * size;
	bool ackfreq = th->flags & TONIC_F_ACKFREQ;
	bool ackreq = th->flags & TONIC_F_ACKREQ;
	u32 wnd = ntohs(th->wnd);
	struct tonic_rcv_cfg cfg;
	struct tonic_rcv_ack ra;
	unsigned int what;
	u32 rest;
	bool gro;

	/* A run the receiver model can take at once, and memory for it. */
	if (th->type != TONIC_PKT_DATA || TONIC_SKB_CB(skb)->ce ||
	    tsk->peer_fin || sock_flag(sk, SOCK_DEAD) ||
	    !tonic_acc_data_state(sk->sk_state) || size != tonic_data_c(tsk, th))
		return false;
	tonic_rcv_cfg(sk, &cfg);
	cfg.seg_size = size;
	if (!tonic_rcv_run_ok(&tsk->rcv, &cfg, seq, n, ackfreq) ||
	    !tonic_rmem_ok(sk, skb))
		return false;
	if (!tonic_rcv_admit(sk, TONIC_PKT_DATA, seq, ack, wnd, n) ||
	    !tonic_data_admit(sk, seq, ack, wnd, n, last, size))
		return false;
	/* The ACK may have changed the receiver too; the datagrams see it. */
	if (seq != tsk->rcv.rcv_nxt || tsk->rcv.held)
		return false;

	tsk->stats.segs_in += n;
	TONIC_SK_ADD_STATS(sk, TONIC_MIB_SEGS_IN, n);
	gro = TONIC_SKB_CB(skb)->batch == TONIC_BATCH_GRO;
	if (gro) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_GRO_FAST_BATCHES);
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_GRO_FAST_SEGS, n);
	}
	tonic_len_run_keep(&tsk->lens, size, seq, n, last);
	skb_dst_drop(skb);
	__skb_pull(skb, TONIC_HDR_LEN);
	TONIC_SKB_CB(skb)->seg = seq;
	TONIC_SKB_CB(skb)->offset = 0;
	tonic_queue_rcv(sk, skb, false, n);	/* @skb may be freed */
	tsk->rcv_batch_wake = true;
	/* Queued first: the ACKs then offer the window lone datagrams'
	 * would.  A backlog run keeps the ACKs of lone datagrams (the
	 * whole backlog is taken at once: they are as soon).
	 */
	rest = gro ? n : tonic_backlog_acks(sk, &cfg, n, ackfreq);
	what = tonic_rcv_take_run(&tsk->rcv, &cfg, rest, last, ackreq, ackfreq,
				  &ra);
	if (what & TONIC_RCV_SEND_ACK)
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, ra.sack, ra.flags, 0);
	return true;
}

/**
 * tonic_rcv_batch() - receive a GRO batch of DATA datagrams (backlog_rcv)
 * @sk: the connection, bh-locked or owned
 * @skb: the batch (sock/gro.c), data at the first Tonic header
 *
 * A batch of exactly the next segments goes to the receive queue whole
 * (tonic_batch_fast()).  Otherwise each datagram goes through tonic_rcv()
 * as a lone one would, in order,
 * with every rule that asks for an immediate ACK (out of order, hole
 * filled, duplicate, CE, NACK, grants, short segments) as it is;
 * only the ACK that plain in-order segments would have had every
 * delack_segs segments (or at an ACKREQ: only a sender with an ACK
 * ratio has those in a batch) and the reader's wake-up are left to the
 * batch's end, one each.
 *
 * Return: 0 (the skb is consumed).
 */
int tonic_rcv_batch(struct sock *sk, struct sk_buff *skb)
{
	bool gro = TONIC_SKB_CB(skb)->batch == TONIC_BATCH_GRO;
	bool whole = (1 << sk->sk_state) & TONIC_DATA_STATES;
	struct tonic_sock *tsk = tonic_sk(sk);
	struct sk_buff *next;
	u32 n;

	/* One reservation of receive memory for the whole batch, not one
	 * per datagram (tonic_rmem_ok() still checks each).
	 */
	if (whole && !sk_under_memory_pressure(sk) &&
	    atomic_read(&sk->sk_rmem_alloc) + (int)skb->truesize <=
	    READ_ONCE(sk->sk_rcvbuf))
		sk_rmem_schedule(sk, skb, skb->truesize);
	tsk->rcv_batch = whole;
	n = skb_shinfo(skb)->gso_segs;
	if (whole && tonic_batch_fast(sk, skb))
		goto end;
	/* A listener's path may answer with resets, which want routes. */
	skb = tonic_batch_detach(sock_net(sk), skb, !whole);
	n = 0;
	/* The demux checked the first header; the others are built from
	 * it (tonic_hdr_bad()).
	 */
	skb_list_walk_safe(skb, skb, next) {
		skb_mark_not_on_list(skb);
		n++;
		tonic_rcv(sk, skb);	/* the state may change on the way */
	}
	if (!whole)
		return 0;
end:
	tonic_batch_end(sk);
	if (n && gro) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_GRO_BATCHES);
		TONIC_SK_ADD_STATS(sk, TONIC_MIB_GRO_SEGS, n);
	}
	return 0;
}

/*
 * Does lone datagram @th (@len bytes after its header) continue @tail
 * (@n datagrams of @size bytes from header @th2)?  GRO's rules: the
 * header follows (tonic_hdr_follows()), @tail's last segment is full and
 * @th has no more than @size bytes.
 */
static bool tonic_backlog_follows(const struct tonichdr *th, u32 len,
				  const struct tonichdr *th2, u32 n, u32 size)
{
	return len <= size && n < TONIC_BATCH_MAX_SEGS &&
	       tonic_hdr_follows(th, th2, n);
}

/**
 * tonic_backlog_merge() - append a datagram to the backlog's last one
 * @sk: a connection owned by its user, bh-locked
 * @skb: a lone datagram for it, at its checked Tonic header
 *
 * What tcp_add_backlog() does for TCP: while the reader holds the socket,
 * a DATA datagram that continues the backlog's last one (or the batch it
 * already made) is appended to it, header dropped, and the two are taken
 * as a GRO batch is (tonic_rcv_batch()): admitted once, queued as one
 * skb with one wake-up if it is in order, else cut back into datagrams.
 * Its ACKs stay those of lone datagrams (tonic_backlog_acks()), so a run
 * ends at a datagram flagged ACKREQ.  GRO's rules decide what may join
 * (gro.c); CE marks and GRO's own batches are left alone, and so is a
 * connection holding segments out of order, one that acknowledges each
 * segment or one that grants (their runs would be cut up again).
 *
 * Return: true if @skb was consumed.
 */
bool tonic_backlog_merge(struct sock *sk, struct sk_buff *skb)
{
	struct sk_buff *tail = sk->sk_backlog.tail;
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 size = tonic_data_c(tsk, th), len, n;
	struct tonic_rcv_cfg cfg;
	struct tonichdr *th2;
	bool stolen, ackreq;
	int delta;

	if (!tail || TONIC_SKB_CB(skb)->batch || TONIC_SKB_CB(skb)->ce ||
	    TONIC_SKB_CB(tail)->batch == TONIC_BATCH_GRO ||
	    TONIC_SKB_CB(tail)->ce || skb_cloned(tail) ||
	    !((1 << sk->sk_state) & TONIC_DATA_STATES) ||
	    READ_ONCE(tsk->rcv.held) || (tsk->signals & TONIC_SIG_GRANT))
		return false;
	th2 = tonic_hdr(tail);
	len = skb->len - TONIC_HDR_LEN;
	n = TONIC_SKB_CB(tail)->batch ? skb_shinfo(tail)->gso_segs : 1;
	/* An ACKREQ ends a run: its ACK is sent where a lone one's is. */
	if (!tonic_hdr_batchable(th, skb->len) ||
	    (th2->flags & TONIC_F_ACKREQ) ||
	    tail->len != TONIC_HDR_LEN + n * size ||
	    (n == 1 && !tonic_hdr_batchable(th2, tail->len)) ||
	    !tonic_backlog_follows(th, len, th2, n, size))
		return false;
	/* Runs whose segments are each acknowledged stay datagrams. */
	tonic_rcv_cfg(sk, &cfg);
	if (tonic_rcv_thresh(&cfg, th->flags & TONIC_F_ACKFREQ) < 2)
		return false;
	/* The ACKREQ goes in the first header, as GRO puts it. */
	ackreq = th->flags & TONIC_F_ACKREQ;
	__skb_pull(skb, TONIC_HDR_LEN);
	if (!skb_try_coalesce(tail, skb, &stolen, &delta)) {
		__skb_push(skb, TONIC_HDR_LEN);
		return false;
	}
	if (n == 1) {
		skb_shinfo(tail)->gso_size = size;
		TONIC_SKB_CB(tail)->batch = TONIC_BATCH_BACKLOG;
	}
	skb_shinfo(tail)->gso_segs = n + 1;
	if (ackreq)
		th2->flags |= TONIC_F_ACKREQ;
	sk->sk_backlog.len += delta;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_BACKLOG_COALESCE);
	kfree_skb_partial(skb, stolen);
	return true;
}
