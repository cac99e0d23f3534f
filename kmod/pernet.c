// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: per network namespace state.
 */
#include <linux/module.h>

#include "protocol.h"

unsigned int tonic_net_id __read_mostly;

static int __net_init tonic_net_init(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);

	tn->net = net;
	return 0;
}

static void __net_exit tonic_net_exit(struct net *net)
{
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
