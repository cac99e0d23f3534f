// SPDX-License-Identifier: GPL-2.0
/*
 * The protocol programs of bpf/, built natively, against the userspace
 * engine (selftests/progs/sim.h): scripted loss patterns with exact
 * retransmission sets, the window and rate rules each program follows,
 * and random-loss runs that must deliver everything.
 */
#include "sim.h"

#define TONIC_PROG(p)							\
	extern const struct tonic_proto_ops tonic_prog_##p;		\
	extern const u32 tonic_prog_##p##_signals;
#include "progs.h"
#undef TONIC_PROG

extern u64 irn_rto_low_ns, irn_rto_high_ns, dcqcn_byte_counter;
extern u32 irn_dcqcn;
extern u64 dcqcn_rate_timer_ns, dcqcn_alpha_timer_ns;

#define SEC_NS	1000000000ULL
#define SIM_RTT_NS	100000ULL	/* sim.h: 2 x 50 us */

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* @got (sorted here) holds exactly @want (sorted). */
static void check_set(u32 *got, unsigned int m, const u32 *want,
		      unsigned int n)
{
	unsigned int i;

	qsort(got, m, sizeof(u32), cmp_u32);
	CHECK_EQ(m, n);
	for (i = 0; i < m && i < n; i++)
		CHECK_EQ(got[i], want[i]);
	if (m != n)
		for (i = 0; i < m && i < 16; i++)
			tap_diag("  retransmitted %u", got[i]);
}

static void check_rtx_set(struct sim *s, const u32 *want, unsigned int n)
{
	u32 got[256];

	check_set(got, sim_rtx(s, got, 256), want, n);
}

static struct sim *run_prog(const struct tonic_proto_ops *ops, u32 sig,
			    int mode, u32 total, const u32 *drops,
			    unsigned int ndrops, u32 init_wnd)
{
	struct tonic_flow_params p = sim_params();
	struct sim *s = sim_new(ops, sig, mode, total);
	unsigned int i;

	for (i = 0; i < ndrops; i++)
		s->drop[drops[i]] |= 1;		/* first transmission */
	p.init_wnd = init_wnd;
	if (sig & TONIC_SIG_GRANT)
		p.init_tokens = 10 * SIM_SEG_SIZE;
	CHECK_EQ(sim_start(s, &p), 0);
	CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
	CHECK_EQ(s->link.rcv.rcv_nxt, total);
	return s;
}

/* RFC 5681 §3.2: third dupack halves; the next new ACK deflates to ssthresh. */
static void reno_halves_after_three_dupacks(void)
{
	static const u32 drops[] = { 20 };
	struct sim *s = run_prog(&tonic_prog_reno, tonic_prog_reno_signals,
				 SIM_RCV_SACK, 60, drops, 1, 10);
	unsigned int i, dup = 0, fr = ~0U;
	u32 flight = 0;

	for (i = 0; i < s->ncalls; i++) {
		struct sim_call *k = &s->calls[i];

		if (k->op != 'i')
			continue;
		dup = k->dupack ? dup + 1 : 0;
		if (k->out.flags & TONIC_OUT_RTX) {
			fr = i;
			flight = k->flight;
			CHECK_EQ(dup, 3);
			CHECK_EQ(k->out.rtx_start, 20);
			CHECK_EQ(k->out.rtx_end, 21);
			CHECK_EQ(k->out.wnd, flight / 2 + 3);	/* ssthresh + 3 */
			break;
		}
	}
	CHECK(fr != ~0U);
	CHECK(flight >= 8);
	/* first new ACK: cwnd = ssthresh = FlightSize / 2 */
	for (i = fr + 1; i < s->ncalls; i++) {
		if (s->calls[i].op == 'i' && s->calls[i].cum_acked) {
			CHECK_EQ(s->calls[i].out.wnd, flight / 2);
			break;
		}
	}
	check_rtx_set(s, drops, 1);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	sim_free(s);
}

/* RFC 6582: three losses in one window, recovered by partial ACKs. */
static void newreno_recovers_three_losses_without_timeout(void)
{
	static const u32 drops[] = { 20, 23, 27 };
	struct sim *s = run_prog(&tonic_prog_newreno,
				 tonic_prog_newreno_signals, SIM_RCV_SACK, 80,
				 drops, 3, 10);
	unsigned int i, fr = 0;

	check_rtx_set(s, drops, 3);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	/* one window reduction only: one fast-retransmit entry */
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].dupack && (s->calls[i].out.flags & TONIC_OUT_RTX))
			fr++;
	CHECK_EQ(fr, 1);
	sim_free(s);
}

/* Reno with the same pattern needs more than one reduction or a timeout. */
static void reno_needs_more_for_three_losses(void)
{
	static const u32 drops[] = { 20, 23, 27 };
	struct sim *s = run_prog(&tonic_prog_reno, tonic_prog_reno_signals,
				 SIM_RCV_SACK, 80, drops, 3, 10);
	unsigned int i, fr = 0;

	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].dupack && (s->calls[i].out.flags & TONIC_OUT_RTX))
			fr++;
	CHECK(fr > 1 || sim_stats(s).timeouts > 0);
	sim_free(s);
}

/* RFC 6675: every lost segment once, no timeout, one reduction. */
static void sack_resends_each_lost_segment_once(void)
{
	static const u32 drops[] = { 20, 21, 25, 30 };
	struct sim *s = run_prog(&tonic_prog_sack, tonic_prog_sack_signals,
				 SIM_RCV_SACK, 80, drops, 4, 16);
	unsigned int i;
	u32 ss = 0;

	check_rtx_set(s, drops, 4);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	/* §5 step 4: ssthresh = cwnd = FlightSize / 2 on entry */
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].out.flags & TONIC_OUT_RTX) {
			ss = s->calls[i].flight / 2;
			CHECK(s->calls[i].out.wnd >= ss);
			break;
		}
	/*
	 * Slow start from 16 grew cwnd by one per ACK of segments 0..19: 36
	 * in flight at the third dupack, ssthresh 18.
	 */
	CHECK_EQ(ss, (16 + 20) / 2);
	sim_free(s);
}

/* IRN §3.1: selective retransmission of exactly the lost segments. */
static void irn_resends_only_lost_segments(void)
{
	static const u32 drops[] = { 5, 8, 12, 13, 40 };
	struct sim *s = run_prog(&tonic_prog_irn, tonic_prog_irn_signals,
				 SIM_RCV_SACK, 100, drops, 5, 0);

	check_rtx_set(s, drops, 5);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	sim_free(s);
}

/* IRN §3.1: RTO_low for a tail loss with at most N = 3 in flight. */
static void irn_rto_low_for_short_flows(void)
{
	static const u32 drops[] = { 2 };
	struct sim *s = run_prog(&tonic_prog_irn, tonic_prog_irn_signals,
				 SIM_RCV_SACK, 3, drops, 1, 0);
	unsigned int i;
	u64 first = 0, again = 0;

	for (i = 0; i < s->nlog; i++) {
		if (s->log_seg[i] == 2 && !s->log_rtx[i])
			first = s->log_t[i];
		if (s->log_seg[i] == 2 && s->log_rtx[i])
			again = s->log_t[i];
	}
	CHECK_EQ(sim_stats(s).timeouts, 1);
	/* armed when seg 1 was acked (first + 2 owd - tx gap), fires RTO_low later */
	CHECK(again > first + irn_rto_low_ns);
	CHECK(again <= first + 2 * s->link.owd + irn_rto_low_ns + 10000);
	sim_free(s);
}

/* IRN §3.1: RTO_high once more than N segments are in flight. */
static void irn_rto_high_for_long_flows(void)
{
	static const u32 drops[] = { 30, 31, 32, 33, 34, 35, 36, 37, 38, 39 };
	struct sim *s = run_prog(&tonic_prog_irn, tonic_prog_irn_signals,
				 SIM_RCV_SACK, 40, drops, 10, 0);
	unsigned int i;

	/*
	 * the last ten are lost: no SACK above them, only a timeout helps,
	 * and each RTO resends one of them (the next ACK shows no more)
	 */
	CHECK_EQ(sim_stats(s).timeouts, 10);
	check_rtx_set(s, drops, 10);
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].op == 'i' &&
		    (s->calls[i].out.flags & TONIC_OUT_TIMER) &&
		    s->calls[i].flight > 3)
			CHECK_EQ(s->calls[i].out.timer_ns, irn_rto_high_ns);
	sim_free(s);
}

/* RoCE go-back-N: everything from the first loss on is resent, once. */
static void dcqcn_goes_back_n(void)
{
	static const u32 drops[] = { 10 };
	struct sim *s = run_prog(&tonic_prog_dcqcn, tonic_prog_dcqcn_signals,
				 SIM_RCV_ROCE, 100, drops, 1, 0);
	u32 got[256];
	unsigned int i, n = sim_rtx(s, got, 256);

	CHECK_EQ(n, 100 - 10);	/* 10..99, each once */
	for (i = 0; i < n; i++)
		CHECK_EQ(got[i], 10 + i);	/* 10, 11, 12, ... in order */
	/* and nothing sent before the loss was repeated */
	for (i = 0; i < 10; i++)
		CHECK_EQ(s->ntx[i], 1);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	sim_free(s);
}

/* The same loss with IRN's selective repeat costs one segment. */
static void irn_vs_gbn_same_loss(void)
{
	static const u32 drops[] = { 10 };
	struct sim *s = run_prog(&tonic_prog_irn, tonic_prog_irn_signals,
				 SIM_RCV_SACK, 100, drops, 1, 0);

	check_rtx_set(s, drops, 1);
	sim_free(s);
}

/* DCQCN §3.1 rate rules, hook by hook (fixed point, exact). */
static void dcqcn_rate_follows_update_rules(void)
{
	struct tonic_flow_ctx c;
	struct tonic_user u;
	u64 t = 0, want[] = {
		3750000000ULL, 4375000000ULL, 4687500000ULL,
		4843750000ULL,			/* fast recovery x4 */
		4941875000ULL,			/* T = 5: additive, RT + 40M */
	};
	unsigned int i;

	memset(&u, 0, sizeof(u));
	memset(&c, 0, sizeof(c));
	c.wnd_max = 128;
	c.seg_size = SIM_SEG_SIZE;
	c.rate_min_bps = TONIC_MIN_RATE_BPS;
	c.rate_max_bps = 10000000000ULL;
	c.rto_ns = 1000000;
	CHECK_EQ(tonic_prog_dcqcn.init(&c, &u), 0);
	CHECK_EQ(c.out.rate_bps, 10000000000ULL);	/* line rate */
	/* CNP with alpha = 1: RC = RC / 2, RT = old RC */
	memset(&c.out, 0, sizeof(c.out));
	c.ev.type = TONIC_CTRL_CNP;
	tonic_prog_dcqcn.incoming(&c, &u);
	CHECK(c.out.flags & TONIC_OUT_RATE);
	CHECK_EQ(c.out.rate_bps, 5000000000ULL);
	memset(&c.out, 0, sizeof(c.out));
	tonic_prog_dcqcn.incoming(&c, &u);
	CHECK_EQ(c.out.rate_bps, 2500000000ULL);
	/* rate timer: fast recovery towards RT = 5 Gb/s, then additive */
	c.ev.type = 0;
	for (i = 0; i < 5; i++) {
		t += dcqcn_rate_timer_ns;
		c.now = t;
		memset(&c.out, 0, sizeof(c.out));
		tonic_prog_dcqcn.periodic(&c, &u);
		CHECK_EQ(c.out.rate_bps, want[i]);
	}
	/* alpha decayed by (1 - 1/256) per alpha period: the next cut is smaller */
	memset(&c.out, 0, sizeof(c.out));
	c.ev.type = TONIC_CTRL_CNP;
	tonic_prog_dcqcn.incoming(&c, &u);
	CHECK(c.out.rate_bps > want[4] / 2);
	CHECK(c.out.rate_bps < want[4] / 2 + want[4] / 50);
	/* floor: many CNPs never go below the minimum rate */
	for (i = 0; i < 100; i++) {
		memset(&c.out, 0, sizeof(c.out));
		tonic_prog_dcqcn.incoming(&c, &u);
	}
	CHECK_EQ(c.out.rate_bps, 10000000ULL);
}

/* The engine applies DCQCN's rate: CNPs mid-flow slow the flow down. */
static void dcqcn_cnp_slows_flow_in_engine(void)
{
	struct tonic_flow_params p = sim_params();
	struct sim *s = sim_new(&tonic_prog_dcqcn, tonic_prog_dcqcn_signals,
				SIM_RCV_ROCE, 200);
	struct tonic_ctrl_desc cnp = { .flow_id = SIM_ID,
				       .type = TONIC_CTRL_CNP };

	CHECK_EQ(sim_start(s, &p), 0);
	CHECK_EQ(sim_stats(s).rate_bps, 10000000000ULL);
	tonic_engine_ctrl(s->e, &cnp, 1, 0);
	CHECK_EQ(sim_stats(s).rate_bps, 5000000000ULL);
	CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
	CHECK_EQ(s->link.rcv.rcv_nxt, 200);
	sim_free(s);
}

/* IRN §3.3: a fixed line rate ignores CNPs; with irn_dcqcn = 1 DCQCN cuts. */
static void irn_rate_fixed_or_dcqcn(void)
{
	struct tonic_ctrl_desc cnp = { .flow_id = SIM_ID,
				       .type = TONIC_CTRL_CNP };
	unsigned int mode;

	for (mode = 0; mode < 2; mode++) {
		struct tonic_flow_params p = sim_params();
		struct sim *s = sim_new(&tonic_prog_irn, tonic_prog_irn_signals,
					SIM_RCV_SACK, 50);

		irn_dcqcn = mode;
		CHECK_EQ(sim_start(s, &p), 0);
		tonic_engine_ctrl(s->e, &cnp, 1, 0);
		CHECK_EQ(sim_stats(s).rate_bps,
			 mode ? 5000000000ULL : 10000000000ULL);
		CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
		CHECK_EQ(s->link.rcv.rcv_nxt, 50);
		sim_free(s);
	}
	irn_dcqcn = 0;
}

/* NDP: credit comes only from grants (and the initial tokens). */
static void ndp_sends_only_against_grants(void)
{
	struct tonic_flow_params p = sim_params();
	struct sim *s = sim_new(&tonic_prog_ndp, tonic_prog_ndp_signals,
				SIM_RCV_SACK, 50);

	s->link.rcv_cfg.signals &= ~TONIC_SIG_GRANT;	/* a receiver that never grants */
	p.init_tokens = 5 * SIM_SEG_SIZE;
	p.rto_init_ns = SEC_NS;
	CHECK_EQ(sim_start(s, &p), 0);
	sim_tx(s);
	CHECK_EQ(s->nlog, 5);
	/* acks come back, still no grant: nothing more may go out */
	sim_run(s, 500000);
	CHECK_EQ(s->nlog, 5);
	CHECK_EQ(s->link.rcv.rcv_nxt, 5);
	sim_free(s);
}

/* NDP §3.2: a NACK resends just the segment it names. */
static void ndp_nack_resends_one_segment(void)
{
	static const u32 drops[] = { 7, 19 };
	struct sim *s = run_prog(&tonic_prog_ndp, tonic_prog_ndp_signals,
				 SIM_RCV_SACK, 60, drops, 2, 0);

	check_rtx_set(s, drops, 2);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	sim_free(s);
}

/* rack needs what the kernel's receiver gives: RTT samples and DSACKs. */
static struct sim *sim_new_rack(u32 total)
{
	struct sim *s = sim_new(&tonic_prog_rack, tonic_prog_rack_signals,
				SIM_RCV_SACK, total);

	sim_socket_acks(s);
	s->tx_gap_ns = 1000;		/* 1 us per segment */
	return s;
}

/* Timers in the proportions of the kernel's defaults to the RTT. */
static struct tonic_flow_params rack_params(void)
{
	struct tonic_flow_params p = sim_params();

	p.init_wnd = 10;
	p.rto_min_ns = 20 * SIM_RTT_NS;
	p.rto_low_ns = 2 * SIM_RTT_NS;
	p.rto_low_segs = 3;
	return p;
}

static struct sim *run_rack(u32 total, const u32 *drops, unsigned int ndrops)
{
	struct tonic_flow_params p = rack_params();
	struct sim *s = sim_new_rack(total);
	unsigned int i;

	for (i = 0; i < ndrops; i++)
		s->drop[drops[i]] |= 1;
	CHECK_EQ(sim_start(s, &p), 0);
	CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
	CHECK_EQ(s->link.rcv.rcv_nxt, total);
	return s;
}

/* RACK (RFC 8985 §6): each lost segment resent once, one reduction. */
static void rack_resends_each_lost_segment_once(void)
{
	static const u32 drops[] = { 20, 23, 27 };
	struct sim *s = run_rack(80, drops, 3);
	struct tonic_flow_stats st = sim_stats(s);

	check_rtx_set(s, drops, 3);
	CHECK_EQ(st.timeouts, 0);
	CHECK_EQ(st.violations, 0);
	sim_free(s);
}

/* A resend lost again is found by RACK (sent after it, delivered). */
static void rack_finds_a_lost_resend(void)
{
	static const u32 want[] = { 20, 20 };
	struct tonic_flow_params p = rack_params();
	struct sim *s = sim_new_rack(200);

	s->drop[20] = 0x3;		/* the first two transmissions */
	CHECK_EQ(sim_start(s, &p), 0);
	CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
	check_rtx_set(s, want, 2);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	sim_free(s);
}

/* TLP (§7): a lost tail is repaired by a probe, not by the RTO. */
static void rack_tail_loss_probe(void)
{
	static const u32 drops[] = { 58, 59 };
	static const u32 want[] = { 58, 59 };
	struct sim *s = run_rack(60, drops, 2);
	struct tonic_flow_stats st = sim_stats(s);

	check_rtx_set(s, want, 2);
	CHECK_EQ(st.timeouts, 0);
	/* early timers: the probe (resends 59), then 58's reordering window */
	CHECK_EQ(st.probes, 2);
	CHECK_EQ(st.violations, 0);
	sim_free(s);
}

/*
 * Reordering: the first late segment is resent (no reordering seen yet,
 * three segments above it delivered), its DSACK undoes the reduction and
 * opens the reordering window; later late segments are not resent.
 */
static void rack_reordering_window_adapts(void)
{
	static const u32 want[] = { 100 };
	struct tonic_flow_params p = rack_params();
	struct sim *s = sim_new_rack(600);

	s->late_ns[100] = 40000;	/* RTT 100 us: more than min_rtt / 4 */
	s->late_ns[300] = 40000;
	s->late_ns[500] = 40000;
	CHECK_EQ(sim_start(s, &p), 0);
	CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
	check_rtx_set(s, want, 1);
	CHECK_EQ(sim_stats(s).timeouts, 0);
	CHECK_EQ(sim_stats(s).wnd, 128);	/* undone: grew to K */
	sim_free(s);
}

/*
 * A path like make bench's "reorder" (netem delay 100us reorder 10% 50%):
 * every first transmission takes 100 us more, but one in ten (in runs:
 * the next one follows with 50 % correlation) skips it and overtakes the
 * segments sent in the 100 us before.  Nothing is lost.
 */
static void sim_netem_reorder(struct sim *s, u32 total, u64 rng)
{
	bool fast = false;
	u32 seg;

	for (seg = 0; seg < total; seg++) {
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		/* netem's correlation: half the time repeat the last draw */
		if (!((rng * 0x2545f4914f6cdd1dULL) >> 63))
			fast = (rng * 0x9e3779b97f4a7c15ULL) % 100 < 10;
		s->late_ns[seg] = fast ? 0 : 100000;
	}
}

/*
 * Run rack over sim_netem_reorder() with @rng, dropping the first
 * transmission of @drops.  Return how many segments were resent; @late
 * gets (up to 16 of) those resent more than an RTT after the first resend
 * (after its DSACK came back) and @nlate their number, @high those of
 * segments from 500 on (past slow start's episode) and @nhigh theirs.
 */
struct rack_reorder_run {
	unsigned int n, nlate, nhigh;
	u32 late[16], high[16];
	struct tonic_flow_stats st;
};

static void run_rack_reorder(u64 rng, const u32 *drops, unsigned int ndrops,
			     struct rack_reorder_run *r)
{
	struct tonic_flow_params p = rack_params();
	struct sim *s = sim_new_rack(2000);
	unsigned int i;
	u64 first = 0;

	memset(r, 0, sizeof(*r));
	sim_netem_reorder(s, 2000, rng);
	for (i = 0; i < ndrops; i++)
		s->drop[drops[i]] |= 1;
	CHECK_EQ(sim_start(s, &p), 0);
	CHECK_EQ(sim_run(s, 10 * SEC_NS), 0);
	CHECK_EQ(s->link.rcv.rcv_nxt, 2000);
	for (i = 0; i < s->nlog; i++) {
		if (!s->log_rtx[i])
			continue;
		if (!r->n++)
			first = s->log_t[i];
		if (s->log_t[i] > first + SIM_RTT_NS && r->nlate < 16)
			r->late[r->nlate++] = s->log_seg[i];
		if (s->log_seg[i] >= 500 && r->nhigh < 16)
			r->high[r->nhigh++] = s->log_seg[i];
	}
	r->st = sim_stats(s);
	sim_free(s);
}

/*
 * Reordering alone (no loss): the first holes may be resent (no
 * reordering seen yet and three segments above them delivered: as three
 * duplicate ACKs would), but the originals arrive before the resends
 * can, so reo_wnd grows at once to the time they stayed open, and nothing
 * is resent after that first episode's DSACKs.  Before, it took a DSACK
 * round per min_rtt / 4 (about 160 resends of 2,000 here), and a third
 * pending deadline that took the second's time gave holes up early.
 */
static void rack_reordering_alone_resends_once(void)
{
	struct rack_reorder_run r;
	unsigned int seed;

	for (seed = 1; seed <= 4; seed++) {
		run_rack_reorder(0x9e3779b97f4a7c15ULL * seed, NULL, 0, &r);
		if (r.nlate)
			tap_diag("seed %u: %u resent, %u late (first %u)",
				 seed, r.n, r.nlate, r.late[0]);
		CHECK(r.n <= 32);
		CHECK_EQ(r.nlate, 0);
		CHECK_EQ(r.st.timeouts, 0);
		CHECK_EQ(r.st.violations, 0);
	}
}

/*
 * Losses on the same reordering path are still found by RACK, not by the
 * RTO: past the start, exactly the dropped segments are resent.
 */
static void rack_reordering_keeps_loss_recovery(void)
{
	static const u32 drops[] = { 700, 1300, 1301, 1650 };
	struct rack_reorder_run r;
	unsigned int seed;

	for (seed = 1; seed <= 4; seed++) {
		run_rack_reorder(0x9e3779b97f4a7c15ULL * seed, drops, 4, &r);
		check_set(r.high, r.nhigh, drops, 4);
		CHECK_EQ(r.st.timeouts, 0);
		CHECK_EQ(r.st.violations, 0);
	}
}

/*
 * Every program delivers everything under 5 % random loss, within bounds:
 * each of bpf/progs.h against a TCP-like (SACK) receiver, and dcqcn also
 * against a RoCE (go-back-N) one.
 */
static void all_programs_survive_random_loss(void)
{
	static const struct {
		const struct tonic_proto_ops *ops;
		const u32 *sig;
		int mode;
	} progs[] = {
#define TONIC_PROG(p) { &tonic_prog_##p, &tonic_prog_##p##_signals, SIM_RCV_SACK },
#include "progs.h"
#undef TONIC_PROG
		{ &tonic_prog_dcqcn, &tonic_prog_dcqcn_signals, SIM_RCV_ROCE },
	};
	u64 rng = 0x243f6a8885a308d3ULL;
	unsigned int i, seed, seg, k;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		for (seed = 0; seed < 8; seed++) {
			struct tonic_flow_params p = sim_params();
			struct sim *s = sim_new(progs[i].ops, *progs[i].sig,
						progs[i].mode, 1000);
			struct tonic_flow_stats st;

			for (seg = 0; seg < 1000; seg++)
				for (k = 0; k < 8; k++) {
					rng ^= rng >> 12;
					rng ^= rng << 25;
					rng ^= rng >> 27;
					if ((rng * 0x2545f4914f6cdd1dULL) % 100 < 5)
						s->drop[seg] |= 1 << k;
				}
			if (*progs[i].sig & TONIC_SIG_GRANT)
				p.init_tokens = 10 * SIM_SEG_SIZE;
			CHECK_EQ(sim_start(s, &p), 0);
			if (sim_run(s, 60 * SEC_NS) || s->link.rcv.rcv_nxt != 1000)
				tap_diag("%s seed %u: delivered %u of 1000%s",
					 progs[i].ops->name, seed, s->link.rcv.rcv_nxt,
					 s->link.stalled ? " (stalled)" : "");
			CHECK_EQ(s->link.rcv.rcv_nxt, 1000);
			st = sim_stats(s);
			CHECK_EQ(st.violations, 0);
			sim_free(s);
		}
	}
}

/* tonic_mark_rtx(): a second range in the same hook widens the first. */
static void tonic_ctx_queries_match_kfunc_contract(void)
{
	struct tonic_flow_ctx c;

	memset(&c, 0, sizeof(c));
	c.wnd_max = 8;
	c.wnd_start = 10;
	c.next_new = 18;
	c.acked[0] = (1ULL << (12 % 8)) | (1ULL << (15 % 8));
	CHECK(tonic_is_acked(&c, 9));
	CHECK(!tonic_is_acked(&c, 10));
	CHECK(tonic_is_acked(&c, 12));
	CHECK_EQ(tonic_first_acked(&c, 0), 12);
	CHECK_EQ(tonic_first_acked(&c, 13), 15);
	CHECK_EQ(tonic_first_acked(&c, 16), 18);	/* none: next_new */
	CHECK_EQ(tonic_first_unacked(&c, 12), 13);
	CHECK_EQ(tonic_count_acked(&c, 10, 18), 2);
	tonic_mark_rtx(&c, 12, 14);
	tonic_mark_rtx(&c, 11, 12);
	CHECK_EQ(c.out.rtx_start, 11);
	CHECK_EQ(c.out.rtx_end, 14);
	tonic_mark_rtx(&c, 14, 14);			/* empty: ignored */
	CHECK_EQ(c.out.rtx_end, 14);
}

int main(void)
{
	tap_plan(22);
	TAP_RUN(reno_halves_after_three_dupacks);
	TAP_RUN(reno_needs_more_for_three_losses);
	TAP_RUN(newreno_recovers_three_losses_without_timeout);
	TAP_RUN(sack_resends_each_lost_segment_once);
	TAP_RUN(irn_resends_only_lost_segments);
	TAP_RUN(irn_rto_low_for_short_flows);
	TAP_RUN(irn_rto_high_for_long_flows);
	TAP_RUN(irn_vs_gbn_same_loss);
	TAP_RUN(irn_rate_fixed_or_dcqcn);
	TAP_RUN(dcqcn_goes_back_n);
	TAP_RUN(dcqcn_rate_follows_update_rules);
	TAP_RUN(dcqcn_cnp_slows_flow_in_engine);
	TAP_RUN(ndp_sends_only_against_grants);
	TAP_RUN(rack_resends_each_lost_segment_once);
	TAP_RUN(rack_finds_a_lost_resend);
	TAP_RUN(rack_tail_loss_probe);
	TAP_RUN(rack_reordering_window_adapts);
	TAP_RUN(rack_reordering_alone_resends_once);
	TAP_RUN(rack_reordering_keeps_loss_recovery);
	TAP_RUN(ndp_nack_resends_one_segment);
	TAP_RUN(all_programs_survive_random_loss);
	TAP_RUN(tonic_ctx_queries_match_kfunc_contract);
	return tap_exit();
}
