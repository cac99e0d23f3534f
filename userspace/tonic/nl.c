// SPDX-License-Identifier: GPL-2.0
/*
 * tonic CLI: generic netlink client of the "tonic" family (libmnl) and
 * the output helpers.  Kernel errors are printed with their extack text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

int tonic_json;
int tonic_pretty;

/* ---- netlink ---- */

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type <= CTRL_ATTR_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

static void find_group(struct tnl *t, const struct nlattr *groups)
{
	const struct nlattr *grp;

	mnl_attr_for_each_nested(grp, groups) {
		const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};
		const struct nlattr *a;

		mnl_attr_for_each_nested(a, grp)
			if (mnl_attr_get_type(a) <= CTRL_ATTR_MCAST_GRP_MAX)
				tb[mnl_attr_get_type(a)] = a;
		if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
			    TONIC_MCGRP_EVENTS))
			t->events_grp = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	}
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};
	struct tnl *t = data;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		t->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_MCAST_GROUPS])
		find_group(t, tb[CTRL_ATTR_MCAST_GROUPS]);
	return MNL_CB_OK;
}

/* NLMSG_ERROR: keep errno and the extack message for tnl_talk(). */
static char tnl_extack[256];

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	unsigned int off;

	(void)data;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	off = sizeof(*err);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(err->msg);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		mnl_attr_for_each(a, nlh, off)
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
				snprintf(tnl_extack, sizeof(tnl_extack), "%s",
					 mnl_attr_get_str(a));
	}
	errno = -err->error;
	return MNL_CB_ERROR;
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_STOP;
}

static mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

static int run(struct tnl *t, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_DUMP_SIZE];
	unsigned int portid = mnl_socket_get_portid(t->sk);
	int ret;

	tnl_extack[0] = '\0';
	do {
		ret = mnl_socket_recvfrom(t->sk, buf, sizeof(buf));
		if (ret <= 0)
			return -1;
		ret = mnl_cb_run2(buf, ret, t->seq, portid, cb, data, ctl_cb,
				  NLMSG_MIN_TYPE);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

int tnl_open(struct tnl *t)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;
	int one = 1;

	memset(t, 0, sizeof(*t));
	t->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!t->sk || mnl_socket_bind(t->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "tonic: netlink socket: %s\n", strerror(errno));
		return -1;
	}
	mnl_socket_setsockopt(t->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	t->seq = time(NULL);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++t->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TONIC_FAMILY_NAME);
	if (mnl_socket_sendto(t->sk, nlh, nlh->nlmsg_len) < 0 ||
	    run(t, family_cb, t) < 0 || !t->family) {
		if (errno == ENOENT)
			fprintf(stderr, "tonic: the tonic module is not loaded "
				"(modprobe tonic / insmod tonic.ko)\n");
		else
			fprintf(stderr, "tonic: looking up the tonic netlink family: %s\n",
				strerror(errno));
		mnl_socket_close(t->sk);
		t->sk = NULL;
		return -1;
	}
	return 0;
}

void tnl_close(struct tnl *t)
{
	if (t->sk)
		mnl_socket_close(t->sk);
	t->sk = NULL;
}

struct nlmsghdr *tnl_req(struct tnl *t, char *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = t->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++t->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = TONIC_FAMILY_VERSION;
	return nlh;
}

int tnl_talk(struct tnl *t, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
	     const char *what)
{
	if (mnl_socket_sendto(t->sk, nlh, nlh->nlmsg_len) < 0 ||
	    run(t, cb, data) < 0) {
		int e = errno;

		fprintf(stderr, "tonic: %s: %s", what, strerror(e));
		if (tnl_extack[0])
			fprintf(stderr, ": %s", tnl_extack);
		if (e == EPERM)
			fprintf(stderr, " (needs CAP_NET_ADMIN in this network namespace)");
		fputc('\n', stderr);
		return -1;
	}
	return 0;
}

struct parse_ctx {
	const struct nlattr **tb;
	int max;
};

static int parse_cb(const struct nlattr *attr, void *data)
{
	struct parse_ctx *p = data;
	int type = mnl_attr_get_type(attr);

	if (type <= p->max)
		p->tb[type] = attr;
	return MNL_CB_OK;
}

void tnl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, int max)
{
	struct parse_ctx p = { tb, max };

	memset(tb, 0, sizeof(*tb) * (max + 1));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &p);
}

/* ---- output ---- */

#define OUT_DEPTH 8
static int out_depth;
static bool out_first[OUT_DEPTH] = { true };

static void json_sep(const char *key)
{
	if (!out_first[out_depth])
		putchar(',');
	out_first[out_depth] = false;
	if (tonic_pretty && out_depth) {
		putchar('\n');
		printf("%*s", out_depth * 4, "");
	}
	if (key)
		printf(tonic_pretty ? "\"%s\": " : "\"%s\":", key);
}

static void json_push(char c)
{
	putchar(c);
	if (out_depth < OUT_DEPTH - 1)
		out_depth++;
	out_first[out_depth] = true;
}

static void json_pop(char c)
{
	bool empty = out_first[out_depth];

	if (out_depth)
		out_depth--;
	if (tonic_pretty && !empty) {
		putchar('\n');
		printf("%*s", out_depth * 4, "");
	}
	putchar(c);
	if (!out_depth) {
		putchar('\n');
		out_first[0] = true;
		fflush(stdout);
	}
}

void out_obj_start(const char *key)
{
	if (!tonic_json)
		return;
	json_sep(key);
	json_push('{');
}

void out_obj_end(void)
{
	if (tonic_json)
		json_pop('}');
}

void out_arr_start(const char *key)
{
	if (!tonic_json)
		return;
	json_sep(key);
	json_push('[');
}

void out_arr_end(void)
{
	if (tonic_json)
		json_pop(']');
}

void out_open(void)
{
}

void out_close(void)
{
	fflush(stdout);
}

void out_u64(const char *key, const char *fmt, uint64_t v)
{
	if (tonic_json) {
		json_sep(key);
		printf("%llu", (unsigned long long)v);
	} else if (fmt) {
		printf(fmt, (unsigned long long)v);
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

void out_str(const char *key, const char *fmt, const char *s)
{
	if (tonic_json) {
		json_sep(key);
		json_string(s);
	} else if (fmt) {
		printf(fmt, s);
	}
}

void out_bool(const char *key, const char *fmt, bool v)
{
	if (tonic_json) {
		json_sep(key);
		printf(v ? "true" : "false");
	} else if (fmt && v) {
		printf("%s", fmt);
	}
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (tonic_json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void out_nl(void)
{
	if (!tonic_json) {
		putchar('\n');
		fflush(stdout);
	}
}
