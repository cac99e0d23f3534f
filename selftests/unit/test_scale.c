// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of scale and lifetime (flowtable.c, engine.c): Tonic's 2048
 * flows and 1,000,000 flows with ids spread over the u32 space, add/remove
 * churn against a model (ASan's leak checker sees every flow freed,
 * including flows removed while queued), and allocation failures.
 */
#include "unit.h"

static struct tonic_seg_desc out[4096];
static struct tonic_notify_desc nd[4096];

static u32 spread_id(u32 i)
{
	return i * 2654435761U;		/* a bijection on u32 */
}

static void run_flows(u32 n)
{
	struct tonic_engine_cfg cfg = { .flows_hint = n };
	struct tonic_engine *e = tonic_engine_create(&cfg);
	struct tonic_ctrl_desc acks[4096];
	struct tonic_engine_stats st;
	u64 sent = 0, notes = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		struct tonic_flow_params p = flow_params(spread_id(i), 128, 0,
							 NULL);

		if (tonic_engine_flow_add(e, &p, 0) ||
		    tonic_engine_announce(e, p.flow_id, 2, 0)) {
			CHECK(0);
			break;
		}
	}
	st = estats(e);
	CHECK_EQ(st.flows, n);
	tap_diag("%u flows: %llu bytes of engine state, %llu per flow", n,
		 (unsigned long long)st.bytes_state,
		 (unsigned long long)(st.bytes_state / n));
	for (;;) {
		unsigned int k = tonic_engine_tx(e, 1, out, 4096), j;

		if (!k)
			break;
		for (j = 0; j < k; j++) {
			CHECK(out[j].seg < 2);
			acks[j] = ack_desc(out[j].flow_id, out[j].seg + 1);
		}
		sent += k;
		CHECK_EQ(tonic_engine_ctrl(e, acks, k, 2), k);
	}
	CHECK_EQ(sent, 2ULL * n);
	for (;;) {
		unsigned int k = tonic_engine_poll_notify(e, nd, 4096), j;

		if (!k)
			break;
		for (j = 0; j < k; j++)
			CHECK_EQ(nd[j].head, 2);
		notes += k;
	}
	CHECK_EQ(notes, n);		/* coalesced: one per flow */
	CHECK_EQ(fstats(e, spread_id(n - 1)).wnd_start, 2);
	for (i = 0; i < n; i += 2)
		CHECK_EQ(tonic_engine_flow_remove(e, spread_id(i)), 0);
	CHECK_EQ(estats(e).flows, n / 2);
	CHECK_EQ(estats(e).segs_sent, 2ULL * n);
	tonic_engine_destroy(e);	/* frees the other half */
}

static void flows_2048(void)
{
	run_flows(2048);
}

static void flows_1m(void)
{
	run_flows(1000000);
}

/* Random add/remove/announce/tx/ack; flows die in every queue state. */
static void churn(void)
{
	static u8 live[4096];
	struct tonic_engine *e = tonic_engine_create(NULL);
	u32 nlive = 0;
	int i;

	memset(live, 0, sizeof(live));
	for (i = 0; i < 200000; i++) {
		u32 id = rnd(4096), op = rnd(8);
		struct tonic_flow_params p = flow_params(id, 64, 4, NULL);

		if (op == 0) {
			int err = tonic_engine_flow_add(e, &p, 0);

			CHECK_EQ(err, live[id] ? -EEXIST : 0);
			nlive += !live[id];
			live[id] = 1;
		} else if (op == 1) {
			CHECK_EQ(tonic_engine_flow_remove(e, id),
				 live[id] ? 0 : -ENOENT);
			nlive -= live[id];
			live[id] = 0;
		} else if (op == 2 && live[id]) {
			CHECK_EQ(tonic_engine_announce(e, id,
				fstats(e, id).tail + 1 + rnd(8), 0), 0);
		} else if (op == 3) {
			unsigned int k = tonic_engine_tx(e, i, out, rnd(64)), j;

			for (j = 0; j < k; j++)
				if (rnd(2))
					ctrl1(e, ack_desc(out[j].flow_id,
							  out[j].seg + 1), i);
		} else if (op == 4) {
			tonic_engine_poll_notify(e, nd, rnd(64));
		} else if (op == 5) {
			tonic_engine_timers(e, (u64)i * 1000000);
		}
	}
	CHECK_EQ(estats(e).flows, nlive);
	tonic_engine_destroy(e);
}

static void alloc_failures(void)
{
	struct tonic_engine *e;
	int i, fails = 0;

	/* engine creation fails at every allocation in turn, cleanly */
	for (i = 1; i < 10; i++) {
		tenv_alloc_fail_after = i;
		e = tonic_engine_create(NULL);
		fails += !e;
		tonic_engine_destroy(e);
	}
	tenv_alloc_fail_after = 0;
	CHECK_EQ(fails, 7);	/* engine, hash, 3 FIFOs, 2 heaps */
	e = tonic_engine_create(NULL);
	/* flow allocation and table growth failures */
	for (i = 0; i < 3000; i++) {
		struct tonic_flow_params p = flow_params(i, 128, 0, NULL);
		int err;

		/*
		 * Every 5th add fails at its first allocation (a heap/FIFO
		 * reservation or the flow itself, both before anything is
		 * inserted); the others allocate freely.
		 */
		tenv_alloc_fail_after = i % 5 == 0 ? 1 : 0;
		err = tonic_engine_flow_add(e, &p, 0);
		CHECK_EQ(err, i % 5 ? 0 : -ENOMEM);
	}
	tenv_alloc_fail_after = 0;
	CHECK_EQ(estats(e).flows, 3000 - 3000 / 5);
	tonic_engine_destroy(e);
}

int main(void)
{
	tap_plan(4);
	TAP_RUN(flows_2048);
	TAP_RUN(flows_1m);
	TAP_RUN(churn);
	TAP_RUN(alloc_failures);
	return tap_exit();
}
