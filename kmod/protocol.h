/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic for Linux: private declarations shared by the module's files.
 *
 * Top to bottom: MIB counters, per-netns state, the socket, the request
 * socket, the skb control block, the per-family hooks (struct
 * tonic_af_ops), then prototypes grouped by owning file.
 *
 * Locking: all protocol state of a connection (send buffer, receive
 * state, its engine instance and its timer deadlines) is protected by the
 * socket lock: process context holds it with lock_sock(), softirq context
 * with bh_lock_sock() while !sock_owned_by_user().  Packets that arrive
 * while the user owns the socket go to the backlog; a timer that fires
 * then records a bit in tonic_sock.deferred and tonic_release_cb() runs
 * it.  Each socket owns its own engine instance (one flow), so engine
 * calls are serialised by the socket lock and no engine lock is needed.
 */
#ifndef _TONIC_PROTOCOL_H
#define _TONIC_PROTOCOL_H

#include <linux/hrtimer.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/inet_connection_sock.h>
#include <net/inet_hashtables.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/request_sock.h>
#include <net/sock.h>

#include <linux/tonic.h>

#include "wire.h"
#include "receiver.h"
#include "pkt.h"
#include "accept.h"
#include "cookie.h"
#include "negotiate.h"

/*
 * MIB counters, per netns and per CPU (kmod/ctl/mib.h lists them, with what
 * each counts), shown in /proc/net/tonic_stat and over netlink.
 */
enum tonic_mib_field {
	TONIC_MIB_NUM = 0,
#define TONIC_MIB(id, name) TONIC_MIB_##id,
#include "mib.h"
#undef TONIC_MIB
	__TONIC_MIB_MAX
};

struct tonic_mib {
	unsigned long mibs[__TONIC_MIB_MAX];
};

/**
 * struct tonic_net - per network namespace state
 * @net: the namespace this state belongs to
 * @mib: per-CPU counters (enum tonic_mib_field)
 * @ctl_sk4: raw control socket that sends resets for IPv4
 * @ctl_sk6: the same for IPv6
 * @sysctl_hdr: the net.tonic sysctl table of this namespace
 * @segment_size: default C; 0 means path MTU minus headers
 * @window: default K, segments
 * @flush_delay_us: default flush delay T
 * @syn_retries: SYN retransmissions before connect() fails with ETIMEDOUT
 * @fin_retries: FIN/probe retransmissions before the connection is reset
 * @rto_min_ms: first retransmission timeout of SYN, FIN and probes
 * @cnp_interval_us: at most one CNP per connection per interval
 * @wmem_default: initial SO_SNDBUF of new sockets
 * @rmem_default: initial SO_RCVBUF of new sockets
 * @rto_low_us: engine's lowest timeout while at most @rto_low_segs segments
 *	are outstanding (IRN's RTO_low)
 * @rto_low_segs: IRN's N; 0 = @rto_min_ms always
 * @delack_segs: ACK at least every this many in-order full segments
 * @delack_us: longest an ACK for in-order data is held
 * @rto_max_ms: highest retransmission timeout (the backoff's cap)
 * @encap: wire of new connections: TONIC_ENCAP_UDP or TONIC_ENCAP_IP
 * @udp_port: the UDP port P of the UDP wire (both ends use the same)
 * @challenge_ack_limit: challenge ACKs per second (RFC 5961), on average
 * @syncookies: 0 never, 1 when a listener's request queue is full, 2 always
 * @challenge_stamp: the second (jiffies / HZ) @challenge_count is for
 * @challenge_count: challenge ACKs left in that second
 * @gso_segs: most datagrams in one UDP GSO super-packet; 1 = no GSO
 * @delack_max: @delack_segs for a sender that chose an ACK ratio
 * @early_demux: 1 = register the early demux hooks once @edemux_used
 * @udp_lock: serialises opening and closing @udp_sock4 and @udp_sock6
 * @udp_sock4: kernel UDP tunnel socket bound to @udp_bound (or NULL)
 * @udp_sock6: the same for IPv6
 * @udp_bound: the port the tunnel sockets are bound to; 0 = none
 * @udp_failed: the port that last failed to bind (logged once)
 * @edemux_used: a Tonic socket connected or listened here (edemux.c)
 * @edemux_on: the early demux hooks are registered
 * @edemux_ops: those hooks, this namespace's copy: their priv is this
 *	struct, which they then need not look up for each packet
 */
struct tonic_net {
	struct net *net;
	struct tonic_mib __percpu *mib;
	struct sock *ctl_sk4;
	struct sock *ctl_sk6;
	struct ctl_table_header *sysctl_hdr;
	int segment_size;
	int window;
	int flush_delay_us;
	int syn_retries;
	int fin_retries;
	int rto_min_ms;
	int cnp_interval_us;
	int wmem_default;
	int rmem_default;
	int rto_low_us;
	int rto_low_segs;
	int delack_segs;
	int delack_us;
	int rto_max_ms;
	int encap;
	int udp_port;
	int challenge_ack_limit;
	int syncookies;
	u32 challenge_stamp;
	u32 challenge_count;
	int gso_segs;
	int delack_max;
	int early_demux;
	struct mutex udp_lock;
	struct socket *udp_sock4;
	struct socket *udp_sock6;
	int udp_bound;
	int udp_failed;
	bool edemux_used;
	bool edemux_on;
	struct nf_hook_ops edemux_ops[2];
};

/* net.tonic.encap */
#define TONIC_ENCAP_IP		0	/* raw IP, protocol tonic_protocol */
#define TONIC_ENCAP_UDP		1	/* UDP to net.tonic.udp_port */
#define TONIC_UDP_PORT		6253	/* default net.tonic.udp_port */

extern unsigned int tonic_net_id;
extern int tonic_protocol;		/* IP protocol number (module param) */
extern int tonic_default_encap;		/* net.tonic.encap of new namespaces */

static inline struct tonic_net *tonic_pernet(const struct net *net)
{
	return net_generic(net, tonic_net_id);
}

#define TONIC_INC_STATS(net, field)	\
	this_cpu_inc(tonic_pernet(net)->mib->mibs[field])
#define TONIC_ADD_STATS(net, field, n)	\
	this_cpu_add(tonic_pernet(net)->mib->mibs[field], n)

struct tonic_engine;

/* tonic_sock.deferred bits: work a timer could not do while the user held the lock */
enum {
	TONIC_DEFER_TIMER,		/* run tonic_timer_work() from release_cb */
	TONIC_DEFER_ARM,		/* re-arm the timer from release_cb */
	TONIC_DEFER_MTU,		/* run mtu_reduced from release_cb */
};

/* Each socket owns one engine instance holding one flow, with this id. */
#define TONIC_FLOW_ID		0

#define TONIC_RING		TONIC_MAX_WINDOW	/* ring slots, power of 2 */

/* The states in which a connection takes data (TCPF_* bits). */
#define TONIC_DATA_STATES	(TCPF_ESTABLISHED | TCPF_FIN_WAIT1 | \
				 TCPF_FIN_WAIT2 | TCPF_CLOSE_WAIT | \
				 TCPF_LAST_ACK | TCPF_CLOSING)

/**
 * struct tonic_sock - a Tonic connection
 * @icsk: inet connection sock; must be first
 * @iss: our initial sequence number; our segment i travels as iss + 1 + i
 * @irs: the peer's initial sequence number
 * @seg_size: C chosen at the handshake (bytes), 0 before: the longest
 *	segment either end sends, and the one the peer's are cut to unless
 *	their header names a smaller one (tonic_data_c())
 * @snd_seg_size: C of the segments this end cuts from now on: @seg_size,
 *	smaller after a path MTU drop (tonic_mtu_reduced())
 * @mtu_info: the path MTU an ICMP error reported while the user held
 *	the socket (TONIC_DEFER_MTU)
 * @window: K in use (segments)
 * @signals: receiver signals negotiated (TONIC_SIG_*): what both ends'
 *	protocols need, sent by both ends' receivers
 * @user_seg_size: TONIC_SEGMENT_SIZE (0 = path MTU)
 * @udp: the connection's packets travel in UDP (else raw IP)
 * @udp_sport: the UDP source port, a hash of the connection's addresses
 *	and ports (RSS/ECMP entropy)
 * @user_window: TONIC_WINDOW (0 = sysctl)
 * @flush_delay_us: TONIC_FLUSH_DELAY
 * @proto_name: TONIC_PROTOCOL ("" = the namespace default)
 * @proto_used: the protocol resolved at connect/accept ("" before)
 * @proto_ops: its engine ops, resolved with @proto_used (NULL before)
 * @tn: the namespace state (tonic_sk_net())
 * @snd_una: head: first segment not cumulatively acknowledged
 * @snd_ann: tonic-tail: first segment not yet announced to the engine
 * @snd_end: tail: number of segments created (the last may still grow)
 * @subseg_wait: a sub-segment was announced; no new announcements until
 *	head reaches tonic-tail
 * @writing: sendmsg() is copying a write: the short tail is not idle yet,
 *	so the flush delay does not run
 * @nodelay: TCP_NODELAY: a short tail goes at once, as if T were 0
 * @cork: TCP_CORK: a short tail waits for more data (at most
 *	TONIC_CORK_MAX_US), as TCP's
 * @more: the last write had MSG_MORE: as @cork until the next write
 * @keepcnt: TCP_KEEPCNT (0 = net.ipv4.tcp_keepalive_probes)
 * @keepidle: TCP_KEEPIDLE in s (0 = net.ipv4.tcp_keepalive_time)
 * @keepintvl: TCP_KEEPINTVL in s (0 = net.ipv4.tcp_keepalive_intvl)
 * @defer_accept: TCP_DEFER_ACCEPT in s, kept only
 * @keep_probes: keepalive probes sent since the peer was last heard
 * @keep_sent: when the last keepalive probe went
 * @rcv_tstamp: when the peer was last heard (a packet of the connection)
 * @peer_edge: segments below this number fit in the peer's receive window
 * @peer_wnd: receive window the peer advertised last (segments)
 * @segs: announced, unacknowledged segments by number & (TONIC_RING - 1)
 * @ann_skb: the write-queue skb holding segment @snd_ann, the first not
 *	yet announced; NULL if every segment is
 * @hdr_frag: where the Tonic headers of datagrams after a super-packet's
 *	first are written, fresh bytes for every transmission (sock/gso.c)
 * @rcv: the receiver model's state (engine/receiver.h): rcv.rcv_nxt is
 *	the next segment number expected from the peer (relative), rcv.held
 *	the number of entries in @ooo
 * @rcv_adv_edge: rcv_nxt + window last advertised
 * @ooo: out-of-order segments by number & (TONIC_RING - 1)
 * @lens: the length of each segment kept and where a short one is
 *	(engine/accept.h): a resend has the first copy's length, nothing
 *	follows a short segment
 * @rcv_batch: a GRO batch is being taken (tonic_rcv_batch()): the ACK of
 *	plain in-order segments and the reader's wake-up wait for its end
 * @rcv_batch_wake: data was queued for the reader during the batch
 * @fin_seg: segment number of our FIN once it is queued
 * @fin_queued: shutdown(SHUT_WR) or close(): FIN follows the data
 * @fin_sent: the FIN was sent at least once
 * @fin_acked: the peer acknowledged our FIN
 * @peer_fin: the peer's FIN was received in order
 * @retries: retransmissions of the current SYN/FIN/probe
 * @rto_strikes: engine timeouts since the head last advanced; too many
 *	and the peer is declared dead (ETIMEDOUT)
 * @stall_at: when the first of those timeouts fired
 * @rto_ms: current backoff of SYN/FIN/probe retransmission
 * @clamps_seen: program outputs the engine clamped, already counted in
 *	the namespace's TONIC_MIB_PROG_CLAMPED
 * @timer: the per-socket timer (hrtimer, softirq)
 * @timer_ref: the socket holds a reference for its timer (see timer.c)
 * @flush_at: when the partial tail segment becomes a sub-segment (0 = off)
 * @ctl_at: SYN/FIN/probe retransmission deadline (0 = off)
 * @engine_at: next engine timer deadline (0 = off)
 * @linger2_at: orphaned FIN_WAIT2 gives up at this time (0 = off)
 * @delack_at: a delayed ACK is due (0 = none pending)
 * @deferred: TONIC_DEFER_* bits
 * @eng: this connection's engine instance (one flow, id 0); created on
 *	the first send, in process context
 * @sent_at: first-transmission time of announced segments (RTT samples)
 * @rtx_seen: bit per ring slot: the segment was retransmitted (Karn)
 * @srtt_us: smoothed RTT; the handshake's until data is acknowledged
 * @syn_at: when our SYN was sent
 * @cookie_at: listener: when it last answered a SYN with a SYN cookie
 * @rcv_truesize: running estimate of the memory one received segment costs
 * @stats: counters reported by TONIC_INFO
 */
struct tonic_sock {
	struct inet_connection_sock icsk;

	u32 iss;
	u32 irs;
	u16 seg_size;
	u16 window;
	u32 signals;
	u16 snd_seg_size;
	u32 mtu_info;
	int user_seg_size;
	bool udp;
	__be16 udp_sport;
	int user_window;
	int flush_delay_us;
	char proto_name[TONIC_PROTO_NAME_MAX];
	char proto_used[TONIC_PROTO_NAME_MAX];
	const struct tonic_proto_ops *proto_ops;
	struct tonic_net *tn;

	/* send side, segment numbers relative to iss + 1 */
	u32 snd_una;
	u32 snd_ann;
	u32 snd_end;
	bool subseg_wait;
	bool writing;
	bool nodelay;
	bool cork;
	bool more;
	u8 keepcnt;
	u16 keepidle;
	u16 keepintvl;
	int defer_accept;
	u8 keep_probes;
	u64 keep_sent;
	u64 rcv_tstamp;
	u32 peer_edge;
	u32 peer_wnd;
	struct sk_buff *segs[TONIC_RING];
	struct sk_buff *ann_skb;
	struct page_frag hdr_frag;

	/* receive side, segment numbers relative to irs + 1 */
	struct tonic_rcv rcv;
	u32 rcv_adv_edge;
	struct sk_buff *ooo[TONIC_RING];
	struct tonic_rcv_lens lens;
	bool rcv_batch;
	bool rcv_batch_wake;

	/* connection end */
	u32 fin_seg;
	bool fin_queued;
	bool fin_sent;
	bool fin_acked;
	bool peer_fin;
	u8 retries;
	u8 rto_strikes;
	u32 rto_ms;
	u64 stall_at;
	u64 clamps_seen;

	struct hrtimer timer;
	bool timer_ref;
	u64 flush_at;
	u64 ctl_at;
	u64 engine_at;
	u64 linger2_at;
	u64 delack_at;
	unsigned long deferred;

	struct tonic_engine *eng;
	u64 sent_at[TONIC_RING];
	DECLARE_BITMAP(rtx_seen, TONIC_RING);
	u32 srtt_us;
	u64 syn_at;
	u64 cookie_at;
	u32 rcv_truesize;

	struct {
		u64 retransmits;
		u64 timeouts;
		u64 segs_out;
		u64 segs_in;
		u64 bytes_acked;
		u64 bytes_received;
		u64 dup_segs_in;
		u64 ooo_segs_in;
		u64 subsegments;
	} stats;
};

static inline struct tonic_sock *tonic_sk(const struct sock *sk)
{
	return (struct tonic_sock *)sk;
}

/*
 * The namespace state of a socket, without net_generic()'s RCU section:
 * a socket holds its namespace, so the pointer it got at creation stays
 * valid (per-packet paths update several counters).
 */
static inline struct tonic_net *tonic_sk_net(const struct sock *sk)
{
	return tonic_sk(sk)->tn;
}

#define TONIC_SK_INC_STATS(sk, field)	\
	this_cpu_inc(tonic_sk_net(sk)->mib->mibs[field])
#define TONIC_SK_ADD_STATS(sk, field, n)	\
	this_cpu_add(tonic_sk_net(sk)->mib->mibs[field], n)

/**
 * struct tonic_request_sock - a connection in the SYN-ACK phase
 * @ireq: inet request sock; must be first
 * @iss: our initial sequence number
 * @irs: the client's
 * @seg_size: C chosen in the SYN-ACK
 * @window: K chosen
 * @signals: receiver signals chosen: the client's and ours
 * @proto_ops: our protocol (the listener's TONIC_PROTOCOL, resolved)
 * @proto_used: its name
 * @synack_at: when the SYN-ACK was last sent (ns)
 * @udp: the SYN came in UDP: so do the SYN-ACK and the connection
 */
struct tonic_request_sock {
	struct inet_request_sock ireq;
	u32 iss;
	u32 irs;
	u16 seg_size;
	u16 window;
	u32 signals;
	const struct tonic_proto_ops *proto_ops;
	char proto_used[TONIC_PROTO_NAME_MAX];
	u64 synack_at;
	bool udp;
};

static inline struct tonic_request_sock *tonic_rsk(const struct request_sock *req)
{
	return (struct tonic_request_sock *)req;
}

/**
 * struct tonic_skb_cb - per-skb state
 * @header: room for the IP layer's control block
 * @seg: segment number, relative (send buffer and receive queues); in
 *	the send buffer the first of the skb's run of segments
 * @offset: receive queue: bytes already read from this skb
 * @ce: the packet carried ECN CE
 * @udp: received: the packet came in UDP (its header pulled)
 * @batch: received: a batch of DATA datagrams of one connection: the
 *	first's header, then their payloads; TONIC_BATCH_GRO made by GRO
 *	(sock/gro.c), TONIC_BATCH_BACKLOG in the socket's backlog
 *	(tonic_backlog_merge())
 * @nsegs: send buffer: segments in this skb, @seg on (sock/sndbuf.c)
 * @seg_size: send buffer: C of this skb's segments (tonic_mtu_reduced())
 */
struct tonic_skb_cb {
	union {
		struct inet_skb_parm h4;
#if IS_ENABLED(CONFIG_IPV6)
		struct inet6_skb_parm h6;
#endif
	} header;
	u32 seg;
	u32 offset;
	u8 ce;
	u8 udp;
	u8 batch;
	u16 nsegs;
	u16 seg_size;
};

#define TONIC_SKB_CB(skb) ((struct tonic_skb_cb *)&((skb)->cb[0]))

/* C of the segments of send-buffer skb @skb. */
static inline u32 tonic_run_c(const struct sk_buff *skb)
{
	return TONIC_SKB_CB(skb)->seg_size;
}

/**
 * struct tonic_af_ops - what the family-independent core asks of a family
 * @icsk: the family's inet_connection_sock_af_ops (icsk_af_ops of its
 *	sockets); must be first
 * @family: AF_INET or AF_INET6
 * @csum_bad: verify a received packet's checksum (pseudo header
 *	included); true if it is bad
 * @lookup: the socket (or request or timewait sock) a received packet
 *	belongs to; sets *@refcounted as __inet_lookup_skb()
 * @policy_check: the xfrm policy admits a received packet for @sk (NULL:
 *	no socket)
 * @send_reset: answer a received packet with a reset from the control
 *	socket
 * @init_req: fill a new request sock's addresses and interface from the
 *	SYN
 * @init_seq: our initial sequence number for the connection a SYN opens
 * @route_req: the route of a request sock, or NULL
 * @syn_recv_sock: create the child of an accepted request (TCP's hook of
 *	the same name; kept here because its icsk_af_ops signature changed
 *	within 6.12 stable, and only Tonic calls it)
 * @rsk_ops: the request socks of SYNs of this family (an IPv6 listener
 *	takes IPv4 SYNs with IPv4's, as TCP)
 *
 * The request sock's rsk_ops (rtx_syn_ack, send_reset) and @icsk
 * (queue_xmit, send_check) are the family's too.
 * Context: softirq (all but @icsk's socket-option calls).
 */
struct tonic_af_ops {
	struct inet_connection_sock_af_ops icsk;
	int family;
	bool (*csum_bad)(struct sk_buff *skb);
	struct sock *(*lookup)(struct sk_buff *skb, const struct tonichdr *th,
			       bool *refcounted);
	bool (*policy_check)(struct sock *sk, struct sk_buff *skb);
	void (*send_reset)(struct net *net, struct sk_buff *skb);
	void (*init_req)(struct request_sock *req, const struct sock *sk,
			 struct sk_buff *skb);
	u32 (*init_seq)(const struct sk_buff *skb);
	struct dst_entry *(*route_req)(const struct sock *sk,
				       struct request_sock *req);
	struct sock *(*syn_recv_sock)(const struct sock *sk,
				      struct sk_buff *skb,
				      struct request_sock *req,
				      struct dst_entry *dst,
				      struct request_sock *req_unhash,
				      bool *own_req);
	const struct request_sock_ops *rsk_ops;
};

/* The tonic_af_ops of a socket's family. */
static inline const struct tonic_af_ops *tonic_af(const struct sock *sk)
{
	return container_of_const(inet_csk(sk)->icsk_af_ops,
				  struct tonic_af_ops, icsk);
}

static inline u64 tonic_now(void)
{
	return ktime_get_ns();
}

/* sock/hash.c: the listener and established tables */
extern struct inet_hashinfo tonic_hashinfo;
int tonic_hash_init(void);
void tonic_hash_exit(void);
int tonic_hash(struct sock *sk);
void tonic_unhash(struct sock *sk);
bool tonic_ehash_insert(struct sock *sk, struct sock *osk, bool *found_dup);
bool tonic_ehash_nolisten(struct sock *sk, struct sock *osk, bool *found_dup);

/* sock/bind.c: the port table */
int tonic_bind_init(void);
void tonic_bind_exit(void);
int tonic_get_port(struct sock *sk, unsigned short snum);
void tonic_put_port(struct sock *sk);
int tonic_inherit_port(const struct sock *sk, struct sock *child);
int tonic_hash_connect(struct sock *sk);
void tonic_set_saddr(struct sock *sk, const void *saddr, int family);
void tonic_reset_saddr(struct sock *sk);

/* sock/reqsk.c: request socks, their table entries and SYN-ACK timer */
bool tonic_reqsk_hash_add(struct sock *sk, struct request_sock *req);
bool tonic_reqsk_drop(struct sock *sk, struct request_sock *req);
void tonic_reqsk_drop_and_put(struct sock *sk, struct request_sock *req);
struct sock *tonic_complete_hashdance(struct sock *child,
				      struct request_sock *req, bool own_req);

/* sock/isn.c: initial sequence numbers */
u32 tonic_isn4(__be32 saddr, __be32 daddr, __be16 sport, __be16 dport);
u32 tonic_isn6(const struct in6_addr *saddr, const struct in6_addr *daddr,
	       __be16 sport, __be16 dport);

/* sock/socket.c: protocol-independent socket operations */
extern struct percpu_counter tonic_sockets_allocated;
DECLARE_PER_CPU(unsigned int, tonic_orphan_count);
extern atomic_long_t tonic_memory_allocated;
DECLARE_PER_CPU(int, tonic_memory_per_cpu_fw_alloc);
extern unsigned long tonic_memory_pressure;
extern int sysctl_tonic_wmem[3];
extern int sysctl_tonic_rmem[3];
void tonic_enter_memory_pressure(struct sock *sk);
unsigned int tonic_orphans(void);

int tonic_socket_init(void);
void tonic_socket_exit(void);
int tonic_init_sock(struct sock *sk);
void tonic_init_child(struct sock *newsk, const struct request_sock *req);
void tonic_handshake_rtt(struct sock *sk, u64 sent_at);
void tonic_destroy_sock(struct sock *sk);
void tonic_set_state(struct sock *sk, int state);
void tonic_done(struct sock *sk);
void tonic_close(struct sock *sk, long timeout);
int tonic_disconnect(struct sock *sk, int flags);
void tonic_shutdown(struct sock *sk, int how);
int tonic_sendmsg(struct sock *sk, struct msghdr *msg, size_t size);
int tonic_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		  int *addr_len);
int tonic_setsockopt(struct sock *sk, int level, int optname,
		     sockptr_t optval, unsigned int optlen);
int tonic_getsockopt(struct sock *sk, int level, int optname,
		     char __user *optval, int __user *optlen);
int tonic_ioctl(struct sock *sk, int cmd, int *karg);
__poll_t tonic_poll(struct file *file, struct socket *sock, poll_table *wait);
int tonic_inet_listen(struct socket *sock, int backlog);
void tonic_release_cb(struct sock *sk);
void tonic_mtu_reduced(struct sock *sk, struct dst_entry *dst);
void tonic_pmtu_event(struct sock *sk, u32 mtu);
void tonic_write_space(struct sock *sk);
int tonic_connection_established(struct sock *sk);
void tonic_reset(struct sock *sk, int err);
u16 tonic_pick_seg_size(const struct sock *sk, const struct dst_entry *dst,
			int wanted, bool udp);
u16 tonic_default_window(const struct sock *sk);

/* sock/input.c */
int tonic_rcv(struct sock *sk, struct sk_buff *skb);
void tonic_rcv_space(struct sock *sk);
void tonic_purge_ooo(struct sock *sk);

/* sock/handshake.c: negotiation and the passive open, both families */
void tonic_negotiate_syn(struct sock *sk, const struct dst_entry *dst);
int tonic_negotiate_synack(struct sock *sk, const struct tonic_synopt *opt);
struct request_sock *tonic_reqsk_alloc(struct sock *sk, struct sk_buff *skb,
				       const struct tonic_af_ops *af,
				       bool attach);
int tonic_conn_request(struct sock *sk, struct sk_buff *skb,
		       const struct tonic_af_ops *af);
struct sock *tonic_child_clone(const struct sock *sk, struct request_sock *req);
int tonic_child_hash(const struct sock *sk, struct sock *newsk,
		     struct request_sock *req_unhash, bool *own_req);
void tonic_child_abort(struct sock *newsk);
void tonic_reqsk_send_reset(const struct sock *sk, struct sk_buff *skb,
			    enum sk_rst_reason reason);
void tonic_reqsk_send_ack(const struct sock *sk, struct sk_buff *skb,
			  struct request_sock *req);
void tonic_syn_ack_timeout(const struct request_sock *req);
struct sock *tonic_check_req(struct sock *sk, struct sk_buff *skb,
			     struct request_sock *req, bool *stolen);
/**
 * tonic_child_process() - let a new child process the packet that made it
 * @parent: the listener
 * @child: the new socket, bh-locked (unlocked on return)
 * @skb: the packet
 *
 * Return: 0.
 */
int tonic_child_process(struct sock *parent, struct sock *child,
			struct sk_buff *skb);

/* sock/syncookie.c: SYN cookies, both families */
bool tonic_cookie_want(const struct sock *sk);
void tonic_cookie_make(struct sock *sk, struct request_sock *req,
		       const struct sk_buff *skb);
struct sock *tonic_cookie_check(struct sock *sk, struct sk_buff *skb);

/* sock/demux.c: from the IP handler to a socket, both families */
int tonic_demux_sk(struct sk_buff *skb, const struct tonic_af_ops *af,
		   struct sock *sk);

/* Receive a packet from IP, its connection to be looked up. */
static inline int tonic_demux(struct sk_buff *skb,
			      const struct tonic_af_ops *af)
{
	return tonic_demux_sk(skb, af, NULL);
}
int tonic_sk_receive_skb(struct sock *sk, struct sk_buff *skb, bool refcounted);
bool __tonic_pull_hdr(struct sk_buff *skb, unsigned int len);

/**
 * tonic_pull_hdr() - pskb_may_pull() of @len header bytes, cheaper
 * @skb: a received packet
 * @len: bytes from skb->data that must be linear
 *
 * Return: false if @skb is shorter than @len (or out of memory).
 */
static inline bool tonic_pull_hdr(struct sk_buff *skb, unsigned int len)
{
	return likely(skb_headlen(skb) >= len) || __tonic_pull_hdr(skb, len);
}
bool tonic_err_full_sk(struct sock *sk, u32 seq, bool abort);
bool tonic_err_seq_ok(struct sock *sk, u32 seq);
void tonic_err_report(struct sock *sk, int err);

/* sock/output.c */
int tonic_send_syn(struct sock *sk);
void tonic_resend_syn(struct sock *sk);
void tonic_send_ctl(struct sock *sk, int type, u32 seq, u32 sack, u8 flags,
		    u32 grant);
/**
 * struct tonic_run_cursor - where the last segment sent was found in its run
 * @run: the send-buffer skb; NULL for none
 * @pos: the byte of @run where fragment @frag starts
 * @frag: the fragment that held the segment's first byte
 */
struct tonic_run_cursor {
	const struct sk_buff *run;
	u32 pos;
	int frag;
};

/**
 * struct tonic_gso - the data packets of one tonic_tx(), and the UDP GSO
 *	super-packet being built from them
 * @first: the first datagram, its Tonic header in the linear part; sent
 *	alone if no second one joins it, else the super-packet's head
 * @last: the skb of @first's chain (@first or the last member of its
 *	frag_list) that takes the next page fragments
 * @mss: a full datagram, Tonic header + the C of @first's run: the
 *	skb's gso_size (set when @first is)
 * @max_segs: most datagrams in one super-packet; 0 = no GSO
 * @max_len: most bytes of datagrams in one super-packet
 * @segs: datagrams so far
 * @len: their bytes
 * @last_len: bytes of the newest datagram (only a full one may be followed)
 * @cur: where the previous segment's fragments were, for the next one
 * @hdr: the header fields every data packet of the batch shares, filled
 *	by the first (tonic_xmit_seg())
 * @hdr_ready: @hdr is filled
 * @hdr_refs: header fragments written into tonic_sock.hdr_frag whose
 *	page references are still to be taken (tonic_gso_end())
 * @segs_out: data packets sent, counted once for the batch
 * @rtx_out: of them, retransmissions
 */
struct tonic_gso {
	struct sk_buff *first;
	struct sk_buff *last;
	u32 mss;
	u32 max_segs;
	u32 max_len;
	u32 segs;
	u32 len;
	u32 last_len;
	struct tonic_run_cursor cur;
	struct tonichdr hdr;
	bool hdr_ready;
	u32 hdr_refs;
	u32 segs_out;
	u32 rtx_out;
};
/* A data packet's header: template @t, then its own fields. */
static inline void tonic_tmpl_hdr(struct tonichdr *th,
				  const struct tonichdr *t, u8 flags,
				  u32 len, u32 seq)
{
	*th = *t;
	th->flags = flags;
	th->len = htons(len);
	th->seq = htonl(seq);
}

/* A data packet's header from the batch's template. */
static inline void tonic_gso_hdr(struct tonichdr *th, const struct tonic_gso *g,
				 u8 flags, u32 len, u32 seq)
{
	tonic_tmpl_hdr(th, &g->hdr, flags, len, seq);
}

int tonic_transmit(struct sock *sk, struct sk_buff *skb);
int tonic_xmit_seg(struct sock *sk, u32 seg, bool rtx, u8 flags,
		   struct tonic_gso *gso);
u32 tonic_xmit_run(struct sock *sk, u32 seg, u32 n, bool rtx, u8 *flags,
		   struct tonic_gso *gso);


void tonic_gso_begin(struct sock *sk, struct tonic_gso *g);
struct tonichdr *tonic_gso_add(struct sock *sk, struct tonic_gso *g,
			       const struct sk_buff *run, u32 off, u32 len);
u32 tonic_gso_add_run(struct sock *sk, struct tonic_gso *g,
		      const struct sk_buff *run, u32 off, u32 n, u32 seq,
		      const u8 *flags);
struct sk_buff *tonic_seg_skb(struct tonic_run_cursor *cur,
			      const struct sk_buff *run, u32 off, u32 len);
void tonic_gso_end(struct sock *sk, struct tonic_gso *g);
struct sk_buff *tonic_make_synack(const struct sock *sk, struct request_sock *req);
struct sk_buff *tonic_make_reset(struct sock *ctl_sk, struct sk_buff *rxskb);
u32 tonic_recv_window(const struct sock *sk);

/* sock/sndbuf.c: the send buffer and the engine glue */
int tonic_sndbuf_append(struct sock *sk, struct msghdr *msg, size_t size,
			long *timeo);
void tonic_push(struct sock *sk);
void tonic_ack_rcv(struct sock *sk, u32 ack, u32 sack, u8 flags, u32 grant,
		   u32 wnd);
void tonic_sndbuf_purge(struct sock *sk);
bool tonic_all_acked(const struct sock *sk);
int tonic_sndbuf_bytes(const struct sock *sk);
int tonic_flow_start(struct sock *sk);
void tonic_flow_stop(struct sock *sk);
void tonic_flow_timer(struct sock *sk, u64 now);
void __tonic_get_info(struct sock *sk, struct tonic_info *info);

void tonic_protocol_name(struct sock *sk, char *buf);

u64 tonic_keepalive_at(const struct sock *sk);
void tonic_keepalive_timer(struct sock *sk, u64 now);
void tonic_keepalive_rcv(struct sock *sk);

int tonic_tcp_setsockopt(struct sock *sk, int optname, sockptr_t optval,
			 unsigned int optlen);
int tonic_tcp_getsockopt(struct sock *sk, int optname, char __user *optval,
			 int __user *optlen);

void tonic_flow_info(struct sock *sk, struct tonic_info *info);
bool tonic_flush_pending(const struct sock *sk);
bool tonic_probe_needed(const struct sock *sk);
/**
 * tonic_seg_before() - serial-number comparison of segment numbers
 * @a: first
 * @b: second
 *
 * Return: true if @a comes before @b.
 */
static inline bool tonic_seg_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/**
 * tonic_acc_view_of() - what the acceptance checks read of a connection
 * @sk: the connection
 * @v: filled in (engine/accept.h)
 */
static inline void tonic_acc_view_of(const struct sock *sk,
				     struct tonic_acc_view *v)
{
	const struct tonic_sock *tsk = tonic_sk(sk);

	v->rcv_nxt = tsk->rcv.rcv_nxt;
	v->snd_una = tsk->snd_una;
	v->snd_ann = tsk->snd_ann;
	v->fin_seg = tsk->fin_seg;
	v->peer_edge = tsk->peer_edge;
	v->window = tsk->window;
	v->state = sk->sk_state;
	v->fin_sent = tsk->fin_sent;
	v->fin_acked = tsk->fin_acked;
	v->peer_fin = tsk->peer_fin;
}

/* sock/timer.c */
void tonic_timer_init(struct sock *sk);
void tonic_timer_update(struct sock *sk);
void __tonic_timer_update(struct sock *sk);
void tonic_timer_stop(struct sock *sk);
void tonic_timer_work(struct sock *sk);

/* sock/udp.c */
int tonic_udp_net_init(struct net *net);
void tonic_udp_net_exit(struct net *net);
int tonic_udp_deliver(struct sock *usk, struct sk_buff *skb, struct sock *sk);

/* edemux.c */
void __tonic_rx_dst_keep(struct sock *sk, const struct sk_buff *skb);

/**
 * tonic_rx_dst_keep() - keep the input route of a connection's packets
 * @sk: a connection taking data, locked (or owned by the user)
 * @skb: a packet for it that came through routing or early demux
 *
 * Most IPv4 packets come with the kept route, attached by early demux
 * (which checked it), or with none: it was the kept one and dropped for
 * the backlog, or the packet is a batch's datagram.  A kept IPv4 route
 * gone stale since is not attached to the next packet, which is routed
 * to a new one and kept.  An IPv6 route is checked each time: routing
 * can return a stale one as the same object (__tonic_rx_dst_keep()).
 */
static inline void tonic_rx_dst_keep(struct sock *sk,
				     const struct sk_buff *skb)
{
	struct dst_entry *dst = skb_dst(skb);

	if (dst && (dst != rcu_access_pointer(sk->sk_rx_dst) ||
		    skb->protocol == htons(ETH_P_IPV6)))
		__tonic_rx_dst_keep(sk, skb);
}

void tonic_rx_dst_forget(struct sock *sk);
void tonic_edemux_enable(struct net *net);
void tonic_edemux_sync(struct net *net);
void tonic_edemux_net_exit(struct net *net);
struct sock *tonic_edemux_sk(const struct net *net, struct sk_buff *skb,
			     const struct tonichdr *th);
void tonic_udp_choose(struct sock *sk);
void tonic_udp_set_sport(struct sock *sk);
__be16 tonic_udp4_sport(__be32 saddr, __be32 daddr, __be16 sport,
			__be16 dport);
__be16 tonic_udp6_sport(const struct in6_addr *saddr,
			const struct in6_addr *daddr, __be16 sport,
			__be16 dport);
int tonic_udp4_output(struct sock *sk, struct sk_buff *skb, __be32 saddr,
		      __be32 daddr, __be16 sport, u8 tos, bool df);
int tonic_udp4_queue_xmit(struct sock *sk, struct sk_buff *skb,
			  struct flowi *fl);
int tonic_udp6_output(struct sock *sk, struct sk_buff *skb,
		      struct flowi6 *fl6, __be16 sport,
		      struct ipv6_txoptions *opt, int tclass);
int tonic_udp6_queue_xmit(struct sock *sk, struct sk_buff *skb,
			  struct flowi *fl);
int tonic_v4_udp_err(struct sk_buff *skb, u32 info, int offset);
int tonic_v6_udp_err(struct sk_buff *skb, u32 info, int offset);

/* sock/gro.c: GRO on the UDP wire */

/* Most datagrams in one batch (the UDP layer's UDP_GRO_CNT_MAX). */
#define TONIC_BATCH_MAX_SEGS	64

/* TONIC_SKB_CB()->batch: who made a batch. */
#define TONIC_BATCH_GRO		1	/* GRO (gro.c) */
#define TONIC_BATCH_BACKLOG	2	/* the socket's backlog (input.c) */

/**
 * tonic_data_c() - C of a received DATA segment (tonic_len_c())
 * @tsk: its connection
 * @th: its header, naming a C in @sack if it is not the handshake's
 *
 * Return: C in bytes, or 0 if the header names one out of range.
 */
static inline u32 tonic_data_c(const struct tonic_sock *tsk,
			       const struct tonichdr *th)
{
	return tonic_len_c(tsk->seg_size, ntohl(th->sack));
}

/**
 * tonic_hdr_batchable() - may a datagram join a batch?
 * @th: its Tonic header
 * @len: its length, header included
 *
 * DATA of coherent length without flags, but for a sender's ACK ratio
 * choice (TONIC_F_ACKFREQ, with or without TONIC_F_ACKREQ): see gro.c.
 *
 * Return: true if it may.
 */
static inline bool tonic_hdr_batchable(const struct tonichdr *th, u32 len)
{
	u8 fl = th->flags & TONIC_F_ACKFREQ ?
		th->flags & ~(TONIC_F_ACKFREQ | TONIC_F_ACKREQ) : th->flags;

	return th->type == TONIC_PKT_DATA && !fl && th->len &&
	       len == TONIC_HDR_LEN + ntohs(th->len);
}

/**
 * tonic_hdr_follows() - does a datagram continue a batch?
 * @th: its Tonic header
 * @th2: the batch's first header
 * @n: segments in the batch so far
 *
 * The next seq, the same ACK ratio choice, and ack, sack, wnd and grant
 * equal (not the checksum: on raw IP each datagram has its own, verified
 * before).  Used by GRO (gro.c) and the backlog's runs (input.c).
 *
 * Return: true if it does.
 */
static inline bool tonic_hdr_follows(const struct tonichdr *th,
				     const struct tonichdr *th2, u32 n)
{
	return ntohl(th->seq) == ntohl(th2->seq) + n &&
	       !((th->flags ^ th2->flags) & TONIC_F_ACKFREQ) &&
	       th->ack == th2->ack && th->sack == th2->sack &&
	       th->wnd == th2->wnd && th->grant == th2->grant;
}

struct sk_buff *tonic_gro_receive(struct sock *usk, struct list_head *head,
				  struct sk_buff *skb);
int tonic_gro_complete(struct sock *usk, struct sk_buff *skb, int nhoff);
u32 tonic_batch_len(struct sk_buff *skb);
struct sk_buff *tonic_batch_detach(struct net *net, struct sk_buff *skb,
				   bool dst);
int tonic_rcv_batch(struct sock *sk, struct sk_buff *skb);
bool tonic_backlog_merge(struct sock *sk, struct sk_buff *skb);

/* sock/ipv4.c / sock/ipv6.c */
int tonic_ipv4_init(void);
int tonic_v4_ctl_sock_create(struct net *net);
void tonic_v4_ctl_sock_destroy(struct net *net);
int tonic_v6_ctl_sock_create(struct net *net);
void tonic_v6_ctl_sock_destroy(struct net *net);
/* The IPv4 proto; IPv6's is a copy with its own entries (ipv6.c). */
extern struct proto tonic_v4_prot;
/* IPv4's family hooks; IPv4-mapped IPv6 sockets use them too (ipv6.c). */
extern const struct tonic_af_ops tonic_ipv4_af_ops;
/* IPv6's, for the UDP tunnel socket's receive (udp.c). */
extern const struct tonic_af_ops tonic_ipv6_af_ops;
void tonic_v6_child_pinfo(const struct sock *sk, struct sock *newsk);
void tonic_ipv4_exit(void);
int tonic_ipv6_init(void);
void tonic_ipv6_exit(void);

/* ctl/netlink.c: the "tonic" generic netlink family */
enum {
	TONIC_EVENT_OPEN,		/* the flow reached ESTABLISHED */
	TONIC_EVENT_CLOSE,		/* a synchronised flow reached CLOSE */
	TONIC_EVENT_TIMEOUT,		/* its retransmission timer expired */
};
int tonic_nl_init(void);
void tonic_nl_exit(void);
void tonic_nl_event_flow(struct sock *sk, int event, int reason);
void tonic_nl_event_prog(const char *name, bool attached);

/* ctl/mib.c */
extern const char *const tonic_mib_names[__TONIC_MIB_MAX];
u64 tonic_mib_read(struct net *net, int field);
int tonic_mib_net_init(struct net *net);
void tonic_mib_net_exit(struct net *net);

/* ctl/pernet.c */
int tonic_pernet_init(void);
void tonic_pernet_exit(void);

/* ctl/sysctl.c */
int tonic_sysctl_net_init(struct net *net);
void tonic_sysctl_net_exit(struct net *net);
extern long sysctl_tonic_mem[3];

/* progs/registry.c, progs/bpf_ops.c: protocols by name, BPF programs */
struct tonic_proto_ops;
int tonic_registry_init(void);
void tonic_registry_exit(void);
int tonic_proto_select(const struct sock *sk, const char *name);
const struct tonic_proto_ops *tonic_proto_lookup(struct net *net,
						 const char *name,
						 u32 *signals, char *used);
void tonic_proto_default(struct net *net, char *buf);

void tonic_cgroup_protocol(char *name);
int tonic_proto_set_default(struct net *net, const char *name,
			    bool host_admin);
int tonic_copy_proto_name(sockptr_t optval, unsigned int optlen, char *name);
u32 tonic_proto_resolve(struct net *net, const char *name,
			const struct tonic_proto_ops **ops, char *used);
/* progs/builtin_rack.c: bpf/rack.bpf.c compiled into the module */
extern const struct tonic_proto_ops tonic_prog_rack;
extern const u32 tonic_prog_rack_signals;
bool tonic_proto_exists(const char *name);
bool tonic_proto_attached(const char *name);
const char *tonic_proto_builtin_name(unsigned int i);
int tonic_bpf_init_module(void);
u64 tonic_bpf_fallbacks(const struct tonic_proto_ops *ops);
void tonic_bpf_sim_init(void);
void tonic_bpf_sim_exit(void);

#endif /* _TONIC_PROTOCOL_H */
