/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic handshake arithmetic: what C, K and the receiver signals become.
 *
 * Portable C, built into tonic.ko (kmod/sock/handshake.c: the listener's
 * choice from a SYN, the client's acceptance of a SYN-ACK) and natively
 * (the packet fuzzer, the unit tests).  The path MTU and the protocol's
 * own signals are the caller's: the kernel's route and program registry.
 */
#ifndef _TONIC_NEGOTIATE_H
#define _TONIC_NEGOTIATE_H

#include "tonic_env.h"
#include "pkt.h"

/**
 * struct tonic_syn_choice - what a listener makes of a SYN
 * @seg_size: C the client may get: its wish, lowered to the listener's
 *	TONIC_SEGMENT_SIZE if set (0: the path MTU decides); the caller
 *	fits it to the route
 * @window: K, a power of two in [1, TONIC_MAX_WINDOW]
 * @signals: TONIC_SIG_* both ends need: the client's known ones and ours
 */
struct tonic_syn_choice {
	u32 seg_size;
	u16 window;
	u32 signals;
};

/**
 * tonic_syn_choose() - the listener's choice (tonic_negotiate_req())
 * @v: the SYN's options
 * @window: K the listener wants (TONIC_WINDOW or the sysctl)
 * @signals: the signals the listener's protocol needs
 * @user_seg: the listener's TONIC_SEGMENT_SIZE (0: none)
 * @c: filled in
 *
 * The smaller C and K, the union of the signals (the client's unknown
 * bits dropped).
 */
void tonic_syn_choose(const struct tonic_syn_view *v, u16 window,
		      u32 signals, u32 user_seg, struct tonic_syn_choice *c);

/**
 * tonic_syn_accept() - a client takes the listener's choice
 *	(tonic_negotiate_synack())
 * @v: the SYN-ACK's options
 * @seg_size: in: C the client wanted; out: C in use
 * @window: in: K the client wanted; out: K in use, a power of two
 * @signals: in: the signals the client's protocol needs; out: with the
 *	listener's known ones and TONIC_SIG_ACK
 *
 * Return: 0, or -EINVAL (nothing changed) if the choice is unusable (C
 * below TONIC_MIN_SEGMENT, or K 0).
 */
int tonic_syn_accept(const struct tonic_syn_view *v, u16 *seg_size,
		     u16 *window, u32 *signals);

#endif /* _TONIC_NEGOTIATE_H */
