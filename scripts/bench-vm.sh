#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (started once by `make bench`): tonic-perf between two
# network namespaces joined by a veth pair, over every path, for every
# stack (Tonic with its default program and each other program, TCP cubic,
# TCP reno), in bulk (stream) and 1 KB request/response (rr) mode.
#
#   bench-vm.sh OUT_DIR
#
# Writes OUT_DIR/meta.json and OUT_DIR/runs.jsonl (one record per run:
# path, stack, mode, and the tool's JSON line or why there is none).
# scripts/bench-report.py turns them into the table, JSON and plots.
#
# Each (path, stack, mode) runs BENCH_REPEAT times, interleaved with the
# other stacks, so that a slow moment of the (shared, emulated) machine does
# not land on one stack only; the report takes medians and pools latency
# histograms.
#
# Environment: BENCH_DURATION (seconds per run, default 3),
# BENCH_REPEAT (runs of each combination; default: up to 3, as many as fit
# in BENCH_BUDGET seconds, default 600),
# BENCH_PATHS / BENCH_STACKS (space-separated subsets by name),
# BENCH_TONIC_PROGS (program names, instead of asking `tonic prog list`),
# BENCH_PROFILE=1 or ="PATH..." (profile the first bulk run of each stack
# at 1 % loss, or on each PATH: with BENCH_PROFILER=tcgprof, set by
# scripts/bench.sh when qemu has the tcgprof plugin, the run is framed for
# the plugin; otherwise perf record -a), BENCH_NIC_STACKS (the stacks run
# on clean-nic; default tonic, tcp-cubic and tcp-reno), BENCH_PIN=1 (the
# client on vCPU 0, the server on vCPU 1, so that a profile split by vCPU
# shows what each side's CPU carries).
#
# Two network configurations, the same for every stack.  Every path but
# clean-nic has all offloads off: TSO, GSO, UDP segmentation and GRO, so
# TCP's GSO packets and Tonic's UDP GSO super-packets are cut before the
# veth and nobody gets GRO.  clean-nic models a NIC without TSO/USO: the
# sender cuts its GSO packets in software just before the device (GSO on,
# TSO and tx-udp-segmentation off), and the receiver has GRO on.  It has
# no netem: netem on the receiver's ingress (set_path) would see GRO's
# packets and drop TCP's 64 KB aggregates whole.
set -u
out=${1:?usage: bench-vm.sh OUT_DIR}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
mkdir -p "$out"
out=$(cd "$out" && pwd)
perf=$repo/build/tonic-perf
dur=${BENCH_DURATION:-3}
reps=${BENCH_REPEAT:-}
A=tb-a
B=tb-b
PORT=5201
pin_cli=() pin_srv=()
if [ "${BENCH_PIN:-0}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
	pin_cli=(taskset -c 0) pin_srv=(taskset -c 1)
fi
runs=$out/runs.jsonl
: >"$runs"

# name|netem arguments (applied to what each veth end receives, so loss
# and delay hit data and acknowledgements alike; empty = no qdisc).
ALL_PATHS=(
	"clean|"
	"clean-nic|"
	"loss0.1|delay 100us loss 0.1%"
	"loss1|delay 100us loss 1%"
	"loss5|delay 100us loss 5%"
	"reorder|delay 100us reorder 10% 50%"
)

log() { echo "bench: $*" >&2; }

# Profiling (see the main loop): the host's report needs the addresses of
# every kernel, module and BPF symbol; BPF programs get theirs when loaded.
profiler=
case ${BENCH_PROFILE:-0} in
0 | "") ;;
*)
	profiler=perf
	[ "${BENCH_PROFILER:-}" = tcgprof ] && profiler=tcgprof
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo 1 >/proc/sys/net/core/bpf_jit_kallsyms 2>/dev/null
	;;
esac

[ -x "$perf" ] || { log "missing $perf"; exit 1; }

# ---- the two namespaces ----
setup_net() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	ip netns add $A && ip netns add $B &&
	ip link add va netns $A type veth peer name vb netns $B &&
	ip -n $A addr add 10.77.0.1/24 dev va &&
	ip -n $B addr add 10.77.0.2/24 dev vb &&
	ip -n $A link set lo up && ip -n $B link set lo up &&
	ip -n $A link set va up && ip -n $B link set vb up || return 1
	set_offloads off
	# netem runs where packets arrive, on an ifb fed by the veth's
	# ingress (set_path): an egress qdisc would see TCP's GSO packets
	# before they are cut (GSO is always on for TCP) and drop 64 KB
	# bursts whole, one loss event where Tonic gets about 45.
	ip -n $A link add ifa type ifb && ip -n $A link set ifa up &&
	ip -n $B link add ifb type ifb && ip -n $B link set ifb up
}

# set_offloads off|nic: the network configuration (see the top).
set_offloads() {
	local k="tso off gso off gro off tx-udp-segmentation off"

	[ "$1" = nic ] && k="tso off tx-udp-segmentation off gso on gro on"
	# shellcheck disable=SC2086
	ip netns exec $A ethtool -K va $k >/dev/null 2>&1
	# shellcheck disable=SC2086
	ip netns exec $B ethtool -K vb $k >/dev/null 2>&1
}

# snap NS: NS's IP and TCP counters (IpOutRequests, TcpInSegs,
# IpExtInNoECTPkts, ...), Tonic's (/proc/net/tonic_stat) and the
# machine's interrupts, softirqs and context switches (EvLOC, EvHRTIMER,
# EvNET_RX, Evctxt: summed over CPUs) as one JSON object.
snap() {
	local files="/proc/net/snmp /proc/net/netstat /proc/interrupts /proc/softirqs /proc/stat"

	[ -e /proc/net/tonic_stat ] && files="$files /proc/net/tonic_stat"
	# shellcheck disable=SC2086
	ip netns exec "$1" awk '
		FILENAME ~ /^\/proc\/(interrupts|softirqs|stat)$/ {
			if ($1 == "LOC:" || $1 == "HRTIMER:" || $1 == "NET_RX:") {
				v = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) v += $i
				printf "%s\"Ev%s\": %s", (c++ ? ", " : "{"),
					substr($1, 1, length($1) - 1), v
			} else if ($1 == "ctxt")
				printf "%s\"Evctxt\": %s", (c++ ? ", " : "{"), $2
			next }
		$1 ~ /^(Ip|Tcp|IpExt|TcpExt):$/ && !($1 in h) {
			h[$1] = 1; for (i = 2; i <= NF; i++) n[$1, i] = $i; next }
		$1 ~ /^(Ip|Tcp|IpExt|TcpExt):$/ {
			for (i = 2; i <= NF; i++)
				printf "%s\"%s%s\": %s", (c++ ? ", " : "{"),
					substr($1, 1, length($1) - 1), n[$1, i], $i
			next }
		FILENAME ~ /tonic_stat/ && NF == 2 {
			printf "%s\"%s\": %s", (c++ ? ", " : "{"), $1, $2 }
		END { print (c ? "}" : "{}") }' $files 2>/dev/null || echo null
}

set_path() {
	local args=$1 dev ifb ns
	for ns in $A $B; do
		dev=va ifb=ifa
		[ "$ns" = "$B" ] && dev=vb ifb=ifb
		tc -n "$ns" qdisc del dev $dev ingress 2>/dev/null
		tc -n "$ns" qdisc del dev $ifb root 2>/dev/null
		# No redirect on the clean path: it costs every packet.
		[ -n "$args" ] || continue
		# shellcheck disable=SC2086
		tc -n $ns qdisc add dev $dev handle ffff: ingress &&
		tc -n $ns filter add dev $dev parent ffff: matchall \
			action mirred egress redirect dev $ifb &&
		tc -n $ns qdisc add dev $ifb root netem $args limit 100000 || return 1
	done
}

srv_pid=
start_server() {
	if [ -n "$srv_pid" ] && kill -0 "$srv_pid" 2>/dev/null; then
		return 0
	fi
	ip netns exec $B "${pin_srv[@]}" "$perf" -s -P $PORT -q 2>>"$out/server.log" &
	srv_pid=$!
	for _ in $(seq 100); do
		ip netns exec $B ss -Hltn "sport = :$PORT" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

stop_server() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
	srv_pid=
}

# ---- stacks ----
# name|tonic-perf arguments
STACKS=("tcp-cubic|-p tcp --cc cubic" "tcp-reno|-p tcp --cc reno")
tonic_reason=
# How far Tonic got, for the host: a kernel crash in one of the live states
# makes scripts/bench.sh measure TCP alone in a second boot.
tonic_state() { echo "$1" >"$out/tonic.state"; sync; }
tonic_state none

if [ -n "${BENCH_TONIC_SKIP:-}" ]; then
	tonic_reason=$BENCH_TONIC_SKIP
elif [ "$(cat "$out/build.status" 2>/dev/null || echo ok)" != ok ]; then
	tonic_reason=$(cat "$out/build.status")
elif [ ! -f tonic.ko ]; then
	tonic_reason="tonic.ko is not built"
else
	tonic_state loading
	if insmod ./tonic.ko 2>"$out/insmod.err"; then
		tonic_state loaded
	else
		tonic_reason="insmod tonic.ko failed: $(tr '\n' ' ' <"$out/insmod.err")"
		tonic_state none
	fi
fi

# Programs: load every BPF protocol the tree built (build/bpf/NAME.bpf.o
# for each bpf/NAME.bpf.c, but any whose name is taken already:
# a BPF "newreno" would replace the built-in default), then take what
# `tonic prog list` shows besides the default. BENCH_TONIC_PROGS names them
# instead. A program row is n/a when tonic-perf cannot select programs.
tonic_progs=()
loaded_progs=()
skipped_progs=()
prog_reason=
declare -A stack_reason=()
if [ -z "$tonic_reason" ]; then
	"$perf" -V | grep -q 'TONIC_PROTOCOL: yes' ||
		prog_reason="tonic-perf was built without TONIC_PROTOCOL (not in uapi/linux/tonic.h)"
	if [ -n "${BENCH_TONIC_PROGS+x}" ]; then
		read -r -a tonic_progs <<<"$BENCH_TONIC_PROGS"
	elif [ -x build/tonic ]; then
		before=$(build/tonic prog list 2>/dev/null | awk '{print ($1 == "*" ? $2 : $1)}')
		# Protocols are the programs under bpf/ (selftests/progs/ are tests).
		for src in bpf/*.bpf.c; do
			name=$(basename "$src" .bpf.c)
			obj=build/bpf/$name.bpf.o
			[ -f "$obj" ] || { log "$obj is not built"; continue; }
			if grep -qx "$name" <<<"$before"; then
				skipped_progs+=("$name")
				log "not loading $obj: a protocol named $name exists already (built in)"
				continue
			fi
			if build/tonic prog load "$obj" >>"$out/progs.log" 2>&1; then
				loaded_progs+=("$name")
			else
				log "tonic prog load $obj failed (see progs.log)"
			fi
		done
		if build/tonic prog list >"$out/progs.txt" 2>>"$out/progs.log"; then
			# "* name ..." marks the default, which the plain tonic row uses.
			# (No process substitution: the guest has no /dev/fd.)
			read -r -a tonic_progs <<<"$(awk '$1 != "*" && NF {print $1}' "$out/progs.txt" |
				tr '\n' ' ')"
		fi
	fi
fi
STACKS=("tonic|-p tonic" "${STACKS[@]}")
for p in "${tonic_progs[@]}"; do
	STACKS+=("tonic-$p|-p tonic --prog $p")
	[ -n "$prog_reason" ] && stack_reason[tonic-$p]=$prog_reason
done
[ -n "$prog_reason" ] && log "Tonic programs other than the default: n/a ($prog_reason)"

# Tonic's early demux hooks (net.tonic.early_demux) see every IP packet of
# a namespace where Tonic sockets live, TCP's too: TCP runs without them,
# as on a host without tonic.ko.
tonic_edemux() { # tonic_edemux STACK
	local v=0 ns
	case $1 in *tonic*) v=1 ;; esac
	for ns in $A $B; do
		ip netns exec "$ns" sysctl -qw net.tonic.early_demux=$v 2>/dev/null
	done
}

want() { # want LIST NAME: NAME is in the space-separated LIST (or LIST is empty)
	[ -z "$1" ] && return 0
	case " $1 " in *" $2 "*) return 0 ;; esac
	return 1
}

# ---- one run ----
total=0
done_n=0

# Set while a run is profiled by tcgprof: the label of its window.
prof_label=

run_one() { # run_one PATH NETEM STACK STACK_ARGS MODE
	local path=$1 netem=$2 stack=$3 sargs=$4 mode=$5 margs f err='' rc=0 rec='' line=
	f=$out/run.$path.$stack.$mode.$rep
	done_n=$((done_n + 1))
	margs="-m stream"
	[ "$mode" = rr ] && margs="-m rr -r 1024 -R 1024 --hist"
	# rrd: the same with the socket's defaults (no TCP_NODELAY): Nagle's
	# rule, and Tonic's flush of a partial segment, take part.
	[ "$mode" = rrd ] && margs="-m rr -r 1024 -R 1024 --hist --no-nodelay"
	if [ "${stack%%-*}" = tonic ] && [ -n "$tonic_reason" ]; then
		err=$tonic_reason
	elif [ -n "${stack_reason[$stack]:-}" ]; then
		err=${stack_reason[$stack]}
	elif ! start_server; then
		err="tonic-perf server did not start"
	fi
	: >"$f.out"
	tonic_edemux "$stack"
	local a0=null a1=null b0=null b1=null
	if [ -z "$err" ]; then
		# The counters of both ends around a bulk run: segments per
		# skb on a clean path, timeouts on every path.
		if [ "$mode" = stream ]; then
			a0=$(snap $A) b0=$(snap $B)
		fi
		# The tcgprof plugin on the host polls this file (every 20 ms):
		# its window is the client's whole run, setup to final drain.
		[ -n "$prof_label" ] && echo "start $prof_label" >"$out/tcgprof.ctl"
		# shellcheck disable=SC2086
		ip netns exec $A timeout -k 5 $((dur + 90)) "${pin_cli[@]}" "$perf" -H 10.77.0.2 -P $PORT \
			$sargs $margs -l "$dur" -q --label "$path/$stack/$mode" \
			>"$f.out" 2>"$f.err"
		rc=$?
		if [ -n "$prof_label" ]; then
			echo "stop $prof_label" >"$out/tcgprof.ctl"
			echo "$path ${f##*/}" >"$out/tcgprof.$prof_label.run"
		fi
		[ "$a0" != null ] && a1=$(snap $A) b1=$(snap $B)
	fi
	tail -n 1 "$f.out" >"$f.json"
	# One jq per run (processes are slow to start under TCG): the record
	# goes to runs.jsonl, the second line to the console.
	rec=$(jq -rn --arg path "$path" --arg netem "$netem" --arg stack "$stack" \
		--arg mode "$mode" --arg args "$sargs $margs" --arg rep "$rep" --arg err "$err" \
		--arg rc "$rc" --arg stderr "$(tail -n 3 "$f.err" 2>/dev/null | tr '\n' ' ')" \
		--argjson a0 "$a0" --argjson a1 "$a1" --argjson b0 "$b0" --argjson b1 "$b1" \
		'(try input catch null) as $r
		 | def d($x; $y; $k): (($y[$k] // 0) - ($x[$k] // 0));
		   # Segments and skbs at the sender'"'"'s IP output (Tonic: data
		   # segments, a super-packet one skb) and at the receiver'"'"'s IP
		   # input: wire packets (IpExt In*Pkts count a GRO packet'"'"'s
		   # segments) over skbs (Ip InReceives counts it once).
		   (if $b0 == null or $b1 == null then {} else
			{rx_pkts: (d($b0; $b1; "IpExtInNoECTPkts") + d($b0; $b1; "IpExtInECT1Pkts") +
				   d($b0; $b1; "IpExtInECT0Pkts") + d($b0; $b1; "IpExtInCEPkts"))} end) as $rx
		 | (if $a0 == null or $a1 == null or $b0 == null or $b1 == null or
		       $netem != "" then null
		    elif ($stack | startswith("tonic")) then
			{tx_segs: d($a0; $a1; "SegsOut"),
			 tx_skbs: (d($a0; $a1; "SegsOut") - d($a0; $a1; "GsoSegs") +
				   d($a0; $a1; "GsoPackets")),
			 rx_segs: d($b0; $b1; "SegsIn"), rx_skbs: d($b0; $b1; "IpInReceives")}
		    else
			{tx_segs: d($a0; $a1; "TcpOutSegs"), tx_skbs: d($a0; $a1; "IpOutRequests"),
			 rx_segs: d($b0; $b1; "TcpInSegs"), rx_skbs: d($b0; $b1; "IpInReceives")}
		    end) as $segs0
		 # The machine'"'"'s interrupts, softirqs and context switches
		 # during the run (both ends: A'"'"'s snapshots are global).
		 | (if $a0 == null or $a1 == null then {} else
			{events: {timer_irqs: d($a0; $a1; "EvLOC"),
				  hrtimer_softirqs: d($a0; $a1; "EvHRTIMER"),
				  net_rx_softirqs: d($a0; $a1; "EvNET_RX"),
				  ctxt: d($a0; $a1; "Evctxt")}} end) as $ev
		 | ($segs0 | if . == null then null else . + $rx + $ev end) as $segs
		 # Retransmission timeouts at the sender.
		 | (if $a0 == null or $a1 == null then null
		    elif ($stack | startswith("tonic")) then d($a0; $a1; "Timeouts")
		    else d($a0; $a1; "TcpExtTCPTimeouts") end) as $timeouts
		 | (if $err != "" then $err
		    elif ($r | type) != "object" then
			"tonic-perf exited \($rc) without a result: \($stderr)"
		    elif $rc != "0" or ($r.ok | not) then ($r.error // "failed, exit \($rc)")
		    else null end) as $e
		 | ({path: $path, netem: $netem, stack: $stack, mode: $mode, args: $args,
		     rep: ($rep | tonumber), result: (if ($r | type) == "object" then $r else null end),
		     segs: $segs, timeouts: $timeouts, error: $e} | tojson),
		   (if $e then "FAILED: \($e)"
		    elif $mode == "stream" then
			"\($r.goodput_bps / 1e6 * 100 | round / 100) Mb/s, \($r.cpu_s_per_gb * 100 | round / 100) CPU s/GB, \($r.retrans_bytes) B retransmitted"
		    else
			"p50 \($r.latency_us.p50 | round) us, p99 \($r.latency_us.p99 | round) us, p999 \($r.latency_us.p999 | round) us, \($r.transactions_per_s | round)/s"
		    end)' "$f.json" 2>/dev/null)
	line=${rec#*$'\n'}
	rec=${rec%%$'\n'*}
	if [ -z "$rec" ]; then
		rec=$(jq -cn --arg path "$path" --arg stack "$stack" --arg mode "$mode" \
			--arg rep "$rep" '{path: $path, stack: $stack, mode: $mode,
			rep: ($rep | tonumber), result: null, error: "bench: cannot read the result"}')
		line="FAILED: cannot read the result"
	fi
	echo "$rec" >>"$runs"
	log "[$done_n/$total] $path $stack $mode #$rep: $line"
	# A stack that cannot even be set up (socket or option refused) fails
	# the same way every time: its other runs take this reason directly.
	case $line in
	"FAILED: server: socket("* | "FAILED: server: setsockopt("* | "FAILED: socket("* | \
	"FAILED: setsockopt("*)
		stack_reason[$stack]=${line#FAILED: } ;;
	esac
}

# ---- main ----
setup_net || { log "cannot set up the namespaces"; exit 1; }
start_server || { log "the tonic-perf server did not start"; exit 1; }

# One short Tonic probe first: if Tonic cannot carry data, every Tonic row
# says why instead of timing out run after run.
if [ -z "$tonic_reason" ]; then
	tonic_state probing
	if ! ip netns exec $A timeout -k 5 60 "$perf" -H 10.77.0.2 -P $PORT -p tonic -l 1 \
			--verify -q --drain 10 >"$out/probe.out" 2>"$out/probe.err"; then
		tonic_reason="Tonic cannot carry data yet: $(tail -n 1 "$out/probe.out" |
			jq -r '.error // empty' 2>/dev/null)"
		[ "$tonic_reason" = "Tonic cannot carry data yet: " ] &&
			tonic_reason="Tonic probe failed: $(tail -n 2 "$out/probe.err" | tr '\n' ' ')"
	fi
fi
[ -n "$tonic_reason" ] && log "Tonic rows: n/a ($tonic_reason)"
# The same probe for each program, so that a program Tonic cannot select
# or run is n/a from the start and the repetition count below is right.
if [ -z "$tonic_reason" ]; then
	for p in "${tonic_progs[@]}"; do
		[ -n "${stack_reason[tonic-$p]:-}" ] && continue
		want "${BENCH_STACKS:-}" "tonic-$p" || continue
		if ! ip netns exec $A timeout -k 5 60 "$perf" -H 10.77.0.2 -P $PORT -p tonic \
				--prog "$p" -l 1 --verify -q --drain 10 >"$out/probe.$p.out" \
				2>"$out/probe.$p.err"; then
			stack_reason[tonic-$p]=$(tail -n 1 "$out/probe.$p.out" |
				jq -r '.error // empty' 2>/dev/null)
			[ -n "${stack_reason[tonic-$p]}" ] ||
				stack_reason[tonic-$p]="probe failed: $(tail -n 2 "$out/probe.$p.err" |
					tr '\n' ' ')"
			log "Tonic program $p: n/a (${stack_reason[tonic-$p]})"
		fi
	done
fi
lsmod | grep -q '^tonic ' && tonic_state running

paths=()
for p in "${ALL_PATHS[@]}"; do
	want "${BENCH_PATHS:-}" "${p%%|*}" && paths+=("$p")
done
stacks=()
for s in "${STACKS[@]}"; do
	want "${BENCH_STACKS:-}" "${s%%|*}" && stacks+=("$s")
done
# Without BENCH_REPEAT: up to 3 repetitions, as many as fit in about
# BENCH_BUDGET seconds (default 600) at ~2.5 s of setup per run.
runnable=0
for s in "${stacks[@]}"; do
	sname=${s%%|*}
	[ "${sname%%-*}" = tonic ] && [ -n "$tonic_reason" ] && continue
	[ -n "${stack_reason[$sname]:-}" ] && continue
	runnable=$((runnable + 1))
done
[ $runnable -gt 0 ] || runnable=1
if [ -z "$reps" ]; then
	reps=$(awk -v b="${BENCH_BUDGET:-600}" -v n=$((${#paths[@]} * runnable * 2)) \
		-v d="$dur" 'BEGIN { r = int(b / (n * (d + 2.5))); print (r < 1 ? 1 : (r > 3 ? 3 : r)) }')
fi
total=$((${#paths[@]} * ${#stacks[@]} * 2 * reps))
want "${BENCH_PATHS:-}" clean && total=$((total + ${#stacks[@]} * reps))
if want "${BENCH_PATHS:-}" clean-nic; then
	n=0
	for s in "${stacks[@]}"; do want "${BENCH_NIC_STACKS-tonic tcp-cubic tcp-reno}" "${s%%|*}" && n=$((n + 1)); done
	total=$((total - ${#stacks[@]} * 2 * reps + n * reps))
fi
log "${#paths[@]} paths x ${#stacks[@]} stacks ($runnable runnable) x 2 modes x $reps runs of $dur s"

jq -n --arg kernel "$(uname -r)" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--arg duration "$dur" --arg reps "$reps" --arg cpus "$(nproc)" --arg tonic_reason "$tonic_reason" \
	--arg commit "$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	--arg dirty "$(git -C "$repo" status --porcelain 2>/dev/null | grep -q . && echo yes || echo no)" \
	--arg progs "${tonic_progs[*]}" --arg skipped "${skipped_progs[*]}" \
	--arg paths "$(printf '%s\n' "${paths[@]}")" --arg stacks "$(printf '%s\n' "${stacks[@]}")" \
	'{kernel: $kernel, date: $date, duration_s: ($duration | tonumber),
	  repeat: ($reps | tonumber), cpus: ($cpus | tonumber),
	  commit: $commit, uncommitted_changes: ($dirty == "yes"),
	  tonic_unavailable: (if $tonic_reason == "" then null else $tonic_reason end),
	  tonic_programs: ($progs | split(" ") | map(select(. != ""))),
	  tonic_programs_not_loaded: ($skipped | split(" ") | map(select(. != ""))),
	  paths: ($paths | split("\n") | map(select(. != "") | split("|") | {name: .[0], netem: .[1]})),
	  stacks: ($stacks | split("\n") | map(select(. != "") | split("|") | {name: .[0], args: .[1]})),
	  environment: "qemu TCG guest, 2 vCPUs, veth between two network namespaces, TSO/GSO/UDP segmentation/GRO off except on clean-nic (GSO in software before the device, GRO at the receiver)"}' \
	>"$out/meta.json"

# BENCH_PROFILE=1 profiles the first bulk run of each stack at 1 % loss,
# BENCH_PROFILE=PATH that of each stack on PATH. tcgprof: the plugin counts
# the guest instructions of the run's window; the host maps them to the
# symbols of kallsyms.STACK.txt (dumped after the run, so that module and
# BPF symbols are those of the run) into profile.STACK.txt.
# perf (fallback when qemu has no plugin): under TCG its cpu-clock samples
# land almost all in the idle loop and hardly ever in tonic-perf, even
# while getrusage charges both processes most of the run.
profile_paths=
case ${BENCH_PROFILE:-0} in
0 | "") ;;
1) profile_paths=loss1 ;;
*) profile_paths=$BENCH_PROFILE ;;
esac
nic_stacks=${BENCH_NIC_STACKS-tonic tcp-cubic tcp-reno}
rep=0
for p in "${paths[@]}"; do
	pname=${p%%|*}
	netem=${p#*|}
	set_path "$netem" || { log "cannot set netem '$netem' on $pname"; exit 1; }
	if [ "$pname" = clean-nic ]; then set_offloads nic; else set_offloads off; fi
	profile_path=
	[ -n "$profile_paths" ] && want "$profile_paths" "$pname" && profile_path=$pname
	for rep in $(seq "$reps"); do
		for s in "${stacks[@]}"; do
			sname=${s%%|*}
			sargs=${s#*|}
			[ "$pname" = clean-nic ] && ! want "$nic_stacks" "$sname" && continue
			if [ "$pname" = "$profile_path" ] && [ "$rep" = 1 ] &&
			   [ "$profiler" = tcgprof ]; then
				# The first profiled path keeps the plain label.
				prof_label=$sname
				[ "$pname" != "${profile_paths%% *}" ] && prof_label=$sname.$pname
				run_one "$pname" "$netem" "$sname" "$sargs" stream
				cat /proc/kallsyms >"$out/kallsyms.$prof_label.txt"
				prof_label=
			elif [ "$pname" = "$profile_path" ] && [ "$rep" = 1 ] &&
			   [ "$profiler" = perf ] && command -v perf >/dev/null; then
				# perf.data on the guest's tmpfs: writing it to the
				# 9p work tree would show up in the profile.
				perf record -a -g -o "/tmp/perf.$sname.data" -- sleep "$dur" \
					>/dev/null 2>&1 &
				prof_pid=$!
				run_one "$pname" "$netem" "$sname" "$sargs" stream
				wait $prof_pid
				# Flat profile of the busy samples: the idle loop is
				# left out and the shares are of what remains.
				perf report -i "/tmp/perf.$sname.data" --stdio --no-children \
					-g none --percent-limit 0 --sort comm,dso,sym 2>/dev/null |
					awk -v name="$sname" -v path="$pname" '
					/^#/ || !NF { next }
					{ pct = $1; sub(/%/, "", pct) }
					/pv_native_safe_halt|default_idle|cpuidle|acpi_idle|poll_idle/ {
						idle += pct; next }
					{ n++; p[n] = pct; $1 = ""; l[n] = $0; busy += pct }
					END {
						printf "# %s, bulk on path %s: %.1f %% of samples busy; " \
							"shares of the busy samples (comm, dso, symbol)\n",
							name, path, busy
						for (i = 1; i <= n && i <= 60; i++)
							if (busy > 0)
								printf "%6.2f%% %s\n", 100 * p[i] / busy, l[i]
					}' >"$out/profile.$sname.txt"
				rm -f "/tmp/perf.$sname.data"
			else
				run_one "$pname" "$netem" "$sname" "$sargs" stream
			fi
			# clean-nic is about bulk transfer.
			[ "$pname" = clean-nic ] && continue
			run_one "$pname" "$netem" "$sname" "$sargs" rr
			[ "$pname" = clean ] &&
				run_one "$pname" "$netem" "$sname" "$sargs" rrd
		done
	done
done
set_path ""
set_offloads off
stop_server

# ---- unmodified programs (issue 16) ----
# iperf3 as it is (Linux TCP) and under `tonic run` (Tonic, the namespace
# default program) on the 1 % loss path, BENCH_REPEAT times interleaved;
# one record per run in apps.jsonl. BENCH_APPS=0 leaves this out.
apps=$out/apps.jsonl
: >"$apps"
app_run() { # app_run STACK REP [tonic run --]
	local stack=$1 r=$2 f
	shift 2
	f=$out/app.$stack.$r
	tonic_edemux "$stack"
	ip netns exec $B timeout -k 5 $((dur + 60)) "$@" iperf3 -s -1 -J -B 10.77.0.2 \
		-p 5301 >"$f.s.json" 2>"$f.s.err" &
	local spid=$!
	# iperf3 -s -1 serves the first connection only: no probing, a pause
	sleep 2
	ip netns exec $A timeout -k 5 $((dur + 60)) "$@" iperf3 -c 10.77.0.2 -p 5301 \
		-t "$dur" -J >"$f.c.json" 2>"$f.c.err"
	wait $spid
	jq -c --arg stack "$stack" --arg rep "$r" \
		'{stack: $stack, rep: ($rep | tonumber), path: "loss1",
		  bps: .end.sum_received.bits_per_second,
		  retransmits: .end.sum_sent.retransmits, error: .error}' \
		"$f.c.json" >>"$apps" 2>/dev/null ||
		jq -cn --arg stack "$stack" --arg rep "$r" \
			'{stack: $stack, rep: ($rep | tonumber), path: "loss1", bps: null,
			  error: "no iperf3 report"}' >>"$apps"
	log "app $stack #$r: $(tail -n 1 "$apps" | jq -r '.bps // .error')"
}
if [ "${BENCH_APPS:-1}" != 0 ] && command -v iperf3 >/dev/null; then
	set_path "delay 100us loss 1%"
	for r in $(seq "$reps"); do
		app_run iperf3-tcp "$r"
		[ -z "$tonic_reason" ] && app_run iperf3-tonic-run "$r" build/tonic run --
	done
	set_path ""
fi

# redis (redis-benchmark SET/GET), nginx + curl and sshd + scp of a 20 MB
# file (selftests/vm/apps.sh, which selftests/vm/test_apps.sh checks), the
# same way: as they are and under `tonic run`, interleaved, on the 1 % loss
# path; a record per run in apps.jsonl (its figures and verdicts).
app_record() { # app_record STACK REP RC
	local f=$app_dir/$1.json
	[ -s "$f" ] || echo '{}' >"$f"
	jq -c --arg stack "$1" --arg rep "$2" --arg rc "$3" \
		'. + {stack: $stack, rep: ($rep | tonumber), path: "loss1",
		      error: (if $rc == "0" then null else "failed (apps.log)" end)}' \
		"$f" >>"$apps"
	rm -f "$f"
	log "app $1 #$2: $(tail -n 1 "$apps")"
}
if [ "${BENCH_APPS:-1}" != 0 ]; then
	. selftests/vm/apps.sh
	app_dir=$(mktemp -d)
	APP_NS_C=$A APP_NS_S=$B APP_ADDR=10.77.0.2 APP_DIR=$app_dir
	app_prepare
	set_path "delay 100us loss 1%"
	for r in $(seq "$reps"); do
		for app in redis nginx scp; do
			if miss=$(app_missing $app); then
				[ "$r" = 1 ] && log "app $app: n/a ($miss is not installed)"
				continue
			fi
			tonic_edemux "$app-tcp"
			app_$app "$app-tcp" 2>>"$out/apps.log"
			app_record "$app-tcp" "$r" $?
			[ -n "$tonic_reason" ] && continue
			tonic_edemux "$app-tonic-run"
			app_$app "$app-tonic-run" build/tonic run -- 2>>"$out/apps.log"
			app_record "$app-tonic-run" "$r" $?
		done
	done
	set_path ""
	rm -rf "$app_dir"
fi

ip netns del $A 2>/dev/null
ip netns del $B 2>/dev/null
for p in "${loaded_progs[@]}"; do
	build/tonic prog unload "$p" >>"$out/progs.log" 2>&1 ||
		log "tonic prog unload $p failed"
done
if lsmod | grep -q '^tonic '; then
	for _ in $(seq 20); do
		rmmod tonic 2>/dev/null && break
		sleep 0.5
	done
	lsmod | grep -q '^tonic ' && log "rmmod tonic failed"
fi
tonic_state finished
log "done: $done_n runs, results in $out"
exit 0
