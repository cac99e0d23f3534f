// SPDX-License-Identifier: GPL-2.0
/*
 * foreign_kfunc - a TCP congestion-control struct_ops program that calls a
 * tonic kfunc.  STRUCT_OPS kfuncs are visible to every struct_ops type, so
 * tonic.ko filters them: loading this must fail with "calling kernel
 * function bpf_tonic_count_acked is not allowed"
 * (selftests/vm/test_bpf_load.sh).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

extern u32 bpf_tonic_count_acked(struct tonic_flow_ctx *fl, u32 from,
				 u32 to) __ksym;

SEC("struct_ops/foreign_ssthresh")
u32 BPF_PROG(foreign_ssthresh, struct sock *sk)
{
	return bpf_tonic_count_acked((struct tonic_flow_ctx *)sk, 0, 1) + 2;
}

SEC("struct_ops/foreign_cong_avoid")
void BPF_PROG(foreign_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
}

SEC("struct_ops/foreign_undo_cwnd")
u32 BPF_PROG(foreign_undo_cwnd, struct sock *sk)
{
	return 2;
}

SEC(".struct_ops.link")
struct tcp_congestion_ops foreign_ops = {
	.ssthresh = (void *)foreign_ssthresh,
	.cong_avoid = (void *)foreign_cong_avoid,
	.undo_cwnd = (void *)foreign_undo_cwnd,
	.name = "tonic_foreign",
};

char _license[] SEC("license") = "GPL";
