// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: structural invariants of a run.
 *
 * - Conservation of payload bytes: everything the hosts put on the wire
 *   was dropped (in a queue, on a wire, or on purpose at a receiver),
 *   arrived at its receiver, or is still in a queue or on a wire; the
 *   last term is recounted from the queues and pending events.
 * - Every data packet that reached a receiver was classified exactly
 *   once: delivered in order, held out of order, duplicate, dropped out of
 *   order (go-back-N) or beyond the window; and the application got each
 *   segment exactly once (delivered == rcv_nxt - first segment, never
 *   more than the flow has).
 */
#include "sim.h"

static u64 live_recount(const struct sim *s, u64 *ctrl)
{
	u64 bytes = 0;
	u32 i, j;

	*ctrl = 0;
	for (i = 0; i < s->nnodes; i++) {
		const struct sim_node *n = &s->nodes[i];

		for (j = 0; j < n->nports; j++) {
			const struct sim_pkt *p;

			for (p = n->ports[j].qhead; p; p = p->next) {
				if (p->kind == SIM_PKT_DATA)
					bytes += p->len;
				else
					(*ctrl)++;
			}
		}
	}
	for (i = 0; i < s->q.n; i++) {
		const struct sim_pkt *p = s->q.h[i].p;

		if (s->q.h[i].type != SIM_EV_ARRIVE)
			continue;
		if (p->kind == SIM_PKT_DATA)
			bytes += p->len;
		else
			(*ctrl)++;
	}
	return bytes;
}

int sim_check_conservation(const struct sim *s, char *why, size_t len)
{
	const struct sim_totals *t = &s->tot;
	u64 live, ctrl_live, segs = 0, queued = 0;
	const struct sim_pkt *p;
	u32 i;

	live = live_recount(s, &ctrl_live);
	if (live != t->data_live_bytes || ctrl_live != t->ctrl_live) {
		snprintf(why, len, "live bytes %llu counted, %llu accounted",
			 (unsigned long long)live,
			 (unsigned long long)t->data_live_bytes);
		return -1;
	}
	if (t->data_sent_bytes != t->data_drop_bytes + t->data_rcvdrop_bytes +
				  t->data_arrived_bytes + live) {
		snprintf(why, len, "payload: sent %llu != dropped %llu + %llu + arrived %llu + live %llu",
			 (unsigned long long)t->data_sent_bytes,
			 (unsigned long long)t->data_drop_bytes,
			 (unsigned long long)t->data_rcvdrop_bytes,
			 (unsigned long long)t->data_arrived_bytes,
			 (unsigned long long)live);
		return -1;
	}
	for (i = 0; i < s->nhosts; i++)
		for (p = s->hosts[i].ctrl_head; p; p = p->next)
			queued++;
	if (t->ctrl_sent != t->ctrl_dropped + t->ctrl_arrived + ctrl_live +
			    queued) {
		snprintf(why, len, "control packets not conserved");
		return -1;
	}
	for (i = 0; i < s->nflows; i++) {
		const struct sim_flow *f = s->flows[i];
		const struct tonic_rcv *r = &f->rcv;
		u32 got = r->rcv_nxt - f->params.init_seq;

		if (!f->started)
			continue;
		if (r->delivered != got || got > f->nsegs) {
			snprintf(why, len, "flow %u: delivered %llu segments, rcv_nxt says %u of %u",
				 f->id, (unsigned long long)r->delivered, got,
				 f->nsegs);
			return -1;
		}
		if (f->size && f->bytes_delivered > f->size) {
			snprintf(why, len, "flow %u: delivered %llu > %llu bytes",
				 f->id, (unsigned long long)f->bytes_delivered,
				 (unsigned long long)f->size);
			return -1;
		}
		if (f->done && f->bytes_delivered != f->size) {
			snprintf(why, len, "flow %u: done with %llu of %llu bytes",
				 f->id, (unsigned long long)f->bytes_delivered,
				 (unsigned long long)f->size);
			return -1;
		}
		segs += r->delivered + r->held + r->dups + r->dropped_ooo +
			r->beyond;
	}
	/* a segment delivered from the out-of-order buffer arrived earlier */
	if (segs != t->data_arrived_segs) {
		snprintf(why, len, "segments: %llu arrived, %llu classified",
			 (unsigned long long)t->data_arrived_segs,
			 (unsigned long long)segs);
		return -1;
	}
	return 0;
}
