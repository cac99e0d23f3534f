// SPDX-License-Identifier: GPL-2.0
/*
 * bench_engine: microbenchmark of the transport-logic engine (userspace
 * build of kmod/engine, -O2, run on one core by `make bench-engine`).
 *
 * For each flow count and loss rate, every flow runs NewReno (K = 128,
 * C = 1000 B) with an endless backlog.  Each round takes a batch of
 * segment addresses from tonic_engine_tx(), passes them through a lossy
 * receiver model (a 128-bit reorder bitmap per flow, loss drawn per
 * transmission) and feeds the resulting cumulative + selective acks back
 * through tonic_engine_ctrl() in the same step.
 *
 * ns_per_segment is the time spent in tonic_engine_tx() per address (the
 * segment decision: generation, credit, scheduling, emission).  The
 * comment line after it also gives the ack-path cost per segment
 * (lookup, stage 1, NewReno, clamping), which Tonic runs in a parallel
 * pipeline.  The receiver model is not timed.  Times are the thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID, read once per batch of 256), so other
 * load on the machine does not inflate them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

#define BATCH		256
#define SEG_BYTES	1000

struct rcvr {
	u32 cum;
	u64 bits[2];	/* received segments cum .. cum + 127 */
};

static u64 rng = 0x2545f4914f6cdd1dULL;

static inline u64 xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static u64 now_ns(void)
{
	struct timespec ts;

	/* CPU time of this thread: robust on a shared, loaded machine */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* Receive segment @s; return the new cumulative ack. */
static u32 rcv(struct rcvr *r, u32 s)
{
	u32 off = s - r->cum;

	if ((s32)off < 0 || off >= 128)
		return r->cum;
	r->bits[off / 64] |= 1ULL << (off % 64);
	while (r->bits[0] & 1) {
		u32 n = ~r->bits[0] ? (u32)__builtin_ctzll(~r->bits[0]) : 64;

		if (n == 64) {
			r->bits[0] = r->bits[1];
			r->bits[1] = 0;
		} else {
			r->bits[0] = (r->bits[0] >> n) | (r->bits[1] << (64 - n));
			r->bits[1] >>= n;
		}
		r->cum += n;
	}
	return r->cum;
}

static u32 flow_id(u32 i)
{
	return i * 2654435761U;		/* spread over the u32 space */
}

static void run(u32 nflows, u32 loss_ppm, u64 target_segs)
{
	struct tonic_engine_cfg cfg = { .flows_hint = nflows };
	static struct tonic_seg_desc out[BATCH];
	static struct tonic_ctrl_desc acks[BATCH];
	struct tonic_engine_stats st;
	struct tonic_engine *e;
	struct rcvr *r;
	u64 t = 1, segs = 0, tx_ns = 0, ack_ns = 0, t0;
	u32 i;

	e = tonic_engine_create(&cfg);
	r = calloc(nflows, sizeof(*r));
	if (!e || !r) {
		fprintf(stderr, "bench_engine: out of memory\n");
		exit(1);
	}
	for (i = 0; i < nflows; i++) {
		struct tonic_flow_params p = {
			.flow_id = flow_id(i),
			.seg_size = SEG_BYTES,
			.wnd_max = 128,
			.rto_init_ns = 200000000ULL,
		};

		if (tonic_engine_flow_add(e, &p, 0) ||
		    tonic_engine_announce(e, p.flow_id, 1U << 30, 0)) {
			fprintf(stderr, "bench_engine: flow setup failed\n");
			exit(1);
		}
	}
	while (segs < target_segs) {
		unsigned int n, na = 0, j;

		t0 = now_ns();
		n = tonic_engine_tx(e, t, out, BATCH);
		tx_ns += now_ns() - t0;
		if (!n) {
			t = tonic_engine_next_timer(e);
			if (t == U64_MAX)
				break;
			tonic_engine_timers(e, t);
			continue;
		}
		segs += n;
		for (j = 0; j < n; j++) {
			u32 idx = (out[j].flow_id * 244002641U);	/* inverse */
			struct tonic_ctrl_desc *a = &acks[na];

			if (loss_ppm && xrand() % 1000000 < loss_ppm)
				continue;
			a->flow_id = out[j].flow_id;
			a->type = TONIC_CTRL_ACK;
			a->flags = TONIC_CF_CUMACK | TONIC_CF_SACK;
			a->cumack = rcv(&r[idx], out[j].seg);
			a->sack = out[j].seg;
			na++;
		}
		t += 1000;	/* 1 us of virtual time per batch */
		t0 = now_ns();
		tonic_engine_ctrl(e, acks, na, t);
		tonic_engine_timers(e, t);
		ack_ns += now_ns() - t0;
	}
	tonic_engine_stats(e, &st);
	printf("engine flows=%u loss=%u.%02u ns_per_segment=%.2f mseg_per_s=%.1f bytes_per_flow=%llu\n",
	       nflows, loss_ppm / 10000, loss_ppm / 100 % 100,
	       (double)tx_ns / segs, segs * 1000.0 / tx_ns,
	       (unsigned long long)(st.bytes_state / nflows));
	printf("# flows=%u segs=%llu rtx=%llu timeouts=%llu ack_ns_per_segment=%.2f total_ns_per_segment=%.2f\n",
	       nflows, (unsigned long long)segs,
	       (unsigned long long)st.segs_rtx,
	       (unsigned long long)st.timeouts, (double)ack_ns / segs,
	       (double)(tx_ns + ack_ns) / segs);
	fflush(stdout);
	tonic_engine_destroy(e);
	free(r);
}

int main(int argc, char **argv)
{
	static const u32 flows[] = { 1, 64, 1024, 65536, 1048576 };
	u64 scale = argc > 1 ? strtoull(argv[1], NULL, 0) : 2;
	u32 only = argc > 2 ? (u32)strtoul(argv[2], NULL, 0) : 0;
	unsigned int i;

	/* usage: bench_engine [scale [flows]] */
	for (i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		if (only && flows[i] != only)
			continue;
		/* at least a few segments per flow, at least 1M per run */
		u64 target = scale * (flows[i] > 262144 ? flows[i] : 262144) * 4;

		run(flows[i], 0, target);
		run(flows[i], 10000, target);
	}
	return 0;
}
