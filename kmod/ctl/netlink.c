// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: the "tonic" generic netlink family.
 *
 * Handlers of the operations described by
 * Documentation/netlink/specs/tonic.yaml: namespace counters, the flow
 * table (dump and get, like inet_diag for TCP), the protocol programs,
 * the per-namespace settings, and the "events" multicast group.  The
 * policies and the ops table are generated (tonic_nl_gen.[ch]); the socket
 * layer calls tonic_nl_event_flow() and the program registry
 * tonic_nl_event_prog() to announce events.
 *
 * Every request sees only the namespace of its netlink socket.  Reads
 * need no privilege; changes need CAP_NET_ADMIN over the namespace's user
 * namespace (GENL_UNS_ADMIN_PERM from the spec).  The family runs with
 * parallel_ops, so handlers take their own locks: socket locks for flows,
 * tonic_nl_mutex for settings and the default program.  Programs and
 * the namespace default come from the registry (kmod/progs/registry.c).
 */
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sock_diag.h>
#include <net/genetlink.h>
#include <net/inet_hashtables.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "protocol.h"
#include "engine.h"
#include "bpf_ops.h"
#include "tonic_nl_gen.h"

/*
 * ynl-gen-c builds the family struct only for plain "genetlink" specs,
 * whose schema lacks uns-admin-perm in 6.12, and it emits the multicast
 * group table static.  So the generated source is part of this unit and
 * the family is defined below.
 */
#include "tonic_nl_gen.c"

/* Sockets taken from one hash bucket per pass of a dump. */
#define NL_DUMP_BATCH		16

static struct genl_family tonic_nl_family;

/* Serialises config-set and prog-default-set (the family is parallel). */
static DEFINE_MUTEX(tonic_nl_mutex);

/* ---- stats ---- */

/* Netlink attribute of each MIB counter (kmod/ctl/mib.h); 0 = not exported. */
static const u8 nl_mib_attr[__TONIC_MIB_MAX] = {
#define TONIC_MIB(id, name)	\
	[TONIC_MIB_##id] = TONIC_A_STATS_##id,
#include "mib.h"
#undef TONIC_MIB
};

/*
 * Every stats attribute of the spec but active-flows and pad is a MIB
 * counter: the build fails if mib.h and the YAML spec disagree (a counter
 * without attribute fails above, an attribute without counter here).
 */
#define NL_STATS_NOT_MIB	2	/* active-flows, pad */
static_assert(__TONIC_MIB_MAX - 1 + NL_STATS_NOT_MIB == TONIC_A_STATS_MAX);

/* A connection for the flow table: a full socket that is not listening. */
static bool nl_sk_is_flow(const struct sock *sk, const struct net *net)
{
	return sk_fullsock(sk) && net_eq(sock_net(sk), net) &&
	       sk->sk_state != TCP_LISTEN && sk->sk_protocol == tonic_protocol;
}

static u32 nl_count_flows(const struct net *net)
{
	struct inet_hashinfo *h = &tonic_hashinfo;
	struct hlist_nulls_node *node;
	struct sock *sk;
	unsigned int i;
	u32 n = 0;

	for (i = 0; i <= h->ehash_mask; i++) {
		if (hlist_nulls_empty(&h->ehash[i].chain))
			continue;
		spin_lock_bh(inet_ehash_lockp(h, i));
		sk_nulls_for_each(sk, node, &h->ehash[i].chain)
			n += nl_sk_is_flow(sk, net);
		spin_unlock_bh(inet_ehash_lockp(h, i));
		cond_resched();
	}
	return n;
}

static int nl_put_stats(struct sk_buff *skb, struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);
	u64 sum[__TONIC_MIB_MAX] = {};
	int cpu, i;

	if (tn->mib) {
		for_each_possible_cpu(cpu) {
			const struct tonic_mib *m = per_cpu_ptr(tn->mib, cpu);

			for (i = 0; i < __TONIC_MIB_MAX; i++)
				sum[i] += READ_ONCE(m->mibs[i]);
		}
	}
	for (i = 0; i < __TONIC_MIB_MAX; i++) {
		if (nl_mib_attr[i] &&
		    nla_put_u64_64bit(skb, nl_mib_attr[i], sum[i],
				      TONIC_A_STATS_PAD))
			return -EMSGSIZE;
	}
	if (nla_put_u32(skb, TONIC_A_STATS_ACTIVE_FLOWS, nl_count_flows(net)))
		return -EMSGSIZE;
	return 0;
}

int tonic_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *rsp;
	void *hdr;

	rsp = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;
	hdr = genlmsg_iput(rsp, info);
	if (!hdr)
		goto err_free;
	if (nl_put_stats(rsp, genl_info_net(info)))
		goto err_free;
	genlmsg_end(rsp, hdr);
	return genlmsg_reply(rsp, info);
err_free:
	nlmsg_free(rsp);
	return -EMSGSIZE;
}

/* ---- flows ---- */

/*
 * The flow attribute "signals" carries tonic_info.signals: the spec's
 * flags must be the TONIC_SIG_* bits of uapi/linux/tonic.h.
 */
static_assert((int)TONIC_SIGNALS_ACK == (int)TONIC_SIG_ACK &&
	      (int)TONIC_SIGNALS_NACK == (int)TONIC_SIG_NACK &&
	      (int)TONIC_SIGNALS_GRANT == (int)TONIC_SIG_GRANT &&
	      (int)TONIC_SIGNALS_CNP == (int)TONIC_SIG_CNP &&
	      (int)TONIC_SIGNALS_ECE == (int)TONIC_SIG_ECE);

/**
 * struct nl_flow_filter - what a flow dump asks for
 * @family: AF_INET/AF_INET6, 0 = any
 * @saddr: local address, if @has_saddr
 * @daddr: remote address, if @has_daddr
 * @sport: local port, 0 = any
 * @dport: remote port, 0 = any
 * @has_saddr: compare @saddr
 * @has_daddr: compare @daddr
 * @prog: program name, "" = any
 */
struct nl_flow_filter {
	u16 family;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u16 sport;
	u16 dport;
	bool has_saddr;
	bool has_daddr;
	char prog[TONIC_PROTO_NAME_MAX];
};

/**
 * struct nl_dump_ctx - where a flow dump resumes (in cb->ctx)
 * @bucket: established-hash bucket
 * @skip: flows of @bucket that matched the filter and were handled
 */
struct nl_dump_ctx {
	unsigned int bucket;
	unsigned int skip;
};

static bool nl_addr_match(const struct sock *sk, const struct in6_addr *want,
			  bool local)
{
	if (sk->sk_family == AF_INET) {
		__be32 a = local ? inet_sk(sk)->inet_saddr : inet_sk(sk)->inet_daddr;

		return ipv6_addr_v4mapped(want) && want->s6_addr32[3] == a;
	}
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_addr_equal(want, local ? &sk->sk_v6_rcv_saddr :
					     &sk->sk_v6_daddr);
#else
	return false;
#endif
}

/* The filters that need no socket lock (addresses and ports are fixed). */
static bool nl_filter_match(const struct sock *sk,
			    const struct nl_flow_filter *f)
{
	if (f->family && sk->sk_family != f->family)
		return false;
	if (f->sport && ntohs(inet_sk(sk)->inet_sport) != f->sport)
		return false;
	if (f->dport && ntohs(inet_sk(sk)->inet_dport) != f->dport)
		return false;
	if (f->has_saddr && !nl_addr_match(sk, &f->saddr, true))
		return false;
	if (f->has_daddr && !nl_addr_match(sk, &f->daddr, false))
		return false;
	return true;
}

/**
 * struct nl_flow_info - everything a flow message carries
 * @ti: the TONIC_INFO view of the socket
 * @wnd_start: first segment not cumulatively acknowledged
 * @highest_sent: one past the highest segment sent
 */
struct nl_flow_info {
	struct tonic_info ti;
	u32 wnd_start;
	u32 highest_sent;
};

/* Caller holds the socket lock (owned or bh). */
static void nl_get_flow_info(struct sock *sk, struct nl_flow_info *fi)
{
	struct tonic_sock *tsk = tonic_sk(sk);
	struct tonic_flow_stats st;

	__tonic_get_info(sk, &fi->ti);
	fi->wnd_start = tsk->snd_una;
	fi->highest_sent = tsk->snd_una;
	if (tsk->eng &&
	    !tonic_engine_flow_stats(tsk->eng, TONIC_FLOW_ID, &st)) {
		fi->wnd_start = st.wnd_start;
		fi->highest_sent = st.next_new;
	}
}

static int nl_put_flow_id(struct sk_buff *skb, struct sock *sk)
{
	u32 cookie[2];

	sock_diag_save_cookie(sk, cookie);
	return nla_put_u64_64bit(skb, TONIC_A_FLOW_ID,
				 (u64)cookie[1] << 32 | cookie[0],
				 TONIC_A_FLOW_PAD);
}

static int nl_put_flow_addrs(struct sk_buff *skb, struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);

	if (nl_put_flow_id(skb, sk) ||
	    nla_put_u16(skb, TONIC_A_FLOW_FAMILY, sk->sk_family) ||
	    nla_put_u16(skb, TONIC_A_FLOW_SPORT, ntohs(inet->inet_sport)) ||
	    nla_put_u16(skb, TONIC_A_FLOW_DPORT, ntohs(inet->inet_dport)) ||
	    nla_put_u8(skb, TONIC_A_FLOW_STATE, sk->sk_state))
		return -EMSGSIZE;
	if (sk->sk_family == AF_INET)
		return nla_put_in_addr(skb, TONIC_A_FLOW_SADDR4, inet->inet_saddr) ||
		       nla_put_in_addr(skb, TONIC_A_FLOW_DADDR4, inet->inet_daddr) ?
		       -EMSGSIZE : 0;
#if IS_ENABLED(CONFIG_IPV6)
	if (nla_put_in6_addr(skb, TONIC_A_FLOW_SADDR6, &sk->sk_v6_rcv_saddr) ||
	    nla_put_in6_addr(skb, TONIC_A_FLOW_DADDR6, &sk->sk_v6_daddr))
		return -EMSGSIZE;
#endif
	return 0;
}

static int nl_put_flow_counters(struct sk_buff *skb,
				const struct nl_flow_info *fi)
{
	const struct tonic_info *ti = &fi->ti;

	if (nla_put_u64_64bit(skb, TONIC_A_FLOW_RETRANSMITS, ti->retransmits,
			      TONIC_A_FLOW_PAD) ||
	    nla_put_u64_64bit(skb, TONIC_A_FLOW_TIMEOUTS, ti->timeouts,
			      TONIC_A_FLOW_PAD) ||
	    nla_put_u64_64bit(skb, TONIC_A_FLOW_SEGS_OUT, ti->segs_out,
			      TONIC_A_FLOW_PAD) ||
	    nla_put_u64_64bit(skb, TONIC_A_FLOW_SEGS_IN, ti->segs_in,
			      TONIC_A_FLOW_PAD) ||
	    nla_put_u64_64bit(skb, TONIC_A_FLOW_BYTES_ACKED, ti->bytes_acked,
			      TONIC_A_FLOW_PAD) ||
	    nla_put_u64_64bit(skb, TONIC_A_FLOW_BYTES_RECEIVED,
			      ti->bytes_received, TONIC_A_FLOW_PAD))
		return -EMSGSIZE;
	return 0;
}

static int nl_put_flow_state(struct sk_buff *skb,
			     const struct nl_flow_info *fi)
{
	const struct tonic_info *ti = &fi->ti;

	if (nla_put_string(skb, TONIC_A_FLOW_PROG, ti->protocol) ||
	    nla_put_u32(skb, TONIC_A_FLOW_SEG_SIZE, ti->segment_size) ||
	    nla_put_u32(skb, TONIC_A_FLOW_WINDOW, ti->window) ||
	    nla_put_u32(skb, TONIC_A_FLOW_CWND, ti->cwnd) ||
	    nla_put_u64_64bit(skb, TONIC_A_FLOW_RATE, ti->rate,
			      TONIC_A_FLOW_PAD) ||
	    nla_put_u32(skb, TONIC_A_FLOW_WND_START, fi->wnd_start) ||
	    nla_put_u32(skb, TONIC_A_FLOW_HIGHEST_SENT, fi->highest_sent) ||
	    nla_put_u32(skb, TONIC_A_FLOW_OUTSTANDING, ti->outstanding) ||
	    nla_put_u32(skb, TONIC_A_FLOW_PEER_WINDOW, ti->peer_window) ||
	    nla_put_u32(skb, TONIC_A_FLOW_SIGNALS, ti->signals) ||
	    nla_put_u32(skb, TONIC_A_FLOW_RTT, ti->rtt_us))
		return -EMSGSIZE;
	return nl_put_flow_counters(skb, fi);
}

/* One flow message; caller holds the socket lock and filled @fi. */
static int nl_fill_flow(struct sk_buff *skb, struct sock *sk,
			const struct nl_flow_info *fi,
			const struct genl_info *info, u32 portid, u32 seq,
			struct user_namespace *user_ns)
{
	void *hdr;

	if (info)
		hdr = genlmsg_iput(skb, info);
	else
		hdr = genlmsg_put(skb, portid, seq, &tonic_nl_family,
				  NLM_F_MULTI, TONIC_CMD_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nl_put_flow_addrs(skb, sk) || nl_put_flow_state(skb, fi) ||
	    nla_put_u32(skb, TONIC_A_FLOW_UID,
			from_kuid_munged(user_ns, sock_i_uid(sk))) ||
	    nla_put_u32(skb, TONIC_A_FLOW_INODE, sock_i_ino(sk))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int nl_parse_addr(const struct nlattr *a4, const struct nlattr *a6,
			 struct in6_addr *out, u16 *family)
{
	if (a4 && a6)
		return -EINVAL;
	if (a4) {
		ipv6_addr_set_v4mapped(nla_get_in_addr(a4), out);
		*family = AF_INET;
	} else if (a6) {
		*out = nla_get_in6_addr(a6);
		*family = AF_INET6;
	}
	return 0;
}

static int nl_parse_filter(const struct genl_info *info,
			   struct nl_flow_filter *f)
{
	struct nlattr **tb = info->attrs;
	u16 fs = 0, fd = 0;

	memset(f, 0, sizeof(*f));
	if (tb[TONIC_A_FLOW_FAMILY]) {
		f->family = nla_get_u16(tb[TONIC_A_FLOW_FAMILY]);
		if (f->family != AF_INET && f->family != AF_INET6) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[TONIC_A_FLOW_FAMILY],
					    "family must be AF_INET or AF_INET6");
			return -EINVAL;
		}
	}
	if (nl_parse_addr(tb[TONIC_A_FLOW_SADDR4], tb[TONIC_A_FLOW_SADDR6],
			  &f->saddr, &fs) ||
	    nl_parse_addr(tb[TONIC_A_FLOW_DADDR4], tb[TONIC_A_FLOW_DADDR6],
			  &f->daddr, &fd)) {
		NL_SET_ERR_MSG(info->extack,
			       "give an address as IPv4 or IPv6, not both");
		return -EINVAL;
	}
	f->has_saddr = fs;
	f->has_daddr = fd;
	if ((fs && fd && fs != fd) ||
	    (f->family && ((fs && fs != f->family) || (fd && fd != f->family)))) {
		NL_SET_ERR_MSG(info->extack,
			       "addresses and family of the filter disagree");
		return -EINVAL;
	}
	if (!f->family)
		f->family = fs ? fs : fd;
	if (tb[TONIC_A_FLOW_SPORT])
		f->sport = nla_get_u16(tb[TONIC_A_FLOW_SPORT]);
	if (tb[TONIC_A_FLOW_DPORT])
		f->dport = nla_get_u16(tb[TONIC_A_FLOW_DPORT]);
	if (tb[TONIC_A_FLOW_PROG])
		nla_strscpy(f->prog, tb[TONIC_A_FLOW_PROG], sizeof(f->prog));
	return 0;
}

/*
 * Take up to NL_DUMP_BATCH matching sockets of bucket @i, after the first
 * @skip, with a reference each.  Return how many; *@more says whether the
 * bucket holds more matching sockets after them.
 */
static int nl_collect(const struct net *net, unsigned int i, unsigned int skip,
		      const struct nl_flow_filter *f, struct sock **batch,
		      bool *more)
{
	struct inet_hashinfo *h = &tonic_hashinfo;
	struct hlist_nulls_node *node;
	unsigned int num = 0;
	struct sock *sk;
	int n = 0;

	*more = false;
	if (hlist_nulls_empty(&h->ehash[i].chain))
		return 0;
	spin_lock_bh(inet_ehash_lockp(h, i));
	sk_nulls_for_each(sk, node, &h->ehash[i].chain) {
		if (!nl_sk_is_flow(sk, net) || !nl_filter_match(sk, f))
			continue;
		if (num++ < skip)
			continue;
		if (n == NL_DUMP_BATCH) {
			*more = true;
			break;
		}
		sock_hold(sk);
		batch[n++] = sk;
	}
	spin_unlock_bh(inet_ehash_lockp(h, i));
	return n;
}

/* Send the collected sockets; return how many were handled, or -EMSGSIZE. */
static int nl_dump_batch(struct sk_buff *skb, struct netlink_callback *cb,
			 const struct nl_flow_filter *f, struct sock **batch,
			 int n)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	int i, done = 0, err = 0;

	for (i = 0; i < n; i++) {
		struct sock *sk = batch[i];
		struct nl_flow_info fi;

		if (!err) {
			lock_sock(sk);
			nl_get_flow_info(sk, &fi);
			/* A flow the prog filter rejects counts as handled. */
			if (!f->prog[0] || !strcmp(f->prog, fi.ti.protocol))
				err = nl_fill_flow(skb, sk, &fi, NULL,
						   NETLINK_CB(cb->skb).portid,
						   cb->nlh->nlmsg_seq, user_ns);
			release_sock(sk);
			if (!err)
				done++;
		}
		sock_put(sk);
	}
	return err ? (done ? done : err) : done;
}

int tonic_nl_flow_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = (struct nl_dump_ctx *)cb->ctx;
	const struct genl_info *info = genl_info_dump(cb);
	struct net *net = sock_net(skb->sk);
	struct sock *batch[NL_DUMP_BATCH];
	struct nl_flow_filter f;
	int err, n, sent;
	bool more;

	NL_ASSERT_DUMP_CTX_FITS(struct nl_dump_ctx);
	err = nl_parse_filter(info, &f);
	if (err)
		return err;

	for (; ctx->bucket <= tonic_hashinfo.ehash_mask;
	     ctx->bucket++, ctx->skip = 0) {
		do {
			n = nl_collect(net, ctx->bucket, ctx->skip, &f, batch,
				       &more);
			if (!n)
				break;
			sent = nl_dump_batch(skb, cb, &f, batch, n);
			if (sent < 0)
				return skb->len ? skb->len : sent;
			ctx->skip += sent;
			if (sent < n)	/* skb full: resume here next time */
				return skb->len;
		} while (more);
		cond_resched();
	}
	return skb->len;
}

/* Find the flow of @net whose cookie is @id; returns it with a reference. */
static struct sock *nl_find_flow(const struct net *net, u64 id)
{
	struct inet_hashinfo *h = &tonic_hashinfo;
	struct hlist_nulls_node *node;
	struct sock *sk;
	unsigned int i;

	for (i = 0; i <= h->ehash_mask; i++) {
		if (hlist_nulls_empty(&h->ehash[i].chain))
			continue;
		spin_lock_bh(inet_ehash_lockp(h, i));
		sk_nulls_for_each(sk, node, &h->ehash[i].chain) {
			if (nl_sk_is_flow(sk, net) &&
			    atomic64_read(&sk->sk_cookie) == id) {
				sock_hold(sk);
				spin_unlock_bh(inet_ehash_lockp(h, i));
				return sk;
			}
		}
		spin_unlock_bh(inet_ehash_lockp(h, i));
		cond_resched();
	}
	return NULL;
}

int tonic_nl_flow_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nl_flow_info fi;
	struct sk_buff *rsp;
	struct sock *sk;
	u64 id;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TONIC_A_FLOW_ID))
		return -EINVAL;
	id = nla_get_u64(info->attrs[TONIC_A_FLOW_ID]);
	sk = id ? nl_find_flow(genl_info_net(info), id) : NULL;
	if (!sk) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TONIC_A_FLOW_ID],
				    "no flow with this id in this namespace");
		return -ENOENT;
	}
	rsp = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rsp) {
		sock_put(sk);
		return -ENOMEM;
	}
	lock_sock(sk);
	nl_get_flow_info(sk, &fi);
	err = nl_fill_flow(rsp, sk, &fi, info, 0, 0,
			   sk_user_ns(NETLINK_CB(skb).sk));
	release_sock(sk);
	sock_put(sk);
	if (err) {
		nlmsg_free(rsp);
		return err;
	}
	return genlmsg_reply(rsp, info);
}

/* ---- events ---- */

/**
 * tonic_nl_event_flow() - tell the "events" group about a flow
 * @sk: the connection, locked (owned or bh)
 * @event: TONIC_EVENT_OPEN, TONIC_EVENT_CLOSE or TONIC_EVENT_TIMEOUT
 * @reason: close only: the errno that ended it, 0 for an orderly close
 *
 * Cheap when nobody listens.  Allocation failures lose the event.
 *
 * Context: any; does not sleep.
 */
void tonic_nl_event_flow(struct sock *sk, int event, int reason)
{
	static const u8 cmd[] = {
		[TONIC_EVENT_OPEN]	= TONIC_CMD_FLOW_OPEN_NTF,
		[TONIC_EVENT_CLOSE]	= TONIC_CMD_FLOW_CLOSE_NTF,
		[TONIC_EVENT_TIMEOUT]	= TONIC_CMD_FLOW_TIMEOUT_NTF,
	};
	struct net *net = sock_net(sk);
	struct nl_flow_info fi;
	struct sk_buff *skb;
	void *hdr;

	if (event < 0 || event >= ARRAY_SIZE(cmd) ||
	    !genl_has_listeners(&tonic_nl_family, net, TONIC_NLGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &tonic_nl_family, 0, cmd[event]);
	if (!hdr)
		goto err_free;
	nl_get_flow_info(sk, &fi);
	if (nl_put_flow_addrs(skb, sk) || nl_put_flow_state(skb, &fi))
		goto err_free;
	if (event == TONIC_EVENT_CLOSE &&
	    nla_put_u32(skb, TONIC_A_FLOW_EVENT_REASON, abs(reason)))
		goto err_free;
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&tonic_nl_family, net, skb, 0,
				TONIC_NLGRP_EVENTS, GFP_ATOMIC);
	return;
err_free:
	nlmsg_free(skb);
}

/* ---- programs ---- */

static bool nl_prog_builtin(const char *name)
{
	const char *b;
	unsigned int i;

	for (i = 0; (b = tonic_proto_builtin_name(i)); i++)
		if (!strcmp(name, b))
			return true;
	return false;
}

static int nl_put_prog(struct sk_buff *skb, struct net *net, const char *name)
{
	char def[TONIC_PROTO_NAME_MAX];

	if (nla_put_string(skb, TONIC_A_PROG_NAME, name) ||
	    (nl_prog_builtin(name) &&
	     nla_put_flag(skb, TONIC_A_PROG_BUILTIN)))
		return -EMSGSIZE;
	if (!net)
		return 0;
	tonic_proto_default(net, def);
	if (!strncmp(name, def, sizeof(def)) &&
	    nla_put_flag(skb, TONIC_A_PROG_DEFAULT))
		return -EMSGSIZE;
	return 0;
}

/* Program events carry no namespace state when @net is NULL. */
static void nl_event_prog(struct net *net, const char *name, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &tonic_nl_family, 0, cmd);
	if (!hdr || nl_put_prog(skb, net, name)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	if (net)
		genlmsg_multicast_netns(&tonic_nl_family, net, skb, 0,
					TONIC_NLGRP_EVENTS, GFP_KERNEL);
	else
		genlmsg_multicast_allns(&tonic_nl_family, skb, 0,
					TONIC_NLGRP_EVENTS);
}

/**
 * tonic_nl_event_prog() - tell every namespace a program came or went
 * @name: the program's name
 * @attached: true when it was registered, false when it was removed
 *
 * Attaching a struct_ops map is system wide, so every namespace hears it.
 *
 * Context: process; may sleep.
 */
void tonic_nl_event_prog(const char *name, bool attached)
{
	nl_event_prog(NULL, name, attached ? TONIC_CMD_PROG_ATTACH_NTF :
					     TONIC_CMD_PROG_DETACH_NTF);
}

static int nl_dump_prog(struct sk_buff *skb, struct netlink_callback *cb,
			const char *name)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &tonic_nl_family, NLM_F_MULTI, TONIC_CMD_PROG_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nl_put_prog(skb, sock_net(skb->sk), name)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* cb->args[0]: how many of the built-ins, then of the slots, are done */
int tonic_nl_prog_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	char name[TONIC_PROTO_NAME_MAX];
	struct tonic_bpf_att *att;
	unsigned long i, nb = 0;
	const char *b;

	for (i = cb->args[0]; (b = tonic_proto_builtin_name(i)); i++) {
		if (nl_dump_prog(skb, cb, b))
			return skb->len;
		cb->args[0] = i + 1;
	}
	while (tonic_proto_builtin_name(nb))
		nb++;
	for (i = cb->args[0] - nb; i < TONIC_BPF_SLOTS; i++) {
		rcu_read_lock();
		att = rcu_dereference(tonic_bpf_slots[i].att);
		if (att)
			strscpy(name, att->ops->name, sizeof(name));
		rcu_read_unlock();
		if (att && nl_dump_prog(skb, cb, name))
			break;
		cb->args[0] = nb + i + 1;
	}
	return skb->len;
}

int tonic_nl_prog_default_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	char name[TONIC_PROTO_NAME_MAX];
	struct sk_buff *rsp;
	void *hdr;

	tonic_proto_default(net, name);
	rsp = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;
	hdr = genlmsg_iput(rsp, info);
	if (!hdr || nl_put_prog(rsp, net, name)) {
		nlmsg_free(rsp);
		return -EMSGSIZE;
	}
	genlmsg_end(rsp, hdr);
	return genlmsg_reply(rsp, info);
}

int tonic_nl_prog_default_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	char name[TONIC_PROTO_NAME_MAX];
	char old[TONIC_PROTO_NAME_MAX];
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TONIC_A_PROG_NAME))
		return -EINVAL;
	nla_strscpy(name, info->attrs[TONIC_A_PROG_NAME], sizeof(name));
	mutex_lock(&tonic_nl_mutex);
	tonic_proto_default(net, old);
	err = tonic_proto_set_default(net, name,
				      netlink_capable(skb, CAP_NET_ADMIN));
	mutex_unlock(&tonic_nl_mutex);
	if (err == -EPERM) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TONIC_A_PROG_NAME],
				    "only the host's administrator may make a program the default that the initial namespace does not allow");
		return err;
	}
	if (err) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TONIC_A_PROG_NAME],
				    "no protocol program with this name is attached");
		return err;
	}
	if (strncmp(old, name, sizeof(old)))
		nl_event_prog(net, name, TONIC_CMD_PROG_DEFAULT_NTF);
	return 0;
}

/* ---- config ---- */

/* Where struct tonic_net keeps each setting, by attribute. */
static const size_t nl_config_off[TONIC_A_CONFIG_MAX + 1] = {
#define TONIC_SETTING(name, attr, def, min, max)			\
	[TONIC_A_CONFIG_##attr] = offsetof(struct tonic_net, name),
#include "settings.h"
#undef TONIC_SETTING
};

/* Every config attribute of the spec is a line of kmod/ctl/settings.h. */
enum {
#define TONIC_SETTING(name, attr, def, min, max) NL_CONFIG_##attr,
#include "settings.h"
#undef TONIC_SETTING
	NL_CONFIG_COUNT
};
static_assert((int)TONIC_A_CONFIG_MAX == (int)NL_CONFIG_COUNT);

static int *nl_config_field(struct tonic_net *tn, int attr)
{
	return (int *)((char *)tn + nl_config_off[attr]);
}

static int nl_put_config(struct sk_buff *skb, struct tonic_net *tn)
{
	int attr;

	for (attr = 1; attr <= TONIC_A_CONFIG_MAX; attr++)
		if (nla_put_u32(skb, attr, READ_ONCE(*nl_config_field(tn, attr))))
			return -EMSGSIZE;
	return 0;
}

static struct sk_buff *nl_config_msg(struct net *net, struct genl_info *info,
				     u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	if (info)
		hdr = genlmsg_iput(skb, info);
	else
		hdr = genlmsg_put(skb, 0, 0, &tonic_nl_family, 0, cmd);
	if (!hdr || nl_put_config(skb, tonic_pernet(net))) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

int tonic_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *rsp = nl_config_msg(genl_info_net(info), info, 0);

	return rsp ? genlmsg_reply(rsp, info) : -ENOMEM;
}

int tonic_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tonic_net *tn = tonic_pernet(net);
	struct nlattr *a = info->attrs[TONIC_A_CONFIG_SEGMENT_SIZE];
	struct sk_buff *ntf;
	int attr;

	/* The policy checked the ranges; this one has a hole. */
	if (a && nla_get_u32(a) && nla_get_u32(a) < TONIC_MIN_SEGMENT) {
		NL_SET_ERR_MSG_ATTR_FMT(info->extack, a,
					"segment-size must be 0 (path MTU) or %u..%u",
					TONIC_MIN_SEGMENT, TONIC_MAX_SEGMENT);
		return -EINVAL;
	}
	mutex_lock(&tonic_nl_mutex);
	for (attr = 1; attr <= TONIC_A_CONFIG_MAX; attr++)
		if (info->attrs[attr])
			WRITE_ONCE(*nl_config_field(tn, attr),
				   nla_get_u32(info->attrs[attr]));
	mutex_unlock(&tonic_nl_mutex);
	if (info->attrs[TONIC_A_CONFIG_EARLY_DEMUX])
		tonic_edemux_sync(net);

	if (genl_has_listeners(&tonic_nl_family, net, TONIC_NLGRP_EVENTS)) {
		ntf = nl_config_msg(net, NULL, TONIC_CMD_CONFIG_NTF);
		if (ntf)
			genlmsg_multicast_netns(&tonic_nl_family, net, ntf, 0,
						TONIC_NLGRP_EVENTS, GFP_KERNEL);
	}
	return 0;
}

/* ---- family ---- */

/*
 * The generated group table with one change the spec cannot say in
 * 6.12: joining "events" needs CAP_NET_ADMIN over the namespace's user
 * namespace, as MPTCP's connection events (mptcp_pm_mcgrps[]), since
 * flow events tell every connection's peer and counters as they happen.
 */
static const struct genl_multicast_group tonic_nl_mcgrps_admin[] = {
	[TONIC_NLGRP_EVENTS] = {
		.name	= "events",
		.flags	= GENL_MCAST_CAP_NET_ADMIN,
	},
};
static_assert(ARRAY_SIZE(tonic_nl_mcgrps_admin) ==
	      ARRAY_SIZE(tonic_nl_mcgrps));

static struct genl_family tonic_nl_family __ro_after_init = {
	.name		= TONIC_FAMILY_NAME,
	.version	= TONIC_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= tonic_nl_ops,
	.n_split_ops	= ARRAY_SIZE(tonic_nl_ops),
	.mcgrps		= tonic_nl_mcgrps_admin,
	.n_mcgrps	= ARRAY_SIZE(tonic_nl_mcgrps_admin),
};

/**
 * tonic_nl_init() - register the tonic genetlink family
 *
 * Call after the per-netns state and the hash tables exist: requests may
 * arrive as soon as this returns.
 *
 * Return: 0 or a negative errno.
 */
int tonic_nl_init(void)
{
	return genl_register_family(&tonic_nl_family);
}

/** tonic_nl_exit() - unregister the family (waits for running requests) */
void tonic_nl_exit(void)
{
	genl_unregister_family(&tonic_nl_family);
}

MODULE_ALIAS_GENL_FAMILY(TONIC_FAMILY_NAME);
