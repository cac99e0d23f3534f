// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: GRO on the UDP wire.
 *
 * The UDP tunnel sockets' gro_receive/gro_complete (as VXLAN's and FOU's)
 * merge consecutive DATA datagrams of one connection that a local Tonic
 * socket owns as TCP's GRO merges segments (skb_gro_receive(), which is
 * not exported): a batch is the first datagram, its Tonic header
 * included, followed by the payloads of the others, moved into its page
 * fragments when theirs are all in fragments (their skbs go back to the
 * NAPI cache at once), else chained on its frag_list pulled to the
 * payload.  A datagram joins only if its header is the batch's but for
 * seq, which must be the next (the first's + count), and ACKREQ; ack,
 * sack, wnd and grant must be equal, else the batch is complete.  So a
 * batch is one header, a count (gso_segs) and a segment size (gso_size):
 * the socket queues an in-order one whole (input.c); anything else is
 * cut back into datagrams (tonic_batch_detach()).  The merged skb
 * crosses IP and UDP once (one input route, one UDP lookup, one
 * checksum check that each datagram passed in udp_gro_receive()) and
 * reaches tonic_udp_encap_rcv().
 *
 * Only DATA without flags is merged: control packets, and DATA that asks
 * for an immediate ACK (TONIC_F_ACKREQ), complete the batch of their
 * connection and go up alone after it, so no packet overtakes another
 * of its connection.  DATA of a sender that chose an ACK ratio
 * (TONIC_F_ACKFREQ) merges with or without ACKREQ: that ACKREQ asks for
 * the ACK the batch's end sends anyway (input.c), and is kept as the
 * first header's.  A datagram shorter than the first ends the batch; a
 * longer one, different IP TOS/TTL (so one ECN codepoint per batch) or
 * anything malformed completes it.  Nothing is merged for a connection
 * without a local socket: GRO of a forwarding namespace leaves Tonic
 * traffic alone.
 */
#include <linux/skbuff.h>
#include <linux/skbuff_ref.h>
#include <linux/udp.h>
#include <net/gro.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp_states.h>

#include "protocol.h"

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
	return tonic_hdr_batchable(th, skb_gro_len(skb));
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

/*
 * IP fields of @skb that differ from @p's: TOS/traffic class, TTL.  Not
 * the IPv4 ID's sequence that inet_gro_flush() checks: a batch is never
 * cut back into its wire packets (it is taken by a local socket, or
 * rebuilt from its first's headers by tonic_batch_detach()).
 */
static int tonic_gro_ip_flush(struct sock *usk, struct sk_buff *p,
			      struct sk_buff *skb)
{
	const void *nh2 = p->data + NAPI_GRO_CB(p)->network_offset;
	const struct iphdr *iph2 = nh2, *iph = tonic_gro_nh(skb);

	if (usk->sk_family == AF_INET6)
		return ipv6_gro_flush((const void *)iph, nh2);
	return (iph->ttl ^ iph2->ttl) | (iph->tos ^ iph2->tos);
}

/*
 * skb_gro_receive()'s frag_list case: chain @skb onto @p, pulled to its
 * payload (@off).
 */
static int tonic_gro_chain(struct sk_buff *p, struct sk_buff *skb,
			   unsigned int off)
{
	if (!pskb_may_pull(skb, off))
		return -ENOMEM;
	if (NAPI_GRO_CB(p)->last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		NAPI_GRO_CB(p)->last->next = skb;
	skb_pull(skb, off);
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

/*
 * skb_gro_receive(): append @skb's payload (after the Tonic header at its
 * GRO offset) to @p, its page fragments moved into the last skb of @p
 * when they hold all of it, else @skb chained on @p's frag_list.  A
 * Tonic header in a page fragment of its own (gso.c builds all but a
 * super-packet's first datagram so) is dropped with that fragment, never
 * copied.  Nothing shared with a clone (a tap's) is moved or changed.
 * On error @skb is as it came (its GRO offset at its Tonic header).
 */
static int tonic_gro_merge(struct sk_buff *p, struct sk_buff *skb)
{
	struct skb_shared_info *pinfo, *skbinfo = skb_shinfo(skb);
	struct sk_buff *lp = NAPI_GRO_CB(p)->last;
	unsigned int offset = skb_gro_offset(skb) + TONIC_HDR_LEN;
	unsigned int len = skb_gro_len(skb) - TONIC_HDR_LEN;
	unsigned int headlen = skb_headlen(skb);
	unsigned int delta, new_truesize, skip;
	int i = skbinfo->nr_frags, first = 0, n;
	skb_frag_t *frag, *frag2;

	if (p->len + len >= 65536)
		return -E2BIG;
	/* As skb_gro_receive(): page pool pages stay among their own. */
	if (p->pp_recycle != skb->pp_recycle)
		return -E2BIG;
	pinfo = skb_shinfo(lp);
	if (skb_cloned(skb) || skb_cloned(lp) || skb_zcopy(skb) ||
	    skb_zcopy(lp) || headlen > offset)
		return tonic_gro_chain(p, skb, offset);
	/* Fragments before the payload: a header of its own. */
	skip = offset - headlen;
	while (first < i && skip >= skb_frag_size(&skbinfo->frags[first]))
		skip -= skb_frag_size(&skbinfo->frags[first++]);
	n = i - first;
	if (!n || pinfo->nr_frags + n > MAX_SKB_FRAGS)
		return tonic_gro_chain(p, skb, offset);

	while (first--)
		__skb_frag_unref(&skbinfo->frags[first], skb->pp_recycle);
	frag = pinfo->frags + pinfo->nr_frags + n;
	frag2 = skbinfo->frags + i;
	pinfo->nr_frags += n;
	skbinfo->nr_frags = 0;
	do {
		*--frag = *--frag2;
	} while (--n);
	skb_frag_off_add(frag, skip);
	skb_frag_size_sub(frag, skip);
	pinfo->flags |= skbinfo->flags & SKBFL_SHARED_FRAG;

	/* What moved is the fragments' truesize; the head goes back. */
	new_truesize = SKB_TRUESIZE(skb_end_offset(skb));
	delta = skb->truesize - new_truesize;
	skb->truesize = new_truesize;
	skb->len -= skb->data_len;
	skb->data_len = 0;
	NAPI_GRO_CB(skb)->free = NAPI_GRO_FREE;

	NAPI_GRO_CB(p)->count++;
	p->data_len += len;
	p->truesize += delta;
	p->len += len;
	if (lp != p) {
		lp->data_len += len;
		lp->truesize += delta;
		lp->len += len;
	}
	NAPI_GRO_CB(skb)->same_flow = 1;
	return 0;
}

/*
 * @skb's Tonic header at GRO offset @off, where it is: in the linear part
 * (or GRO's frag0), or in a page fragment of its own right after the UDP
 * header (gso.c), which is read in place; else pulled.
 */
static const struct tonichdr *tonic_gro_hdr(struct sk_buff *skb,
					    unsigned int off)
{
	const skb_frag_t *f = skb_shinfo(skb)->frags;

	if (skb_gro_may_pull(skb, off + TONIC_HDR_LEN))
		return skb_gro_header_fast(skb, off);
	if (skb_headlen(skb) == off && skb_shinfo(skb)->nr_frags &&
	    skb_frag_size(f) >= TONIC_HDR_LEN &&
	    !PageHighMem(skb_frag_page(f)))
		return skb_frag_address(f);
	return skb_gro_header_slow(skb, off + TONIC_HDR_LEN, off);
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
	bool merge, ackreq;
	u32 len;

	th = tonic_gro_hdr(skb, off);
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
		/* An ACKREQ is kept in the first header, which must be ours
		 * to change.
		 */
		ackreq = (th->flags & TONIC_F_ACKREQ) &&
			 !(th2->flags & TONIC_F_ACKREQ);
		if (len > skb_shinfo(p)->gso_size ||
		    !tonic_hdr_follows(th, th2, NAPI_GRO_CB(p)->count) ||
		    (ackreq && skb_cloned(p)) ||
		    tonic_gro_ip_flush(usk, p, skb))
			goto pull;
		err = tonic_gro_merge(p, skb);
		if (err == -E2BIG)	/* full: start the next one */
			goto pull;
		if (err) {		/* no memory: go up alone */
			flush = 1;
			goto out;
		}
		if (ackreq)
			((struct tonichdr *)th2)->flags |= TONIC_F_ACKREQ;
		/* A short datagram is a write's last: nothing follows it. */
		if (len == skb_shinfo(p)->gso_size &&
		    NAPI_GRO_CB(p)->count < TONIC_BATCH_MAX_SEGS)
			pp = NULL;
		goto out;
	}
	/* The first of a batch is held if its connection is local. */
	if (!merge || !tonic_gro_local(usk, skb, th))
		goto out;
	flush = 0;
pull:
	/*
	 * A held skb's header must be in its linear part (or frag0, which
	 * GRO pulls): a header in a page fragment of its own is pulled.
	 */
	if (!skb_gro_may_pull(skb, off + TONIC_HDR_LEN)) {
		th = skb_gro_header_slow(skb, off + TONIC_HDR_LEN, off);
		if (!th) {
			flush = 1;
			goto out;
		}
	}
	/* No skb_gro_postpull_rcsum(): no GRO layer follows Tonic's to use
	 * the rest's checksum (udp_gro_receive() checked the datagram's).
	 */
	skb_gro_pull(skb, TONIC_HDR_LEN);
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
 * Return: its length, or 0 if the skb is not a coherent batch: gso_segs
 * datagrams of gso_size bytes of payload, the last one 1 to gso_size.
 */
u32 tonic_batch_len(struct sk_buff *skb)
{
	u32 size = skb_shinfo(skb)->gso_size;
	u32 n = skb_shinfo(skb)->gso_segs;
	u32 data = skb->len - TONIC_HDR_LEN;

	if (n < 2 || n > TONIC_BATCH_MAX_SEGS || !size ||
	    skb->len <= TONIC_HDR_LEN ||
	    data <= (n - 1) * size || data > n * size)
		return 0;
	return TONIC_HDR_LEN + size;
}

/*
 * Datagram @i of a batch as a lone packet: the first's IP and UDP
 * headers, its Tonic header with seq @i further on and its own length,
 * and a copy of its payload.  The first datagram's ACKREQ (gathered
 * there by GRO) goes on the last one.
 */
static struct sk_buff *tonic_batch_member(struct sk_buff *skb, u32 i,
					  u32 off, u32 len, bool dst)
{
	const struct tonichdr *th = tonic_hdr(skb);
	u32 nhlen = skb_network_header_len(skb);	/* IP and UDP */
	bool last = i + 1 == skb_shinfo(skb)->gso_segs;
	struct tonichdr *h;
	struct sk_buff *m;

	m = alloc_skb(nhlen + TONIC_HDR_LEN + len, GFP_ATOMIC);
	if (!m)
		return NULL;
	skb_reserve(m, nhlen);
	skb_reset_transport_header(m);
	skb_set_network_header(m, -(int)nhlen);
	memcpy(skb_network_header(m), skb_network_header(skb), nhlen);
	h = skb_put_data(m, th, TONIC_HDR_LEN);
	h->seq = htonl(ntohl(th->seq) + i);
	h->len = htons(len);
	if (!last)
		h->flags &= ~TONIC_F_ACKREQ;
	if (skb_copy_bits(skb, off, skb_put(m, len), len)) {
		kfree_skb(m);
		return NULL;
	}
	memcpy(m->cb, skb->cb, sizeof(m->cb));
	TONIC_SKB_CB(m)->batch = 0;
	m->protocol = skb->protocol;
	m->pkt_type = skb->pkt_type;
	m->mark = skb->mark;
	m->skb_iif = skb->skb_iif;
	m->dev = skb->dev;
	m->ip_summed = CHECKSUM_UNNECESSARY;
	if (dst)
		skb_dst_copy(m, skb);
	return m;
}

/**
 * tonic_batch_detach() - turn a batch into a list of lone datagrams
 * @net: its namespace (counters)
 * @skb: a batch, at its first Tonic header (TONIC_SKB_CB(@skb)->batch),
 *	the header pulled into the linear part (tonic_hdr_bad())
 * @dst: give each datagram the first's route too (a lone packet's path
 *	may answer it with a reset, which looks at the route)
 *
 * The slow path of a batch that cannot be queued whole (out of order,
 * CE, no socket, ...): each datagram after the first is rebuilt from the
 * first's headers and a copy of its payload, with the first's control
 * block (IP's, the CE mark), input interface and route; the first is
 * trimmed to its own payload.  Each header is the checked first one (DATA)
 * with its own seq and length, so it passes tonic_hdr_bad() too.  A
 * datagram without memory is dropped (a loss the sender repairs).
 *
 * Return: the first datagram, the others on its ->next; NULL if nothing
 * is left (@skb is freed).
 */
struct sk_buff *tonic_batch_detach(struct net *net, struct sk_buff *skb,
				   bool dst)
{
	u32 size = skb_shinfo(skb)->gso_size;
	u32 n = skb_shinfo(skb)->gso_segs;
	u32 first = TONIC_HDR_LEN + size;
	struct sk_buff *list = NULL, **tail = &list, *m;
	u32 i, off, len;

	/* A tap's clone shares the fragments and frag_list: take our own
	 * before trimming.
	 */
	if (skb_unclone(skb, GFP_ATOMIC))
		goto drop;
	for (i = 1, off = first; i < n && off < skb->len; i++, off += len) {
		len = min_t(u32, size, skb->len - off);
		m = tonic_batch_member(skb, i, off, len, dst);
		if (!m) {
			TONIC_INC_STATS(net, TONIC_MIB_DROP_MEM);
			continue;
		}
		*tail = m;
		tail = &m->next;
	}
	*tail = NULL;
	skb_shinfo(skb)->gso_size = 0;
	skb_shinfo(skb)->gso_segs = 0;
	skb_shinfo(skb)->gso_type = 0;
	skb->encapsulation = 0;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	TONIC_SKB_CB(skb)->batch = 0;
	if (pskb_trim(skb, first))
		goto drop;
	/* What it holds now: its head and the fragments left. */
	skb->truesize = SKB_TRUESIZE(skb_end_offset(skb)) + skb->data_len;
	tonic_hdr(skb)->flags &= ~TONIC_F_ACKREQ;
	skb->next = list;
	return skb;
drop:
	TONIC_INC_STATS(net, TONIC_MIB_DROP_MEM);
	kfree_skb(skb);
	return list;
}
