// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: IRN's default workload (IRN §4.1).
 *
 * Every host starts flows with Poisson arrivals to a destination picked
 * uniformly among the other hosts; sizes come from a heavy-tailed mix
 * with IRN's shape: half of the flows are single-packet messages of
 * 32 B - 1 KB (small RPCs), 15 % are 200 KB - 3 MB (storage, background)
 * and carry most bytes, the remaining 35 % lie in between (log-uniform
 * within each band).  The arrival rate makes the offered load a given
 * fraction of the host link rate.  Floating point is used here only to
 * draw the workload before the run starts.
 */
#include <math.h>
#include "workload.h"

struct band {
	double frac;
	double lo;
	double hi;
	int log;
};

static const struct band bands[] = {
	{ 0.50, 32, 1000, 0 },
	{ 0.35, 1000, 200000, 1 },
	{ 0.15, 200000, 3000000, 1 },
};

static double band_mean(const struct band *b)
{
	if (!b->log)
		return (b->lo + b->hi) / 2;
	return (b->hi - b->lo) / log(b->hi / b->lo);
}

double wl_mean_size(void)
{
	double m = 0;
	unsigned int i;

	for (i = 0; i < sizeof(bands) / sizeof(bands[0]); i++)
		m += bands[i].frac * band_mean(&bands[i]);
	return m;
}

u64 wl_size(struct sim_rng *rng)
{
	double u = sim_rng_unit(rng), x;
	unsigned int i;

	for (i = 0; i < sizeof(bands) / sizeof(bands[0]) - 1; i++) {
		if (u < bands[i].frac)
			break;
		u -= bands[i].frac;
	}
	x = sim_rng_unit(rng);
	if (bands[i].log)
		x = bands[i].lo * exp(x * log(bands[i].hi / bands[i].lo));
	else
		x = bands[i].lo + x * (bands[i].hi - bands[i].lo);
	return (u64)x;
}

int wl_generate(struct sim *s, const struct sim_proto *p, u32 seg_size,
		double load, u64 rate_bps, u64 t_end,
		void (*setup)(struct sim_flow *f, void *arg), void *arg)
{
	double gap_ns = wl_mean_size() * 8 / (load * rate_bps) * 1e9;
	u32 h;

	for (h = 0; h < s->nhosts; h++) {
		double t = 0;

		for (;;) {
			struct sim_flow *f;
			u32 dst;

			t += -log(1 - sim_rng_unit(&s->rng)) * gap_ns;
			if (t >= t_end)
				break;
			dst = sim_rng_below(&s->rng, s->nhosts - 1);
			dst += dst >= h;
			f = sim_flow_new(s, (u16)h, (u16)dst, p, seg_size,
					 wl_size(&s->rng), (u64)t);
			if (!f)
				return -ENOMEM;
			if (setup)
				setup(f, arg);
		}
	}
	return 0;
}
