// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic: protocol programs as BPF struct_ops (struct tonic_ops).
 *
 * Registration follows net/ipv4/bpf_tcp_ca.c; the contract of each op is
 * in kmod/progs/bpf_ops.h.  What this file adds:
 *
 * - The verifier rules.  Reads of the context are free; writes go through
 *   tonic_bpf_btf_struct_access(), which allows only struct
 *   tonic_flow_ctx.out and struct tonic_user, and names the field it
 *   refuses.
 * - kfuncs for the read-only bitmap queries and for marking a range for
 *   retransmission (kmod/progs/bpf_query.h).  They take a trusted struct
 *   tonic_flow_ctx and a filter refuses them to other struct_ops types.
 * - Slots.  The engine calls a struct tonic_proto_ops whose hooks get no
 *   pointer to the protocol, so each of TONIC_BPF_SLOTS static slots has
 *   its own trampolines that call the slot's current program under RCU.
 *   The module cannot pin a struct_ops map per socket (it has no
 *   reference-counted handle on one it could take per flow),
 *   so a flow keeps a pointer to the static slot instead and checks on
 *   every call that its program is still there:
 *     - program replaced (bpf_link update, same name and scheme): the flow
 *       restarts with the new program's init and zeroed user state;
 *     - program detached (or slot reused under another name): the flow runs
 *       the built-in NewReno for the rest of its life.
 *   Detach never waits for flows: the struct_ops map is freed only after
 *   synchronize_rcu_mult(call_rcu, call_rcu_tasks), which covers callers
 *   inside rcu_read_lock().
 */
#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "protocol.h"
#include "bpf_ops.h"
#include "bpf_query.h"

struct tonic_bpf_slot tonic_bpf_slots[TONIC_BPF_SLOTS];
DEFINE_MUTEX(tonic_proto_mutex);	/* slot attach/detach, registry */

/*
 * The user area of a flow on a slot: which attachment it belongs to, then
 * the program's (or the fallback's) state.
 */
enum { TONIC_UA_BPF, TONIC_UA_FALLBACK };

struct tonic_bpf_uarea {
	u32 name_gen;
	u32 prog_gen;
	u32 mode;
	u32 pad;
	struct tonic_user user;
};

enum { OP_INIT, OP_INCOMING, OP_PERIODIC, OP_RELEASE };

static void tonic_fallback(struct tonic_bpf_slot *s, struct tonic_bpf_uarea *u,
			   struct tonic_flow_ctx *c)
{
	const struct tonic_proto_ops *nr = &tonic_newreno_ops;

	memset(&u->user, 0, sizeof(u->user));
	memset(&c->out, 0, sizeof(c->out));	/* drop a failed init's outputs */
	u->mode = TONIC_UA_FALLBACK;
	atomic64_inc(&s->fallbacks);
	/* The built-in's ACK ratio, not the detached program's. */
	c->out.flags = TONIC_OUT_ACK_RATIO;
	if (nr->init)
		nr->init(c, &u->user);
}

static int tonic_bpf_call(struct tonic_bpf_slot *s, int op,
			  struct tonic_flow_ctx *c, void *area)
{
	const struct tonic_proto_ops *nr = &tonic_newreno_ops;
	struct tonic_bpf_uarea *u = area;
	struct tonic_bpf_att *att;
	struct tonic_ops *ops;

	rcu_read_lock();
	att = rcu_dereference(s->att);
	if (op == OP_INIT) {
		atomic64_inc(&s->flows);
		if (!att) {
			tonic_fallback(s, u, c);
			goto out;
		}
		u->name_gen = att->name_gen;
		u->prog_gen = att->prog_gen - 1;	/* init below */
	}
	if (u->mode == TONIC_UA_BPF &&
	    (!att || att->name_gen != u->name_gen)) {
		if (op == OP_RELEASE)
			goto out;
		tonic_fallback(s, u, c);
	}
	if (u->mode == TONIC_UA_FALLBACK) {
		switch (op) {
		case OP_INCOMING:
			nr->incoming(c, &u->user);
			break;
		case OP_PERIODIC:
			nr->periodic(c, &u->user);
			break;
		case OP_RELEASE:
			if (nr->release)
				nr->release(c, &u->user);
			break;
		}
		goto out;
	}

	ops = att->ops;
	if (u->prog_gen != att->prog_gen) {
		/* new flow, or its program was replaced under it */
		if (op == OP_RELEASE)
			goto out;
		memset(&u->user, 0, sizeof(u->user));
		u->prog_gen = att->prog_gen;
		if (ops->init && ops->init(c, &u->user)) {
			tonic_fallback(s, u, c);
			goto out;
		}
	}
	switch (op) {
	case OP_INCOMING:
		ops->incoming(c, &u->user);
		break;
	case OP_PERIODIC:
		ops->periodic(c, &u->user);
		break;
	case OP_RELEASE:
		if (ops->release)
			ops->release(c, &u->user);
		break;
	}
out:
	rcu_read_unlock();
	return 0;
}

#define TONIC_SLOT_HOOKS(i)						\
static int tonic_slot_init_##i(struct tonic_flow_ctx *c, void *u)	\
{									\
	return tonic_bpf_call(&tonic_bpf_slots[i], OP_INIT, c, u);	\
}									\
static void tonic_slot_incoming_##i(struct tonic_flow_ctx *c, void *u)	\
{									\
	tonic_bpf_call(&tonic_bpf_slots[i], OP_INCOMING, c, u);		\
}									\
static void tonic_slot_periodic_##i(struct tonic_flow_ctx *c, void *u)	\
{									\
	tonic_bpf_call(&tonic_bpf_slots[i], OP_PERIODIC, c, u);		\
}									\
static void tonic_slot_release_##i(struct tonic_flow_ctx *c, void *u)	\
{									\
	tonic_bpf_call(&tonic_bpf_slots[i], OP_RELEASE, c, u);		\
}

#define TONIC_SLOT_PROTO(i) {						\
	.init = tonic_slot_init_##i,					\
	.incoming = tonic_slot_incoming_##i,				\
	.periodic = tonic_slot_periodic_##i,				\
	.release = tonic_slot_release_##i,				\
}

TONIC_SLOT_HOOKS(0)
TONIC_SLOT_HOOKS(1)
TONIC_SLOT_HOOKS(2)
TONIC_SLOT_HOOKS(3)
TONIC_SLOT_HOOKS(4)
TONIC_SLOT_HOOKS(5)
TONIC_SLOT_HOOKS(6)
TONIC_SLOT_HOOKS(7)
TONIC_SLOT_HOOKS(8)
TONIC_SLOT_HOOKS(9)
TONIC_SLOT_HOOKS(10)
TONIC_SLOT_HOOKS(11)
TONIC_SLOT_HOOKS(12)
TONIC_SLOT_HOOKS(13)
TONIC_SLOT_HOOKS(14)
TONIC_SLOT_HOOKS(15)

static const struct tonic_proto_ops tonic_slot_protos[TONIC_BPF_SLOTS] = {
	TONIC_SLOT_PROTO(0), TONIC_SLOT_PROTO(1), TONIC_SLOT_PROTO(2),
	TONIC_SLOT_PROTO(3), TONIC_SLOT_PROTO(4), TONIC_SLOT_PROTO(5),
	TONIC_SLOT_PROTO(6), TONIC_SLOT_PROTO(7), TONIC_SLOT_PROTO(8),
	TONIC_SLOT_PROTO(9), TONIC_SLOT_PROTO(10), TONIC_SLOT_PROTO(11),
	TONIC_SLOT_PROTO(12), TONIC_SLOT_PROTO(13), TONIC_SLOT_PROTO(14),
	TONIC_SLOT_PROTO(15),
};
static_assert(ARRAY_SIZE(tonic_slot_protos) == TONIC_BPF_SLOTS);
static_assert(sizeof(struct tonic_bpf_uarea) <= TONIC_MAX_USER_BYTES);

/* ---- kfuncs ---- */

__bpf_kfunc_start_defs();

/**
 * bpf_tonic_is_acked() - is @seg cumulatively or selectively acked?
 * @fl: the hook's flow context
 * @seg: segment number
 *
 * Return: true or false; see tonic_ctx_is_acked().
 */
__bpf_kfunc bool bpf_tonic_is_acked(struct tonic_flow_ctx *fl, u32 seg)
{
	return tonic_ctx_is_acked(fl, seg);
}

/**
 * bpf_tonic_is_marked() - is @seg marked for retransmission?
 * @fl: the hook's flow context
 * @seg: segment number
 *
 * Return: true or false.
 */
__bpf_kfunc bool bpf_tonic_is_marked(struct tonic_flow_ctx *fl, u32 seg)
{
	return tonic_ctx_is_marked(fl, seg);
}

/**
 * bpf_tonic_first_acked() - first selectively acked segment from @from
 * @fl: the hook's flow context
 * @from: segment number, clamped to the window start
 *
 * Return: the segment, or the window end (next_new) if none.
 */
__bpf_kfunc u32 bpf_tonic_first_acked(struct tonic_flow_ctx *fl, u32 from)
{
	return tonic_ctx_first_acked(fl, from);
}

/**
 * bpf_tonic_first_unacked() - first unacked segment from @from
 * @fl: the hook's flow context
 * @from: segment number, clamped to the window start
 *
 * Return: the segment, or the window end (next_new) if none.
 */
__bpf_kfunc u32 bpf_tonic_first_unacked(struct tonic_flow_ctx *fl, u32 from)
{
	return tonic_ctx_first_unacked(fl, from);
}

/**
 * bpf_tonic_count_acked() - selectively acked segments in [@from, @to)
 * @fl: the hook's flow context
 * @from: first segment
 * @to: one past the last
 *
 * Return: the count.
 */
__bpf_kfunc u32 bpf_tonic_count_acked(struct tonic_flow_ctx *fl, u32 from,
				      u32 to)
{
	return tonic_ctx_count_acked(fl, from, to);
}

/**
 * bpf_tonic_mark_rtx() - mark [@start, @end) for retransmission
 * @fl: the hook's flow context
 * @start: first segment
 * @end: one past the last
 *
 * Widens an earlier range of the same call; the engine clips it.
 */
__bpf_kfunc void bpf_tonic_mark_rtx(struct tonic_flow_ctx *fl, u32 start,
				    u32 end)
{
	tonic_q_mark_rtx(fl, start, end);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(tonic_kfunc_ids)
BTF_ID_FLAGS(func, bpf_tonic_is_acked, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_tonic_is_marked, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_tonic_first_acked, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_tonic_first_unacked, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_tonic_count_acked, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_tonic_mark_rtx, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(tonic_kfunc_ids)

BTF_ID_LIST(tonic_btf_ids)
BTF_ID(struct, tonic_ops)

enum { TONIC_ID_OPS };

/*
 * The BTF and type ids of the hook arguments, as the verifier sees them:
 * recorded by tonic_bpf_is_valid_access() when a program loads its
 * arguments (every op has the same two), before it can write through them.
 */
static struct btf *tonic_arg_btf;
static u32 tonic_arg_ids[2];	/* [0] struct tonic_flow_ctx, [1] struct tonic_user */

/* STRUCT_OPS kfuncs are visible to every struct_ops type: keep ours to ours. */
static int tonic_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	struct btf *btf = READ_ONCE(tonic_arg_btf);

	if (!btf_id_set8_contains(&tonic_kfunc_ids, kfunc_id))
		return 0;
	/* (the argument btf is known once a program loaded its arguments) */
	if (prog->aux->attach_btf_id != tonic_btf_ids[TONIC_ID_OPS] ||
	    (btf && prog->aux->attach_btf != btf))
		return -EACCES;
	return 0;
}

static const struct btf_kfunc_id_set tonic_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &tonic_kfunc_ids,
	.filter = tonic_kfunc_filter,
};

/* ---- verifier ---- */

#define TONIC_CTX_FIELD(f) { offsetof(struct tonic_flow_ctx, f),	\
			     offsetofend(struct tonic_flow_ctx, f), #f }

/* Read-only fields, for the verifier's message. */
static const struct {
	u32 start;
	u32 end;
	const char *name;
} tonic_ctx_fields[] = {
	TONIC_CTX_FIELD(flow_id), TONIC_CTX_FIELD(timeout),
	TONIC_CTX_FIELD(now), TONIC_CTX_FIELD(ev),
	TONIC_CTX_FIELD(newly_acked), TONIC_CTX_FIELD(old_wnd_start),
	TONIC_CTX_FIELD(wnd_start), TONIC_CTX_FIELD(next_new),
	TONIC_CTX_FIELD(tail), TONIC_CTX_FIELD(wnd),
	TONIC_CTX_FIELD(wnd_max), TONIC_CTX_FIELD(seg_size),
	TONIC_CTX_FIELD(marked), TONIC_CTX_FIELD(ack_ratio),
	TONIC_CTX_FIELD(rate_bps), TONIC_CTX_FIELD(rate_min_bps),
	TONIC_CTX_FIELD(rate_max_bps), TONIC_CTX_FIELD(rto_ns),
	TONIC_CTX_FIELD(rto_min_ns), TONIC_CTX_FIELD(rto_max_ns),
	TONIC_CTX_FIELD(acked), TONIC_CTX_FIELD(rtx),
};

static const char *tonic_ctx_field_name(int off)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tonic_ctx_fields); i++)
		if (off >= tonic_ctx_fields[i].start &&
		    off < tonic_ctx_fields[i].end)
			return tonic_ctx_fields[i].name;
	return "?";
}

/*
 * Called for every write through a pointer the program got as a hook
 * argument (reads never come here).  Only the outputs and the user area
 * are writable: everything else in the context is a copy the engine
 * ignores, and a program that writes it has a bug worth reporting.
 */
static int tonic_bpf_btf_struct_access(struct bpf_verifier_log *log,
				       const struct bpf_reg_state *reg,
				       int off, int size)
{
	size_t start, end;

	const struct btf *btf = READ_ONCE(tonic_arg_btf);

	if (btf && reg->btf == btf &&
	    reg->btf_id == READ_ONCE(tonic_arg_ids[1])) {
		start = 0;
		end = sizeof(struct tonic_user);
	} else if (btf && reg->btf == btf &&
		   reg->btf_id == READ_ONCE(tonic_arg_ids[0])) {
		start = offsetof(struct tonic_flow_ctx, out);
		end = offsetofend(struct tonic_flow_ctx, out);
		if (off < start) {
			bpf_log(log,
				"tonic: write to read-only field '%s' of struct tonic_flow_ctx (off %d); only ctx->out.* and the user area are writable\n",
				tonic_ctx_field_name(off), off);
			return -EACCES;
		}
	} else {
		bpf_log(log,
			"tonic: write through a read-only pointer; only ctx->out.* and the user area are writable\n");
		return -EACCES;
	}
	if (off < start || off + size > end) {
		bpf_log(log,
			"tonic: write at off %d size %d beyond the writable area [%zu, %zu)\n",
			off, size, start, end);
		return -EACCES;
	}
	return 0;
}

static const struct bpf_func_proto *
tonic_bpf_get_func_proto(enum bpf_func_id func_id, const struct bpf_prog *prog)
{
	return bpf_base_func_proto(func_id, prog);
}

static bool tonic_bpf_is_valid_access(int off, int size,
				      enum bpf_access_type type,
				      const struct bpf_prog *prog,
				      struct bpf_insn_access_aux *info)
{
	if (!bpf_tracing_btf_ctx_access(off, size, type, prog, info))
		return false;
	if (base_type(info->reg_type) == PTR_TO_BTF_ID &&
	    off / sizeof(u64) < ARRAY_SIZE(tonic_arg_ids)) {
		WRITE_ONCE(tonic_arg_btf, info->btf);
		WRITE_ONCE(tonic_arg_ids[off / sizeof(u64)], info->btf_id);
	}
	return true;
}

static const struct bpf_verifier_ops tonic_bpf_verifier_ops = {
	.get_func_proto = tonic_bpf_get_func_proto,
	.is_valid_access = tonic_bpf_is_valid_access,
	.btf_struct_access = tonic_bpf_btf_struct_access,
};

/* ---- struct_ops ---- */

static int tonic_bpf_init(struct btf *btf)
{
	/*
	 * Constants the programs use but no member of tonic.ko's types has
	 * as its type: name them here so that they are in the module's BTF
	 * and bpf/ gets them through vmlinux.h instead of copies.
	 */
	BTF_TYPE_EMIT(enum tonic_ctrl_type);
	BTF_TYPE_EMIT(enum tonic_ctrl_flag);
	BTF_TYPE_EMIT(enum tonic_out_flag);
	BTF_TYPE_EMIT(enum tonic_timeout_kind);
	BTF_TYPE_EMIT(enum tonic_signal);
	BTF_TYPE_EMIT(enum tonic_user_size);
	return 0;
}

static bool tonic_name_ok(const char *name)
{
	unsigned int i;

	for (i = 0; i < TONIC_PROTO_NAME_MAX && name[i]; i++)
		if (!isdigit(name[i]) && !islower(name[i]) &&
		    name[i] != '_' && name[i] != '-')
			return false;
	return i > 0 && i < TONIC_PROTO_NAME_MAX;
}

static int tonic_bpf_init_member(const struct btf_type *t,
				 const struct btf_member *member,
				 void *kdata, const void *udata)
{
	const struct tonic_ops *uops = udata;
	struct tonic_ops *ops = kdata;
	u32 moff = __btf_member_bit_offset(t, member) / 8;

	switch (moff) {
	case offsetof(struct tonic_ops, scheme):
		if (uops->scheme < TONIC_CREDIT_WINDOW ||
		    uops->scheme > TONIC_CREDIT_GRANT)
			return -EINVAL;
		ops->scheme = uops->scheme;
		return 1;
	case offsetof(struct tonic_ops, signals):
		if (uops->signals & ~(TONIC_SIG_ACK | TONIC_SIG_NACK |
				      TONIC_SIG_GRANT | TONIC_SIG_CNP |
				      TONIC_SIG_ECE))
			return -EINVAL;
		ops->signals = uops->signals;
		return 1;
	case offsetof(struct tonic_ops, user_size):
		if (uops->user_size > TONIC_USER_BYTES)
			return -E2BIG;
		ops->user_size = uops->user_size;
		return 1;
	case offsetof(struct tonic_ops, merge_prio):
		if (uops->merge_prio > TONIC_MERGE_INCOMING_WINS)
			return -EINVAL;
		ops->merge_prio = uops->merge_prio;
		return 1;
	case offsetof(struct tonic_ops, periodic_ns):
		if (uops->periodic_ns && uops->periodic_ns < NSEC_PER_USEC)
			return -EINVAL;
		ops->periodic_ns = uops->periodic_ns;
		return 1;
	case offsetof(struct tonic_ops, name):
		if (!tonic_name_ok(uops->name))
			return -EINVAL;
		strscpy(ops->name, uops->name, sizeof(ops->name));
		return 1;
	}
	return 0;
}

static int tonic_bpf_validate(void *kdata)
{
	struct tonic_ops *ops = kdata;

	if (!ops->incoming || !ops->periodic || !tonic_name_ok(ops->name) ||
	    !ops->scheme)
		return -EINVAL;
	return 0;
}

/* Caller holds tonic_proto_mutex. */
static struct tonic_bpf_slot *tonic_slot_of(const struct tonic_ops *ops)
{
	struct tonic_bpf_att *att;
	unsigned int i;

	for (i = 0; i < TONIC_BPF_SLOTS; i++) {
		att = rcu_dereference_protected(tonic_bpf_slots[i].att,
						lockdep_is_held(&tonic_proto_mutex));
		if (att && att->ops == ops)
			return &tonic_bpf_slots[i];
	}
	return NULL;
}

static void tonic_slot_publish(struct tonic_bpf_slot *s, struct tonic_ops *ops,
			       struct tonic_bpf_att *att)
{
	struct tonic_bpf_att *old;

	att->ops = ops;
	att->name_gen = s->name_gen;
	att->prog_gen = ++s->prog_gen;
	s->proto.scheme = ops->scheme;
	s->proto.merge_prio = ops->merge_prio;
	s->proto.periodic_ns = ops->periodic_ns;
	s->signals = ops->signals;
	old = rcu_replace_pointer(s->att, att,
				  lockdep_is_held(&tonic_proto_mutex));
	if (old)
		kfree_rcu(old, rcu);
}

static int tonic_bpf_reg(void *kdata, struct bpf_link *link)
{
	struct tonic_ops *ops = kdata;
	struct tonic_bpf_slot *s = NULL;
	struct tonic_bpf_att *att;
	unsigned int i;
	int err = 0;

	att = kzalloc(sizeof(*att), GFP_KERNEL);
	if (!att)
		return -ENOMEM;
	mutex_lock(&tonic_proto_mutex);
	if (tonic_proto_attached(ops->name)) {
		err = -EEXIST;
		goto out;
	}
	for (i = 0; i < TONIC_BPF_SLOTS; i++) {
		if (!rcu_access_pointer(tonic_bpf_slots[i].att)) {
			s = &tonic_bpf_slots[i];
			break;
		}
	}
	if (!s) {
		err = -ENOSPC;
		goto out;
	}
	s->name_gen++;
	strscpy(s->name, ops->name, sizeof(s->name));
	tonic_slot_publish(s, ops, att);
	att = NULL;
	pr_info("tonic: protocol %s attached\n", ops->name);
	tonic_nl_event_prog(ops->name, true);
out:
	mutex_unlock(&tonic_proto_mutex);
	kfree(att);
	return err;
}

static void tonic_bpf_unreg(void *kdata, struct bpf_link *link)
{
	struct tonic_bpf_slot *s;
	struct tonic_bpf_att *old;

	mutex_lock(&tonic_proto_mutex);
	s = tonic_slot_of(kdata);
	if (s) {
		old = rcu_replace_pointer(s->att, NULL,
					  lockdep_is_held(&tonic_proto_mutex));
		pr_info("tonic: protocol %s detached\n", s->name);
		tonic_nl_event_prog(s->name, false);
		s->name[0] = '\0';
		kfree_rcu(old, rcu);
	}
	mutex_unlock(&tonic_proto_mutex);
}

/*
 * bpf_link update: the replacement keeps the name and the credit scheme
 * (a live flow's scheme is fixed when it starts); live flows restart with
 * its init on their next event.
 */
static int tonic_bpf_update(void *kdata, void *old_kdata, struct bpf_link *link)
{
	struct tonic_ops *ops = kdata, *old = old_kdata;
	struct tonic_bpf_slot *s;
	struct tonic_bpf_att *att;
	int err = 0;

	if (strcmp(ops->name, old->name) || ops->scheme != old->scheme)
		return -EINVAL;
	att = kzalloc(sizeof(*att), GFP_KERNEL);
	if (!att)
		return -ENOMEM;
	mutex_lock(&tonic_proto_mutex);
	s = tonic_slot_of(old);
	if (!s) {
		err = -ENOENT;
		goto out;
	}
	tonic_slot_publish(s, ops, att);
	att = NULL;
	pr_info("tonic: protocol %s replaced\n", ops->name);
out:
	mutex_unlock(&tonic_proto_mutex);
	kfree(att);
	return err;
}

static int tonic_stub_init(struct tonic_flow_ctx *fl, struct tonic_user *user)
{
	return 0;
}

static void tonic_stub_hook(struct tonic_flow_ctx *fl, struct tonic_user *user)
{
}

static struct tonic_ops tonic_bpf_cfi_stubs = {
	.init = tonic_stub_init,
	.incoming = tonic_stub_hook,
	.periodic = tonic_stub_hook,
	.release = tonic_stub_hook,
};

static struct bpf_struct_ops tonic_bpf_struct_ops = {
	.verifier_ops = &tonic_bpf_verifier_ops,
	.init = tonic_bpf_init,
	.init_member = tonic_bpf_init_member,
	.validate = tonic_bpf_validate,
	.reg = tonic_bpf_reg,
	.unreg = tonic_bpf_unreg,
	.update = tonic_bpf_update,
	.cfi_stubs = &tonic_bpf_cfi_stubs,
	.owner = THIS_MODULE,
	.name = "tonic_ops",
};

/**
 * tonic_bpf_fallbacks() - flows of a protocol moved to the built-in NewReno
 * @ops: ops from tonic_proto_lookup()
 *
 * Return: the count since the module was loaded (0 for the built-in).
 */
u64 tonic_bpf_fallbacks(const struct tonic_proto_ops *ops)
{
	const struct tonic_bpf_slot *s;

	if (ops < &tonic_bpf_slots[0].proto ||
	    ops > &tonic_bpf_slots[TONIC_BPF_SLOTS - 1].proto)
		return 0;
	s = container_of(ops, struct tonic_bpf_slot, proto);
	return atomic64_read(&s->fallbacks);
}

int tonic_bpf_init_module(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < TONIC_BPF_SLOTS; i++) {
		struct tonic_bpf_slot *s = &tonic_bpf_slots[i];

		s->proto = tonic_slot_protos[i];
		s->proto.name = s->name;
		s->proto.scheme = TONIC_CREDIT_WINDOW;
		s->proto.user_size = sizeof(struct tonic_bpf_uarea);
	}
	if (tonic_newreno_ops.user_size > TONIC_USER_BYTES) {
		pr_err("tonic: built-in NewReno state does not fit the fallback area\n");
		return -EINVAL;
	}
	/* Neither can be undone: the type and the kfuncs die with the module BTF. */
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&tonic_kfunc_set);
	if (err)
		return err;
	return register_bpf_struct_ops(&tonic_bpf_struct_ops, tonic_ops);
}
