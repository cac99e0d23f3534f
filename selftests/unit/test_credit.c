// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the credit engine (credit.c): rate accuracy over a
 * simulated second for every rate from 1 Mb/s to 400 Gb/s, the
 * Appendix B quantisation case, rate changes, and grant-token accounting
 * including the credit for timeout retransmissions.
 */
#include "unit.h"

#define ID		3
#define SEC_NS		1000000000ULL

static struct tonic_seg_desc out[1024];

/* Backlogged rate flow acked at once; returns bytes sent in [0, 1 s). */
static u64 first_t, last_t, nsegs;

static u64 rate_run(u64 bps, u32 seg, u64 *max_gap, u64 *min_gap)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 256, 256, &script_ops);
	u64 t = 0, bytes = 0, last = U64_MAX;

	script_reset();
	p.scheme = TONIC_CREDIT_RATE;
	p.seg_size = seg;
	p.init_rate_bps = bps;
	p.burst_bytes = seg;
	p.rto_init_ns = 10 * SEC_NS;
	p.rto_max_ns = 10 * SEC_NS;
	tonic_engine_flow_add(e, &p, 0);
	tonic_engine_announce(e, ID, 1U << 30, 0);
	*max_gap = 0;
	*min_gap = U64_MAX;
	nsegs = 0;
	while (t < SEC_NS) {
		unsigned int n = tonic_engine_tx(e, t, out, 1024), i;

		for (i = 0; i < n; i++) {
			if (!nsegs++)
				first_t = t;
			last_t = t;
			bytes += out[i].len;
			if (last != U64_MAX) {
				*max_gap = max(*max_gap, t - last);
				*min_gap = min(*min_gap, t - last);
			}
			last = t;
		}
		if (n)
			ctrl1(e, ack_desc(ID, out[n - 1].seg + 1), t);
		t = tonic_engine_next_timer(e);
		if (t == U64_MAX)
			break;
		tonic_engine_timers(e, t);
	}
	tonic_engine_destroy(e);
	return bytes;
}

static void rate_accuracy_range(void)
{
	static const u64 rates[] = {
		1000000ULL, 1500000ULL, 3333333ULL, 10000000ULL,
		123456789ULL, 1000000000ULL, 2500000000ULL, 9999999999ULL,
		20000000000ULL, 40000000000ULL, 100000000000ULL,
		333000000000ULL, 400000000000ULL,
	};
	unsigned int i;
	u64 worst_ppm = 0;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		u64 want = rates[i] / 8, gmax, gmin;
		/* at most ~40k segments per simulated second under ASan */
		u32 seg = (u32)min(max(1500ULL, want / 40000),
				   (u64)TONIC_MAX_SEGMENT_BYTES);
		u64 got = rate_run(rates[i], seg, &gmax, &gmin);
		u64 err = got > want ? got - want : want - got;
		/* ideal time from the first to the last emission */
		u64 ideal = (u64)((double)(nsegs - 1) * seg * 8e9 /
				  (double)rates[i]);
		u64 span = last_t - first_t;
		u64 terr = span > ideal ? span - ideal : ideal - span;
		u64 ppm = terr * 1000000 / ideal;

		worst_ppm = max(worst_ppm, ppm);
		/* the rate within 1 %, the bytes within one segment of ideal */
		CHECK(terr * 100 <= ideal);
		CHECK(err <= seg);
		if (err > seg)
			tap_diag("rate %llu: got %llu B, want %llu B",
				 (unsigned long long)rates[i],
				 (unsigned long long)got,
				 (unsigned long long)want);
	}
	tap_diag("worst rate error %llu ppm", (unsigned long long)worst_ppm);
	CHECK(worst_ppm < 10);
}

/* Appendix B: 20 Gb/s, 1500 B segments: one every 600 ns, exactly. */
static void rate_no_quantisation(void)
{
	u64 gmax, gmin, got;

	got = rate_run(20000000000ULL, 1500, &gmax, &gmin);
	CHECK(gmax <= 601 && gmin >= 599);
	/* the first at 600 ns (empty bucket), the last before 1 s */
	CHECK_EQ(got, 1666666ULL * 1500);
	/* 1 Mb/s, 125 B: one every 1 ms */
	got = rate_run(1000000ULL, 125, &gmax, &gmin);
	CHECK(gmax <= 1000001 && gmin >= 999999);
	CHECK_EQ(got, 999 * 125);
}

/* A hook changes the rate: credit so far is kept, the new rate applies. */
static void rate_change(void)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 256, 256, &script_ops);
	u64 t = 0, bytes = 0;

	script_reset();
	p.scheme = TONIC_CREDIT_RATE;
	p.seg_size = 1000;
	p.init_rate_bps = 8000000;	/* 1 MB/s: 1 segment per ms */
	p.rate_min_bps = 1000000;
	p.rate_max_bps = 80000000;
	p.burst_bytes = 1000;
	tonic_engine_flow_add(e, &p, 0);
	tonic_engine_announce(e, ID, 1U << 30, 0);
	while (t < 100000000ULL) {	/* 100 ms */
		unsigned int n = tonic_engine_tx(e, t, out, 1024);

		bytes += (u64)n * 1000;
		if (n) {
			if (t >= 50000000ULL) {
				script.in_out.flags = TONIC_OUT_RATE;
				script.in_out.rate_bps = 80000000;
			}
			ctrl1(e, ack_desc(ID, out[n - 1].seg + 1), t);
		}
		t = tonic_engine_next_timer(e);
		tonic_engine_timers(e, t);
	}
	/* 50 segments in the first 50 ms, then 10 per ms */
	CHECK(bytes >= 549000 && bytes <= 551000);
	CHECK_EQ(fstats(e, ID).rate_bps, 80000000);
	CHECK_EQ(fstats(e, ID).violations, 0);
	tonic_engine_destroy(e);
}

static void grant_accounting(void)
{
	struct tonic_engine *e = tonic_engine_create(NULL);
	struct tonic_flow_params p = flow_params(ID, 128, 128, &script_ops);
	struct tonic_ctrl_desc g;
	u64 t;

	script_reset();
	p.scheme = TONIC_CREDIT_GRANT;
	p.init_tokens = 1500;
	p.ring_size = 8;
	p.rto_init_ns = 1000000;
	p.rto_min_ns = 1000000;
	tonic_engine_flow_add(e, &p, 0);
	tonic_engine_announce(e, ID, 20, 0);
	CHECK_EQ(tonic_engine_tx(e, 1, out, 64), 1);
	CHECK_EQ(fstats(e, ID).credit_bytes, 500);
	memset(&g, 0, sizeof(g));
	g.flow_id = ID;
	g.type = TONIC_CTRL_GRANT;
	g.flags = TONIC_CF_GRANT;
	g.grant = 2500;
	ctrl1(e, g, 2);			/* 3000 tokens: 3 segments */
	CHECK_EQ(tonic_engine_tx(e, 3, out, 64), 3);
	CHECK_EQ(out[0].seg, 1);
	CHECK_EQ(fstats(e, ID).credit_bytes, 0);
	CHECK_EQ(tonic_engine_tx(e, 4, out, 64), 0);
	/* no grant comes: the timeout marks [wnd_start, next_new) = 0..11 */
	script.per_out.flags = TONIC_OUT_RTX;
	script.per_out.rtx_start = 0;
	script.per_out.rtx_end = 12;
	t = tonic_engine_next_timer(e);
	tonic_engine_timers(e, t);
	CHECK_EQ(fstats(e, ID).timeouts, 1);
	/* credit for the 12 timeout retransmissions, and nothing more */
	CHECK_EQ(fstats(e, ID).credit_bytes, 12000);
	/*
	 * 4..11 waited in the 8-entry ring: they leave first (and that
	 * clears their marks), then the real retransmissions 0..3
	 */
	CHECK_EQ(tonic_engine_tx(e, t, out, 64), 12);
	CHECK_EQ(out[0].seg, 4);
	CHECK_EQ(out[0].rtx, 0);
	CHECK_EQ(out[8].seg, 0);
	CHECK_EQ(out[8].rtx, 1);
	CHECK_EQ(out[11].seg, 3);
	CHECK_EQ(fstats(e, ID).marked, 0);
	CHECK_EQ(fstats(e, ID).credit_bytes, 0);
	CHECK_EQ(tonic_engine_tx(e, t + 1, out, 64), 0);
	tonic_engine_destroy(e);
}

int main(void)
{
	tap_plan(4);
	TAP_RUN(rate_accuracy_range);
	TAP_RUN(rate_no_quantisation);
	TAP_RUN(rate_change);
	TAP_RUN(grant_accounting);
	return tap_exit();
}
