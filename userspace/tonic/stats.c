// SPDX-License-Identifier: GPL-2.0
/*
 * tonic stats: the counters of this network namespace (stats-get).
 * One name table serves text and JSON, in the spec's order.
 */
#include <stdio.h>
#include <string.h>

#include "nl.h"

static const char *const stats_names[TONIC_A_STATS_MAX + 1] = {
	[TONIC_A_STATS_SEGS_OUT]	= "segs_out",
	[TONIC_A_STATS_SEGS_RTX]	= "segs_rtx",
	[TONIC_A_STATS_SEGS_IN]		= "segs_in",
	[TONIC_A_STATS_SUBSEGS]		= "subsegs",
	[TONIC_A_STATS_ACKS_OUT]	= "acks_out",
	[TONIC_A_STATS_ACKS_IN]		= "acks_in",
	[TONIC_A_STATS_NACKS_OUT]	= "nacks_out",
	[TONIC_A_STATS_NACKS_IN]	= "nacks_in",
	[TONIC_A_STATS_CNPS_OUT]	= "cnps_out",
	[TONIC_A_STATS_CNPS_IN]		= "cnps_in",
	[TONIC_A_STATS_ECE_OUT]		= "ece_out",
	[TONIC_A_STATS_GRANTS_OUT]	= "grants_out",
	[TONIC_A_STATS_GRANTS_IN]	= "grants_in",
	[TONIC_A_STATS_TIMEOUTS]	= "timeouts",
	[TONIC_A_STATS_SYN_RTX]		= "syn_rtx",
	[TONIC_A_STATS_FIN_RTX]		= "fin_rtx",
	[TONIC_A_STATS_PROBES_OUT]	= "probes_out",
	[TONIC_A_STATS_RSTS_OUT]	= "rsts_out",
	[TONIC_A_STATS_RSTS_IN]		= "rsts_in",
	[TONIC_A_STATS_ACTIVE_OPENS]	= "active_opens",
	[TONIC_A_STATS_PASSIVE_OPENS]	= "passive_opens",
	[TONIC_A_STATS_CONN_FAILED]	= "conn_failed",
	[TONIC_A_STATS_DROP_CSUM]	= "drop_csum",
	[TONIC_A_STATS_DROP_MALFORMED]	= "drop_malformed",
	[TONIC_A_STATS_DROP_NOSOCK]	= "drop_nosock",
	[TONIC_A_STATS_DROP_WINDOW]	= "drop_window",
	[TONIC_A_STATS_DROP_DUP]	= "drop_dup",
	[TONIC_A_STATS_DROP_MEM]	= "drop_mem",
	[TONIC_A_STATS_DROP_STATE]	= "drop_state",
	[TONIC_A_STATS_LISTEN_DROPS]	= "listen_drops",
	[TONIC_A_STATS_PROG_CLAMPED]	= "prog_clamped",
	[TONIC_A_STATS_ENGINE_BATCHES]	= "engine_batches",
	[TONIC_A_STATS_ACTIVE_FLOWS]	= "active_flows",
	[TONIC_A_STATS_DELAYED_ACKS]	= "delayed_acks",
	[TONIC_A_STATS_TIMER_MISSING]	= "timer_missing",
};

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TONIC_A_STATS_MAX + 1];
	char fmt[64];
	int i;

	(void)data;
	tnl_parse(nlh, tb, TONIC_A_STATS_MAX);
	out_obj_start(NULL);
	for (i = 1; i <= TONIC_A_STATS_MAX; i++) {
		uint64_t v;

		if (!stats_names[i] || !tb[i])
			continue;
		v = i == TONIC_A_STATS_ACTIVE_FLOWS ? mnl_attr_get_u32(tb[i]) :
						      mnl_attr_get_u64(tb[i]);
		snprintf(fmt, sizeof(fmt), "%-16s %%llu\n", stats_names[i]);
		out_u64(stats_names[i], fmt, v);
	}
	out_obj_end();
	return MNL_CB_OK;
}

static int do_stats(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tnl t;
	int ret;

	if (argc > 0 && strcmp(argv[0], "show")) {
		fprintf(stderr, "tonic: Command \"%s\" is unknown, try \"tonic help\".\n",
			argv[0]);
		return 1;
	}
	if (tnl_open(&t))
		return 1;
	ret = tnl_talk(&t, tnl_req(&t, buf, TONIC_CMD_STATS_GET, 0), stats_cb,
		       NULL, "stats");
	tnl_close(&t);
	return ret ? 1 : 0;
}

void stats_usage(void)
{
	fprintf(stderr,
		"       tonic [-j [-p]] stats [show]\n");
}

int stats_main(int argc, char **argv)
{
	return do_stats(argc - 1, argv + 1);
}
