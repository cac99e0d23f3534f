/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic receiver logic: which control signals one data packet produces.
 *
 * Portable C on the engine's environment header, with no simulator types,
 * so that the kernel receive path can share it.  The signals are the ones
 * of kmod/wire.h: every data packet is answered by one ACK
 * carrying the cumulative ack (next expected segment) and the selective
 * ack of the segment that arrived, flagged NACK when it arrived out of
 * order, ECE when it carried CE, CNP when it carried CE and no CNP went
 * out for this flow within the CNP interval, GRANT with the bytes it
 * grants back (NDP's PULL), DUP when it was a duplicate.  Delayed ACKs
 * (RFC 1122 / 5681 §4.2): in-order data is acked every @delack_segs
 * segments or after @delack_ns; anything else is acked at once.
 *
 * Two reorder policies: SACK (keep out-of-order segments in a bitmap of
 * TONIC_RCV_WND segments; Tonic, IRN) and go-back-N (drop them and NACK
 * once per gap; RoCE).
 */
#ifndef _TONIC_RCV_H
#define _TONIC_RCV_H

#include "tonic_env.h"

/* ACK flags, the values of kmod/wire.h. */
#define TONIC_RF_SACK	0x01
#define TONIC_RF_NACK	0x02
#define TONIC_RF_ECE	0x04
#define TONIC_RF_CNP	0x08
#define TONIC_RF_GRANT	0x10
#define TONIC_RF_DUP	0x20

#define TONIC_RCV_WND	512	/* out-of-order segments kept, > max K */

enum tonic_rcv_policy {
	TONIC_RCV_SACK = 0,
	TONIC_RCV_GBN,
};

/**
 * struct tonic_rcv_cfg - receiver settings of one flow
 * @policy: enum tonic_rcv_policy
 * @delack_segs: ack every this many in-order segments (0 or 1: every one)
 * @delack_ns: delayed-ack timeout
 * @cnp_interval_ns: at most one CNP per this interval (0: no CNPs)
 * @grant: answer every data packet with a grant of its length
 */
struct tonic_rcv_cfg {
	u8 policy;
	u8 delack_segs;
	u8 grant;
	u64 delack_ns;
	u64 cnp_interval_ns;
};

/**
 * struct tonic_rcv - receiver state of one flow
 * @rcv_nxt: next expected segment
 * @ooo: ring bitmap (seg % TONIC_RCV_WND) of segments held out of order
 * @held: segments in @ooo
 * @pending: in-order segments not yet acked (delayed ack)
 * @last_cnp: when the last CNP went out
 * @cnp_sent: a CNP went out at least once
 * @nack_gap: go-back-N: the NACK for the current gap went out
 * @delivered: segments handed to the application (each exactly once)
 * @dups: duplicates received
 * @dropped_ooo: out-of-order segments dropped (go-back-N)
 * @beyond: segments beyond the reorder window (dropped)
 * @acks: ACKs produced
 * @nacks: of which NACKs
 * @cnps: CNPs produced
 */
struct tonic_rcv {
	u32 rcv_nxt;
	u32 held;
	u32 pending;
	u8 cnp_sent;
	u8 nack_gap;
	u64 last_cnp;
	u64 ooo[TONIC_RCV_WND / 64];
	u64 delivered;
	u64 dups;
	u64 dropped_ooo;
	u64 beyond;
	u64 acks;
	u64 nacks;
	u64 cnps;
};

/**
 * struct tonic_rcv_ack - one ACK to send
 * @flags: TONIC_RF_*
 * @cumack: next expected segment
 * @sack: the segment this ACK reports
 * @grant: grant bytes (with TONIC_RF_GRANT)
 */
struct tonic_rcv_ack {
	u32 flags;
	u32 cumack;
	u32 sack;
	u32 grant;
};

/* What tonic_rcv_data() asks of its caller (bits). */
#define TONIC_RCV_SEND_ACK	0x1	/* send *ack now */
#define TONIC_RCV_ARM_DELACK	0x2	/* arm the delayed-ack timer */

void tonic_rcv_init(struct tonic_rcv *r, u32 init_seq);

/**
 * tonic_rcv_data() - one data segment arrived
 * @r: state
 * @cfg: settings
 * @seg: its segment number
 * @len: its payload bytes
 * @ce: it carried ECN CE
 * @now: time in ns
 * @ack: filled in when TONIC_RCV_SEND_ACK is returned
 * @newly: segments newly delivered in order to the application
 *
 * Return: TONIC_RCV_* bits.
 */
unsigned int tonic_rcv_data(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			    u32 seg, u32 len, bool ce, u64 now,
			    struct tonic_rcv_ack *ack, u32 *newly);

/**
 * tonic_rcv_delack() - the delayed-ack timer expired
 * Return: true if *ack must be sent.
 */
bool tonic_rcv_delack(struct tonic_rcv *r, struct tonic_rcv_ack *ack);

#endif /* _TONIC_RCV_H */
