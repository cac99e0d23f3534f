/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic receiver model: which ACK one arriving data segment produces.
 *
 * Portable C beside the engine (the sender's logic) and, like it, built
 * into tonic.ko and natively: the kernel receive path (kmod/sock/input.c),
 * the simulator (userspace/sim), the debugfs simulation of
 * kmod/progs/bpf_sim.h and the native program tests (selftests/progs/sim.h,
 * selftests/unit/unit.h) all decide their ACKs here, so they cannot
 * disagree.  It keeps sequence state and counters only; where the
 * payload lives (an skb ring in the kernel) is the caller's business.
 *
 * Every data segment is answered by one ACK carrying the cumulative ack
 * and a selective ack of the segment (flag SACK), plus, only for the
 * signals the connection negotiated (TONIC_SIG_*): NACK when it arrived
 * out of order, ECE when it carried CE, CNP when it carried CE and none
 * went out within the CNP interval, GRANT with its length.  DUP marks a
 * duplicate (the sender's DSACK).  A segment outside the window, or one
 * the caller had no memory for, gets a bare cumulative ACK.
 *
 * Delayed ACKs (RFC 5681 §4.2): only a plain in-order full segment that
 * closes no hole and was not flagged ACKREQ may wait, for at most
 * @delack_segs segments or the caller's delayed-ACK timer.  Everything
 * else is news the sender must get at once.  A sender that chose an ACK
 * ratio (ACKFREQ on its segments; struct tonic_hook_out in engine.h)
 * asks for its ACKs with ACKREQ itself: its segments may wait for up to
 * @delack_max instead.  In a batch of segments taken together (GRO)
 * plain in-order segments, ACKREQ ones included, wait for the batch's end
 * (tonic_rcv_batch_end()), which acknowledges them in one ACK.
 *
 * Two reorder policies: SACK (keep out-of-order segments; Tonic, TCP,
 * IRN) and go-back-N (drop them and NACK once per gap; a RoCE responder,
 * simulator only).
 */
#ifndef _TONIC_RECEIVER_H
#define _TONIC_RECEIVER_H

#include "engine.h"
#include <linux/tonic.h>

/* ACK flags: the values of the wire header's (kmod/wire.h TONIC_F_*). */
#define TONIC_RF_SACK	0x01
#define TONIC_RF_NACK	0x02
#define TONIC_RF_ECE	0x04
#define TONIC_RF_CNP	0x08
#define TONIC_RF_GRANT	0x10
#define TONIC_RF_DUP	0x20

#define TONIC_RCV_WND	512	/* segments tracked past rcv_nxt, > TONIC_MAX_WINDOW */

enum tonic_rcv_policy {
	TONIC_RCV_SACK = 0,
	TONIC_RCV_GBN,
};

/**
 * struct tonic_rcv_cfg - receiver settings of one connection
 * @signals: TONIC_SIG_* negotiated; NACK, ECE, CNP and GRANT are sent
 *	only when asked for
 * @window: segments at or beyond rcv_nxt + @window are dropped (0 or
 *	more than TONIC_RCV_WND: TONIC_RCV_WND)
 * @seg_size: C; a shorter segment is acknowledged at once (0: none is)
 * @policy: enum tonic_rcv_policy
 * @delack_segs: acknowledge at least every this many in-order segments
 *	(0 or 1: every one)
 * @delack_max: the same for segments flagged ACKFREQ, whose sender asks
 *	for its ACKs with ACKREQ (0 or 1: every one)
 * @batch: the segment is part of a batch that tonic_rcv_batch_end() will
 *	close: plain in-order segments wait for it, ACKREQ ones included
 *	(unless the threshold is 1)
 * @cnp_interval_ns: at most one CNP per this interval
 */
struct tonic_rcv_cfg {
	u32 signals;
	u32 window;
	u32 seg_size;
	u8 policy;
	u8 delack_segs;
	u8 delack_max;
	bool batch;
	u64 cnp_interval_ns;
};

/**
 * struct tonic_rcv - receiver state of one connection
 * @rcv_nxt: next segment expected
 * @held: segments held out of order (bits set in @ooo)
 * @pending: in-order segments not yet acknowledged (delayed ACK)
 * @cnp_sent: a CNP went out at least once
 * @nack_gap: go-back-N: the current gap was NACKed already
 * @due: in a batch: a held segment asked for an ACK (ACKREQ)
 * @ackfreq: the last segment taken was flagged ACKFREQ
 * @last_cnp: when the last CNP went out (ns)
 * @ooo: bit per segment (number % TONIC_RCV_WND) held out of order
 * @delivered: segments handed over in order (each exactly once)
 * @held_total: segments ever held out of order
 * @dups: duplicates received
 * @dropped_ooo: go-back-N: out-of-order segments dropped
 * @beyond: segments dropped outside the window
 * @acks: ACKs produced (delayed ones included)
 * @nacks: of which NACKs
 * @cnps: CNPs produced
 */
struct tonic_rcv {
	u32 rcv_nxt;
	u32 held;
	u32 pending;
	u8 cnp_sent;
	u8 nack_gap;
	u8 due;
	u8 ackfreq;
	u64 last_cnp;
	u64 ooo[TONIC_RCV_WND / 64];
	u64 delivered;
	u64 held_total;
	u64 dups;
	u64 dropped_ooo;
	u64 beyond;
	u64 acks;
	u64 nacks;
	u64 cnps;
};

/* Where an arriving data segment goes (struct tonic_rcv_seg.verdict). */
enum tonic_rcv_verdict {
	TONIC_RCV_NEXT,		/* in order: delivered with what it unblocks */
	TONIC_RCV_HOLD,		/* out of order: kept (or a duplicate of a kept one) */
	TONIC_RCV_DUP,		/* already delivered */
	TONIC_RCV_BEYOND,	/* at or beyond rcv_nxt + window: dropped */
	TONIC_RCV_SKIP,		/* go-back-N: out of order, dropped */
	TONIC_RCV_DROP,		/* the caller could not keep it (memory) */
};

/**
 * struct tonic_rcv_seg - one arriving data segment
 * @seg: its segment number
 * @len: its payload bytes
 * @ce: it carried ECN CE
 * @ackreq: the sender asked for an ACK at once (a resend, the end of a
 *	write, its ACK ratio)
 * @ackfreq: the sender chose an ACK ratio and asks for ACKs with
 *	@ackreq itself (the wire's TONIC_F_ACKFREQ)
 * @verdict: enum tonic_rcv_verdict: tonic_rcv_verdict()'s answer, or
 *	TONIC_RCV_DROP / TONIC_RCV_DUP where the caller knows better; on
 *	return from tonic_rcv_take() a held duplicate reads TONIC_RCV_DUP
 */
struct tonic_rcv_seg {
	u32 seg;
	u32 len;
	bool ce;
	bool ackreq;
	bool ackfreq;
	u8 verdict;
};

/**
 * struct tonic_rcv_ack - one ACK to send
 * @flags: TONIC_RF_*
 * @cumack: next segment expected
 * @sack: the segment this ACK reports
 * @grant: grant bytes (with TONIC_RF_GRANT)
 */
struct tonic_rcv_ack {
	u32 flags;
	u32 cumack;
	u32 sack;
	u32 grant;
};

/* What tonic_rcv_take() asks of its caller (bits). */
#define TONIC_RCV_SEND_ACK	0x1	/* send *ack now */
#define TONIC_RCV_ARM_DELACK	0x2	/* arm the delayed-ACK timer if it is not */

/**
 * tonic_rcv_init() - start a connection's receiver
 * @r: state
 * @init_seq: first segment number expected
 */
void tonic_rcv_init(struct tonic_rcv *r, u32 init_seq);

/**
 * tonic_rcv_verdict() - where segment @seg would go
 * @r: state
 * @cfg: settings
 * @seg: segment number
 *
 * Return: TONIC_RCV_NEXT, _HOLD, _DUP, _BEYOND or _SKIP; nothing changes.
 */
u8 tonic_rcv_verdict(const struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
		     u32 seg);

/**
 * tonic_rcv_take() - account the segment and decide its ACK
 * @r: state
 * @cfg: settings
 * @in: the segment, with its verdict (see struct tonic_rcv_seg)
 * @now: time in ns (CNP rate limit)
 * @ack: filled in when TONIC_RCV_SEND_ACK is returned
 * @newly: segments delivered in order by this one (0 unless NEXT)
 *
 * Return: TONIC_RCV_* bits; 0 when nothing is sent (a go-back-N gap
 * already NACKed).
 */
unsigned int tonic_rcv_take(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			    struct tonic_rcv_seg *in, u64 now,
			    struct tonic_rcv_ack *ack, u32 *newly);

/**
 * tonic_rcv_thresh() - plain in-order segments acknowledged together at most
 * @cfg: settings
 * @ackfreq: the segments are flagged ACKFREQ (the sender's ACK ratio)
 *
 * Return: delack_max or delack_segs; 0 or 1: each one is acknowledged.
 */
static inline u32 tonic_rcv_thresh(const struct tonic_rcv_cfg *cfg,
				   bool ackfreq)
{
	return ackfreq ? cfg->delack_max : cfg->delack_segs;
}

/**
 * tonic_rcv_run_ok() - may tonic_rcv_take_run() take @n segments from @seg?
 * @r: state
 * @cfg: settings
 * @seg: the first segment's number
 * @n: segments, numbered @seg to @seg + @n - 1
 * @ackfreq: they are flagged ACKFREQ
 *
 * True when taking them one by one with tonic_rcv_take() would deliver
 * each in order and decide nothing but a wait for the batch's end (and
 * an ACK for a short last one): in a batch, nothing held out of order,
 * @seg is rcv_nxt, all inside the window, more than one segment per ACK,
 * no grants.  The caller excludes CE.
 *
 * Return: true if the run may be taken whole.
 */
bool tonic_rcv_run_ok(const struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
		      u32 seg, u32 n, bool ackfreq);

/**
 * tonic_rcv_take_run() - take @n in-order segments at once
 * @r: state
 * @cfg: settings
 * @n: segments from rcv_nxt on (tonic_rcv_run_ok() said yes), all of
 *	C bytes but the last
 * @last_len: payload bytes of the last one
 * @ackreq: one of them was flagged ACKREQ
 * @ackfreq: they are flagged ACKFREQ
 * @ack: filled in when TONIC_RCV_SEND_ACK is returned
 *
 * The same state and answer as @n calls of tonic_rcv_take() in a batch.
 *
 * Return: TONIC_RCV_SEND_ACK (a short last segment) or
 * TONIC_RCV_ARM_DELACK (they wait for the batch's end).
 */
unsigned int tonic_rcv_take_run(struct tonic_rcv *r,
				const struct tonic_rcv_cfg *cfg, u32 n,
				u32 last_len, bool ackreq, bool ackfreq,
				struct tonic_rcv_ack *ack);

/**
 * tonic_rcv_take_to_ack() - the next ACK of a run taken as lone segments
 * @r: state
 * @cfg: settings, with more than one segment per ACK for @ackfreq
 * @n: full in-order segments from rcv_nxt on, none flagged ACKREQ but
 *	perhaps the last (tonic_rcv_run_ok() said yes)
 * @ackfreq: they are flagged ACKFREQ
 * @ack: the ACK to send, when segments were taken
 *
 * Where lone arrivals (not a batch) would have sent an ACK before the last
 * of @n segments (every tonic_rcv_thresh() plain segments, counting those
 * pending), takes the segments up to that one and acknowledges them.
 * Called until it returns 0, it leaves the rest (1 to @n segments) for
 * tonic_rcv_take_run(), and the ACKs are those of lone segments.
 *
 * Return: segments taken (then send @ack), 0 if no ACK falls before the
 * last.
 */
u32 tonic_rcv_take_to_ack(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			  u32 n, bool ackfreq, struct tonic_rcv_ack *ack);

/**
 * tonic_rcv_data() - tonic_rcv_verdict() then tonic_rcv_take()
 * @r: state
 * @cfg: settings
 * @in: the segment; its verdict is set here
 * @now: time in ns
 * @ack: filled in when TONIC_RCV_SEND_ACK is returned
 * @newly: segments delivered in order by this one
 *
 * For receivers without a memory limit.  Return: TONIC_RCV_* bits.
 */
unsigned int tonic_rcv_data(struct tonic_rcv *r, const struct tonic_rcv_cfg *cfg,
			    struct tonic_rcv_seg *in, u64 now,
			    struct tonic_rcv_ack *ack, u32 *newly);

/**
 * tonic_rcv_acked() - an ACK went out (any ACK carries rcv_nxt)
 * @r: state
 */
static inline void tonic_rcv_acked(struct tonic_rcv *r)
{
	r->pending = 0;
	r->due = 0;
}

/**
 * tonic_rcv_delack() - the delayed-ACK timer expired
 * @r: state
 * @ack: filled in when true is returned
 *
 * Return: true if *ack must be sent.
 */
bool tonic_rcv_delack(struct tonic_rcv *r, struct tonic_rcv_ack *ack);

/**
 * tonic_rcv_batch_end() - a batch (struct tonic_rcv_cfg.batch) is over
 * @r: state
 * @cfg: settings
 * @ack: filled in when TONIC_RCV_SEND_ACK is returned
 *
 * One ACK for the in-order segments the batch left waiting if one of them
 * asked for it or there are as many as a lone segment would wait for;
 * otherwise they wait for the delayed-ACK timer.
 *
 * Return: TONIC_RCV_SEND_ACK, TONIC_RCV_ARM_DELACK or 0 (none waits).
 */
unsigned int tonic_rcv_batch_end(struct tonic_rcv *r,
				 const struct tonic_rcv_cfg *cfg,
				 struct tonic_rcv_ack *ack);

/**
 * tonic_rcv_purge() - forget what is held out of order
 * @r: state
 */
void tonic_rcv_purge(struct tonic_rcv *r);

/**
 * tonic_rcv_ack_ctrl() - the engine events a plain sender makes of an ACK
 * @ack: the ACK
 * @flow_id: the sender's flow
 * @sack: pass the selective ack on (false: cumulative ACKs only, RoCE)
 * @ev: room for two events: the ACK (or NACK), then a GRANT
 *
 * What the simulations of kmod/progs/bpf_sim.h and selftests/progs do; the
 * socket layer (kmod/sock/sndbuf.c) and the simulator add RTT samples, and
 * the socket layer DSACK, ECN echo and CNP events.  A duplicate becomes
 * a bare cumulative ACK.
 *
 * Return: the number of events filled in.
 */
unsigned int tonic_rcv_ack_ctrl(const struct tonic_rcv_ack *ack, u32 flow_id,
				bool sack, struct tonic_ctrl_desc *ev);

#endif /* _TONIC_RECEIVER_H */
