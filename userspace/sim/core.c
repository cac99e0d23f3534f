// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: the world, the packet pool and the event loop.
 */
#include "sim.h"

int sim_init(struct sim *s, const struct sim_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	sim_rng_seed(&s->rng, cfg->seed);
	return sim_evq_init(&s->q);
}

static void sim_free_pkts(struct sim_pkt *p)
{
	while (p) {
		struct sim_pkt *n = p->next;

		free(p);
		p = n;
	}
}

void sim_free(struct sim *s)
{
	u32 i, j;

	for (i = 0; i < s->nhosts; i++) {
		tonic_engine_destroy(s->hosts[i].eng);
		sim_free_pkts(s->hosts[i].ctrl_head);
	}
	for (i = 0; i < s->nnodes; i++) {
		struct sim_node *n = &s->nodes[i];

		for (j = 0; j < n->nports; j++)
			sim_free_pkts(n->ports[j].qhead);
		free(n->ports);
		free(n->route_n);
		free(n->route);
		free(n->ing_bytes);
		free(n->pause_sent);
	}
	/* packets on wires sit in ARRIVE events */
	for (i = 0; i < s->q.n; i++)
		if (s->q.h[i].type == SIM_EV_ARRIVE)
			free(s->q.h[i].p);
	for (i = 0; i < s->nflows; i++)
		free(s->flows[i]);
	free(s->flows);
	free(s->nodes);
	free(s->hosts);
	sim_free_pkts(s->free_pkts);
	sim_evq_free(&s->q);
}

struct sim_pkt *sim_pkt_alloc(struct sim *s)
{
	struct sim_pkt *p = s->free_pkts;

	if (p)
		s->free_pkts = p->next;
	else
		p = malloc(sizeof(*p));
	if (!p) {
		fprintf(stderr, "sim: out of memory for packets\n");
		abort();
	}
	memset(p, 0, sizeof(*p));
	return p;
}

void sim_pkt_free(struct sim *s, struct sim_pkt *p)
{
	p->next = s->free_pkts;
	s->free_pkts = p;
}

void sim_at(struct sim *s, u64 t, u32 type, void *p, u64 a, u32 b)
{
	struct sim_ev ev = { .t = t < s->now ? s->now : t, .type = type,
			     .p = p, .a = a, .b = b };

	sim_evq_push(&s->q, &ev);
}

void sim_call_at(struct sim *s, u64 t, struct sim_call *c)
{
	sim_at(s, t, SIM_EV_CALL, c, 0, 0);
}

static void sim_arrive(struct sim *s, struct sim_node *n, u16 port,
		       struct sim_pkt *p)
{
	if (!n->is_host) {
		sim_switch_rcv(s, n, port, p);
		return;
	}
	if (p->kind == SIM_PKT_DATA)
		s->tot.data_live_bytes -= p->len;
	else
		s->tot.ctrl_live--;
	sim_host_rcv(s, n->host, p);
}

/* Run events up to and including time @t_end; the clock ends at @t_end. */
void sim_run(struct sim *s, u64 t_end)
{
	struct sim_ev ev;

	while (s->q.n && s->q.h[0].t <= t_end) {
		sim_evq_pop(&s->q, &ev);
		s->now = ev.t;
		s->tot.events++;
		switch (ev.type) {
		case SIM_EV_ARRIVE:
			sim_arrive(s, &s->nodes[ev.a], (u16)ev.b, ev.p);
			break;
		case SIM_EV_TXDONE:
			sim_port_txdone(s, ev.p);
			break;
		case SIM_EV_TIMER:
			sim_host_timer(s, ev.p, ev.a);
			break;
		case SIM_EV_START:
			sim_flow_start(s, ev.p);
			break;
		case SIM_EV_DELACK:
			sim_host_delack(s, ev.p, ev.a);
			break;
		case SIM_EV_PAUSE:
			sim_port_pause(s, ev.p, ev.a);
			break;
		case SIM_EV_CALL: {
			struct sim_call *c = ev.p;

			c->fn(s, c);
			break;
		}
		}
	}
	if (s->now < t_end)
		s->now = t_end;
}
