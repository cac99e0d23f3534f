// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: links and switch output queues.
 *
 * A port serialises one packet at a time at its line rate and the packet
 * reaches the peer after the propagation delay.  Switch ports queue up to
 * their buffer size in bytes (tail drop), mark ECN CE on enqueue (RED
 * style: kmin, kmax, pmax) and may lose packets at random.  With PFC on, a
 * switch pauses the upstream port of an ingress once the bytes it has
 * queued from that ingress pass xoff, and resumes it below xon; pause
 * frames take the link's propagation delay and the buffer is unlimited
 * (the headroom), so the fabric is lossless.
 */
#include "sim.h"

u64 sim_ser_ns(struct sim_port *pt, u32 bytes)
{
	u64 num = (u64)bytes * 8 * 1000000000ULL + pt->rem;
	u64 ns = num / pt->rate_bps;

	pt->rem = num % pt->rate_bps;
	return ns;
}

void sim_drop(struct sim *s, struct sim_pkt *p)
{
	if (p->kind == SIM_PKT_DATA) {
		s->tot.data_drop_bytes += p->len;
		s->tot.data_live_bytes -= p->len;
	} else {
		s->tot.ctrl_dropped++;
		s->tot.ctrl_live--;
	}
	sim_pkt_free(s, p);
}

static struct sim_port *upstream(struct sim_node *n, u16 in_port)
{
	struct sim_port *in = &n->ports[in_port];

	return &in->peer->ports[in->peer_port];
}

/* Put @p on the wire now. */
static void port_xmit(struct sim *s, struct sim_port *pt, struct sim_pkt *p)
{
	u64 ser = sim_ser_ns(pt, p->wire);

	pt->busy = true;
	pt->tx_pkts++;
	pt->tx_bytes += p->wire;
	sim_at(s, s->now + ser, SIM_EV_TXDONE, pt, 0, 0);
	if (sim_rng_ppm(&s->rng, pt->loss_ppm)) {
		pt->drops++;
		pt->drop_bytes += p->wire;
		sim_drop(s, p);
		return;
	}
	if (pt->jitter_ns && p->kind == SIM_PKT_DATA)
		ser += sim_rng_below(&s->rng, pt->jitter_ns);
	sim_at(s, s->now + ser + pt->delay_ns, SIM_EV_ARRIVE, p,
	       pt->peer->id, pt->peer_port);
}

static void port_dequeue(struct sim *s, struct sim_port *pt)
{
	struct sim_node *n = pt->node;
	struct sim_pkt *p = pt->qhead;

	if (pt->busy || pt->paused || !p)
		return;
	pt->qhead = p->next;
	if (!pt->qhead)
		pt->qtail = NULL;
	pt->qbytes -= p->wire;
	if (n->ing_bytes) {
		n->ing_bytes[p->in_port] -= p->wire;
		if (n->pause_sent[p->in_port] &&
		    n->ing_bytes[p->in_port] <= s->cfg.pfc_xon) {
			struct sim_port *up = upstream(n, p->in_port);

			n->pause_sent[p->in_port] = false;
			sim_at(s, s->now + up->delay_ns, SIM_EV_PAUSE, up, 0, 0);
		}
	}
	port_xmit(s, pt, p);
}

static bool ecn_mark(struct sim *s, struct sim_port *pt)
{
	u64 q = pt->qbytes;
	u64 ppm;

	if (!pt->kmin || q <= pt->kmin)
		return false;
	if (q >= pt->kmax)
		return true;
	ppm = (u64)pt->pmax_ppm * (q - pt->kmin) / (pt->kmax - pt->kmin);
	return sim_rng_ppm(&s->rng, (u32)ppm);
}

/* Queue @p at switch port @pt (or drop it when the buffer is full). */
void sim_port_send(struct sim *s, struct sim_port *pt, struct sim_pkt *p)
{
	struct sim_node *n = pt->node;

	if (pt->buf_bytes && pt->qbytes + p->wire > pt->buf_bytes) {
		pt->drops++;
		pt->drop_bytes += p->wire;
		sim_drop(s, p);
		return;
	}
	if ((p->flags & SIM_PF_ECT) && ecn_mark(s, pt)) {
		p->flags |= SIM_PF_CE;
		pt->marks++;
	}
	p->next = NULL;
	if (pt->qtail)
		pt->qtail->next = p;
	else
		pt->qhead = p;
	pt->qtail = p;
	pt->qbytes += p->wire;
	if (pt->qbytes > pt->max_qbytes)
		pt->max_qbytes = pt->qbytes;
	if (n->ing_bytes) {
		n->ing_bytes[p->in_port] += p->wire;
		if (!n->pause_sent[p->in_port] &&
		    n->ing_bytes[p->in_port] > s->cfg.pfc_xoff) {
			struct sim_port *up = upstream(n, p->in_port);

			n->pause_sent[p->in_port] = true;
			sim_at(s, s->now + up->delay_ns, SIM_EV_PAUSE, up, 1, 0);
		}
	}
	port_dequeue(s, pt);
}

/* A host NIC puts @p on the wire (the caller checked it is idle). */
void sim_host_xmit(struct sim *s, struct sim_port *pt, struct sim_pkt *p)
{
	if (p->kind == SIM_PKT_DATA)
		s->tot.data_live_bytes += p->len;
	else
		s->tot.ctrl_live++;
	port_xmit(s, pt, p);
}

void sim_port_txdone(struct sim *s, struct sim_port *pt)
{
	pt->busy = false;
	if (pt->node->is_host)
		sim_host_kick(s, pt->node->host);
	else
		port_dequeue(s, pt);
}

void sim_port_pause(struct sim *s, struct sim_port *pt, bool on)
{
	pt->paused = on;
	if (on) {
		pt->pauses++;
		return;
	}
	if (pt->node->is_host)
		sim_host_kick(s, pt->node->host);
	else
		port_dequeue(s, pt);
}

static u32 flow_hash(u32 flow, u16 node)
{
	u64 x = ((u64)flow << 16) ^ node;

	return (u32)(sim_splitmix64(&x) >> 32);
}

void sim_switch_rcv(struct sim *s, struct sim_node *n, u16 in_port,
		    struct sim_pkt *p)
{
	u32 k = n->route_n[p->dst];
	u16 out;

	if (!k) {
		sim_drop(s, p);
		s->tot.engine_errors++;
		return;
	}
	out = n->route[p->dst][k == 1 ? 0 : flow_hash(p->flow, n->id) % k];
	p->in_port = in_port;
	sim_port_send(s, &n->ports[out], p);
}
