// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: topologies.  Hosts are nodes 0..nhosts-1 with one port
 * each; switches follow.
 *
 * - star: every host on one switch; with senders and one receiver this is
 *   the single-bottleneck (dumbbell) topology: the switch port towards the
 *   receiver is the bottleneck.
 * - leaf-spine: two tiers, every leaf connected to every spine, flows
 *   spread over the spines by a per-flow hash (ECMP).  With as many spines
 *   as hosts per leaf it has full bisection bandwidth (a small fat tree).
 */
#include "sim.h"

static int nodes_alloc(struct sim *s, u32 nhosts, u32 nswitches)
{
	u32 i;

	s->nnodes = nhosts + nswitches;
	s->nhosts = nhosts;
	s->nodes = calloc(s->nnodes, sizeof(*s->nodes));
	s->hosts = calloc(nhosts, sizeof(*s->hosts));
	if (!s->nodes || !s->hosts)
		return -ENOMEM;
	for (i = 0; i < s->nnodes; i++) {
		s->nodes[i].id = (u16)i;
		s->nodes[i].is_host = i < nhosts;
	}
	for (i = 0; i < nhosts; i++) {
		s->nodes[i].host = &s->hosts[i];
		s->hosts[i].node = &s->nodes[i];
	}
	return 0;
}

static int node_ports(struct sim *s, struct sim_node *n, u16 nports)
{
	u16 i;

	n->nports = nports;
	n->ports = calloc(nports, sizeof(*n->ports));
	if (!n->ports)
		return -ENOMEM;
	for (i = 0; i < nports; i++) {
		n->ports[i].node = n;
		n->ports[i].idx = i;
	}
	if (n->is_host)
		return 0;
	n->route_n = calloc(s->nhosts, sizeof(*n->route_n));
	n->route = calloc(s->nhosts, sizeof(*n->route));
	if (!n->route_n || !n->route)
		return -ENOMEM;
	if (s->cfg.pfc) {
		n->ing_bytes = calloc(nports, sizeof(*n->ing_bytes));
		n->pause_sent = calloc(nports, sizeof(*n->pause_sent));
		if (!n->ing_bytes || !n->pause_sent)
			return -ENOMEM;
	}
	return 0;
}

static void port_set(struct sim *s, struct sim_port *pt, struct sim_node *peer,
		     u16 peer_port, const struct sim_link *l)
{
	pt->peer = peer;
	pt->peer_port = peer_port;
	pt->rate_bps = l->rate_bps;
	pt->delay_ns = l->delay_ns;
	pt->buf_bytes = s->cfg.pfc ? 0 : l->buf_bytes;
	pt->kmin = l->kmin;
	pt->kmax = l->kmax;
	pt->pmax_ppm = l->pmax_ppm;
	pt->loss_ppm = l->loss_ppm;
	pt->jitter_ns = l->jitter_ns;
}

static void link(struct sim *s, struct sim_node *a, u16 pa, struct sim_node *b,
		 u16 pb, const struct sim_link *l)
{
	port_set(s, &a->ports[pa], b, pb, l);
	port_set(s, &b->ports[pb], a, pa, l);
}

static void route_add(struct sim_node *n, u32 dst, u16 port)
{
	if (n->route_n[dst] < SIM_MAX_ECMP)
		n->route[dst][n->route_n[dst]++] = port;
}

int sim_topo_star(struct sim *s, u32 nhosts, const struct sim_link *l)
{
	struct sim_node *sw;
	u32 i;
	int err;

	err = nodes_alloc(s, nhosts, 1);
	if (err)
		return err;
	sw = &s->nodes[nhosts];
	err = node_ports(s, sw, (u16)nhosts);
	for (i = 0; i < nhosts && !err; i++) {
		err = node_ports(s, &s->nodes[i], 1);
		if (err)
			break;
		link(s, &s->nodes[i], 0, sw, (u16)i, l);
		route_add(sw, i, (u16)i);
	}
	return err ? err : sim_hosts_init(s);
}

int sim_topo_leafspine(struct sim *s, u32 leaves, u32 hpl, u32 spines,
		       const struct sim_link *l)
{
	u32 nh = leaves * hpl, i, j;
	int err;

	if (spines > SIM_MAX_ECMP)
		return -EINVAL;
	err = nodes_alloc(s, nh, leaves + spines);
	if (err)
		return err;
	for (i = 0; i < nh && !err; i++)
		err = node_ports(s, &s->nodes[i], 1);
	for (i = 0; i < leaves && !err; i++)
		err = node_ports(s, &s->nodes[nh + i], (u16)(hpl + spines));
	for (i = 0; i < spines && !err; i++)
		err = node_ports(s, &s->nodes[nh + leaves + i], (u16)leaves);
	if (err)
		return err;
	for (i = 0; i < leaves; i++) {
		struct sim_node *leaf = &s->nodes[nh + i];

		for (j = 0; j < hpl; j++)
			link(s, &s->nodes[i * hpl + j], 0, leaf, (u16)j, l);
		for (j = 0; j < spines; j++)
			link(s, leaf, (u16)(hpl + j), &s->nodes[nh + leaves + j],
			     (u16)i, l);
		for (j = 0; j < nh; j++) {
			u32 sp;

			if (j / hpl == i) {
				route_add(leaf, j, (u16)(j % hpl));
				continue;
			}
			for (sp = 0; sp < spines; sp++)
				route_add(leaf, j, (u16)(hpl + sp));
		}
	}
	for (i = 0; i < spines; i++)
		for (j = 0; j < nh; j++)
			route_add(&s->nodes[nh + leaves + i], j, (u16)(j / hpl));
	return sim_hosts_init(s);
}
