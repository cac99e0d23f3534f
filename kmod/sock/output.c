// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: building and sending packets.
 *
 * Data packets are built from the send buffer: the segment's skb holds
 * its payload in page fragments, so a transmission is a new skb that
 * references them, its header in the linear part or, after the first
 * datagram of a super-packet, in a page fragment of its own (gso.c).  A connection's packets leave the checksum to the device
 * (the family's send_check); SYN-ACKs and resets, built here and sent by
 * ipv4.c / ipv6.c, are checksummed in software.
 */
#include <net/inet_connection_sock.h>
#include <net/ip.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#include "protocol.h"
#include "engine.h"

/**
 * tonic_recv_window() - receive window to advertise now (segments)
 * @sk: the socket
 *
 * Return: segments the receiver can take after rcv_nxt.
 */
u32 tonic_recv_window(const struct sock *sk)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	int space = READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc);
	u32 per = max_t(u32, tsk->rcv_truesize, tsk->seg_size + 256);
	u32 win = space > 0 ? space / per : 0;

	return min_t(u32, win, tsk->window ? tsk->window : TONIC_MAX_WINDOW);
}

/* The window to advertise now, never less than what was promised. */
static u32 tonic_adv_window(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	u32 wnd = tonic_recv_window(sk);

	/* Never take back what was promised. */
	if (tonic_seg_before(tsk->rcv.rcv_nxt + wnd, tsk->rcv_adv_edge))
		wnd = tsk->rcv_adv_edge - tsk->rcv.rcv_nxt;
	tsk->rcv_adv_edge = tsk->rcv.rcv_nxt + wnd;
	return wnd;
}

/* Fill the fields every packet of an established connection carries. */
static void tonic_fill_hdr(struct sock *sk, struct tonichdr *th, u8 type,
			   u8 flags, u16 len)
{
	const struct tonic_sock *tsk = tonic_sk(sk);
	const struct inet_sock *inet = inet_sk(sk);
	u32 wnd = tonic_adv_window(sk);

	th->source = inet->inet_sport;
	th->dest = inet->inet_dport;
	th->type = type;
	th->flags = flags;
	th->len = htons(len);
	th->seq = 0;
	th->ack = htonl(tsk->irs + 1 + tsk->rcv.rcv_nxt);
	th->sack = 0;
	th->wnd = htons(min_t(u32, wnd, U16_MAX));
	th->check = 0;
	th->grant = 0;
}

/**
 * tonic_transmit() - hand a packet of @sk to its family's output
 * @sk: the socket
 * @skb: the packet, its Tonic header in place (or a GSO super-packet)
 *
 * Return: 0 or a negative errno (net_xmit_eval()).
 */
int tonic_transmit(struct sock *sk, struct sk_buff *skb)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);
	int err;

	skb_set_owner_w(skb, sk);
	icsk->icsk_af_ops->send_check(sk, skb);
	/* net_xmit_eval() evaluates its argument twice: call first. */
	err = icsk->icsk_af_ops->queue_xmit(sk, skb, &inet_sk(sk)->cork.fl);
	return net_xmit_eval(err);
}

/*
 * What a data packet carries in @sack: the C of its run if the path MTU
 * dropped since the handshake (tonic_mtu_reduced()), else 0.
 */
static __be32 tonic_wire_c(const struct tonic_sock *tsk,
			   const struct sk_buff *run)
{
	u32 c = tonic_run_c(run);

	return c == tsk->seg_size ? 0 : htonl(c);
}

/*
 * The header fields a batch's data packets share, filled by the first,
 * and the C of @run, which holds the packets to come.
 */
static void tonic_data_hdr(struct sock *sk, struct tonic_gso *gso,
			   const struct sk_buff *run)
{
	if (!gso->hdr_ready) {
		tonic_fill_hdr(sk, &gso->hdr, TONIC_PKT_DATA, 0, 0);
		gso->hdr_ready = true;
	}
	gso->hdr.sack = tonic_wire_c(tonic_sk(sk), run);
}

/*
 * The send-buffer skb holding segment @seg (a run of segments of its C
 * bytes each), and the segment's offset in it in *@off; NULL if @seg is
 * not announced and unacknowledged.
 */
static struct sk_buff *tonic_seg_run(const struct tonic_sock *tsk, u32 seg,
				     u32 *off)
{
	struct sk_buff *oskb;

	if (tonic_seg_before(seg, tsk->snd_una) ||
	    !tonic_seg_before(seg, tsk->snd_ann))
		return NULL;
	oskb = tsk->segs[seg & (TONIC_RING - 1)];
	if (WARN_ON_ONCE(!oskb ||
			 seg - TONIC_SKB_CB(oskb)->seg >= TONIC_SKB_CB(oskb)->nsegs))
		return NULL;
	*off = (seg - TONIC_SKB_CB(oskb)->seg) * tonic_run_c(oskb);
	if (WARN_ON_ONCE(*off >= oskb->len))
		return NULL;
	return oskb;
}

/**
 * tonic_xmit_seg() - build a packet from a send-buffer segment and send it
 * @sk: the socket
 * @seg: relative segment number, must be announced and unacknowledged
 * @rtx: this is a retransmission (it asks for an ACK at once)
 * @flags: TONIC_F_ACKREQ (ask the receiver to acknowledge it at once: the
 *	last segment written so far, the engine's TONIC_SEG_ACKREQ) and
 *	TONIC_F_ACKFREQ (the engine's TONIC_SEG_ACKFREQ)
 * @gso: the batch (tonic_gso_begin()): a super-packet being built to add
 *	the packet to, sent and counted by tonic_gso_end(), and the header
 *	fields the batch's packets share; without GSO the packet is sent
 *	now.  NULL: a packet alone, sent and counted now
 *
 * Return: 0 or a negative errno.
 */
int tonic_xmit_seg(struct sock *sk, u32 seg, bool rtx, u8 flags,
		   struct tonic_gso *gso)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct sk_buff *oskb, *skb = NULL;
	struct tonichdr *th;
	u32 off, len;
	int err = 0;

	oskb = tonic_seg_run(tsk, seg, &off);
	if (!oskb)
		return -EINVAL;
	len = min_t(u32, oskb->len - off, tonic_run_c(oskb));

	/*
	 * As TCP's skb_segment() output: a new skb referencing the
	 * segment's pages, never a clone, so no layer below copies it.
	 */
	if (gso && gso->max_segs) {
		th = tonic_gso_add(sk, gso, oskb, off, len);
	} else {
		struct tonic_run_cursor none = {};

		skb = tonic_seg_skb(gso ? &gso->cur : &none, oskb, off, len);
		th = skb ? tonic_hdr(skb) : NULL;
	}
	if (!th)
		return -ENOBUFS;
	if (rtx)
		flags |= TONIC_F_ACKREQ;
	if (gso) {
		/*
		 * The fields all data packets of the batch share, once:
		 * nothing received can move rcv_nxt while the socket is
		 * locked, so the window promised holds for all of them.
		 */
		tonic_data_hdr(sk, gso, oskb);
		tonic_gso_hdr(th, gso, flags, len, tsk->iss + 1 + seg);
	} else {
		tonic_fill_hdr(sk, th, TONIC_PKT_DATA, flags, len);
		th->seq = htonl(tsk->iss + 1 + seg);
		th->sack = tonic_wire_c(tsk, oskb);
	}
	if (skb)
		err = tonic_transmit(sk, skb);
	if (gso) {
		/* Counted by tonic_gso_end(). */
		gso->segs_out++;
		gso->rtx_out += rtx;
		return err;
	}
	tsk->stats.segs_out++;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_SEGS_OUT);
	if (rtx) {
		tsk->stats.retransmits++;
		TONIC_SK_INC_STATS(sk, TONIC_MIB_SEGS_RTX);
	}
	return err;
}

/**
 * tonic_xmit_run() - send consecutive segments, in a super-packet if
 *	they are in one send-buffer run
 * @sk: the socket
 * @seg: relative number of the first, announced and unacknowledged
 * @n: how many consecutive segments from @seg the engine released
 * @rtx: they are retransmissions (each asks for an ACK at once)
 * @flags: TONIC_F_ACKREQ and TONIC_F_ACKFREQ of each (tonic_xmit_seg());
 *	TONIC_F_ACKREQ is added to them if @rtx
 * @gso: the batch (tonic_gso_begin()), sent and counted by tonic_gso_end()
 *
 * As tonic_xmit_seg() for each, with what is the same for all of them
 * (checks, the run, the header template) done once.
 *
 * Return: how many of the @n were handled (sent, or not for lack of
 * memory): at least one, all of those in the first one's run.
 */
u32 tonic_xmit_run(struct sock *sk, u32 seg, u32 n, bool rtx, u8 *flags,
		   struct tonic_gso *gso)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	const struct sk_buff *oskb;
	u32 off, k, sent;

	if (n < 2 || !gso->max_segs ||
	    tonic_seg_before(tsk->snd_ann, seg + n))
		goto one;
	oskb = tonic_seg_run(tsk, seg, &off);
	if (!oskb)
		goto one;
	/* Those in the run, and none empty. */
	n = min(n, TONIC_SKB_CB(oskb)->seg + TONIC_SKB_CB(oskb)->nsegs - seg);
	n = min(n, DIV_ROUND_UP(oskb->len - off, tonic_run_c(oskb)));
	if (n < 2)
		goto one;
	if (rtx)
		for (k = 0; k < n; k++)
			flags[k] |= TONIC_F_ACKREQ;
	tonic_data_hdr(sk, gso, oskb);
	sent = tonic_gso_add_run(sk, gso, oskb, off, n, tsk->iss + 1 + seg,
				 flags);
	gso->segs_out += sent;
	if (rtx)
		gso->rtx_out += sent;
	return n;
one:
	tonic_xmit_seg(sk, seg, rtx, flags[0], gso);
	return 1;
}

/**
 * tonic_send_ctl() - send a control packet on an established socket
 * @sk: the socket
 * @type: TONIC_PKT_ACK, _FIN, _PROBE or _RST
 * @seq: seq field (relative segment number for FIN)
 * @sack: segment number reported (relative, peer numbering)
 * @flags: TONIC_F_*
 * @grant: grant tokens
 */
void tonic_send_ctl(struct sock *sk, int type, u32 seq, u32 sack, u8 flags,
		    u32 grant)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct sk_buff *skb;
	struct tonichdr *th;

	skb = alloc_skb(MAX_TONIC_HEADER, GFP_ATOMIC);
	if (!skb)
		return;
	skb_reserve(skb, MAX_TONIC_HEADER);
	th = skb_push(skb, TONIC_HDR_LEN);
	skb_reset_transport_header(skb);
	tonic_fill_hdr(sk, th, type, flags, 0);

	switch (type) {
	case TONIC_PKT_FIN:
		th->seq = htonl(tsk->iss + 1 + seq);
		break;
	case TONIC_PKT_ACK:
		/* Every ACK carries rcv_nxt: nothing is left to delay. */
		tonic_rcv_acked(&tsk->rcv);
		tsk->delack_at = 0;
		th->seq = htonl(tsk->iss + 1 + tsk->snd_ann);
		th->sack = htonl(tsk->irs + 1 + sack);
		th->grant = htonl(grant);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_ACKS_OUT);
		if (flags & TONIC_F_NACK)
			TONIC_SK_INC_STATS(sk, TONIC_MIB_NACKS_OUT);
		if (flags & TONIC_F_CNP)
			TONIC_SK_INC_STATS(sk, TONIC_MIB_CNPS_OUT);
		if (flags & TONIC_F_ECE)
			TONIC_SK_INC_STATS(sk, TONIC_MIB_ECE_OUT);
		if (flags & TONIC_F_GRANT)
			TONIC_SK_INC_STATS(sk, TONIC_MIB_GRANTS_OUT);
		break;
	case TONIC_PKT_RST:
		/* The peer checks seq against its rcv_nxt. */
		th->seq = htonl(tsk->iss + 1 + tsk->snd_una);
		TONIC_SK_INC_STATS(sk, TONIC_MIB_RSTS_OUT);
		break;
	default:
		th->seq = htonl(tsk->iss + 1 + tsk->snd_ann);
		break;
	}
	tonic_transmit(sk, skb);
}

/* Make room for the layers below, then push and clear our @len bytes. */
static struct tonichdr *tonic_push_hdr(struct sk_buff *skb, int len,
				       __be16 sport, __be16 dport, u8 type)
{
	struct tonichdr *th;

	skb_reserve(skb, MAX_TONIC_HEADER);
	th = skb_push(skb, len);
	skb_reset_transport_header(skb);
	memset(th, 0, TONIC_HDR_LEN);
	th->source = sport;
	th->dest = dport;
	th->type = type;
	return th;
}

static void tonic_fill_synopt(struct tonic_synopt *opt, u16 seg, u16 win,
			      u32 signals, const char *proto)
{
	memset(opt, 0, sizeof(*opt));
	opt->seg_size = htons(seg);
	opt->window = htons(win);
	opt->signals = htonl(signals);
	strscpy(opt->protocol, proto, sizeof(opt->protocol));
}

static int tonic_xmit_syn(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	const struct inet_sock *inet = inet_sk(sk);
	struct sk_buff *skb;
	struct tonichdr *th;

	skb = alloc_skb(MAX_TONIC_HEADER, sk->sk_allocation);
	if (!skb)
		return -ENOBUFS;
	th = tonic_push_hdr(skb, TONIC_SYN_LEN, inet->inet_sport,
			    inet->inet_dport, TONIC_PKT_SYN);
	th->seq = htonl(tsk->iss);
	th->wnd = htons(tsk->window);
	tonic_fill_synopt((struct tonic_synopt *)(th + 1), tsk->seg_size,
			  tsk->window, tsk->signals, tsk->proto_used);
	return tonic_transmit(sk, skb);
}

/**
 * tonic_send_syn() - send the SYN of an active open and arm its timer
 * @sk: socket in SYN_SENT, its wishes set by tonic_negotiate_syn()
 *
 * Return: 0 or a negative errno.
 */
int tonic_send_syn(struct sock *sk)
{
	struct tonic_sock *tsk = tonic_sk(sk);

	tsk->retries = 0;
	tsk->rto_ms = TCP_TIMEOUT_INIT * 1000 / HZ;
	tsk->syn_at = tonic_now();
	tsk->ctl_at = tsk->syn_at + (u64)tsk->rto_ms * NSEC_PER_MSEC;
	TONIC_SK_INC_STATS(sk, TONIC_MIB_ACTIVE_OPENS);
	tonic_xmit_syn(sk);
	tonic_timer_update(sk);
	return 0;
}

/**
 * tonic_resend_syn() - retransmit the SYN
 * @sk: socket in SYN_SENT
 */
void tonic_resend_syn(struct sock *sk)
{
	TONIC_SK_INC_STATS(sk, TONIC_MIB_SYN_RTX);
	tonic_xmit_syn(sk);
}

/**
 * tonic_make_synack() - build a SYN-ACK for @req
 * @sk: the listener
 * @req: the request sock
 *
 * Return: the skb with the header filled in except the checksum, or NULL.
 */
struct sk_buff *tonic_make_synack(const struct sock *sk, struct request_sock *req)
{
	const struct inet_request_sock *ireq = inet_rsk(req);
	const struct tonic_request_sock *treq = tonic_rsk(req);
	struct sk_buff *skb;
	struct tonichdr *th;

	skb = sock_wmalloc((struct sock *)sk, MAX_TONIC_HEADER, 1, GFP_ATOMIC);
	if (!skb)
		return NULL;
	tonic_rsk(req)->synack_at = tonic_now();
	th = tonic_push_hdr(skb, TONIC_SYN_LEN, htons(ireq->ir_num),
			    ireq->ir_rmt_port, TONIC_PKT_SYNACK);
	th->seq = htonl(treq->iss);
	th->ack = htonl(treq->irs + 1);
	th->wnd = htons(treq->window);
	tonic_fill_synopt((struct tonic_synopt *)(th + 1), treq->seg_size,
			  treq->window, treq->signals, treq->proto_used);
	return skb;
}

/**
 * tonic_make_reset() - build a reset answering @rxskb from a control socket
 * @ctl_sk: the control socket
 * @rxskb: the packet that found no connection
 *
 * Return: the skb, checksum not yet filled in, or NULL.
 */
struct sk_buff *tonic_make_reset(struct sock *ctl_sk, struct sk_buff *rxskb)
{
	const struct tonichdr *rxth = tonic_hdr(rxskb);
	struct sk_buff *skb;
	struct tonichdr *th;

	skb = alloc_skb(MAX_TONIC_HEADER, GFP_ATOMIC);
	if (!skb)
		return NULL;
	th = tonic_push_hdr(skb, TONIC_HDR_LEN, rxth->dest, rxth->source,
			    TONIC_PKT_RST);
	th->seq = rxth->ack;
	th->ack = htonl(ntohl(rxth->seq) + 1);
	return skb;
}
