// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/tonic.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "tonic_nl_gen.h"

#include <uapi/linux/tonic_netlink.h>

/* Integer value ranges */
static const struct netlink_range_validation tonic_a_config_segment_size_range = {
	.max	= 65000ULL,
};

static const struct netlink_range_validation tonic_a_config_flush_delay_us_range = {
	.max	= 1000000ULL,
};

static const struct netlink_range_validation tonic_a_config_rto_min_ms_range = {
	.min	= 1ULL,
	.max	= 60000ULL,
};

static const struct netlink_range_validation tonic_a_config_cnp_interval_us_range = {
	.max	= 1000000ULL,
};

static const struct netlink_range_validation tonic_a_config_wmem_default_range = {
	.min	= 4096ULL,
	.max	= 67108864ULL,
};

static const struct netlink_range_validation tonic_a_config_rmem_default_range = {
	.min	= 4096ULL,
	.max	= 67108864ULL,
};

static const struct netlink_range_validation tonic_a_config_rto_low_us_range = {
	.min	= 1ULL,
	.max	= 60000000ULL,
};

static const struct netlink_range_validation tonic_a_config_delack_us_range = {
	.min	= 1ULL,
	.max	= 1000000ULL,
};

static const struct netlink_range_validation tonic_a_config_rto_max_ms_range = {
	.min	= 1ULL,
	.max	= 120000ULL,
};

static const struct netlink_range_validation tonic_a_config_udp_port_range = {
	.min	= 1ULL,
	.max	= 65535ULL,
};

static const struct netlink_range_validation tonic_a_config_challenge_ack_limit_range = {
	.min	= 0ULL,
	.max	= 2147483647ULL,
};

/* TONIC_CMD_FLOW_GET - do */
static const struct nla_policy tonic_flow_get_do_nl_policy[TONIC_A_FLOW_ID + 1] = {
	[TONIC_A_FLOW_ID] = { .type = NLA_U64, },
};

/* TONIC_CMD_FLOW_GET - dump */
static const struct nla_policy tonic_flow_get_dump_nl_policy[TONIC_A_FLOW_PROG + 1] = {
	[TONIC_A_FLOW_FAMILY] = { .type = NLA_U16, },
	[TONIC_A_FLOW_SADDR4] = { .type = NLA_U32, },
	[TONIC_A_FLOW_DADDR4] = { .type = NLA_U32, },
	[TONIC_A_FLOW_SADDR6] = NLA_POLICY_EXACT_LEN(16),
	[TONIC_A_FLOW_DADDR6] = NLA_POLICY_EXACT_LEN(16),
	[TONIC_A_FLOW_SPORT] = { .type = NLA_U16, },
	[TONIC_A_FLOW_DPORT] = { .type = NLA_U16, },
	[TONIC_A_FLOW_PROG] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* TONIC_CMD_PROG_DEFAULT_SET - do */
static const struct nla_policy tonic_prog_default_set_nl_policy[TONIC_A_PROG_NAME + 1] = {
	[TONIC_A_PROG_NAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* TONIC_CMD_CONFIG_SET - do */
static const struct nla_policy tonic_config_set_nl_policy[TONIC_A_CONFIG_DELACK_MAX + 1] = {
	[TONIC_A_CONFIG_SEGMENT_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_segment_size_range),
	[TONIC_A_CONFIG_WINDOW] = NLA_POLICY_RANGE(NLA_U32, 1, 256),
	[TONIC_A_CONFIG_FLUSH_DELAY_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_flush_delay_us_range),
	[TONIC_A_CONFIG_SYN_RETRIES] = NLA_POLICY_RANGE(NLA_U32, 1, 127),
	[TONIC_A_CONFIG_FIN_RETRIES] = NLA_POLICY_RANGE(NLA_U32, 1, 127),
	[TONIC_A_CONFIG_RTO_MIN_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_rto_min_ms_range),
	[TONIC_A_CONFIG_CNP_INTERVAL_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_cnp_interval_us_range),
	[TONIC_A_CONFIG_WMEM_DEFAULT] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_wmem_default_range),
	[TONIC_A_CONFIG_RMEM_DEFAULT] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_rmem_default_range),
	[TONIC_A_CONFIG_RTO_LOW_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_rto_low_us_range),
	[TONIC_A_CONFIG_RTO_LOW_SEGS] = NLA_POLICY_RANGE(NLA_U32, 0, 256),
	[TONIC_A_CONFIG_DELACK_SEGS] = NLA_POLICY_RANGE(NLA_U32, 1, 256),
	[TONIC_A_CONFIG_DELACK_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_delack_us_range),
	[TONIC_A_CONFIG_RTO_MAX_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_rto_max_ms_range),
	[TONIC_A_CONFIG_ENCAP] = NLA_POLICY_RANGE(NLA_U32, 0, 1),
	[TONIC_A_CONFIG_UDP_PORT] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_udp_port_range),
	[TONIC_A_CONFIG_CHALLENGE_ACK_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &tonic_a_config_challenge_ack_limit_range),
	[TONIC_A_CONFIG_SYNCOOKIES] = NLA_POLICY_RANGE(NLA_U32, 0, 2),
	[TONIC_A_CONFIG_GSO_SEGS] = NLA_POLICY_RANGE(NLA_U32, 1, 64),
	[TONIC_A_CONFIG_DELACK_MAX] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
};

/* Ops table for tonic */
const struct genl_split_ops tonic_nl_ops[8] = {
	{
		.cmd	= TONIC_CMD_STATS_GET,
		.doit	= tonic_nl_stats_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= TONIC_CMD_FLOW_GET,
		.doit		= tonic_nl_flow_get_doit,
		.policy		= tonic_flow_get_do_nl_policy,
		.maxattr	= TONIC_A_FLOW_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= TONIC_CMD_FLOW_GET,
		.dumpit		= tonic_nl_flow_get_dumpit,
		.policy		= tonic_flow_get_dump_nl_policy,
		.maxattr	= TONIC_A_FLOW_PROG,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= TONIC_CMD_PROG_GET,
		.dumpit	= tonic_nl_prog_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= TONIC_CMD_PROG_DEFAULT_GET,
		.doit	= tonic_nl_prog_default_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= TONIC_CMD_PROG_DEFAULT_SET,
		.doit		= tonic_nl_prog_default_set_doit,
		.policy		= tonic_prog_default_set_nl_policy,
		.maxattr	= TONIC_A_PROG_NAME,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= TONIC_CMD_CONFIG_GET,
		.doit	= tonic_nl_config_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= TONIC_CMD_CONFIG_SET,
		.doit		= tonic_nl_config_set_doit,
		.policy		= tonic_config_set_nl_policy,
		.maxattr	= TONIC_A_CONFIG_DELACK_MAX,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group tonic_nl_mcgrps[] = {
	[TONIC_NLGRP_EVENTS] = { "events", },
};
