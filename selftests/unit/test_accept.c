// SPDX-License-Identifier: GPL-2.0
/*
 * The acceptance checks (kmod/engine/accept.c) and the SYN-cookie
 * arithmetic (kmod/engine/cookie.c), verdict by verdict, with the RFC 5961
 * examples: an RST at rcv_nxt resets, one in the window is challenged,
 * one outside it is dropped; an ack too old is challenged, one too new
 * dropped; the engine events of an ACK; DATA lengths; the request sock; ICMP; FIN; the handshake's
 * arithmetic (kmod/engine/negotiate.c).
 */
#include "unit.h"
#include "accept.h"
#include "cookie.h"
#include "negotiate.h"

/* An established connection: rcv_nxt 100, head 50, tail 60, K 16. */
static struct tonic_acc_view est(void)
{
	return (struct tonic_acc_view){
		.rcv_nxt = 100, .snd_una = 50, .snd_ann = 60,
		.peer_edge = 66, .window = 16, .state = TCP_ESTABLISHED,
	};
}

static void slack_and_plausible(void)
{
	struct tonic_acc_view v = est();

	CHECK_EQ(tonic_seq_slack(0), TONIC_MAX_WINDOW);
	CHECK_EQ(tonic_seq_slack(16), 16);
	CHECK(tonic_seq_plausible(&v, 100));
	CHECK(tonic_seq_plausible(&v, 84));
	CHECK(tonic_seq_plausible(&v, 116));
	CHECK(!tonic_seq_plausible(&v, 83));
	CHECK(!tonic_seq_plausible(&v, 117));
	CHECK(!tonic_seq_plausible(&v, 100 + 0x80000000U));
	/* across the wrap of the numbers */
	v.rcv_nxt = 5;
	CHECK(tonic_seq_plausible(&v, (u32)-11));
	CHECK(!tonic_seq_plausible(&v, (u32)-12));
	/* before the handshake chose K: TONIC_MAX_WINDOW */
	v.window = 0;
	CHECK(tonic_seq_plausible(&v, 5 + TONIC_MAX_WINDOW));
	CHECK(!tonic_seq_plausible(&v, 6 + TONIC_MAX_WINDOW));
}

/* RFC 5961 §3: exact, in the window, outside it. */
static void rst(void)
{
	struct tonic_acc_view v = est();

	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 100, 0), TONIC_ACC_RESET);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 101, 0), TONIC_ACC_CHALLENGE);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 99, 0), TONIC_ACC_CHALLENGE);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 116, 0), TONIC_ACC_CHALLENGE);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 84, 0), TONIC_ACC_CHALLENGE);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 117, 0), TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 83, 0), TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 100 + 0x80000000U, 0),
		 TONIC_ACC_DROP);
	/* the ack of an RST does not matter */
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_RST, 100, 12345), TONIC_ACC_RESET);
	/* what an accepted RST leaves */
	CHECK_EQ(tonic_acc_rst_err(TCP_ESTABLISHED), -ECONNRESET);
	CHECK_EQ(tonic_acc_rst_err(TCP_FIN_WAIT1), -ECONNRESET);
	CHECK_EQ(tonic_acc_rst_err(TCP_FIN_WAIT2), -ECONNRESET);
	CHECK_EQ(tonic_acc_rst_err(TCP_SYN_RECV), -ECONNRESET);
	CHECK_EQ(tonic_acc_rst_err(TCP_CLOSE_WAIT), -EPIPE);
	CHECK_EQ(tonic_acc_rst_err(TCP_LAST_ACK), 0);
	CHECK_EQ(tonic_acc_rst_err(TCP_CLOSING), 0);
}

/* RFC 5961 §4 and §5: SYN, SYN-ACK, the seq and the ack of the rest. */
static void syn_and_ack(void)
{
	struct tonic_acc_view v = est();
	u8 t;

	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_SYN, 100, 55), TONIC_ACC_CHALLENGE);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_SYN, 7, 7), TONIC_ACC_CHALLENGE);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_SYNACK, (u32)-1, 0),
		 TONIC_ACC_REPLY);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_SYNACK, 100, 55), TONIC_ACC_IGNORE);
	for (t = TONIC_PKT_ACK; t <= TONIC_PKT_PROBE; t++) {
		if (t == TONIC_PKT_RST)
			continue;
		/* ack in [snd_una - K, snd_nxt] */
		CHECK_EQ(tonic_acc_conn(&v, t, 100, 60), TONIC_ACC_OK);
		CHECK_EQ(tonic_acc_conn(&v, t, 100, 50), TONIC_ACC_OK);
		CHECK_EQ(tonic_acc_conn(&v, t, 100, 34), TONIC_ACC_OK);
		/* too new: never sent */
		CHECK_EQ(tonic_acc_conn(&v, t, 100, 61), TONIC_ACC_DROP);
		CHECK_EQ(tonic_acc_conn(&v, t, 100, 60 + 0x7fffffffU),
			 TONIC_ACC_DROP);
		/* too old: challenged */
		CHECK_EQ(tonic_acc_conn(&v, t, 100, 33), TONIC_ACC_STALE);
		CHECK_EQ(tonic_acc_conn(&v, t, 100, (u32)(34 - 100000)),
			 TONIC_ACC_STALE);
		/* the seq first: a blind packet is dropped whatever its ack */
		CHECK_EQ(tonic_acc_conn(&v, t, 117, 55), TONIC_ACC_DROP);
		CHECK_EQ(tonic_acc_conn(&v, t, 83, 33), TONIC_ACC_DROP);
		CHECK_EQ(tonic_acc_conn(&v, t, 84, 55), TONIC_ACC_OK);
		CHECK_EQ(tonic_acc_conn(&v, t, 116, 55), TONIC_ACC_OK);
	}
	/* our FIN counts one past the data */
	v.fin_sent = true;
	v.fin_seg = 60;
	CHECK_EQ(tonic_acc_snd_nxt(&v), 61);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_ACK, 100, 61), TONIC_ACC_OK);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_ACK, 100, 62), TONIC_ACC_DROP);
	/* never below our first segment: a young connection's window of
	 * old acks is short
	 */
	v = est();
	v.snd_una = 5;
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_ACK, 100, 0), TONIC_ACC_OK);
	CHECK_EQ(tonic_acc_conn(&v, TONIC_PKT_ACK, 100, (u32)-1),
		 TONIC_ACC_STALE);
}

static void synsent_and_req(void)
{
	const u32 iss = 0xfffffff0, irs = 0x7fffffff;

	CHECK_EQ(tonic_acc_synsent(iss, TONIC_PKT_SYNACK, iss + 1), TONIC_ACC_OK);
	CHECK_EQ(tonic_acc_synsent(iss, TONIC_PKT_RST, iss + 1), TONIC_ACC_RESET);
	CHECK_EQ(tonic_acc_synsent(iss, TONIC_PKT_RST, iss), TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_synsent(iss, TONIC_PKT_SYNACK, iss + 2),
		 TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_synsent(iss, TONIC_PKT_ACK, iss + 1), TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_synsent(iss, TONIC_PKT_SYN, iss + 1), TONIC_ACC_DROP);

	/* a request sock: the SYN again, the RST answering our SYN-ACK */
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_SYN, irs, 0), TONIC_ACC_REPLY);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_SYN, irs + 1, 0),
		 TONIC_ACC_IGNORE);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_RST, irs + 1, iss + 1),
		 TONIC_ACC_RESET);
	/* the seq of an RST is exact too (RFC 5961 §3.2), and so its ack */
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_RST, irs + 2, iss + 1),
		 TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_RST, irs + 1, iss),
		 TONIC_ACC_DROP);
	/* issue 15: the RST's own seq is not our ISN + 1 */
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_RST, iss + 1, irs + 1),
		 TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_SYNACK, irs, iss + 1),
		 TONIC_ACC_IGNORE);
	/* the final ACK (or first DATA, FIN, PROBE) */
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_ACK, irs + 1, iss + 1),
		 TONIC_ACC_OK);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_DATA,
			       irs + 1 + TONIC_MAX_WINDOW, iss + 1), TONIC_ACC_OK);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_DATA,
			       irs + 2 + TONIC_MAX_WINDOW, iss + 1),
		 TONIC_ACC_REFUSE);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_ACK, irs, iss + 1),
		 TONIC_ACC_REFUSE);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_ACK, irs + 1, iss + 2),
		 TONIC_ACC_REFUSE);
	CHECK_EQ(tonic_acc_req(iss, irs, TONIC_PKT_PROBE, irs + 1, iss),
		 TONIC_ACC_REFUSE);
}

static void fin(void)
{
	struct tonic_acc_view v = est();

	CHECK_EQ(tonic_acc_fin(&v, 100), TONIC_ACC_OK);
	CHECK_EQ(tonic_acc_fin(&v, 99), TONIC_ACC_DROP);
	CHECK_EQ(tonic_acc_fin(&v, 101), TONIC_ACC_DROP);
	/* the FIN taken: rcv_nxt is past it, a repeat is acked again */
	v.peer_fin = true;
	v.rcv_nxt = 101;
	CHECK_EQ(tonic_acc_fin(&v, 100), TONIC_ACC_REPLY);
	CHECK_EQ(tonic_acc_fin(&v, 99), TONIC_ACC_DROP);
	/* nothing follows the FIN: one at the new rcv_nxt is no FIN */
	CHECK_EQ(tonic_acc_fin(&v, 101), TONIC_ACC_DROP);

	CHECK_EQ(tonic_acc_fin_state(TCP_ESTABLISHED), TCP_CLOSE_WAIT);
	CHECK_EQ(tonic_acc_fin_state(TCP_FIN_WAIT1), TCP_CLOSING);
	CHECK_EQ(tonic_acc_fin_state(TCP_FIN_WAIT2), TCP_CLOSE);
	CHECK_EQ(tonic_acc_fin_state(TCP_CLOSE_WAIT), TCP_CLOSE_WAIT);
	CHECK_EQ(tonic_acc_fin_state(TCP_LAST_ACK), TCP_LAST_ACK);

	/* our FIN: acknowledged by an ack past it, once */
	v = est();
	CHECK(!tonic_acc_fin_acked(&v, 61));
	v.fin_sent = true;
	v.fin_seg = 60;
	CHECK(!tonic_acc_fin_acked(&v, 60));
	CHECK(tonic_acc_fin_acked(&v, 61));
	v.fin_acked = true;
	CHECK(!tonic_acc_fin_acked(&v, 61));
	CHECK_EQ(tonic_acc_fin_acked_state(TCP_FIN_WAIT1), TCP_FIN_WAIT2);
	CHECK_EQ(tonic_acc_fin_acked_state(TCP_CLOSING), TCP_CLOSE);
	CHECK_EQ(tonic_acc_fin_acked_state(TCP_LAST_ACK), TCP_CLOSE);
	CHECK_EQ(tonic_acc_fin_acked_state(TCP_FIN_WAIT2), TCP_FIN_WAIT2);
	CHECK_EQ(tonic_acc_fin_acked_state(TCP_ESTABLISHED), TCP_ESTABLISHED);

	CHECK(tonic_acc_data_state(TCP_ESTABLISHED));
	CHECK(tonic_acc_data_state(TCP_FIN_WAIT1));
	CHECK(tonic_acc_data_state(TCP_FIN_WAIT2));
	CHECK(tonic_acc_data_state(TCP_CLOSE_WAIT));
	CHECK(tonic_acc_data_state(TCP_LAST_ACK));
	CHECK(tonic_acc_data_state(TCP_CLOSING));
	CHECK(!tonic_acc_data_state(TCP_SYN_RECV));
	CHECK(!tonic_acc_data_state(TCP_SYN_SENT));
	CHECK(!tonic_acc_data_state(TCP_CLOSE));
	CHECK(!tonic_acc_data_state(TCP_LISTEN));
}

/* The sender's clamps: head 10, tail 20, K 16, the peer's edge 26. */
static void ack_clamp(void)
{
	struct tonic_acc_view v = est();
	struct tonic_acc_ack a;

	v.snd_una = 10;
	v.snd_ann = 20;
	v.peer_edge = 26;
	/* past the tail: clamped, and the window counts from there */
	tonic_acc_ack(&v, 25, 8, &a);
	CHECK_EQ(a.cum, 20);
	CHECK_EQ(a.wnd, 8);
	CHECK(a.update);
	CHECK_EQ(a.edge, 28);
	/* never beyond K */
	tonic_acc_ack(&v, 12, 1000, &a);
	CHECK_EQ(a.cum, 12);
	CHECK_EQ(a.wnd, 16);
	CHECK(a.update);
	CHECK_EQ(a.edge, 28);
	/* a window that would shrink the edge moves nothing */
	tonic_acc_ack(&v, 15, 4, &a);
	CHECK_EQ(a.cum, 15);
	CHECK(!a.update);
	tonic_acc_ack(&v, 15, 11, &a);
	CHECK(a.update);
	CHECK_EQ(a.edge, 26);
	CHECK(!a.old);
	/* an old ack: the head, an old window that updates nothing, and
	 * no duplicate of the highest ack
	 */
	tonic_acc_ack(&v, 5, 100, &a);
	CHECK_EQ(a.cum, 10);
	CHECK(!a.update);
	CHECK(a.old);
	tonic_acc_ack(&v, 10, 0, &a);
	CHECK_EQ(a.cum, 10);
	CHECK(!a.update);
	CHECK(!a.old);
	/* across the wrap */
	v.snd_una = (u32)-3;
	v.snd_ann = 2;
	v.peer_edge = 5;
	tonic_acc_ack(&v, 7, 16, &a);
	CHECK_EQ(a.cum, 2);
	CHECK_EQ(a.edge, 18);
	CHECK(a.update);
	tonic_acc_ack(&v, (u32)-5, 16, &a);
	CHECK_EQ(a.cum, (u32)-3);
	CHECK(!a.update);
	CHECK(a.old);

	v = est();
	CHECK(tonic_acc_sack_ok(&v, 50));
	CHECK(tonic_acc_sack_ok(&v, 59));
	CHECK(!tonic_acc_sack_ok(&v, 60));
	CHECK(!tonic_acc_sack_ok(&v, 49));
}

/*
 * Header prediction: head 50, tail 60, K 16, the peer's window 16 at edge
 * 66.  Idle: no flags, the ack at the head, the same (clamped) window at
 * the same edge.  Whatever it calls idle, tonic_acc_ack() leaves as it
 * was and tonic_acc_ack_events() makes no event of.
 */
static void ack_idle(void)
{
	struct tonic_acc_view v = est();
	struct tonic_ctrl_desc ev[TONIC_ACK_EVENTS];
	struct tonic_ack_pkt p = {};
	struct tonic_acc_ack a;
	u32 una, wnd, ack, pw, idle = 0;

	CHECK(tonic_acc_ack_idle(50, 16, 66, 16, 50, 16, 0));
	/* a window beyond K is K: the same */
	CHECK(tonic_acc_ack_idle(50, 16, 66, 16, 50, 1000, 0));
	/* the window changes (and with it the edge) */
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 50, 15, 0));
	CHECK(!tonic_acc_ack_idle(50, 8, 58, 16, 50, 16, 0));
	/* the edge alone changes: a window taken from an older ack */
	CHECK(!tonic_acc_ack_idle(50, 16, 65, 16, 50, 16, 0));
	/* news: the ack moves, or is old */
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 51, 15, 0));
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 49, 17, 0));
	/* any flag is news */
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 50, 16, TONIC_F_SACK));
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 50, 16, TONIC_F_CNP));
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 50, 16, TONIC_F_GRANT));
	CHECK(!tonic_acc_ack_idle(50, 16, 66, 16, 50, 16, TONIC_F_ACKREQ));
	/* a zero window at a standing edge */
	CHECK(tonic_acc_ack_idle(50, 0, 50, 16, 50, 0, 0));
	CHECK(!tonic_acc_ack_idle(50, 0, 50, 16, 50, 1, 0));
	/* across the wrap */
	CHECK(tonic_acc_ack_idle((u32)-3, 16, 13, 16, (u32)-3, 16, 0));
	CHECK(!tonic_acc_ack_idle((u32)-3, 16, 12, 16, (u32)-3, 16, 0));

	/* idle means tonic_acc_ack() and its events change nothing */
	for (una = 48; una <= 52; una++) {
		for (pw = 0; pw <= 16; pw += 4) {
			for (ack = 44; ack <= 62; ack++) {
				for (wnd = 0; wnd <= 20; wnd++) {
					v.snd_una = una;
					v.peer_edge = una + pw;
					if (!tonic_acc_ack_idle(una, pw,
								v.peer_edge,
								v.window, ack,
								wnd, 0))
						continue;
					idle++;
					tonic_acc_ack(&v, ack, wnd, &a);
					CHECK(!a.old);
					CHECK_EQ(a.cum, una);
					CHECK_EQ(a.wnd, pw);
					CHECK(!a.update || a.edge == v.peer_edge);
					CHECK_EQ(tonic_acc_ack_events(&v, &a, &p,
								      3, ev), 0);
				}
			}
		}
	}
	/* una 48..52, window 0..16 by 4: wnd = window (or > K at 16) */
	CHECK_EQ(idle, 5 * 4 + 5 * 5);
}

/* The engine events of ACK packets: head 50, tail 60. */
static void ack_events(void)
{
	struct tonic_acc_view v = est();
	struct tonic_ctrl_desc ev[TONIC_ACK_EVENTS];
	struct tonic_ack_pkt p = {
		.sack = 55, .flags = TONIC_F_SACK, .rtt_ns = 7000,
	};
	struct tonic_acc_ack a;

	/* a SACK: cumulative, selective, with the RTT sample */
	tonic_acc_ack(&v, 52, 16, &a);
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 1);
	CHECK_EQ(ev[0].flow_id, 3);
	CHECK_EQ(ev[0].type, TONIC_CTRL_ACK);
	CHECK_EQ(ev[0].flags, TONIC_CF_CUMACK | TONIC_CF_SACK | TONIC_CF_RTT);
	CHECK_EQ(ev[0].cumack, 52);
	CHECK_EQ(ev[0].sack, 55);
	CHECK_EQ(ev[0].rtt_ns, 7000);
	/* a selective ack outside [head, tail): cumulative only */
	p.sack = 60;
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 1);
	CHECK_EQ(ev[0].flags, TONIC_CF_CUMACK);
	/* a DSACK carries no RTT sample; NACK and ECE ride along */
	p.sack = 51;
	p.flags = TONIC_F_SACK | TONIC_F_DUP | TONIC_F_NACK | TONIC_F_ECE;
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 1);
	CHECK_EQ(ev[0].type, TONIC_CTRL_NACK);
	CHECK_EQ(ev[0].flags, TONIC_CF_CUMACK | TONIC_CF_DUP | TONIC_CF_NACK |
			      TONIC_CF_ECE);
	CHECK_EQ(ev[0].nack, 52);
	/* a late ACK: its SACK counts, it is no duplicate and no NACK */
	tonic_acc_ack(&v, 45, 16, &a);
	CHECK(a.old);
	p.sack = 57;
	p.flags = TONIC_F_SACK | TONIC_F_NACK;
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 1);
	CHECK_EQ(ev[0].type, TONIC_CTRL_ACK);
	CHECK_EQ(ev[0].flags, TONIC_CF_SACK | TONIC_CF_RTT);
	/* ... and with no news, no event at all */
	p.sack = 45;
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 0);
	/* no SACK: an event only if the head moves; CNP and GRANT apart */
	p.flags = TONIC_F_CNP | TONIC_F_GRANT;
	p.grant = 1448;
	tonic_acc_ack(&v, 50, 16, &a);
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 2);
	CHECK_EQ(ev[0].type, TONIC_CTRL_CNP);
	CHECK_EQ(ev[1].type, TONIC_CTRL_GRANT);
	CHECK_EQ(ev[1].grant, 1448);
	CHECK_EQ(ev[1].flow_id, 3);
	tonic_acc_ack(&v, 58, 16, &a);
	CHECK_EQ(tonic_acc_ack_events(&v, &a, &p, 3, ev), 3);
	CHECK_EQ(ev[0].type, TONIC_CTRL_ACK);
	CHECK_EQ(ev[0].flags, TONIC_CF_CUMACK);
	CHECK_EQ(ev[0].cumack, 58);
}

static void icmp(void)
{
	struct tonic_acc_view v = est();
	const u32 iss = 1000;

	/* synchronized: [snd_una, snd_ann], or to our FIN */
	CHECK(tonic_icmp_seq_ok(&v, iss, iss + 1 + 50));
	CHECK(tonic_icmp_seq_ok(&v, iss, iss + 1 + 60));
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss + 1 + 49));
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss + 1 + 61));
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss));
	v.fin_sent = true;
	v.fin_seg = 63;
	CHECK(tonic_icmp_seq_ok(&v, iss, iss + 1 + 63));
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss + 1 + 64));
	v.state = TCP_FIN_WAIT1;
	CHECK(tonic_icmp_seq_ok(&v, iss, iss + 1 + 63));
	/* a handshake: only our SYN */
	v = est();
	v.state = TCP_SYN_SENT;
	CHECK(tonic_icmp_seq_ok(&v, iss, iss));
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss + 1 + 50));
	v.state = TCP_LISTEN;
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss + 1 + 50));
	v.state = TCP_CLOSE;
	CHECK(!tonic_icmp_seq_ok(&v, iss, iss + 1 + 50));
	/* across the wrap */
	v = est();
	v.snd_una = (u32)-2;
	v.snd_ann = 3;
	CHECK(tonic_icmp_seq_ok(&v, 0, (u32)-1));
	CHECK(tonic_icmp_seq_ok(&v, 0, 4));
	CHECK(!tonic_icmp_seq_ok(&v, 0, 5));
	CHECK(!tonic_icmp_seq_ok(&v, 0, (u32)-2));
}

/* DATA lengths with C = 1000. */
static void lengths(void)
{
	static struct tonic_rcv_lens l;
	struct tonic_rcv r = {};
	const u32 c = 1000;

	memset(&l, 0, sizeof(l));
	CHECK(tonic_len_bad(&l, &r, c, 0, c + 1));
	CHECK(!tonic_len_bad(&l, &r, c, 0, c));
	CHECK(!tonic_len_bad(&l, &r, c, 0, 1));
	CHECK(!tonic_len_bad(&l, &r, c, 5, c));
	/* segment 0 delivered, full */
	tonic_len_keep(&l, &r, c, 0, c, false);
	r.rcv_nxt = 1;
	CHECK_EQ(l.len[0], c);
	CHECK(!tonic_len_bad(&l, &r, c, 0, c));
	/* a resend of another length */
	CHECK(tonic_len_bad(&l, &r, c, 0, c - 1));
	/* the slot's next user (256 later) is another segment */
	CHECK(!tonic_len_bad(&l, &r, c, TONIC_LENS, c - 1));
	CHECK_EQ(tonic_len_tag(TONIC_LENS, 7), 1U << 16 | 7);
	/* segment 3 held, full: a short one below it cannot be */
	r.held = 1;
	tonic_len_keep(&l, &r, c, 3, c, true);
	CHECK_EQ(l.top, 4);
	CHECK(!l.short_held);
	CHECK(tonic_len_bad(&l, &r, c, 1, 400));
	CHECK(!tonic_len_bad(&l, &r, c, 1, c));
	/* the last one may be short, past the held ones */
	CHECK(!tonic_len_bad(&l, &r, c, 4, 400));
	/* segment 5 held, short: nothing above it */
	r.held = 2;
	tonic_len_keep(&l, &r, c, 5, 300, true);
	CHECK_EQ(l.top, 6);
	CHECK(l.short_held);
	CHECK_EQ(l.short_seg, 5);
	CHECK(tonic_len_bad(&l, &r, c, 6, c));
	CHECK(tonic_len_bad(&l, &r, c, 5, c));
	CHECK(!tonic_len_bad(&l, &r, c, 5, 300));
	CHECK(!tonic_len_bad(&l, &r, c, 2, c));
	/* once delivered past the short one, later segments are fine */
	r.rcv_nxt = 6;
	r.held = 0;
	CHECK(!tonic_len_bad(&l, &r, c, 6, c));
	CHECK(!tonic_len_bad(&l, &r, c, 7, 10));
	/* an old duplicate: only its length is checked */
	CHECK(!tonic_len_bad(&l, &r, c, 3, c));
	CHECK(tonic_len_bad(&l, &r, c, 3, 10));
	/* a C the header names after a path MTU drop: 64 to the handshake's */
	CHECK_EQ(tonic_len_c(c, 0), c);
	CHECK_EQ(tonic_len_c(c, 700), 700);
	CHECK_EQ(tonic_len_c(c, c), c);
	CHECK_EQ(tonic_len_c(c, c + 1), 0);
	CHECK_EQ(tonic_len_c(c, TONIC_MIN_SEGMENT), TONIC_MIN_SEGMENT);
	CHECK_EQ(tonic_len_c(c, TONIC_MIN_SEGMENT - 1), 0);
	/* full at 700, short below it */
	CHECK(!tonic_len_bad(&l, &r, 700, 8, 700));
	CHECK(tonic_len_bad(&l, &r, 700, 8, 701));
}

/*
 * A random state of the length checks around segment @base, C = @c:
 * anything from no lengths known to a full ring, of this and of older
 * numbers, and rcv_nxt and a held short segment near @base or nearly
 * 2^31 away.
 */
static void lens_state(struct tonic_rcv_lens *l, struct tonic_rcv *r,
		       u32 base, u32 c)
{
	u32 i, x, fill = rnd(TONIC_LENS >> rnd(9));

	memset(l, 0, sizeof(*l));
	memset(r, 0, sizeof(*r));
	for (i = 0; i < fill; i++) {
		x = base + rnd(3 * TONIC_LENS) - TONIC_LENS;
		if (rnd(4) == 0)
			x -= TONIC_LENS * (1 + rnd(3));	/* an older user */
		l->len[x & (TONIC_LENS - 1)] =
			tonic_len_tag(x, rnd(3) ? c : 1 + rnd(c));
	}
	r->rcv_nxt = rnd(8) ? base + rnd(129) - 64 : base + 0x7fffff00U + rnd(512);
	r->held = rnd(3);
	l->top = r->rcv_nxt + rnd(80);
	l->short_held = rnd(2);
	l->short_seg = rnd(8) ? r->rcv_nxt + rnd(100) - 20 :
				r->rcv_nxt + 0x7fffffc0U + rnd(128);
}

/*
 * tonic_len_run_bad() answers as tonic_len_bad() of each segment of the
 * run, and tonic_len_run_keep() leaves what tonic_len_keep() of each
 * (in order) leaves: random states, runs of 1 to 64 segments, full or a
 * short or over-long last one, across the ring's and the numbers' wrap.
 */
static void length_runs(void)
{
	static struct tonic_rcv_lens l, l2;
	u32 it, i, n, c, seg, base, last, bad = 0, good = 0;
	struct tonic_rcv r;
	bool want;

	for (it = 0; it < 200000; it++) {
		c = rnd(2) ? 1448 : 1 + rnd(9000);
		base = rnd(4) ? (u32)rnd64() : (u32)-rnd(200);
		lens_state(&l, &r, base, c);
		seg = base + rnd(161) - 80;
		n = 1 + rnd(64);
		if (rnd(4) == 0) {
			/* across rcv_nxt + 2^31, above a short one held just
			 * below: only full segments can be bad there
			 */
			seg = r.rcv_nxt + 0x80000000U - rnd(n + 1);
			l.short_held = true;
			l.short_seg = r.rcv_nxt + 0x7fffffffU - rnd(n + 2);
		}
		last = rnd(8) ? c : rnd(8) ? 1 + rnd(c) : c + 1;
		want = false;
		for (i = 0; i < n; i++)
			want |= tonic_len_bad(&l, &r, c, seg + i,
					      i + 1 < n ? c : last);
		CHECK_EQ(tonic_len_run_bad(&l, &r, c, seg, n, last), want);
		if (want)
			bad++;
		else
			good++;
		if (it % 16)
			continue;
		l2 = l;
		for (i = 0; i < n; i++)
			tonic_len_keep(&l, &r, c, seg + i,
				       i + 1 < n ? c : last, false);
		tonic_len_run_keep(&l2, c, seg, n, last);
		CHECK(!memcmp(&l, &l2, sizeof(l)));
	}
	tap_diag("%u runs bad, %u good", bad, good);
	CHECK(bad > 20000 && good > 20000);

	/* The fast path's case: nothing known, nothing held. */
	memset(&l, 0, sizeof(l));
	memset(&r, 0, sizeof(r));
	r.rcv_nxt = 10;
	CHECK(!tonic_len_run_bad(&l, &r, 1000, 10, 64, 1000));
	CHECK(!tonic_len_run_bad(&l, &r, 1000, 10, 64, 999));
	CHECK(tonic_len_run_bad(&l, &r, 1000, 10, 64, 1001));
	/* segment 12 came before with another length */
	l.len[12] = tonic_len_tag(12, 999);
	CHECK(tonic_len_run_bad(&l, &r, 1000, 10, 4, 999));
	CHECK(tonic_len_run_bad(&l, &r, 1000, 10, 3, 1000));
	CHECK(!tonic_len_run_bad(&l, &r, 1000, 10, 3, 999));
	CHECK(!tonic_len_run_bad(&l, &r, 1000, 10, 2, 1000));
	CHECK(!tonic_len_run_bad(&l, &r, 1000, 12 + TONIC_LENS, 2, 1000));
	/* a short one held at 20: a full one above it is bad */
	l.len[12] = 0;
	l.short_held = true;
	l.short_seg = 20;
	CHECK(!tonic_len_run_bad(&l, &r, 1000, 10, 11, 300));
	CHECK(tonic_len_run_bad(&l, &r, 1000, 10, 12, 1000));
	CHECK(tonic_len_run_bad(&l, &r, 1000, 21, 2, 1000));
}

static void negotiate(void)
{
	struct tonic_syn_view v = {
		.seg_size = 1400, .window = 100, .signals = 0xffffffff,
	};
	struct tonic_syn_choice c;
	u16 seg = 1400, win = 16;
	u32 sig = TONIC_SIG_ACK;

	/* the listener: the smaller K as a power of two, known signals */
	tonic_syn_choose(&v, 64, TONIC_SIG_ACK | TONIC_SIG_GRANT, 0, &c);
	CHECK_EQ(c.window, 64);
	CHECK_EQ(c.signals, TONIC_SIGNALS_KNOWN);
	CHECK_EQ(c.seg_size, 1400);
	tonic_syn_choose(&v, 48, TONIC_SIG_ACK, 1000, &c);
	CHECK_EQ(c.window, 32);
	CHECK_EQ(c.seg_size, 1000);
	v.signals = TONIC_SIG_NACK | 0x100;
	v.window = 0;
	v.seg_size = 0;
	tonic_syn_choose(&v, 16, TONIC_SIG_ACK, 0, &c);
	CHECK_EQ(c.window, 1);
	CHECK_EQ(c.signals, TONIC_SIG_ACK | TONIC_SIG_NACK);
	CHECK_EQ(c.seg_size, 0);
	v.window = 300;
	tonic_syn_choose(&v, TONIC_MAX_WINDOW, 0, 0, &c);
	CHECK_EQ(c.window, TONIC_MAX_WINDOW);

	/* the client takes it: the smaller C and K, ACK always */
	v = (struct tonic_syn_view){ .seg_size = 1200, .window = 12,
				     .signals = 0x80000002 };
	CHECK_EQ(tonic_syn_accept(&v, &seg, &win, &sig), 0);
	CHECK_EQ(seg, 1200);
	CHECK_EQ(win, 8);
	CHECK_EQ(sig, TONIC_SIG_ACK | TONIC_SIG_NACK);
	/* unusable: nothing changes */
	v.seg_size = TONIC_MIN_SEGMENT - 1;
	CHECK_EQ(tonic_syn_accept(&v, &seg, &win, &sig), -EINVAL);
	v.seg_size = TONIC_MIN_SEGMENT;
	v.window = 0;
	CHECK_EQ(tonic_syn_accept(&v, &seg, &win, &sig), -EINVAL);
	CHECK_EQ(seg, 1200);
	CHECK_EQ(win, 8);
	/* ICMP for a request sock: only its SYN-ACK */
	CHECK(tonic_icmp_req_ok(77, 77));
	CHECK(!tonic_icmp_req_ok(77, 78));
}

static u32 hash(u32 irs, u32 count)
{
	return irs * 0x9e3779b1U ^ count * 0x85ebca6bU;
}

static void cookies(void)
{
	struct tonic_cookie_opts o = {
		.seg_size = 1500, .window = 100, .signals = 0x4000003f,
	}, d;
	u32 data, isn, seg, win, sig, n = 0, bad = 0;

	/* rounded down: C to the table, K to a power of two; unknown
	 * signals dropped, ACK implied
	 */
	data = tonic_cookie_encode(&o);
	CHECK_EQ(o.seg_size, 1444);
	CHECK_EQ(o.window, 64);
	CHECK_EQ(o.signals, TONIC_SIGNALS_KNOWN);
	CHECK_EQ(data, 6 | 6 << 3 | (TONIC_SIGNALS_KNOWN >> 1) << 7);
	isn = tonic_cookie_isn(5, hash(77, 5), data);
	CHECK_EQ(isn >> TONIC_COOKIE_BITS, 5);
	CHECK_EQ(tonic_cookie_decode(isn, hash(77, 5)), (int)data);
	tonic_cookie_opts(data, &d);
	CHECK_EQ(d.seg_size, o.seg_size);
	CHECK_EQ(d.window, o.window);
	CHECK_EQ(d.signals, o.signals);
	/* age: two minutes, across the 3-bit wrap of the minute */
	CHECK_EQ(tonic_cookie_age(isn, 5), 0);
	CHECK_EQ(tonic_cookie_age(isn, 7), 2);
	CHECK_EQ(tonic_cookie_age(isn, 8), -1);
	CHECK_EQ(tonic_cookie_age(isn, 4), -1);
	isn = tonic_cookie_isn(7, 0, data);
	CHECK_EQ(tonic_cookie_age(isn, 9), 2);
	CHECK_EQ(tonic_cookie_age(isn, 8), 1);
	/* not ours: data past 11 bits, or K beyond TONIC_MAX_WINDOW */
	CHECK_EQ(tonic_cookie_decode(1U << TONIC_COOKIE_DATA_BITS, 0), -1);
	CHECK_EQ(tonic_cookie_decode(9 << 3, 0), -1);
	CHECK_EQ(tonic_cookie_decode(8 << 3, 0), 8 << 3);
	/* C at the edges of the table */
	o = (struct tonic_cookie_opts){ TONIC_MIN_SEGMENT, 1, 0 };
	CHECK_EQ(tonic_cookie_encode(&o), 0 | TONIC_SIG_ACK >> 1 << 7);
	CHECK_EQ(o.seg_size, TONIC_MIN_SEGMENT);
	CHECK_EQ(o.window, 1);
	CHECK_EQ(o.signals, TONIC_SIG_ACK);
	o = (struct tonic_cookie_opts){ 65000, TONIC_MAX_WINDOW, 0 };
	tonic_cookie_encode(&o);
	CHECK_EQ(o.seg_size, 8900);
	CHECK_EQ(o.window, TONIC_MAX_WINDOW);
	o = (struct tonic_cookie_opts){ 1023, 255, 0 };
	tonic_cookie_encode(&o);
	CHECK_EQ(o.seg_size, 536);
	CHECK_EQ(o.window, 128);
	/* every choice survives the round trip, rounded never up */
	for (seg = TONIC_MIN_SEGMENT; seg <= 9000; seg += 37) {
		for (win = 1; win <= TONIC_MAX_WINDOW; win += 7) {
			for (sig = 0; sig < 64; sig += 5) {
				u32 h = (u32)rnd64();

				o = (struct tonic_cookie_opts){ seg, win, sig };
				data = tonic_cookie_encode(&o);
				isn = tonic_cookie_isn(seg & 7, h, data);
				tonic_cookie_opts(tonic_cookie_decode(isn, h), &d);
				bad += o.seg_size > seg || o.window > win ||
				       o.window & (o.window - 1) ||
				       d.seg_size != o.seg_size ||
				       d.window != o.window ||
				       d.signals != o.signals ||
				       tonic_cookie_age(isn, seg & 7) != 0;
				n++;
			}
		}
	}
	tap_diag("%u cookies, %u bad", n, bad);
	CHECK_EQ(bad, 0);
}

int main(void)
{
	tap_plan(13);
	TAP_RUN(slack_and_plausible);
	TAP_RUN(rst);
	TAP_RUN(syn_and_ack);
	TAP_RUN(synsent_and_req);
	TAP_RUN(fin);
	TAP_RUN(ack_clamp);
	TAP_RUN(ack_idle);
	TAP_RUN(ack_events);
	TAP_RUN(icmp);
	TAP_RUN(lengths);
	TAP_RUN(length_runs);
	TAP_RUN(cookies);
	TAP_RUN(negotiate);
	return tap_exit();
}
