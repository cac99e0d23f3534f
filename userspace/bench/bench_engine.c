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
 * pipeline.  The receiver model is not timed.
 *
 * Timing: each timed interval is one tonic_engine_tx() call (up to BATCH
 * addresses) or one tonic_engine_ctrl() + tonic_engine_timers() call,
 * read with CLOCK_MONOTONIC (vDSO, ~50 ns a read in the development VM).
 * The cost of the clock read inside each interval is measured at start-up
 * (mean of many empty intervals) and subtracted.  The machine is shared,
 * so an interval in which the thread was preempted (longer than 50 us +
 * 500 ns per item: a time slice is milliseconds, a decision tens of ns) is
 * dropped together with its segments; the comment line says how many.
 * (Thread CPU time would ignore preemption but is a system call costing
 * ~1.4 us of CPU per read here, more than a whole small batch.)
 *
 * The comment line also prints a digest of every address emitted (flow,
 * segment, length, retransmission flag and count): two engine builds that
 * decide the same way print the same digest.
 *
 * Memory: in tonic.ko the flows are kmalloc()ed, i.e. they live in the
 * kernel's direct map, which uses 2 MB / 1 GB pages, so a million flows
 * cost few TLB misses.  Userspace malloc() memory is in 4 KB pages unless
 * glibc is asked for transparent huge pages; the benchmark asks for them
 * (it re-executes itself with GLIBC_TUNABLES=glibc.malloc.hugetlb=1) so
 * that the large runs measure the engine, not the page size.  Set
 * TONIC_BENCH_4K=1 to measure with 4 KB pages.
 *
 * usage: bench_engine [scale [flows [loss_ppm]]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

#define BATCH		1024
#define CAL_ROUNDS	20000
#define SLICE_NS(n)	(50000ULL + 500ULL * (n))	/* longer: preempted */
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

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static inline u64 mix(u64 x)
{
	x *= 0x9e3779b97f4a7c15ULL;
	return x ^ (x >> 29);
}

static double clock_ns;	/* what one empty timed interval costs */

static void calibrate(void)
{
	u64 sum = 0, t0, dt;
	int i, n = 0;

	for (i = 0; i < CAL_ROUNDS; i++) {
		t0 = now_ns();
		dt = now_ns() - t0;
		if (dt < 1000) {	/* not preempted */
			sum += dt;
			n++;
		}
	}
	clock_ns = n ? (double)sum / n : 0;
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
	u64 t = 1, segs = 0, tx_ns = 0, ack_ns = 0, t0, dt, digest = 0;
	u64 tx_calls = 0, ack_calls = 0, tx_segs = 0, ack_segs = 0;
	u64 dropped = 0;
	double tx, ack;
	u32 i;

	rng = 0x2545f4914f6cdd1dULL;	/* runs do not depend on each other */

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
		dt = now_ns() - t0;
		if (dt <= SLICE_NS(n)) {
			tx_ns += dt;
			tx_calls++;
			tx_segs += n;
		} else {
			dropped++;
		}
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

			digest = mix(digest ^ ((u64)out[j].flow_id << 32 |
					       out[j].seg));
			digest = mix(digest ^ (out[j].len | out[j].rtx << 24 |
					       (u32)out[j].rtx_cnt << 28));
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
		dt = now_ns() - t0;
		if (dt <= SLICE_NS(n)) {
			ack_ns += dt;
			ack_calls++;
			ack_segs += n;	/* per segment sent, as tx */
		} else {
			dropped++;
		}
	}
	tonic_engine_stats(e, &st);
	/* take out the clock reads themselves (one per timed interval) */
	tx = ((double)tx_ns - clock_ns * tx_calls) / tx_segs;
	ack = ((double)ack_ns - clock_ns * ack_calls) / ack_segs;
	printf("engine flows=%u loss=%u.%02u ns_per_segment=%.2f mseg_per_s=%.1f bytes_per_flow=%llu\n",
	       nflows, loss_ppm / 10000, loss_ppm / 100 % 100,
	       tx, 1000.0 / tx, (unsigned long long)(st.bytes_state / nflows));
	printf("# flows=%u segs=%llu rtx=%llu timeouts=%llu ack_ns_per_segment=%.2f total_ns_per_segment=%.2f clock_ns=%.0f dropped=%llu/%llu digest=%016llx\n",
	       nflows, (unsigned long long)segs,
	       (unsigned long long)st.segs_rtx,
	       (unsigned long long)st.timeouts, ack, tx + ack, clock_ns,
	       (unsigned long long)dropped,
	       (unsigned long long)(tx_calls + ack_calls + dropped),
	       (unsigned long long)digest);
	fflush(stdout);
	tonic_engine_destroy(e);
	free(r);
}

int main(int argc, char **argv)
{
	static const u32 flows[] = { 1, 64, 1024, 65536, 1048576 };
	u64 scale = argc > 1 ? strtoull(argv[1], NULL, 0) : 2;
	u32 only = argc > 2 ? (u32)strtoul(argv[2], NULL, 0) : 0;
	long loss = argc > 3 ? strtol(argv[3], NULL, 0) : -1;
	unsigned int i;

	if (!getenv("GLIBC_TUNABLES") && !getenv("TONIC_BENCH_4K")) {
		/* see the header: huge pages, as the kernel's direct map */
		setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
		execv("/proc/self/exe", argv);
		/* no /proc: run with what we have */
	}
	printf("# pages: %s\n", getenv("TONIC_BENCH_4K") ? "4k" :
	       getenv("GLIBC_TUNABLES") ? getenv("GLIBC_TUNABLES") : "4k");
	calibrate();
	for (i = 0; i < sizeof(flows) / sizeof(flows[0]); i++) {
		if (only && flows[i] != only)
			continue;
		/* at least a few segments per flow, at least 1M per run */
		u64 target = scale * (flows[i] > 262144 ? flows[i] : 262144) * 4;

		if (loss <= 0)
			run(flows[i], 0, target);
		if (loss != 0)
			run(flows[i], loss > 0 ? (u32)loss : 10000, target);
	}
	return 0;
}
