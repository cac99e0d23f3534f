// SPDX-License-Identifier: GPL-2.0
/*
 * rack on selftests/progs/sim.h's network at random loss (no reordering):
 * 64 flows of 2,000 segments, the same drops for every build; prints the
 * summed completion time, timeouts and resends.  Built against two rack
 * objects to check that a change leaves loss recovery alone (README).
 *
 *   lossexp PERCENT [rack_reo_measure]
 */
#include "sim.h"

#define SEC_NS		1000000000ULL
#define SIM_RTT_NS	100000ULL

extern const struct tonic_proto_ops tonic_prog_rack;
extern const u32 tonic_prog_rack_signals;
extern u32 rack_reo_measure __attribute__((weak));

int main(int argc, char **argv)
{
	unsigned int pct = argc > 1 ? atoi(argv[1]) : 5, seed, seg, k;
	u64 rng = 0x243f6a8885a308d3ULL, tsum = 0, to = 0, rtx = 0;

	if (argc > 2 && &rack_reo_measure)
		rack_reo_measure = atoi(argv[2]);
	for (seed = 0; seed < 64; seed++) {
		struct tonic_flow_params p = sim_params();
		struct sim *s = sim_new(&tonic_prog_rack,
					tonic_prog_rack_signals,
					SIM_RCV_SACK, 2000);

		sim_socket_acks(s);
		s->tx_gap_ns = 1000;
		p.init_wnd = 10;			/* as test_progs' rack_params() */
		p.rto_min_ns = 20 * SIM_RTT_NS;
		p.rto_low_ns = 2 * SIM_RTT_NS;
		p.rto_low_segs = 3;
		for (seg = 0; seg < 2000; seg++)
			for (k = 0; k < 8; k++) {
				rng ^= rng >> 12;
				rng ^= rng << 25;
				rng ^= rng >> 27;
				if ((rng * 0x2545f4914f6cdd1dULL) % 100 < pct)
					s->drop[seg] |= 1 << k;
			}
		if (sim_start(s, &p) || sim_run(s, 60 * SEC_NS))
			printf("seed %u: did not finish\n", seed);
		tsum += s->link.now;
		to += sim_stats(s).timeouts;
		for (k = 0; k < s->nlog; k++)
			rtx += s->log_rtx[k];
		sim_free(s);
	}
	printf("loss %u%%: total time %llu ns, timeouts %llu, resent %llu\n",
	       pct, (unsigned long long)tsum, (unsigned long long)to,
	       (unsigned long long)rtx);
	return 0;
}
