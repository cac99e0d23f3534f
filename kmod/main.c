// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: module init and exit.
 *
 * Each init step has a matching exit step; a failed init unwinds the
 * steps already taken in reverse order, and module exit runs them all in
 * reverse.
 */
#include <linux/module.h>

#include "protocol.h"

static int __init tonic_init(void)
{
	int err;

	err = tonic_pernet_init();
	if (err)
		goto out;

	pr_info("tonic: loaded\n");
	return 0;
out:
	return err;
}

static void __exit tonic_exit(void)
{
	tonic_pernet_exit();
	pr_info("tonic: unloaded\n");
}

module_init(tonic_init);
module_exit(tonic_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tonic: programmable transport protocols for ordinary sockets");
MODULE_AUTHOR("Tonic for Linux developers");
