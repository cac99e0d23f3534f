/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tonic for Linux: private declarations shared by the module's files.
 */
#ifndef _TONIC_PROTOCOL_H
#define _TONIC_PROTOCOL_H

#include <net/net_namespace.h>
#include <net/netns/generic.h>

/**
 * struct tonic_net - per network namespace state
 * @net: the namespace this state belongs to
 */
struct tonic_net {
	struct net *net;
};

extern unsigned int tonic_net_id;

static inline struct tonic_net *tonic_pernet(const struct net *net)
{
	return net_generic(net, tonic_net_id);
}

/* pernet.c */
int tonic_pernet_init(void);
void tonic_pernet_exit(void);

#endif /* _TONIC_PROTOCOL_H */
