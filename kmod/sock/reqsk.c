// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: request socks (half-open passive connections).
 *
 * A listener's request sock waits in the established table (hash.c) for
 * the client's final ACK, and its timer retransmits the SYN-ACK, as
 * TCP's (inet_connection_sock.c): up to TCP_SYNCNT or
 * net.ipv4.tcp_synack_retries times, backing off from TCP_TIMEOUT_INIT to
 * TCP_RTO_MAX, fewer times for old requests while the queue is more than
 * half full.  The kernel's own functions would unlink a request from
 * TCP's table.  A request whose listener closed is dropped, never
 * migrated to another SO_REUSEPORT listener (net.ipv4.tcp_migrate_req).
 *
 * References on a hashed request: one for the table, one for the timer.
 */
#include <linux/timer.h>
#include <net/inet_connection_sock.h>
#include <net/inet_hashtables.h>
#include <net/request_sock.h>
#include <net/tcp.h>

#include "protocol.h"

/* Out of the table, and its timer stopped unless it is the caller. */
static bool tonic_reqsk_unlink(struct sock *sk, struct request_sock *req,
			       bool from_timer)
{
	struct sock *rsk = req_to_sk(req);
	bool found = false;

	if (sk_hashed(rsk)) {
		spinlock_t *lock = inet_ehash_lockp(&tonic_hashinfo,
						    req->rsk_hash);

		spin_lock(lock);
		found = __sk_nulls_del_node_init_rcu(rsk);
		spin_unlock(lock);
	}
	if (!from_timer && timer_delete_sync(&req->rsk_timer))
		reqsk_put(req);
	if (found) {
		reqsk_queue_removed(&inet_csk(sk)->icsk_accept_queue, req);
		reqsk_put(req);
	}
	return found;
}

static void tonic_reqsk_timer(struct timer_list *t)
{
	struct request_sock *req = from_timer(req, t, rsk_timer);
	struct sock *sk = req->rsk_listener;
	struct request_sock_queue *queue = &inet_csk(sk)->icsk_accept_queue;
	int retries;
	u32 qlen;

	if (inet_sk_state_load(sk) != TCP_LISTEN)
		goto drop;
	retries = READ_ONCE(inet_csk(sk)->icsk_syn_retries) ? :
		  READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_synack_retries);
	/* Half the queue is kept for young requests: when old ones fill
	 * the other half they get fewer retries (reqsk_timer_handler()).
	 */
	qlen = reqsk_queue_len(queue);
	if ((qlen << 1) > max(8U, READ_ONCE(sk->sk_max_ack_backlog))) {
		u32 young = reqsk_queue_len_young(queue) << 1;

		while (retries > 2) {
			if (qlen < young)
				break;
			retries--;
			young <<= 1;
		}
	}
	req->rsk_ops->syn_ack_timeout(req);
	if (req->num_timeout < retries && !inet_rtx_syn_ack(sk, req)) {
		if (req->num_timeout++ == 0)
			atomic_dec(&queue->young);
		mod_timer(&req->rsk_timer,
			  jiffies + reqsk_timeout(req, TCP_RTO_MAX));
		return;
	}
drop:
	tonic_reqsk_unlink(sk, req, true);
	reqsk_put(req);
}

/**
 * tonic_reqsk_hash_add() - a listener keeps a new request
 * @sk: the listener
 * @req: the request; its first timeout is req->timeout
 *
 * As inet_csk_reqsk_queue_hash_add().
 *
 * Return: false if a socket of the same 4-tuple is hashed already.
 */
bool tonic_reqsk_hash_add(struct sock *sk, struct request_sock *req)
{
	bool dup = false;

	if (!tonic_ehash_insert(req_to_sk(req), NULL, &dup))
		return false;
	timer_setup(&req->rsk_timer, tonic_reqsk_timer, TIMER_PINNED);
	mod_timer(&req->rsk_timer, jiffies + req->timeout);
	/* lookups take a reference only once the fields are visible */
	smp_wmb();
	refcount_set(&req->rsk_refcnt, 2 + 1);
	inet_csk_reqsk_queue_added(sk);
	return true;
}

/**
 * tonic_reqsk_drop() - forget a request (reset, ICMP error, listener gone)
 * @sk: its listener
 * @req: the request, a reference held by the caller
 *
 * Return: true if it was still in the table.
 */
bool tonic_reqsk_drop(struct sock *sk, struct request_sock *req)
{
	return tonic_reqsk_unlink(sk, req, false);
}

/**
 * tonic_reqsk_drop_and_put() - tonic_reqsk_drop(), then drop the caller's
 *	reference
 * @sk: its listener
 * @req: the request
 */
void tonic_reqsk_drop_and_put(struct sock *sk, struct request_sock *req)
{
	tonic_reqsk_drop(sk, req);
	reqsk_put(req);
}

/**
 * tonic_complete_hashdance() - the handshake completed: the child
 *	replaces its request in the listener's accept queue
 * @child: the child, bh-locked (unlocked and released on failure)
 * @req: the request
 * @own_req: this CPU's child replaced @req in the table
 *
 * As inet_csk_complete_hashdance() for the request's own listener.
 *
 * Return: @child, or NULL (another CPU's child won, or the listener is
 * closing).
 */
struct sock *tonic_complete_hashdance(struct sock *child,
				      struct request_sock *req, bool own_req)
{
	struct sock *sk = req->rsk_listener;

	if (own_req) {
		/* the child took its table entry: only the timer is left */
		tonic_reqsk_drop(sk, req);
		reqsk_queue_removed(&inet_csk(sk)->icsk_accept_queue, req);
		if (inet_csk_reqsk_queue_add(sk, req, child))
			return child;
	}
	bh_unlock_sock(child);
	sock_put(child);
	return NULL;
}
