// SPDX-License-Identifier: GPL-2.0
/*
 * The copy step of send() that adds many segments at once
 * (kmod/sock/runfill.h, used by tonic_sndbuf_append()) against the rule
 * it replaces, applied one segment at a time: a segment starts only while
 * less than sndbuf is queued, while the run has room for it and fewer
 * than U16_MAX segments, and no more start than the batch's push allows
 * or the bytes at hand fill.
 */
#include "unit.h"
#include "../../kmod/sock/runfill.h"

/* The segment-by-segment rule: bytes the new segments take. */
static u32 one_by_one(const struct tonic_run_fill *f)
{
	int queued = f->queued;
	u32 len = f->len, n = 0, bytes = 0;

	while (n < f->segs && bytes < f->avail) {
		u32 take;

		if (queued >= f->sndbuf || len + f->c > f->run_max ||
		    f->nsegs + n >= U16_MAX)
			break;
		take = min_t(u32, f->c, f->avail - bytes);
		n++;
		bytes += take;
		queued += take;
		len += take;
	}
	return bytes;
}

static void examples(void)
{
	struct tonic_run_fill f = {
		.c = 1448, .queued = 10000, .sndbuf = 100000, .len = 1448,
		.run_max = 65536, .nsegs = 1, .segs = 43, .avail = 32768,
	};

	/* 22 full segments and 912 bytes of a 23rd, from a 32 KB fragment */
	CHECK_EQ(tonic_run_fill_bytes(&f), 32768);
	/* the batch's push after 10 more */
	f.segs = 10;
	CHECK_EQ(tonic_run_fill_bytes(&f), 14480);
	/* memory: the 3rd starts below sndbuf and passes it, no 4th */
	f.segs = 43;
	f.sndbuf = f.queued + 2 * 1448 + 1;
	CHECK_EQ(tonic_run_fill_bytes(&f), 3 * 1448);
	f.sndbuf = f.queued;
	CHECK_EQ(tonic_run_fill_bytes(&f), 0);
	/* the run: 45 x 1448 = 65160 fit in 64 KB, a 46th does not */
	f.sndbuf = 1 << 22;
	f.len = 44 * 1448;
	CHECK_EQ(tonic_run_fill_bytes(&f), 1448);
	f.len = 45 * 1448;
	CHECK_EQ(tonic_run_fill_bytes(&f), 0);
	/* U16_MAX segments in a run (C = 1, a big run) */
	f.c = 1;
	f.len = 0;
	f.run_max = 1 << 20;
	f.nsegs = U16_MAX - 2;
	CHECK_EQ(tonic_run_fill_bytes(&f), 2);
}

static void random_states(void)
{
	u32 i, bad = 0;

	for (i = 0; i < 500000; i++) {
		struct tonic_run_fill f;
		u32 want, got;

		f.c = 1 + rnd(rnd(2) ? 9000 : 64);
		f.sndbuf = (int)rnd(1 << 21);
		f.queued = (int)rnd(1 << 21);
		f.run_max = 1 + rnd(1 << 17);
		f.len = rnd(f.run_max + 1);
		f.nsegs = rnd(4) ? rnd(64) : U16_MAX - rnd(80);
		f.segs = rnd(70);
		f.avail = rnd(4) ? rnd(1 << 16) : rnd(4 * f.c);
		want = one_by_one(&f);
		got = tonic_run_fill_bytes(&f);
		if (want != got) {
			if (!bad)
				tap_diag("c %u queued %d sndbuf %d len %u max %u",
					 f.c, f.queued, f.sndbuf, f.len,
					 f.run_max);
			if (!bad)
				tap_diag("nsegs %u segs %u avail %u: %u, not %u",
					 f.nsegs, f.segs, f.avail, got, want);
			bad++;
		}
	}
	tap_diag("%u states, %u differ", i, bad);
	CHECK_EQ(bad, 0);
}

int main(void)
{
	tap_plan(2);
	TAP_RUN(examples);
	TAP_RUN(random_states);
	return tap_exit();
}
