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
	/* In a GRO batch plain in-order segments wait for its end, which
	 * acknowledges them together (tonic_batch_end()).  delack_segs 1
	 * still acknowledges each.
	 */
	if (tsk->rcv_batch && cfg->delack_segs > 1)
		cfg->delack_segs = U8_MAX;
	cfg->cnp_interval_ns = (u64)READ_ONCE(tn->cnp_interval_us) *
			       NSEC_PER_USEC;
}

/* Receive memory for @skb, or false (the segment is dropped). */
static bool tonic_rmem_ok(struct sock *sk, struct sk_buff *skb)
{
	return atomic_read(&sk->sk_rmem_alloc) <= 2 * READ_ONCE(sk->sk_rcvbuf) &&
	       sk_rmem_schedule(sk, skb, skb->truesize);
}

static void tonic_queue_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	__skb_queue_tail(&sk->sk_receive_queue, skb);
	tsk->stats.bytes_received += skb->len;
}

/* In order: queue @skb and the @newly - 1 held segments it unblocked. */
static void tonic_deliver(struct sock *sk, struct sk_buff *skb, u32 newly)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 seg = TONIC_SKB_CB(skb)->seg;

	skb_set_owner_r(skb, sk);
	tonic_queue_rcv(sk, skb);
	while (--newly) {
		struct sk_buff **slot = &tsk->ooo[++seg & (TONIC_RING - 1)];

		skb = *slot;
		*slot = NULL;
		if (!WARN_ON_ONCE(!skb))
			tonic_queue_rcv(sk, skb);
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

/* A rcv_lens entry: the segment's length, tagged with its number. */
static u32 tonic_len_tag(u32 seg, u32 len)
{
	return (seg / TONIC_RING) << 16 | len;
}

/*
 * Is the length of DATA segment @seg impossible?  Every segment is C
 * bytes but a short one, which the sender announces only as its last
 * (a sub-segment, or the tail before FIN) and follows with nothing until
 * it is acknowledged (Documentation/sockets.md, "Send path"): so no
 * segment above a short one can arrive while the short one is missing
 * or held, and a resend has the first copy's length.
 */
static bool tonic_len_bad(const struct tonic_sock *tsk, u32 seg, u32 len)
{
	u32 known = tsk->rcv_lens[seg & (TONIC_RING - 1)];
	u32 nxt = tsk->rcv.rcv_nxt;

	if (len > tsk->seg_size)
		return true;
	if (known >> 16 == tonic_len_tag(seg, 0) >> 16 && known &&
	    (known & 0xffff) != len)
		return true;
	if (tonic_seg_before(seg, nxt))
		return false;
	if (tsk->rcv_short_held && !tonic_seg_before(tsk->rcv_short, nxt) &&
	    tonic_seg_before(tsk->rcv_short, seg))
		return true;
	return len < tsk->seg_size && tsk->rcv.held &&
	       tonic_seg_before(seg + 1, tsk->rcv_top);
}

/* Remember what @seg (kept: in order or held) looked like. */
static void tonic_len_keep(struct tonic_sock *tsk, u32 seg, u32 len, bool held)
{
	tsk->rcv_lens[seg & (TONIC_RING - 1)] = tonic_len_tag(seg, len);
	if (!held)
		return;
	if (tsk->rcv.held == 1 || tonic_seg_before(tsk->rcv_top, seg + 1))
		tsk->rcv_top = seg + 1;
	if (len < tsk->seg_size) {
		tsk->rcv_short = seg;
		tsk->rcv_short_held = true;
	}
}

/*
 * A data segment @seg (relative) arrived.  The receiver model
 * (engine/receiver.c) says where it goes and which ACK answers it; here
 * the skb is kept or freed and the ACK sent or delayed.
 */
static void tonic_data_rcv(struct sock *sk, struct sk_buff *skb, u32 seg)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_rcv_seg in = {
		.seg = seg,
		.len = skb->len - TONIC_HDR_LEN,
		.ce = TONIC_SKB_CB(skb)->ce,
		.ackreq = tonic_hdr(skb)->flags & TONIC_F_ACKREQ,
	};
	struct tonic_rcv_cfg cfg;
	struct tonic_rcv_ack ack;
	unsigned int what;
	u32 newly;

	tsk->stats.segs_in++;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_SEGS_IN);
	tonic_rcv_cfg(sk, &cfg);

	/* Nothing follows the peer's FIN: anything is a duplicate. */
	in.verdict = tsk->peer_fin ? TONIC_RCV_DUP :
		     tonic_rcv_verdict(&tsk->rcv, &cfg, seg);
	if (in.verdict == TONIC_RCV_NEXT || in.verdict == TONIC_RCV_HOLD) {
		if (!tonic_rmem_ok(sk, skb)) {
			in.verdict = TONIC_RCV_DROP;
		} else {
			tsk->rcv_truesize = tsk->rcv_truesize ?
				(tsk->rcv_truesize * 7 + skb->truesize) / 8 :
				skb->truesize;
			skb_dst_drop(skb);
			__skb_pull(skb, TONIC_HDR_LEN);
			TONIC_SKB_CB(skb)->seg = seg;
			TONIC_SKB_CB(skb)->offset = 0;
		}
	}
	what = tonic_rcv_take(&tsk->rcv, &cfg, &in, in.ce ? tonic_now() : 0,
			      &ack, &newly);
	if (in.verdict == TONIC_RCV_NEXT || in.verdict == TONIC_RCV_HOLD)
		tonic_len_keep(tsk, seg, in.len, in.verdict == TONIC_RCV_HOLD);
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

	if (seg != tsk->rcv.rcv_nxt) {
		/* A retransmitted FIN (our ACK was lost): ack it again. */
		if (tsk->peer_fin && seg + 1 == tsk->rcv.rcv_nxt)
			tonic_send_ctl(sk, TONIC_PKT_ACK, 0, seg, TONIC_F_SACK, 0);
		else
			TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		return;
	}
	tsk->rcv.rcv_nxt++;
	tsk->peer_fin = true;
	tonic_purge_ooo(sk);
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	sock_set_flag(sk, SOCK_DONE);
	tonic_send_ctl(sk, TONIC_PKT_ACK, 0, seg, TONIC_F_SACK, 0);

	switch (sk->sk_state) {
	case TCP_ESTABLISHED:
		tonic_set_state(sk, TCP_CLOSE_WAIT);
		break;
	case TCP_FIN_WAIT1:
		tonic_set_state(sk, TCP_CLOSING);
		break;
	case TCP_FIN_WAIT2:
		/* No TIME_WAIT: the connection is over. */
		tonic_done(sk);
		return;
	}
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
	switch (sk->sk_state) {
	case TCP_FIN_WAIT1:
		tonic_set_state(sk, TCP_FIN_WAIT2);
		if (sock_flag(sk, SOCK_DEAD)) {
			tsk->linger2_at = tonic_now() + 60ULL * NSEC_PER_SEC;
			tonic_timer_update(sk);
		} else {
			sk->sk_state_change(sk);
		}
		return false;
	case TCP_CLOSING:
	case TCP_LAST_ACK:
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

/* K of the connection: how far a peer's numbers can be from ours. */
static s32 tonic_seq_slack(const struct tonic_sock *tsk)
{
	return tsk->window ? tsk->window : TONIC_MAX_WINDOW;
}

/*
 * The seq of a packet from the peer (relative) is plausible: within K of
 * rcv_nxt.  DATA and FIN from rcv_nxt - K (resends not yet known to be
 * acknowledged) to rcv_nxt + K (the peer's window); an ACK or PROBE
 * carries the peer's tonic-tail, at most K past its head, which is at
 * most our rcv_nxt.  Anything further is blind (RFC 5961 §5's "seq in
 * the window" for Tonic).
 */
static bool tonic_seq_plausible(const struct tonic_sock *tsk, u32 seq)
{
	s32 off = seq - tsk->rcv.rcv_nxt;
	s32 k = tonic_seq_slack(tsk);

	return off >= -k && off <= k;
}

static void tonic_rcv_synsent(struct sock *sk, struct sk_buff *skb)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_sock *tsk = tonic_sk(sk);

	if (ntohl(th->ack) != tsk->iss + 1) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		return;
	}
	if (th->type == TONIC_PKT_RST) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_RSTS_IN);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_CONN_FAILED);
		tonic_reset(sk, ECONNREFUSED);
		return;
	}
	if (th->type != TONIC_PKT_SYNACK) {
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
	bool refcounted;
	struct sock *nsk;

	nsk = tonic_af(sk)->lookup(skb, tonic_hdr(skb), &refcounted);
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

static void tonic_rcv_conn(struct sock *sk, struct sk_buff *skb)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 seq = ntohl(th->seq) - (tsk->irs + 1);
	u32 ack = ntohl(th->ack) - (tsk->iss + 1);
	u32 wnd = ntohs(th->wnd);
	u8 type = th->type;

	switch (type) {
	case TONIC_PKT_SYN:
		/* RFC 5961 §4: the peer may have restarted; let it prove it
		 * (its stack answers the challenge with a reset).
		 */
		tonic_challenge_ack(sk);
		goto drop;
	case TONIC_PKT_SYNACK:
		/* Our final ACK was lost: the server repeats its SYN-ACK. */
		if (ntohl(th->seq) == tsk->irs)
			tonic_send_ctl(sk, TONIC_PKT_ACK, 0, 0, 0, 0);
		goto drop;
	case TONIC_PKT_RST:
		/* RFC 5961 §3: only an RST at exactly rcv_nxt resets; one
		 * that is merely plausible gets a challenge ACK, which a
		 * peer that really reset answers with an exact RST.
		 */
		if (seq != tsk->rcv.rcv_nxt) {
			if (tonic_seq_plausible(tsk, seq))
				tonic_challenge_ack(sk);
			else
				TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
			goto drop;
		}
		TONIC_SK_INC_STATS(sk, TONIC_MIB_RSTS_IN);
		if (sk->sk_state == TCP_LAST_ACK || sk->sk_state == TCP_CLOSING)
			tonic_done(sk);
		else
			tonic_reset(sk, sk->sk_state == TCP_CLOSE_WAIT ?
					EPIPE : ECONNRESET);
		goto drop;
	}

	/* The seq must be near ours before anything of the packet counts
	 * (as tcp_validate_incoming() before tcp_ack()).
	 */
	if (!tonic_seq_plausible(tsk, seq)) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		goto drop;
	}
	/* RFC 5961 §5: the ack must lie in [snd_una - K, snd_nxt]; one
	 * for what we never sent is dropped, one older than a window is
	 * challenged (as tcp_ack()).
	 */
	if (tonic_seg_before(tonic_snd_nxt(tsk), ack)) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		goto drop;
	}
	if (tonic_seg_before(ack, tsk->snd_una -
			     min_t(u32, tsk->snd_una, tonic_seq_slack(tsk)))) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		tonic_challenge_ack(sk);
		goto drop;
	}

	tonic_keepalive_rcv(sk);	/* the peer is alive */
	if (sk->sk_state == TCP_SYN_RECV) {
		tsk->peer_wnd = min_t(u32, wnd, tsk->window);
		tsk->peer_edge = ack + tsk->peer_wnd;
		INET_ECN_xmit(sk);
		tonic_connection_established(sk);
	}

	if (tsk->fin_sent && !tsk->fin_acked &&
	    tonic_seg_before(tsk->fin_seg, ack)) {
		if (tonic_fin_acked(sk))
			goto drop;
	}

	switch (type) {
	case TONIC_PKT_ACK:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_ACKS_IN);
		tonic_ack_rcv(sk, ack, ntohl(th->sack) - (tsk->iss + 1),
			      th->flags, ntohl(th->grant), wnd);
		break;
	case TONIC_PKT_DATA:
		/* Nothing of a segment of impossible length counts. */
		if (tonic_len_bad(tsk, seq, skb->len - TONIC_HDR_LEN)) {
			TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_MALFORMED);
			goto drop;
		}
		/* In a batch, the same ack and window again change nothing. */
		if (!tsk->rcv_batch || !tsk->rcv_batch_acked ||
		    ack != tsk->rcv_batch_ack || wnd != tsk->rcv_batch_wnd) {
			tonic_ack_rcv(sk, ack, 0, 0, 0, wnd);
			tsk->rcv_batch_acked = tsk->rcv_batch;
			tsk->rcv_batch_ack = ack;
			tsk->rcv_batch_wnd = wnd;
		}
		if (sock_flag(sk, SOCK_DEAD) &&
		    !tonic_seg_before(seq, tsk->rcv.rcv_nxt)) {
			/* New data for a socket nobody can read any more. */
			tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
			tonic_done(sk);
			goto drop;
		}
		if (!((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_FIN_WAIT1 |
					     TCPF_FIN_WAIT2 | TCPF_CLOSE_WAIT |
					     TCPF_LAST_ACK | TCPF_CLOSING)))
			goto drop;
		tonic_data_rcv(sk, skb, seq);
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
 * unacknowledged (or the delayed-ACK timer, if fewer than delack_segs
 * are, as for lone segments), then one wake-up of the reader.
 */
static void tonic_batch_end(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_rcv_ack ack;

	tsk->rcv_batch = false;
	tsk->rcv_batch_acked = false;
	if (tsk->rcv.pending && ((1 << sk->sk_state) & TONIC_DATA_STATES)) {
		if (tsk->rcv.pending < READ_ONCE(tonic_sk_net(sk)->delack_segs))
			tonic_delack_arm(sk);
		else if (tonic_rcv_delack(&tsk->rcv, &ack))
			tonic_send_ctl(sk, TONIC_PKT_ACK, 0, ack.sack,
				       ack.flags, 0);
	}
	if (tsk->rcv_batch_wake && !sock_flag(sk, SOCK_DEAD))
		sk->sk_data_ready(sk);
	tsk->rcv_batch_wake = false;
}

/**
 * tonic_rcv_batch() - receive a GRO batch of DATA datagrams (backlog_rcv)
 * @sk: the connection, bh-locked or owned
 * @skb: the batch (sock/gro.c), data at the first Tonic header
 *
 * Each datagram goes through tonic_rcv() as a lone one would, in order,
 * with every rule that asks for an immediate ACK (out of order, hole
 * filled, duplicate, CE, ACKREQ, NACK, grants, short segments) as it is;
 * only the ACK that plain in-order segments would have had every
 * delack_segs segments and the reader's wake-up are left to the batch's
 * end, one each.
 *
 * Return: 0 (the skb is consumed).
 */
int tonic_rcv_batch(struct sock *sk, struct sk_buff *skb)
{
	bool whole = (1 << sk->sk_state) & TONIC_DATA_STATES;
	struct sk_buff *next;
	u32 n = 0;

	/* A listener's path may answer with resets, which want routes. */
	skb = tonic_batch_detach(skb, !whole);
	if (!whole) {
		skb_list_walk_safe(skb, skb, next) {
			skb_mark_not_on_list(skb);
			tonic_rcv(sk, skb);
		}
		return 0;
	}
	tonic_sk(sk)->rcv_batch = true;
	skb_list_walk_safe(skb, skb, next) {
		skb_mark_not_on_list(skb);
		tonic_rcv(sk, skb);	/* the state may change on the way */
		n++;
	}
	tonic_batch_end(sk);
	TONIC_SK_INC_STATS(sk, TONIC_MIB_GRO_BATCHES);
	TONIC_SK_ADD_STATS(sk, TONIC_MIB_GRO_SEGS, n);
	return 0;
}
