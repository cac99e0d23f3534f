// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: from the IP protocol handler to a socket, both families.
 *
 * Header and checksum checks, the socket lookup (with request socks and
 * the race against a handshake completing on another CPU), resets for
 * packets that find no connection, the socket backlog, and the common
 * part of ICMP error handling.  The family's part (checksum, lookup,
 * policy, building the reset) comes through struct tonic_af_ops; what a
 * socket does with a packet is input.c's.
 */
#include <linux/filter.h>
#include <linux/ipv6.h>
#include <linux/skbuff_ref.h>
#include <net/dsfield.h>
#include <net/inet_connection_sock.h>
#include <net/inet_ecn.h>
#include <net/inet_hashtables.h>
#include <net/inet_timewait_sock.h>
#include <net/request_sock.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"

/**
 * __tonic_pull_hdr() - tonic_pull_hdr() when @len bytes are not linear yet
 * @skb: a received packet
 * @len: bytes from skb->data that must be linear
 *
 * A datagram that gso.c built after a super-packet's first carries its
 * Tonic header alone in its first page fragment: copied to the tail and
 * the fragment dropped, as GRO's gro_pull_from_frag0(), for a fraction
 * of __pskb_pull_tail().
 *
 * Return: false if @skb is shorter than @len (or out of memory).
 */
bool __tonic_pull_hdr(struct sk_buff *skb, unsigned int len)
{
	struct skb_shared_info *si = skb_shinfo(skb);
	unsigned int need;
	skb_frag_t *f;

	need = len - skb_headlen(skb);
	f = &si->frags[0];
	if (skb_cloned(skb) || si->nr_frags < 2 || skb_frag_size(f) != need ||
	    skb_end_pointer(skb) - skb_tail_pointer(skb) < need ||
	    PageHighMem(skb_frag_page(f)))
		return pskb_may_pull(skb, len);
	memcpy(skb_tail_pointer(skb), skb_frag_address(f), need);
	skb->tail += need;
	skb->data_len -= need;
	__skb_frag_unref(f, skb->pp_recycle);
	memmove(f, f + 1, --si->nr_frags * sizeof(*f));
	return true;
}

/*
 * Sanity-check the header of a received packet, data at the header: pull
 * it (and SYN options) into the linear area.  Of a GRO batch, the first
 * datagram is checked, and must be DATA: GRO merges nothing else.  The
 * others, rebuilt from that header with their own seq and length
 * (tonic_batch_detach()), then pass too.  Inline, as the byte-level
 * checks (engine/pkt.h, fuzzed): every packet passes here.
 *
 * Return: true if the packet is malformed.
 */
static __always_inline bool tonic_hdr_bad(struct sk_buff *skb)
{
	const struct tonichdr *th;
	u32 len = skb->len;
	u32 hlen;

	if (!tonic_pull_hdr(skb, TONIC_HDR_LEN))
		return true;
	th = tonic_hdr(skb);
	if (TONIC_SKB_CB(skb)->batch) {
		if (th->type != TONIC_PKT_DATA)
			return true;
		len = TONIC_HDR_LEN + skb_shinfo(skb)->gso_size;
	}
	/* Only a SYN's options are beyond what is pulled already. */
	hlen = tonic_pkt_hdr_len(th->type);
	if (hlen > TONIC_HDR_LEN) {
		if (!pskb_may_pull(skb, hlen))
			return true;
		th = tonic_hdr(skb);
	}
	return tonic_pkt_check(th, len) != TONIC_PKT_OK;
}

/* Did the packet carry ECN CE?  Per packet: inline, not a family op. */
static __always_inline bool tonic_ip_ce(const struct sk_buff *skb,
					const struct tonic_af_ops *af)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (af->family == AF_INET6)
		return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
#endif
	return INET_ECN_is_ce(ip_hdr(skb)->tos);
}

/*
 * May a GRO batch go to @sk whole?  Only to a connection taking data;
 * anything else (no socket, a request or timewait sock, a listener, a
 * socket filter that may trim) takes the datagrams one by one.
 */
static bool tonic_batch_ok(const struct sock *sk)
{
	return sk && sk_fullsock(sk) &&
	       ((1 << sk->sk_state) & TONIC_DATA_STATES) &&
	       !rcu_access_pointer(sk->sk_filter);
}

/* Demux each datagram of a batch on its own. */
static int tonic_batch_split(struct sk_buff *skb,
			     const struct tonic_af_ops *af)
{
	struct sk_buff *next;

	skb = tonic_batch_detach(dev_net(skb->dev), skb, true);
	skb_list_walk_safe(skb, skb, next) {
		skb_mark_not_on_list(skb);
		tonic_demux(skb, af);
	}
	return 0;
}

/*
 * __sk_receive_skb() without its rcvbuf check: the receive window and
 * tonic_data_rcv() bound memory, and ACKs must get through to a sender whose
 * receive queue is full.  Inline in tonic_demux(), for each packet.
 */
static __always_inline int __tonic_sk_receive_skb(struct sock *sk,
						  struct sk_buff *skb,
						  bool refcounted)
{
	if (sk_filter_trim_cap(sk, skb, TONIC_HDR_LEN))
		goto discard;
	skb->dev = NULL;
	bh_lock_sock_nested(sk);
	if (!sock_owned_by_user(sk)) {
		tonic_rcv(sk, skb);
		goto out;
	}
	/* A route the connection keeps already (edemux.c) needs no
	 * reference in the backlog: drop it, as tcp_add_backlog() does.
	 */
	if (skb_dst(skb) == rcu_access_pointer(sk->sk_rx_dst))
		skb_dst_drop(skb);
	if (tonic_backlog_merge(sk, skb))
		goto out;
	if (sk_add_backlog(sk, skb, 2 * READ_ONCE(sk->sk_rcvbuf) +
			   READ_ONCE(sk->sk_sndbuf))) {
		bh_unlock_sock(sk);
		atomic_inc(&sk->sk_drops);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_MEM);
		goto discard;
	}
out:
	bh_unlock_sock(sk);
	if (refcounted)
		sock_put(sk);
	return 0;
discard:
	kfree_skb(skb);
	if (refcounted)
		sock_put(sk);
	return 0;
}

/**
 * tonic_sk_receive_skb() - hand a packet to its socket or its backlog
 * @sk: the socket found by the lookup
 * @skb: the packet
 * @refcounted: the lookup took a reference on @sk
 *
 * Return: 0 (the skb is consumed).
 */
int tonic_sk_receive_skb(struct sock *sk, struct sk_buff *skb, bool refcounted)
{
	return __tonic_sk_receive_skb(sk, skb, refcounted);
}

/*
 * A packet for a request sock: its listener checks it and, on the final
 * ACK, makes the child that processes it.  Return: 0 when the packet was
 * consumed, -EAGAIN when it must be looked up again, -EINVAL to drop it
 * (*sk then holds a reference on the listener).
 */
static int tonic_demux_req(struct sock **sk, struct sk_buff *skb,
			   bool *retried)
{
	struct request_sock *req = inet_reqsk(*sk);
	struct sock *lsk = req->rsk_listener;
	bool stolen = false;
	struct sock *nsk;

	if (unlikely(lsk->sk_state != TCP_LISTEN)) {
		tonic_reqsk_drop_and_put(lsk, req);
		return -EAGAIN;
	}
	sock_hold(lsk);
	*sk = lsk;
	nsk = tonic_check_req(lsk, skb, req, &stolen);
	if (!nsk) {
		reqsk_put(req);
		if (stolen && !*retried) {
			*retried = true;
			sock_put(lsk);
			return -EAGAIN;
		}
		return -EINVAL;
	}
	tonic_child_process(lsk, nsk, skb);
	sock_put(lsk);
	return 0;
}

/*
 * A connection takes the packets of its wire's family (IPv4 for an
 * IPv4-mapped IPv6 socket); an IPv6 listener also takes IPv4 unless it is
 * IPV6_V6ONLY (the listen lookup already skips it then).
 */
static bool tonic_family_ok(const struct sock *sk,
			    const struct tonic_af_ops *af)
{
	if (sk->sk_state != TCP_LISTEN)
		return tonic_af(sk)->family == af->family;
	if (sk->sk_family == AF_INET6)
		return af->family == AF_INET6 || !ipv6_only_sock(sk);
	return af->family == AF_INET;
}

/**
 * tonic_demux_sk() - receive one packet from IP (the families' handlers)
 * @skb: the packet, data at the Tonic header
 * @af: the family it arrived on
 * @sk: its connection with a reference, if early demux delivers it
 *	(tonic_v4_edemux()); NULL to look it up
 *
 * Return: 0 (the skb is consumed).
 */
int tonic_demux_sk(struct sk_buff *skb, const struct tonic_af_ops *af,
		   struct sock *sk)
{
	struct net *net = dev_net(skb->dev);
	bool refcounted = true, retried = false;
	const struct tonichdr *th;

	if (skb->pkt_type != PACKET_HOST)
		goto discard_and_relse;
	if (tonic_hdr_bad(skb)) {
		TONIC_INC_STATS(net, TONIC_MIB_DROP_MALFORMED);
		goto discard_and_relse;
	}
	/* The UDP layer has verified a UDP packet's checksum. */
	if (!TONIC_SKB_CB(skb)->udp && af->csum_bad(skb)) {
		TONIC_INC_STATS(net, TONIC_MIB_DROP_CSUM);
		goto discard_and_relse;
	}
	th = tonic_hdr(skb);
	TONIC_SKB_CB(skb)->ce = tonic_ip_ce(skb, af);

	/* Early demux may have found the connection for this packet. */
	if (!sk)
		sk = tonic_edemux_sk(net, skb, th);
	if (sk)
		goto found;
lookup:
	sk = af->lookup(skb, th, &refcounted);
found:
	if (TONIC_SKB_CB(skb)->batch && !tonic_batch_ok(sk)) {
		if (sk && refcounted)
			sock_gen_put(sk);
		return tonic_batch_split(skb, af);
	}
	if (!sk)
		goto no_sock;
	if (sk->sk_state == TCP_TIME_WAIT) {
		inet_twsk_put(inet_twsk(sk));
		goto no_sock;
	}
	/* A non-SYN packet found the listener: it may have raced with the
	 * request sock being replaced by its child in the established
	 * table (another CPU completing the handshake).  Look once more.
	 */
	if (sk->sk_state == TCP_LISTEN && th->type != TONIC_PKT_SYN &&
	    th->type != TONIC_PKT_RST && !retried) {
		retried = true;
		if (refcounted)
			sock_put(sk);
		goto lookup;
	}
	if (sk->sk_state == TCP_NEW_SYN_RECV) {
		switch (tonic_demux_req(&sk, skb, &retried)) {
		case 0:
			return 0;
		case -EAGAIN:
			goto lookup;
		}
		refcounted = true;
		goto discard_and_relse;
	}
	if (sk->sk_protocol != tonic_protocol || !tonic_family_ok(sk, af))
		goto discard_and_relse;
	if (!af->policy_check(sk, skb))
		goto discard_and_relse;
	nf_reset_ct(skb);
	return __tonic_sk_receive_skb(sk, skb, refcounted);

no_sock:
	if (!af->policy_check(NULL, skb))
		goto discard;
	TONIC_INC_STATS(net, TONIC_MIB_DROP_NOSOCK);
	af->send_reset(net, skb);
discard:
	kfree_skb(skb);
	return 0;

discard_and_relse:
	if (sk && refcounted)
		sock_gen_put(sk);
	goto discard;
}

/* As tcp_req_err(): only our SYN-ACK (seq = our ISN) may be the subject. */
static void tonic_req_err(struct request_sock *req, u32 seq, bool abort)
{
	struct sock *lsk = req->rsk_listener;
	struct net *net = sock_net(lsk);

	if (!tonic_icmp_req_ok(tonic_rsk(req)->iss, seq)) {
		TONIC_INC_STATS(net, TONIC_MIB_OOW_ICMPS);
	} else if (abort) {
		/* Still half open: forget it quietly (accept() wants no
		 * network errors), as TCP.
		 */
		tonic_reqsk_drop(lsk, req);
		TONIC_INC_STATS(net, TONIC_MIB_LISTEN_DROPS);
	}
	reqsk_put(req);
}

/**
 * tonic_err_full_sk() - may an ICMP error's socket be handled?
 * @sk: the socket the ICMP error's quote found (a reference held)
 * @seq: the quoted packet's seq (host order)
 * @abort: the error is one that ends a half-open connection (as
 *	tcp_req_err()'s)
 *
 * Return: true for a full socket; a timewait or request sock is released
 * and false returned (a request sock whose SYN-ACK is quoted and @abort
 * is dropped; another seq counts in OutOfWindowIcmps).
 */
bool tonic_err_full_sk(struct sock *sk, u32 seq, bool abort)
{
	if (sk->sk_state == TCP_TIME_WAIT) {
		inet_twsk_put(inet_twsk(sk));
		return false;
	}
	if (sk->sk_state == TCP_NEW_SYN_RECV) {
		tonic_req_err(inet_reqsk(sk), seq, abort);
		return false;
	}
	return true;
}

/**
 * tonic_err_seq_ok() - does an ICMP error quote a packet we have in flight?
 * @sk: a full socket, bh-locked
 * @seq: the quoted packet's seq (host order)
 *
 * As tcp_v4_err(): the SYN in SYN_SENT, else a seq in [snd_una, snd_ann]
 * (our FIN included).  Anything else is blind and counted in
 * OutOfWindowIcmps.
 *
 * Return: true if the error may be acted on.
 */
bool tonic_err_seq_ok(struct sock *sk, u32 seq)
{
	struct tonic_acc_view v;

	/* The check is portable (engine/accept.c, fuzzed). */
	tonic_acc_view_of(sk, &v);
	if (tonic_icmp_seq_ok(&v, tonic_sk(sk)->iss, seq))
		return true;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_OOW_ICMPS);
	return false;
}

/**
 * tonic_err_report() - an ICMP error that is not about the path MTU
 * @sk: the socket, bh-locked
 * @err: its errno
 *
 * A handshake fails at once (the socket is reset); an open connection
 * keeps trying and only records it in sk_err_soft.
 */
void tonic_err_report(struct sock *sk, int err)
{
	/* Only a handshake gives up at once; a connection keeps trying. */
	if (sk->sk_state == TCP_SYN_SENT && !sock_owned_by_user(sk))
		tonic_reset(sk, err);
	else
		WRITE_ONCE(sk->sk_err_soft, err);
}
