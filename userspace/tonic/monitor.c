// SPDX-License-Identifier: GPL-2.0
/*
 * tonic monitor: print the "events" multicast group of this network
 * namespace until interrupted, one line (or one JSON object) per event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "nl.h"

static const char *const event_names[TONIC_CMD_MAX + 1] = {
	[TONIC_CMD_FLOW_OPEN_NTF]	= "flow-open",
	[TONIC_CMD_FLOW_CLOSE_NTF]	= "flow-close",
	[TONIC_CMD_FLOW_TIMEOUT_NTF]	= "flow-timeout",
	[TONIC_CMD_PROG_ATTACH_NTF]	= "prog-attach",
	[TONIC_CMD_PROG_DETACH_NTF]	= "prog-detach",
	[TONIC_CMD_PROG_DEFAULT_NTF]	= "prog-default",
	[TONIC_CMD_CONFIG_NTF]		= "config",
};

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[TONIC_A_FLOW_MAX + 1];
	unsigned int cmd = g->cmd;

	(void)data;
	if (cmd > TONIC_CMD_MAX || !event_names[cmd])
		return MNL_CB_OK;
	/* Every attribute set is smaller than the flow set. */
	tnl_parse(nlh, tb, TONIC_A_FLOW_MAX);
	out_obj_start(NULL);
	out_str("event", "%-13s ", event_names[cmd]);
	switch (cmd) {
	case TONIC_CMD_FLOW_OPEN_NTF:
	case TONIC_CMD_FLOW_CLOSE_NTF:
	case TONIC_CMD_FLOW_TIMEOUT_NTF:
		flow_print(tb);
		break;
	case TONIC_CMD_CONFIG_NTF:
		config_print(tb);
		break;
	default:
		prog_print(tb);
	}
	out_obj_end();
	out_nl();
	return MNL_CB_OK;
}

static int do_monitor(int argc, char **argv)
{
	char buf[MNL_SOCKET_DUMP_SIZE];
	struct tnl t;
	int ret;

	(void)argv;
	if (argc > 0) {
		fprintf(stderr, "tonic: monitor takes no arguments\n");
		return 1;
	}
	if (tnl_open(&t))
		return 1;
	if (mnl_socket_setsockopt(t.sk, NETLINK_ADD_MEMBERSHIP, &t.events_grp,
				  sizeof(t.events_grp)) < 0) {
		fprintf(stderr, "tonic: monitor: joining the events group: %s\n",
			strerror(errno));
		tnl_close(&t);
		return 1;
	}
	for (;;) {
		ret = mnl_socket_recvfrom(t.sk, buf, sizeof(buf));
		if (ret < 0) {
			if (errno == ENOBUFS) {
				fprintf(stderr, "tonic: monitor: events lost (ENOBUFS)\n");
				continue;
			}
			break;
		}
		ret = mnl_cb_run(buf, ret, 0, 0, event_cb, NULL);
		if (ret < 0)
			break;
	}
	fprintf(stderr, "tonic: monitor: %s\n", strerror(errno));
	tnl_close(&t);
	return 1;
}

void monitor_usage(void)
{
	fprintf(stderr,
		"       tonic [-j [-p]] monitor\n");
}

int monitor_main(int argc, char **argv)
{
	return do_monitor(argc - 1, argv + 1);
}
