// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/engine/bitmap.h and the ctx bitmap queries (ctx.c)
 * against a naive bit-per-byte model: randomized maps, every head
 * position, K = 1..256 (128 and 256 in depth).
 */
#include "unit.h"
#include "bitmap.h"

static void model_fill(u64 *map, u8 *model, unsigned int k, u32 density)
{
	unsigned int i;

	memset(map, 0, TB_WORDS * sizeof(u64));
	for (i = 0; i < k; i++) {
		model[i] = rnd(1000) < density;
		if (model[i])
			tb_set(map, i);
	}
}

static unsigned int model_ffs_from(const u8 *model, unsigned int k,
				   unsigned int h, u8 want)
{
	unsigned int j;

	for (j = 0; j < k; j++)
		if (model[(h + j) % k] == want)
			return (h + j) % k;
	return k;
}

static void check_ffs_k(unsigned int k, int rounds)
{
	u64 map[TB_WORDS];
	u8 model[256];
	static const u32 dens[] = { 0, 2, 30, 500, 990, 1000 };
	unsigned int h;
	int r;

	for (r = 0; r < rounds; r++) {
		model_fill(map, model, k, dens[r % 6]);
		for (h = 0; h < k; h++) {
			CHECK_EQ(tb_ffs_from(map, k, h),
				 model_ffs_from(model, k, h, 1));
			CHECK_EQ(tb_ffz_from(map, k, h),
				 model_ffs_from(model, k, h, 0));
		}
	}
}

static void ffs_from_k128(void)
{
	check_ffs_k(128, 300);
}

static void ffs_from_k256(void)
{
	check_ffs_k(256, 300);
}

static void ffs_from_small_k(void)
{
	unsigned int k;

	for (k = 1; k <= 64; k *= 2)
		check_ffs_k(k, 200);
}

/* One set bit anywhere, every head: the wrap case of Appendix C. */
static void ffs_from_single_bit(void)
{
	unsigned int k, b, h;
	u64 map[TB_WORDS];

	for (k = 128; k <= 256; k *= 2)
		for (b = 0; b < k; b++) {
			memset(map, 0, sizeof(map));
			tb_set(map, b);
			for (h = 0; h < k; h++)
				CHECK_EQ(tb_ffs_from(map, k, h), b);
		}
}

static void check_ranges_k(unsigned int k)
{
	u64 map[TB_WORDS], skip[TB_WORDS];
	u8 model[256], mskip[256];
	int r;

	for (r = 0; r < 3000; r++) {
		unsigned int i = rnd(k), cnt = rnd(k + 1), j, n = 0, op = rnd(4);

		model_fill(map, model, k, 500);
		model_fill(skip, mskip, k, 300);
		for (j = 0; j < cnt; j++) {
			unsigned int b = (i + j) % k;

			if (op == 3) {
				if (!mskip[b] && !model[b]) {
					model[b] = 1;
					n++;
				}
				continue;
			}
			n += model[b];
			if (op == 1)
				model[b] = 1;
			else if (op == 2)
				model[b] = 0;
		}
		if (op == 0)
			CHECK_EQ(tb_count(map, k, i, cnt), n);
		else if (op == 1)
			tb_set_range(map, k, i, cnt);
		else if (op == 2)
			CHECK_EQ(tb_clear_range(map, k, i, cnt), n);
		else
			CHECK_EQ(tb_set_unless(map, skip, k, i, cnt), n);
		for (j = 0; j < k; j++)
			CHECK_EQ(tb_test(map, j), model[j]);
		/* bits beyond K are never touched */
		for (j = k; j < 256; j++)
			CHECK_EQ(tb_test(map, j), 0);
	}
}

static void range_ops_k128(void)
{
	check_ranges_k(128);
}

static void range_ops_k256(void)
{
	unsigned int k;

	check_ranges_k(256);
	for (k = 1; k <= 64; k *= 2)
		check_ranges_k(k);
}

/* ctx queries work on window positions, not ring positions. */
static void ctx_queries(void)
{
	struct tonic_flow_ctx c;
	u8 model[256];
	int r;

	for (r = 0; r < 2000; r++) {
		unsigned int k = r & 1 ? 256 : 128, inflight = rnd(k + 1), j;
		u32 start = (u32)rnd64();	/* exercises 2^32 wrap too */

		memset(&c, 0, sizeof(c));
		c.wnd_max = k;
		c.wnd_start = start;
		c.next_new = start + inflight;
		for (j = 0; j < inflight; j++) {
			model[j] = rnd(2);
			if (model[j])
				tb_set(c.acked, (start + j) % k);
		}
		for (j = 0; j < 8; j++) {
			u32 from = rnd(inflight + 1), to = rnd(inflight + 1);
			u32 fa = inflight, fu = inflight, cnt = 0, x;

			for (x = from; x < inflight; x++)
				if (model[x]) {
					fa = x;
					break;
				}
			for (x = from; x < inflight; x++)
				if (!model[x]) {
					fu = x;
					break;
				}
			for (x = from; x < to; x++)
				cnt += model[x];
			CHECK_EQ(tonic_ctx_first_acked(&c, start + from),
				 start + fa);
			CHECK_EQ(tonic_ctx_first_unacked(&c, start + from),
				 start + fu);
			CHECK_EQ(tonic_ctx_count_acked(&c, start + from,
						       start + to), cnt);
			if (from < inflight)
				CHECK_EQ(tonic_ctx_is_acked(&c, start + from),
					 model[from]);
		}
		CHECK(tonic_ctx_is_acked(&c, start - 1));
		CHECK(!tonic_ctx_is_acked(&c, start + inflight));
	}
}

int main(void)
{
	tap_plan(7);
	TAP_RUN(ffs_from_k128);
	TAP_RUN(ffs_from_k256);
	TAP_RUN(ffs_from_small_k);
	TAP_RUN(ffs_from_single_bit);
	TAP_RUN(range_ops_k128);
	TAP_RUN(range_ops_k256);
	TAP_RUN(ctx_queries);
	return tap_exit();
}
