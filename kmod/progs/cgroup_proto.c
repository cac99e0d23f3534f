// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic for Linux: a protocol program per cgroup, for `tonic run
 * --protocol NAME` (the shim makes a cgroup's TCP sockets Tonic sockets;
 * this gives them a program without changing the application).
 *
 * The module parameter cgroup_protocol (root only) takes "ID NAME" to map
 * cgroup2 id ID (and its descendants) to protocol NAME, "-ID" to drop the
 * mapping; reading it lists "ID NAME" lines.  A new socket created by a
 * task of such a cgroup starts as if TONIC_PROTOCOL NAME had been set.
 */
#include <linux/cgroup.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>

#include "protocol.h"

#define TONIC_CGROUP_MAX	64

struct tonic_cgroup_proto {
	u64 id;
	char name[TONIC_PROTO_NAME_MAX];
};

static DEFINE_SPINLOCK(tonic_cgroup_lock);
static struct tonic_cgroup_proto tonic_cgroups[TONIC_CGROUP_MAX];
static int tonic_cgroup_count;

/* Index of @id in the table, or -1.  Caller holds tonic_cgroup_lock. */
static int tonic_cgroup_find(u64 id)
{
	int i;

	for (i = 0; i < tonic_cgroup_count; i++)
		if (tonic_cgroups[i].id == id)
			return i;
	return -1;
}

static int tonic_cgroup_set(const char *val, const struct kernel_param *kp)
{
	char name[TONIC_PROTO_NAME_MAX] = "";
	bool del = *val == '-';
	int i, err = 0;
	u64 id;

	if (sscanf(val + del, "%llu %15s", &id, name) < 1 || !id ||
	    (!del && !name[0]))
		return -EINVAL;
	spin_lock_bh(&tonic_cgroup_lock);
	i = tonic_cgroup_find(id);
	if (del) {
		if (i < 0)
			err = -ENOENT;
		else
			tonic_cgroups[i] = tonic_cgroups[--tonic_cgroup_count];
	} else {
		if (i < 0 && tonic_cgroup_count == TONIC_CGROUP_MAX)
			err = -ENOSPC;
		else if (i < 0)
			i = tonic_cgroup_count++;
		if (!err) {
			tonic_cgroups[i].id = id;
			strscpy(tonic_cgroups[i].name, name, TONIC_PROTO_NAME_MAX);
		}
	}
	spin_unlock_bh(&tonic_cgroup_lock);
	return err;
}

static int tonic_cgroup_get(char *buf, const struct kernel_param *kp)
{
	int i, n = 0;

	spin_lock_bh(&tonic_cgroup_lock);
	for (i = 0; i < tonic_cgroup_count; i++)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%llu %s\n",
			       tonic_cgroups[i].id, tonic_cgroups[i].name);
	spin_unlock_bh(&tonic_cgroup_lock);
	return n;
}

static const struct kernel_param_ops tonic_cgroup_ops = {
	.set = tonic_cgroup_set,
	.get = tonic_cgroup_get,
};
module_param_cb(cgroup_protocol, &tonic_cgroup_ops, NULL, 0600);
MODULE_PARM_DESC(cgroup_protocol,
		 "\"ID NAME\": sockets of cgroup ID use protocol NAME; \"-ID\" drops it");

/**
 * tonic_cgroup_protocol() - the protocol chosen for the current cgroup
 * @name: TONIC_PROTO_NAME_MAX bytes, set to the name if one is mapped
 *
 * Looks the current task's cgroup2 cgroup and its ancestors up, nearest
 * first.  @name is left alone when none is mapped.
 *
 * Context: process context (socket creation).
 */
void tonic_cgroup_protocol(char *name)
{
	struct cgroup *cgrp;
	int i = -1;

	if (!READ_ONCE(tonic_cgroup_count))
		return;
	spin_lock_bh(&tonic_cgroup_lock);
	rcu_read_lock();
	for (cgrp = task_dfl_cgroup(current); cgrp && i < 0;
	     cgrp = cgroup_parent(cgrp))
		i = tonic_cgroup_find(cgroup_id(cgrp));
	rcu_read_unlock();
	if (i >= 0)
		strscpy(name, tonic_cgroups[i].name, TONIC_PROTO_NAME_MAX);
	spin_unlock_bh(&tonic_cgroup_lock);
}
