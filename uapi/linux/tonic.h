/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Tonic: programmable transport protocols for ordinary sockets.
 *
 * Everything a user program needs to talk to tonic.ko lives here.
 */
#ifndef _UAPI_LINUX_TONIC_H
#define _UAPI_LINUX_TONIC_H

#include <linux/types.h>

/* Default IP protocol number (RFC 3692 experimental); a module parameter. */
#define IPPROTO_TONIC		253

/* setsockopt()/getsockopt() level for the options below. */
#define SOL_TONIC		253

/*
 * Socket options at SOL_TONIC.
 *
 * TONIC_SEGMENT_SIZE (int, bytes): the segment size C wanted for the next
 *	connect() or for connections accepted from this listener.  0 means
 *	"path MTU minus headers" (the default).  The value actually used is
 *	the minimum of both ends' wishes and of the path MTU; read it back
 *	once connected.  Range 0 or [TONIC_MIN_SEGMENT, TONIC_MAX_SEGMENT].
 * TONIC_FLUSH_DELAY (int, microseconds): how long a partial segment at the
 *	tail of the send buffer waits for more data before it is announced
 *	as a sub-segment.  Default net.tonic.flush_delay_us.
 * TONIC_WINDOW (int, segments): the window K wanted (1..256), negotiated
 *	down to the smaller of both ends'.  Settable before connect/listen.
 * TONIC_INFO (struct tonic_info, read only).
 * TONIC_PROTOCOL (string, at most TONIC_PROTO_NAME_MAX - 1 characters):
 *	the transport-logic program of this socket, like TCP_CONGESTION.
 *	Settable before connect/listen; "" or unset means the namespace
 *	default (net.tonic.default_protocol).  Fails with ENOENT if no such
 *	program is attached, EPERM if it is restricted (not built in, not in
 *	net.tonic.allowed_protocols, not the default) and the caller lacks
 *	CAP_NET_ADMIN in the socket's network namespace.
 */
#define TONIC_SEGMENT_SIZE	1
#define TONIC_FLUSH_DELAY	2
#define TONIC_WINDOW		3
#define TONIC_INFO		4
#define TONIC_PROTOCOL		5

#define TONIC_MIN_SEGMENT	64
#define TONIC_MAX_SEGMENT	65000
#define TONIC_MAX_WINDOW	256

/**
 * enum tonic_signal - receiver signals a connection's protocol asks for
 * @TONIC_SIG_ACK: cumulative + selective ACK
 * @TONIC_SIG_NACK: NACK on out-of-order arrival
 * @TONIC_SIG_GRANT: grant (pull) tokens
 * @TONIC_SIG_CNP: CNP when CE is set
 * @TONIC_SIG_ECE: ECN echo
 *
 * Bits of tonic_info.signals (the netlink flow attribute "signals" has
 * the same values).  An enum so that BPF programs see it in tonic.ko's BTF.
 */
enum tonic_signal {
	TONIC_SIG_ACK		= 1 << 0,
	TONIC_SIG_NACK		= 1 << 1,
	TONIC_SIG_GRANT		= 1 << 2,
	TONIC_SIG_CNP		= 1 << 3,
	TONIC_SIG_ECE		= 1 << 4,
};

#define TONIC_PROTO_NAME_MAX	16

/**
 * struct tonic_info - getsockopt(SOL_TONIC, TONIC_INFO)
 * @state: TCP state number (TCP_ESTABLISHED == 1 ...)
 * @segment_size: C, bytes: of the segments this end cuts now (lower than
 *	the handshake's after a path MTU drop)
 * @window: K, segments
 * @cwnd: congestion window the protocol reports, segments (0 if rate based)
 * @rate: sending rate the protocol reports, bytes per second (0 if window based)
 * @outstanding: segments sent and not yet cumulatively acknowledged
 * @peer_window: receive window last advertised by the peer, segments
 * @flush_delay_us: flush delay T
 * @signals: TONIC_SIG_* negotiated for this connection
 * @retransmits: segments retransmitted
 * @timeouts: retransmission timeouts
 * @segs_out: data segments sent (incl. retransmissions)
 * @segs_in: data segments received (incl. duplicates)
 * @bytes_acked: bytes cumulatively acknowledged by the peer
 * @bytes_received: bytes delivered in order to this socket
 * @dup_segs_in: duplicate data segments received and dropped
 * @ooo_segs_in: data segments that arrived out of order
 * @subsegments: sub-segments announced (flush delay expiries)
 * @rtt_us: smoothed round-trip time (0 if unknown)
 * @protocol: name of the transport-logic program ("newreno")
 */
struct tonic_info {
	__u8	state;
	__u8	pad[3];
	__u32	segment_size;
	__u32	window;
	__u32	cwnd;
	__u64	rate;
	__u32	outstanding;
	__u32	peer_window;
	__u32	flush_delay_us;
	__u32	signals;
	__u64	retransmits;
	__u64	timeouts;
	__u64	segs_out;
	__u64	segs_in;
	__u64	bytes_acked;
	__u64	bytes_received;
	__u64	dup_segs_in;
	__u64	ooo_segs_in;
	__u64	subsegments;
	__u32	rtt_us;
	__u32	pad2;
	char	protocol[TONIC_PROTO_NAME_MAX];
};

#endif /* _UAPI_LINUX_TONIC_H */
