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

/* The defaults of kmod/ctl/settings.h. */
static void tonic_net_defaults(struct tonic_net *tn)
{
	const struct {
		int *field;
		int value;
	} defaults[] = {
#define TONIC_SETTING(name, attr, def, min, max) { &tn->name, (def) },
#include "settings.h"
#undef TONIC_SETTING
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(defaults); i++)
		*defaults[i].field = defaults[i].value;
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
	tonic_udp_net_init(net);
	err = tonic_mib_net_init(net);
	if (err)
		goto err_sysctl;
	return 0;

err_sysctl:
	tonic_udp_net_exit(net);
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

	tonic_edemux_net_exit(net);
	tonic_udp_net_exit(net);
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

/**
 * tonic_pernet_init() - register the per-namespace state
 *
 * Return: 0 or a negative errno.
 */
int tonic_pernet_init(void)
{
	return register_pernet_subsys(&tonic_net_ops);
}

/** tonic_pernet_exit() - unregister it (runs every namespace's exit) */
void tonic_pernet_exit(void)
{
	unregister_pernet_subsys(&tonic_net_ops);
	/* encap_rcv of the released UDP sockets may still run */
	synchronize_net();
}
