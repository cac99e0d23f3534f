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

/* The settings of kmod/ctl/settings.h, by their sysctl names. */
static const char *const config_names[TONIC_A_CONFIG_MAX + 1] = {
#define TONIC_SETTING(name, attr, def, min, max) [TONIC_A_CONFIG_##attr] = #name,
#include "settings.h"
#undef TONIC_SETTING
};

/* Every config attribute has a name (no NULL in config_names). */
enum {
#define TONIC_SETTING(name, attr, def, min, max) CONFIG_##attr,
#include "settings.h"
#undef TONIC_SETTING
	CONFIG_COUNT
};
_Static_assert((int)TONIC_A_CONFIG_MAX == (int)CONFIG_COUNT,
	       "kmod/ctl/settings.h and the netlink spec disagree");

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
	int i, col;

	fprintf(stderr,
		"       tonic [-j [-p]] config [show]\n"
		"       tonic config set NAME VALUE [NAME VALUE]...\n"
		"         NAME :=");
	for (i = 1, col = 17; i <= TONIC_A_CONFIG_MAX; i++) {
		int len = strlen(config_names[i]) + (i > 1 ? 3 : 1);

		if (col + len > 78) {
			fprintf(stderr, "\n                ");
			col = 16;
		}
		fprintf(stderr, "%s %s", i > 1 ? " |" : "", config_names[i]);
		col += len;
	}
	fprintf(stderr, "\n");
}

int config_main(int argc, char **argv)
{
	return do_config(argc - 1, argv + 1);
}
