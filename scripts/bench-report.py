#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the records of scripts/bench-vm.sh into the benchmark report.

    bench-report.py BENCH_DIR RESULTS_DIR

Reads BENCH_DIR/meta.json and BENCH_DIR/runs.jsonl; writes
RESULTS_DIR/bench.json (summary, goals, every run), RESULTS_DIR/bench.md
(the table), RESULTS_DIR/bench-*.png (gnuplot), prints the table, and
refreshes the results section of Documentation/benchmarks.md between its
<!-- bench:begin --> and <!-- bench:end --> markers.

Per (path, stack): medians over the repetitions for goodput, CPU and
retransmissions; RPC latency percentiles from the pooled histograms of all
repetitions. Ratios are Tonic / TCP cubic on the same path. Nothing is
invented: a missing measurement is "n/a (reason)".
"""
import glob
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

TCG_NOTE = ("Measured in a qemu TCG (software-emulated) guest with 2 vCPUs on a shared host: "
            "absolute numbers are ~40x below native and noisy; only the comparison between "
            "stacks in the same run means anything.")
REF = "tcp-cubic"


def load(bench_dir):
    with open(os.path.join(bench_dir, "meta.json")) as f:
        meta = json.load(f)
    runs = []
    with open(os.path.join(bench_dir, "runs.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line:
                runs.append(json.loads(line))
    return meta, runs


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pooled_quantiles(hists, qs):
    """Percentiles (us) of the union of [lo_ns, hi_ns, count] histograms."""
    buckets = {}
    for h in hists:
        for lo, hi, n in h:
            buckets[(lo, hi)] = buckets.get((lo, hi), 0) + n
    items = sorted(buckets.items())
    total = sum(n for _, n in items)
    out = {}
    if not total:
        return None, 0
    for q in qs:
        rank = max(1, math.ceil(q * total))
        seen = 0
        for (lo, hi), n in items:
            seen += n
            if seen >= rank:
                out[q] = (lo + hi) / 2 / 1000.0
                break
    return out, total


def summarize(meta, runs):
    paths = [p["name"] for p in meta["paths"]]
    stacks = [s["name"] for s in meta["stacks"]]
    rows = []
    for path in paths:
        for stack in stacks:
            row = {"path": path, "stack": stack}
            errors = []
            for mode in ("stream", "rr", "rrd"):
                rs = [r for r in runs if r["path"] == path and r["stack"] == stack
                      and r["mode"] == mode]
                ok = [r["result"] for r in rs if not r.get("error") and r.get("result")]
                errors += [r["error"] for r in rs if r.get("error")]
                row[mode + "_runs"] = len(rs)
                row[mode + "_ok"] = len(ok)
                if mode == "stream" and ok:
                    row["goodput_mbps"] = median([x["goodput_bps"] / 1e6 for x in ok])
                    row["cpu_s_per_gb"] = median([x["cpu_s_per_gb"] for x in ok])
                    row["machine_cpu_s_per_gb"] = median(
                        [x.get("machine_cpu_s_per_gb") for x in ok])
                    row["retrans_bytes"] = median([x["retrans_bytes"] for x in ok])
                    row["retrans_pct"] = median(
                        [100.0 * x["retrans_bytes"] / x["client"]["tx"]
                         for x in ok if x["client"]["tx"]])
                    row["timeouts"] = median([r["timeouts"] for r in rs
                                              if not r.get("error")
                                              and r.get("timeouts") is not None])
                    # Segments per skb (bench-vm.sh's counters, clean paths).
                    sg = [r["segs"] for r in rs if not r.get("error") and r.get("segs")]
                    # Received: wire packets over skbs (runs before the
                    # IpExt counters were read have no rx_pkts: n/a).
                    for end, num in (("tx", "tx_segs"), ("rx", "rx_pkts")):
                        v = median([x[num] / x[end + "_skbs"] for x in sg
                                    if x.get(end + "_skbs") and x.get(num) is not None])
                        if v is not None:
                            row[end + "_segs_per_skb"] = v
                    # Interrupts and softirqs per 1,000 segments sent.
                    for k in ("timer_irqs", "hrtimer_softirqs", "net_rx_softirqs", "ctxt"):
                        v = median([1000.0 * x["events"][k] / x["tx_segs"] for x in sg
                                    if x.get("events") and x.get("tx_segs")])
                        if v is not None:
                            row.setdefault("events_per_kseg", {})[k] = v
                if mode == "rr" and ok:
                    q, n = pooled_quantiles([x.get("latency_hist_ns") or [] for x in ok],
                                            (0.5, 0.99, 0.999))
                    if q:
                        row["rpc_p50_us"] = q[0.5]
                        row["rpc_p99_us"] = q[0.99]
                        row["rpc_p999_us"] = q[0.999]
                        row["rpc_samples"] = n
                    row["rpc_per_s"] = median([x["transactions_per_s"] for x in ok])
                if mode == "rrd" and ok:
                    q, n = pooled_quantiles([x.get("latency_hist_ns") or [] for x in ok],
                                            (0.5, 0.99))
                    if q:
                        row["rpcd_p50_us"] = q[0.5]
                        row["rpcd_p99_us"] = q[0.99]
            if errors:
                row["error"] = errors[0]
                row["failed_runs"] = len(errors)
            rows.append(row)
    # Ratios against TCP cubic on the same path.
    for row in rows:
        ref = next((r for r in rows if r["path"] == row["path"] and r["stack"] == REF), None)
        if not ref or row["stack"] == REF:
            continue
        for key, rkey in (("goodput_mbps", "goodput_ratio"), ("rpc_p99_us", "p99_ratio"),
                          ("cpu_s_per_gb", "cpu_ratio")):
            if row.get(key) is not None and ref.get(key):
                row[rkey] = row[key] / ref[key]
    return paths, stacks, rows


def goals(rows, stacks):
    def get(path, stack, key):
        r = next((x for x in rows if x["path"] == path and x["stack"] == stack), None)
        return None if r is None else r.get(key)

    def why(path, stack):
        r = next((x for x in rows if x["path"] == path and x["stack"] == stack), None)
        if r is None:
            return f"path {path} not run"
        return r.get("error") or "no measurement"

    tcp = [s for s in stacks if s.startswith("tcp")]
    # (goal, path, metric, best TCP, factor on it or None, op, absolute target)
    defs = [
        ("bulk goodput >= TCP at 0 % loss", "clean", "goodput_mbps", max, 1.0, ">=", None),
        ("bulk goodput >= 1.5x TCP at 1 % loss", "loss1", "goodput_mbps", max, 1.5, ">=", None),
        ("bulk goodput >= 2x TCP at 5 % loss", "loss5", "goodput_mbps", max, 2.0, ">=", None),
        ("1 KB RPC p99 at 1 % loss <= 1/10 of TCP's", "loss1", "rpc_p99_us", min, 0.1, "<=",
         None),
        ("1 KB RPC p99 at 1 % loss <= 2 ms", "loss1", "rpc_p99_us", min, None, "<=", 2000.0),
        ("1 KB RPC p50, socket defaults, <= 1.1x TCP's", "clean", "rpcd_p50_us", min, 1.1,
         "<=", None),
        ("retransmitted on the reorder path <= 0.1 %", "reorder", "retrans_pct", min, None,
         "<=", 0.1),
        ("CPU s/GB <= TCP's (bulk, 0 % loss)", "clean", "cpu_s_per_gb", min, 1.0, "<=", None),
        ("instructions per segment <= TCP's (bulk, 0 % loss)", "clean", "insn_per_seg", min,
         1.0, "<=", None),
        # The NIC path (issue 14): GSO in software before the device, GRO.
        ("NIC path: bulk goodput >= TCP", "clean-nic", "goodput_mbps", max, 1.0, ">=", None),
        ("NIC path: CPU s/GB <= TCP's", "clean-nic", "cpu_s_per_gb", min, 1.0, "<=", None),
        ("NIC path: instructions per segment <= TCP's", "clean-nic", "insn_per_seg", min,
         1.0, "<=", None),
    ]
    out = []
    for stack in [s for s in stacks if s.startswith("tonic")]:
        mine = [r for r in rows if r["stack"] == stack]
        if not any(r.get("goodput_mbps") is not None or r.get("rpc_p99_us") is not None
                   for r in mine):
            out.append({"goal": "all", "stack": stack, "tonic": None, "tcp_best": None,
                        "status": "not measured",
                        "reason": next((r["error"] for r in mine if r.get("error")),
                                       "no measurement")})
            continue
        for name, path, key, pick, factor, op, absolute in defs:
            # Goals of a path only some stacks run (clean-nic), or of a
            # measurement only some runs have (profiles), for those only.
            if (path == "clean-nic" or key == "insn_per_seg") and \
                    get(path, stack, "stream_runs") in (None, 0):
                continue
            if key == "insn_per_seg" and get(path, stack, key) is None:
                continue
            tv = [get(path, s, key) for s in tcp]
            tv = [v for v in tv if v is not None]
            mine = get(path, stack, key)
            g = {"goal": name, "stack": stack, "path": path, "metric": key,
                 "tonic": mine, "tcp_best": pick(tv) if tv else None}
            if mine is None:
                g["status"] = "not measured"
                g["reason"] = why(path, stack)
            elif not tv and absolute is None:
                g["status"] = "not measured"
                g["reason"] = "no TCP baseline"
            else:
                target = absolute if absolute is not None else pick(tv) * factor
                g["target"] = target
                met = mine >= target if op == ">=" else mine <= target
                g["status"] = "met" if met else "not met"
            out.append(g)
    return out


def fmt(v, digits=1):
    if v is None:
        return "n/a"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}f}"


def ratio(v):
    return "" if v is None else f"{v:.2f}x"


def table(paths, stacks, rows):
    head = ["path", "stack", "goodput Mb/s", "vs cubic", "RPC p50 us", "p99 us", "p999 us",
            "p99 vs cubic", "CPU s/GB", "vs cubic", "retx KB/run (%)", "timeouts/run"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    reasons = []
    # A stack with no measurement on any path gets one row ("all" paths).
    empty = {s for s in stacks
             if not any(r.get("goodput_mbps") is not None or r.get("rpc_p99_us") is not None
                        for r in rows if r["stack"] == s)}
    shown = [r for r in rows if r["stack"] not in empty]
    for s in [s for s in stacks if s in empty]:
        first = next(r for r in rows if r["stack"] == s)
        shown.append(dict(first, path="all"))
    for r in shown:
        if r.get("goodput_mbps") is None and r.get("rpc_p99_us") is None:
            reason = r.get("error", "no measurement")
            if reason not in reasons:
                reasons.append(reason)
            n = reasons.index(reason) + 1
            cells = [r["path"], r["stack"], f"n/a (reason {n})"] + ["n/a"] * (len(head) - 3)
        else:
            retx = "n/a"
            if r.get("retrans_bytes") is not None:
                retx = f"{r['retrans_bytes'] / 1000:.0f} ({r['retrans_pct']:.2f} %)"
            cells = [r["path"], r["stack"], fmt(r.get("goodput_mbps")),
                     ratio(r.get("goodput_ratio")), fmt(r.get("rpc_p50_us"), 0),
                     fmt(r.get("rpc_p99_us"), 0), fmt(r.get("rpc_p999_us"), 0),
                     ratio(r.get("p99_ratio")), fmt(r.get("cpu_s_per_gb")),
                     ratio(r.get("cpu_ratio")), retx, fmt(r.get("timeouts"), 0)]
            if r.get("failed_runs"):
                cells[1] += f" ({r['failed_runs']} runs failed)"
                reason = r["error"]
                if reason not in reasons:
                    reasons.append(reason)
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"{i + 1}. {x}" for i, x in enumerate(reasons)]
    return lines, notes


def goals_table(gs):
    lines = ["| goal | stack | Tonic | best TCP | status |", "|---|---|---|---|---|"]
    for g in gs:
        status = g["status"] + (f" ({g['reason']})" if g.get("reason") else "")
        d = 2 if g.get("metric") == "retrans_pct" else 1
        lines.append(f"| {g['goal']} | {g['stack']} | {fmt(g['tonic'], d)} | "
                     f"{fmt(g['tcp_best'], d)} | {status} |")
    return lines


def plots(paths, stacks, rows, bench_dir, results_dir):
    if not shutil.which("gnuplot"):
        print("bench-report: gnuplot not found, no plots", file=sys.stderr)
        return []
    made = []
    specs = [
        ("goodput", "goodput_mbps", "bulk goodput (Mb/s)", False),
        ("rpc-p99", "rpc_p99_us", "1 KB RPC latency p99 (us, log scale)", True),
        ("cpu", "cpu_s_per_gb", "CPU seconds per GB (both ends, getrusage)", False),
    ]
    for name, key, title, logy in specs:
        # Stacks without a single value are left out (gnuplot cannot draw an
        # empty column) and named in the title.
        have = [s for s in stacks
                if any(r.get(key) is not None for r in rows if r["stack"] == s)]
        missing = [s for s in stacks if s not in have]
        if not have:
            continue
        dat = os.path.join(bench_dir, f"plot-{name}.dat")
        with open(dat, "w") as f:
            f.write("path " + " ".join(have) + "\n")
            for p in paths:
                vals = []
                for s in have:
                    r = next((x for x in rows if x["path"] == p and x["stack"] == s), {})
                    v = r.get(key)
                    vals.append("NaN" if v is None else f"{v:.6g}")
                f.write(p + " " + " ".join(vals) + "\n")
        png = os.path.join(results_dir, f"bench-{name}.png")
        cols = " , ".join(f"'{dat}' using {i + 2}:xtic(1) title columnheader({i + 2})"
                          for i in range(len(have)))
        na = ("; n/a: " + ", ".join(missing)) if missing else ""
        script = f"""
set terminal pngcairo size 900,480 font ',10'
set output '{png}'
set title "{title}\\n(qemu TCG guest: relative comparison only{na})"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top right
set grid ytics
set yrange [{'1' if logy else '0'}:*]
{'set logscale y' if logy else ''}
plot {cols}
"""
        r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if r.returncode == 0:
            made.append(os.path.basename(png))
        else:
            print(f"bench-report: gnuplot failed for {name}: {r.stderr.strip()}",
                  file=sys.stderr)
    return made


def apps_section(bench_dir):
    """Unmodified iperf3, TCP against `tonic run` (bench-vm.sh apps.jsonl)."""
    try:
        with open(os.path.join(bench_dir, "apps.jsonl")) as f:
            recs = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []
    if not recs:
        return []
    out = ["", "## Unmodified programs: iperf3 under `tonic run` against TCP", "",
           "`iperf3 -c -J` and `iperf3 -s -1 -J` as they are (Linux TCP, cubic) and each "
           "started by `tonic run --` (Tonic, the namespace default program), path `loss1`, "
           "medians of the runs (`Documentation/offload.md`).", "",
           "| stack | runs | goodput Mb/s | ratio to TCP | retransmits (its TCP_INFO) | errors |",
           "|---|---|---|---|---|---|"]
    base = None
    for stack in ("iperf3-tcp", "iperf3-tonic-run"):
        rs = [r for r in recs if r.get("stack") == stack]
        if not rs:
            continue
        ok = [r["bps"] / 1e6 for r in rs if r.get("bps")]
        m = median(ok) if ok else None
        if stack == "iperf3-tcp":
            base = m
        rtx = [r["retransmits"] for r in rs if r.get("retransmits") is not None]
        errs = sorted({str(r.get("error")) for r in rs if not r.get("bps")})
        out.append(f"| {stack} | {len(rs)} | {fmt(m)} | "
                   f"{ratio(m / base) if (m and base and stack != 'iperf3-tcp') else '-'} | "
                   f"{median(rtx) if rtx else '-'} | "
                   f"{'; '.join(errs) or '-'} |")
    return out + programs_table(recs)


# (program, figure, record field, unit scale, unit)
PROGRAM_FIGURES = [
    ("redis", "redis-benchmark SET, 8 clients", "set_rps", 1, "requests/s"),
    ("redis", "redis-benchmark GET, 8 clients", "get_rps", 1, "requests/s"),
    ("nginx", "curl of a 20 MB file from nginx", "bps", 1e-6, "Mb/s"),
    ("scp", "scp (SFTP) of a 20 MB file from sshd", "bps", 1e-6, "Mb/s"),
]


def programs_table(recs):
    """redis, nginx + curl, sshd + scp: TCP against `tonic run` (apps.jsonl)."""
    if not any(r.get("app") in ("redis", "nginx", "scp") for r in recs):
        return []
    out = ["", "## Unmodified programs: redis, nginx, scp under `tonic run` against TCP", "",
           "Each program as it is (Linux TCP, cubic) and started by `tonic run --` (Tonic, the "
           "namespace default program) at both ends, path `loss1`, medians of the runs "
           "(`selftests/vm/apps.sh`; every run checks its data: the 300 KB redis value byte "
           "for byte, the files by SHA-256).", "",
           "| program | figure | TCP | `tonic run` | ratio to TCP | runs TCP / Tonic (failed) |",
           "|---|---|---|---|---|---|"]
    for app, what, field, scale, unit in PROGRAM_FIGURES:
        m, runs = {}, []
        for stack in ("tcp", "tonic-run"):
            rs = [r for r in recs if r.get("stack") == f"{app}-{stack}"]
            ok = [r[field] * scale for r in rs if not r.get("error") and r.get(field)]
            m[stack] = median(ok) if ok else None
            runs.append(f"{len(rs)} ({len(rs) - len(ok)})")
        if runs == ["0 (0)", "0 (0)"]:
            continue
        r = m["tonic-run"] / m["tcp"] if m["tcp"] and m["tonic-run"] else None
        def val(v):
            return "n/a" if v is None else f"{fmt(v)} {unit}"
        out.append(f"| {app} | {what} | {val(m['tcp'])} | {val(m['tonic-run'])} | "
                   f"{ratio(r) or '-'} | {' / '.join(runs)} |")
    return out


def profiles(bench_dir, rows):
    """Instructions per segment from the tcgprof reports (profile.*.txt)."""
    for f in glob.glob(os.path.join(bench_dir, "profile.*.txt")):
        with open(f) as fh:
            text = fh.read(4000)
        m = re.search(r"^# tcgprof (\S+), bulk on path (\S+)", text, re.M)
        n = re.search(r"([\d,]+) instructions per segment", text)
        if not m or not n:
            continue
        label, path = m.group(1), m.group(2)
        stack = label[:-len(path) - 1] if label.endswith("." + path) else label
        row = next((r for r in rows if r["path"] == path and r["stack"] == stack), None)
        b = re.search(r"([\d,]+) M instructions per second", text)
        if row is not None:
            row["insn_per_seg"] = float(n.group(1).replace(",", ""))
            if b:
                row["minsn_per_s"] = float(b.group(1).replace(",", ""))


def segs_section(rows):
    """Segments per skb, CPU and instructions per segment, clean paths."""
    have = [r for r in rows if r["path"] in ("clean", "clean-nic")
            and (r.get("tx_segs_per_skb") is not None or r.get("insn_per_seg") is not None)]
    if not have:
        return []
    out = ["", "## Segments per skb: all offloads off (`clean`) and the NIC path (`clean-nic`)",
           "",
           "`clean`: TSO, GSO, UDP segmentation and GRO off on both veths; `clean-nic`: GSO "
           "on with TSO and `tx-udp-segmentation` off (packets cut in software just before "
           "the device) and GRO on. Segments per skb at the sender's IP output: TCP "
           "`OutSegs / Ip OutRequests`, Tonic `SegsOut` over its data skbs (a UDP GSO "
           "super-packet is one: `SegsOut - GsoSegs + GsoPackets`); at the receiver's IP "
           "input: wire packets (`IpExt` `In*Pkts`, which count each segment of a GRO "
           "packet) over skbs (`Ip InReceives`). Instructions per "
           "segment: tcgprof, all guest instructions of the profiled run over its payload "
           "in 1448-byte units, and the guest's instruction rate in that run (M/s, both "
           "vCPUs): where two stacks run at the same rate, their goodput ratio is the "
           "inverse of their instructions ratio. Per 1,000 segments sent: the machine's "
           "local timer interrupts (`LOC`), `HRTIMER` softirqs and context switches.", "",
           "| path | stack | goodput Mb/s | CPU s/GB | segs/skb sent | segs/skb received "
           "| instructions/segment | M instructions/s | timer irqs | hrtimer softirqs "
           "| context switches |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in have:
        ev = r.get("events_per_kseg") or {}
        out.append(f"| {r['path']} | {r['stack']} | {fmt(r.get('goodput_mbps'))} | "
                   f"{fmt(r.get('cpu_s_per_gb'))} | {fmt(r.get('tx_segs_per_skb'))} | "
                   f"{fmt(r.get('rx_segs_per_skb'))} | {fmt(r.get('insn_per_seg'))} | "
                   f"{fmt(r.get('minsn_per_s'))} | {fmt(ev.get('timer_irqs'))} | "
                   f"{fmt(ev.get('hrtimer_softirqs'))} | {fmt(ev.get('ctxt'))} |")
    return out


def main():
    if len(sys.argv) != 3:
        print("usage: bench-report.py BENCH_DIR RESULTS_DIR", file=sys.stderr)
        return 2
    bench_dir, results_dir = sys.argv[1], sys.argv[2]
    if not os.path.exists(os.path.join(bench_dir, "meta.json")):
        print(f"bench-report: no results in {bench_dir} (did the VM run start?)",
              file=sys.stderr)
        return 1
    meta, runs = load(bench_dir)
    for when in ("before", "after"):
        try:
            with open(os.path.join(bench_dir, f"host-load.{when}")) as f:
                meta[f"host_load_{when}"] = f.read().strip()
        except OSError:
            pass
    paths, stacks, rows = summarize(meta, runs)
    profiles(bench_dir, rows)
    gs = goals(rows, stacks)
    os.makedirs(results_dir, exist_ok=True)
    lines, notes = table(paths, stacks, rows)
    glines = goals_table(gs)
    pngs = plots(paths, stacks, rows, bench_dir, results_dir)

    netem = "; ".join(f"`{p['name']}`: " + (f"netem `{p['netem']}`" if p["netem"] else "no qdisc")
                      for p in meta["paths"])
    md = [f"# Benchmark results ({meta['date']})", "",
          f"> {TCG_NOTE}", "",
          f"Kernel {meta['kernel']}, commit {meta['commit']}"
          + (" with uncommitted changes" if meta.get("uncommitted_changes") else "")
          + f", {meta['repeat']} x {meta['duration_s']:g} s per cell (interleaved), "
          + f"{meta['environment']}.", "",
          f"Paths (netem on both veth ends): {netem}.", ""]
    if meta.get("host_load_before"):
        md += [f"Host load average (1/5/15 min) before the run: {meta['host_load_before']}, "
               f"after: {meta.get('host_load_after', '?')} (the host has "
               f"{os.cpu_count()} CPUs; a busy host slows the guest unevenly).", ""]
    md += [
          "Goodput, CPU and retransmissions: bulk `stream` runs, medians. RPC: one 1 KB request "
          "and 1 KB response at a time on one connection, percentiles over all repetitions. "
          "Timeouts: the sender's retransmission timeouts in a bulk run (Tonic's `Timeouts`, "
          "TCP's `TCPTimeouts`), median. "
          "Ratios are against TCP cubic on the same path.", ""]
    md += lines
    if notes:
        md += ["", "Reasons:", ""] + notes
    dl = [r for r in rows if r.get("rpcd_p50_us") is not None]
    if dl:
        md += ["", "1 KB RPC with the socket's defaults (no `TCP_NODELAY`: Nagle's rule, and "
               "Tonic's flush of a partial segment), clean path:", "",
               "| stack | p50 us | p99 us |", "|---|---|---|"]
        md += [f"| {r['stack']} | {fmt(r['rpcd_p50_us'], 0)} | {fmt(r['rpcd_p99_us'], 0)} |"
               for r in dl]
    md += segs_section(rows)
    md += apps_section(bench_dir)
    md += ["", "## Goals (against the better of TCP cubic and reno, or absolute)", ""] + glines
    if pngs:
        md += ["", "## Plots", ""] + [f"![{p}]({p})" for p in pngs]
    md_text = "\n".join(md) + "\n"
    with open(os.path.join(results_dir, "bench.md"), "w") as f:
        f.write(md_text)
    slim = []
    for r in runs:
        r = dict(r)
        if r.get("result"):
            r["result"] = {k: v for k, v in r["result"].items() if k != "latency_hist_ns"}
        slim.append(r)
    with open(os.path.join(results_dir, "bench.json"), "w") as f:
        json.dump({"note": TCG_NOTE, "meta": meta, "summary": rows, "goals": gs,
                   "runs": slim}, f, indent=1)
        f.write("\n")

    # Refresh the results section of the benchmarks guide.
    guide = os.path.join(os.path.dirname(os.path.abspath(results_dir)), "benchmarks.md")
    if os.path.exists(guide):
        with open(guide) as f:
            text = f.read()
        b, e = "<!-- bench:begin -->", "<!-- bench:end -->"
        if b in text and e in text:
            body = (f"Run of {meta['date']}.\n\n" + "\n".join(md[2:]))
            body = body.replace("](bench", "](results/bench").replace("\n## ", "\n### ")
            text = (text[:text.index(b) + len(b)] + "\n" + body + "\n" + text[text.index(e):])
            with open(guide, "w") as f:
                f.write(text)

    print(f"# {TCG_NOTE}")
    print("\n".join(lines))
    for n in notes:
        print(n)
    print()
    print("\n".join(glines))
    print(f"\nbench: wrote {results_dir}/bench.json, bench.md"
          + (", " + ", ".join(pngs) if pngs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
