// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic acceptance checks (accept.h): RFC 5961, the request sock, FIN,
 * the sender's ack clamps, ICMP, DATA lengths.
 */
#include "accept.h"

#define TONIC_ST(s)	(1U << (s))

s32 tonic_seq_slack(u16 window)
{
	return window ? window : TONIC_MAX_WINDOW;
}

bool tonic_seq_plausible(const struct tonic_acc_view *v, u32 seq)
{
	s32 off = seq - v->rcv_nxt;
	s32 k = tonic_seq_slack(v->window);

	return off >= -k && off <= k;
}

enum tonic_acc tonic_acc_synsent(u32 iss, u8 type, u32 ack)
{
	if (ack != iss + 1)
		return TONIC_ACC_DROP;
	if (type == TONIC_PKT_RST)
		return TONIC_ACC_RESET;
	if (type != TONIC_PKT_SYNACK)
		return TONIC_ACC_DROP;
	return TONIC_ACC_OK;
}

enum tonic_acc tonic_acc_req(u32 iss, u32 irs, u8 type, u32 seq, u32 ack)
{
	switch (type) {
	case TONIC_PKT_SYN:
		return seq == irs ? TONIC_ACC_REPLY : TONIC_ACC_IGNORE;
	case TONIC_PKT_RST:
		/* An RST answering our SYN-ACK echoes our ISN + 1 in @ack and
		 * carries the client's next segment number in @seq.
		 */
		return ack == iss + 1 && seq == irs + 1 ? TONIC_ACC_RESET :
							  TONIC_ACC_DROP;
	case TONIC_PKT_SYNACK:
		return TONIC_ACC_IGNORE;
	}
	if (ack != iss + 1 || seq - (irs + 1) > TONIC_MAX_WINDOW)
		return TONIC_ACC_REFUSE;
	return TONIC_ACC_OK;
}

enum tonic_acc tonic_acc_conn(const struct tonic_acc_view *v, u8 type,
			      u32 seq, u32 ack)
{
	u32 slack = tonic_seq_slack(v->window);

	switch (type) {
	case TONIC_PKT_SYN:
		/* The peer may have restarted; let it prove it (its stack
		 * answers the challenge with a reset).
		 */
		return TONIC_ACC_CHALLENGE;
	case TONIC_PKT_SYNACK:
		return seq == (u32)-1 ? TONIC_ACC_REPLY : TONIC_ACC_IGNORE;
	case TONIC_PKT_RST:
		if (seq == v->rcv_nxt)
			return TONIC_ACC_RESET;
		return tonic_seq_plausible(v, seq) ? TONIC_ACC_CHALLENGE :
						     TONIC_ACC_DROP;
	}
	/* The seq must be near ours before anything of the packet counts
	 * (as tcp_validate_incoming() before tcp_ack()).
	 */
	if (!tonic_seq_plausible(v, seq))
		return TONIC_ACC_DROP;
	/* One for what we never sent is dropped, one older than a window
	 * is challenged (as tcp_ack()).
	 */
	if (tonic_seq_before(tonic_acc_snd_nxt(v), ack))
		return TONIC_ACC_DROP;
	if (tonic_seq_before(ack, v->snd_una - min_t(u32, v->snd_una, slack)))
		return TONIC_ACC_STALE;
	return TONIC_ACC_OK;
}

int tonic_acc_rst_err(int state)
{
	switch (state) {
	case TCP_LAST_ACK:
	case TCP_CLOSING:
		return 0;
	case TCP_CLOSE_WAIT:
		return -EPIPE;
	}
	return -ECONNRESET;
}

bool tonic_acc_fin_acked(const struct tonic_acc_view *v, u32 ack)
{
	return v->fin_sent && !v->fin_acked &&
	       tonic_seq_before(v->fin_seg, ack);
}

int tonic_acc_fin_acked_state(int state)
{
	switch (state) {
	case TCP_FIN_WAIT1:
		return TCP_FIN_WAIT2;
	case TCP_CLOSING:
	case TCP_LAST_ACK:
		return TCP_CLOSE;
	}
	return state;
}

bool tonic_acc_data_state(int state)
{
	return TONIC_ST(state) & (TONIC_ST(TCP_ESTABLISHED) |
				  TONIC_ST(TCP_FIN_WAIT1) |
				  TONIC_ST(TCP_FIN_WAIT2) |
				  TONIC_ST(TCP_CLOSE_WAIT) |
				  TONIC_ST(TCP_LAST_ACK) |
				  TONIC_ST(TCP_CLOSING));
}

enum tonic_acc tonic_acc_fin(const struct tonic_acc_view *v, u32 seg)
{
	/* One FIN: rcv_nxt is past it, and nothing follows it. */
	if (v->peer_fin)
		return seg + 1 == v->rcv_nxt ? TONIC_ACC_REPLY : TONIC_ACC_DROP;
	return seg == v->rcv_nxt ? TONIC_ACC_OK : TONIC_ACC_DROP;
}

int tonic_acc_fin_state(int state)
{
	switch (state) {
	case TCP_ESTABLISHED:
		return TCP_CLOSE_WAIT;
	case TCP_FIN_WAIT1:
		return TCP_CLOSING;
	case TCP_FIN_WAIT2:
		return TCP_CLOSE;
	}
	return state;
}

void tonic_acc_ack(const struct tonic_acc_view *v, u32 ack, u32 wnd,
		   struct tonic_acc_ack *out)
{
	u32 cum = ack;

	if (tonic_seq_before(v->snd_ann, cum))
		cum = v->snd_ann;
	out->wnd = tonic_acc_wnd(wnd, v->window);
	out->edge = cum + out->wnd;
	out->update = !tonic_seq_before(cum, v->snd_una) &&
		      !tonic_seq_before(out->edge, v->peer_edge);
	out->old = tonic_seq_before(cum, v->snd_una);
	if (out->old)
		cum = v->snd_una;
	out->cum = cum;
}

bool tonic_acc_sack_ok(const struct tonic_acc_view *v, u32 sack)
{
	return !tonic_seq_before(sack, v->snd_una) &&
	       tonic_seq_before(sack, v->snd_ann);
}

unsigned int tonic_acc_ack_events(const struct tonic_acc_view *v,
				  const struct tonic_acc_ack *a,
				  const struct tonic_ack_pkt *p, u32 flow_id,
				  struct tonic_ctrl_desc *ev)
{
	struct tonic_ctrl_desc *e = ev;
	unsigned int i, n;

	memset(ev, 0, TONIC_ACK_EVENTS * sizeof(*ev));
	if (p->flags & TONIC_F_SACK) {
		e->type = TONIC_CTRL_ACK;
		e->flags = a->old ? 0 : TONIC_CF_CUMACK;
		e->cumack = a->cum;
		if (p->flags & TONIC_F_DUP) {
			/* DSACK: lets a protocol undo a spurious resend */
			e->flags |= TONIC_CF_DUP;
			e->sack = p->sack;
		} else if (tonic_acc_sack_ok(v, p->sack)) {
			e->flags |= TONIC_CF_SACK;
			e->sack = p->sack;
			if (p->rtt_ns) {
				e->flags |= TONIC_CF_RTT;
				e->rtt_ns = p->rtt_ns;
			}
		}
		if ((p->flags & TONIC_F_NACK) && !a->old) {
			e->type = TONIC_CTRL_NACK;
			e->flags |= TONIC_CF_NACK;
			e->nack = a->cum;
		}
		if (p->flags & TONIC_F_ECE)
			e->flags |= TONIC_CF_ECE;
		if (e->flags)
			e++;
	} else if (tonic_seq_before(v->snd_una, a->cum)) {
		e->type = TONIC_CTRL_ACK;
		e->flags = TONIC_CF_CUMACK;
		e->cumack = a->cum;
		e++;
	}
	if (p->flags & TONIC_F_CNP) {
		e->type = TONIC_CTRL_CNP;
		e++;
	}
	if (p->flags & TONIC_F_GRANT) {
		e->type = TONIC_CTRL_GRANT;
		e->flags = TONIC_CF_GRANT;
		e->grant = p->grant;
		e++;
	}
	n = e - ev;
	for (i = 0; i < n; i++)
		ev[i].flow_id = flow_id;
	return n;
}

bool tonic_icmp_seq_ok(const struct tonic_acc_view *v, u32 iss, u32 seq)
{
	u32 rel = seq - (iss + 1);
	u32 hi = v->snd_ann;

	switch (v->state) {
	case TCP_SYN_SENT:
		return seq == iss;
	case TCP_CLOSE:
	case TCP_LISTEN:
		return false;
	}
	if (v->fin_sent && tonic_seq_before(hi, v->fin_seg))
		hi = v->fin_seg;
	return !tonic_seq_before(rel, v->snd_una) &&
	       !tonic_seq_before(hi, rel);
}

bool tonic_len_bad(const struct tonic_rcv_lens *l, const struct tonic_rcv *r,
		   u32 seg_size, u32 seg, u32 len)
{
	u32 known = l->len[seg & (TONIC_LENS - 1)];
	u32 nxt = r->rcv_nxt;

	if (len > seg_size)
		return true;
	if (known >> 16 == tonic_len_tag(seg, 0) >> 16 && known &&
	    (known & 0xffff) != len)
		return true;
	if (tonic_seq_before(seg, nxt))
		return false;
	if (l->short_held && !tonic_seq_before(l->short_seg, nxt) &&
	    tonic_seq_before(l->short_seg, seg))
		return true;
	return len < seg_size && r->held && tonic_seq_before(seg + 1, l->top);
}

void tonic_len_keep(struct tonic_rcv_lens *l, const struct tonic_rcv *r,
		    u32 seg_size, u32 seg, u32 len, bool held)
{
	l->len[seg & (TONIC_LENS - 1)] = tonic_len_tag(seg, len);
	if (!held)
		return;
	if (r->held == 1 || tonic_seq_before(l->top, seg + 1))
		l->top = seg + 1;
	if (len < seg_size) {
		l->short_seg = seg;
		l->short_held = true;
	}
}

/*
 * Is any of the @n segments from @seg above a short one held (the rule of
 * tonic_len_bad() for a full segment at or past rcv_nxt)?  Relative to
 * rcv_nxt the short one is at a in [0, 2^31), and a segment at b is at or
 * past rcv_nxt and above it when a < b < 2^31: does the run's arc of
 * numbers meet that interval?
 */
static bool tonic_len_above_short(const struct tonic_rcv_lens *l,
				  const struct tonic_rcv *r, u32 seg, u32 n)
{
	u32 a = l->short_seg - r->rcv_nxt, b = seg - r->rcv_nxt;
	u32 room = 0x7fffffffU - a;	/* numbers in (a, 2^31) */

	if (!l->short_held || tonic_seq_before(l->short_seg, r->rcv_nxt) ||
	    !room)
		return false;
	return b - (a + 1) < room || (a + 1) - b < n;
}

bool tonic_len_run_bad(const struct tonic_rcv_lens *l,
		       const struct tonic_rcv *r, u32 seg_size, u32 seg, u32 n,
		       u32 last)
{
	u32 slot = seg & (TONIC_LENS - 1), want = tonic_len_tag(seg, seg_size);
	u32 i, known;

	/* A full one is bad if known with another length: the same tag,
	 * another length (known ^ want in [1, 0xffff]).
	 */
	for (i = 0; i + 1 < n; i++) {
		known = l->len[slot];
		if (known && (known ^ want) - 1 < 0xffff)
			return true;
		if (++slot == TONIC_LENS) {
			slot = 0;
			want += 1U << 16;
		}
	}
	if (n > 1 && tonic_len_above_short(l, r, seg, n - 1))
		return true;
	return tonic_len_bad(l, r, seg_size, seg + n - 1, last);
}

void tonic_len_run_keep(struct tonic_rcv_lens *l, u32 seg_size, u32 seg,
			u32 n, u32 last)
{
	u32 i;

	for (i = 0; i + 1 < n; i++, seg++)
		l->len[seg & (TONIC_LENS - 1)] = tonic_len_tag(seg, seg_size);
	l->len[seg & (TONIC_LENS - 1)] = tonic_len_tag(seg, last);
}
