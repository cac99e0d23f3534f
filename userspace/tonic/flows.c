// SPDX-License-Identifier: GPL-2.0
/*
 * tonic flows: the connections of this network namespace, like ss
 * (flow-get dump with filters, or one flow by id).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nl.h"

static const char *const state_names[] = {
	[1] = "ESTAB", [2] = "SYN-SENT", [3] = "SYN-RECV", [4] = "FIN-WAIT-1",
	[5] = "FIN-WAIT-2", [6] = "TIME-WAIT", [7] = "CLOSE", [8] = "CLOSE-WAIT",
	[9] = "LAST-ACK", [10] = "LISTEN", [11] = "CLOSING",
};

const char *tonic_state_name(unsigned int state)
{
	if (state < sizeof(state_names) / sizeof(state_names[0]) &&
	    state_names[state])
		return state_names[state];
	return "UNKNOWN";
}

static void addr_str(const struct nlattr *a4, const struct nlattr *a6,
		     char *buf, size_t len)
{
	strcpy(buf, "*");
	if (a4)
		inet_ntop(AF_INET, mnl_attr_get_payload(a4), buf, len);
	else if (a6)
		inet_ntop(AF_INET6, mnl_attr_get_payload(a6), buf, len);
}

static void put_u32(const struct nlattr **tb, int attr, const char *key,
		    const char *fmt)
{
	if (tb[attr])
		out_u64(key, fmt, mnl_attr_get_u32(tb[attr]));
}

static void put_u64(const struct nlattr **tb, int attr, const char *key,
		    const char *fmt)
{
	if (tb[attr])
		out_u64(key, fmt, mnl_attr_get_u64(tb[attr]));
}

/**
 * flow_print() - one flow, ss style (text) or as JSON members
 * @tb: attributes of a flow message
 */
void flow_print(const struct nlattr **tb)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	bool v6 = tb[TONIC_A_FLOW_SADDR6] != NULL;

	addr_str(tb[TONIC_A_FLOW_SADDR4], tb[TONIC_A_FLOW_SADDR6], src, sizeof(src));
	addr_str(tb[TONIC_A_FLOW_DADDR4], tb[TONIC_A_FLOW_DADDR6], dst, sizeof(dst));
	if (tb[TONIC_A_FLOW_STATE])
		out_str("state", "%-11s ",
			tonic_state_name(mnl_attr_get_u8(tb[TONIC_A_FLOW_STATE])));
	out_str("family", NULL, v6 ? "inet6" : "inet");
	out_str("src", v6 ? "[%s]" : "%s", src);
	if (tb[TONIC_A_FLOW_SPORT])
		out_u64("sport", ":%llu ", mnl_attr_get_u16(tb[TONIC_A_FLOW_SPORT]));
	out_str("dst", v6 ? "[%s]" : "%s", dst);
	if (tb[TONIC_A_FLOW_DPORT])
		out_u64("dport", ":%llu ", mnl_attr_get_u16(tb[TONIC_A_FLOW_DPORT]));
	put_u64(tb, TONIC_A_FLOW_ID, "id", "id:%llu ");
	if (tb[TONIC_A_FLOW_PROG])
		out_str("prog", "prog:%s ", mnl_attr_get_str(tb[TONIC_A_FLOW_PROG]));
	put_u32(tb, TONIC_A_FLOW_SEG_SIZE, "seg_size", "C:%llu ");
	put_u32(tb, TONIC_A_FLOW_WINDOW, "window", "K:%llu ");
	put_u32(tb, TONIC_A_FLOW_CWND, "cwnd", "cwnd:%llu ");
	put_u64(tb, TONIC_A_FLOW_RATE, "rate", "rate:%llu ");
	put_u32(tb, TONIC_A_FLOW_WND_START, "wnd_start", "wnd_start:%llu ");
	put_u32(tb, TONIC_A_FLOW_HIGHEST_SENT, "highest_sent", "highest_sent:%llu ");
	put_u32(tb, TONIC_A_FLOW_OUTSTANDING, "outstanding", "outstanding:%llu ");
	put_u32(tb, TONIC_A_FLOW_PEER_WINDOW, "peer_window", "peer_wnd:%llu ");
	put_u32(tb, TONIC_A_FLOW_SIGNALS, "signals", "signals:%#llx ");
	put_u64(tb, TONIC_A_FLOW_RETRANSMITS, "retransmits", "rtx:%llu ");
	put_u64(tb, TONIC_A_FLOW_TIMEOUTS, "timeouts", "timeouts:%llu ");
	put_u64(tb, TONIC_A_FLOW_SEGS_OUT, "segs_out", "segs_out:%llu ");
	put_u64(tb, TONIC_A_FLOW_SEGS_IN, "segs_in", "segs_in:%llu ");
	put_u64(tb, TONIC_A_FLOW_BYTES_ACKED, "bytes_acked", "bytes_acked:%llu ");
	put_u64(tb, TONIC_A_FLOW_BYTES_RECEIVED, "bytes_received",
		"bytes_received:%llu ");
	put_u32(tb, TONIC_A_FLOW_RTT, "rtt_us", "rtt:%lluus ");
	put_u32(tb, TONIC_A_FLOW_UID, "uid", "uid:%llu ");
	put_u32(tb, TONIC_A_FLOW_INODE, "inode", "ino:%llu ");
	put_u32(tb, TONIC_A_FLOW_EVENT_REASON, "reason", "reason:%llu ");
}

static int flow_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TONIC_A_FLOW_MAX + 1];

	(void)data;
	tnl_parse(nlh, tb, TONIC_A_FLOW_MAX);
	out_obj_start(NULL);
	flow_print(tb);
	out_obj_end();
	out_nl();
	return MNL_CB_OK;
}

static int put_addr(struct nlmsghdr *nlh, int a4, int a6, const char *s)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, s, buf) == 1) {
		mnl_attr_put(nlh, a4, 4, buf);
		return 0;
	}
	if (inet_pton(AF_INET6, s, buf) == 1) {
		mnl_attr_put(nlh, a6, 16, buf);
		return 0;
	}
	fprintf(stderr, "tonic: flows: \"%s\" is not an IPv4 or IPv6 address\n", s);
	return -1;
}

static int get_num(const char *what, const char *s, unsigned long long max,
		   unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end || !*s || *v > max) {
		fprintf(stderr, "tonic: flows: bad %s \"%s\"\n", what, s);
		return -1;
	}
	return 0;
}

/* Add the filter words to @nlh; -1 on a bad word.  *@id is set by "id". */
static int flows_args(struct nlmsghdr *nlh, int argc, char **argv,
		      unsigned long long *id)
{
	unsigned long long v;

	for (; argc > 0; argc -= 2, argv += 2) {
		const char *k = argv[0];

		if (argc < 2) {
			fprintf(stderr, "tonic: flows: \"%s\" needs a value\n", k);
			return -1;
		}
		if (!strcmp(k, "src")) {
			if (put_addr(nlh, TONIC_A_FLOW_SADDR4, TONIC_A_FLOW_SADDR6, argv[1]))
				return -1;
		} else if (!strcmp(k, "dst")) {
			if (put_addr(nlh, TONIC_A_FLOW_DADDR4, TONIC_A_FLOW_DADDR6, argv[1]))
				return -1;
		} else if (!strcmp(k, "sport") || !strcmp(k, "dport")) {
			if (get_num("port", argv[1], 65535, &v))
				return -1;
			mnl_attr_put_u16(nlh, k[0] == 's' ? TONIC_A_FLOW_SPORT :
					 TONIC_A_FLOW_DPORT, v);
		} else if (!strcmp(k, "prog")) {
			mnl_attr_put_strz(nlh, TONIC_A_FLOW_PROG, argv[1]);
		} else if (!strcmp(k, "id")) {
			if (get_num("id", argv[1], ~0ULL, id))
				return -1;
		} else {
			fprintf(stderr, "tonic: flows: unknown filter \"%s\", try \"tonic help\"\n",
				k);
			return -1;
		}
	}
	return 0;
}

static int do_flows(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned long long id = 0;
	struct nlmsghdr *nlh;
	struct tnl t;
	int ret;

	if (argc > 0 && !strcmp(argv[0], "show")) {
		argc--;
		argv++;
	}
	if (tnl_open(&t))
		return 1;
	nlh = tnl_req(&t, buf, TONIC_CMD_FLOW_GET, NLM_F_DUMP);
	if (flows_args(nlh, argc, argv, &id)) {
		tnl_close(&t);
		return 1;
	}
	if (id) {
		nlh = tnl_req(&t, buf, TONIC_CMD_FLOW_GET, 0);
		mnl_attr_put_u64(nlh, TONIC_A_FLOW_ID, id);
	}
	out_arr_start(NULL);
	ret = tnl_talk(&t, nlh, flow_cb, NULL, "flows");
	out_arr_end();
	tnl_close(&t);
	return ret ? 1 : 0;
}

void flows_usage(void)
{
	fprintf(stderr,
		"       tonic [-j [-p]] flows [show] [ FILTER ]...\n"
		"         FILTER := src ADDR | dst ADDR | sport PORT | dport PORT |\n"
		"                   prog NAME | id ID\n");
}

int flows_main(int argc, char **argv)
{
	return do_flows(argc - 1, argv + 1);
}
