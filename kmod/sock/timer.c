// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: one timer per socket.
 *
 * A soft hrtimer (softirq context) armed for the earliest of the socket's
 * deadlines: the flush delay of a short tail, SYN/FIN/window-probe
 * retransmission, the engine's next timer (retransmission timeouts,
 * periodic protocol work, rate credit), the orphaned FIN_WAIT2
 * timeout and keepalive (keepalive.c).  There is no timer per packet.  While queued the timer holds a
 * reference on the socket; when it fires while the user owns the socket
 * the work is deferred to tonic_release_cb().
 */
#include <linux/hrtimer.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"

/* Unanswered window probes before the peer is declared dead. */
#define TONIC_MAX_PROBES	15

/*
 * Reference rule: while tonic_sock.timer_ref is set the socket holds one
 * reference for its timer.  timer_ref and every start or cancel of the
 * timer are only touched under the socket spinlock (sk_lock.slock: held
 * by softirq code with bh_lock_sock(), by the timer callback and inside
 * release_sock()).  The callback drops the reference when it finishes and
 * the timer was not queued again.  Process context that owns the socket
 * does not hold the spinlock: it records TONIC_DEFER_ARM and
 * tonic_release_cb() arms the timer (a timer firing meanwhile would be
 * deferred to release_cb anyway).
 */
static enum hrtimer_restart tonic_timer_fn(struct hrtimer *timer)
{
	struct tonic_sock *tsk = container_of(timer, struct tonic_sock, timer);
	struct sock *sk = (struct sock *)tsk;
	bool put = false;

	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk))
		tonic_timer_work(sk);
	else if (!test_and_set_bit(TONIC_DEFER_TIMER, &tsk->deferred))
		sock_hold(sk);
	if (!hrtimer_is_queued(timer) && tsk->timer_ref) {
		tsk->timer_ref = false;
		put = true;
	}
	bh_unlock_sock(sk);
	if (put)
		sock_put(sk);
	return HRTIMER_NORESTART;
}

/** tonic_timer_init() - set up the per-socket hrtimer */
void tonic_timer_init(struct sock *sk)
{
	hrtimer_init(&tonic_sk(sk)->timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_SOFT);
	tonic_sk(sk)->timer.function = tonic_timer_fn;
	tonic_sk(sk)->timer_ref = false;
}

/* Caller holds the socket spinlock. */
static void __tonic_timer_stop(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	/* -1: the callback runs and settles the reference itself. */
	if (hrtimer_try_to_cancel(&tsk->timer) >= 0 && tsk->timer_ref) {
		tsk->timer_ref = false;
		__sock_put(sk);
	}
}

/**
 * tonic_timer_stop() - cancel the timer (drops its sock ref if it was queued)
 * @sk: the socket
 */
void tonic_timer_stop(struct sock *sk)
{
	if (in_softirq()) {
		__tonic_timer_stop(sk);
	} else {
		spin_lock_bh(&sk->sk_lock.slock);
		__tonic_timer_stop(sk);
		spin_unlock_bh(&sk->sk_lock.slock);
	}
}

static void tonic_deadline(u64 *min, u64 t)
{
	if (t && t < *min)
		*min = t;
}

/*
 * Does the connection still owe the peer something that only a timer can
 * move along when packets are lost: data not yet acknowledged (or not yet
 * sent, unless a writer is still copying it and will push), or a FIN not
 * yet acknowledged?  A connection that owes and has no deadline armed
 * hangs for good, so this must never be true with no timer.
 */
static bool tonic_owes_progress(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	if (!((1 << sk->sk_state) & (TCPF_ESTABLISHED | TCPF_CLOSE_WAIT |
				     TCPF_FIN_WAIT1 | TCPF_LAST_ACK |
				     TCPF_CLOSING)))
		return false;
	if (tsk->fin_sent && !tsk->fin_acked)
		return true;
	if (tonic_all_acked(sk))
		return false;
	return !tsk->writing || tsk->snd_una != tsk->snd_ann;
}

/**
 * __tonic_timer_update() - tonic_timer_update() with the spinlock held
 * @sk: the socket
 *
 * Caller holds the socket spinlock.
 */
void __tonic_timer_update(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u64 when = U64_MAX;

	if (sk->sk_state != TCP_CLOSE) {
		if (tonic_flush_pending(sk))
			tonic_deadline(&when, tsk->flush_at);
		tonic_deadline(&when, tsk->ctl_at);
		tonic_deadline(&when, tsk->engine_at);
		tonic_deadline(&when, tsk->linger2_at);
		tonic_deadline(&when, tsk->delack_at);
		tonic_deadline(&when, tonic_keepalive_at(sk));
	}
	if (when == U64_MAX && tonic_owes_progress(sk)) {
		/* A bug: count it, and rescue the connection after rto_min
		 * (the timer pushes and re-evaluates everything).
		 */
		TONIC_SK_INC_STATS(sk, TONIC_MIB_TIMER_MISSING);
		net_dbg_ratelimited("tonic: no timer for a flow owing progress (state %d, una %u ann %u end %u)\n",
				    sk->sk_state, tsk->snd_una, tsk->snd_ann,
				    tsk->snd_end);
		tsk->engine_at = tonic_now() +
			(u64)READ_ONCE(tonic_sk_net(sk)->rto_min_ms) *
			NSEC_PER_MSEC;
		when = tsk->engine_at;
	}
	if (when == U64_MAX) {
		__tonic_timer_stop(sk);
		return;
	}
	if (hrtimer_is_queued(&tsk->timer) &&
	    ktime_to_ns(hrtimer_get_softexpires(&tsk->timer)) == when)
		return;
	if (!tsk->timer_ref) {
		tsk->timer_ref = true;
		sock_hold(sk);
	}
	hrtimer_start(&tsk->timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/**
 * tonic_timer_update() - (re)arm the timer for the earliest deadline
 * @sk: the socket, locked
 *
 * In process context (socket owned, spinlock not held) the arming is
 * deferred to tonic_release_cb().
 */
void tonic_timer_update(struct sock *sk)
{
	if (in_softirq())
		__tonic_timer_update(sk);
	else
		set_bit(TONIC_DEFER_ARM, &tonic_sk(sk)->deferred);
}

/* SYN, FIN or window probe retransmission is due. */
/* One more control retransmission: double its timeout, up to @max_ms. */
static void tonic_ctl_backoff(struct tonic_sock *tsk, u64 now, u32 max_ms)
{
	tsk->retries++;
	tsk->rto_ms = min(tsk->rto_ms * 2, max_ms);
	tsk->ctl_at = now + (u64)tsk->rto_ms * NSEC_PER_MSEC;
}

static void tonic_ctl_timeout(struct sock *sk, u64 now)
{
	struct tonic_net *tn = tonic_sk_net(sk);
	struct tonic_sock *tsk = tonic_sk(sk);
	int err;

	tsk->ctl_at = 0;
	if (sk->sk_state == TCP_SYN_SENT) {
		if (tsk->retries >= READ_ONCE(tn->syn_retries)) {
			TONIC_SK_INC_STATS(sk, TONIC_MIB_CONN_FAILED);
			err = READ_ONCE(sk->sk_err_soft) ? : ETIMEDOUT;
			tonic_reset(sk, err);
			return;
		}
		tonic_ctl_backoff(tsk, now, 60000);
		tonic_resend_syn(sk);
		return;
	}
	if (tsk->fin_sent && !tsk->fin_acked) {
		if (tsk->retries >= READ_ONCE(tn->fin_retries)) {
			tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
			tonic_reset(sk, ETIMEDOUT);
			return;
		}
		tonic_ctl_backoff(tsk, now, 60000);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_FIN_RTX);
		tonic_send_ctl(sk, TONIC_PKT_FIN, tsk->fin_seg, 0, 0, 0);
		return;
	}
	if (tonic_probe_needed(sk)) {
		if (tsk->retries >= (sock_flag(sk, SOCK_DEAD) ?
				     READ_ONCE(tn->fin_retries) :
				     TONIC_MAX_PROBES)) {
			tonic_send_ctl(sk, TONIC_PKT_RST, 0, 0, 0, 0);
			tonic_reset(sk, ETIMEDOUT);
			return;
		}
		tonic_ctl_backoff(tsk, now, 10000);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_PROBES_OUT);
		tonic_send_ctl(sk, TONIC_PKT_PROBE, 0, 0, 0, 0);
	}
}

/**
 * tonic_timer_work() - run everything that is due
 * @sk: the socket, locked
 */
void tonic_timer_work(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_rcv_ack ack;
	u64 now = tonic_now();

	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_LISTEN)
		return;
	if (tsk->linger2_at && now >= tsk->linger2_at) {
		tsk->linger2_at = 0;
		tonic_done(sk);
		return;
	}
	if (tsk->ctl_at && now >= tsk->ctl_at) {
		tonic_ctl_timeout(sk, now);
		if (sk->sk_state == TCP_CLOSE)
			return;
	}
	tonic_keepalive_timer(sk, now);
	if (sk->sk_state == TCP_CLOSE)
		return;
	if (tsk->delack_at && now >= tsk->delack_at &&
	    tonic_rcv_delack(&tsk->rcv, &ack)) {
		TONIC_SK_INC_STATS(sk, TONIC_MIB_DELAYED_ACKS);
		tonic_send_ctl(sk, TONIC_PKT_ACK, 0, ack.sack, ack.flags, 0);
	}
	if (tsk->engine_at && now >= tsk->engine_at) {
		tsk->engine_at = 0;
		tonic_flow_timer(sk, now);
	}
	tonic_push(sk);
	tonic_timer_update(sk);
}
