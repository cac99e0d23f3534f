// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: IPv4 glue.
 *
 * Registration (proto, protosw, IP protocol handler), connect(), and
 * what the family-independent handshake (handshake.c) and receive demux
 * (demux.c) ask of IPv4 through struct tonic_af_ops: checksums, lookup,
 * routing, request sock addresses, the child's addresses and options,
 * SYN-ACKs and resets from the per-netns control socket.  Modelled on
 * net/dccp/ipv4.c.
 */
#include <linux/icmp.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/icmp.h>
#include <net/inet_common.h>
#include <net/inet_ecn.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/protocol.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>
#include <net/xfrm.h>

#include "protocol.h"

/* Packets that are no connection's (SYN-ACK, reset): in software. */
static void tonic_v4_csum(struct sk_buff *skb, __be32 saddr, __be32 daddr)
{
	struct tonichdr *th = tonic_hdr(skb);
	__wsum csum;

	th->check = 0;
	csum = skb_checksum(skb, skb_transport_offset(skb),
			    skb->len - skb_transport_offset(skb), 0);
	th->check = csum_tcpudp_magic(saddr, daddr,
				      skb->len - skb_transport_offset(skb),
				      tonic_protocol, csum);
	skb->ip_summed = CHECKSUM_NONE;
}

/* Established sockets let the device (or validate_xmit_skb()) finish the
 * checksum: veth passes CHECKSUM_PARTIAL through, so neither end spends
 * cycles on it.  The field sits at offset 22, so devices that can only
 * offload TCP/UDP checksums fall back to software.
 */
static void tonic_v4_send_check(struct sock *sk, struct sk_buff *skb)
{
	const struct inet_sock *inet = inet_sk(sk);
	struct tonichdr *th = tonic_hdr(skb);
	int len = skb->len - skb_transport_offset(skb);

	if (tonic_sk(sk)->udp)		/* the UDP checksum covers it all */
		return;
	th->check = ~csum_tcpudp_magic(inet->inet_saddr, inet->inet_daddr,
				       len, tonic_protocol, 0);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct tonichdr, check);
}

static int tonic_v4_queue_xmit(struct sock *sk, struct sk_buff *skb,
			       struct flowi *fl)
{
	if (tonic_sk(sk)->udp)
		return tonic_udp4_queue_xmit(sk, skb, fl);
	return ip_queue_xmit(sk, skb, fl);
}

static int tonic_v4_connect(struct sock *sk, struct sockaddr *uaddr,
			    int addr_len)
{
	const struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	struct tonic_sock *tsk = tonic_sk(sk);
	__be16 orig_sport, orig_dport;
	struct ip_options_rcu *inet_opt;
	__be32 daddr, nexthop;
	struct flowi4 *fl4;
	struct rtable *rt;
	int err;

	if (addr_len < sizeof(struct sockaddr_in))
		return -EINVAL;
	if (usin->sin_family != AF_INET)
		return -EAFNOSUPPORT;

	nexthop = usin->sin_addr.s_addr;
	daddr = nexthop;
	inet_opt = rcu_dereference_protected(inet->inet_opt,
					     lockdep_sock_is_held(sk));
	if (inet_opt && inet_opt->opt.srr) {
		if (!daddr)
			return -EINVAL;
		nexthop = inet_opt->opt.faddr;
	}

	orig_sport = inet->inet_sport;
	orig_dport = usin->sin_port;
	fl4 = &inet->cork.fl.u.ip4;
	rt = ip_route_connect(fl4, nexthop, inet->inet_saddr,
			      sk->sk_bound_dev_if, sk->sk_protocol, orig_sport,
			      orig_dport, sk);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->rt_flags & (RTCF_MULTICAST | RTCF_BROADCAST)) {
		ip_rt_put(rt);
		return -ENETUNREACH;
	}
	if (!inet_opt || !inet_opt->opt.srr)
		daddr = fl4->daddr;

	if (!inet->inet_saddr)
		tonic_set_saddr(sk, &fl4->saddr, AF_INET);
	else
		sk_rcv_saddr_set(sk, inet->inet_saddr);

	inet->inet_dport = usin->sin_port;
	sk_daddr_set(sk, daddr);
	inet_csk(sk)->icsk_ext_hdr_len = inet_opt ? inet_opt->opt.optlen : 0;

	tonic_set_state(sk, TCP_SYN_SENT);
	err = tonic_hash_connect(sk);
	if (err)
		goto failure;

	rt = ip_route_newports(fl4, rt, orig_sport, orig_dport,
			       inet->inet_sport, inet->inet_dport, sk);
	if (IS_ERR(rt)) {
		err = PTR_ERR(rt);
		rt = NULL;
		goto failure;
	}
	sk_setup_caps(sk, &rt->dst);
	tonic_udp_choose(sk);
	tonic_udp_set_sport(sk);
	tonic_negotiate_syn(sk, &rt->dst);

	tsk->iss = tonic_isn4(inet->inet_saddr, inet->inet_daddr,
			      inet->inet_sport, inet->inet_dport);
	atomic_set(&inet->inet_id, get_random_u16());

	rt = NULL;
	err = tonic_send_syn(sk);
	if (err)
		goto failure;
	return 0;

failure:
	tonic_set_state(sk, TCP_CLOSE);
	tonic_reset_saddr(sk);
	ip_rt_put(rt);
	sk->sk_route_caps = 0;
	inet->inet_dport = 0;
	return err;
}

static struct dst_entry *tonic_v4_route_skb(struct net *net, struct sock *sk,
					    struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct flowi4 fl4 = {
		.flowi4_oif = inet_iif(skb),
		.daddr = iph->saddr,
		.saddr = iph->daddr,
		.flowi4_proto = sk->sk_protocol,
		.fl4_sport = tonic_hdr(skb)->dest,
		.fl4_dport = tonic_hdr(skb)->source,
	};
	struct rtable *rt;

	security_skb_classify_flow(skb, flowi4_to_flowi_common(&fl4));
	rt = ip_route_output_flow(net, &fl4, sk);
	if (IS_ERR(rt))
		return NULL;
	return &rt->dst;
}

static void tonic_v4_send_reset(struct net *net, struct sk_buff *rxskb)
{
	const struct iphdr *rxiph = ip_hdr(rxskb);
	struct dst_entry *dst;
	struct sock *ctl_sk;
	struct sk_buff *skb;
	int err;

	if (tonic_hdr(rxskb)->type == TONIC_PKT_RST)
		return;
	if (skb_rtable(rxskb)->rt_type != RTN_LOCAL)
		return;

	ctl_sk = tonic_pernet(net)->ctl_sk4;
	dst = tonic_v4_route_skb(net, ctl_sk, rxskb);
	if (!dst)
		return;
	skb = tonic_make_reset(ctl_sk, rxskb);
	if (!skb)
		goto out;
	skb_dst_set(skb, dst_clone(dst));

	local_bh_disable();
	bh_lock_sock(ctl_sk);
	if (TONIC_SKB_CB(rxskb)->udp) {		/* answer in the same wire */
		const struct tonichdr *th = tonic_hdr(skb);

		err = tonic_udp4_output(ctl_sk, skb, rxiph->daddr, rxiph->saddr,
					tonic_udp4_sport(rxiph->daddr,
							 rxiph->saddr,
							 th->source, th->dest),
					inet_sk(ctl_sk)->tos, false);
	} else {
		tonic_v4_csum(skb, rxiph->daddr, rxiph->saddr);
		err = ip_build_and_send_pkt(skb, ctl_sk, rxiph->daddr,
					    rxiph->saddr, NULL,
					    inet_sk(ctl_sk)->tos);
	}
	bh_unlock_sock(ctl_sk);
	if (!net_xmit_eval(err))
		TONIC_INC_STATS(net, TONIC_MIB_RSTS_OUT);
	local_bh_enable();
out:
	dst_release(dst);
}

static int tonic_v4_send_synack(const struct sock *sk, struct request_sock *req)
{
	const struct inet_request_sock *ireq = inet_rsk(req);
	struct dst_entry *dst;
	struct sk_buff *skb;
	struct flowi4 fl4;
	int err = -1;

	dst = inet_csk_route_req(sk, &fl4, req);
	if (!dst)
		return -EHOSTUNREACH;
	skb = tonic_make_synack(sk, req);
	if (skb && tonic_rsk(req)->udp) {
		skb_dst_set(skb, dst_clone(dst));
		err = tonic_udp4_output((struct sock *)sk, skb,
					ireq->ir_loc_addr, ireq->ir_rmt_addr,
					tonic_udp4_sport(ireq->ir_loc_addr,
							 ireq->ir_rmt_addr,
							 htons(ireq->ir_num),
							 ireq->ir_rmt_port),
					READ_ONCE(inet_sk(sk)->tos),
					ip_dont_fragment(sk, dst));
		err = net_xmit_eval(err);
	} else if (skb) {
		tonic_v4_csum(skb, ireq->ir_loc_addr, ireq->ir_rmt_addr);
		skb_dst_set(skb, dst_clone(dst));
		rcu_read_lock();
		err = ip_build_and_send_pkt(skb, sk, ireq->ir_loc_addr,
					    ireq->ir_rmt_addr,
					    rcu_dereference(ireq->ireq_opt),
					    READ_ONCE(inet_sk(sk)->tos));
		rcu_read_unlock();
		err = net_xmit_eval(err);
	}
	dst_release(dst);
	return err;
}

static void tonic_v4_reqsk_destructor(struct request_sock *req)
{
	kfree(rcu_dereference_protected(inet_rsk(req)->ireq_opt, 1));
}

static struct request_sock_ops tonic_v4_rsk_ops __read_mostly = {
	.family		= PF_INET,
	.obj_size	= sizeof(struct tonic_request_sock),
	.rtx_syn_ack	= tonic_v4_send_synack,
	.send_ack	= tonic_reqsk_send_ack,
	.destructor	= tonic_v4_reqsk_destructor,
	.send_reset	= tonic_reqsk_send_reset,
	.syn_ack_timeout = tonic_syn_ack_timeout,
};

/* Also an IPv6 listener's, for IPv4 SYNs (tonic_v6_conn_request()). */
static int tonic_v4_conn_request(struct sock *sk, struct sk_buff *skb)
{
	if (skb_rtable(skb)->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST))
		return 0;
	return tonic_conn_request(sk, skb, &tonic_ipv4_af_ops);
}

static void tonic_v4_init_req(struct request_sock *req, const struct sock *sk,
			      struct sk_buff *skb)
{
	struct inet_request_sock *ireq = inet_rsk(req);

	sk_rcv_saddr_set(req_to_sk(req), ip_hdr(skb)->daddr);
	sk_daddr_set(req_to_sk(req), ip_hdr(skb)->saddr);
	ireq->ireq_family = AF_INET;
	ireq->ir_iif = READ_ONCE(sk->sk_bound_dev_if);
	tonic_rsk(req)->udp = TONIC_SKB_CB(skb)->udp;
}

static u32 tonic_v4_init_seq(const struct sk_buff *skb)
{
	return tonic_isn4(ip_hdr(skb)->daddr, ip_hdr(skb)->saddr,
			  tonic_hdr(skb)->dest, tonic_hdr(skb)->source);
}

static struct dst_entry *tonic_v4_route_req(const struct sock *sk,
					    struct request_sock *req)
{
	struct flowi4 fl4;

	return inet_csk_route_req(sk, &fl4, req);
}

static struct sock *tonic_v4_syn_recv_sock(const struct sock *sk,
					   struct sk_buff *skb,
					   struct request_sock *req,
					   struct dst_entry *dst,
					   struct request_sock *req_unhash,
					   bool *own_req)
{
	struct inet_request_sock *ireq = inet_rsk(req);
	struct inet_sock *newinet;
	struct sock *newsk;

	newsk = tonic_child_clone(sk, req);
	if (!newsk) {
		dst_release(dst);
		return NULL;
	}
	newinet = inet_sk(newsk);
	sk_daddr_set(newsk, ireq->ir_rmt_addr);
	sk_rcv_saddr_set(newsk, ireq->ir_loc_addr);
	newinet->inet_saddr = ireq->ir_loc_addr;
	tonic_udp_set_sport(newsk);
	RCU_INIT_POINTER(newinet->inet_opt, rcu_dereference(ireq->ireq_opt));
	newinet->mc_index = inet_iif(skb);
	newinet->mc_ttl = ip_hdr(skb)->ttl;
	atomic_set(&newinet->inet_id, get_random_u16());

	if (!dst) {
		dst = inet_csk_route_child_sock(sk, newsk, req);
		if (!dst)
			goto abort;
	}
	sk_setup_caps(newsk, dst);
	if (tonic_child_hash(sk, newsk, req_unhash, own_req))
		goto abort;
	/* The IP options go with whichever of child and request lives on. */
	if (*own_req)
		ireq->ireq_opt = NULL;
	else
		newinet->inet_opt = NULL;
	return newsk;

abort:
	newinet->inet_opt = NULL;
	tonic_child_abort(newsk);
	return NULL;
}

static bool tonic_v4_csum_bad(struct sk_buff *skb)
{
	return skb_checksum_init(skb, tonic_protocol, inet_compute_pseudo) ||
	       skb_checksum_complete(skb);
}

static struct sock *tonic_v4_lookup(struct sk_buff *skb,
				    const struct tonichdr *th, bool *refcounted)
{
	return __inet_lookup_skb(&tonic_hashinfo, skb, TONIC_HDR_LEN,
				 th->source, th->dest, inet_sdif(skb),
				 refcounted);
}

static bool tonic_v4_policy_check(struct sock *sk, struct sk_buff *skb)
{
	return xfrm4_policy_check(sk, XFRM_POLICY_IN, skb);
}

/*
 * icsk_af_ops.mtu_reduced: the path MTU an ICMP "fragmentation needed"
 * reported (tonic_sock.mtu_info) goes into the route, and the segments
 * to come are cut to it unless the socket ignores path MTU discovery
 * (IP_MTU_DISCOVER), as tcp_v4_mtu_reduced() decides.
 */
static void tonic_v4_mtu_reduced(struct sock *sk)
{
	struct dst_entry *dst;

	if ((1 << sk->sk_state) & (TCPF_LISTEN | TCPF_CLOSE))
		return;
	dst = inet_csk_update_pmtu(sk, READ_ONCE(tonic_sk(sk)->mtu_info));
	if (dst && inet_sk(sk)->pmtudisc != IP_PMTUDISC_DONT &&
	    ip_sk_accept_pmtu(sk))
		tonic_mtu_reduced(sk, dst);
}

/* @offset: from the quoted IP header to the quoted Tonic header */
static int __tonic_v4_err(struct sk_buff *skb, u32 info, int offset)
{
	const struct iphdr *iph = (struct iphdr *)skb->data;
	const int type = icmp_hdr(skb)->type;
	const int code = icmp_hdr(skb)->code;
	struct net *net = dev_net(skb->dev);
	const struct tonichdr *th;
	struct sock *sk;
	bool abort;
	u32 seq;
	int err;

	/* The quote must reach seq: without it the error cannot be told
	 * from a blind one (ICMP quotes the ports in 8 bytes; Tonic's seq
	 * follows, and routers quote more, RFC 1812 §4.3.2.3).
	 */
	if (!pskb_may_pull(skb, offset + offsetofend(struct tonichdr, seq)))
		return -EINVAL;
	iph = (struct iphdr *)skb->data;
	th = (struct tonichdr *)(skb->data + offset);
	seq = ntohl(th->seq);

	sk = __inet_lookup_established(net, &tonic_hashinfo, iph->daddr,
				       th->dest, iph->saddr, ntohs(th->source),
				       inet_iif(skb), 0);
	if (!sk)
		return -ENOENT;
	abort = type == ICMP_PARAMETERPROB || type == ICMP_TIME_EXCEEDED ||
		(type == ICMP_DEST_UNREACH && (code == ICMP_NET_UNREACH ||
					       code == ICMP_HOST_UNREACH));
	if (!tonic_err_full_sk(sk, seq, abort))
		return 0;

	bh_lock_sock(sk);
	if (!tonic_err_seq_ok(sk, seq))
		goto out;
	switch (type) {
	case ICMP_REDIRECT:
		if (!sock_owned_by_user(sk)) {
			struct dst_entry *dst = __sk_dst_check(sk, 0);

			if (dst)
				dst->ops->redirect(dst, sk, skb);
		}
		goto out;
	case ICMP_SOURCE_QUENCH:
		goto out;
	case ICMP_PARAMETERPROB:
		err = EPROTO;
		break;
	case ICMP_DEST_UNREACH:
		if (code > NR_ICMP_UNREACH)
			goto out;
		if (code == ICMP_FRAG_NEEDED) {
			tonic_pmtu_event(sk, info);
			goto out;
		}
		err = icmp_err_convert[code].errno;
		break;
	case ICMP_TIME_EXCEEDED:
		err = EHOSTUNREACH;
		break;
	default:
		goto out;
	}
	tonic_err_report(sk, err);
out:
	bh_unlock_sock(sk);
	sock_put(sk);
	return 0;
}

static int tonic_v4_err(struct sk_buff *skb, u32 info)
{
	const struct iphdr *iph = (struct iphdr *)skb->data;	/* quoted */

	return __tonic_v4_err(skb, info, iph->ihl << 2);
}

/**
 * tonic_v4_udp_err() - an ICMP error quoting a Tonic packet in UDP
 * @skb: the ICMP error, data at the quoted IP header
 * @info: as for an IP protocol's err_handler (the MTU of frag-needed)
 * @offset: from the quoted IP header to the quoted Tonic header
 *
 * Return: 0, or a negative errno when no connection matches.
 * tonic_v6_udp_err() is the same for IPv6.
 */
int tonic_v4_udp_err(struct sk_buff *skb, u32 info, int offset)
{
	return __tonic_v4_err(skb, info, offset);
}

const struct tonic_af_ops tonic_ipv4_af_ops = {
	.icsk = {
		.queue_xmit	= tonic_v4_queue_xmit,
		.send_check	= tonic_v4_send_check,
		.rebuild_header	= inet_sk_rebuild_header,
		.conn_request	= tonic_v4_conn_request,
		.mtu_reduced	= tonic_v4_mtu_reduced,
		.net_header_len	= sizeof(struct iphdr),
		.setsockopt	= ip_setsockopt,
		.getsockopt	= ip_getsockopt,
		.addr2sockaddr	= inet_csk_addr2sockaddr,
		.sockaddr_len	= sizeof(struct sockaddr_in),
	},
	.family		= AF_INET,
	.csum_bad	= tonic_v4_csum_bad,
	.lookup		= tonic_v4_lookup,
	.policy_check	= tonic_v4_policy_check,
	.send_reset	= tonic_v4_send_reset,
	.init_req	= tonic_v4_init_req,
	.init_seq	= tonic_v4_init_seq,
	.route_req	= tonic_v4_route_req,
	.syn_recv_sock	= tonic_v4_syn_recv_sock,
	.rsk_ops	= &tonic_v4_rsk_ops,
};

static int tonic_v4_rcv(struct sk_buff *skb)
{
	TONIC_SKB_CB(skb)->udp = 0;
	TONIC_SKB_CB(skb)->batch = 0;
	return tonic_demux(skb, &tonic_ipv4_af_ops);
}

static int tonic_v4_init_sock(struct sock *sk)
{
	int err = tonic_init_sock(sk);

	if (!err)
		inet_csk(sk)->icsk_af_ops = &tonic_ipv4_af_ops.icsk;
	return err;
}

struct proto tonic_v4_prot = {
	.name			= "TONIC",
	.owner			= THIS_MODULE,
	.close			= tonic_close,
	.connect		= tonic_v4_connect,
	.disconnect		= tonic_disconnect,
	.ioctl			= tonic_ioctl,
	.init			= tonic_v4_init_sock,
	.setsockopt		= tonic_setsockopt,
	.getsockopt		= tonic_getsockopt,
	.sendmsg		= tonic_sendmsg,
	.recvmsg		= tonic_recvmsg,
	.backlog_rcv		= tonic_rcv,
	.release_cb		= tonic_release_cb,
	.hash			= tonic_hash,
	.unhash			= tonic_unhash,
	.accept			= inet_csk_accept,
	.get_port		= tonic_get_port,
	.put_port		= tonic_put_port,
	.shutdown		= tonic_shutdown,
	.destroy		= tonic_destroy_sock,
	.no_autobind		= true,
	.orphan_count		= &tonic_orphan_count,
	.sockets_allocated	= &tonic_sockets_allocated,
	.memory_allocated	= &tonic_memory_allocated,
	.per_cpu_fw_alloc	= &tonic_memory_per_cpu_fw_alloc,
	.memory_pressure	= &tonic_memory_pressure,
	.enter_memory_pressure	= tonic_enter_memory_pressure,
	.sysctl_mem		= sysctl_tonic_mem,
	.sysctl_wmem		= sysctl_tonic_wmem,
	.sysctl_rmem		= sysctl_tonic_rmem,
	.max_header		= MAX_TONIC_HEADER,
	.obj_size		= sizeof(struct tonic_sock),
	.slab_flags		= SLAB_TYPESAFE_BY_RCU,
	.rsk_prot		= &tonic_v4_rsk_ops,
};

static const struct proto_ops tonic_inet_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= inet_bind,
	.connect	= inet_stream_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= inet_accept,
	.getname	= inet_getname,
	.poll		= tonic_poll,
	.ioctl		= inet_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= tonic_inet_listen,
	.shutdown	= inet_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= sock_common_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct inet_protosw tonic_v4_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_TONIC,
	.prot		= &tonic_v4_prot,
	.ops		= &tonic_inet_ops,
	.flags		= INET_PROTOSW_ICSK,
};

static const struct net_protocol tonic_v4_protocol = {
	.handler	= tonic_v4_rcv,
	.err_handler	= tonic_v4_err,
	.no_policy	= 1,
	.icmp_strict_tag_validation = 1,
};

/**
 * tonic_v4_ctl_sock_create() - the raw socket that sends resets in @net
 * @net: namespace
 *
 * Return: 0 or a negative errno.
 */
int tonic_v4_ctl_sock_create(struct net *net)
{
	return inet_ctl_sock_create(&tonic_pernet(net)->ctl_sk4, PF_INET,
				    SOCK_RAW, tonic_protocol, net);
}

/**
 * tonic_v4_ctl_sock_destroy() - undo tonic_v4_ctl_sock_create()
 * @net: namespace
 */
void tonic_v4_ctl_sock_destroy(struct net *net)
{
	inet_ctl_sock_destroy(tonic_pernet(net)->ctl_sk4);
}

/**
 * tonic_ipv4_init() - register proto, protosw and the IP protocol handler
 *
 * Return: 0, or -EBUSY if the protocol number is taken.
 */
int tonic_ipv4_init(void)
{
	int err;

	err = proto_register(&tonic_v4_prot, 1);
	if (err)
		return err;
	tonic_v4_protosw.protocol = tonic_protocol;
	inet_register_protosw(&tonic_v4_protosw);
	if (inet_add_protocol(&tonic_v4_protocol, tonic_protocol)) {
		pr_err("tonic: IP protocol %d is taken\n", tonic_protocol);
		inet_unregister_protosw(&tonic_v4_protosw);
		proto_unregister(&tonic_v4_prot);
		return -EBUSY;
	}
	return 0;
}

/** tonic_ipv4_exit() - undo tonic_ipv4_init() */
void tonic_ipv4_exit(void)
{
	inet_del_protocol(&tonic_v4_protocol, tonic_protocol);
	inet_unregister_protosw(&tonic_v4_protosw);
	proto_unregister(&tonic_v4_prot);
}
