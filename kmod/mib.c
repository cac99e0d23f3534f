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
	[TONIC_MIB_NUM]			= "Num",
	[TONIC_MIB_SEGS_OUT]		= "SegsOut",
	[TONIC_MIB_SEGS_RTX]		= "SegsRetrans",
	[TONIC_MIB_SEGS_IN]		= "SegsIn",
	[TONIC_MIB_SUBSEGS]		= "SubSegments",
	[TONIC_MIB_ACKS_OUT]		= "AcksOut",
	[TONIC_MIB_ACKS_IN]		= "AcksIn",
	[TONIC_MIB_NACKS_OUT]		= "NacksOut",
	[TONIC_MIB_NACKS_IN]		= "NacksIn",
	[TONIC_MIB_CNPS_OUT]		= "CnpsOut",
	[TONIC_MIB_CNPS_IN]		= "CnpsIn",
	[TONIC_MIB_ECE_OUT]		= "EceOut",
	[TONIC_MIB_GRANTS_OUT]		= "GrantsOut",
	[TONIC_MIB_GRANTS_IN]		= "GrantsIn",
	[TONIC_MIB_TIMEOUTS]		= "Timeouts",
	[TONIC_MIB_SYN_RTX]		= "SynRetrans",
	[TONIC_MIB_FIN_RTX]		= "FinRetrans",
	[TONIC_MIB_PROBES_OUT]		= "ProbesOut",
	[TONIC_MIB_RSTS_OUT]		= "RstsOut",
	[TONIC_MIB_RSTS_IN]		= "RstsIn",
	[TONIC_MIB_ACTIVE_OPENS]	= "ActiveOpens",
	[TONIC_MIB_PASSIVE_OPENS]	= "PassiveOpens",
	[TONIC_MIB_CONN_FAILED]		= "ConnFailed",
	[TONIC_MIB_DROP_CSUM]		= "DropCsum",
	[TONIC_MIB_DROP_MALFORMED]	= "DropMalformed",
	[TONIC_MIB_DROP_NOSOCK]		= "DropNoSocket",
	[TONIC_MIB_DROP_WINDOW]		= "DropWindow",
	[TONIC_MIB_DROP_DUP]		= "DropDuplicate",
	[TONIC_MIB_DROP_MEM]		= "DropMemory",
	[TONIC_MIB_DROP_STATE]		= "DropState",
	[TONIC_MIB_LISTEN_DROPS]	= "ListenDrops",
	[TONIC_MIB_PROG_CLAMPED]	= "ProgClamped",
	[TONIC_MIB_DELAYED_ACKS]	= "DelayedAcks",
	[TONIC_MIB_ENGINE_BATCHES]	= "EngineBatches",
	[TONIC_MIB_TIMER_MISSING]	= "TimerMissing",
};

u64 tonic_mib_read(struct net *net, int field)
{
	struct tonic_net *tn = tonic_pernet(net);
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(tn->mib, cpu)->mibs[field];
	return sum;
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
	seq_printf(seq, "MemoryPages %ld\n",
		   atomic_long_read(&tonic_memory_allocated));
	return 0;
}

int tonic_mib_net_init(struct net *net)
{
	if (!proc_create_net_single("tonic_stat", 0444, net->proc_net,
				    tonic_stat_show, NULL))
		return -ENOMEM;
	return 0;
}

void tonic_mib_net_exit(struct net *net)
{
	remove_proc_entry("tonic_stat", net->proc_net);
}
