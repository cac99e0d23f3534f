// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the handshake, for both families.
 *
 * What C, K and the receiver signals become (the SYN's wishes, the
 * listener's choice carried by the SYN-ACK, the client's acceptance of
 * it), and the passive open from SYN to request sock to child.  Routing,
 * addresses and building the SYN-ACK are the family's, reached through
 * struct tonic_af_ops (ipv4.c, ipv6.c); the state machine after the
 * handshake is input.c's.
 */
#include <linux/log2.h>
#include <net/inet_connection_sock.h>
#include <net/request_sock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#include "protocol.h"

/**
 * tonic_proto_resolve() - pick a connection's protocol (SYN / SYN-ACK
 *	time; handshake.c)
 * @net: the connection's namespace
 * @name: TONIC_PROTOCOL of its socket ("" = the namespace default)
 * @ops: set to the protocol's engine ops, never NULL
 * @used: set to the name actually used (TONIC_PROTO_NAME_MAX bytes)
 *
 * Context: any, including softirq.
 * Return: the TONIC_SIG_* this end needs from the peer's receiver.
 */
u32 tonic_proto_resolve(struct net *net, const char *name,
			const struct tonic_proto_ops **ops, char *used)
{
	u32 signals;

	*ops = tonic_proto_lookup(net, name, &signals, used);
	return signals;
}

/**
 * tonic_negotiate_syn() - the wishes an active open's SYN carries
 * @sk: socket being connected, routed by @dst
 * @dst: its route
 *
 * Sets C (path MTU and TONIC_SEGMENT_SIZE), K (TONIC_WINDOW or the
 * sysctl, rounded down to a power of two), the protocol and its signals.
 */
void tonic_negotiate_syn(struct sock *sk, const struct dst_entry *dst)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tsk->seg_size = tonic_pick_seg_size(sk, dst, tsk->user_seg_size,
					    tsk->udp);
	tsk->snd_seg_size = tsk->seg_size;
	tsk->window = rounddown_pow_of_two(tonic_default_window(sk));
	/* Resolved now, so that the SYN asks the peer for our signals. */
	tsk->signals = tonic_proto_resolve(sock_net(sk), tsk->proto_name,
					   &tsk->proto_ops, tsk->proto_used);
}

/* The listener's choice: the smaller C and K, the union of the signals
 * (engine/negotiate.c); the route fits C.
 */
static void tonic_negotiate_req(const struct sock *sk,
				struct tonic_request_sock *treq,
				const struct tonic_synopt *opt,
				const struct dst_entry *dst)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_syn_choice c;
	struct tonic_syn_view v;
	u32 signals;

	tonic_syn_parse(opt, &v);
	/* The client's needs and ours: both ends receive and send. */
	signals = tonic_proto_resolve(sock_net(sk), tsk->proto_name,
				      &treq->proto_ops, treq->proto_used);
	tonic_syn_choose(&v, tonic_default_window(sk), signals,
			 tsk->user_seg_size, &c);
	treq->window = c.window;
	treq->signals = c.signals;
	treq->seg_size = tonic_pick_seg_size(sk, dst, c.seg_size, treq->udp);
}

/**
 * tonic_negotiate_synack() - accept the listener's choice
 * @sk: socket in SYN_SENT
 * @opt: the SYN-ACK's options
 *
 * Return: 0, or -EINVAL if the options are malformed (nothing changed).
 */
int tonic_negotiate_synack(struct sock *sk, const struct tonic_synopt *opt)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_syn_view v;
	int err;

	tonic_syn_parse(opt, &v);
	/* The listener answers with the union of both ends' needs. */
	err = tonic_syn_accept(&v, &tsk->seg_size, &tsk->window,
			       &tsk->signals);
	tsk->snd_seg_size = tsk->seg_size;
	return err;
}

/**
 * tonic_reqsk_alloc() - a listener's request sock from a packet's headers
 * @sk: the listener
 * @skb: the SYN, or the ACK or DATA that carries a SYN cookie
 * @af: the packet's family (IPv4's for IPv4 packets to an IPv6 listener)
 * @attach: the request holds a reference on @sk (it will be hashed)
 *
 * Return: the request with its addresses and ports, or NULL (no memory,
 * or refused by the LSM).
 */
struct request_sock *tonic_reqsk_alloc(struct sock *sk, struct sk_buff *skb,
				       const struct tonic_af_ops *af,
				       bool attach)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct inet_request_sock *ireq;
	struct request_sock *req;

	req = inet_reqsk_alloc(af->rsk_ops, sk, attach);
	if (!req)
		return NULL;
	ireq = inet_rsk(req);
	ireq->ir_mark = inet_request_mark(sk, skb);
	ireq->ir_rmt_port = th->source;
	ireq->ir_num = ntohs(th->dest);
	af->init_req(req, sk, skb);
	if (security_inet_conn_request(sk, skb, req)) {
		reqsk_free(req);
		return NULL;
	}
	return req;
}

/**
 * tonic_conn_request() - a SYN reached a listener: answer with a SYN-ACK
 *	from a new request sock (icsk_af_ops.conn_request, after the
 *	family's own checks)
 * @sk: the listener
 * @skb: the SYN
 * @af: the SYN's family (an IPv4 SYN to a dual-stack IPv6 listener:
 *	IPv4's, whose request sock, SYN-ACK and child are IPv4's)
 *
 * Context: softirq, listener bh-locked.
 * Return: 0 (SYNs that cannot be answered are counted in ListenDrops).
 */
int tonic_conn_request(struct sock *sk, struct sk_buff *skb,
		       const struct tonic_af_ops *af)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_request_sock *treq;
	bool cookie = tonic_cookie_want(sk);
	struct request_sock *req;
	struct dst_entry *dst;

	if ((!cookie && inet_csk_reqsk_queue_is_full(sk)) ||
	    sk_acceptq_is_full(sk))
		goto drop;
	req = tonic_reqsk_alloc(sk, skb, af, !cookie);
	if (!req)
		goto drop;
	treq = tonic_rsk(req);
	treq->irs = ntohl(th->seq);
	treq->iss = af->init_seq(skb);
	dst = af->route_req(sk, req);
	if (!dst)
		goto drop_and_free;
	tonic_negotiate_req(sk, treq, (const struct tonic_synopt *)(th + 1),
			    dst);
	dst_release(dst);

	if (cookie) {
		/* Stateless: everything the handshake needs is in the ISN. */
		tonic_cookie_make(sk, req, skb);
		req->rsk_ops->rtx_syn_ack(sk, req);
		reqsk_free(req);
		return 0;
	}

	/* Hash the request before the SYN-ACK leaves (as TCP does): the
	 * peer's answer may be processed on another CPU at once.  A SYN-ACK
	 * that cannot be sent now is retransmitted by the request timer.
	 */
	if (unlikely(!tonic_reqsk_hash_add(sk, req)))
		goto drop_and_free;
	req->rsk_ops->rtx_syn_ack(sk, req);
	reqsk_put(req);
	return 0;

drop_and_free:
	reqsk_free(req);
drop:
	TONIC_INC_STATS(sock_net(sk), TONIC_MIB_LISTEN_DROPS);
	return 0;
}

/**
 * tonic_child_clone() - clone a listener for a completed handshake
 * @sk: the listener
 * @req: the request sock
 *
 * Return: the child (bh-locked, set up by tonic_init_child(), an IPv6
 * child with its own IPv6 state), or NULL when the accept queue is full
 * (ListenDrops) or memory is short.
 */
struct sock *tonic_child_clone(const struct sock *sk, struct request_sock *req)
{
	struct sock *newsk;

	if (sk_acceptq_is_full(sk)) {
		TONIC_INC_STATS(sock_net(sk), TONIC_MIB_LISTEN_DROPS);
		return NULL;
	}
	newsk = inet_csk_clone_lock(sk, req, GFP_ATOMIC);
	if (!newsk)
		return NULL;
	if (newsk->sk_family == AF_INET6)
		tonic_v6_child_pinfo(sk, newsk);
	tonic_init_child(newsk, req);
	return newsk;
}

/**
 * tonic_child_hash() - give a new child its port and hash it
 * @sk: the listener
 * @newsk: the child, addresses set
 * @req_unhash: the request sock it replaces in the established table
 * @own_req: set when this child replaced it (not another CPU's)
 *
 * Return: 0, or a negative errno (then end @newsk with tonic_child_abort()).
 */
int tonic_child_hash(const struct sock *sk, struct sock *newsk,
		     struct request_sock *req_unhash, bool *own_req)
{
	bool found_dup = false;

	if (tonic_inherit_port(sk, newsk) < 0)
		return -EADDRINUSE;
	/* Without a request to replace (a SYN cookie), a socket already
	 * hashed for the 4-tuple (made by an earlier packet of the same
	 * handshake) wins and @newsk is destroyed, as in
	 * tcp_v4_syn_recv_sock().
	 */
	*own_req = tonic_ehash_nolisten(newsk, req_to_sk(req_unhash),
					req_unhash ? NULL : &found_dup);
	return 0;
}

/**
 * tonic_child_abort() - end a child that could not be set up
 * @newsk: the child from tonic_child_clone(), bh-locked (unlocked and
 *	destroyed here); free what it must not share with the request first
 */
void tonic_child_abort(struct sock *newsk)
{
	inet_csk_prepare_forced_close(newsk);
	tonic_done(newsk);
}

/**
 * tonic_reqsk_send_reset() - request_sock_ops.send_reset of both families
 * @sk: the listener
 * @skb: the packet to answer
 * @reason: unused
 */
void tonic_reqsk_send_reset(const struct sock *sk, struct sk_buff *skb,
			    enum sk_rst_reason reason)
{
	tonic_af(sk)->send_reset(sock_net(sk), skb);
}

/**
 * tonic_reqsk_send_ack() - request_sock_ops.send_ack: nothing to send
 * @sk: the listener
 * @skb: the packet
 * @req: the request sock
 *
 * The handshake ends with the client's ACK: a request never acks.
 */
void tonic_reqsk_send_ack(const struct sock *sk, struct sk_buff *skb,
			  struct request_sock *req)
{
}

/**
 * tonic_syn_ack_timeout() - request_sock_ops.syn_ack_timeout: nothing to do
 * @req: the request sock
 *
 * SYN-ACK retransmissions need no bookkeeping beyond the kernel's.
 */
void tonic_syn_ack_timeout(const struct request_sock *req)
{
}

/**
 * tonic_check_req() - a packet for a connection in the SYN-ACK phase
 * @sk: the listener
 * @skb: the packet
 * @req: the request sock
 * @stolen: set when another CPU completed the handshake first; the
 *	caller should look the packet up again
 *
 * Return: the child socket (bh-locked) once the handshake completes, or
 * NULL if the packet was consumed or must be dropped.
 */
struct sock *tonic_check_req(struct sock *sk, struct sk_buff *skb,
			     struct request_sock *req, bool *stolen)
{
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_request_sock *treq = tonic_rsk(req);
	struct sock *child;
	bool own_req;

	/* As tcp_check_req() (engine/accept.c). */
	switch (tonic_acc_req(treq->iss, treq->irs, th->type, ntohl(th->seq),
			      ntohl(th->ack))) {
	case TONIC_ACC_OK:
		break;
	case TONIC_ACC_REPLY:
		inet_rtx_syn_ack(sk, req);
		return NULL;
	case TONIC_ACC_RESET:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_RSTS_IN);
		tonic_reqsk_drop(sk, req);
		return NULL;
	case TONIC_ACC_DROP:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		return NULL;
	case TONIC_ACC_REFUSE:
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DROP_STATE);
		req->rsk_ops->send_reset(sk, skb, SK_RST_REASON_NOT_SPECIFIED);
		return NULL;
	default:
		return NULL;
	}
	child = tonic_af(sk)->syn_recv_sock(sk, skb, req, NULL, req, &own_req);
	if (!child) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_LISTEN_DROPS);
		return NULL;
	}
	if (own_req)
		TONIC_SK_INC_STATS(sk, TONIC_MIB_PASSIVE_OPENS);
	else
		*stolen = true;	/* another CPU made the child first */
	return tonic_complete_hashdance(child, req, own_req);
}

int tonic_child_process(struct sock *parent, struct sock *child,
			struct sk_buff *skb)
	__releases(child)
{
	int state = child->sk_state;

	if (!sock_owned_by_user(child)) {
		tonic_rcv(child, skb);
		if (state == TCP_SYN_RECV && child->sk_state != state)
			parent->sk_data_ready(parent);
	} else {
		__sk_add_backlog(child, skb);
	}
	bh_unlock_sock(child);
	sock_put(child);
	return 0;
}
