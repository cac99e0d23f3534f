// SPDX-License-Identifier: GPL-2.0
/*
 * The `tonic run` / `tonic offload` shim (issue 16): socket(AF_INET or
 * AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) called by a task of an
 * offloaded cgroup (or of a descendant) creates a Tonic socket.
 *
 * Not a protocol program: it attaches to the kernel's
 * update_socket_protocol() hook (fmod_ret), as the kernel's mptcpify
 * selftest does for MPTCP.  The CLI pins the link and the map under
 * /sys/fs/bpf/tonic/shim/.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define AF_INET		2
#define AF_INET6	10
#define SOCK_TYPE_MASK	0xf
#define IPPROTO_TONIC	253
#define MAX_LEVEL	32	/* cgroup depth searched */

char _license[] SEC("license") = "GPL";

/* Offloaded cgroup2 ids; the value is unused (reserved, 0). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u32);
} tonic_cgroups SEC(".maps");

/* Is the current task in an offloaded cgroup, or below one? */
static bool offloaded(void)
{
	__u64 id = bpf_get_current_cgroup_id();
	int level;

	if (bpf_map_lookup_elem(&tonic_cgroups, &id))
		return true;
	for (level = 1; level < MAX_LEVEL; level++) {
		id = bpf_get_current_ancestor_cgroup_id(level);
		if (!id)
			return false;
		if (bpf_map_lookup_elem(&tonic_cgroups, &id))
			return true;
	}
	return false;
}

SEC("fmod_ret/update_socket_protocol")
int BPF_PROG(tonic_shim, int family, int type, int protocol)
{
	if ((family != AF_INET && family != AF_INET6) ||
	    (type & SOCK_TYPE_MASK) != SOCK_STREAM ||
	    (protocol && protocol != IPPROTO_TCP))
		return protocol;
	return offloaded() ? IPPROTO_TONIC : protocol;
}
