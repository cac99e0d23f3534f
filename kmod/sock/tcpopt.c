// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the SOL_TCP options real TCP programs set or read
 * (issue 16), so that a program moved onto Tonic by `tonic run` keeps
 * working.  Each is mapped onto Tonic's own mechanism, or accepted and
 * kept for getsockopt as a documented no-op; keepalives are real
 * (keepalive.c) (Documentation/sockets.md,
 * "TCP options"); TCP_FASTOPEN is refused, so programs fall back.
 * Ranges and errnos follow net/ipv4/tcp.c.
 */
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "protocol.h"

/* Linux congestion controls: accepted, the Tonic protocol stays. */
static const char * const tonic_linux_cc[] = {
	"cubic", "reno", "bbr", "dctcp", "htcp", "vegas", "westwood",
	"bic", "highspeed", "hybla", "illinois", "lp", "nv", "scalable",
	"veno", "yeah", "cdg",
};

/* A short tail held by TCP_CORK or MSG_MORE is due as soon as that ends. */
static void tonic_release_tail(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	if (tsk->flush_at)
		tsk->flush_at = tonic_now();
	tonic_push(sk);
}

/* TCP_CONGESTION: a Tonic protocol's name selects it, as TONIC_PROTOCOL. */
static int tonic_set_congestion(struct sock *sk, sockptr_t optval,
				unsigned int optlen)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	char name[TONIC_PROTO_NAME_MAX];
	char cur[TONIC_PROTO_NAME_MAX];
	int i, err;

	err = tonic_copy_proto_name(optval, optlen, name);
	if (err)
		return err;

	for (i = 0; i < ARRAY_SIZE(tonic_linux_cc); i++)
		if (!strcmp(name, tonic_linux_cc[i]))
			return 0;
	lock_sock(sk);
	tonic_protocol_name(sk, cur);
	/* as tcp_set_congestion_control(): the same name is no change;
	 * else ENOENT or EPERM in any state, then kept only before
	 * connect/listen (a live connection keeps its protocol)
	 */
	if (strncmp(cur, name, TONIC_PROTO_NAME_MAX))
		err = tonic_proto_select(sk, name);
	if (!err && sk->sk_state == TCP_CLOSE)
		strscpy(tsk->proto_name, name, sizeof(tsk->proto_name));
	release_sock(sk);
	return err;
}

/* The integer options. */
static int tonic_set_tcp_int(struct sock *sk, int optname, int val)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	int err = 0;

	lock_sock(sk);
	switch (optname) {
	case TCP_NODELAY:
		tsk->nodelay = !!val;
		if (val)	/* as TCP: pending data goes now */
			tonic_release_tail(sk);
		break;
	case TCP_CORK:
		tsk->cork = !!val;
		if (!val)
			tonic_release_tail(sk);
		break;
	case TCP_QUICKACK:
		break;		/* ACKs needing haste are sent at once anyway */
	case TCP_KEEPIDLE:
		if (val < 1 || val > MAX_TCP_KEEPIDLE)
			err = -EINVAL;
		else
			tsk->keepidle = val;
		tonic_timer_update(sk);	/* keepalive's deadline moved */
		break;
	case TCP_KEEPINTVL:
		if (val < 1 || val > MAX_TCP_KEEPINTVL)
			err = -EINVAL;
		else
			tsk->keepintvl = val;
		tonic_timer_update(sk);	/* keepalive's deadline moved */
		break;
	case TCP_KEEPCNT:
		if (val < 1 || val > MAX_TCP_KEEPCNT)
			err = -EINVAL;
		else
			tsk->keepcnt = val;
		tonic_timer_update(sk);	/* keepalive's deadline moved */
		break;
	case TCP_USER_TIMEOUT:
		if (val < 0)
			err = -EINVAL;
		else
			WRITE_ONCE(inet_csk(sk)->icsk_user_timeout, val);
		break;
	case TCP_MAXSEG:
		/* C is chosen by the handshake: later values are kept only */
		if (val && (val < TCP_MIN_MSS || val > MAX_TCP_WINDOW))
			err = -EINVAL;
		else if ((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_LISTEN))
			tsk->user_seg_size = val ?
				clamp(val, TONIC_MIN_SEGMENT, TONIC_MAX_SEGMENT) : 0;
		break;
	case TCP_DEFER_ACCEPT:
		tsk->defer_accept = max(val, 0);	/* kept, not applied */
		break;
	case TCP_FASTOPEN:
	case TCP_FASTOPEN_CONNECT:
	case TCP_FASTOPEN_NO_COOKIE:
		err = -EOPNOTSUPP;
		break;
	default:
		err = -ENOPROTOOPT;
	}
	release_sock(sk);
	return err;
}

/**
 * tonic_tcp_setsockopt() - setsockopt(SOL_TCP) on a Tonic socket
 * @sk: the socket
 * @optname: TCP_*
 * @optval: the value
 * @optlen: its length
 *
 * Return: 0 or a negative errno, as TCP's for the same value.
 */
int tonic_tcp_setsockopt(struct sock *sk, int optname, sockptr_t optval,
			 unsigned int optlen)
{
	int val;

	if (optname == TCP_CONGESTION)
		return tonic_set_congestion(sk, optval, optlen);
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	return tonic_set_tcp_int(sk, optname, val);
}

/* struct tcp_info from Tonic's state (TONIC_INFO), as tools read it. */
static void tonic_tcp_info(struct sock *sk, struct tcp_info *ti)
{
	struct tonic_info info;

	memset(ti, 0, sizeof(*ti));
	lock_sock(sk);
	__tonic_get_info(sk, &info);
	ti->tcpi_rto = jiffies_to_usecs(inet_csk(sk)->icsk_rto);
	release_sock(sk);
	ti->tcpi_state = info.state;
	ti->tcpi_snd_mss = info.segment_size;
	ti->tcpi_rcv_mss = info.segment_size;
	ti->tcpi_advmss = info.segment_size;
	ti->tcpi_unacked = info.outstanding;
	ti->tcpi_rtt = info.rtt_us;
	ti->tcpi_rttvar = info.rtt_us / 2;	/* no variance kept: RFC 6298's start */
	ti->tcpi_snd_cwnd = info.cwnd ?: info.window;
	ti->tcpi_snd_ssthresh = TCP_INFINITE_SSTHRESH;
	ti->tcpi_rcv_ssthresh = info.window * info.segment_size;
	ti->tcpi_reordering = 3;
	ti->tcpi_snd_wnd = info.peer_window * info.segment_size;
	ti->tcpi_total_retrans = info.retransmits;
	ti->tcpi_retrans = 0;
	ti->tcpi_segs_out = info.segs_out;
	ti->tcpi_segs_in = info.segs_in;
	ti->tcpi_data_segs_out = info.segs_out;
	ti->tcpi_data_segs_in = info.segs_in;
	ti->tcpi_bytes_acked = info.bytes_acked;
	ti->tcpi_bytes_sent = info.bytes_acked;
	ti->tcpi_bytes_received = info.bytes_received;
	ti->tcpi_bytes_retrans = info.retransmits * info.segment_size;
	ti->tcpi_pacing_rate = info.rate ?: ~0ULL;
	ti->tcpi_max_pacing_rate = ~0ULL;
	ti->tcpi_dsack_dups = info.dup_segs_in;
	ti->tcpi_reord_seen = info.ooo_segs_in;
}

static int tonic_tcp_get_int(struct sock *sk, int optname, int *val)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	const struct net *net = sock_net(sk);

	switch (optname) {
	case TCP_NODELAY:
		*val = tsk->nodelay;
		break;
	case TCP_CORK:
		*val = tsk->cork;
		break;
	case TCP_QUICKACK:
		*val = 1;	/* never in TCP's "pingpong" delayed mode */
		break;
	case TCP_KEEPIDLE:
		*val = tsk->keepidle ?:
		       READ_ONCE(net->ipv4.sysctl_tcp_keepalive_time) / HZ;
		break;
	case TCP_KEEPINTVL:
		*val = tsk->keepintvl ?:
		       READ_ONCE(net->ipv4.sysctl_tcp_keepalive_intvl) / HZ;
		break;
	case TCP_KEEPCNT:
		*val = tsk->keepcnt ?:
		       READ_ONCE(net->ipv4.sysctl_tcp_keepalive_probes);
		break;
	case TCP_USER_TIMEOUT:
		*val = READ_ONCE(inet_csk(sk)->icsk_user_timeout);
		break;
	case TCP_MAXSEG:
		if (tsk->seg_size && !((1 << sk->sk_state) &
				       (TCPF_CLOSE | TCPF_LISTEN)))
			*val = tsk->snd_seg_size;
		else
			*val = tsk->user_seg_size ?: TCP_MSS_DEFAULT;
		break;
	case TCP_DEFER_ACCEPT:
		*val = tsk->defer_accept;
		break;
	case TCP_FASTOPEN:
	case TCP_FASTOPEN_CONNECT:
	case TCP_FASTOPEN_NO_COOKIE:
		*val = 0;
		break;
	default:
		return -ENOPROTOOPT;
	}
	return 0;
}

/**
 * tonic_tcp_getsockopt() - getsockopt(SOL_TCP) on a Tonic socket
 * @sk: the socket
 * @optname: TCP_*
 * @optval: user buffer
 * @optlen: its length, set to the length written
 *
 * Return: 0 or a negative errno.
 */
int tonic_tcp_getsockopt(struct sock *sk, int optname, char __user *optval,
			 int __user *optlen)
{
	char name[TONIC_PROTO_NAME_MAX];
	struct tcp_info ti;
	int len, val, err;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	switch (optname) {
	case TCP_INFO:
		tonic_tcp_info(sk, &ti);
		len = min_t(unsigned int, len, sizeof(ti));
		if (put_user(len, optlen) || copy_to_user(optval, &ti, len))
			return -EFAULT;
		return 0;
	case TCP_CONGESTION:
		lock_sock(sk);
		tonic_protocol_name(sk, name);
		release_sock(sk);
		len = min_t(unsigned int, len, TCP_CA_NAME_MAX);
		if (put_user(len, optlen) || copy_to_user(optval, name, len))
			return -EFAULT;
		return 0;
	}
	err = tonic_tcp_get_int(sk, optname, &val);
	if (err)
		return err;
	len = min_t(unsigned int, len, sizeof(int));
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}
