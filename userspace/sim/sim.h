/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic simulator: the discrete-event core shared by all its files.
 *
 * Time is an integer number of nanoseconds.  Events are ordered by (time,
 * insertion sequence), so a run is a pure function of its configuration
 * and seed.  Nodes are hosts (one Tonic engine each, plus tonic.ko's
 * receiver model, kmod/engine/receiver.h) and switches (output-queued,
 * shared nothing, with a byte buffer per port, RED/ECN marking, random
 * loss and an optional PFC-like pause).  No floating point is used by the event core.
 */
#ifndef _SIM_H
#define _SIM_H

#include "engine.h"
#include "receiver.h"
#include "rng.h"

#define SIM_HDR_BYTES	86	/* Ethernet 14+4, preamble+IFG 20, IPv4 20, Tonic 28 */
#define SIM_MAX_ECMP	8

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct sim;
struct sim_node;

enum sim_pkt_kind {
	SIM_PKT_DATA = 1,
	SIM_PKT_CTRL,
};

/* pkt->flags */
#define SIM_PF_ECT	0x01	/* ECN capable */
#define SIM_PF_CE	0x02	/* congestion experienced */
#define SIM_PF_RTX	0x04	/* data: a retransmission */
#define SIM_PF_ACKREQ	0x08	/* data: the sender asks for an ACK now */
#define SIM_PF_ACKFREQ	0x10	/* data: the sender chose an ACK ratio */

/**
 * struct sim_pkt - a packet in flight or queued
 * @next: queue link
 * @flow: global flow id
 * @wire: bytes on the wire (payload + SIM_HDR_BYTES)
 * @seg: data: segment number
 * @len: data: payload bytes
 * @ack: ctrl: the receiver's ACK
 * @ts: data: time sent; ctrl: the echoed send time (0: none)
 * @in_port: ingress port at the current switch (PFC accounting)
 */
struct sim_pkt {
	struct sim_pkt *next;
	u32 flow;
	u16 src;
	u16 dst;
	u8 kind;
	u8 flags;
	u16 in_port;
	u32 wire;
	u32 seg;
	u32 len;
	struct tonic_rcv_ack ack;
	u64 ts;
};

/**
 * struct sim_port - one direction of a link: an output queue and its wire
 * @node: owner
 * @peer: node at the other end
 * @peer_port: its port index there
 * @rate_bps: line rate
 * @delay_ns: propagation delay
 * @rem: serialisation remainder (bits * 1e9 mod rate), so that the
 *	average serialisation time is exact in integer nanoseconds
 * @buf_bytes: buffer (0: unlimited)
 * @kmin, @kmax, @pmax_ppm: RED-style ECN marking on enqueue: no mark below
 *	kmin bytes queued, probability rising linearly to pmax at kmax,
 *	always above kmax (kmin = 0: no marking)
 * @loss_ppm: random loss of packets put on this wire
 * @jitter_ns: data packets take up to this much longer (uniform) to reach
 *	the peer; it breaks the phase locking of identical periodic senders
 *	at a full drop-tail queue (Floyd and Jacobson, "On traffic phase
 *	effects in packet-switched gateways", 1992); keep it below a data
 *	packet's serialisation time so data is never reordered
 * @busy: serialising a packet
 * @paused: the peer sent PFC pause
 */
struct sim_port {
	struct sim_node *node;
	struct sim_node *peer;
	u16 idx;
	u16 peer_port;
	u64 rate_bps;
	u64 delay_ns;
	u64 rem;
	struct sim_pkt *qhead;
	struct sim_pkt *qtail;
	u64 qbytes;
	u64 buf_bytes;
	u64 kmin;
	u64 kmax;
	u32 pmax_ppm;
	u32 loss_ppm;
	u32 jitter_ns;
	bool busy;
	bool paused;
	/* statistics */
	u64 tx_pkts;
	u64 tx_bytes;
	u64 drops;
	u64 drop_bytes;
	u64 marks;
	u64 max_qbytes;
	u64 pauses;
};

struct sim_host;

/**
 * struct sim_node - a host or a switch
 * @route: switch: for each destination host, @route_n[h] candidate output
 *	ports, one chosen per flow by hash (ECMP)
 * @ing_bytes: switch with PFC: bytes queued per ingress port
 * @pause_sent: switch with PFC: ingress port is paused
 */
struct sim_node {
	u16 id;
	u16 nports;
	bool is_host;
	struct sim_port *ports;
	struct sim_host *host;
	u8 *route_n;
	u16 (*route)[SIM_MAX_ECMP];
	u64 *ing_bytes;
	bool *pause_sent;
};

/**
 * struct sim_proto - a protocol as the simulator runs it
 * @name: name
 * @ops: the engine's protocol table (NULL: the built-in NewReno)
 * @rcv: receiver settings for its flows (signals: the protocol's)
 * @delack_ns: delayed-ACK timeout of its receivers
 */
struct sim_proto {
	const char *name;
	const struct tonic_proto_ops *ops;
	struct tonic_rcv_cfg rcv;
	u64 delack_ns;
};

/**
 * struct sim_flow - one transfer between two hosts
 * @params: engine parameters (flow_id = @id)
 * @size: bytes (0: unbounded, sent until the end of the run)
 * @nsegs: segments (size / C rounded up); unbounded: 2^30
 * @start_ns: when it starts
 * @rcv_drop_ppm: receiver-side random drops of its data packets
 * @rcv: receiver state
 * @fct_ns: completion time (last byte delivered), 0 until then
 */
struct sim_flow {
	u32 id;
	u16 src;
	u16 dst;
	const struct sim_proto *proto;
	struct tonic_flow_params params;
	u64 size;
	u32 nsegs;
	u32 last_len;
	u64 start_ns;
	u32 rcv_drop_ppm;
	bool started;
	bool sender_done;
	bool done;
	u64 fct_ns;
	u64 delack_gen;
	bool delack_armed;
	struct tonic_rcv rcv;
	/* statistics */
	u64 segs_sent;
	u64 bytes_sent;
	u64 rtx_segs;
	u64 rtx_bytes;
	u64 bytes_delivered;
	u64 rcv_dropped;
	u64 mark_bytes;		/* bytes delivered by the end of the warm-up */
};

/**
 * struct sim_host - a host: a NIC port, an engine, its flows' receivers
 * @ctrl_head, @ctrl_tail: control packets waiting for the NIC (served
 *	before data, unbounded)
 * @timer_at: when the engine timer event is set for (U64_MAX: none)
 * @timer_gen: generation of the live timer event
 */
struct sim_host {
	struct sim_node *node;
	struct tonic_engine *eng;
	struct sim_pkt *ctrl_head;
	struct sim_pkt *ctrl_tail;
	u64 timer_at;
	u64 timer_gen;
	u64 flows_active;
};

enum sim_ev_type {
	SIM_EV_ARRIVE = 1,	/* p = pkt at node a, port b */
	SIM_EV_TXDONE,		/* p = port */
	SIM_EV_TIMER,		/* p = host, a = generation */
	SIM_EV_START,		/* p = flow */
	SIM_EV_DELACK,		/* p = flow, a = generation */
	SIM_EV_PAUSE,		/* p = port, a = 1 pause / 0 resume */
	SIM_EV_CALL,		/* p = struct sim_call */
};

struct sim_ev {
	u64 t;
	u64 seq;
	void *p;
	u64 a;
	u32 type;
	u32 b;
};

struct sim_evq {
	struct sim_ev *h;
	u32 n;
	u32 cap;
	u64 seq;
};

/* A callback event (sampling, workload arrivals). */
struct sim_call {
	void (*fn)(struct sim *s, struct sim_call *c);
	void *ctx;
};

/**
 * struct sim_cfg - fabric-wide settings
 * @seed: PRNG seed
 * @pfc: enable PFC-like pause in switches
 * @pfc_xoff: pause an ingress port above this many bytes queued from it
 * @pfc_xon: resume below this
 */
struct sim_cfg {
	u64 seed;
	bool pfc;
	u64 pfc_xoff;
	u64 pfc_xon;
};

struct sim_totals {
	u64 data_sent_bytes;	/* payload bytes put on host NICs */
	u64 data_drop_bytes;	/* payload dropped in queues or on wires */
	u64 data_rcvdrop_bytes;	/* payload dropped at receivers on purpose */
	u64 data_arrived_bytes;	/* payload reaching receivers */
	u64 data_live_bytes;	/* payload in queues and on wires now */
	u64 data_arrived_segs;	/* data packets reaching receivers (not dropped there) */
	u64 ctrl_sent;
	u64 ctrl_dropped;
	u64 ctrl_arrived;
	u64 ctrl_live;
	u64 events;
	u64 engine_errors;	/* unexpected engine return codes */
};

struct sim {
	struct sim_cfg cfg;
	struct sim_evq q;
	u64 now;
	struct sim_rng rng;
	struct sim_node *nodes;
	u32 nnodes;
	struct sim_host *hosts;
	u32 nhosts;
	struct sim_flow **flows;
	u32 nflows;
	u32 flows_cap;
	u32 flows_done;
	struct sim_pkt *free_pkts;
	struct sim_totals tot;
	void (*on_flow_done)(struct sim *s, struct sim_flow *f);
	void (*on_tx)(struct sim *s, struct sim_flow *f,
		      const struct tonic_seg_desc *d);
	void (*on_timer)(struct sim *s, struct sim_host *h, bool after);
	void *user;
};

/* evq.c */
int sim_evq_init(struct sim_evq *q);
void sim_evq_free(struct sim_evq *q);
void sim_evq_push(struct sim_evq *q, const struct sim_ev *ev);
bool sim_evq_pop(struct sim_evq *q, struct sim_ev *ev);

/* core.c */
int sim_init(struct sim *s, const struct sim_cfg *cfg);
void sim_free(struct sim *s);
void sim_at(struct sim *s, u64 t, u32 type, void *p, u64 a, u32 b);
void sim_call_at(struct sim *s, u64 t, struct sim_call *c);
void sim_run(struct sim *s, u64 t_end);
struct sim_pkt *sim_pkt_alloc(struct sim *s);
void sim_pkt_free(struct sim *s, struct sim_pkt *p);

/* net.c */
void sim_port_send(struct sim *s, struct sim_port *pt, struct sim_pkt *p);
void sim_port_txdone(struct sim *s, struct sim_port *pt);
void sim_port_pause(struct sim *s, struct sim_port *pt, bool on);
void sim_switch_rcv(struct sim *s, struct sim_node *n, u16 in_port,
		    struct sim_pkt *p);
void sim_drop(struct sim *s, struct sim_pkt *p);
void sim_host_xmit(struct sim *s, struct sim_port *pt, struct sim_pkt *p);
u64 sim_ser_ns(struct sim_port *pt, u32 bytes);

/* topo.c */
struct sim_link {
	u64 rate_bps;
	u64 delay_ns;
	u64 buf_bytes;
	u64 kmin;
	u64 kmax;
	u32 pmax_ppm;
	u32 loss_ppm;
	u32 jitter_ns;
};

int sim_topo_star(struct sim *s, u32 nhosts, const struct sim_link *l);
int sim_topo_leafspine(struct sim *s, u32 leaves, u32 hosts_per_leaf,
		       u32 spines, const struct sim_link *l);

/* host.c */
int sim_hosts_init(struct sim *s);
struct sim_flow *sim_flow_new(struct sim *s, u16 src, u16 dst,
			      const struct sim_proto *proto, u32 seg_size,
			      u64 size, u64 start_ns);
void sim_flow_start(struct sim *s, struct sim_flow *f);
void sim_host_kick(struct sim *s, struct sim_host *h);
void sim_host_timer(struct sim *s, struct sim_host *h, u64 gen);
void sim_host_rcv(struct sim *s, struct sim_host *h, struct sim_pkt *p);
void sim_host_delack(struct sim *s, struct sim_flow *f, u64 gen);

/* check.c */
int sim_check_conservation(const struct sim *s, char *why, size_t len);

#endif /* _SIM_H */
