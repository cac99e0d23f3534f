/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tonic CLI: the generic netlink client of the "tonic" family (nl.c) and
 * the iproute2-style output helpers shared by the stats, flows, config
 * and monitor commands (text, -j JSON, -p pretty JSON).
 */
#ifndef TONIC_CLI_NL_H
#define TONIC_CLI_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/tonic_netlink.h>

#include "tonic.h"

/* libmnl 1.0.4 (bookworm) predates it; 32 KiB as in newer libmnl. */
#ifndef MNL_SOCKET_DUMP_SIZE
#define MNL_SOCKET_DUMP_SIZE	32768
#endif


/**
 * struct tnl - a netlink socket talking to the tonic family
 * @sk: libmnl socket
 * @family: the family id
 * @events_grp: multicast group id of "events"
 * @seq: sequence number of the last request
 */
struct tnl {
	struct mnl_socket *sk;
	uint16_t family;
	uint32_t events_grp;
	uint32_t seq;
};

/* Open and resolve the family; prints the reason and returns -1 on failure. */
int tnl_open(struct tnl *t);
void tnl_close(struct tnl *t);
/* Start a request of @cmd; NLM_F_DUMP in @flags for dumps. */
struct nlmsghdr *tnl_req(struct tnl *t, char *buf, uint8_t cmd, uint16_t flags);
/*
 * Send @nlh and run @cb on every answer.  On a kernel error prints
 * "tonic: @what: <strerror>: <extack>" and returns -1.
 */
int tnl_talk(struct tnl *t, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
	     const char *what);
/* Parse the attributes of a tonic message into @tb (max @max). */
void tnl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb, int max);

/* Output: one call prints text or JSON, like iproute2's print_*(PRINT_ANY). */
void out_open(void);			/* top-level { or [ per command */
void out_close(void);
void out_obj_start(const char *key);	/* key NULL inside arrays */
void out_obj_end(void);
void out_arr_start(const char *key);
void out_arr_end(void);
void out_u64(const char *key, const char *fmt, uint64_t v);
void out_str(const char *key, const char *fmt, const char *s);
void out_bool(const char *key, const char *fmt, bool v);
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_nl(void);			/* text newline; nothing in JSON */

/* Subcommands (argv[0] is the command's name): see tonic.h. */

/* Shared with monitor. */
void flow_print(const struct nlattr **tb);
void config_print(const struct nlattr **tb);
void prog_print(const struct nlattr **tb);
const char *tonic_state_name(unsigned int state);

#endif
