/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic: the BPF struct_ops type of protocol programs and the registry of
 * protocols by name.
 *
 * A protocol program (bpf/ *.bpf.c, Documentation/programs.md) fills in a
 * struct tonic_ops.  kmod/progs/bpf_ops.c adapts each attached one into a
 * struct tonic_proto_ops for the engine; kmod/progs/registry.c maps names
 * to them for setsockopt(SOL_TONIC, TONIC_PROTOCOL) and the per-netns
 * default.
 */
#ifndef _TONIC_BPF_OPS_H
#define _TONIC_BPF_OPS_H

#include <linux/rcupdate.h>
#include <linux/tonic.h>

#include "engine.h"
#include "bpf_user.h"

/* Protocol programs attached at the same time. */
#define TONIC_BPF_SLOTS		16

/**
 * struct tonic_ops - a transport protocol's loss detection and credit
 * adjustment, as a BPF struct_ops (the programmable part of Tonic §3.5)
 *
 * Each hook gets @fl, a copy of the flow's fixed state made for this call
 * (struct tonic_flow_ctx in kmod/engine/engine.h), and @user, the flow's
 * program-owned state.  A hook may write only @fl->out.* and @user; the
 * verifier rejects every other write.  It reads the acked and
 * marked-for-retransmission bitmaps through the bpf_tonic_* kfuncs, which
 * only programs of this type may call.  Hooks run in softirq or process
 * context with the connection locked; they must not sleep.  The engine
 * clamps every output into range and counts the clamp as a violation of
 * the flow (tonic_flow_stats.violations), so a wrong program hurts only
 * its own flows.
 */
struct tonic_ops {
	/**
	 * @init: a flow starts
	 * @fl: the flow; @fl->out may set the initial window, rate and timer
	 * @user: zeroed state
	 *
	 * Optional.  Also called, with @user zeroed again, when a live flow
	 * moves to a replacement of its program (bpf_link update).  A
	 * non-zero return makes the flow run the built-in NewReno instead.
	 */
	int (*init)(struct tonic_flow_ctx *fl, struct tonic_user *user);

	/**
	 * @incoming: stage 2 of a control event (ACK, NACK, grant, CNP)
	 * @fl: the flow after the fixed stage 1 moved @fl->wnd_start to the
	 *	cumulative ack and set the selectively acked bit;
	 *	@fl->newly_acked and @fl->old_wnd_start describe the change,
	 *	@fl->ev is the event
	 * @user: the flow's state
	 *
	 * May mark a range for retransmission (bpf_tonic_mark_rtx()), set the
	 * window or rate, re-arm or stop the retransmission timer.  Required.
	 */
	void (*incoming)(struct tonic_flow_ctx *fl, struct tonic_user *user);

	/**
	 * @periodic: the retransmission timer expired (@fl->timeout == 1) or
	 *	@periodic_ns passed (@fl->timeout == 0)
	 * @fl: the flow
	 * @user: the flow's state
	 *
	 * Same outputs as @incoming.  Without TONIC_OUT_TIMER the engine
	 * re-arms an expired timer with @fl->rto_ns.  Required.
	 */
	void (*periodic)(struct tonic_flow_ctx *fl, struct tonic_user *user);

	/**
	 * @release: the flow ends
	 * @fl: the flow
	 * @user: the flow's state
	 *
	 * Optional; outputs are ignored.
	 */
	void (*release)(struct tonic_flow_ctx *fl, struct tonic_user *user);

	/** @scheme: enum tonic_credit_scheme (WINDOW, RATE or GRANT) */
	u32 scheme;
	/** @signals: TONIC_SIG_* the receiver must send (negotiated at SYN) */
	u32 signals;
	/** @user_size: bytes of @user the program uses (<= TONIC_USER_BYTES) */
	u32 user_size;
	/** @merge_prio: enum tonic_merge_prio for @user writes in one step */
	u32 merge_prio;
	/** @periodic_ns: call @periodic this often while data is in flight */
	u64 periodic_ns;
	/** @name: unique protocol name, [a-z0-9_-], used by TONIC_PROTOCOL */
	char name[TONIC_PROTO_NAME_MAX];
};

/**
 * struct tonic_bpf_att - one attachment of a program in a slot
 * @ops: the struct_ops kernel data of the attached map
 * @name_gen: changes when the slot gets a new protocol name
 * @prog_gen: changes on every attach or replacement
 * @rcu: freed after a grace period
 */
struct tonic_bpf_att {
	struct tonic_ops *ops;
	u32 name_gen;
	u32 prog_gen;
	struct rcu_head rcu;
};

/**
 * struct tonic_bpf_slot - the engine's view of one attachable protocol
 * @proto: what the engine calls; its hooks dispatch to @att
 * @att: current attachment, NULL when free or detached
 * @name: protocol name while attached
 * @signals: receiver signals of the attached program
 * @name_gen: generation counter of the name in this slot
 * @prog_gen: generation counter of programs in this slot
 * @flows: flows started on this slot
 * @fallbacks: flows moved to the built-in NewReno (detach, init error)
 *
 * Slots are static, so a socket or flow may keep a pointer to @proto for
 * as long as the module lives; see Documentation/programs.md "Lifecycle".
 */
struct tonic_bpf_slot {
	struct tonic_proto_ops proto;
	struct tonic_bpf_att __rcu *att;
	char name[TONIC_PROTO_NAME_MAX];
	u32 signals;
	u32 name_gen;
	u32 prog_gen;
	atomic64_t flows;
	atomic64_t fallbacks;
};

extern struct tonic_bpf_slot tonic_bpf_slots[TONIC_BPF_SLOTS];
extern struct mutex tonic_proto_mutex;

#endif /* _TONIC_BPF_OPS_H */
