// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: the protocols it can run.
 *
 * NewReno is the engine's built-in default.  The others are the protocol
 * programs of bpf/ compiled natively (TONIC_PROTO() exports them as
 * tonic_prog_NAME); they are referenced weakly, so the simulator builds
 * and runs whatever subset exists and an experiment that needs a missing
 * one says so.  The simulator runs a copy of each table so that an
 * experiment may set the periodic tick (a deployment parameter) to its
 * time scale; the hooks are the programs' own.
 *
 * Every program of bpf/progs.h is there under its name.  Each protocol
 * comes with the receiver behaviour its flows get: TCP-like (window)
 * protocols have delayed ACKs; RDMA-like (rate) ones ack every packet.
 * Which signals an ACK carries (NACK, ECN echo, CNPs at most one per
 * 50 us per flow, grants) is what the protocol asks for, as a Tonic
 * socket negotiates it: the programs' TONIC_PROTO() signals, the
 * built-in's TONIC_NEWRENO_SIGNALS.  IRN and Tonic receivers keep
 * out-of-order segments; "roce" is the dcqcn program (its go-back-N
 * recovery) against a RoCE receiver that drops them.
 */
#include <string.h>
#include "sim.h"
#include "proto.h"

#define W __attribute__((weak))
#define TONIC_PROG(name)						\
	extern const struct tonic_proto_ops tonic_prog_##name W;	\
	extern const u32 tonic_prog_##name##_signals W;
#include "progs.h"
#undef TONIC_PROG

static const u32 newreno_signals = TONIC_NEWRENO_SIGNALS;

/* delack_max: net.tonic.delack_max's default, for ACKFREQ segments */
#define TCP_RCV { .policy = TONIC_RCV_SACK, .delack_segs = 2, \
		  .delack_max = 16, .cnp_interval_ns = SIM_CNP_INTERVAL_NS }
#define RDMA_RCV(pol) { .policy = (pol), .delack_segs = 1, \
			.delack_max = 16, \
			.cnp_interval_ns = SIM_CNP_INTERVAL_NS }

/**
 * struct sim_proto_ent - one protocol the simulator can run
 * @p: what sim_proto_find() returns (@p.ops is NULL until first found)
 * @orig: the program's own table; NULL when it is not built in
 * @signals: the TONIC_SIG_* it asks its receivers for
 * @copy: the table the simulator runs (its periodic tick may be changed)
 * @rcv_by_scheme: the receiver follows the credit scheme of @orig:
 *	window: TCP-like, rate: RDMA-like, grant: NDP's
 */
struct sim_proto_ent {
	struct sim_proto p;
	const struct tonic_proto_ops *orig;
	const u32 *signals;
	struct tonic_proto_ops copy;
	bool rcv_by_scheme;
};

/*
 * Special cases first (the first entry of a name wins): the built-in
 * NewReno, the newreno program under another name, and RoCE.  Then every
 * program of bpf/progs.h under its own name.
 */
#define ENT(prog) .orig = &tonic_prog_##prog, \
		  .signals = &tonic_prog_##prog##_signals
static struct sim_proto_ent protos[] = {
	{ .p = { "newreno", NULL, TCP_RCV, SIM_DELACK_NS },
	  .orig = &tonic_newreno_ops, .signals = &newreno_signals },
	{ .p = { "newreno-prog", NULL, TCP_RCV, SIM_DELACK_NS }, ENT(newreno) },
	{ .p = { "roce", NULL, RDMA_RCV(TONIC_RCV_GBN), 0 }, ENT(dcqcn) },
#define TONIC_PROG(prog) \
	{ .p = { .name = #prog }, ENT(prog), .rcv_by_scheme = true },
#include "progs.h"
#undef TONIC_PROG
};

static struct tonic_rcv_cfg sim_rcv_for(const struct tonic_proto_ops *ops)
{
	static const struct tonic_rcv_cfg tcp = TCP_RCV;
	static const struct tonic_rcv_cfg rdma = RDMA_RCV(TONIC_RCV_SACK);
	static const struct tonic_rcv_cfg grant = {
		.policy = TONIC_RCV_SACK,
	};

	switch (ops->scheme) {
	case TONIC_CREDIT_RATE:
		return rdma;
	case TONIC_CREDIT_GRANT:
		return grant;
	default:
		return tcp;
	}
}

static struct sim_proto_ent *proto_ent(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(protos); i++) {
		struct sim_proto_ent *e = &protos[i];

		if (strcmp(e->p.name, name) || !e->orig)
			continue;
		if (!e->p.ops) {
			e->copy = *e->orig;
			e->p.ops = &e->copy;
			if (e->rcv_by_scheme) {
				e->p.rcv = sim_rcv_for(e->orig);
				if (e->orig->scheme == TONIC_CREDIT_WINDOW)
					e->p.delack_ns = SIM_DELACK_NS;
			}
			e->p.rcv.signals = *e->signals | TONIC_SIG_ACK;
		}
		return e;
	}
	return NULL;
}

const struct sim_proto *sim_proto_find(const char *name)
{
	struct sim_proto_ent *e = proto_ent(name);

	return e ? &e->p : NULL;
}

void sim_proto_set_tick(const char *name, u64 ns)
{
	struct sim_proto_ent *e = proto_ent(name);

	if (e)
		e->copy.periodic_ns = ns;
}

/* Program parameters (TONIC_PARAM globals of the native build). */
extern u64 dcqcn_line_rate_bps W, dcqcn_alpha_timer_ns W;
extern u64 dcqcn_rate_timer_ns W, dcqcn_rto_ns W;
extern u64 irn__dcqcn_line_rate_bps W, irn__dcqcn_alpha_timer_ns W;
extern u64 irn__dcqcn_rate_timer_ns W;
extern u64 irn_rto_low_ns W, irn_rto_high_ns W;
extern u32 irn_bdp_segs W, irn_dcqcn W;

#define SETP(var, v) do { if (&(var)) (var) = (v); } while (0)

void sim_params_dcqcn(u64 line_bps, u64 timer_ns, u64 rto_ns)
{
	SETP(dcqcn_line_rate_bps, line_bps);
	SETP(dcqcn_alpha_timer_ns, timer_ns);
	SETP(dcqcn_rate_timer_ns, timer_ns);
	SETP(dcqcn_rto_ns, rto_ns);
}

void sim_params_irn(u64 line_bps, u64 rto_low, u64 rto_high, u32 bdp_segs,
		    bool dcqcn, u64 timer_ns)
{
	SETP(irn__dcqcn_line_rate_bps, line_bps);
	SETP(irn__dcqcn_alpha_timer_ns, timer_ns);
	SETP(irn__dcqcn_rate_timer_ns, timer_ns);
	SETP(irn_rto_low_ns, rto_low);
	SETP(irn_rto_high_ns, rto_high);
	SETP(irn_bdp_segs, bdp_segs);
	SETP(irn_dcqcn, dcqcn);
}
