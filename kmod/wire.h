/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic for Linux: the on-the-wire header.
 *
 * Every packet starts with the same 28-byte header; SYN and SYN-ACK carry a
 * struct tonic_synopt after it, DATA carries payload.  The ports come
 * first so that the 8 transport bytes an ICMP error quotes identify the
 * connection.  Sequence numbers count segments, not bytes: data segment i
 * of a connection (counted from 0) travels as seq = ISN + 1 + i.
 *
 * Portable: the receive parser (engine/pkt.c) reads it natively too, so
 * only the skb accessor is kernel-only.
 */
#ifndef _TONIC_WIRE_H
#define _TONIC_WIRE_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/skbuff.h>
#endif

enum tonic_pkt_type {
	TONIC_PKT_SYN = 1,	/* seq = ISN; synopt follows */
	TONIC_PKT_SYNACK,	/* seq = ISN, ack = peer ISN + 1; synopt */
	TONIC_PKT_ACK,		/* control: cumulative ack, sack, flags */
	TONIC_PKT_DATA,		/* seq = segment number, len payload bytes */
	TONIC_PKT_FIN,		/* seq = the segment number after the last data */
	TONIC_PKT_RST,		/* seq = ack of the packet it answers, ack = its seq + 1 */
	TONIC_PKT_PROBE,	/* window probe: please send an ACK */
	__TONIC_PKT_MAX
};

/* Header flags. */
#define TONIC_F_SACK	0x01	/* ACK: @sack names the segment that arrived */
#define TONIC_F_NACK	0x02	/* ACK: that segment arrived out of order */
#define TONIC_F_ECE	0x04	/* ACK: that segment carried CE (ECN echo) */
#define TONIC_F_CNP	0x08	/* ACK: congestion notification (rate limited) */
#define TONIC_F_GRANT	0x10	/* ACK: @grant carries new grant tokens */
#define TONIC_F_DUP	0x20	/* ACK: that segment was a duplicate */
#define TONIC_F_ACKREQ	0x40	/* DATA: acknowledge now (last of a burst) */
/*
 * DATA: the sender chose an ACK ratio and asks for ACKs itself (ACKREQ):
 * hold plain in-order segments until an ACKREQ one, up to the receiver's
 * cap (net.tonic.delack_max).  A receiver that does not know the flag
 * acknowledges as before, only more often than asked.
 */
#define TONIC_F_ACKFREQ	0x80

struct tonichdr {
	__be16	source;
	__be16	dest;
	__u8	type;
	__u8	flags;
	__be16	len;		/* payload bytes after the header and options */
	__be32	seq;
	__be32	ack;		/* next segment number expected from the peer */
	__be32	sack;		/* ACK: segment number it reports; DATA: C the
				 * segment was cut to if below the
				 * handshake's (path MTU drop), else 0
				 */
	__be16	wnd;		/* receive window: segments accepted after @ack */
	__sum16	check;		/* pseudo header + header + payload */
	__be32	grant;		/* grant tokens, bytes */
};

/* Carried by SYN and SYN-ACK after the header. */
struct tonic_synopt {
	__be16	seg_size;	/* C wanted (SYN) or chosen (SYN-ACK) */
	__be16	window;		/* K wanted or chosen */
	__be32	signals;	/* TONIC_SIG_* */
	char	protocol[16];	/* transport-logic program name */
};

#define TONIC_HDR_LEN		((int)sizeof(struct tonichdr))
#define TONIC_SYN_LEN		(TONIC_HDR_LEN + (int)sizeof(struct tonic_synopt))
/* room for the Tonic SYN header, UDP (8) and the layers below */
#define MAX_TONIC_HEADER	(TONIC_SYN_LEN + 8 + MAX_HEADER)

#ifdef __KERNEL__
static inline struct tonichdr *tonic_hdr(const struct sk_buff *skb)
{
	return (struct tonichdr *)skb_transport_header(skb);
}
#endif

#endif /* _TONIC_WIRE_H */
