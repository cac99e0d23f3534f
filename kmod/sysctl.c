// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: net.tonic.* sysctls.
 *
 * Every entry is per namespace: the table is duplicated for each netns
 * and its .data pointers moved into that namespace's struct tonic_net
 * (a writable entry pointing at module memory would make the sysctl core
 * WARN in a non-initial namespace).  New sockets read these defaults.
 */
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "protocol.h"

static int zero;
static int one = 1;
static int max_window = TONIC_MAX_WINDOW;
static int max_seg = TONIC_MAX_SEGMENT;
static int max_delay = USEC_PER_SEC;
static int max_retries = 50;
static int min_rto = 1;
static int max_rto = 60000;
static int max_rto_cap = 120000;	/* TCP_RTO_MAX */
static int min_buf = SOCK_MIN_SNDBUF;
static int max_buf = 64 << 20;
static int max_rto_us = 60 * USEC_PER_SEC;

#define TONIC_SYSCTL(_name, _field, _min, _max)			\
	{							\
		.procname	= _name,			\
		.data		= (void *)offsetof(struct tonic_net, _field), \
		.maxlen		= sizeof(int),			\
		.mode		= 0644,				\
		.proc_handler	= proc_dointvec_minmax,		\
		.extra1		= _min,				\
		.extra2		= _max,				\
	}

static struct ctl_table tonic_sysctl_template[] = {
	/* default C; 0 = path MTU minus headers */
	TONIC_SYSCTL("segment_size", segment_size, &zero, &max_seg),
	/* default K, segments */
	TONIC_SYSCTL("window", window, &one, &max_window),
	/* default flush delay T, microseconds */
	TONIC_SYSCTL("flush_delay_us", flush_delay_us, &zero, &max_delay),
	/* SYN retransmissions before ETIMEDOUT */
	TONIC_SYSCTL("syn_retries", syn_retries, &zero, &max_retries),
	/* FIN retransmissions before the connection is reset */
	TONIC_SYSCTL("fin_retries", fin_retries, &zero, &max_retries),
	/* minimum retransmission timeout, ms (engine and FIN/probe) */
	TONIC_SYSCTL("rto_min_ms", rto_min_ms, &min_rto, &max_rto),
	/* at most one CNP per connection per interval, microseconds */
	TONIC_SYSCTL("cnp_interval_us", cnp_interval_us, &zero, &max_delay),
	/* initial SO_SNDBUF of new sockets, bytes */
	TONIC_SYSCTL("wmem_default", wmem_default, &min_buf, &max_buf),
	/* initial SO_RCVBUF of new sockets, bytes */
	TONIC_SYSCTL("rmem_default", rmem_default, &min_buf, &max_buf),
	/* lowest RTO while at most rto_low_segs are in flight, microseconds */
	TONIC_SYSCTL("rto_low_us", rto_low_us, &one, &max_rto_us),
	/* flight (segments) up to which rto_low_us applies; 0 = off */
	TONIC_SYSCTL("rto_low_segs", rto_low_segs, &zero, &max_window),
	/* ACK at least every this many in-order full segments; 1 = each */
	TONIC_SYSCTL("delack_segs", delack_segs, &one, &max_window),
	/* longest an ACK for in-order data is held, microseconds */
	TONIC_SYSCTL("delack_us", delack_us, &one, &max_delay),
	/* highest retransmission timeout (the backoff's cap), ms */
	TONIC_SYSCTL("rto_max_ms", rto_max_ms, &min_rto, &max_rto_cap),
};

int tonic_sysctl_net_init(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);
	struct ctl_table *table;
	int i;

	table = kmemdup(tonic_sysctl_template, sizeof(tonic_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(tonic_sysctl_template); i++)
		table[i].data = (char *)tn + (uintptr_t)table[i].data;

	tn->sysctl_hdr = register_net_sysctl_sz(net, "net/tonic", table,
						ARRAY_SIZE(tonic_sysctl_template));
	if (!tn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void tonic_sysctl_net_exit(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);
	const struct ctl_table *table;

	if (!tn->sysctl_hdr)
		return;
	table = tn->sysctl_hdr->ctl_table_arg;
	unregister_net_sysctl_table(tn->sysctl_hdr);
	kfree(table);
	tn->sysctl_hdr = NULL;
}
