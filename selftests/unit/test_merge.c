// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the §3.4 merge rules as mapped onto the API (engine.c):
 * an ack and a timeout in one step drop the timeout; generation and
 * transmission in one step cancel (cut-through); user-state priority
 * between incoming and periodic in one step, both ways.
 */
#include "unit.h"

#define ID	9
#define RTO	1000000ULL

static struct tonic_seg_desc out[64];

static struct tonic_engine *mk(struct tonic_proto_ops *ops)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, 8, ops);

	script_reset();
	p.rto_init_ns = RTO;
	p.rto_min_ns = 1000;
	tonic_engine_flow_add(e, &p, 0);
	tonic_engine_announce(e, ID, 8, 0);
	return e;
}

static void ack_and_timeout_same_step(void)
{
	struct tonic_engine *e = mk(&script_ops);

	CHECK_EQ(tonic_engine_tx(e, 0, out, 64), 8);
	/* a duplicate ack at the very ns the timer expires */
	ctrl1(e, ack_desc(ID, 0), RTO);
	tonic_engine_timers(e, RTO);
	CHECK_EQ(fstats(e, ID).timeouts, 0);
	CHECK_EQ(estats(e).timeouts_merged, 1);
	CHECK_EQ(script.n_per, 0);
	/* still expired at the next step: now it fires */
	tonic_engine_timers(e, RTO + 1);
	CHECK_EQ(fstats(e, ID).timeouts, 1);
	CHECK_EQ(script.n_per, 1);
	CHECK_EQ(script.last_per.timeout, 1);
	tonic_engine_destroy(e);
}

static void timeout_alone_fires(void)
{
	struct tonic_engine *e = mk(&script_ops);

	CHECK_EQ(tonic_engine_tx(e, 0, out, 64), 8);
	ctrl1(e, ack_desc(ID, 0), RTO - 1);	/* a step earlier */
	tonic_engine_timers(e, RTO);
	CHECK_EQ(fstats(e, ID).timeouts, 1);
	CHECK_EQ(estats(e).timeouts_merged, 0);
	/* without a timer output the engine re-arms it (no wedging) */
	CHECK_EQ(tonic_engine_next_timer(e), 2 * RTO);
	tonic_engine_destroy(e);
}

static void generation_transmission_cancel(void)
{
	struct tonic_engine *e = mk(&script_ops);
	struct tonic_engine_stats st;

	CHECK_EQ(tonic_engine_tx(e, 0, out, 64), 8);
	st = estats(e);
	/* every address went straight out: the ring was never used */
	CHECK_EQ(st.cut_through, 8);
	CHECK_EQ(fstats(e, ID).outstanding, 0);
	tonic_engine_destroy(e);
}

/* incoming writes 111, periodic 222, same step; who wins? */
static u32 user_after_same_step(u8 prio)
{
	struct tonic_proto_ops ops = script_ops;
	struct tonic_engine *e;
	u32 v;

	ops.merge_prio = prio;
	ops.periodic_ns = 5000;
	e = mk(&ops);
	tonic_engine_tx(e, 0, out, 64);
	script.user_write = 111;
	script.per_user_write = 222;
	ctrl1(e, ack_desc(ID, 1), 5000);
	tonic_engine_timers(e, 5000);	/* periodic due now */
	CHECK_EQ(script.n_per, 1);
	CHECK_EQ(script.last_per.timeout, 0);
	script.user_write = 0;
	script.per_user_write = 0;
	ctrl1(e, ack_desc(ID, 1), 6000);	/* observe user[0] */
	v = script.seen_user;
	tonic_engine_destroy(e);
	return v;
}

static void user_priority(void)
{
	CHECK_EQ(user_after_same_step(TONIC_MERGE_PERIODIC_WINS), 222);
	CHECK_EQ(user_after_same_step(TONIC_MERGE_INCOMING_WINS), 111);
}

/* In different steps both writes land in order. */
static void user_different_steps(void)
{
	struct tonic_proto_ops ops = script_ops;
	struct tonic_engine *e;

	ops.merge_prio = TONIC_MERGE_INCOMING_WINS;
	ops.periodic_ns = 5000;
	e = mk(&ops);
	tonic_engine_tx(e, 0, out, 64);
	script.user_write = 111;
	script.per_user_write = 222;
	ctrl1(e, ack_desc(ID, 1), 4999);
	tonic_engine_timers(e, 5000);
	script.user_write = 0;
	ctrl1(e, ack_desc(ID, 1), 6000);
	CHECK_EQ(script.seen_user, 222);
	tonic_engine_destroy(e);
}

int main(void)
{
	tap_plan(5);
	TAP_RUN(ack_and_timeout_same_step);
	TAP_RUN(timeout_alone_fires);
	TAP_RUN(generation_transmission_cancel);
	TAP_RUN(user_priority);
	TAP_RUN(user_different_steps);
	return tap_exit();
}
