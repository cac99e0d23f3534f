// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: per network namespace state.
 *
 * Defaults of the net.tonic.* sysctls, the MIB counters and the raw
 * control sockets that answer packets for which no connection exists
 * with a reset.  The control sockets are SOCK_RAW (raw_prot is built in),
 * so they hold no reference on the module, as TCP's do.
 */
#include <linux/module.h>

#include "protocol.h"

unsigned int tonic_net_id __read_mostly;

static void tonic_net_defaults(struct tonic_net *tn)
{
	tn->segment_size = 0;
	tn->window = 128;
	tn->flush_delay_us = 200;
	tn->syn_retries = 5;
	tn->fin_retries = 8;
	tn->rto_min_ms = 200;
	tn->cnp_interval_us = 50;
	tn->wmem_default = sysctl_tonic_wmem[1];
	tn->rmem_default = sysctl_tonic_rmem[1];
	tn->rto_low_us = 1000;		/* about 2 RTTs of the TCG guest */
	tn->rto_low_segs = 3;		/* IRN's N */
	tn->delack_segs = 2;		/* RFC 5681 §4.2, as TCP */
	tn->delack_us = 500;		/* well below rto_low_us */
	tn->rto_max_ms = 120000;	/* TCP_RTO_MAX */
}

static int __net_init tonic_net_init(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);
	int err;

	tn->net = net;
	tonic_net_defaults(tn);
	tn->mib = alloc_percpu(struct tonic_mib);
	if (!tn->mib)
		return -ENOMEM;
	err = tonic_v4_ctl_sock_create(net);
	if (err)
		goto err_mib;
#if IS_ENABLED(CONFIG_IPV6)
	err = tonic_v6_ctl_sock_create(net);
	if (err)
		goto err_v4;
#endif
	err = tonic_sysctl_net_init(net);
	if (err)
		goto err_v6;
	err = tonic_mib_net_init(net);
	if (err)
		goto err_sysctl;
	return 0;

err_sysctl:
	tonic_sysctl_net_exit(net);
err_v6:
#if IS_ENABLED(CONFIG_IPV6)
	tonic_v6_ctl_sock_destroy(net);
err_v4:
#endif
	tonic_v4_ctl_sock_destroy(net);
err_mib:
	free_percpu(tn->mib);
	return err;
}

static void __net_exit tonic_net_exit(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	tonic_mib_net_exit(net);
	tonic_sysctl_net_exit(net);
#if IS_ENABLED(CONFIG_IPV6)
	tonic_v6_ctl_sock_destroy(net);
#endif
	tonic_v4_ctl_sock_destroy(net);
	free_percpu(tn->mib);
}

static struct pernet_operations tonic_net_ops = {
	.init	= tonic_net_init,
	.exit	= tonic_net_exit,
	.id	= &tonic_net_id,
	.size	= sizeof(struct tonic_net),
};

int tonic_pernet_init(void)
{
	return register_pernet_subsys(&tonic_net_ops);
}

void tonic_pernet_exit(void)
{
	unregister_pernet_subsys(&tonic_net_ops);
}
