// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: GRO on the UDP wire.
 *
 * The UDP tunnel sockets' gro_receive/gro_complete (as VXLAN's and FOU's):
 * consecutive DATA datagrams of one connection that a local Tonic socket
 * owns are chained on the frag_list of the first one, each a whole
 * datagram at its Tonic header (the shape of skb_gro_receive_list(),
 * which is not exported).  The merged skb crosses IP and UDP once (one
 * input route, one UDP lookup, one checksum check that each datagram
 * passed in udp_gro_receive()) and reaches tonic_udp_encap_rcv(), whose
 * batch the socket takes with one lookup and one lock (input.c).
 *
 * Only DATA without flags is merged: control packets, and DATA that asks
 * for an immediate ACK (TONIC_F_ACKREQ), complete the batch of their
 * connection and go up alone after it, so no packet overtakes another
 * of its connection.  DATA of a sender that chose an ACK ratio
 * (TONIC_F_ACKFREQ) merges with or without ACKREQ: that ACKREQ asks for
 * the ACK the batch's end sends anyway (input.c).  A datagram shorter than the first ends the batch; a
 * longer one, different IP TOS/TTL (so one ECN codepoint per batch) or
 * anything malformed completes it.  Nothing is merged for a connection
 * without a local socket: GRO of a forwarding namespace leaves Tonic
 * traffic alone.
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/gro.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp_states.h>

#include "protocol.h"

/* Most datagrams in one batch (the UDP layer's UDP_GRO_CNT_MAX). */
#define TONIC_GRO_MAX_SEGS	64

/*
 * The outer IP header of @skb inside GRO.  skb_gro_network_header() would
 * take the inner one: udp_gro_receive() set encap_mark before calling us.
 */
static const void *tonic_gro_nh(const struct sk_buff *skb)
{
	unsigned int off = NAPI_GRO_CB(skb)->network_offset;

	if (skb_gro_may_pull(skb, skb_gro_offset(skb)))
		return skb_gro_header_fast(skb, off);
	return skb->data + off;
}

/* A datagram that may join a batch: DATA, no flags, coherent length. */
static bool tonic_gro_mergeable(const struct sk_buff *skb,
				const struct tonichdr *th)
{
	u8 fl = th->flags & TONIC_F_ACKFREQ ?
		th->flags & ~(TONIC_F_ACKFREQ | TONIC_F_ACKREQ) : th->flags;

	return th->type == TONIC_PKT_DATA && !fl && th->len &&
	       skb_gro_len(skb) == TONIC_HDR_LEN + ntohs(th->len);
}

/*
 * Does a local Tonic socket own @skb's connection?  An established-table
 * lookup under RCU (GRO runs in softirq), as TCP's early demux.
 */
static bool tonic_gro_local(struct sock *usk, struct sk_buff *skb,
			    const struct tonichdr *th)
{
	struct net *net = sock_net(usk);
	int dif = skb->dev->ifindex;
	struct sock *sk;
	bool ok;

#if IS_ENABLED(CONFIG_IPV6)
	if (usk->sk_family == AF_INET6) {
		const struct ipv6hdr *ip6h = tonic_gro_nh(skb);

		sk = __inet6_lookup_established(net, &tonic_hashinfo,
						&ip6h->saddr, th->source,
						&ip6h->daddr, ntohs(th->dest),
						dif, 0);
	} else
#endif
	{
		const struct iphdr *iph = tonic_gro_nh(skb);

		sk = __inet_lookup_established(net, &tonic_hashinfo,
					       iph->saddr, th->source,
					       iph->daddr, ntohs(th->dest),
					       dif, 0);
	}
	if (!sk)
		return false;
	ok = sk_fullsock(sk) && sk->sk_protocol == tonic_protocol &&
	     ((1 << sk->sk_state) & TONIC_DATA_STATES) && tonic_sk(sk)->udp;
	sock_gen_put(sk);
	return ok;
}

/* IP fields of @skb that differ from @p's: TOS/traffic class, TTL. */
static int tonic_gro_ip_flush(struct sock *usk, struct sk_buff *p,
			      struct sk_buff *skb)
{
	const void *nh2 = p->data + NAPI_GRO_CB(p)->network_offset;
	const void *nh = tonic_gro_nh(skb);

	if (usk->sk_family == AF_INET6)
		return ipv6_gro_flush(nh, nh2);
	return inet_gro_flush(nh, nh2, p, true);
}

/*
 * skb_gro_receive_list(): chain @skb onto @p, pulled to its payload (its
 * Tonic header stays just before, in the linear part).
 */
static int tonic_gro_chain(struct sk_buff *p, struct sk_buff *skb)
{
	if (!pskb_may_pull(skb, skb_gro_offset(skb)))
		return -ENOMEM;
	if (p->len + skb->len >= 65536)
		return -E2BIG;
	/* Its IP header stays in the headroom: a member that has to go
	 * its own way later (tonic_batch_split()) still has it.
	 */
	skb_set_network_header(skb, NAPI_GRO_CB(skb)->network_offset);
	if (NAPI_GRO_CB(p)->last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		NAPI_GRO_CB(p)->last->next = skb;
	skb_pull(skb, skb_gro_offset(skb));
	NAPI_GRO_CB(p)->last = skb;
	NAPI_GRO_CB(p)->count++;
	p->data_len += skb->len;
	skb->destructor = NULL;
	skb->sk = NULL;
	p->truesize += skb->truesize;
	p->len += skb->len;
	skb_shinfo(p)->flags |= skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG;
	NAPI_GRO_CB(skb)->same_flow = 1;
	return 0;
}

/**
 * tonic_gro_receive() - gro_receive of the UDP tunnel sockets
 * @usk: the namespace's tunnel socket
 * @head: the GRO bucket
 * @skb: a datagram, the UDP header pulled (GRO offset at the Tonic header)
 *
 * A datagram that joins or starts a batch has its Tonic header pulled
 * too, so that it is in the linear part of a held skb and gso_size is
 * the payload of the first datagram.
 *
 * Return: the held batch to complete now, or NULL.
 */
struct sk_buff *tonic_gro_receive(struct sock *usk, struct list_head *head,
				  struct sk_buff *skb)
{
	unsigned int off = skb_gro_offset(skb);
	const struct tonichdr *th, *th2;
	struct sk_buff *p, *pp = NULL;
	int flush = 1, err;
	bool merge;
	u32 len;

	th = skb_gro_header(skb, off + TONIC_HDR_LEN, off);
	if (!th)
		goto out;
	merge = tonic_gro_mergeable(skb, th);
	len = skb_gro_len(skb) - TONIC_HDR_LEN;

	list_for_each_entry(p, head, list) {
		if (!NAPI_GRO_CB(p)->same_flow)
			continue;
		th2 = (const struct tonichdr *)(p->data + off);
		if (*(const u32 *)&th->source != *(const u32 *)&th2->source) {
			NAPI_GRO_CB(p)->same_flow = 0;
			continue;
		}
		/* @p is this connection's batch.  What does not join it
		 * completes it first: a packet that may not be merged then
		 * goes up alone, any other starts the next batch.
		 */
		pp = p;
		if (!merge)
			goto out;
		flush = 0;
		if (len > skb_shinfo(p)->gso_size ||
		    tonic_gro_ip_flush(usk, p, skb))
			goto pull;
		skb_gro_pull(skb, TONIC_HDR_LEN);
		skb_gro_postpull_rcsum(skb, th, TONIC_HDR_LEN);
		err = tonic_gro_chain(p, skb);
		if (err) {
			/* Full: start the next one; no memory: go up alone. */
			flush = err != -E2BIG;
			goto out;
		}
		/* A short datagram is a write's last: nothing follows it. */
		if (len == skb_shinfo(p)->gso_size &&
		    NAPI_GRO_CB(p)->count < TONIC_GRO_MAX_SEGS)
			pp = NULL;
		goto out;
	}
	/* The first of a batch is held if its connection is local. */
	if (!merge || !tonic_gro_local(usk, skb, th))
		goto out;
	flush = 0;
pull:
	skb_gro_pull(skb, TONIC_HDR_LEN);
	skb_gro_postpull_rcsum(skb, th, TONIC_HDR_LEN);
out:
	skb_gro_flush_final(skb, pp, flush);
	return pp;
}

/**
 * tonic_gro_complete() - gro_complete of the UDP tunnel sockets
 * @usk: the tunnel socket
 * @skb: a batch of two or more datagrams (udp_gro_complete() has set
 *	its GSO type to SKB_GSO_UDP_TUNNEL_CSUM, which udp_unexpected_gso()
 *	lets through to encap_rcv)
 * @nhoff: offset of the first Tonic header
 *
 * Return: 0.
 */
int tonic_gro_complete(struct sock *usk, struct sk_buff *skb, int nhoff)
{
	/* udp_gro_receive() verified every datagram's checksum. */
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb->csum_level = 0;
	skb_shinfo(skb)->gso_segs = NAPI_GRO_CB(skb)->count;
	return 0;
}

/**
 * tonic_batch_len() - bytes of the first datagram of a received batch
 * @skb: a batch from tonic_gro_complete(), at its first Tonic header
 *
 * Return: its length, or 0 if the skb is not a coherent batch (the
 * lengths of the frag_list members and gso_size disagree).
 */
u32 tonic_batch_len(struct sk_buff *skb)
{
	u32 first = TONIC_HDR_LEN + skb_shinfo(skb)->gso_size;
	struct sk_buff *m;
	u32 rest = 0;

	skb_walk_frags(skb, m)
		rest += m->len;
	return skb->len > rest && skb->len - rest == first ? first : 0;
}

/**
 * tonic_batch_detach() - turn a batch into a list of lone datagrams
 * @skb: a batch, at its first Tonic header (TONIC_SKB_CB(@skb)->batch)
 * @dst: give each datagram the first's route too (a lone packet's path
 *	may answer it with a reset, which looks at the route)
 *
 * Each member gets the first's control block (IP's, the CE mark), input
 * interface and transport header; its own IP header is in its headroom.
 * Members that cannot be unshared are dropped.
 *
 * Return: the first datagram, the others on its ->next; NULL if @skb
 * could not be unshared (it is freed).
 */
struct sk_buff *tonic_batch_detach(struct sk_buff *skb, bool dst)
{
	struct sk_buff *list, *m, *next, **tail;
	u32 len = 0, truesize = 0;

	/* A tap's clone shares the frag_list: take our own. */
	if (skb_unclone(skb, GFP_ATOMIC)) {
		kfree_skb(skb);
		return NULL;
	}
	list = skb_shinfo(skb)->frag_list;
	skb_shinfo(skb)->frag_list = NULL;
	tail = &skb->next;
	for (m = list; m; m = next) {
		next = m->next;
		len += m->len;
		truesize += m->truesize;
		/* Shared with a tap's copy of the frag_list: its chain must
		 * stay as it is, so change only our clone.
		 */
		m = skb_share_check(m, GFP_ATOMIC);
		if (!m)
			continue;
		m->next = NULL;
		memcpy(m->cb, skb->cb, sizeof(m->cb));
		TONIC_SKB_CB(m)->batch = 0;
		m->skb_iif = skb->skb_iif;
		m->dev = skb->dev;
		if (dst)
			skb_dst_copy(m, skb);
		__skb_push(m, TONIC_HDR_LEN);
		skb_reset_transport_header(m);
		*tail = m;
		tail = &m->next;
	}
	*tail = NULL;
	skb->len -= len;
	skb->data_len -= len;
	skb->truesize -= truesize;
	skb_shinfo(skb)->gso_size = 0;
	skb_shinfo(skb)->gso_segs = 0;
	skb_shinfo(skb)->gso_type = 0;
	skb->encapsulation = 0;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	TONIC_SKB_CB(skb)->batch = 0;
	return skb;
}
