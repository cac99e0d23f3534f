// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: SYN cookies, both families.
 *
 * When a listener's request queue is full (net.tonic.syncookies 1) or
 * always (2), its SYN-ACK carries in our ISN what the handshake must
 * remember, and no request sock is kept; the client's final ACK (or its
 * first DATA) brings it back in @ack, and the child is made from it, as
 * tcp_conn_request() and cookie_v4_check() do for TCP.
 *
 * The ISN's arithmetic is portable (engine/cookie.c, fuzzed): count << 29
 * | (hash + data) mod 2^29, count the minute, data C, K and the signals
 * the listener chose.  Here: the hash, a keyed SipHash of the addresses,
 * ports, the client's ISN and the minute; the clock; the child.  The
 * protocol is the listener's, resolved again.
 */
#include <linux/siphash.h>
#include <net/inet_connection_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/request_sock.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"

/* a listener checks cookies this long after it last sent one (TCP's) */
#define TONIC_COOKIE_RECENT_NS	(120ULL * NSEC_PER_SEC)

static siphash_aligned_key_t tonic_cookie_key;

struct tonic_cookie_in {
	__be32 addr[8];		/* local, remote (IPv4: first word each) */
	__be16 lport;
	__be16 rport;
	u32 irs;
	u32 count;
};

/* The connection's addresses and ports, from the packet @skb. */
static void tonic_cookie_fill(struct tonic_cookie_in *in,
			      const struct sk_buff *skb, u32 irs, u32 count)
{
	const struct tonichdr *th = tonic_hdr(skb);

	memset(in, 0, sizeof(*in));
	if (ip_hdr(skb)->version == 4) {
		in->addr[0] = ip_hdr(skb)->daddr;
		in->addr[4] = ip_hdr(skb)->saddr;
#if IS_ENABLED(CONFIG_IPV6)
	} else {
		memcpy(&in->addr[0], &ipv6_hdr(skb)->daddr, 16);
		memcpy(&in->addr[4], &ipv6_hdr(skb)->saddr, 16);
#endif
	}
	in->lport = th->dest;
	in->rport = th->source;
	in->irs = irs;
	in->count = count;
}

static u32 tonic_cookie_hash(const struct sk_buff *skb, u32 irs, u32 count)
{
	struct tonic_cookie_in in;

	net_get_random_once(&tonic_cookie_key, sizeof(tonic_cookie_key));
	tonic_cookie_fill(&in, skb, irs, count);
	return siphash(&in, sizeof(in), &tonic_cookie_key);
}

static u32 tonic_cookie_time(void)
{
	return (u32)(ktime_get_seconds() / 60);
}

/**
 * tonic_cookie_want() - answer the SYN reaching @sk with a SYN cookie?
 * @sk: the listener
 *
 * Return: true if net.tonic.syncookies is 2, or 1 and the request queue
 * is full.
 */
bool tonic_cookie_want(const struct sock *sk)
{
	int mode = READ_ONCE(tonic_sk_net(sk)->syncookies);

	return mode == 2 || (mode == 1 && inet_csk_reqsk_queue_is_full(sk));
}

/**
 * tonic_cookie_make() - turn @req into a SYN cookie
 * @sk: the listener
 * @req: the request, negotiated; its C, K and signals are rounded to what
 *	a cookie carries, its ISN becomes the cookie (counted in
 *	SyncookiesSent).  The caller sends the SYN-ACK and frees @req.
 * @skb: the SYN
 */
void tonic_cookie_make(struct sock *sk, struct request_sock *req,
		       const struct sk_buff *skb)
{
	struct tonic_request_sock *treq = tonic_rsk(req);
	struct tonic_cookie_opts o = {
		.seg_size = treq->seg_size,
		.window = treq->window,
		.signals = treq->signals,
	};
	u32 data, count = tonic_cookie_time();

	data = tonic_cookie_encode(&o);
	treq->seg_size = o.seg_size;
	treq->window = o.window;
	treq->signals = o.signals;
	treq->iss = tonic_cookie_isn(count, tonic_cookie_hash(skb, treq->irs,
							      count), data);
	WRITE_ONCE(tonic_sk(sk)->cookie_at, tonic_now());
	TONIC_SK_INC_STATS(sk, TONIC_MIB_SYNCOOKIES_SENT);
}

/* The data of a cookie, or -1 if it is not one of ours or too old. */
static int tonic_cookie_data(const struct sk_buff *skb, u32 cookie, u32 irs)
{
	u32 now = tonic_cookie_time();
	int age = tonic_cookie_age(cookie, now);

	if (age < 0)
		return -1;
	return tonic_cookie_decode(cookie,
				   tonic_cookie_hash(skb, irs, now - age));
}

/**
 * tonic_cookie_check() - a packet for a listener may complete a cookie
 *	handshake
 * @sk: the listener, bh-locked
 * @skb: an ACK or DATA packet
 *
 * Return: the child (bh-locked, queued for accept()) if @skb carries a
 * valid cookie (SyncookiesRecv); NULL if it does but no child could be
 * made (drop @skb); ERR_PTR(-ENOENT) if it is no cookie
 * (SyncookiesFailed when cookies were recently sent): answer with a reset.
 */
struct sock *tonic_cookie_check(struct sock *sk, struct sk_buff *skb)
{
	const struct tonic_af_ops *af = tonic_af(sk);
	const struct tonichdr *th = tonic_hdr(skb);
	struct tonic_request_sock *treq;
	struct tonic_cookie_opts o;
	struct request_sock *req;
	struct sock *child;
	bool own_req;
	u64 sent;
	int data;

	if (th->type != TONIC_PKT_ACK && th->type != TONIC_PKT_DATA)
		return ERR_PTR(-ENOENT);
	if (!READ_ONCE(tonic_sk_net(sk)->syncookies))
		return ERR_PTR(-ENOENT);
	/* As tcp_synq_no_recent_overflow(): no cookie sent lately, none due */
	sent = READ_ONCE(tonic_sk(sk)->cookie_at);
	if (READ_ONCE(tonic_sk_net(sk)->syncookies) != 2 &&
	    (!sent || tonic_now() - sent > TONIC_COOKIE_RECENT_NS))
		return ERR_PTR(-ENOENT);

	data = tonic_cookie_data(skb, ntohl(th->ack) - 1, ntohl(th->seq) - 1);
	if (data < 0) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_SYNCOOKIES_FAILED);
		return ERR_PTR(-ENOENT);
	}

	/* The packet's family: IPv4's for IPv4 to a dual-stack listener. */
	req = tonic_reqsk_alloc(sk, skb, skb->protocol == htons(ETH_P_IP) ?
				&tonic_ipv4_af_ops : af, false);
	if (!req)
		return NULL;
	treq = tonic_rsk(req);
	treq->iss = ntohl(th->ack) - 1;
	treq->irs = ntohl(th->seq) - 1;
	tonic_cookie_opts(data, &o);
	treq->seg_size = o.seg_size;
	treq->window = o.window;
	treq->signals = o.signals;
	treq->synack_at = 0;		/* no RTT sample */
	tonic_proto_resolve(sock_net(sk), tonic_sk(sk)->proto_name,
			    &treq->proto_ops, treq->proto_used);
	TONIC_SK_INC_STATS(sk, TONIC_MIB_SYNCOOKIES_RECV);

	/* As tcp_get_cookie_sock(). */
	child = af->syn_recv_sock(sk, skb, req, NULL, NULL, &own_req);
	if (child && !own_req) {
		/* An earlier packet of this handshake made the child (it
		 * waited in our backlog with this one); it was destroyed.
		 */
		bh_unlock_sock(child);
		sock_put(child);
		child = NULL;
	}
	if (child) {
		refcount_set(&req->rsk_refcnt, 1);
		if (inet_csk_reqsk_queue_add(sk, req, child)) {
			TONIC_SK_INC_STATS(sk, TONIC_MIB_PASSIVE_OPENS);
			return child;
		}
		bh_unlock_sock(child);
		sock_put(child);
	}
	__reqsk_free(req);
	return NULL;
}
