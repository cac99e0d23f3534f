/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic acceptance checks: which packet a connection believes.
 *
 * Portable C beside the receive parser (pkt.h), built into tonic.ko and
 * natively: the socket layer (kmod/sock/input.c, sndbuf.c, handshake.c,
 * demux.c) asks these functions what to do with a parsed packet, the
 * packet fuzzer (selftests/fuzz/) and the unit tests call them with any
 * numbers.  Each takes plain integers and a small view of the connection
 * and returns a verdict; counting, answering (challenge ACKs and their
 * rate limit, resets) and changing the socket stay with the caller.
 *
 * What is checked follows TCP: RFC 5961 for RST, SYN and ACK (an RST
 * resets only at exactly rcv_nxt, a plausible one is challenged; the
 * cumulative ack must lie in [snd_una - K, snd_nxt]), the request sock's
 * checks of tcp_check_req(), ICMP errors against what is in flight (as
 * tcp_v4_err()), and for Tonic's fixed-size segments the length of each
 * DATA segment.
 *
 * Socket states are TCP's (TCP_ESTABLISHED...): the kernel's
 * <net/tcp_states.h>, natively the same values from <netinet/tcp.h>.
 */
#ifndef _TONIC_ACCEPT_H
#define _TONIC_ACCEPT_H

#include "tonic_env.h"
#include "receiver.h"
#include "engine.h"
#include <linux/tonic.h>
#include "../wire.h"
#ifdef __KERNEL__
#include <net/tcp_states.h>
#else
#include <netinet/tcp.h>
#endif

/* The receiver signals this version knows; a peer's other bits are ignored. */
#define TONIC_SIGNALS_KNOWN	(TONIC_SIG_ACK | TONIC_SIG_NACK | \
				 TONIC_SIG_GRANT | TONIC_SIG_CNP | TONIC_SIG_ECE)

/* Slots of the received-length ring (struct tonic_rcv_lens), a power of 2. */
#define TONIC_LENS		TONIC_MAX_WINDOW

/**
 * enum tonic_acc - what to do with a packet
 * @TONIC_ACC_OK: process it
 * @TONIC_ACC_IGNORE: drop it, uncounted
 * @TONIC_ACC_DROP: drop it (DropState)
 * @TONIC_ACC_CHALLENGE: drop it and send a challenge ACK (RFC 5961)
 * @TONIC_ACC_STALE: an ack older than a window: drop it (DropState) and
 *	send a challenge ACK
 * @TONIC_ACC_RESET: an acceptable RST: the connection (or request) ends
 * @TONIC_ACC_REPLY: a repeat of the peer's last packet (its SYN, SYN-ACK
 *	or FIN): drop it and answer again
 * @TONIC_ACC_REFUSE: no such handshake: drop it (DropState) and answer
 *	with an RST
 */
enum tonic_acc {
	TONIC_ACC_OK = 0,
	TONIC_ACC_IGNORE,
	TONIC_ACC_DROP,
	TONIC_ACC_CHALLENGE,
	TONIC_ACC_STALE,
	TONIC_ACC_RESET,
	TONIC_ACC_REPLY,
	TONIC_ACC_REFUSE,
};

/**
 * struct tonic_acc_view - what the checks read of a connection
 * @rcv_nxt: next segment expected from the peer (relative to its ISN + 1)
 * @snd_una: head: our first segment not acknowledged (relative to our
 *	ISN + 1)
 * @snd_ann: tonic-tail: our first segment not announced (sent) yet
 * @fin_seg: our FIN's segment number, once @fin_sent
 * @peer_edge: our segments below this fit in the peer's window
 * @window: K (0 before the handshake chose it)
 * @state: TCP_* socket state
 * @fin_sent: our FIN went at least once
 * @fin_acked: the peer acknowledged our FIN
 * @peer_fin: the peer's FIN arrived in order
 */
struct tonic_acc_view {
	u32 rcv_nxt;
	u32 snd_una;
	u32 snd_ann;
	u32 fin_seg;
	u32 peer_edge;
	u16 window;
	u8 state;
	bool fin_sent;
	bool fin_acked;
	bool peer_fin;
};

/**
 * tonic_acc_snd_nxt() - the segment number after everything we sent
 * @v: the connection
 *
 * Return: tonic-tail, or past our FIN once it went (the FIN counts one).
 */
static inline u32 tonic_acc_snd_nxt(const struct tonic_acc_view *v)
{
	return v->fin_sent ? v->fin_seg + 1 : v->snd_ann;
}

/**
 * tonic_seq_slack() - how far a peer's numbers may be from ours
 * @window: K of the connection (0: not chosen yet)
 *
 * Return: K, or TONIC_MAX_WINDOW before it is known.
 */
s32 tonic_seq_slack(u16 window);

/**
 * tonic_seq_plausible() - is the seq of a packet from the peer near ours?
 * @v: the connection
 * @seq: the packet's seq, relative to the peer's ISN + 1
 *
 * DATA and FIN from rcv_nxt - K (resends not yet known to be
 * acknowledged) to rcv_nxt + K (the peer's window); an ACK or PROBE
 * carries the peer's tonic-tail, at most K past its head, which is at
 * most our rcv_nxt.  Anything further is blind (RFC 5961 §5's "seq in
 * the window" for Tonic).
 *
 * Return: true if @seq is within K of rcv_nxt.
 */
bool tonic_seq_plausible(const struct tonic_acc_view *v, u32 seq);

/**
 * tonic_acc_synsent() - a packet for a connection in SYN_SENT
 * @iss: our ISN
 * @type: the packet's TONIC_PKT_*
 * @ack: its ack field, as sent
 *
 * Only a packet that acknowledges our SYN (ack = ISN + 1) counts: an RST
 * then refuses the connection, a SYN-ACK completes it.
 *
 * Return: TONIC_ACC_OK (a SYN-ACK: negotiate), TONIC_ACC_RESET or
 * TONIC_ACC_DROP.
 */
enum tonic_acc tonic_acc_synsent(u32 iss, u8 type, u32 ack);

/**
 * tonic_acc_req() - a packet for a request sock (our SYN-ACK sent)
 * @iss: our ISN (the SYN-ACK's seq)
 * @irs: the client's ISN
 * @type: the packet's TONIC_PKT_*
 * @seq: its seq field, as sent
 * @ack: its ack field, as sent
 *
 * As tcp_check_req(): a repeated SYN is answered with the SYN-ACK again;
 * an RST ends the request only if it answers our SYN-ACK exactly (ack =
 * our ISN + 1, seq = the client's ISN + 1, RFC 5961 §3.2); an ACK, DATA,
 * FIN or PROBE completes the handshake if it acknowledges our SYN-ACK and
 * its seq is within TONIC_MAX_WINDOW of the client's first segment, and
 * is refused with an RST otherwise.
 *
 * Return: TONIC_ACC_OK (make the child), TONIC_ACC_REPLY, TONIC_ACC_RESET,
 * TONIC_ACC_DROP, TONIC_ACC_REFUSE or TONIC_ACC_IGNORE.
 */
enum tonic_acc tonic_acc_req(u32 iss, u32 irs, u8 type, u32 seq, u32 ack);

/**
 * tonic_acc_conn() - the checks before a connection believes a packet
 * @v: the connection (SYN_RECV child or later)
 * @type: the packet's TONIC_PKT_*
 * @seq: its seq, relative to the peer's ISN + 1 (so a SYN-ACK repeating
 *	the peer's ISN has -1)
 * @ack: its ack, relative to our ISN + 1
 *
 * RFC 5961: a SYN is challenged (§4); an RST resets only at exactly
 * rcv_nxt, is challenged when merely plausible and dropped otherwise
 * (§3); any other packet needs a plausible seq and an ack in
 * [snd_una - K, snd_nxt] (§5; below snd_una - K it is challenged, but
 * never below our first segment).  A repeated SYN-ACK (our final ACK was
 * lost) is answered with an ACK.
 *
 * Return: TONIC_ACC_OK to process the packet, else what to do instead.
 */
enum tonic_acc tonic_acc_conn(const struct tonic_acc_view *v, u8 type,
			      u32 seq, u32 ack);

/**
 * tonic_acc_rst_err() - the error an accepted RST leaves on the socket
 * @state: TCP_* state the RST found
 *
 * Return: 0 when the connection was closing anyway (LAST_ACK, CLOSING:
 * it just ends), -EPIPE in CLOSE_WAIT, else -ECONNRESET.
 */
int tonic_acc_rst_err(int state);

/**
 * tonic_acc_fin_acked() - does an accepted packet acknowledge our FIN?
 * @v: the connection
 * @ack: its ack, relative to our ISN + 1
 *
 * Return: true the first time an ack passes our FIN.
 */
bool tonic_acc_fin_acked(const struct tonic_acc_view *v, u32 ack);

/**
 * tonic_acc_fin_acked_state() - the state once our FIN is acknowledged
 * @state: TCP_* state before
 *
 * Return: FIN_WAIT2 from FIN_WAIT1, TCP_CLOSE from CLOSING and LAST_ACK
 * (the connection is over: no TIME_WAIT), else @state.
 */
int tonic_acc_fin_acked_state(int state);

/**
 * tonic_acc_data_state() - may a state take data from the peer?
 * @state: TCP_* state
 *
 * Return: true from ESTABLISHED on until the connection is closed.
 */
bool tonic_acc_data_state(int state);

/**
 * tonic_acc_fin() - a FIN from the peer that passed tonic_acc_conn()
 * @v: the connection
 * @seg: the FIN's seq, relative to the peer's ISN + 1
 *
 * Return: TONIC_ACC_OK for the first FIN, at rcv_nxt; TONIC_ACC_REPLY for
 * a repeat of the FIN already taken (our ACK was lost: ack it again);
 * TONIC_ACC_DROP otherwise, a second FIN after it included.
 */
enum tonic_acc tonic_acc_fin(const struct tonic_acc_view *v, u32 seg);

/**
 * tonic_acc_fin_state() - the state once the peer's FIN is taken
 * @state: TCP_* state before
 *
 * Return: CLOSE_WAIT from ESTABLISHED, CLOSING from FIN_WAIT1, TCP_CLOSE
 * from FIN_WAIT2 (no TIME_WAIT: the connection is over), else @state.
 */
int tonic_acc_fin_state(int state);

/**
 * struct tonic_acc_ack - what the sender takes of an accepted ack
 * @cum: the cumulative ack for the engine, in [snd_una, snd_ann]
 * @wnd: the peer's window, at most K
 * @update: the window moved: peer_edge becomes @edge, peer_wnd @wnd
 * @edge: the peer's new window edge, when @update
 * @old: the ack is below snd_una, an ACK overtaken by a later one (ACKs
 *	sent from two CPUs can swap on the way): it is no duplicate ACK,
 *	which repeats the highest ack (RFC 5681 §2), and reports no loss
 */
struct tonic_acc_ack {
	u32 cum;
	u32 wnd;
	bool update;
	u32 edge;
	bool old;
};

/**
 * tonic_acc_ack() - clamp an accepted ack and the window it carries
 * @v: the connection
 * @ack: cumulative ack, relative to our ISN + 1
 * @wnd: the window the peer advertised
 * @out: filled in
 *
 * Nothing past what was announced is acknowledged.  The window is taken
 * from the ack clamped that way and never beyond K: the peer takes
 * segments before cum + wnd; an old ack (below snd_una) carries an old
 * window and moves nothing, nor does a window that would shrink the edge
 * (as TCP's).
 */
void tonic_acc_ack(const struct tonic_acc_view *v, u32 ack, u32 wnd,
		   struct tonic_acc_ack *out);

/**
 * tonic_acc_wnd() - the peer's window as the sender takes it
 * @wnd: the window the peer advertised
 * @window: K
 *
 * Return: @wnd, never beyond K.
 */
static inline u32 tonic_acc_wnd(u32 wnd, u16 window)
{
	return min_t(u32, wnd, window);
}

/**
 * tonic_acc_ack_idle() - does an accepted ack tell the sender nothing?
 * @snd_una: our head
 * @peer_wnd: the peer's window as last taken (tonic_acc_ack()'s wnd)
 * @peer_edge: its edge as last taken (tonic_acc_ack()'s edge)
 * @window: K
 * @ack: the packet's cumulative ack, relative to our ISN + 1
 * @wnd: the window it advertises
 * @flags: its TONIC_F_*
 *
 * TCP's header prediction for the sending side: a packet without flags
 * whose ack is snd_una and whose window, clamped as tonic_acc_ack()
 * clamps it, is the one taken last, at the same edge.  tonic_acc_ack()
 * would leave the edge and the window as they are and
 * tonic_acc_ack_events() would make no event, so a caller may skip both,
 * and the view they read, for the many data packets of a one-way
 * transfer.
 *
 * Return: true if the packet changes nothing for the sender.
 */
static inline bool tonic_acc_ack_idle(u32 snd_una, u32 peer_wnd,
				      u32 peer_edge, u16 window, u32 ack,
				      u32 wnd, u8 flags)
{
	return !flags && ack == snd_una &&
	       tonic_acc_wnd(wnd, window) == peer_wnd &&
	       ack + peer_wnd == peer_edge;
}

/**
 * tonic_acc_sack_ok() - may a selective ack be passed to the engine?
 * @v: the connection
 * @sack: the segment it names, relative to our ISN + 1
 *
 * Return: true if @sack is announced and not yet cumulatively acked.
 */
bool tonic_acc_sack_ok(const struct tonic_acc_view *v, u32 sack);

/* An ACK packet makes at most an ACK or NACK, a CNP and a GRANT event. */
#define TONIC_ACK_EVENTS	3

/**
 * struct tonic_ack_pkt - what the events of an ACK packet are made of
 * @sack: the segment it acknowledges selectively, relative to our ISN + 1
 * @flags: the packet's TONIC_F_*
 * @grant: its grant tokens
 * @rtt_ns: time since @sack was sent, if it was sent once; else 0
 */
struct tonic_ack_pkt {
	u32 sack;
	u8 flags;
	u32 grant;
	u64 rtt_ns;
};

/**
 * tonic_acc_ack_events() - the engine events of an accepted ACK packet
 * @v: the connection
 * @a: tonic_acc_ack()'s clamps of the packet's ack and window
 * @p: the packet
 * @flow_id: the connection's engine flow
 * @ev: out: up to TONIC_ACK_EVENTS events, in the view's numbers
 *
 * A SACK packet makes an ACK event (a NACK event if it carries NACK):
 * cumulative unless @a is old, the selective ack only if announced and
 * not a DSACK, with @p's RTT sample, the DSACK and ECE as flags.  A late
 * ACK keeps this news but is no duplicate ACK and no NACK (TCP does not
 * count one either); with no news it makes no event.  A packet without
 * SACK makes a cumulative ACK event only if it moves snd_una.  CNP and
 * GRANT make an event each.
 *
 * Return: the number of events in @ev.
 */
unsigned int tonic_acc_ack_events(const struct tonic_acc_view *v,
				  const struct tonic_acc_ack *a,
				  const struct tonic_ack_pkt *p, u32 flow_id,
				  struct tonic_ctrl_desc *ev);

/**
 * tonic_icmp_seq_ok() - does an ICMP error quote a packet we have in
 *	flight?
 * @v: the connection (a full socket)
 * @iss: our ISN
 * @seq: the quoted packet's seq, as sent
 *
 * As tcp_v4_err(): our SYN in SYN_SENT; in a synchronized state a seq in
 * [snd_una, snd_ann], or up to our FIN once sent (segments from the head,
 * control packets carry snd_ann); never for a closed or listening socket.
 *
 * Return: true if the error may be acted on.
 */
bool tonic_icmp_seq_ok(const struct tonic_acc_view *v, u32 iss, u32 seq);

/**
 * tonic_icmp_req_ok() - does an ICMP error quote a request sock's SYN-ACK?
 * @iss: the request's ISN (its SYN-ACK's seq)
 * @seq: the quoted packet's seq, as sent
 *
 * As tcp_req_err(): only our SYN-ACK may be the subject.
 *
 * Return: true if the error may be acted on.
 */
static inline bool tonic_icmp_req_ok(u32 iss, u32 seq)
{
	return seq == iss;
}

/**
 * struct tonic_rcv_lens - the lengths of the DATA segments kept
 * @len: by segment number & (TONIC_LENS - 1), tonic_len_tag() of its
 *	number and length (0: none)
 * @top: one past the highest segment held out of order
 * @short_seg: a short segment (sub-segment or the last before FIN) held
 *	out of order; nothing after it can have been sent yet
 * @short_held: @short_seg is valid
 */
struct tonic_rcv_lens {
	u32 len[TONIC_LENS];
	u32 top;
	u32 short_seg;
	bool short_held;
};

/**
 * tonic_len_tag() - a struct tonic_rcv_lens entry
 * @seg: the segment's number
 * @len: its payload bytes (below 2^16)
 *
 * Return: @len tagged with the higher bits of @seg.
 */
static inline u32 tonic_len_tag(u32 seg, u32 len)
{
	return (seg / TONIC_LENS) << 16 | len;
}

/**
 * tonic_len_c() - C of a DATA segment
 * @seg_size: C chosen at the handshake
 * @named: the C its header names (@sack), 0 for the handshake's
 *
 * A sender whose path MTU dropped cuts the segments after it smaller and
 * names their C, so that the receiver still tells full segments from
 * short ones (Documentation/sockets.md, "Path MTU changes").
 *
 * Return: C in bytes, or 0 if @named is out of range: the segment is
 * malformed.
 */
static inline u32 tonic_len_c(u32 seg_size, u32 named)
{
	if (!named)
		return seg_size;
	return named >= TONIC_MIN_SEGMENT && named <= seg_size ? named : 0;
}

/**
 * tonic_len_bad() - is the length of a DATA segment impossible?
 * @l: the lengths kept
 * @r: the receiver model's state (rcv_nxt, held)
 * @seg_size: C
 * @seg: the segment's number (relative)
 * @len: its payload bytes
 *
 * Every segment is C bytes but a short one, which the sender announces
 * only as its last (a sub-segment, or the tail before FIN) and follows
 * with nothing until it is acknowledged (Documentation/sockets.md, "Send
 * path"): so no segment above a short one can arrive while the short one
 * is missing or held, and a resend has the first copy's length.
 *
 * Return: true if nothing of the segment may count.
 */
bool tonic_len_bad(const struct tonic_rcv_lens *l, const struct tonic_rcv *r,
		   u32 seg_size, u32 seg, u32 len);

/**
 * tonic_len_run_bad() - is the length of a segment of a run impossible?
 * @l: the lengths kept
 * @r: the receiver model's state (rcv_nxt, held)
 * @seg_size: C (below 2^16)
 * @seg: the run's first segment (relative)
 * @n: its segments (at least 1), each C bytes but the last
 * @last: the last one's payload bytes
 *
 * tonic_len_bad() of each segment of a GRO batch, in one pass: a full
 * segment can only be a resend of another length or lie above a held
 * short one, which are checked for all of them at once; the last one
 * is checked alone.
 *
 * Return: true if tonic_len_bad() is true for any of them.
 */
bool tonic_len_run_bad(const struct tonic_rcv_lens *l,
		       const struct tonic_rcv *r, u32 seg_size, u32 seg, u32 n,
		       u32 last);

/**
 * tonic_len_keep() - remember the length of a segment kept
 * @l: the lengths kept
 * @r: the receiver model's state after it took the segment
 * @seg_size: C
 * @seg: the segment's number (relative)
 * @len: its payload bytes
 * @held: it was held out of order (else delivered in order)
 */
void tonic_len_keep(struct tonic_rcv_lens *l, const struct tonic_rcv *r,
		    u32 seg_size, u32 seg, u32 len, bool held);

/**
 * tonic_len_run_keep() - remember the lengths of a run delivered in order
 * @l: the lengths kept
 * @seg_size: C
 * @seg: the run's first segment (relative)
 * @n: its segments, each C bytes but the last
 * @last: the last one's payload bytes
 *
 * What tonic_len_keep() does for each of them (not held).
 */
void tonic_len_run_keep(struct tonic_rcv_lens *l, u32 seg_size, u32 seg,
			u32 n, u32 last);

#endif /* _TONIC_ACCEPT_H */
