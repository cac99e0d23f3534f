// SPDX-License-Identifier: GPL-2.0
/*
 * tonic stats: the counters of this network namespace (stats-get).
 * One name table serves text and JSON, in the spec's order; the
 * counters come from the module's list (kmod/ctl/mib.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "nl.h"

/* The counters of kmod/ctl/mib.h, keyed by their ID in lower case. */
static const char *const stats_ids[TONIC_A_STATS_MAX + 1] = {
#define TONIC_MIB(id, name) [TONIC_A_STATS_##id] = #id,
#include "mib.h"
#undef TONIC_MIB
	[TONIC_A_STATS_ACTIVE_FLOWS]	= "ACTIVE_FLOWS",
};

static char stats_names[TONIC_A_STATS_MAX + 1][32];

static void stats_init_names(void)
{
	int i, c;

	for (i = 0; i <= TONIC_A_STATS_MAX; i++)
		for (c = 0; stats_ids[i] && stats_ids[i][c]; c++)
			stats_names[i][c] = tolower((unsigned char)stats_ids[i][c]);
}

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

		if (!stats_names[i][0] || !tb[i])
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
	stats_init_names();
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
