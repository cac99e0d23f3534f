/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the engine's userspace unit tests: TAP 13 output, checks
 * that report file:line, a scriptable test protocol, and a receiver (the
 * model of tonic.ko, receiver.h) that turns emitted segment addresses into
 * acks.
 *
 * Each test binary is one translation unit: include this once.
 */
#ifndef _TONIC_UNIT_H
#define _TONIC_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "receiver.h"
#include "../tap.h"

#define UNUSED __attribute__((unused))

/* ---- deterministic PRNG (xorshift64*) ---- */

static UNUSED u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static UNUSED u64 rnd64(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

static UNUSED u32 rnd(u32 n)
{
	return (u32)(rnd64() % n);
}

/* ---- scripted protocol: the test decides every output ---- */

struct script {
	struct tonic_hook_out in_out;	/* returned by incoming */
	struct tonic_hook_out per_out;	/* returned by periodic */
	struct tonic_flow_ctx last_in;	/* what incoming saw */
	struct tonic_flow_ctx last_per;	/* what periodic saw */
	int n_in, n_per, n_init, n_release;
	u32 user_write;			/* written to user[0] by incoming */
	u32 per_user_write;		/* and by periodic */
	u32 seen_user;			/* user[0] as the last hook saw it */
};

static UNUSED struct script script;

static UNUSED int script_init(struct tonic_flow_ctx *c, void *user)
{
	(void)c;
	(void)user;
	script.n_init++;
	return 0;
}

/* A hook: remember what it saw, answer @out, maybe write user[0]. */
static UNUSED void script_hook(struct tonic_flow_ctx *c, void *user,
			       struct tonic_flow_ctx *seen,
			       const struct tonic_hook_out *out, u32 write)
{
	*seen = *c;
	script.seen_user = *(u32 *)user;
	c->out = *out;
	if (write)
		*(u32 *)user = write;
}

static UNUSED void script_incoming(struct tonic_flow_ctx *c, void *user)
{
	script.n_in++;
	script_hook(c, user, &script.last_in, &script.in_out,
		    script.user_write);
}

static UNUSED void script_periodic(struct tonic_flow_ctx *c, void *user)
{
	script.n_per++;
	script_hook(c, user, &script.last_per, &script.per_out,
		    script.per_user_write);
}

static UNUSED void script_release(struct tonic_flow_ctx *c, void *user)
{
	(void)c;
	(void)user;
	script.n_release++;
}

static UNUSED struct tonic_proto_ops script_ops = {
	.name = "script",
	.scheme = TONIC_CREDIT_WINDOW,
	.merge_prio = TONIC_MERGE_PERIODIC_WINS,
	.user_size = 256,
	.init = script_init,
	.incoming = script_incoming,
	.periodic = script_periodic,
	.release = script_release,
};

static UNUSED void script_reset(void)
{
	memset(&script, 0, sizeof(script));
}

/* ---- engine helpers ---- */

static UNUSED struct tonic_flow_params flow_params(u32 id, u32 k, u32 wnd,
					    const struct tonic_proto_ops *ops)
{
	struct tonic_flow_params p;

	memset(&p, 0, sizeof(p));
	p.flow_id = id;
	p.seg_size = 1000;
	p.wnd_max = (u16)k;
	p.init_wnd = wnd;
	p.ops = ops;
	return p;
}

static UNUSED struct tonic_ctrl_desc ack_desc(u32 id, u32 cumack)
{
	struct tonic_ctrl_desc d;

	memset(&d, 0, sizeof(d));
	d.flow_id = id;
	d.type = TONIC_CTRL_ACK;
	d.flags = TONIC_CF_CUMACK;
	d.cumack = cumack;
	return d;
}

static UNUSED struct tonic_ctrl_desc sack_desc(u32 id, u32 cumack, u32 sack)
{
	struct tonic_ctrl_desc d = ack_desc(id, cumack);

	d.flags |= TONIC_CF_SACK;
	d.sack = sack;
	return d;
}

static UNUSED void ctrl1(struct tonic_engine *e, struct tonic_ctrl_desc d, u64 now)
{
	tonic_engine_ctrl(e, &d, 1, now);
}

static UNUSED struct tonic_flow_stats fstats(struct tonic_engine *e, u32 id)
{
	struct tonic_flow_stats st;

	memset(&st, 0, sizeof(st));
	tonic_engine_flow_stats(e, id, &st);
	return st;
}

static UNUSED struct tonic_engine_stats estats(struct tonic_engine *e)
{
	struct tonic_engine_stats st;

	tonic_engine_stats(e, &st);
	return st;
}

/* ---- receiver: one flow, plain ACKs ---- */

#define RCV_MAX	4096	/* segments a test sends, at most */

struct rcv {
	u32 id;
	struct tonic_rcv m;	/* m.rcv_nxt: next expected */
	struct tonic_rcv_cfg cfg;
};

static UNUSED void rcv_init(struct rcv *r, u32 id)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	tonic_rcv_init(&r->m, 0);
	r->cfg.signals = TONIC_SIG_ACK;
}

/* Deliver @seg; return the ack (cumulative + this segment as SACK). */
static UNUSED struct tonic_ctrl_desc rcv_data(struct rcv *r, u32 seg)
{
	struct tonic_rcv_seg in = { .seg = seg, .len = 1000 };
	struct tonic_rcv_ack ack;
	u32 newly;

	tonic_rcv_data(&r->m, &r->cfg, &in, 0, &ack, &newly);
	return sack_desc(r->id, r->m.rcv_nxt, seg);
}

#endif /* _TONIC_UNIT_H */
