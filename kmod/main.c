// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: module init and exit.
 *
 * Each init step has a matching exit step; a failed init unwinds the
 * steps already taken in reverse order, and module exit runs them all in
 * reverse.
 */
#include <linux/module.h>
#include <net/sock.h>

#include "protocol.h"

int tonic_protocol = IPPROTO_TONIC;
module_param_named(protocol, tonic_protocol, int, 0444);
MODULE_PARM_DESC(protocol, "IP protocol number of Tonic (default 253)");
int tonic_default_encap = TONIC_ENCAP_UDP;
module_param_named(encap, tonic_default_encap, int, 0444);
MODULE_PARM_DESC(encap, "net.tonic.encap of new namespaces: 1 = UDP (default), 0 = raw IP");

static int __init tonic_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct tonic_skb_cb) > sizeof_field(struct sk_buff, cb));
	if (tonic_protocol <= 0 || tonic_protocol >= IPPROTO_MAX ||
	    tonic_protocol == IPPROTO_TCP || tonic_protocol == IPPROTO_UDP)
		return -EINVAL;
	if (tonic_default_encap != TONIC_ENCAP_IP &&
	    tonic_default_encap != TONIC_ENCAP_UDP)
		return -EINVAL;

	err = tonic_hash_init();
	if (err)
		goto out;
	err = tonic_socket_init();
	if (err)
		goto out_hash;
	err = tonic_pernet_init();
	if (err)
		goto out_proto;
	/* protocols by name, BPF programs: before sockets can exist */
	err = tonic_registry_init();
	if (err)
		goto out_pernet;
	err = tonic_ipv4_init();
	if (err)
		goto out_registry;
	err = tonic_ipv6_init();
	if (err)
		goto out_ipv4;
	/* Last: netlink requests may arrive as soon as it is registered. */
	err = tonic_nl_init();
	if (err)
		goto out_ipv6;

	pr_info("tonic: loaded, IP protocol %d\n", tonic_protocol);
	return 0;

out_ipv6:
	tonic_ipv6_exit();
out_ipv4:
	tonic_ipv4_exit();
out_registry:
	tonic_registry_exit();
out_pernet:
	tonic_pernet_exit();
out_proto:
	tonic_socket_exit();
out_hash:
	tonic_hash_exit();
out:
	return err;
}

static void __exit tonic_exit(void)
{
	tonic_nl_exit();
	tonic_ipv6_exit();
	tonic_ipv4_exit();
	tonic_registry_exit();
	tonic_pernet_exit();
	tonic_socket_exit();
	tonic_hash_exit();
	pr_info("tonic: unloaded\n");
}

module_init(tonic_init);
module_exit(tonic_exit);

/* __stringify keeps names, so the numbers are written out: 2 = PF_INET,
 * 10 = PF_INET6, 253 = IPPROTO_TONIC, 1 = SOCK_STREAM.
 */
MODULE_ALIAS("net-pf-2-proto-253-type-1");
MODULE_ALIAS("net-pf-10-proto-253-type-1");
MODULE_ALIAS("net-pf-2-proto-253");
MODULE_ALIAS("net-pf-10-proto-253");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tonic: programmable transport protocols for ordinary sockets");
MODULE_AUTHOR("Tonic for Linux developers");
