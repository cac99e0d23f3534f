// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: keepalives (SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL,
 * TCP_KEEPCNT), as TCP's: an idle connection whose peer sent nothing for
 * KEEPIDLE seconds gets a PROBE (the peer answers with an ACK) every
 * KEEPINTVL seconds; after KEEPCNT unanswered ones it is reset with
 * ETIMEDOUT.  Only while everything sent is acknowledged: otherwise the
 * retransmission timers already detect a dead peer.  The deadline is one
 * more input of the socket's single timer (timer.c).
 */
#include <net/sock.h>
#include <net/tcp.h>

#include "protocol.h"

static u32 tonic_keep_idle(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	return tsk->keepidle ? :
	       READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_keepalive_time) / HZ;
}

static u32 tonic_keep_intvl(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	return tsk->keepintvl ? :
	       READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_keepalive_intvl) / HZ;
}

static u32 tonic_keep_cnt(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	return tsk->keepcnt ? :
	       READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_keepalive_probes);
}

/**
 * tonic_keepalive_at() - when the next keepalive probe is due
 * @sk: the socket (locked)
 *
 * Return: the time (tonic_now() clock), or 0 when none is due: keepalive
 * off, not an established connection, or data or a FIN outstanding.
 */
u64 tonic_keepalive_at(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	if (!sock_flag(sk, SOCK_KEEPOPEN) ||
	    !((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT)) ||
	    tsk->fin_sent || tsk->ctl_at || !tonic_all_acked(sk))
		return 0;
	if (!tsk->keep_probes)
		return tsk->rcv_tstamp + (u64)tonic_keep_idle(sk) * NSEC_PER_SEC;
	return tsk->keep_sent + (u64)tonic_keep_intvl(sk) * NSEC_PER_SEC;
}

/**
 * tonic_keepalive_timer() - send a due keepalive probe, or give up
 * @sk: the socket (locked, the timer's work)
 * @now: tonic_now()
 */
void tonic_keepalive_timer(struct sock *sk, u64 now)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u64 at = tonic_keepalive_at(sk);

	if (!at || now < at)
		return;
	if (tsk->keep_probes >= tonic_keep_cnt(sk)) {
		tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
		tonic_reset(sk, ETIMEDOUT);
		return;
	}
	tsk->keep_probes++;
	tsk->keep_sent = now;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_PROBES_OUT);
	tonic_send_ctl(sk, TONIC_PKT_PROBE, 0, 0, 0, 0);
}

/**
 * tonic_keepalive_rcv() - the peer is alive: a packet arrived
 * @sk: the socket (locked)
 */
void tonic_keepalive_rcv(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tsk->rcv_tstamp = tonic_now();
	tsk->keep_probes = 0;
}
