/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic receive parser: the byte-level checks of a received packet.
 *
 * Portable C beside the engine and the receiver model, built into
 * tonic.ko and natively: the kernel's demux (kmod/sock/demux.c) and handshake
 * (kmod/sock/handshake.c) call it on the linear header of an skb, the packet
 * fuzzer (selftests/fuzz/) on arbitrary bytes.  It checks only what the
 * bytes say on their own (type, lengths, ports) and turns the header and
 * the SYN options into host-order views; checksums, pulling the header
 * into the linear area and every decision that needs connection state
 * stay with the caller.  The two header checks are inline: the demux
 * runs them on every packet.
 */
#ifndef _TONIC_PKT_H
#define _TONIC_PKT_H

#include "tonic_env.h"
#include <linux/tonic.h>
#include "../wire.h"

/**
 * enum tonic_pkt_err - why tonic_pkt_check() refuses a packet
 * @TONIC_PKT_OK: the header is sound
 * @TONIC_PKT_ESHORT: shorter than the header its type needs
 * @TONIC_PKT_ETYPE: unknown type
 * @TONIC_PKT_ELEN: @len disagrees with the packet's length
 * @TONIC_PKT_EPAYLOAD: DATA without payload, or payload on another type
 * @TONIC_PKT_EPORT: a zero port
 *
 * All of them count as DropMalformed in the kernel.
 */
enum tonic_pkt_err {
	TONIC_PKT_OK = 0,
	TONIC_PKT_ESHORT,
	TONIC_PKT_ETYPE,
	TONIC_PKT_ELEN,
	TONIC_PKT_EPAYLOAD,
	TONIC_PKT_EPORT,
};

/**
 * struct tonic_syn_view - the SYN options of a SYN or SYN-ACK, host order
 * @seg_size: C wanted (SYN) or chosen (SYN-ACK)
 * @window: K wanted or chosen
 * @signals: TONIC_SIG_* as sent (unknown bits included)
 * @protocol: the program name, always NUL-terminated
 */
struct tonic_syn_view {
	u16 seg_size;
	u16 window;
	u32 signals;
	char protocol[sizeof(((struct tonic_synopt *)0)->protocol) + 1];
};

/**
 * struct tonic_pkt - a parsed packet, host order
 * @source: source port
 * @dest: destination port
 * @type: enum tonic_pkt_type
 * @flags: TONIC_F_* (unknown bits are passed on, not refused)
 * @len: payload bytes
 * @seq: sequence number as sent
 * @ack: acknowledgement as sent
 * @sack: selective ack as sent
 * @wnd: receive window
 * @grant: grant bytes
 * @hdr_len: bytes of header and options before the payload
 * @syn: the SYN options (SYN and SYN-ACK only)
 */
struct tonic_pkt {
	u16 source;
	u16 dest;
	u8 type;
	u8 flags;
	u16 len;
	u32 seq;
	u32 ack;
	u32 sack;
	u16 wnd;
	u32 grant;
	u32 hdr_len;
	struct tonic_syn_view syn;
};

/**
 * tonic_pkt_hdr_len() - bytes of header a packet of @type starts with
 * @type: the header's type byte
 *
 * Return: TONIC_HDR_LEN, TONIC_SYN_LEN (SYN, SYN-ACK), or 0 for an
 * unknown type.
 */
static inline u32 tonic_pkt_hdr_len(u8 type)
{
	if (!type || type >= __TONIC_PKT_MAX)
		return 0;
	if (type == TONIC_PKT_SYN || type == TONIC_PKT_SYNACK)
		return TONIC_SYN_LEN;
	return TONIC_HDR_LEN;
}

/**
 * tonic_pkt_check() - check a header against the packet's length
 * @th: the header; tonic_pkt_hdr_len(@th->type) bytes must be readable
 * @pkt_len: bytes from the header to the end of the packet
 *
 * Return: TONIC_PKT_OK or an enum tonic_pkt_err.
 */
static inline enum tonic_pkt_err tonic_pkt_check(const struct tonichdr *th,
						 u32 pkt_len)
{
	u32 hlen = tonic_pkt_hdr_len(th->type);
	u32 len = tenv_be16(th->len);

	if (!hlen)
		return TONIC_PKT_ETYPE;
	if (pkt_len < hlen)
		return TONIC_PKT_ESHORT;
	if (pkt_len != hlen + len)
		return TONIC_PKT_ELEN;
	/* Only DATA carries payload, and DATA always does. */
	if ((th->type == TONIC_PKT_DATA) != (len != 0))
		return TONIC_PKT_EPAYLOAD;
	if (!th->source || !th->dest)
		return TONIC_PKT_EPORT;
	return TONIC_PKT_OK;
}

/**
 * tonic_syn_parse() - the SYN options in host order
 * @opt: the options after a SYN or SYN-ACK header
 * @view: filled in
 */
void tonic_syn_parse(const struct tonic_synopt *opt,
		     struct tonic_syn_view *view);

/**
 * tonic_syn_usable() - can a client accept the listener's choice
 * @view: a SYN-ACK's options
 *
 * Return: true if C is at least TONIC_MIN_SEGMENT and K is not 0.
 */
static inline bool tonic_syn_usable(const struct tonic_syn_view *view)
{
	return view->seg_size >= TONIC_MIN_SEGMENT && view->window;
}

/**
 * tonic_pkt_parse() - check and parse a whole packet in a flat buffer
 * @buf: the packet, from its Tonic header on
 * @len: its bytes
 * @pkt: filled in when TONIC_PKT_OK is returned
 *
 * tonic_pkt_hdr_len(), tonic_pkt_check() and the views, for callers that
 * hold the packet in one piece (the fuzzer; the kernel pulls an skb's
 * header first and calls the parts).
 *
 * Return: TONIC_PKT_OK or an enum tonic_pkt_err.
 */
enum tonic_pkt_err tonic_pkt_parse(const void *buf, u32 len,
				   struct tonic_pkt *pkt);

#endif /* _TONIC_PKT_H */
