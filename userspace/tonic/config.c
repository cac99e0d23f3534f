// SPDX-License-Identifier: GPL-2.0
/*
 * tonic config: the settings of this network namespace (config-get,
 * config-set).  Also prints program messages for monitor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"

static const char *const config_names[TONIC_A_CONFIG_MAX + 1] = {
	[TONIC_A_CONFIG_SEGMENT_SIZE]	= "segment_size",
	[TONIC_A_CONFIG_WINDOW]		= "window",
	[TONIC_A_CONFIG_FLUSH_DELAY_US]	= "flush_delay_us",
	[TONIC_A_CONFIG_SYN_RETRIES]	= "syn_retries",
	[TONIC_A_CONFIG_FIN_RETRIES]	= "fin_retries",
	[TONIC_A_CONFIG_RTO_MIN_MS]	= "rto_min_ms",
	[TONIC_A_CONFIG_CNP_INTERVAL_US] = "cnp_interval_us",
	[TONIC_A_CONFIG_WMEM_DEFAULT]	= "wmem_default",
	[TONIC_A_CONFIG_RMEM_DEFAULT]	= "rmem_default",
	[TONIC_A_CONFIG_RTO_LOW_US]	= "rto_low_us",
	[TONIC_A_CONFIG_RTO_LOW_SEGS]	= "rto_low_segs",
	[TONIC_A_CONFIG_DELACK_SEGS]	= "delack_segs",
	[TONIC_A_CONFIG_DELACK_US]	= "delack_us",
	[TONIC_A_CONFIG_RTO_MAX_MS]	= "rto_max_ms",
};

/* Print a config message (also used by monitor). */
void config_print(const struct nlattr **tb)
{
	char fmt[64];
	int i;

	for (i = 1; i <= TONIC_A_CONFIG_MAX; i++) {
		if (!tb[i])
			continue;
		snprintf(fmt, sizeof(fmt), "%s %%llu ", config_names[i]);
		out_u64(config_names[i], fmt, mnl_attr_get_u32(tb[i]));
	}
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TONIC_A_CONFIG_MAX + 1];
	char fmt[64];
	int i;

	(void)data;
	tnl_parse(nlh, tb, TONIC_A_CONFIG_MAX);
	out_obj_start(NULL);
	for (i = 1; i <= TONIC_A_CONFIG_MAX; i++) {
		if (!tb[i])
			continue;
		snprintf(fmt, sizeof(fmt), "%-16s %%llu\n", config_names[i]);
		out_u64(config_names[i], fmt, mnl_attr_get_u32(tb[i]));
	}
	out_obj_end();
	return MNL_CB_OK;
}

static int config_attr(const char *name)
{
	int i;

	for (i = 1; i <= TONIC_A_CONFIG_MAX; i++)
		if (!strcmp(name, config_names[i]))
			return i;
	return 0;
}

static int config_set(struct tnl *t, int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (argc == 0 || argc % 2) {
		fprintf(stderr, "tonic: config set: expected NAME VALUE pairs\n");
		return -1;
	}
	nlh = tnl_req(t, buf, TONIC_CMD_CONFIG_SET, 0);
	for (; argc > 0; argc -= 2, argv += 2) {
		int attr = config_attr(argv[0]);
		unsigned long v;
		char *end;

		if (!attr) {
			fprintf(stderr, "tonic: config set: unknown setting \"%s\"\n",
				argv[0]);
			return -1;
		}
		errno = 0;
		v = strtoul(argv[1], &end, 0);
		if (errno || *end || !*argv[1] || v > UINT32_MAX) {
			fprintf(stderr, "tonic: config set: \"%s\" is not a number\n",
				argv[1]);
			return -1;
		}
		mnl_attr_put_u32(nlh, attr, v);
	}
	return tnl_talk(t, nlh, NULL, NULL, "config set");
}

static int do_config(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tnl t;
	int ret;

	if (tnl_open(&t))
		return 1;
	if (argc == 0 || !strcmp(argv[0], "show")) {
		ret = tnl_talk(&t, tnl_req(&t, buf, TONIC_CMD_CONFIG_GET, 0),
			       config_cb, NULL, "config");
	} else if (!strcmp(argv[0], "set")) {
		ret = config_set(&t, argc - 1, argv + 1);
	} else {
		fprintf(stderr, "tonic: Command \"%s\" is unknown, try \"tonic help\".\n",
			argv[0]);
		ret = -1;
	}
	tnl_close(&t);
	return ret ? 1 : 0;
}

/* ---- programs ---- */

void prog_print(const struct nlattr **tb)
{
	if (tb[TONIC_A_PROG_NAME])
		out_str("name", "%s", mnl_attr_get_str(tb[TONIC_A_PROG_NAME]));
	out_bool("builtin", " builtin", tb[TONIC_A_PROG_BUILTIN]);
	out_bool("default", " default", tb[TONIC_A_PROG_DEFAULT]);
}

void config_usage(void)
{
	fprintf(stderr,
		"       tonic [-j [-p]] config [show]\n"
		"       tonic config set NAME VALUE [NAME VALUE]...\n"
		"         NAME := segment_size | window | flush_delay_us | syn_retries |\n"
		"                 fin_retries | rto_min_ms | cnp_interval_us |\n"
		"                 wmem_default | rmem_default | rto_low_us |\n"
		"                 rto_low_segs | delack_segs | delack_us | rto_max_ms\n");
}

int config_main(int argc, char **argv)
{
	return do_config(argc - 1, argv + 1);
}
