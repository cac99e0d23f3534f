// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: net.tonic.* sysctls.
 *
 * The settings and their limits are the lines of kmod/ctl/settings.h, which
 * netlink's config attributes share.
 *
 * Every entry is per namespace: the table is duplicated for each netns
 * and its .data pointers moved into that namespace's struct tonic_net
 * (a writable entry pointing at module memory would make the sysctl core
 * WARN in a non-initial namespace).  New sockets read these defaults.
 */
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "protocol.h"

/*
 * One entry per line of settings.h.  The limits are file-scope compound
 * literals (static storage), one pair per entry.
 */
#define TONIC_SETTING(_name, _attr, _def, _min, _max)			\
	{								\
		.procname	= #_name,				\
		.data		= (void *)offsetof(struct tonic_net, _name), \
		.maxlen		= sizeof(int),				\
		.mode		= 0644,					\
		.proc_handler	= proc_dointvec_minmax,			\
		.extra1		= &(int){ _min },			\
		.extra2		= &(int){ _max },			\
	},

static struct ctl_table tonic_sysctl_template[] = {
#include "settings.h"
};
#undef TONIC_SETTING

/* Writing net.tonic.early_demux registers or removes the hooks at once. */
static int tonic_sysctl_early_demux(const struct ctl_table *table, int write,
				    void *buffer, size_t *lenp, loff_t *ppos)
{
	struct tonic_net *tn = container_of((int *)table->data,
					    struct tonic_net, early_demux);
	int err = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (!err && write)
		tonic_edemux_sync(tn->net);
	return err;
}

/**
 * tonic_sysctl_net_init() - register net.tonic.* for @net
 * @net: the namespace
 *
 * Return: 0 or -ENOMEM.
 */
int tonic_sysctl_net_init(struct net *net)
{
	struct tonic_net *tn = tonic_pernet(net);
	struct ctl_table *table;
	int i;

	table = kmemdup(tonic_sysctl_template, sizeof(tonic_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(tonic_sysctl_template); i++) {
		if ((uintptr_t)table[i].data ==
		    offsetof(struct tonic_net, early_demux))
			table[i].proc_handler = tonic_sysctl_early_demux;
		table[i].data = (char *)tn + (uintptr_t)table[i].data;
	}

	tn->sysctl_hdr = register_net_sysctl_sz(net, "net/tonic", table,
						ARRAY_SIZE(tonic_sysctl_template));
	if (!tn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

/**
 * tonic_sysctl_net_exit() - unregister net.tonic.* of @net
 * @net: the namespace
 */
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
