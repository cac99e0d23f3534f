// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: MIB counter names and /proc/net/tonic_stat.
 *
 * One "Name Value" line per counter of this namespace, summed over CPUs,
 * then a few global gauges.  The selftests read it as their oracle, like
 * nstat for MPTCP; the netlink family exports the same counters.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "protocol.h"

const char *const tonic_mib_names[__TONIC_MIB_MAX] = {
	[TONIC_MIB_NUM]		= "Num",
#define TONIC_MIB(id, name)	\
	[TONIC_MIB_##id] = #name,
#include "mib.h"
#undef TONIC_MIB
};

/**
 * tonic_mib_read() - sum one counter over all CPUs
 * @net: namespace
 * @field: enum tonic_mib_field
 *
 * Return: the counter's value.
 */
u64 tonic_mib_read(struct net *net, int field)
{
	struct tonic_net *tn = tonic_pernet(net);
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(tn->mib, cpu)->mibs[field];
	return sum;
}

/*
 * Pages charged to Tonic sockets: the global count plus what each CPU
 * holds back (sk_memory_allocated_add() flushes per-CPU amounts to the
 * global count only past net.core.mem_pcpu_rsv, so the global count alone
 * can read 256 pages with no socket left).
 */
static long tonic_memory_pages(void)
{
	long pages = atomic_long_read(&tonic_memory_allocated);
	int cpu;

	for_each_possible_cpu(cpu)
		pages += per_cpu(tonic_memory_per_cpu_fw_alloc, cpu);
	return pages;
}

static int tonic_stat_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);
	int i;

	for (i = 1; i < __TONIC_MIB_MAX; i++)
		seq_printf(seq, "%s %llu\n", tonic_mib_names[i],
			   tonic_mib_read(net, i));
	seq_printf(seq, "SocketsAllocated %lld\n",
		   percpu_counter_sum_positive(&tonic_sockets_allocated));
	seq_printf(seq, "Orphans %u\n", tonic_orphans());
	seq_printf(seq, "MemoryPages %ld\n", tonic_memory_pages());
	return 0;
}

/**
 * tonic_mib_net_init() - create /proc/net/tonic_stat in @net
 * @net: namespace
 *
 * Return: 0 or -ENOMEM.
 */
int tonic_mib_net_init(struct net *net)
{
	if (!proc_create_net_single("tonic_stat", 0444, net->proc_net,
				    tonic_stat_show, NULL))
		return -ENOMEM;
	return 0;
}

/**
 * tonic_mib_net_exit() - remove /proc/net/tonic_stat from @net
 * @net: namespace
 */
void tonic_mib_net_exit(struct net *net)
{
	remove_proc_entry("tonic_stat", net->proc_net);
}
