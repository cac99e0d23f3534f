#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flat profile from a tcgprof window (userspace/tcgprof/tcgprof.c).

    tcgprof-report.py RAW KALLSYMS [--title T] [--bytes N] [--seg B] [--top N]
                      [--stages]

RAW holds "0xADDRESS INSNS EXECS" lines (guest instructions and executions
per translation block start address, user space as address 0); KALLSYMS is the
guest's /proc/kallsyms, dumped with kptr_restrict=0 (module and BPF symbols
included). Every block is charged to the text symbol at or below its
start: a block holds no taken branch, so it cannot leave that function;
the executions of the block at a symbol's own address are its calls.
Prints the share of the window's guest instructions per module and per
symbol; with --bytes (payload moved in the window), also instructions and
calls per segment of --seg bytes (default 1448, one MSS on a 1500-byte MTU).
With --stages, also the instructions per stage of the data path, each
symbol put in the first stage of STAGES whose pattern matches its name (the
module tonic.ko is one stage of its own): a coarse map, for comparing two
stacks on the same path.
"""
import argparse
import bisect
import collections
import re
import sys

KERNEL_START = 0xFFFF800000000000
# Past this distance from the nearest symbol below, an address is in no
# known function (freed init text, trampolines, an unlisted BPF program).
MAX_SYM_SIZE = 1 << 20


def load_kallsyms(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addr = int(parts[0], 16)
            if addr == 0:
                continue
            mod = parts[3].strip("[]") if len(parts) > 3 else "vmlinux"
            syms.append((addr, parts[2], mod))
    if not syms:
        sys.exit(f"tcgprof-report: no text symbols with addresses in {path} "
                 "(was kptr_restrict 0?)")
    syms.sort(key=lambda s: s[0])
    return syms


def load_raw(path, vcpu=None):
    """Rows of (address, instructions, executions); with @vcpu, the
    instructions of that vCPU only (executions stay all vCPUs').  Also
    each vCPU's total, in meta["per_vcpu"]."""
    meta, rows = {}, []
    per_vcpu = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                parts = line[1:].split()
                for i in range(0, len(parts) - 1):
                    meta.setdefault(parts[i], parts[i + 1])
                continue
            f = line.split()
            for i, c in enumerate(f[3:]):
                if i == len(per_vcpu):
                    per_vcpu.append(0)
                per_vcpu[i] += int(c)
            if vcpu is not None:
                if len(f) <= 3 + vcpu:
                    sys.exit(f"tcgprof-report: {path} has no column for vCPU {vcpu}")
                insns = int(f[3 + vcpu])
            else:
                insns = int(f[1])
            rows.append((int(f[0], 16), insns, int(f[2]) if len(f) > 2 else 0))
    meta["per_vcpu"] = per_vcpu
    return meta, rows

# Stages of the data path, first match wins.  Names as in 6.12's kallsyms.
STAGES = [
    ("skb and slab memory",
     r"kmem_cache_|__slab_free|___slab_alloc|slab_|kfree$|kfree_skb|__kfree_skb"
     r"|kmalloc|__alloc_skb|alloc_skb|skb_release_|skb_free_head|consume_skb"
     r"|napi_skb_cache|napi_consume_skb|__napi_kfree_skb|build_detached_freelist"
     r"|__build_skb|page_frag|skb_page_frag|__free_pages|free_unref|get_page_from"
     r"|__alloc_pages|rmqueue|skb_attempt_defer_free|sk_skb_reason_drop|__kmem_cache"),
    ("skb clone, copy, coalesce",
     r"__skb_clone|skb_clone|__copy_skb_header|pskb_expand_head|skb_headers_offset"
     r"|__pskb_copy|skb_try_coalesce|skb_condense|__pskb_pull_tail|skb_zerocopy_clone"
     r"|skb_split|skb_shift|__skb_unclone|memcpy|memmove|memset"),
    ("user copy", r"_copy_to_iter|_copy_from_iter|copy_page_|__check_object_size"
     r"|__virt_addr_valid|check_heap_object|simple_copy_to_iter|__skb_datagram_iter"
     r"|skb_copy_datagram|rep_movs|copy_user"),
    ("GSO", r"skb_segment|gso_segment|ufo_fragment|__skb_gso|skb_gso_|validate_xmit"
     r"|skb_mac_gso"),
    ("GRO", r"gro_|_gro$|napi_gro|skb_gro"),
    ("TCP", r"^_*tcp|^inet_csk|^inet6?_sk_rx_dst|^__inet6?_lookup|^inet6?_lookup|^tcp"),
    ("UDP", r"udp|inet_lookup_reuseport|portaddr"),
    ("IP receive and route",
     r"^ip_rcv|^ip_local_deliver|^ip_protocol_deliver|^ip_route_|^fib|^ip6_rcv"
     r"|^ipv6_rcv|^ip6_input|^ip6_route|^fib6|^rt6_|^__netif_receive|^netif_receive"
     r"|^ip_sublist|^ip_list_rcv|^l3mdev|early_demux|^ip6_protocol_deliver"
     r"|^ip_rcv_finish|^dst_release|^ipv4_dst_check|^map_id_range_down|^ip6_dst_check"),
    ("IP output, qdisc, device",
     r"^ip_|^ip6_|^__ip|^__dev_queue|^dev_|^sch_|qdisc|^neigh|^eth_|^veth|^__dev_forward"
     r"|^skb_scrub|^netif_rx|^__netif_rx|^enqueue_to_backlog|^process_backlog"
     r"|^net_rx_action|^__napi_poll|^napi_|^skb_clone_tx_timestamp|^ipv4_mtu|^csum"
     r"|^nf_|^__nf"),
    ("socket, syscall, wake-up",
     r"^sock_|^sk_|^__sk_|^__sock|^release_sock|^lock_sock|^__release_sock|^__sys_"
     r"|^__x64_sys|^do_syscall|^entry_|^syscall|^ksys_|^vfs_|^__fdget|^fput|^fdget"
     r"|^ep_|^__wake_up|^wake_up|^try_to_wake_up|^schedule|^__schedule|^finish_task"
     r"|^pick_next|^enqueue_task|^dequeue_task|^update_curr|^ttwu|^select_task_rq"
     r"|^security_|^bpf_lsm|^apparmor|^_raw_spin|^__rcu|^rcu_|^preempt|^__local_bh"
     r"|^local_bh|^irq|^__irq|^do_softirq|^__do_softirq|^handle_softirqs|^hrtimer"
     r"|^ktime_get|^read_tsc|^native_|^__x86|^sockfd|^__cond_resched|^mutex|^_copy"),
]
STAGE_RES = [(name, re.compile(pat)) for name, pat in STAGES]


def stage_of(name, mod):
    if mod == "tonic":
        return "tonic.ko"
    if mod == "[user]":
        return "user space"
    for stage, pat in STAGE_RES:
        if pat.search(name):
            return stage
    return "other"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("kallsyms")
    ap.add_argument("--title", default="")
    ap.add_argument("--bytes", type=int, default=0)
    ap.add_argument("--seg", type=int, default=1448)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--stages", action="store_true")
    ap.add_argument("--vcpu", type=int, default=None,
                    help="count only this vCPU's instructions (calls stay all vCPUs')")
    args = ap.parse_args()

    syms = load_kallsyms(args.kallsyms)
    addrs = [s[0] for s in syms]
    meta, rows = load_raw(args.raw, args.vcpu)

    per_sym = collections.Counter()
    per_mod = collections.Counter()
    calls = collections.Counter()
    total = 0
    for addr, count, execs in rows:
        total += count
        if addr < KERNEL_START:
            key, mod = ("[user]", "[user]"), "[user]"
        else:
            i = bisect.bisect_right(addrs, addr) - 1
            if i < 0 or addr - syms[i][0] > MAX_SYM_SIZE:
                key, mod = ("[kernel unknown]", "?"), "?"
            else:
                key, mod = (syms[i][1], syms[i][2]), syms[i][2]
                if addr == syms[i][0]:
                    calls[key] += execs
        per_sym[key] += count
        per_mod[mod] += count
    if not total:
        sys.exit(f"tcgprof-report: {args.raw} has no instructions")

    segs = args.bytes / args.seg if args.bytes else 0
    out = []
    out.append(f"# tcgprof {args.title}".rstrip())
    if args.vcpu is not None:
        out.append(f"# vCPU {args.vcpu} only: instructions and shares are that vCPU's,"
                   " calls/seg all vCPUs'")
    out.append(f"# {total:,} guest instructions in a {float(meta.get('seconds', 0)):.2f} s "
               f"window ({meta.get('vcpus', '?')} vCPUs), counted by qemu per translation "
               "block; shares are of all of them (guest user space is one bucket)")
    if segs:
        out.append(f"# {args.bytes:,} payload bytes = {segs:,.0f} segments of {args.seg} B: "
                   f"{total / segs:,.0f} instructions per segment")
        # How the work fell on the vCPUs (by role only if pinned:
        # BENCH_PIN=1), and the guest's instruction rate: the same rate
        # under two stacks means goodput follows instructions per segment.
        pv = meta["per_vcpu"]
        secs = float(meta.get("seconds", 0))
        if len(pv) > 1 and secs:
            out.append("# per vCPU: " + ", ".join(f"{c / segs:,.0f}" for c in pv) +
                       f" instructions per segment; {total / secs / 1e6:,.0f} M "
                       "instructions per second over all vCPUs")
    ipsh = "  insn/seg" if segs else ""

    out.append("")
    out.append(f"## per module\n{'share':>7}{ipsh}  module")
    for mod, c in per_mod.most_common():
        ips = f"{c / segs:10,.0f}" if segs else ""
        out.append(f"{100 * c / total:6.2f}%{ips}  {mod}")

    if args.stages:
        per_stage = collections.Counter()
        for (name, mod), c in per_sym.items():
            per_stage[stage_of(name, mod)] += c
        out.append("")
        out.append(f"## per stage\n{'share':>7}{ipsh}  stage")
        for stage, c in per_stage.most_common():
            ips = f"{c / segs:10,.0f}" if segs else ""
            out.append(f"{100 * c / total:6.2f}%{ips}  {stage}")

    out.append("")
    cpsh = " calls/seg" if segs else ""
    out.append(f"## top {args.top} symbols\n{'share':>7}{ipsh}{cpsh}  symbol [module]")
    for (name, mod), c in per_sym.most_common(args.top):
        ips = f"{c / segs:10,.0f}{calls[(name, mod)] / segs:10.2f}" if segs else ""
        where = "" if name.startswith("[") else f" [{mod}]"
        out.append(f"{100 * c / total:6.2f}%{ips}  {name}{where}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
