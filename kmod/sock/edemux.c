// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: early demux, so that a connection's packets skip the
 * input route lookup and, on the UDP wire, the UDP socket lookup.
 *
 * TCP gets both from ip_rcv_finish_core(): its early_demux finds the
 * established socket and reuses the input route cached in sk_rx_dst.  That
 * hook is TCP's and UDP's only; UDP's finds connected sockets only, and
 * Tonic's tunnel sockets are bound to the wildcard address.  So each
 * family registers a netfilter PRE_ROUTING hook that does what TCP's
 * early demux does, for Tonic connections:
 *
 * - it looks the packet's connection up in the established table, by the
 *   Tonic ports (after the UDP header on the UDP wire);
 * - if the connection has cached the input route of its last packet from
 *   the same device (tonic_rx_dst_keep()) and the route is still valid,
 *   it attaches that route, so ip_rcv_finish_core() does not route;
 * - on the UDP wire it also attaches the namespace's tunnel socket as a
 *   prefetched socket (what bpf_sk_assign() does), so udp_rcv() takes it
 *   instead of looking the port up.
 *
 * The Tonic input then takes the connection the hook found instead of
 * looking the packet up again (tonic_edemux_sk()), when it can prove that
 * the packet is still the one the hook saw, in the same pass (below).
 *
 * Early delivery.  A datagram on the UDP wire with its route has
 * ip_rcv_finish(), ip_local_deliver() and udp_rcv() (or their IPv6
 * twins) left before the Tonic input: about 500 guest instructions a datagram, a tenth of a
 * segment's whole cost on an unsegmented path, for work that finds
 * nothing to do.  The hook then delivers the datagram to its connection
 * itself and steals it, when none of that code could see or change it:
 * - no LOCAL_IN hook is registered in the namespace (no input chain,
 *   conntrack or BPF netfilter program), and this hook is the last of
 *   PRE_ROUTING;
 * - no raw socket for UDP is open (it would get a copy of the datagram);
 * - the IP header has no options, the route is a local one whose input
 *   is ip_local_deliver() or ip6_input() (no lightweight tunnel's)
 *   without realm accounting, the UDP length is the packet's, the
 *   checksum is already verified (or zero, on IPv4), and the skb is one
 *   datagram (a GRO batch takes the usual way, once for all its
 *   datagrams).
 * The hook then does what that code would: IPv4's NOPOLICY mark, the
 * delivery time cleared, the header pulled, IP's InDelivers, and the UDP
 * part in tonic_udp_deliver() (the checksum state, the tunnel socket's
 * policy check, UDP's InDatagrams).  EarlyDeliver counts these
 * datagrams; any datagram that fails a condition goes the usual way.
 *
 * The hook runs after every other PRE_ROUTING hook, NAT included, so it
 * sees the addresses routing would.  It changes nothing else: a packet
 * that is not a Tonic connection's, or not for this host, is routed as
 * before (a namespace that forwards Tonic traffic has no socket for it).
 * net.ipv4.ip_early_demux turns it off, as it does TCP's and UDP's.
 * The hooks are registered when a namespace's first Tonic socket
 * connects or listens, and stay until the namespace goes away or
 * net.tonic.early_demux is set to 0.  Every IP packet of such a namespace
 * passes them; one that is neither UDP nor Tonic leaves after a compare
 * (plus netfilter's call: about 80 guest instructions per TCP segment
 * in the benchmark, which is why the switch removes the hooks).
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/udp.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/raw.h>
#include <net/rawv6.h>
#include <net/sock.h>

#include "protocol.h"

/**
 * __tonic_rx_dst_keep() - keep the input route of a connection's packets
 * @sk: a connection taking data, locked (or owned by the user)
 * @skb: a packet for it with a route: not the kept one, or an IPv6 one
 *	(tonic_rx_dst_keep() asks)
 *
 * As TCP's receive path (tcp_v4_do_rcv(), tcp_v6_do_rcv()): a kept route
 * that went stale or is for another device is dropped, and the packet's
 * own route kept instead, with the serial number IPv6 checks it against.
 * An IPv6 route can go stale (any change to the namespace's IPv6 routes)
 * and come back from routing as the same object: it is kept again with
 * the new serial number, else early demux would miss every later packet
 * of the connection.  The socket's destructor releases the last route.
 */
void __tonic_rx_dst_keep(struct sock *sk, const struct sk_buff *skb)
{
	struct dst_entry *old, *dst;

	old = rcu_dereference_protected(sk->sk_rx_dst,
					lockdep_sock_is_held(sk));
	if (old && likely(sk->sk_rx_dst_ifindex == skb->skb_iif &&
			  dst_check(old, sk->sk_rx_dst_cookie)))
		return;
	/* Held before @old is released: they may be one object. */
	dst = skb_dst(skb);
	if (dst && dst_hold_safe(dst)) {
		sk->sk_rx_dst_ifindex = skb->skb_iif;
#if IS_ENABLED(CONFIG_IPV6)
		if (skb->protocol == htons(ETH_P_IPV6))
			sk->sk_rx_dst_cookie =
				rt6_get_cookie(dst_rt6_info(dst));
#endif
	} else {
		dst = NULL;
	}
	rcu_assign_pointer(sk->sk_rx_dst, dst);
	dst_release(old);
}

/**
 * tonic_rx_dst_forget() - drop the cached input route
 * @sk: a connection going back to CLOSE, locked
 */
void tonic_rx_dst_forget(struct sock *sk)
{
	dst_release(unrcu_pointer(xchg(&sk->sk_rx_dst, NULL)));
}

/*
 * The Tonic ports of @skb, whose @proto header starts at @off, and the
 * tunnel socket to prefetch on the UDP wire.  Return: false if the
 * packet is not a Tonic one.  The caller reads its IP header again: the
 * pull may move it.
 */
static __always_inline bool
tonic_edemux_ports(struct sk_buff *skb, u8 proto, u32 off,
		   struct socket *tunnel, __be16 *ports, struct sock **usk)
{
	const __be16 *p;

	*usk = NULL;
	if (proto == IPPROTO_UDP) {
		const struct udphdr *uh;
		struct udphdr _uh;

		/* A port change closes the tunnel under us: both the
		 * socket and its sock are freed after a grace period.
		 */
		*usk = tunnel ? READ_ONCE(tunnel->sk) : NULL;
		if (!*usk)
			return false;
		uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
		if (!uh || uh->dest != inet_sk(*usk)->inet_sport)
			return false;
		off += sizeof(*uh);
	} else if (proto != tonic_protocol) {
		return false;
	}
	/* Pulled here rather than copied (its first four bytes are the
	 * ports): the Tonic input wants it linear anyway.
	 */
	if (!tonic_pull_hdr(skb, off + TONIC_HDR_LEN))
		return false;
	p = (const __be16 *)(skb->data + off);
	ports[0] = p[0];
	ports[1] = p[1];
	return true;
}

/*
 * The connection the hook found for the packet this CPU is receiving,
 * held without a reference: valid only while that packet's reception
 * goes on (one RCU read-side section, as the noref route it got).  The
 * Tonic input takes it (tonic_edemux_sk()) only if all of these still
 * hold, else it looks the packet up as before:
 * - the input runs with BHs off (so on the hook's CPU, not preempted);
 * - it is the same skb, with the same noref route: anything that defers
 *   a packet past the section (a queue, a backlog) takes a reference on
 *   its route first (skb_dst_force()), which clears the noref bit;
 * - this CPU has not begun receiving another packet since
 *   (softnet_data.processed counts them in __netif_receive_skb_core()),
 *   which also rules out a stale hint for a recycled skb address.
 * The sockets are SLAB_TYPESAFE_BY_RCU, so within the section the
 * object is a Tonic socket, but perhaps another connection's by now: as
 * __inet_lookup_established(), the input takes a reference only if the
 * count is not zero and then checks the addresses and ports again.
 */
struct tonic_edemux_hint {
	const struct sk_buff *skb;
	unsigned long refdst;
	struct sock *sk;
	unsigned int round;
};

static DEFINE_PER_CPU(struct tonic_edemux_hint, tonic_edemux_hint);

static __always_inline void tonic_edemux_hint_set(struct sk_buff *skb,
						  struct sock *sk)
{
	struct tonic_edemux_hint *h;

	if (!in_softirq())
		return;
	h = this_cpu_ptr(&tonic_edemux_hint);
	h->skb = skb;
	h->refdst = skb->_skb_refdst;
	h->sk = sk;
	h->round = __this_cpu_read(softnet_data.processed);
}

/* Is @sk the connection of @skb, as the input's own lookup asks? */
static bool tonic_edemux_match(const struct net *net, const struct sock *sk,
			       const struct sk_buff *skb,
			       const struct tonichdr *th)
{
	const __portpair ports = INET_COMBINED_PORTS(th->source,
						     ntohs(th->dest));

#if IS_ENABLED(CONFIG_IPV6)
	if (skb->protocol == htons(ETH_P_IPV6))
		return inet6_match(net, sk, &ipv6_hdr(skb)->saddr,
				   &ipv6_hdr(skb)->daddr, ports,
				   inet6_iif(skb), inet6_sdif(skb));
#endif
	{
		INET_ADDR_COOKIE(acookie, ip_hdr(skb)->saddr,
				 ip_hdr(skb)->daddr);

		return inet_match(net, sk, acookie, ports, inet_iif(skb),
				  inet_sdif(skb));
	}
}

/**
 * tonic_edemux_sk() - the connection early demux found for @skb
 * @net: the namespace @skb arrived in
 * @skb: a received packet at its checked Tonic header
 * @th: that header
 *
 * Return: the connection, with a reference, if the hook found it for this
 * very packet in this pass (see struct tonic_edemux_hint); else NULL, and
 * the caller looks the packet up.
 */
struct sock *tonic_edemux_sk(const struct net *net, struct sk_buff *skb,
			     const struct tonichdr *th)
{
	struct tonic_edemux_hint *h;
	struct sock *sk;

	if (!(skb->_skb_refdst & SKB_DST_NOREF) || !in_softirq())
		return NULL;
	h = this_cpu_ptr(&tonic_edemux_hint);
	if (h->skb != skb)
		return NULL;
	h->skb = NULL;
	if (h->refdst != skb->_skb_refdst ||
	    h->round != __this_cpu_read(softnet_data.processed))
		return NULL;
	sk = h->sk;
	if (unlikely(!refcount_inc_not_zero(&sk->sk_refcnt)))
		return NULL;
	if (unlikely(sk_unhashed(sk) || !tonic_edemux_match(net, sk, skb, th))) {
		sock_gen_put(sk);
		return NULL;
	}
	return sk;
}

/*
 * Attach @sk's cached route, if still valid, to @skb, a packet for it.
 * Return: false if it had none to give.
 */
static __always_inline bool tonic_edemux_route(struct sk_buff *skb,
					       struct sock *sk)
{
	struct dst_entry *dst;

	/* A timewait or request sock keeps no route. */
	if (!sk_fullsock(sk))
		return false;
	dst = rcu_dereference(sk->sk_rx_dst);
	if (!dst || sk->sk_rx_dst_ifindex != skb->skb_iif)
		return false;
	dst = dst_check(dst, sk->sk_rx_dst_cookie);
	if (!dst)
		return false;
	skb_dst_set_noref(skb, dst);
	TONIC_SK_INC_STATS(sk, TONIC_MIB_EARLY_DEMUX);
	return true;
}

/*
 * Attach the tunnel socket @usk, if any, to @skb, which has @sk's route
 * (tonic_edemux_route()), and leave @sk for the input.  Consumes the
 * lookup's reference on @sk.
 */
static __always_inline void
tonic_edemux_attach(struct sk_buff *skb, struct sock *sk, struct sock *usk)
{
	/* UDP sockets are RCU-freed: the prefetch holds no reference. */
	if (usk) {
		skb->sk = usk;
		skb->destructor = sock_pfree;
	}
	tonic_edemux_hint_set(skb, sk);
	sock_put(sk);		/* sock_gen_put() of a full socket, inline */
}

/*
 * Would nothing between this hook and UDP see a datagram of the family
 * whose netfilter hooks are @hooks and raw sockets @raw: no LOCAL_IN
 * hook, no PRE_ROUTING hook after this one, no raw UDP socket?
 */
static __always_inline bool
tonic_deliver_unseen(const struct net *net,
		     struct nf_hook_entries __rcu *const *hooks,
		     const struct raw_hashinfo *raw, const struct tonic_net *tn)
{
	const struct nf_hook_entries *e;

	if (rcu_access_pointer(hooks[NF_INET_LOCAL_IN]))
		return false;
	e = rcu_dereference(hooks[NF_INET_PRE_ROUTING]);
	if (e->hooks[e->num_hook_entries - 1].priv != tn)
		return false;
	return hlist_empty(&raw->ht[raw_hashfunc(net, IPPROTO_UDP)]);
}

/*
 * May the hook deliver @skb, an IPv4 datagram on the UDP wire with its
 * connection's route, itself (see the file comment)?  Everything that
 * ip_rcv_finish(), ip_local_deliver() and udp_rcv() would look at.
 */
static __always_inline bool tonic_v4_deliver_ok(const struct net *net,
						const struct sk_buff *skb,
						const struct tonic_net *tn)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct udphdr *uh = (const struct udphdr *)(iph + 1);
	const struct rtable *rt = skb_rtable(skb);

	/* dst_input() would be ip_local_deliver(), not an lwtunnel's. */
	if (iph->ihl != 5 || rt->dst.input != ip_local_deliver ||
	    rt->rt_type != RTN_LOCAL || skb_is_gso(skb) ||
	    ntohs(uh->len) != skb->len - sizeof(*iph) ||
	    (uh->check && !skb_csum_unnecessary(skb)))
		return false;
#ifdef CONFIG_IP_ROUTE_CLASSID
	if (rt->dst.tclassid)
		return false;
#endif
	return tonic_deliver_unseen(net, net->nf.hooks_ipv4, &raw_v4_hashinfo,
				    tn);
}

/*
 * Deliver @skb to @sk (its reference consumed) through the tunnel socket
 * @usk, doing what the IPv4 code skipped would have done.
 */
static unsigned int tonic_v4_deliver(struct net *net, struct sk_buff *skb,
				     struct sock *sk, struct sock *usk)
{
	struct in_device *in_dev = __in_dev_get_rcu(skb->dev);

	/* ip_rcv_finish_core(), for a packet with a route */
	if (in_dev && IN_DEV_ORCONF(in_dev, NOPOLICY))
		IPCB(skb)->flags |= IPSKB_NOPOLICY;
	/* ip_local_deliver_finish() and ip_protocol_deliver_rcu() */
	skb_clear_delivery_time(skb);
	__skb_pull(skb, sizeof(struct iphdr));
	TONIC_SK_INC_STATS(sk, TONIC_MIB_EARLY_DELIVER);
	tonic_udp_deliver(usk, skb, sk);
	__IP_INC_STATS(net, IPSTATS_MIB_INDELIVERS);
	return NF_STOLEN;
}

#if IS_ENABLED(CONFIG_IPV6)
/*
 * tonic_v4_deliver_ok() for IPv6 (no extension headers: the hook took
 * none): what ip6_rcv_finish(), ip6_input() and udpv6_rcv() would look
 * at.  IPv6 allows no zero UDP checksum here.
 */
static __always_inline bool tonic_v6_deliver_ok(const struct net *net,
						const struct sk_buff *skb,
						const struct tonic_net *tn)
{
	const struct udphdr *uh = (const struct udphdr *)(ipv6_hdr(skb) + 1);

	if (skb_dst(skb)->input != ip6_input || skb_is_gso(skb) ||
	    ntohs(uh->len) != skb->len - sizeof(struct ipv6hdr) ||
	    !uh->check || !skb_csum_unnecessary(skb))
		return false;
	return tonic_deliver_unseen(net, net->nf.hooks_ipv6, &raw_v6_hashinfo,
				    tn);
}

/* tonic_v4_deliver() for IPv6. */
static unsigned int tonic_v6_deliver(struct net *net, struct sk_buff *skb,
				     struct sock *sk, struct sock *usk)
{
	struct inet6_dev *idev = ip6_dst_idev(skb_dst(skb));

	/* ip6_input_finish() and ip6_protocol_deliver_rcu() */
	skb_clear_delivery_time(skb);
	__skb_pull(skb, sizeof(struct ipv6hdr));
	skb_postpull_rcsum(skb, skb_network_header(skb),
			   sizeof(struct ipv6hdr));
	TONIC_SK_INC_STATS(sk, TONIC_MIB_EARLY_DELIVER);
	tonic_udp_deliver(usk, skb, sk);
	__IP6_INC_STATS(net, idev, IPSTATS_MIB_INDELIVERS);
	return NF_STOLEN;
}
#endif

/* First, so that other traffic pays the least: UDP or raw Tonic? */
static bool tonic_edemux_proto(u8 proto)
{
	return proto == IPPROTO_UDP || proto == tonic_protocol;
}

/*
 * What ip_rcv_finish_core()'s own early demux asks of a packet; and not
 * a frame a bridge passes through these hooks (br_netfilter), which
 * routing never sees.
 */
static __always_inline bool tonic_edemux_wanted(const struct net *net, struct sk_buff *skb)
{
	return READ_ONCE(net->ipv4.sysctl_ip_early_demux) &&
	       skb->pkt_type == PACKET_HOST && !skb_dst(skb) && !skb->sk &&
	       !netif_is_l3_slave(skb->dev) && !nf_bridge_in_prerouting(skb);
}

static unsigned int tonic_v4_edemux(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct tonic_net *tn = priv;
	struct sock *sk, *usk;
	__be16 ports[2];

	if (!tonic_edemux_proto(iph->protocol) ||
	    !tonic_edemux_wanted(state->net, skb) || ip_is_fragment(iph) ||
	    !tonic_edemux_ports(skb, iph->protocol, ip_hdrlen(skb),
				READ_ONCE(tn->udp_sock4), ports, &usk))
		return NF_ACCEPT;
	iph = ip_hdr(skb);
	sk = __inet_lookup_established(state->net, &tonic_hashinfo,
				       iph->saddr, ports[0], iph->daddr,
				       ntohs(ports[1]), skb->skb_iif, 0);
	if (!sk)
		return NF_ACCEPT;
	if (!tonic_edemux_route(skb, sk)) {
		sock_gen_put(sk);
		return NF_ACCEPT;
	}
	if (usk && tonic_v4_deliver_ok(state->net, skb, tn))
		return tonic_v4_deliver(state->net, skb, sk, usk);
	tonic_edemux_attach(skb, sk, usk);
	return NF_ACCEPT;
}

#if IS_ENABLED(CONFIG_IPV6)
static unsigned int tonic_v6_edemux(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	const struct tonic_net *tn = priv;
	struct sock *sk, *usk;
	__be16 ports[2];

	/* No extension headers: the common case, as for GRO. */
	if (!tonic_edemux_proto(ip6h->nexthdr) ||
	    !tonic_edemux_wanted(state->net, skb) ||
	    !tonic_edemux_ports(skb, ip6h->nexthdr, sizeof(*ip6h),
				READ_ONCE(tn->udp_sock6), ports, &usk))
		return NF_ACCEPT;
	ip6h = ipv6_hdr(skb);
	sk = __inet6_lookup_established(state->net, &tonic_hashinfo,
					&ip6h->saddr, ports[0], &ip6h->daddr,
					ntohs(ports[1]), inet6_iif(skb), 0);
	if (!sk)
		return NF_ACCEPT;
	if (!tonic_edemux_route(skb, sk)) {
		sock_gen_put(sk);
		return NF_ACCEPT;
	}
	if (usk && tonic_v6_deliver_ok(state->net, skb, tn))
		return tonic_v6_deliver(state->net, skb, sk, usk);
	tonic_edemux_attach(skb, sk, usk);
	return NF_ACCEPT;
}
#endif

/*
 * After every other hook (NAT's included): see the file comment.  Each
 * namespace registers a copy whose priv is its struct tonic_net.
 */
static const struct nf_hook_ops tonic_edemux_ops[] = {
	{
		.hook		= tonic_v4_edemux,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP_PRI_LAST,
	},
#if IS_ENABLED(CONFIG_IPV6)
	{
		.hook		= tonic_v6_edemux,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP6_PRI_LAST,
	},
#endif
};

/* Called with udp_lock. */
static void __tonic_edemux_sync(struct net *net, struct tonic_net *tn)
{
	bool want = tn->edemux_used && READ_ONCE(tn->early_demux);
	int i;

	BUILD_BUG_ON(sizeof(tn->edemux_ops) < sizeof(tonic_edemux_ops));
	if (want == tn->edemux_on)
		return;
	if (want) {
		memcpy(tn->edemux_ops, tonic_edemux_ops,
		       sizeof(tonic_edemux_ops));
		for (i = 0; i < ARRAY_SIZE(tonic_edemux_ops); i++)
			tn->edemux_ops[i].priv = tn;
		if (nf_register_net_hooks(net, tn->edemux_ops,
					  ARRAY_SIZE(tonic_edemux_ops)))
			return;		/* no early demux, nothing else lost */
	} else {
		nf_unregister_net_hooks(net, tn->edemux_ops,
					ARRAY_SIZE(tonic_edemux_ops));
	}
	WRITE_ONCE(tn->edemux_on, want);
}

/**
 * tonic_edemux_enable() - a Tonic socket connects or listens in @net
 * @net: its namespace
 *
 * Registers the namespace's hooks the first time, if net.tonic.early_demux
 * is on: namespaces without Tonic connections keep their packets off them.
 */
void tonic_edemux_enable(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	if (READ_ONCE(tn->edemux_used))
		return;
	mutex_lock(&tn->udp_lock);
	tn->edemux_used = true;
	__tonic_edemux_sync(net, tn);
	mutex_unlock(&tn->udp_lock);
}

/**
 * tonic_edemux_sync() - net.tonic.early_demux was written
 * @net: the namespace
 *
 * Registers or removes the hooks to match; in process context.
 */
void tonic_edemux_sync(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	mutex_lock(&tn->udp_lock);
	__tonic_edemux_sync(net, tn);
	mutex_unlock(&tn->udp_lock);
}

/**
 * tonic_edemux_net_exit() - remove @net's hooks (after a grace period)
 * @net: namespace going away
 */
void tonic_edemux_net_exit(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	mutex_lock(&tn->udp_lock);
	tn->edemux_used = false;
	__tonic_edemux_sync(net, tn);
	mutex_unlock(&tn->udp_lock);
}
