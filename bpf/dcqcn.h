/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dcqcn.h - DCQCN rate control, shared by dcqcn.bpf.c and irn.bpf.c.
 *
 * DCQCN (Zhu, Eran, Firestone, Guo, Lipshteyn, Liron, Padhye, Raindel,
 * Yahia, Zhang: "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015), reaction point, §3.1 and Figure 7:
 * - on a CNP: RT = RC; RC = RC * (1 - alpha / 2); alpha = (1 - g) * alpha
 *   + g; the timer and byte counter restart;
 * - every alpha period without a CNP: alpha = (1 - g) * alpha;
 * - a rate-increase event (timer period elapsed, or byte counter bytes
 *   acked) bumps its counter T or BC, then
 *     max(T, BC) < F:            fast recovery, RC = (RT + RC) / 2
 *     min(T, BC) > F:            hyper increase, RT += i * R_HAI, i = min - F
 *     otherwise:                 additive increase, RT += R_AI
 *   and in the last two RC = (RT + RC) / 2.
 *
 * Fixed point: alpha in units of 2^-20 (1.0 = 1 << 20).  Paper defaults:
 * g = 1/256, F = 5, R_AI = 40 Mb/s, R_HAI = 200 Mb/s, timers 55 us, byte
 * counter 10 MB.  Our default timers are 1 ms because the VM's RTT is
 * ~0.5 ms (the paper's is a few us); every one is a parameter.
 */
#ifndef _TONIC_DCQCN_H
#define _TONIC_DCQCN_H

/*
 * Natively every program is linked into one binary: irn.bpf.c defines
 * DCQCN_IN_IRN so its copy of the knobs is irn__dcqcn_* there.
 */
#if !defined(__bpf__) && defined(DCQCN_IN_IRN)
#define dcqcn_line_rate_bps	irn__dcqcn_line_rate_bps
#define dcqcn_min_rate_bps	irn__dcqcn_min_rate_bps
#define dcqcn_g_shift		irn__dcqcn_g_shift
#define dcqcn_alpha_timer_ns	irn__dcqcn_alpha_timer_ns
#define dcqcn_rate_timer_ns	irn__dcqcn_rate_timer_ns
#define dcqcn_byte_counter	irn__dcqcn_byte_counter
#define dcqcn_f			irn__dcqcn_f
#define dcqcn_rai_bps		irn__dcqcn_rai_bps
#define dcqcn_rhai_bps		irn__dcqcn_rhai_bps
#endif

#define DCQCN_ONE		(1U << 20)	/* alpha = 1.0 */
/* periodic hook tick; the timers below are measured against fl->now */
#define DCQCN_TICK_NS		250000ULL

TONIC_PARAM_U64(dcqcn_line_rate_bps, 10000000000ULL);	/* start, max */
TONIC_PARAM_U64(dcqcn_min_rate_bps, 10000000ULL);	/* floor 10 Mb/s */
TONIC_PARAM_U32(dcqcn_g_shift, 8);			/* g = 1/256 */
TONIC_PARAM_U64(dcqcn_alpha_timer_ns, 1000000ULL);	/* paper: 55 us */
TONIC_PARAM_U64(dcqcn_rate_timer_ns, 1000000ULL);	/* paper: 55 us */
TONIC_PARAM_U64(dcqcn_byte_counter, 10000000ULL);	/* 10 MB */
TONIC_PARAM_U32(dcqcn_f, 5);				/* F */
TONIC_PARAM_U64(dcqcn_rai_bps, 40000000ULL);		/* R_AI 40 Mb/s */
TONIC_PARAM_U64(dcqcn_rhai_bps, 200000000ULL);	/* R_HAI 200 Mb/s */

struct dcqcn {
	u64 rc;			/* current rate, b/s */
	u64 rt;			/* target rate, b/s */
	u64 bytes;		/* acked since the last byte-counter event */
	u64 alpha_at;		/* last alpha update */
	u64 rate_at;		/* last rate-timer event */
	u32 alpha;		/* 2^-20 units */
	u32 t;			/* rate-timer events since the last CNP */
	u32 bc;			/* byte-counter events since the last CNP */
	u32 pad;
};

static __always_inline u64 dcqcn_line(const struct tonic_flow_ctx *fl)
{
	return tonic_min(dcqcn_line_rate_bps, fl->rate_max_bps);
}

static __always_inline void dcqcn_cc_init(struct dcqcn *d, struct tonic_flow_ctx *fl)
{
	d->rc = dcqcn_line(fl);
	d->rt = d->rc;
	d->alpha = DCQCN_ONE;		/* DCQCN starts pessimistic */
	d->alpha_at = fl->now;
	d->rate_at = fl->now;
	tonic_set_rate(fl, d->rc);
}

/* A CNP arrived (Figure 7, "Cut rate"). */
static __always_inline void dcqcn_cc_cnp(struct dcqcn *d, struct tonic_flow_ctx *fl)
{
	u64 floor = tonic_max(dcqcn_min_rate_bps, fl->rate_min_bps);

	d->rt = d->rc;
	/* RC = RC * (1 - alpha / 2); RC < 2^41, alpha <= 2^20: no overflow */
	d->rc -= (d->rc * d->alpha) >> 21;
	if (d->rc < floor)
		d->rc = floor;
	/* alpha = (1 - g) * alpha + g */
	d->alpha = d->alpha - (d->alpha >> dcqcn_g_shift) +
		   (DCQCN_ONE >> dcqcn_g_shift);
	d->t = 0;
	d->bc = 0;
	d->bytes = 0;
	d->alpha_at = fl->now;
	d->rate_at = fl->now;
	tonic_set_rate(fl, d->rc);
}

/* One rate-increase event (timer or byte counter). */
static __always_inline void dcqcn_cc_increase(struct dcqcn *d, struct tonic_flow_ctx *fl)
{
	u32 hi = tonic_max(d->t, d->bc), lo = tonic_min(d->t, d->bc);

	if (lo > dcqcn_f)
		d->rt += (u64)(lo - dcqcn_f) * dcqcn_rhai_bps;	/* hyper */
	else if (hi >= dcqcn_f)
		d->rt += dcqcn_rai_bps;				/* additive */
	if (d->rt > dcqcn_line(fl))
		d->rt = dcqcn_line(fl);
	d->rc = (d->rt + d->rc) / 2;
	tonic_set_rate(fl, d->rc);
}

/* Bytes acked by this event feed the byte counter. */
static __always_inline void dcqcn_cc_acked(struct dcqcn *d, struct tonic_flow_ctx *fl)
{
	d->bytes += (u64)fl->newly_acked * fl->seg_size;
	if (dcqcn_byte_counter && d->bytes >= dcqcn_byte_counter) {
		d->bytes = 0;
		d->bc++;
		dcqcn_cc_increase(d, fl);
	}
}

/* Timers, from the periodic hook. */
static __always_inline void dcqcn_cc_tick(struct dcqcn *d, struct tonic_flow_ctx *fl)
{
	if (fl->now - d->alpha_at >= dcqcn_alpha_timer_ns) {
		d->alpha -= d->alpha >> dcqcn_g_shift;	/* (1 - g) * alpha */
		d->alpha_at = fl->now;
	}
	if (fl->now - d->rate_at >= dcqcn_rate_timer_ns) {
		d->rate_at = fl->now;
		d->t++;
		dcqcn_cc_increase(d, fl);
	}
}

#endif /* _TONIC_DCQCN_H */
