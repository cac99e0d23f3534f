// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: protocol-independent socket operations.
 *
 * State machine (TCP state numbers, as the inet_connection_sock code
 * expects): CLOSE -> SYN_SENT -> ESTABLISHED on the active side, LISTEN
 * -> (request sock) -> ESTABLISHED child on the passive side.  Closing:
 * ESTABLISHED -> FIN_WAIT1 -> FIN_WAIT2 -> CLOSE, or CLOSE_WAIT ->
 * LAST_ACK -> CLOSE, FIN_WAIT1 -> CLOSING -> CLOSE.  There is no
 * TIME_WAIT: random initial sequence numbers make stray old packets
 * harmless, and nothing pins the module after the last socket is gone.
 */
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/swap.h>
#include <linux/uaccess.h>
#include <linux/udp.h>
#include <linux/termios.h>
#include <linux/sockios.h>
#include <net/inet_common.h>
#include <net/inet_connection_sock.h>
#include <net/ip.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#include "protocol.h"
#include "engine.h"

struct percpu_counter tonic_sockets_allocated;
DEFINE_PER_CPU(unsigned int, tonic_orphan_count);
atomic_long_t tonic_memory_allocated;
DEFINE_PER_CPU(int, tonic_memory_per_cpu_fw_alloc);
unsigned long tonic_memory_pressure;
long sysctl_tonic_mem[3];
int sysctl_tonic_wmem[3] = { 4096, 1 << 21, 4 << 20 };
int sysctl_tonic_rmem[3] = { 4096, 1 << 21, 6 << 20 };

/**
 * tonic_enter_memory_pressure() - proto.enter_memory_pressure
 * @sk: the socket that hit the limit
 */
void tonic_enter_memory_pressure(struct sock *sk)
{
	WRITE_ONCE(tonic_memory_pressure, 1);
}

/**
 * tonic_orphans() - sockets closed by their user and not yet destroyed
 *
 * Return: the number, summed over CPUs.
 */
unsigned int tonic_orphans(void)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(tonic_orphan_count, cpu);
	return n;
}

/**
 * tonic_socket_init() - set up memory accounting shared by both families
 *
 * Return: 0 or a negative errno.
 */
int tonic_socket_init(void)
{
	unsigned long limit;

	limit = nr_free_buffer_pages() / 8;
	limit = max(limit, 128UL);
	sysctl_tonic_mem[0] = limit / 4 * 3;
	sysctl_tonic_mem[1] = limit;
	sysctl_tonic_mem[2] = sysctl_tonic_mem[0] * 2;
	return percpu_counter_init(&tonic_sockets_allocated, 0, GFP_KERNEL);
}

/** tonic_socket_exit() - undo tonic_socket_init() */
void tonic_socket_exit(void)
{
	percpu_counter_destroy(&tonic_sockets_allocated);
}

/**
 * tonic_default_window() - K wanted by @sk
 * @sk: the socket
 *
 * Return: TONIC_WINDOW if set, else net.tonic.window.
 */
u16 tonic_default_window(const struct sock *sk)
{
	int w = tonic_sk(sk)->user_window;

	if (!w)
		w = READ_ONCE(tonic_pernet(sock_net(sk))->window);
	return clamp(w, 1, TONIC_MAX_WINDOW);
}

/**
 * tonic_pick_seg_size() - C for a connection on route @dst
 * @sk: the socket (or listener)
 * @dst: its route
 * @wanted: the user's or peer's wish, 0 = none
 * @udp: the connection travels in UDP (8 more bytes of headers)
 *
 * Return: the segment size: path MTU minus headers, capped by @wanted.
 */
u16 tonic_pick_seg_size(const struct sock *sk, const struct dst_entry *dst,
			int wanted, bool udp)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);
	int max;

	/* The route's family: an IPv6 listener answers IPv4 SYNs too. */
	max = dst_mtu(dst) - icsk->icsk_ext_hdr_len - TONIC_HDR_LEN -
	      (dst->ops->family == AF_INET6 ? sizeof(struct ipv6hdr) :
					      sizeof(struct iphdr));
	if (udp)
		max -= sizeof(struct udphdr);
	if (!wanted)
		wanted = READ_ONCE(tonic_pernet(sock_net(sk))->segment_size);
	if (wanted > 0 && wanted < max)
		max = wanted;
	return clamp(max, TONIC_MIN_SEGMENT, TONIC_MAX_SEGMENT);
}

static void tonic_init_conn_state(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tsk->snd_una = 0;
	tsk->snd_ann = 0;
	tsk->snd_end = 0;
	tsk->subseg_wait = false;
	tsk->writing = false;
	tsk->more = false;
	tsk->proto_used[0] = '\0';
	tsk->proto_ops = NULL;
	tsk->peer_edge = 0;
	tsk->peer_wnd = 0;
	memset(tsk->segs, 0, sizeof(tsk->segs));
	tonic_rcv_init(&tsk->rcv, 0);
	tsk->rcv_adv_edge = 0;
	memset(tsk->ooo, 0, sizeof(tsk->ooo));
	memset(&tsk->lens, 0, sizeof(tsk->lens));
	tsk->fin_seg = 0;
	tsk->fin_queued = false;
	tsk->fin_sent = false;
	tsk->fin_acked = false;
	tsk->peer_fin = false;
	tsk->retries = 0;
	tsk->rto_strikes = 0;
	tsk->stall_at = 0;
	tsk->rto_ms = 0;
	tsk->flush_at = 0;
	tsk->ctl_at = 0;
	tsk->engine_at = 0;
	tsk->linger2_at = 0;
	tsk->delack_at = 0;
	tsk->eng = NULL;
	bitmap_zero(tsk->rtx_seen, TONIC_RING);
	tsk->srtt_us = 0;
	tsk->keep_probes = 0;
	tsk->keep_sent = 0;
	tsk->rcv_tstamp = 0;
	tsk->rcv_truesize = 0;
	memset(&tsk->stats, 0, sizeof(tsk->stats));
}

/**
 * tonic_init_sock() - initialise a new Tonic socket (proto.init)
 * @sk: the socket
 *
 * Return: 0.
 */
int tonic_init_sock(struct sock *sk)
{
	struct tonic_net *tn = tonic_pernet(sock_net(sk));
	struct tonic_sock *tsk = tonic_sk(sk);

	tsk->tn = tn;
	tonic_init_conn_state(sk);
	tsk->deferred = 0;
	tsk->seg_size = 0;
	tsk->snd_seg_size = 0;
	tsk->window = 0;
	tsk->signals = TONIC_NEWRENO_SIGNALS;	/* until the SYN resolves */
	tsk->user_seg_size = 0;
	tsk->user_window = 0;
	tsk->udp = false;
	tsk->udp_sport = 0;
	tsk->flush_delay_us = READ_ONCE(tn->flush_delay_us);
	tsk->nodelay = false;
	tsk->cork = false;
	tsk->proto_name[0] = '\0';
	tonic_cgroup_protocol(tsk->proto_name);	/* tonic run --protocol */
	tonic_timer_init(sk);

	sk->sk_state = TCP_CLOSE;
	sk->sk_write_space = tonic_write_space;
	/*
	 * As TCP: writers wait for send-buffer space (sk_wmem_queued),
	 * which only ACKs free (tonic_advance_head()); without this flag
	 * sock_wfree() would call sk_write_space() for every packet sent,
	 * and wake a reader sleeping on the same queue for every ACK.
	 */
	sock_set_flag(sk, SOCK_USE_WRITE_QUEUE);
	WRITE_ONCE(sk->sk_sndbuf, READ_ONCE(tn->wmem_default));
	WRITE_ONCE(sk->sk_rcvbuf, READ_ONCE(tn->rmem_default));
	inet_csk(sk)->icsk_rto = TCP_TIMEOUT_INIT;
	sk_sockets_allocated_inc(sk);
	return 0;
}

/**
 * tonic_handshake_rtt() - take the handshake's round trip as the first RTT
 * @sk: the socket
 * @sent_at: when the SYN or SYN-ACK it answers was sent (not resent: Karn)
 *
 * As TCP, so that TONIC_INFO has an RTT and the engine a first timeout of
 * 3 x RTT (RFC 6298 §2.2) before any data was acknowledged.
 *
 * The handshake's round trip is the first RTT sample, as TCP's.
 */
void tonic_handshake_rtt(struct sock *sk, u64 sent_at)
{
	u64 us = div_u64(tonic_now() - sent_at, NSEC_PER_USEC);

	tonic_sk(sk)->srtt_us = clamp_t(u64, us, 1, U32_MAX);
}

/**
 * tonic_init_child() - set up a listener's clone from its request
 * @newsk: the new child socket
 * @req: the request it answers: ISNs, what the handshake chose and, when
 *	the SYN-ACK was not resent, the first RTT sample
 *
 * A child was cloned from its listener: nothing of the listener's
 * per-connection state may survive the copy.
 */
void tonic_init_child(struct sock *newsk, const struct request_sock *req)
{
	const struct tonic_request_sock *treq = tonic_rsk(req);
	struct tonic_sock *ntsk = tonic_sk(newsk);

	tonic_init_conn_state(newsk);
	ntsk->hdr_frag.page = NULL;	/* the listener's, if it had one */
	ntsk->deferred = 0;
	tonic_timer_init(newsk);
	ntsk->iss = treq->iss;
	ntsk->irs = treq->irs;
	ntsk->seg_size = treq->seg_size;
	ntsk->snd_seg_size = treq->seg_size;
	ntsk->udp = treq->udp;
	ntsk->window = treq->window;
	ntsk->signals = treq->signals;
	ntsk->proto_ops = treq->proto_ops;
	memcpy(ntsk->proto_used, treq->proto_used, sizeof(ntsk->proto_used));
	/* Karn; a SYN cookie's child knows no send time */
	if (!req->num_retrans && treq->synack_at)
		tonic_handshake_rtt(newsk, treq->synack_at);
}

/** tonic_destroy_sock() - release a socket's resources (proto.destroy) */
void tonic_destroy_sock(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tonic_timer_stop(sk);
	tonic_sndbuf_purge(sk);
	if (tsk->hdr_frag.page)
		put_page(tsk->hdr_frag.page);
	tonic_purge_ooo(sk);
	tonic_flow_stop(sk);
	if (inet_csk(sk)->icsk_bind_hash)
		tonic_put_port(sk);
	sk_sockets_allocated_dec(sk);
}

/**
 * tonic_set_state() - change state; unhash on TCP_CLOSE
 * @sk: the socket, locked
 * @state: new TCP_* state
 */
void tonic_set_state(struct sock *sk, int state)
{
	int old = sk->sk_state;

	if (state == old)
		return;
	if (state == TCP_CLOSE) {
		sk->sk_prot->unhash(sk);
		if (inet_csk(sk)->icsk_bind_hash &&
		    !(sk->sk_userlocks & SOCK_BINDPORT_LOCK))
			tonic_put_port(sk);
	}
	inet_sk_set_state(sk, state);
}

/**
 * tonic_done() - the connection is over: CLOSE, stop timers, destroy if orphaned
 * @sk: the socket, locked
 */
void tonic_done(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	int old = sk->sk_state;

	tonic_set_state(sk, TCP_CLOSE);
	/* Only connections that were open: not listeners, not handshakes. */
	if ((1 << old) & (TCPF_ESTABLISHED | TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 |
			  TCPF_CLOSE_WAIT | TCPF_LAST_ACK | TCPF_CLOSING))
		tonic_nl_event_flow(sk, TONIC_EVENT_CLOSE, READ_ONCE(sk->sk_err));
	tsk->flush_at = 0;
	tsk->ctl_at = 0;
	tsk->engine_at = 0;
	tsk->linger2_at = 0;
	tsk->delack_at = 0;
	tonic_timer_stop(sk);
	tonic_sndbuf_purge(sk);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);

	if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_state_change(sk);
	else
		inet_csk_destroy_sock(sk);
}

/**
 * tonic_reset() - the connection was reset by the peer or aborted
 * @sk: socket, locked
 * @err: errno reported to the user (ECONNRESET, ECONNREFUSED, ETIMEDOUT)
 */
void tonic_reset(struct sock *sk, int err)
{
	WRITE_ONCE(sk->sk_err, err);
	/* Order: the error before the state change that wakes the waiter. */
	smp_wmb();
	sk_error_report(sk);
	tonic_done(sk);
}

/**
 * tonic_connection_established() - finish the handshake on @sk
 * @sk: socket entering TCP_ESTABLISHED, locked
 *
 * Starts the keepalive idle time, reports the flow over netlink and wakes
 * connect() waiters.  The engine flow is created later, at the first send
 * (tonic_flow_start() in sock/sndbuf.c), where allocation may sleep.
 *
 * Return: 0.
 */
int tonic_connection_established(struct sock *sk)
{
	tonic_set_state(sk, TCP_ESTABLISHED);
	tonic_keepalive_rcv(sk);	/* keepalive's idle time starts now */
	tonic_nl_event_flow(sk, TONIC_EVENT_OPEN, 0);
	if (!sock_flag(sk, SOCK_DEAD)) {
		sk->sk_state_change(sk);
		sk_wake_async(sk, SOCK_WAKE_IO, POLL_OUT);
	}
	return 0;
}

static bool tonic_need_reset(int state)
{
	return (1 << state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT |
			       TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 |
			       TCPF_CLOSING | TCPF_LAST_ACK | TCPF_SYN_RECV);
}

/**
 * tonic_disconnect() - proto.disconnect: abort (reset) and return to CLOSE
 * @sk: the socket, locked
 * @flags: unused
 *
 * Return: 0.
 */
int tonic_disconnect(struct sock *sk, int flags)
{
	struct inet_sock *inet = inet_sk(sk);
	int old_state = sk->sk_state;

	if (old_state == TCP_LISTEN) {
		tonic_set_state(sk, TCP_CLOSE);
		inet_csk_listen_stop(sk);
	} else if (tonic_need_reset(old_state)) {
		tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
		WRITE_ONCE(sk->sk_err, ECONNRESET);
		tonic_set_state(sk, TCP_CLOSE);
	} else if (old_state == TCP_SYN_SENT) {
		WRITE_ONCE(sk->sk_err, ECONNRESET);
		tonic_set_state(sk, TCP_CLOSE);
	}

	tonic_timer_stop(sk);
	__skb_queue_purge(&sk->sk_receive_queue);
	tonic_purge_ooo(sk);
	tonic_sndbuf_purge(sk);
	tonic_flow_stop(sk);
	tonic_init_conn_state(sk);

	inet->inet_dport = 0;
	tonic_reset_saddr(sk);
	WRITE_ONCE(sk->sk_shutdown, 0);
	sock_reset_flag(sk, SOCK_DONE);
	__sk_dst_reset(sk);
	tonic_rx_dst_forget(sk);
	sk_error_report(sk);
	return 0;
}

/* Queue our FIN after the data (shutdown(SHUT_WR) or close()). */
static void tonic_queue_fin(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	switch (sk->sk_state) {
	case TCP_ESTABLISHED:
		tonic_set_state(sk, TCP_FIN_WAIT1);
		break;
	case TCP_CLOSE_WAIT:
		tonic_set_state(sk, TCP_LAST_ACK);
		break;
	default:
		return;
	}
	tsk->fin_queued = true;
	tonic_push(sk);
}

/**
 * tonic_shutdown() - proto.shutdown: SEND_SHUTDOWN queues the FIN
 * @sk: the socket, locked
 * @how: RCV_SHUTDOWN and/or SEND_SHUTDOWN
 */
void tonic_shutdown(struct sock *sk, int how)
{
	if (!(how & SEND_SHUTDOWN))
		return;
	tonic_queue_fin(sk);
}

/**
 * tonic_close() - proto.close: FIN after the data, or a reset if unread
 *	data is discarded or SO_LINGER is {1, 0}; the socket is orphaned
 * @sk: the socket
 * @timeout: SO_LINGER time to wait for the FIN to be acknowledged
 */
void tonic_close(struct sock *sk, long timeout)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 data_was_unread = 0;
	struct sk_buff *skb;
	int state;

	lock_sock(sk);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);

	if (sk->sk_state == TCP_LISTEN) {
		tonic_set_state(sk, TCP_CLOSE);
		inet_csk_listen_stop(sk);
		goto adjudge_to_death;
	}

	while ((skb = __skb_dequeue(&sk->sk_receive_queue)) != NULL) {
		data_was_unread += skb->len - TONIC_SKB_CB(skb)->offset;
		__kfree_skb(skb);
	}
	if (tsk->rcv.held)
		data_was_unread++;
	tonic_purge_ooo(sk);

	if (sk->sk_state == TCP_CLOSE)
		goto adjudge_to_death;

	if (sk->sk_state == TCP_SYN_SENT) {
		tonic_set_state(sk, TCP_CLOSE);
	} else if (data_was_unread) {
		/* Unread data was discarded: tell the peer with a reset. */
		tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
		tonic_set_state(sk, TCP_CLOSE);
	} else if (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime) {
		sk->sk_prot->disconnect(sk, 0);
	} else {
		tonic_queue_fin(sk);
	}

	sk_stream_wait_close(sk, timeout);

adjudge_to_death:
	state = sk->sk_state;
	sock_hold(sk);
	sock_orphan(sk);
	release_sock(sk);

	local_bh_disable();
	bh_lock_sock(sk);
	WARN_ON(sock_owned_by_user(sk));
	this_cpu_inc(tonic_orphan_count);

	/* Already destroyed by the backlog while we released the lock? */
	if (state != TCP_CLOSE && sk->sk_state == TCP_CLOSE)
		goto out;

	if (sk->sk_state == TCP_FIN_WAIT2 && !tsk->linger2_at) {
		tsk->linger2_at = tonic_now() + 60ULL * NSEC_PER_SEC;
		tonic_timer_update(sk);
	}
	if (sk->sk_state == TCP_CLOSE)
		tonic_done(sk);
out:
	bh_unlock_sock(sk);
	local_bh_enable();
	sock_put(sk);
}

/**
 * tonic_inet_listen() - proto_ops.listen
 * @sock: the socket
 * @backlog: bound on request socks and unaccepted children
 *
 * Return: 0 or -EINVAL.
 */
int tonic_inet_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	int old_state, err;

	/* Open the namespace's UDP port, so that SYNs in UDP find us. */
	tonic_udp_choose(sk);
	lock_sock(sk);
	err = -EINVAL;
	if (sock->state != SS_UNCONNECTED || sock->type != SOCK_STREAM)
		goto out;
	old_state = sk->sk_state;
	if (!((1 << old_state) & (TCPF_CLOSE | TCPF_LISTEN)))
		goto out;

	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	if (old_state != TCP_LISTEN) {
		err = inet_csk_listen_start(sk);
		if (err)
			goto out;
	}
	err = 0;
out:
	release_sock(sk);
	return err;
}

/**
 * tonic_write_space() - sk_write_space for stream accounting
 *	(sk_wmem_queued), a copy of the unexported sk_stream_write_space()
 * @sk: the socket
 */
void tonic_write_space(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;
	struct socket_wq *wq;

	if (__sk_stream_is_writeable(sk, 1) && sock) {
		clear_bit(SOCK_NOSPACE, &sock->flags);
		rcu_read_lock();
		wq = rcu_dereference(sk->sk_wq);
		if (skwq_has_sleeper(wq))
			wake_up_interruptible_poll(&wq->wait, EPOLLOUT |
						   EPOLLWRNORM | EPOLLWRBAND);
		if (wq && wq->fasync_list && !(sk->sk_shutdown & SEND_SHUTDOWN))
			sock_wake_async(wq, SOCK_WAKE_SPACE, POLL_OUT);
		rcu_read_unlock();
	}
}

/**
 * tonic_poll() - proto_ops.poll, as tcp_poll()
 * @file: the file
 * @sock: the socket
 * @wait: poll table
 *
 * Return: EPOLL* mask.
 */
__poll_t tonic_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;
	u8 shutdown;
	int state;

	sock_poll_wait(file, sock, wait);

	state = inet_sk_state_load(sk);
	if (state == TCP_LISTEN)
		return inet_csk_listen_poll(sk);

	shutdown = READ_ONCE(sk->sk_shutdown);
	if (shutdown == SHUTDOWN_MASK || state == TCP_CLOSE)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;

	if (state != TCP_SYN_SENT && state != TCP_SYN_RECV) {
		if (!skb_queue_empty_lockless(&sk->sk_receive_queue))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (!(shutdown & SEND_SHUTDOWN)) {
			if (sk_stream_is_writeable(sk)) {
				mask |= EPOLLOUT | EPOLLWRNORM;
			} else {
				sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
				set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
				/* Race breaker, as in tcp_poll(). */
				smp_mb__after_atomic();
				if (sk_stream_is_writeable(sk))
					mask |= EPOLLOUT | EPOLLWRNORM;
			}
		} else {
			mask |= EPOLLOUT | EPOLLWRNORM;
		}
	}
	/* Pairs with the smp_wmb() in tonic_reset(). */
	smp_rmb();
	if (READ_ONCE(sk->sk_err) ||
	    !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	return mask;
}

/**
 * tonic_ioctl() - proto.ioctl: SIOCINQ and SIOCOUTQ
 * @sk: the socket
 * @cmd: ioctl
 * @karg: result
 *
 * Return: 0, -EINVAL on a listener, or -ENOIOCTLCMD.
 */
int tonic_ioctl(struct sock *sk, int cmd, int *karg)
{
	struct sk_buff *skb;
	int n = 0;

	switch (cmd) {
	case SIOCINQ:
		if (sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		lock_sock(sk);
		skb_queue_walk(&sk->sk_receive_queue, skb)
			n += skb->len - TONIC_SKB_CB(skb)->offset;
		release_sock(sk);
		*karg = n;
		return 0;
	case SIOCOUTQ:
		if (sk->sk_state == TCP_LISTEN)
			return -EINVAL;
		lock_sock(sk);
		n = tonic_sndbuf_bytes(sk);
		release_sock(sk);
		*karg = n;
		return 0;
	default:
		return -ENOIOCTLCMD;
	}
}

/* MSG_MORE holds the short tail like TCP_CORK, until a write without it. */
static void tonic_set_more(struct sock *sk, bool more)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	if (tsk->more && !more)
		tsk->flush_at = 0;	/* Nagle's rule again, not the cork limit */
	tsk->more = more;
}

/**
 * tonic_sendmsg() - proto.sendmsg: append to the send buffer
 * @sk: the socket
 * @msg: the data
 * @size: its length
 *
 * Return: bytes queued or a negative errno (EPIPE, EAGAIN, ...).
 */
int tonic_sendmsg(struct sock *sk, struct msghdr *msg, size_t size)
{
	long timeo;
	int err;

	if (msg->msg_flags & MSG_OOB)
		return -EOPNOTSUPP;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	tonic_set_more(sk, msg->msg_flags & MSG_MORE);

	if (!((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT))) {
		err = sk_stream_wait_connect(sk, &timeo);
		if (err)
			goto out_err;
	}
	err = tonic_sndbuf_append(sk, msg, size, &timeo);
	if (err < 0)
		goto out_err;
	release_sock(sk);
	return err;

out_err:
	err = sk_stream_error(sk, msg->msg_flags, err);
	release_sock(sk);
	return err;
}

/**
 * tonic_recvmsg() - proto.recvmsg: read the in-order byte stream
 * @sk: the socket
 * @msg: destination
 * @len: bytes wanted
 * @flags: MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT
 * @addr_len: unused
 *
 * Return: bytes read, 0 at EOF, or a negative errno.
 */
int tonic_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		  int *addr_len)
{
	size_t copied = 0;
	int target, err = 0;
	long timeo;

	if (flags & (MSG_OOB | MSG_ERRQUEUE))
		return -EOPNOTSUPP;

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		err = -ENOTCONN;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);

	while (copied < len) {
		u32 skip = (flags & MSG_PEEK) ? copied : 0;
		struct sk_buff *skb;
		bool found = false;

		skb_queue_walk(&sk->sk_receive_queue, skb) {
			struct tonic_skb_cb *cb = TONIC_SKB_CB(skb);
			u32 avail = skb->len - cb->offset;
			u32 chunk;

			if (skip >= avail) {
				skip -= avail;
				continue;
			}
			chunk = min_t(size_t, avail - skip, len - copied);
			if (skb_copy_datagram_msg(skb, cb->offset + skip, msg,
						  chunk)) {
				if (!copied)
					err = -EFAULT;
				goto out_done;
			}
			copied += chunk;
			if (!(flags & MSG_PEEK)) {
				cb->offset += chunk;
				if (cb->offset >= skb->len) {
					__skb_unlink(skb, &sk->sk_receive_queue);
					__kfree_skb(skb);
				}
			}
			found = true;
			break;
		}
		if (found)
			continue;

		/* Nothing (more) queued. */
		if (copied >= target && !READ_ONCE(sk->sk_backlog.tail))
			break;
		if (copied) {
			if (sk->sk_err || sk->sk_state == TCP_CLOSE ||
			    (sk->sk_shutdown & RCV_SHUTDOWN) || !timeo ||
			    signal_pending(current))
				break;
		} else {
			if (sock_flag(sk, SOCK_DONE))
				break;
			if (sk->sk_err) {
				err = sock_error(sk);
				break;
			}
			if (sk->sk_shutdown & RCV_SHUTDOWN)
				break;
			if (sk->sk_state == TCP_CLOSE) {
				err = -ENOTCONN;
				break;
			}
			if (!timeo) {
				err = -EAGAIN;
				break;
			}
			if (signal_pending(current)) {
				err = sock_intr_errno(timeo);
				break;
			}
		}
		if (!(flags & MSG_PEEK))
			tonic_rcv_space(sk);
		sk_wait_data(sk, &timeo, NULL);
	}
out_done:
	if (copied && !(flags & MSG_PEEK))
		tonic_rcv_space(sk);
out:
	release_sock(sk);
	return copied ? copied : err;
}

static int tonic_setsockopt_tonic(struct sock *sk, int optname, int val)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	int err = 0;

	lock_sock(sk);
	switch (optname) {
	case TONIC_SEGMENT_SIZE:
		if (val && (val < TONIC_MIN_SEGMENT || val > TONIC_MAX_SEGMENT))
			err = -EINVAL;
		else if (!((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_LISTEN)))
			err = -EISCONN;
		else
			tsk->user_seg_size = val;
		break;
	case TONIC_FLUSH_DELAY:
		if (val < 0 || val > USEC_PER_SEC) {
			err = -EINVAL;
		} else {
			tsk->flush_delay_us = val;
			if (tsk->flush_at) {
				tsk->flush_at = tonic_now() + val * NSEC_PER_USEC;
				tonic_push(sk);
			}
		}
		break;
	case TONIC_WINDOW:
		if (val < 1 || val > TONIC_MAX_WINDOW)
			err = -EINVAL;
		else if (!((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_LISTEN)))
			err = -EISCONN;
		else
			tsk->user_window = val;
		break;
	default:
		err = -ENOPROTOOPT;
	}
	release_sock(sk);
	return err;
}

/**
 * tonic_copy_proto_name() - a protocol name from setsockopt, as TCP_CONGESTION
 * @optval: the option value
 * @optlen: its length (longer names are cut)
 * @name: TONIC_PROTO_NAME_MAX bytes, NUL-terminated on success
 *
 * Return: 0, -EINVAL for an empty option or -EFAULT.
 */
int tonic_copy_proto_name(sockptr_t optval, unsigned int optlen, char *name)
{
	long len;

	if (optlen < 1)
		return -EINVAL;
	len = strncpy_from_sockptr(name, optval,
				   min_t(long, TONIC_PROTO_NAME_MAX - 1, optlen));
	if (len < 0)
		return -EFAULT;
	name[len] = '\0';
	return 0;
}

static int tonic_set_protocol(struct sock *sk, sockptr_t optval,
			      unsigned int optlen)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	char name[TONIC_PROTO_NAME_MAX];
	int err;

	err = tonic_copy_proto_name(optval, optlen, name);
	if (err)
		return err;
	lock_sock(sk);
	if (sk->sk_state != TCP_CLOSE)
		err = -EISCONN;		/* resolved at connect/listen */
	else if (!name[0])
		err = 0;		/* back to the namespace default */
	else
		err = tonic_proto_select(sk, name);
	if (!err)
		strscpy(tsk->proto_name, name, sizeof(tsk->proto_name));
	release_sock(sk);
	return err;
}

/**
 * tonic_protocol_name() - the protocol name TONIC_PROTOCOL reports
 * @sk: the socket (locked)
 * @buf: TONIC_PROTO_NAME_MAX bytes: the name in use, else the chosen
 *	one, else the namespace default
 *
 * The name TONIC_PROTOCOL and TONIC_INFO report (TONIC_PROTO_NAME_MAX).
 */
void tonic_protocol_name(struct sock *sk, char *buf)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	memset(buf, 0, TONIC_PROTO_NAME_MAX);
	if (tsk->proto_used[0])
		strscpy(buf, tsk->proto_used, TONIC_PROTO_NAME_MAX);
	else if (tsk->proto_name[0])
		strscpy(buf, tsk->proto_name, TONIC_PROTO_NAME_MAX);
	else
		tonic_proto_default(sock_net(sk), buf);
}

/**
 * tonic_setsockopt() - proto.setsockopt: SOL_TONIC options, TCP_NODELAY,
 *	everything else to the IP layer
 * @sk: the socket
 * @level: option level
 * @optname: option
 * @optval: value
 * @optlen: its length
 *
 * Return: 0 or the errno TCP would return.
 */
int tonic_setsockopt(struct sock *sk, int level, int optname,
		     sockptr_t optval, unsigned int optlen)
{
	int val;

	if (level != SOL_TONIC && level != SOL_TCP)
		return inet_csk(sk)->icsk_af_ops->setsockopt(sk, level, optname,
							      optval, optlen);
	if (level == SOL_TCP)
		return tonic_tcp_setsockopt(sk, optname, optval, optlen);
	if (optname == TONIC_PROTOCOL)
		return tonic_set_protocol(sk, optval, optlen);
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	if (optname == TONIC_INFO)
		return -ENOPROTOOPT;
	return tonic_setsockopt_tonic(sk, optname, val);
}

/**
 * __tonic_get_info() - fill struct tonic_info (TONIC_INFO) for @sk
 * @sk: a Tonic socket; the caller holds its lock (owned or bh)
 * @info: filled in completely
 */
void __tonic_get_info(struct sock *sk, struct tonic_info *info)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	memset(info, 0, sizeof(*info));
	info->state = sk->sk_state;
	info->segment_size = tsk->snd_seg_size;
	info->window = tsk->window;
	info->peer_window = tsk->peer_wnd;
	info->flush_delay_us = tsk->flush_delay_us;
	info->signals = tsk->signals;
	info->outstanding = tsk->snd_ann - tsk->snd_una;
	info->retransmits = tsk->stats.retransmits;
	info->timeouts = tsk->stats.timeouts;
	info->segs_out = tsk->stats.segs_out;
	info->segs_in = tsk->stats.segs_in;
	info->bytes_acked = tsk->stats.bytes_acked;
	info->bytes_received = tsk->stats.bytes_received;
	info->dup_segs_in = tsk->stats.dup_segs_in;
	info->ooo_segs_in = tsk->stats.ooo_segs_in;
	info->subsegments = tsk->stats.subsegments;
	info->rtt_us = tsk->srtt_us;
	tonic_protocol_name(sk, info->protocol);
	tonic_flow_info(sk, info);
}

static void tonic_get_info(struct sock *sk, struct tonic_info *info)
{
	lock_sock(sk);
	__tonic_get_info(sk, info);
	release_sock(sk);
}

/**
 * tonic_getsockopt() - proto.getsockopt: SOL_TONIC options and TONIC_INFO
 * @sk: the socket
 * @level: option level
 * @optname: option
 * @optval: user buffer
 * @optlen: in/out length
 *
 * Return: 0 or a negative errno.
 */
int tonic_getsockopt(struct sock *sk, int level, int optname,
		     char __user *optval, int __user *optlen)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	char name[TONIC_PROTO_NAME_MAX];
	struct tonic_info info;
	int len, val;

	if (level != SOL_TONIC && level != SOL_TCP)
		return inet_csk(sk)->icsk_af_ops->getsockopt(sk, level, optname,
							      optval, optlen);
	if (level == SOL_TCP)
		return tonic_tcp_getsockopt(sk, optname, optval, optlen);
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	case TONIC_SEGMENT_SIZE:
		val = tsk->seg_size && sk->sk_state != TCP_CLOSE &&
		      sk->sk_state != TCP_LISTEN ? tsk->snd_seg_size :
		      tsk->user_seg_size;
		break;
	case TONIC_FLUSH_DELAY:
		val = tsk->flush_delay_us;
		break;
	case TONIC_WINDOW:
		val = tsk->window && sk->sk_state != TCP_CLOSE &&
		      sk->sk_state != TCP_LISTEN ? tsk->window :
		      tonic_default_window(sk);
		break;
	case TONIC_INFO:
		tonic_get_info(sk, &info);
		len = min_t(unsigned int, len, sizeof(info));
		if (put_user(len, optlen))
			return -EFAULT;
		if (copy_to_user(optval, &info, len))
			return -EFAULT;
		return 0;
	case TONIC_PROTOCOL:
		lock_sock(sk);
		tonic_protocol_name(sk, name);
		release_sock(sk);
		len = min_t(unsigned int, len, TONIC_PROTO_NAME_MAX);
		if (put_user(len, optlen))
			return -EFAULT;
		if (copy_to_user(optval, name, len))
			return -EFAULT;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	len = min_t(unsigned int, len, sizeof(int));
	if (put_user(len, optlen))
		return -EFAULT;
	if (copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

/**
 * tonic_mtu_reduced() - cut the segments to come to a lower path MTU
 * @sk: the socket, not owned by its user (or in release_cb)
 * @dst: its route, holding the new path MTU
 *
 * What tcp_sync_mss() does for TCP: the segments cut from now on fit the
 * path, their header naming their C (tonic_data_c()), and the engine
 * charges and shows programs the new C.  The segments already cut (the
 * send buffer's runs, announced or not) keep theirs: segment numbers are
 * the unit of sequence space, acknowledgement and the engine's bitmaps,
 * so a numbered segment is never split.  IP fragments them (ignore_df).
 */
void tonic_mtu_reduced(struct sock *sk, struct dst_entry *dst)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u16 c;

	if (!tsk->snd_seg_size)
		return;
	c = tonic_pick_seg_size(sk, dst, tsk->user_seg_size, tsk->udp);
	if (c >= tsk->snd_seg_size)
		return;
	tsk->snd_seg_size = c;
	if (tsk->eng)
		tonic_engine_flow_resize(tsk->eng, TONIC_FLOW_ID, c);
}

/**
 * tonic_pmtu_event() - an ICMP error reported path MTU @mtu for @sk
 * @sk: the socket, bh-locked
 * @mtu: the MTU the error reported
 *
 * As TCP: handled now, or by tonic_release_cb() if the user holds @sk.
 */
void tonic_pmtu_event(struct sock *sk, u32 mtu)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	WRITE_ONCE(tsk->mtu_info, mtu);
	if (!sock_owned_by_user(sk))
		inet_csk(sk)->icsk_af_ops->mtu_reduced(sk);
	else if (!test_and_set_bit(TONIC_DEFER_MTU, &tsk->deferred))
		sock_hold(sk);
}

/**
 * tonic_release_cb() - proto.release_cb: run deferred timer work and arm
 *	the timer (called by release_sock() with the spinlock held)
 * @sk: the socket
 */
void tonic_release_cb(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	/* release_sock() holds the socket spinlock with BHs off here. */
	if (test_and_clear_bit(TONIC_DEFER_TIMER, &tsk->deferred)) {
		tonic_timer_work(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(TONIC_DEFER_ARM, &tsk->deferred))
		__tonic_timer_update(sk);
	if (test_and_clear_bit(TONIC_DEFER_MTU, &tsk->deferred)) {
		inet_csk(sk)->icsk_af_ops->mtu_reduced(sk);
		__sock_put(sk);
	}
}
