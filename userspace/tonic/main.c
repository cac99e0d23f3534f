// SPDX-License-Identifier: GPL-2.0
/*
 * tonic - command-line tool for tonic.ko.
 *
 *   tonic prog ...      protocol programs (prog.c)
 *   tonic stats|flows|config|monitor   over generic netlink (nl.c ...)
 *
 * Each subcommand family lives in its own file and registers here.
 */
#include <stdio.h>
#include <string.h>

#include "tonic.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	void (*usage)(void);
} cmds[] = {
	{ "prog", prog_main, prog_usage },
	{ "stats", stats_main, stats_usage },
	{ "flows", flows_main, flows_usage },
	{ "config", config_main, config_usage },
	{ "monitor", monitor_main, monitor_usage },
	{ "run", run_main, run_usage },
	{ "offload", offload_main, offload_usage },
};

static void usage(void)
{
	unsigned int i;

	fprintf(stderr, "usage: tonic COMMAND ...\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		cmds[i].usage();
}

int main(int argc, char **argv)
{
	unsigned int i;

	/* Global options, as in iproute2: -j JSON, -p pretty JSON. */
	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "-j") || !strcmp(argv[1], "-json"))
			tonic_json = 1;
		else if (!strcmp(argv[1], "-p") || !strcmp(argv[1], "-pretty"))
			tonic_pretty = 1;
		else
			break;
	}
	if (argc < 2) {
		usage();
		return 2;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].main(argc - 1, argv + 1);
	usage();
	return 2;
}
