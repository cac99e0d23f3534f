#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Flat profile from a tcgprof window (userspace/tcgprof/tcgprof.c).

    tcgprof-report.py RAW KALLSYMS [--title T] [--bytes N] [--seg B] [--top N]

RAW holds "0xADDRESS INSNS EXECS" lines (guest instructions and executions
per translation block start address, user space as address 0); KALLSYMS is the
guest's /proc/kallsyms, dumped with kptr_restrict=0 (module and BPF symbols
included). Every block is charged to the text symbol at or below its
start: a block holds no taken branch, so it cannot leave that function;
the executions of the block at a symbol's own address are its calls.
Prints the share of the window's guest instructions per module and per
symbol; with --bytes (payload moved in the window), also instructions and
calls per segment of --seg bytes (default 1448, one MSS on a 1500-byte MTU).
"""
import argparse
import bisect
import collections
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


def load_raw(path):
    meta, rows = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                parts = line[1:].split()
                for i in range(0, len(parts) - 1):
                    meta.setdefault(parts[i], parts[i + 1])
                continue
            f = line.split()
            rows.append((int(f[0], 16), int(f[1]), int(f[2]) if len(f) > 2 else 0))
    return meta, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("kallsyms")
    ap.add_argument("--title", default="")
    ap.add_argument("--bytes", type=int, default=0)
    ap.add_argument("--seg", type=int, default=1448)
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()

    syms = load_kallsyms(args.kallsyms)
    addrs = [s[0] for s in syms]
    meta, rows = load_raw(args.raw)

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
    out.append(f"# {total:,} guest instructions in a {float(meta.get('seconds', 0)):.2f} s "
               f"window ({meta.get('vcpus', '?')} vCPUs), counted by qemu per translation "
               "block; shares are of all of them (guest user space is one bucket)")
    if segs:
        out.append(f"# {args.bytes:,} payload bytes = {segs:,.0f} segments of {args.seg} B: "
                   f"{total / segs:,.0f} instructions per segment")
    ipsh = "  insn/seg" if segs else ""

    out.append("")
    out.append(f"## per module\n{'share':>7}{ipsh}  module")
    for mod, c in per_mod.most_common():
        ips = f"{c / segs:10,.0f}" if segs else ""
        out.append(f"{100 * c / total:6.2f}%{ips}  {mod}")

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
