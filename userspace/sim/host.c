// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: hosts.
 *
 * A host runs one engine for the flows it sends and the receiver logic
 * (kmod/engine/receiver.c, as tonic.ko's) for the flows it receives.  Its NIC is pull-based, as a NIC
 * fed by Tonic's DMA pipeline: whenever the wire is free it sends a
 * queued control packet if there is one, otherwise it asks the engine for
 * one segment address and builds the data packet.  Control packets turn
 * into engine control events exactly as the socket layer converts a
 * received Tonic ACK: one ACK or NACK event with the cumulative and
 * selective ack (and the ECN echo and an RTT sample), plus a CNP event
 * and a GRANT event when the ACK carries those flags.
 */
#include "sim.h"

int sim_hosts_init(struct sim *s)
{
	struct tonic_engine_cfg cfg = { .flows_hint = 256 };
	u32 i;

	for (i = 0; i < s->nhosts; i++) {
		s->hosts[i].timer_at = U64_MAX;
		s->hosts[i].eng = tonic_engine_create(&cfg);
		if (!s->hosts[i].eng)
			return -ENOMEM;
	}
	return 0;
}

struct sim_flow *sim_flow_new(struct sim *s, u16 src, u16 dst,
			      const struct sim_proto *proto, u32 seg_size,
			      u64 size, u64 start_ns)
{
	struct sim_flow *f;

	if (s->nflows == s->flows_cap) {
		u32 cap = s->flows_cap ? 2 * s->flows_cap : 256;
		struct sim_flow **n = realloc(s->flows, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->flows = n;
		s->flows_cap = cap;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->id = s->nflows;
	f->src = src;
	f->dst = dst;
	f->proto = proto;
	f->size = size;
	f->nsegs = size ? (u32)((size + seg_size - 1) / seg_size) : 1U << 30;
	f->last_len = size ? (u32)(size % seg_size) : 0;
	f->start_ns = start_ns;
	f->params.flow_id = f->id;
	f->params.seg_size = seg_size;
	f->params.ops = proto->ops;
	s->flows[s->nflows++] = f;
	sim_at(s, start_ns, SIM_EV_START, f, 0, 0);
	return f;
}

static void timer_sync(struct sim *s, struct sim_host *h)
{
	u64 t = tonic_engine_next_timer(h->eng);

	if (t == U64_MAX || t >= h->timer_at)
		return;
	if (t <= s->now)
		t = s->now + 1;	/* due work runs in the next nanosecond */
	h->timer_at = t;
	sim_at(s, t, SIM_EV_TIMER, h, ++h->timer_gen, 0);
}

static void notifications(struct sim *s, struct sim_host *h)
{
	struct tonic_notify_desc nd[16];
	unsigned int n, i;

	while ((n = tonic_engine_poll_notify(h->eng, nd, 16))) {
		for (i = 0; i < n; i++) {
			struct sim_flow *f;

			if (nd[i].flow_id >= s->nflows)
				continue;
			f = s->flows[nd[i].flow_id];
			if (!(nd[i].flags & TONIC_NOTIFY_HEAD) || !f->size ||
			    f->sender_done ||
			    nd[i].head - f->params.init_seq != f->nsegs)
				continue;
			f->sender_done = true;
			h->flows_active--;
			if (tonic_engine_flow_remove(h->eng, f->id))
				s->tot.engine_errors++;
		}
	}
}

void sim_flow_start(struct sim *s, struct sim_flow *f)
{
	struct sim_host *h = &s->hosts[f->src];
	int err;

	f->started = true;
	tonic_rcv_init(&f->rcv, f->params.init_seq);
	err = tonic_engine_flow_add(h->eng, &f->params, s->now);
	if (!err)
		err = tonic_engine_announce(h->eng, f->id,
					    f->params.init_seq + f->nsegs,
					    f->last_len);
	if (err) {
		fprintf(stderr, "sim: flow %u: engine error %d\n", f->id, err);
		s->tot.engine_errors++;
		f->sender_done = true;
		return;
	}
	h->flows_active++;
	sim_host_kick(s, h);
	timer_sync(s, h);
}

static void send_data(struct sim *s, struct sim_host *h,
		      const struct tonic_seg_desc *d)
{
	struct sim_flow *f = s->flows[d->flow_id];
	struct sim_pkt *p = sim_pkt_alloc(s);

	p->kind = SIM_PKT_DATA;
	p->flow = f->id;
	p->src = f->src;
	p->dst = f->dst;
	p->seg = d->seg;
	p->len = d->len;
	p->wire = d->len + SIM_HDR_BYTES;
	p->flags = SIM_PF_ECT | (d->rtx ? SIM_PF_RTX : 0) |
		   (d->flags & TONIC_SEG_ACKREQ ? SIM_PF_ACKREQ : 0) |
		   (d->flags & TONIC_SEG_ACKFREQ ? SIM_PF_ACKFREQ : 0);
	p->ts = s->now;
	f->segs_sent++;
	f->bytes_sent += d->len;
	if (d->rtx) {
		f->rtx_segs++;
		f->rtx_bytes += d->len;
	}
	s->tot.data_sent_bytes += d->len;
	if (s->on_tx)
		s->on_tx(s, f, d);
	sim_host_xmit(s, &h->node->ports[0], p);
}

void sim_host_kick(struct sim *s, struct sim_host *h)
{
	struct sim_port *pt = &h->node->ports[0];
	struct tonic_seg_desc d;

	if (pt->busy || pt->paused)
		return;
	if (h->ctrl_head) {
		struct sim_pkt *p = h->ctrl_head;

		h->ctrl_head = p->next;
		if (!h->ctrl_head)
			h->ctrl_tail = NULL;
		sim_host_xmit(s, pt, p);
		return;
	}
	if (h->flows_active && tonic_engine_tx(h->eng, s->now, &d, 1))
		send_data(s, h, &d);
	timer_sync(s, h);
}

void sim_host_timer(struct sim *s, struct sim_host *h, u64 gen)
{
	if (gen != h->timer_gen)
		return;
	h->timer_at = U64_MAX;
	if (s->on_timer)
		s->on_timer(s, h, false);
	tonic_engine_timers(h->eng, s->now);
	if (s->on_timer)
		s->on_timer(s, h, true);
	notifications(s, h);
	sim_host_kick(s, h);
	timer_sync(s, h);
}

static void send_ack(struct sim *s, struct sim_flow *f,
		     const struct tonic_rcv_ack *ack, u64 echo)
{
	struct sim_host *h = &s->hosts[f->dst];
	struct sim_pkt *p = sim_pkt_alloc(s);

	p->kind = SIM_PKT_CTRL;
	p->flow = f->id;
	p->src = f->dst;
	p->dst = f->src;
	p->wire = SIM_HDR_BYTES;
	p->ack = *ack;
	p->ts = echo;
	s->tot.ctrl_sent++;
	if (h->ctrl_tail)
		h->ctrl_tail->next = p;
	else
		h->ctrl_head = p;
	h->ctrl_tail = p;
	f->delack_armed = false;
	f->delack_gen++;
	sim_host_kick(s, h);
}

static u64 delivered_bytes(const struct sim_flow *f, u32 newly)
{
	u64 b = (u64)newly * f->params.seg_size;

	if (f->last_len && f->rcv.rcv_nxt - f->params.init_seq == f->nsegs)
		b -= f->params.seg_size - f->last_len;
	return b;
}

static void rcv_data(struct sim *s, struct sim_flow *f, struct sim_pkt *p)
{
	struct tonic_rcv_cfg cfg = f->proto->rcv;
	struct tonic_rcv_seg in = {
		.seg = p->seg, .len = p->len, .ce = p->flags & SIM_PF_CE,
		.ackreq = p->flags & SIM_PF_ACKREQ,
		.ackfreq = p->flags & SIM_PF_ACKFREQ,
	};
	struct tonic_rcv_ack ack;
	unsigned int what;
	u32 newly;

	if (f->rcv_drop_ppm && sim_rng_ppm(&s->rng, f->rcv_drop_ppm)) {
		f->rcv_dropped++;
		s->tot.data_rcvdrop_bytes += p->len;
		return;
	}
	s->tot.data_arrived_bytes += p->len;
	s->tot.data_arrived_segs++;
	cfg.seg_size = f->params.seg_size;
	what = tonic_rcv_data(&f->rcv, &cfg, &in, s->now, &ack, &newly);
	if (newly) {
		f->bytes_delivered += delivered_bytes(f, newly);
		if (f->size && !f->done &&
		    f->rcv.rcv_nxt - f->params.init_seq == f->nsegs) {
			f->done = true;
			f->fct_ns = s->now - f->start_ns;
			s->flows_done++;
			if (s->on_flow_done)
				s->on_flow_done(s, f);
		}
	}
	if (what & TONIC_RCV_SEND_ACK)
		send_ack(s, f, &ack, (p->flags & SIM_PF_RTX) ? 0 : p->ts);
	else if ((what & TONIC_RCV_ARM_DELACK) && !f->delack_armed) {
		f->delack_armed = true;
		sim_at(s, s->now + f->proto->delack_ns, SIM_EV_DELACK, f,
		       ++f->delack_gen, 0);
	}
}

void sim_host_delack(struct sim *s, struct sim_flow *f, u64 gen)
{
	struct tonic_rcv_ack ack;

	if (!f->delack_armed || gen != f->delack_gen)
		return;
	f->delack_armed = false;
	if (tonic_rcv_delack(&f->rcv, &ack))
		send_ack(s, f, &ack, 0);
}

static void rcv_ctrl(struct sim *s, struct sim_host *h, struct sim_flow *f,
		     const struct sim_pkt *p)
{
	struct tonic_ctrl_desc ev[3];
	unsigned int n = 1;
	u32 fl = p->ack.flags;

	memset(ev, 0, sizeof(ev));
	ev[0].flow_id = f->id;
	ev[0].type = (fl & TONIC_RF_NACK) ? TONIC_CTRL_NACK : TONIC_CTRL_ACK;
	ev[0].flags = TONIC_CF_CUMACK;
	ev[0].cumack = p->ack.cumack;
	if (fl & TONIC_RF_SACK) {
		ev[0].flags |= TONIC_CF_SACK;
		ev[0].sack = p->ack.sack;
	}
	if (fl & TONIC_RF_NACK) {
		ev[0].flags |= TONIC_CF_NACK;
		ev[0].nack = p->ack.cumack;
	}
	if (fl & TONIC_RF_ECE)
		ev[0].flags |= TONIC_CF_ECE;
	if (p->ts) {
		ev[0].flags |= TONIC_CF_RTT;
		ev[0].rtt_ns = s->now - p->ts;
	}
	if (fl & TONIC_RF_CNP) {
		ev[n].flow_id = f->id;
		ev[n++].type = TONIC_CTRL_CNP;
	}
	if (fl & TONIC_RF_GRANT) {
		ev[n].flow_id = f->id;
		ev[n].type = TONIC_CTRL_GRANT;
		ev[n].flags = TONIC_CF_GRANT;
		ev[n++].grant = p->ack.grant;
	}
	tonic_engine_ctrl(h->eng, ev, n, s->now);
	notifications(s, h);
	sim_host_kick(s, h);
	timer_sync(s, h);
}

void sim_host_rcv(struct sim *s, struct sim_host *h, struct sim_pkt *p)
{
	struct sim_flow *f = p->flow < s->nflows ? s->flows[p->flow] : NULL;

	if (!f) {
		s->tot.engine_errors++;
	} else if (p->kind == SIM_PKT_DATA) {
		rcv_data(s, f, p);
	} else {
		s->tot.ctrl_arrived++;
		if (f->started && !f->sender_done)
			rcv_ctrl(s, h, f, p);
	}
	sim_pkt_free(s, p);
}
