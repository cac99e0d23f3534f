// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: IPv6 glue.
 *
 * The IPv6 counterpart of ipv4.c (registration, connect() and the
 * struct tonic_af_ops the family-independent handshake and demux use),
 * modelled on net/dccp/ipv6.c.
 *
 * Dual stack as TCP's (net/ipv6/tcp_ipv6.c): a socket without
 * IPV6_V6ONLY (net.ipv6.bindv6only, 0 by default) connects to
 * IPv4-mapped addresses over IPv4 (tonic_ipv6_mapped: IPv4's hooks,
 * IPv6's socket options and addresses), and its listener takes IPv4 SYNs
 * (the listen lookup finds it through ipv6_only_sock()), whose request
 * socks and children are IPv4's; addresses read as ::ffff:a.b.c.d.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <net/icmp.h>
#include <net/inet6_connection_sock.h>
#include <net/inet6_hashtables.h>
#include <net/inet_common.h>
#include <net/inet_ecn.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>
#include <net/transp_v6.h>
#include <net/xfrm.h>

#include "protocol.h"
#include "compat.h"

struct tonic6_sock {
	struct tonic_sock tonic;
	struct ipv6_pinfo inet6;
};

/* IPv4-mapped sockets: filled in from IPv4's by tonic_ipv6_init(). */
static struct tonic_af_ops tonic_ipv6_mapped __ro_after_init;

/* Packets that are no connection's (SYN-ACK, reset): in software. */
static void tonic_v6_csum(struct sk_buff *skb, const struct in6_addr *saddr,
			  const struct in6_addr *daddr)
{
	struct tonichdr *th = tonic_hdr(skb);
	int off = skb_transport_offset(skb);
	__wsum csum;

	th->check = 0;
	csum = skb_checksum(skb, off, skb->len - off, 0);
	th->check = csum_ipv6_magic(saddr, daddr, skb->len - off,
				    tonic_protocol, csum);
	skb->ip_summed = CHECKSUM_NONE;
}

/* As tonic_v4_send_check(): the checksum is left to the device. */
static void tonic_v6_send_check(struct sock *sk, struct sk_buff *skb)
{
	struct tonichdr *th = tonic_hdr(skb);
	int len = skb->len - skb_transport_offset(skb);

	if (tonic_sk(sk)->udp)		/* the UDP checksum covers it all */
		return;
	th->check = ~csum_ipv6_magic(&inet6_sk(sk)->saddr, &sk->sk_v6_daddr,
				     len, tonic_protocol, 0);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct tonichdr, check);
}

static int tonic_v6_queue_xmit(struct sock *sk, struct sk_buff *skb,
			       struct flowi *fl)
{
	if (tonic_sk(sk)->udp)
		return tonic_udp6_queue_xmit(sk, skb, fl);
	return inet6_csk_xmit(sk, skb, fl);
}

/*
 * connect() to ::ffff:a.b.c.d: IPv4's connect() with the socket switched
 * to IPv4's hooks, as tcp_v6_connect().  The socket stays AF_INET6.
 */
static int tonic_v6_connect_mapped(struct sock *sk,
				   const struct sockaddr_in6 *usin)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	u32 exthdrlen = icsk->icsk_ext_hdr_len;
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = usin->sin6_port,
		.sin_addr.s_addr = usin->sin6_addr.s6_addr32[3],
	};
	int err;

	if (ipv6_only_sock(sk))
		return -ENETUNREACH;
	sk->sk_v6_daddr = usin->sin6_addr;
	WRITE_ONCE(icsk->icsk_af_ops, &tonic_ipv6_mapped.icsk);
	err = tonic_v4_prot.connect(sk, (struct sockaddr *)&sin, sizeof(sin));
	if (err) {
		icsk->icsk_ext_hdr_len = exthdrlen;
		WRITE_ONCE(icsk->icsk_af_ops, &tonic_ipv6_af_ops.icsk);
		return err;
	}
	inet6_sk(sk)->saddr = sk->sk_v6_rcv_saddr;
	return 0;
}

static int tonic_v6_connect(struct sock *sk, struct sockaddr *uaddr,
			    int addr_len)
{
	struct sockaddr_in6 *usin = (struct sockaddr_in6 *)uaddr;
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct ipv6_pinfo *np = inet6_sk(sk);
	struct inet_sock *inet = inet_sk(sk);
	struct tonic_sock *tsk = tonic_sk(sk);
	struct in6_addr *saddr = NULL, *final_p, final;
	struct ipv6_txoptions *opt;
	struct dst_entry *dst;
	struct flowi6 fl6;
	int addr_type, err;

	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (usin->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;

	memset(&fl6, 0, sizeof(fl6));
	if (ipv6_addr_any(&usin->sin6_addr)) {
		if (ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
			ipv6_addr_set_v4mapped(htonl(INADDR_LOOPBACK),
					       &usin->sin6_addr);
		else
			usin->sin6_addr = in6addr_loopback;
	}
	addr_type = ipv6_addr_type(&usin->sin6_addr);
	if (addr_type & IPV6_ADDR_MULTICAST)
		return -ENETUNREACH;
	if (addr_type == IPV6_ADDR_MAPPED)
		return tonic_v6_connect_mapped(sk, usin);
	if (addr_type & IPV6_ADDR_LINKLOCAL) {
		if (addr_len >= sizeof(struct sockaddr_in6) &&
		    usin->sin6_scope_id) {
			if (sk->sk_bound_dev_if &&
			    sk->sk_bound_dev_if != usin->sin6_scope_id)
				return -EINVAL;
			sk->sk_bound_dev_if = usin->sin6_scope_id;
		}
		if (!sk->sk_bound_dev_if)
			return -EINVAL;
	}

	sk->sk_v6_daddr = usin->sin6_addr;
	np->flow_label = 0;
	/* (a socket disconnected after a mapped connect()) */
	WRITE_ONCE(icsk->icsk_af_ops, &tonic_ipv6_af_ops.icsk);

	if (!ipv6_addr_any(&sk->sk_v6_rcv_saddr))
		saddr = &sk->sk_v6_rcv_saddr;

	fl6.flowi6_proto = sk->sk_protocol;
	fl6.daddr = sk->sk_v6_daddr;
	fl6.saddr = saddr ? *saddr : np->saddr;
	fl6.flowi6_oif = sk->sk_bound_dev_if;
	fl6.fl6_dport = usin->sin6_port;
	fl6.fl6_sport = inet->inet_sport;
	security_sk_classify_flow(sk, flowi6_to_flowi_common(&fl6));

	opt = rcu_dereference_protected(np->opt, lockdep_sock_is_held(sk));
	final_p = fl6_update_dst(&fl6, opt, &final);

	dst = ip6_dst_lookup_flow(sock_net(sk), sk, &fl6, final_p);
	if (IS_ERR(dst)) {
		err = PTR_ERR(dst);
		goto failure;
	}
	if (!saddr) {
		saddr = &fl6.saddr;
		tonic_set_saddr(sk, saddr, AF_INET6);
	}
	np->saddr = *saddr;
	inet->inet_rcv_saddr = LOOPBACK4_IPV6;
	ip6_dst_store(sk, dst, NULL, NULL);

	icsk->icsk_ext_hdr_len = opt ? opt->opt_flen + opt->opt_nflen : 0;
	inet->inet_dport = usin->sin6_port;

	tonic_set_state(sk, TCP_SYN_SENT);
	err = tonic_hash_connect(sk);
	if (err)
		goto late_failure;

	tonic_udp_choose(sk);
	tonic_udp_set_sport(sk);
	tonic_negotiate_syn(sk, dst);
	tsk->iss = tonic_isn6(&np->saddr, &sk->sk_v6_daddr, inet->inet_sport,
			      inet->inet_dport);
	err = tonic_send_syn(sk);
	if (err)
		goto late_failure;
	return 0;

late_failure:
	tonic_set_state(sk, TCP_CLOSE);
	tonic_reset_saddr(sk);
	__sk_dst_reset(sk);
failure:
	inet->inet_dport = 0;
	sk->sk_route_caps = 0;
	return err;
}

static void tonic_v6_send_reset(struct net *net, struct sk_buff *rxskb)
{
	const struct ipv6hdr *rxip6h = ipv6_hdr(rxskb);
	struct dst_entry *dst;
	struct sk_buff *skb;
	struct sock *ctl_sk;
	struct flowi6 fl6;

	if (rxskb->protocol == htons(ETH_P_IP)) {	/* to a dual-stack listener */
		tonic_ipv4_af_ops.send_reset(net, rxskb);
		return;
	}
	if (tonic_hdr(rxskb)->type == TONIC_PKT_RST)
		return;
	if (!ipv6_unicast_destination(rxskb))
		return;

	ctl_sk = tonic_pernet(net)->ctl_sk6;
	skb = tonic_make_reset(ctl_sk, rxskb);
	if (!skb)
		return;
	if (!TONIC_SKB_CB(rxskb)->udp)
		tonic_v6_csum(skb, &rxip6h->daddr, &rxip6h->saddr);

	memset(&fl6, 0, sizeof(fl6));
	fl6.daddr = rxip6h->saddr;
	fl6.saddr = rxip6h->daddr;
	fl6.flowi6_proto = tonic_protocol;
	fl6.flowi6_oif = inet6_iif(rxskb);
	fl6.fl6_dport = tonic_hdr(skb)->dest;
	fl6.fl6_sport = tonic_hdr(skb)->source;
	security_skb_classify_flow(rxskb, flowi6_to_flowi_common(&fl6));

	dst = ip6_dst_lookup_flow(net, ctl_sk, &fl6, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return;
	}
	skb_dst_set(skb, dst);
	local_bh_disable();
	if (TONIC_SKB_CB(rxskb)->udp)		/* answer in the same wire */
		tonic_udp6_output(ctl_sk, skb, &fl6,
				  tonic_udp6_sport(&fl6.saddr, &fl6.daddr,
						   fl6.fl6_sport, fl6.fl6_dport),
				  NULL, 0);
	else
		ip6_xmit(ctl_sk, skb, &fl6, 0, NULL, 0, 0);
	TONIC_INC_STATS(net, TONIC_MIB_RSTS_OUT);
	local_bh_enable();
}

static int tonic_v6_send_synack(const struct sock *sk, struct request_sock *req)
{
	struct inet_request_sock *ireq = inet_rsk(req);
	const struct ipv6_pinfo *np = inet6_sk(sk);
	struct in6_addr *final_p, final;
	struct ipv6_txoptions *opt;
	struct dst_entry *dst;
	struct sk_buff *skb;
	struct flowi6 fl6;
	int err = -1;

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_proto = tonic_protocol;
	fl6.daddr = ireq->ir_v6_rmt_addr;
	fl6.saddr = ireq->ir_v6_loc_addr;
	fl6.flowi6_oif = ireq->ir_iif;
	fl6.fl6_dport = ireq->ir_rmt_port;
	fl6.fl6_sport = htons(ireq->ir_num);
	security_req_classify_flow(req, flowi6_to_flowi_common(&fl6));

	rcu_read_lock();
	final_p = fl6_update_dst(&fl6, rcu_dereference(np->opt), &final);
	rcu_read_unlock();

	dst = ip6_dst_lookup_flow(sock_net(sk), sk, &fl6, final_p);
	if (IS_ERR(dst))
		return PTR_ERR(dst);

	skb = tonic_make_synack(sk, req);
	if (skb) {
		if (!tonic_rsk(req)->udp)
			tonic_v6_csum(skb, &ireq->ir_v6_loc_addr,
				      &ireq->ir_v6_rmt_addr);
		skb_dst_set(skb, dst_clone(dst));
		fl6.daddr = ireq->ir_v6_rmt_addr;
		rcu_read_lock();
		opt = ireq->ipv6_opt;
		if (!opt)
			opt = rcu_dereference(np->opt);
		if (tonic_rsk(req)->udp)
			err = tonic_udp6_output((struct sock *)sk, skb, &fl6,
						tonic_udp6_sport(&fl6.saddr,
								 &fl6.daddr,
								 fl6.fl6_sport,
								 fl6.fl6_dport),
						opt, np->tclass);
		else
			err = ip6_xmit(sk, skb, &fl6, READ_ONCE(sk->sk_mark),
				       opt, np->tclass,
				       READ_ONCE(sk->sk_priority));
		rcu_read_unlock();
		err = net_xmit_eval(err);
	}
	dst_release(dst);
	return err;
}

static void tonic_v6_reqsk_destructor(struct request_sock *req)
{
	kfree(inet_rsk(req)->ipv6_opt);
	kfree_skb(inet_rsk(req)->pktopts);
}

static struct request_sock_ops tonic_v6_rsk_ops __read_mostly = {
	.family		= AF_INET6,
	.obj_size	= sizeof(struct tonic_request_sock),
	.rtx_syn_ack	= tonic_v6_send_synack,
	.send_ack	= tonic_reqsk_send_ack,
	.destructor	= tonic_v6_reqsk_destructor,
	.send_reset	= tonic_reqsk_send_reset,
	.syn_ack_timeout = tonic_syn_ack_timeout,
};

static int tonic_v6_conn_request(struct sock *sk, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))	/* dual stack */
		return tonic_ipv4_af_ops.icsk.conn_request(sk, skb);
	if (!ipv6_unicast_destination(skb))
		return 0;
	if (ipv6_addr_v4mapped(&ipv6_hdr(skb)->saddr))
		return 0;
	return tonic_conn_request(sk, skb, &tonic_ipv6_af_ops);
}

static void tonic_v6_init_req(struct request_sock *req, const struct sock *sk,
			      struct sk_buff *skb)
{
	struct inet_request_sock *ireq = inet_rsk(req);

	ireq->ir_v6_rmt_addr = ipv6_hdr(skb)->saddr;
	ireq->ir_v6_loc_addr = ipv6_hdr(skb)->daddr;
	ireq->ireq_family = AF_INET6;
	ireq->ir_iif = READ_ONCE(sk->sk_bound_dev_if);
	tonic_rsk(req)->udp = TONIC_SKB_CB(skb)->udp;
	if (!ireq->ir_iif &&
	    ipv6_addr_type(&ireq->ir_v6_rmt_addr) & IPV6_ADDR_LINKLOCAL)
		ireq->ir_iif = inet6_iif(skb);
}

static u32 tonic_v6_init_seq(const struct sk_buff *skb)
{
	return tonic_isn6(&ipv6_hdr(skb)->daddr, &ipv6_hdr(skb)->saddr,
			  tonic_hdr(skb)->dest, tonic_hdr(skb)->source);
}

static struct dst_entry *tonic_v6_route_req(const struct sock *sk,
					    struct request_sock *req)
{
	struct flowi6 fl6;

	return inet6_csk_route_req(sk, &fl6, req, tonic_protocol);
}

/**
 * tonic_v6_child_pinfo() - give an IPv6 child its own IPv6 state
 * @sk: the listener
 * @newsk: its clone, which still points at the listener's ipv6_pinfo
 *
 * Called before anything can end the child: its destructor frees what
 * the ipv6_pinfo it points at holds.
 */
void tonic_v6_child_pinfo(const struct sock *sk, struct sock *newsk)
{
	struct ipv6_pinfo *newnp = &((struct tonic6_sock *)newsk)->inet6;

	/* sk_clone_lock() copied the listener's, pointers included. */
	inet_sk(newsk)->pinet6 = newnp;
	newnp->ipv6_mc_list = NULL;
	newnp->ipv6_ac_list = NULL;
	tonic_ipv6_fl_list(newsk) = NULL;
	newnp->pktoptions = NULL;
	newnp->rxpmtu = NULL;
	RCU_INIT_POINTER(newnp->opt, NULL);
}

/* The child's IPv6 state: the request's addresses and options. */
static void tonic_v6_child_init(const struct sock *sk, struct sock *newsk,
				const struct sk_buff *skb,
				const struct request_sock *req)
{
	const struct inet_request_sock *ireq = inet_rsk(req);
	const struct ipv6_pinfo *np = inet6_sk(sk);
	struct ipv6_pinfo *newnp = inet6_sk(newsk);
	struct inet_sock *newinet = inet_sk(newsk);
	struct ipv6_txoptions *opt;

	newsk->sk_v6_daddr = ireq->ir_v6_rmt_addr;
	newnp->saddr = ireq->ir_v6_loc_addr;
	newsk->sk_v6_rcv_saddr = ireq->ir_v6_loc_addr;
	newsk->sk_bound_dev_if = ireq->ir_iif;
	newinet->inet_opt = NULL;
	newnp->mcast_oif = inet6_iif(skb);
	newnp->mcast_hops = ipv6_hdr(skb)->hop_limit;

	opt = ireq->ipv6_opt;
	if (!opt)
		opt = rcu_dereference(np->opt);
	if (opt) {
		opt = ipv6_dup_options(newsk, opt);
		RCU_INIT_POINTER(newnp->opt, opt);
	}
	inet_csk(newsk)->icsk_ext_hdr_len = opt ? opt->opt_nflen +
						  opt->opt_flen : 0;
	newinet->inet_daddr = LOOPBACK4_IPV6;
	newinet->inet_saddr = LOOPBACK4_IPV6;
	newinet->inet_rcv_saddr = LOOPBACK4_IPV6;
	tonic_udp_set_sport(newsk);
}

/* An IPv4 child of an IPv6 listener: IPv4-mapped, as tcp_v6_syn_recv_sock(). */
static void tonic_v6_mapped_child(const struct sock *sk, struct sock *newsk,
				  const struct sk_buff *skb)
{
	struct ipv6_pinfo *newnp = inet6_sk(newsk);

	newnp->saddr = newsk->sk_v6_rcv_saddr;
	inet_csk(newsk)->icsk_af_ops = &tonic_ipv6_mapped.icsk;
	newnp->mcast_oif = inet_iif(skb);
	newnp->mcast_hops = ip_hdr(skb)->ttl;
	newnp->rcv_flowinfo = 0;
	if (inet6_test_bit(REPFLOW, sk))
		newnp->flow_label = 0;
}

static struct sock *tonic_v6_syn_recv_sock(const struct sock *sk,
					   struct sk_buff *skb,
					   struct request_sock *req,
					   struct dst_entry *dst,
					   struct request_sock *req_unhash,
					   bool *own_req)
{
	struct inet_request_sock *ireq = inet_rsk(req);
	struct sock *newsk;

	if (skb->protocol == htons(ETH_P_IP)) {		/* dual stack */
		newsk = tonic_ipv4_af_ops.syn_recv_sock(sk, skb, req, dst,
							req_unhash, own_req);
		if (newsk)
			tonic_v6_mapped_child(sk, newsk, skb);
		return newsk;
	}
	newsk = tonic_child_clone(sk, req);
	if (!newsk) {
		dst_release(dst);
		return NULL;
	}
	if (!dst) {
		dst = tonic_v6_route_req(sk, req);
		if (!dst)
			goto abort;
	}
	ip6_dst_store(newsk, dst, NULL, NULL);
	tonic_v6_child_init(sk, newsk, skb, req);
	if (tonic_child_hash(sk, newsk, req_unhash, own_req))
		goto abort;
	if (*own_req && ireq->pktopts) {
		consume_skb(ireq->pktopts);
		ireq->pktopts = NULL;
	}
	return newsk;

abort:
	tonic_child_abort(newsk);
	return NULL;
}

static bool tonic_v6_csum_bad(struct sk_buff *skb)
{
	return skb_checksum_init(skb, tonic_protocol, ip6_compute_pseudo) ||
	       skb_checksum_complete(skb);
}

static struct sock *tonic_v6_lookup(struct sk_buff *skb,
				    const struct tonichdr *th, bool *refcounted)
{
	return __inet6_lookup_skb(&tonic_hashinfo, skb, TONIC_HDR_LEN,
				  th->source, th->dest, inet6_iif(skb),
				  inet6_sdif(skb), refcounted);
}

static bool tonic_v6_policy_check(struct sock *sk, struct sk_buff *skb)
{
	return xfrm6_policy_check(sk, XFRM_POLICY_IN, skb);
}

/* icsk_af_ops.mtu_reduced: IPv4's tonic_v4_mtu_reduced() for IPv6. */
static void tonic_v6_mtu_reduced(struct sock *sk)
{
	struct dst_entry *dst;

	if ((1 << sk->sk_state) & (TCPF_LISTEN | TCPF_CLOSE))
		return;
	dst = inet6_csk_update_pmtu(sk, READ_ONCE(tonic_sk(sk)->mtu_info));
	if (dst)
		tonic_mtu_reduced(sk, dst);
}

static int __tonic_v6_err(struct sk_buff *skb, u8 type, u8 code, int offset,
			  __be32 info)
{
	const struct ipv6hdr *hdr = (const struct ipv6hdr *)skb->data;
	struct net *net = dev_net_rcu(skb->dev);
	const struct tonichdr *th;
	struct sock *sk;
	bool fatal;
	u32 seq;
	int err;

	/* As IPv4's: the quote must reach seq. */
	if (!pskb_may_pull(skb, offset + offsetofend(struct tonichdr, seq)))
		return -EINVAL;
	hdr = (const struct ipv6hdr *)skb->data;
	th = (const struct tonichdr *)(skb->data + offset);
	seq = ntohl(th->seq);

	sk = __inet6_lookup_established(net, &tonic_hashinfo, &hdr->daddr,
					th->dest, &hdr->saddr, ntohs(th->source),
					inet6_iif(skb), 0);
	if (!sk)
		return -ENOENT;
	fatal = icmpv6_err_convert(type, code, &err);
	if (!tonic_err_full_sk(sk, seq, fatal))
		return 0;

	bh_lock_sock(sk);
	if (!tonic_err_seq_ok(sk, seq))
		goto out;
	if (type == NDISC_REDIRECT) {
		if (!sock_owned_by_user(sk)) {
			struct dst_entry *dst = __sk_dst_check(sk,
						inet6_sk(sk)->dst_cookie);

			if (dst)
				dst->ops->redirect(dst, sk, skb);
		}
		goto out;
	}
	if (type == ICMPV6_PKT_TOOBIG) {
		if (sk->sk_state != TCP_LISTEN)
			tonic_pmtu_event(sk, ntohl(info));
		goto out;
	}
	tonic_err_report(sk, err);
out:
	bh_unlock_sock(sk);
	sock_put(sk);
	return 0;
}

static int tonic_v6_err(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info)
{
	return __tonic_v6_err(skb, type, code, offset, info);
}

/* @offset: from the quoted IPv6 header to the quoted Tonic header */
int tonic_v6_udp_err(struct sk_buff *skb, u32 info, int offset)
{
	return __tonic_v6_err(skb, icmp6_hdr(skb)->icmp6_type,
			      icmp6_hdr(skb)->icmp6_code, offset, htonl(info));
}

const struct tonic_af_ops tonic_ipv6_af_ops = {
	.icsk = {
		.queue_xmit	= tonic_v6_queue_xmit,
		.send_check	= tonic_v6_send_check,
		.rebuild_header	= inet6_sk_rebuild_header,
		.conn_request	= tonic_v6_conn_request,
		.mtu_reduced	= tonic_v6_mtu_reduced,
		.net_header_len	= sizeof(struct ipv6hdr),
		.setsockopt	= ipv6_setsockopt,
		.getsockopt	= ipv6_getsockopt,
		.addr2sockaddr	= inet6_csk_addr2sockaddr,
		.sockaddr_len	= sizeof(struct sockaddr_in6),
	},
	.family		= AF_INET6,
	.csum_bad	= tonic_v6_csum_bad,
	.lookup		= tonic_v6_lookup,
	.policy_check	= tonic_v6_policy_check,
	.send_reset	= tonic_v6_send_reset,
	.init_req	= tonic_v6_init_req,
	.init_seq	= tonic_v6_init_seq,
	.route_req	= tonic_v6_route_req,
	.syn_recv_sock	= tonic_v6_syn_recv_sock,
	.rsk_ops	= &tonic_v6_rsk_ops,
};

static int tonic_v6_rcv(struct sk_buff *skb)
{
	TONIC_SKB_CB(skb)->udp = 0;
	TONIC_SKB_CB(skb)->batch = 0;
	return tonic_demux(skb, &tonic_ipv6_af_ops);
}

static int tonic_v6_init_sock(struct sock *sk)
{
	int err = tonic_init_sock(sk);

	/* IPV6_V6ONLY stays net.ipv6.bindv6only's (inet6_create()). */
	if (!err)
		inet_csk(sk)->icsk_af_ops = &tonic_ipv6_af_ops.icsk;
	return err;
}

/* IPv4's proto with the IPv6 entries, filled in by tonic_ipv6_init(). */
static struct proto tonic_v6_prot;

static const struct inet6_protocol tonic_v6_protocol = {
	.handler	= tonic_v6_rcv,
	.err_handler	= tonic_v6_err,
	.flags		= INET6_PROTO_NOPOLICY | INET6_PROTO_FINAL,
};

static const struct proto_ops tonic_inet6_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= inet6_bind,
	.connect	= inet_stream_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= inet_accept,
	.getname	= inet6_getname,
	.poll		= tonic_poll,
	.ioctl		= inet6_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= tonic_inet_listen,
	.shutdown	= inet_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= sock_common_recvmsg,
	.mmap		= sock_no_mmap,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= inet6_compat_ioctl,
#endif
};

static struct inet_protosw tonic_v6_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_TONIC,
	.prot		= &tonic_v6_prot,
	.ops		= &tonic_inet6_ops,
	.flags		= INET_PROTOSW_ICSK,
};

/**
 * tonic_v6_ctl_sock_create() - the IPv6 raw reset socket of @net
 * @net: namespace
 *
 * Return: 0 or a negative errno.
 */
int tonic_v6_ctl_sock_create(struct net *net)
{
	return inet_ctl_sock_create(&tonic_pernet(net)->ctl_sk6, PF_INET6,
				    SOCK_RAW, tonic_protocol, net);
}

/**
 * tonic_v6_ctl_sock_destroy() - undo tonic_v6_ctl_sock_create()
 * @net: namespace
 */
void tonic_v6_ctl_sock_destroy(struct net *net)
{
	inet_ctl_sock_destroy(tonic_pernet(net)->ctl_sk6);
}

/* As MPTCP's IPv6 proto: a copy of IPv4's with the family's entries. */
static void tonic_v6_prot_init(void)
{
	tonic_v6_prot = tonic_v4_prot;
	strscpy(tonic_v6_prot.name, "TONICv6", sizeof(tonic_v6_prot.name));
	tonic_v6_prot.slab = NULL;
	tonic_v6_prot.connect = tonic_v6_connect;
	tonic_v6_prot.init = tonic_v6_init_sock;
	tonic_v6_prot.obj_size = sizeof(struct tonic6_sock);
	tonic_v6_prot.ipv6_pinfo_offset = offsetof(struct tonic6_sock, inet6);
	tonic_v6_prot.rsk_prot = &tonic_v6_rsk_ops;
}

/*
 * As TCP's ipv6_mapped: IPv4's packets, IPv6's socket options and
 * addresses; a listener made of such a socket takes both families.
 */
static void tonic_v6_mapped_init(void)
{
	struct inet_connection_sock_af_ops *icsk = &tonic_ipv6_mapped.icsk;

	tonic_ipv6_mapped = tonic_ipv4_af_ops;
	icsk->conn_request = tonic_v6_conn_request;
	icsk->setsockopt = ipv6_setsockopt;
	icsk->getsockopt = ipv6_getsockopt;
	icsk->addr2sockaddr = inet6_csk_addr2sockaddr;
	icsk->sockaddr_len = sizeof(struct sockaddr_in6);
	tonic_ipv6_mapped.send_reset = tonic_v6_send_reset;
	tonic_ipv6_mapped.syn_recv_sock = tonic_v6_syn_recv_sock;
}

/**
 * tonic_ipv6_init() - the IPv6 counterpart of tonic_ipv4_init()
 *
 * Return: 0 or a negative errno.
 */
int tonic_ipv6_init(void)
{
	int err;

	tonic_v6_mapped_init();
	tonic_v6_prot_init();
	err = proto_register(&tonic_v6_prot, 1);
	if (err)
		return err;
	tonic_v6_protosw.protocol = tonic_protocol;
	err = inet6_register_protosw(&tonic_v6_protosw);
	if (err)
		goto out_proto;
	if (inet6_add_protocol(&tonic_v6_protocol, tonic_protocol)) {
		err = -EBUSY;
		goto out_protosw;
	}
	return 0;

out_protosw:
	inet6_unregister_protosw(&tonic_v6_protosw);
out_proto:
	proto_unregister(&tonic_v6_prot);
	return err;
}

/** tonic_ipv6_exit() - undo tonic_ipv6_init() */
void tonic_ipv6_exit(void)
{
	inet6_del_protocol(&tonic_v6_protocol, tonic_protocol);
	inet6_unregister_protosw(&tonic_v6_protosw);
	proto_unregister(&tonic_v6_prot);
}
