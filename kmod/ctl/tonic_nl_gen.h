/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/tonic.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_TONIC_GEN_H
#define _LINUX_TONIC_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/tonic_netlink.h>

/* Ops table for tonic */
extern const struct genl_split_ops tonic_nl_ops[8];

int tonic_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int tonic_nl_flow_get_doit(struct sk_buff *skb, struct genl_info *info);
int tonic_nl_flow_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int tonic_nl_prog_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int tonic_nl_prog_default_get_doit(struct sk_buff *skb, struct genl_info *info);
int tonic_nl_prog_default_set_doit(struct sk_buff *skb, struct genl_info *info);
int tonic_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info);
int tonic_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	TONIC_NLGRP_EVENTS,
};

#endif /* _LINUX_TONIC_GEN_H */
