// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the UDP wire.
 *
 * With net.tonic.encap = 1 a connection's packets travel as
 * IP | UDP (sport H, dport P) | Tonic header | segment.  P is
 * net.tonic.udp_port, the same at both ends (as VXLAN's port); H is a
 * keyed hash of the connection's addresses and Tonic ports, so NIC RSS
 * and ECMP spread connections as they spread TCP flows.  Demux stays on
 * the Tonic header: the UDP ports are carriage and entropy only.
 *
 * Each namespace has one kernel UDP socket per family bound to P, with
 * encap_rcv set (as FOU's): the UDP layer has verified the datagram's
 * checksum, the UDP header is pulled and the packet goes to the Tonic
 * demux as if it had come in raw IP.  Their GRO callbacks (gro.c) merge
 * a connection's DATA datagrams into batches.  ICMP errors come back
 * through the encap_err hooks.  The sockets are opened with the namespace and when a
 * socket connects or listens; a port that cannot be bound leaves the
 * namespace on raw IP (logged, counted in UdpFallback).
 *
 * The setup_udp_tunnel_sock() lines are copied rather than called, so
 * that tonic.ko does not depend on udp_tunnel.ko.
 */
#include <linux/jhash.h>
#include <linux/net.h>
#include <linux/udp.h>
#include <net/inet_connection_sock.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <net/xfrm.h>

#include "protocol.h"

static u32 tonic_udp_secret __read_mostly;

/* As RoCEv2's source port (rxe): the top 14 bits over 49152. */
static __be16 tonic_udp_port_of(u32 hash)
{
	return htons(49152 + (hash >> 18));
}

/**
 * tonic_udp4_sport() - the UDP source port of an IPv4 Tonic flow
 * @saddr: local address
 * @daddr: remote address
 * @sport: local Tonic port
 * @dport: remote Tonic port
 *
 * Return: a port in 49152..65535, fixed for the four values.
 */
__be16 tonic_udp4_sport(__be32 saddr, __be32 daddr, __be16 sport,
			__be16 dport)
{
	net_get_random_once(&tonic_udp_secret, sizeof(tonic_udp_secret));
	return tonic_udp_port_of(jhash_3words((__force u32)saddr,
					      (__force u32)daddr,
					      (__force u32)sport << 16 |
					      (__force u32)dport,
					      tonic_udp_secret));
}

/**
 * tonic_udp6_sport() - tonic_udp4_sport() for IPv6
 * @saddr: local address
 * @daddr: remote address
 * @sport: local Tonic port
 * @dport: remote Tonic port
 *
 * Return: a port in 49152..65535.
 */
__be16 tonic_udp6_sport(const struct in6_addr *saddr,
			const struct in6_addr *daddr, __be16 sport,
			__be16 dport)
{
	net_get_random_once(&tonic_udp_secret, sizeof(tonic_udp_secret));
	return tonic_udp_port_of(jhash_3words(ipv6_addr_hash(saddr),
					      ipv6_addr_hash(daddr),
					      (__force u32)sport << 16 |
					      (__force u32)dport,
					      tonic_udp_secret));
}

/**
 * tonic_udp_set_sport() - set the UDP source port of a connection
 * @sk: a connection with its addresses and ports set
 *
 * The port is a keyed hash of the addresses and Tonic ports, in
 * 49152..65535 (as RoCEv2's); the hash is also sk_txhash.
 */
void tonic_udp_set_sport(struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);
	struct tonic_sock *tsk = tonic_sk(sk);
	__be16 port;

#if IS_ENABLED(CONFIG_IPV6)
	/* (an IPv4-mapped socket's packets are IPv4: as the SYN-ACK's) */
	if (sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr))
		port = tonic_udp6_sport(&sk->sk_v6_rcv_saddr, &sk->sk_v6_daddr,
					inet->inet_sport, inet->inet_dport);
	else
#endif
		port = tonic_udp4_sport(inet->inet_saddr, inet->inet_daddr,
					inet->inet_sport, inet->inet_dport);
	tsk->udp_sport = port;
	/* XPS and the IPv6 flow label follow the same flow. */
	WRITE_ONCE(sk->sk_txhash, (u32)ntohs(port) << 16 | ntohs(port));
}

/*
 * The Tonic input of a datagram for @usk, a tunnel socket, at its UDP
 * header and checked by the UDP layer (or by tonic_udp_deliver()); @sk
 * its connection with a reference, or NULL to look it up.
 */
static __always_inline int tonic_udp_input(struct sock *usk,
					   struct sk_buff *skb,
					   struct sock *sk)
{
	bool batch = false;

	/* udp_queue_rcv_one_skb() verified the checksum (UdpInCsumErrors). */
	__skb_pull(skb, sizeof(struct udphdr));
	skb_postpull_rcsum(skb, udp_hdr(skb), sizeof(struct udphdr));
	skb_reset_transport_header(skb);
	/* A batch of datagrams from tonic_gro_complete() (gro.c): the only
	 * GSO skb that reaches encap_rcv (udp_unexpected_gso() segments
	 * UDP_L4 and fraglist ones first).
	 */
	if (skb_is_gso(skb) &&
	    (skb_shinfo(skb)->gso_type &
	     (SKB_GSO_UDP_TUNNEL | SKB_GSO_UDP_TUNNEL_CSUM))) {
		if (!tonic_batch_len(skb)) {
			TONIC_INC_STATS(sock_net(usk), TONIC_MIB_DROP_MALFORMED);
			kfree_skb(skb);
			return 0;
		}
		batch = true;
	}
	TONIC_SKB_CB(skb)->udp = 1;
	TONIC_SKB_CB(skb)->batch = batch;
#if IS_ENABLED(CONFIG_IPV6)
	if (usk->sk_family == AF_INET6)
		return tonic_demux_sk(skb, &tonic_ipv6_af_ops, sk);
#endif
	return tonic_demux_sk(skb, &tonic_ipv4_af_ops, sk);
}

static int tonic_udp_encap_rcv(struct sock *usk, struct sk_buff *skb)
{
	return tonic_udp_input(usk, skb, NULL);
}

/**
 * tonic_udp_deliver() - what the UDP input does with a datagram for the
 *	tunnel socket, for early demux's direct delivery (edemux.c)
 * @usk: the tunnel socket of the datagram's family
 * @skb: a datagram, not GSO, data at its UDP header, whose length is the
 *	datagram's and whose checksum is known good (or zero, on IPv4), so
 *	that UDP would neither trim it nor compute a sum
 * @sk: its connection, with a reference (consumed)
 *
 * As __udp4_lib_rcv() and udp_queue_rcv_one_skb() (their IPv6 twins):
 * the checksum state, the policy check for @usk, the conntrack reference
 * dropped and UdpInDatagrams, then the encapsulation's input.
 *
 * Return: 0 (the skb is consumed).
 */
int tonic_udp_deliver(struct sock *usk, struct sk_buff *skb, struct sock *sk)
{
	struct udphdr *uh = udp_hdr(skb);
	struct net *net = sock_net(usk);

#if IS_ENABLED(CONFIG_IPV6)
	if (usk->sk_family == AF_INET6) {
		/* udp6_csum_init() */
		skb_checksum_init_zero_check(skb, IPPROTO_UDP, uh->check,
					     ip6_compute_pseudo);
		if (unlikely(!xfrm6_policy_check(usk, XFRM_POLICY_IN, skb))) {
			__UDP6_INC_STATS(net, UDP_MIB_INERRORS, 0);
			goto drop;
		}
		nf_reset_ct(skb);
		__UDP6_INC_STATS(net, UDP_MIB_INDATAGRAMS, 0);
		return tonic_udp_input(usk, skb, sk);
	}
#endif
	/* udp4_csum_init() */
	skb_checksum_init_zero_check(skb, IPPROTO_UDP, uh->check,
				     inet_compute_pseudo);
	if (unlikely(!xfrm4_policy_check(usk, XFRM_POLICY_IN, skb))) {
		__UDP_INC_STATS(net, UDP_MIB_INERRORS, 0);
		goto drop;
	}
	nf_reset_ct(skb);
	__UDP_INC_STATS(net, UDP_MIB_INDATAGRAMS, 0);
	return tonic_udp_input(usk, skb, sk);

drop:
	atomic_inc(&usk->sk_drops);
	kfree_skb_reason(skb, SKB_DROP_REASON_XFRM_POLICY);
	sock_put(sk);
	return 0;
}

/* Any ICMP error for port P is ours; the Tonic lookup follows. */
static int tonic_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

static void tonic_udp_err_rcv(struct sock *sk, struct sk_buff *skb, int err,
			      __be16 port, u32 info, u8 *payload)
{
	int offset = payload - skb->data;

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		tonic_v6_udp_err(skb, info, offset);
		return;
	}
#endif
	tonic_v4_udp_err(skb, info, offset);
}

static struct socket *tonic_udp_open(struct net *net, int family, u16 port)
{
	struct sockaddr_storage addr = {};
	struct socket *sock;
	struct sock *sk;
	int len, err;

	err = sock_create_kern(net, family, SOCK_DGRAM, IPPROTO_UDP, &sock);
	if (err)
		return ERR_PTR(err);
	sk = sock->sk;
	if (family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&addr;

		ip6_sock_set_v6only(sk);
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&addr;

		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		len = sizeof(*a4);
		/* A "fragmentation needed" quoting a datagram to P would
		 * otherwise lower the route's MTU in __udp4_lib_err() before
		 * Tonic checks that it quotes a packet in flight; Tonic
		 * lowers it itself (tonic_v4_udp_err()).  IPv6 cannot opt
		 * out so (the hook is not called for an OMIT socket).
		 */
		ip_sock_set_mtu_discover(sk, IP_PMTUDISC_OMIT);
	}
	err = kernel_bind(sock, (struct sockaddr *)&addr, len);
	if (err) {
		sock_release(sock);
		return ERR_PTR(err);
	}
	/* setup_udp_tunnel_sock(), but for inet_inc_convert_csum(): no
	 * checksum inside the datagram wants a GRO batch's verified UDP
	 * checksum turned into CHECKSUM_COMPLETE (which would cost a
	 * csum_partial() on the UDP header in tonic_udp_encap_rcv()).
	 */
	inet_clear_bit(MC_LOOP, sk);
	WRITE_ONCE(udp_sk(sk)->encap_err_lookup, tonic_udp_err_lookup);
	WRITE_ONCE(udp_sk(sk)->encap_err_rcv, tonic_udp_err_rcv);
	WRITE_ONCE(udp_sk(sk)->encap_rcv, tonic_udp_encap_rcv);
	WRITE_ONCE(udp_sk(sk)->gro_receive, tonic_gro_receive);
	WRITE_ONCE(udp_sk(sk)->gro_complete, tonic_gro_complete);
	WRITE_ONCE(udp_sk(sk)->encap_type, 1);
	udp_tunnel_encap_enable(sk);
	return sock;
}

static void tonic_udp_release(struct socket *sock)
{
	/* RCU-freed; module exit waits for encap_rcv callers. */
	if (sock) {
		kernel_sock_shutdown(sock, SHUT_RDWR);
		sock_release(sock);
	}
}

/*
 * Bind both families to @port, or neither, then let go of the old port.
 * On failure the old sockets stay, so connections using them keep
 * receiving.  Called with udp_lock.
 */
static void tonic_udp_bind(struct tonic_net *tn, int port)
{
	struct socket *sock4, *sock6 = NULL;

	sock4 = tonic_udp_open(tn->net, AF_INET, port);
	if (IS_ERR(sock4))
		goto fail;
#if IS_ENABLED(CONFIG_IPV6)
	sock6 = tonic_udp_open(tn->net, AF_INET6, port);
	if (PTR_ERR_OR_ZERO(sock6) == -EAFNOSUPPORT)	/* ipv6.disable=1 */
		sock6 = NULL;
	if (IS_ERR(sock6)) {
		tonic_udp_release(sock4);
		sock4 = sock6;
		goto fail;
	}
#endif
	tonic_udp_release(tn->udp_sock4);
	tonic_udp_release(tn->udp_sock6);
	tn->udp_sock4 = sock4;
	tn->udp_sock6 = sock6;
	tn->udp_bound = port;
	tn->udp_failed = 0;
	return;
fail:
	if (tn->udp_failed != port)
		pr_notice("tonic: UDP port %d unavailable in a namespace (%ld): its new connections use raw IP protocol %d\n",
			  port, PTR_ERR(sock4), tonic_protocol);
	tn->udp_failed = port;
}

/**
 * tonic_udp_choose() - the wire of a new connection of @sk
 * @sk: a socket about to connect or listen, in process context
 *
 * Opens (or moves) the namespace's UDP tunnel sockets when
 * net.tonic.encap asks for UDP, and sets tonic_sk(@sk)->udp: UDP if
 * asked for and the port is bound, else raw IP (counted in UdpFallback).
 * The namespace's first connection also turns early demux on.
 */
void tonic_udp_choose(struct sock *sk)
{
	struct tonic_net *tn = tonic_pernet(sock_net(sk));
	int port = READ_ONCE(tn->udp_port);
	bool udp = false;

	if (READ_ONCE(tn->encap) == TONIC_ENCAP_UDP) {
		mutex_lock(&tn->udp_lock);
		if (tn->udp_bound != port)
			tonic_udp_bind(tn, port);
		udp = tn->udp_bound == port;
		mutex_unlock(&tn->udp_lock);
		if (!udp)
			TONIC_INC_STATS(sock_net(sk), TONIC_MIB_UDP_FALLBACK);
	}
	tonic_sk(sk)->udp = udp;
	tonic_edemux_enable(sock_net(sk));
}

/**
 * tonic_udp_net_init() - open @net's UDP tunnel sockets if encap asks
 * @net: a new namespace, its settings at their defaults
 *
 * Return: 0; a port that cannot be bound leaves @net on raw IP.
 */
int tonic_udp_net_init(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	mutex_init(&tn->udp_lock);
	if (tn->encap == TONIC_ENCAP_UDP) {
		mutex_lock(&tn->udp_lock);
		tonic_udp_bind(tn, tn->udp_port);
		mutex_unlock(&tn->udp_lock);
	}
	return 0;
}

/**
 * tonic_udp_net_exit() - close @net's UDP tunnel sockets
 * @net: namespace going away
 */
void tonic_udp_net_exit(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	mutex_lock(&tn->udp_lock);
	tonic_udp_release(tn->udp_sock4);
	tonic_udp_release(tn->udp_sock6);
	tn->udp_sock4 = NULL;
	tn->udp_sock6 = NULL;
	tn->udp_bound = 0;
	mutex_unlock(&tn->udp_lock);
}

/*
 * Put the UDP header before a Tonic packet (whose own check stays 0: the
 * UDP checksum covers it), or before a GSO super-packet of them (gso.c:
 * each datagram's check is 0 already).  Return: the datagram's length.
 */
static int tonic_udp_push(struct sock *sk, struct sk_buff *skb, __be16 sport)
{
	struct tonic_net *tn = tonic_pernet(sock_net(sk));
	int len = skb->len + sizeof(struct udphdr);
	struct udphdr *uh;

	if (!skb_is_gso(skb))
		tonic_hdr(skb)->check = 0;
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = sport;
	uh->dest = htons(READ_ONCE(tn->udp_port));
	uh->len = htons(len);
	if (skb_is_gso(skb)) {
		/* udp_set_csum() puts the pseudo-header sum of @len in;
		 * __udp_gso_segment() makes it each datagram's own.
		 */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	} else {
		skb->ip_summed = CHECKSUM_NONE;
	}
	return len;
}

/**
 * tonic_udp4_output() - push UDP and IPv4 headers and send
 * @sk: the sending socket (a connection, listener or control socket)
 * @skb: packet at its Tonic header, with its route set
 * @saddr: source address
 * @daddr: destination address
 * @sport: UDP source port
 * @tos: IP TOS (ECN bits included)
 * @df: set the IP DF bit
 *
 * The UDP checksum covers the datagram; the Tonic checksum is 0.
 *
 * Return: as ip_local_out().
 */
int tonic_udp4_output(struct sock *sk, struct sk_buff *skb, __be32 saddr,
		      __be32 daddr, __be16 sport, u8 tos, bool df)
{
	struct net *net = sock_net(sk);
	struct iphdr *iph;

	udp_set_csum(false, skb, saddr, daddr, tonic_udp_push(sk, skb, sport));

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tos;
	iph->frag_off = df ? htons(IP_DF) : 0;
	iph->ttl = ip4_dst_hoplimit(skb_dst(skb));
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	/* One IP ID per datagram, as inet_gso_segment() numbers them. */
	ip_select_ident_segs(net, skb, sk, skb_shinfo(skb)->gso_segs ?: 1);

	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->protocol = htons(ETH_P_IP);
	skb->priority = READ_ONCE(sk->sk_priority);
	skb->mark = READ_ONCE(sk->sk_mark);
	return ip_local_out(net, sk, skb);
}

/**
 * tonic_udp4_queue_xmit() - icsk queue_xmit of an IPv4 UDP connection
 * @sk: the connection
 * @skb: packet at its Tonic header
 * @fl: the socket's flow (cork.fl)
 *
 * Return: as ip_queue_xmit().
 *
 * __ip_queue_xmit() for the UDP wire; the route is the socket's.
 */
int tonic_udp4_queue_xmit(struct sock *sk, struct sk_buff *skb,
			  struct flowi *fl)
{
	struct inet_sock *inet = inet_sk(sk);
	u8 tos = READ_ONCE(inet->tos);
	struct rtable *rt;
	int err;

	rcu_read_lock();
	rt = dst_rtable(__sk_dst_check(sk, 0));
	if (!rt) {
		rt = ip_route_output_ports(sock_net(sk), &fl->u.ip4, sk,
					   inet->inet_daddr, inet->inet_saddr,
					   inet->inet_dport, inet->inet_sport,
					   sk->sk_protocol, RT_TOS(tos),
					   sk->sk_bound_dev_if);
		if (IS_ERR(rt)) {
			rcu_read_unlock();
			kfree_skb(skb);
			return -EHOSTUNREACH;
		}
		sk_setup_caps(sk, &rt->dst);
	}
	skb_dst_set_noref(skb, &rt->dst);
	err = tonic_udp4_output(sk, skb, inet->inet_saddr, inet->inet_daddr,
				tonic_sk(sk)->udp_sport, tos,
				ip_dont_fragment(sk, &rt->dst) &&
				!skb->ignore_df);
	rcu_read_unlock();
	return err;
}

#if IS_ENABLED(CONFIG_IPV6)
/**
 * tonic_udp6_output() - push a UDP header and send with ip6_xmit()
 * @sk: the sending socket
 * @skb: packet at its Tonic header, with its route set
 * @fl6: the flow (addresses); its protocol becomes UDP
 * @sport: UDP source port
 * @opt: IPv6 options or NULL
 * @tclass: traffic class
 *
 * Return: as ip6_xmit().
 */
int tonic_udp6_output(struct sock *sk, struct sk_buff *skb,
		      struct flowi6 *fl6, __be16 sport,
		      struct ipv6_txoptions *opt, int tclass)
{
	udp6_set_csum(false, skb, &fl6->saddr, &fl6->daddr,
		      tonic_udp_push(sk, skb, sport));
	fl6->flowi6_proto = IPPROTO_UDP;
	return ip6_xmit(sk, skb, fl6, READ_ONCE(sk->sk_mark), opt, tclass,
			READ_ONCE(sk->sk_priority));
}

/**
 * tonic_udp6_queue_xmit() - icsk queue_xmit of an IPv6 UDP connection
 * @sk: the connection
 * @skb: packet at its Tonic header
 * @fl: unused (the route is the socket's)
 *
 * Return: as inet6_csk_xmit().
 *
 * inet6_csk_xmit() with its (static) inet6_csk_route_socket().
 */
int tonic_udp6_queue_xmit(struct sock *sk, struct sk_buff *skb,
			  struct flowi *fl)
{
	struct inet_sock *inet = inet_sk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);
	struct in6_addr *final_p, final;
	struct dst_entry *dst;
	struct flowi6 fl6;
	int err;

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_proto = sk->sk_protocol;
	fl6.daddr = sk->sk_v6_daddr;
	fl6.saddr = np->saddr;
	fl6.flowlabel = np->flow_label;
	IP6_ECN_flow_xmit(sk, fl6.flowlabel);
	fl6.flowi6_oif = sk->sk_bound_dev_if;
	fl6.flowi6_mark = sk->sk_mark;
	fl6.fl6_sport = inet->inet_sport;
	fl6.fl6_dport = inet->inet_dport;
	fl6.flowi6_uid = sk->sk_uid;
	security_sk_classify_flow(sk, flowi6_to_flowi_common(&fl6));

	rcu_read_lock();
	final_p = fl6_update_dst(&fl6, rcu_dereference(np->opt), &final);
	rcu_read_unlock();

	dst = __sk_dst_check(sk, np->dst_cookie);
	if (!dst) {
		dst = ip6_dst_lookup_flow(sock_net(sk), sk, &fl6, final_p);
		if (IS_ERR(dst)) {
			WRITE_ONCE(sk->sk_err_soft, -PTR_ERR(dst));
			sk->sk_route_caps = 0;
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		ip6_dst_store(sk, dst, NULL, NULL);
	}

	rcu_read_lock();
	skb_dst_set_noref(skb, dst);
	fl6.daddr = sk->sk_v6_daddr;
	err = tonic_udp6_output(sk, skb, &fl6, tonic_sk(sk)->udp_sport,
				rcu_dereference(np->opt), np->tclass);
	rcu_read_unlock();
	return err;
}
#endif
