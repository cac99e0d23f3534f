#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the in-VM selftests: TAP output in kselftest style.
# Source it, call tap_plan N, then tap_result/tap_check per case, tap_done
# last. tap_plan comes before anything with a side effect: with
# TAP_PLAN_ONLY=1 it prints the plan and exits, which is how the runner
# learns what each program will run before the VM boots.

TAP_N=0
TAP_FAILED=0

# The protocol programs of bpf/, in order: the TONIC_PROG(NAME) lines of
# bpf/progs.h, the one list of them (run from the top of the tree).
tonic_progs() {
	sed -n 's/^TONIC_PROG(\([a-z0-9_]*\))$/\1/p' bpf/progs.h | xargs
}

tap_plan() {
	if [ -n "${TAP_PLAN_ONLY:-}" ]; then
		trap - EXIT
		echo "1..$1"
		exit 0
	fi
	echo "TAP version 13"
	echo "1..$1"
}

# tap_result RESULT DESCRIPTION: RESULT 0 means pass.
tap_result() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

# tap_check DESCRIPTION COMMAND [ARGS...]: pass if COMMAND succeeds.
tap_check() {
	local desc=$1
	shift
	"$@" >/tmp/tap_check.out 2>&1
	local rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' /tmp/tap_check.out
	tap_result $rc "$desc"
}

# tap_skip_optional TOOL DESCRIPTION: a case that cannot run because an
# optional tool is missing on this machine. Any other skip is a failure
# in the summary (scripts/tap-summary.sh).
tap_skip_optional() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $2 # SKIP missing optional tool: $1"
}

tap_done() {
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}

# ---- socket-layer helpers (selftests/vm/test_sock_*.sh) ----

# The wire under test, TONIC_ENCAP: udp (the module's default) or ip (raw
# IP protocol 253).  `make check` runs a subset of the tests in each; with
# ip, every insmod of tonic.ko gives encap=0, the default of every
# namespace.  TONIC_U32 matches Tonic packets in tc u32 filters and
# TONIC_OFF is the offset of the Tonic header from the IPv4 header.
TONIC_ENCAP=${TONIC_ENCAP:-udp}
TONIC_UDP_PORT=6253
if [ "$TONIC_ENCAP" = ip ]; then
	insmod() {
		if [[ "$1" == *tonic.ko ]]; then
			command insmod "$@" encap=0
		else
			command insmod "$@"
		fi
	}
	TONIC_U32="match ip protocol 253 0xff"
	TONIC_OFF=20
else
	TONIC_U32="match ip protocol 17 0xff match u16 $TONIC_UDP_PORT 0xffff at 22"
	TONIC_OFF=28
fi

XFER=${XFER:-build/selftests/tonic_xfer}
NS_A=tonic-sa
NS_B=tonic-sb
ADDR_A=10.77.0.1
ADDR_B=10.77.0.2
ADDR6_A=fd00:77::1
ADDR6_B=fd00:77::2
SRV_PIDS=()

# ns_setup: two namespaces joined by a veth pair (va in A, vb in B).
ns_setup() {
	ip netns add $NS_A && ip netns add $NS_B &&
	ip link add va netns $NS_A type veth peer name vb netns $NS_B &&
	ip -n $NS_A addr add $ADDR_A/24 dev va &&
	ip -n $NS_B addr add $ADDR_B/24 dev vb &&
	ip -n $NS_A addr add $ADDR6_A/64 dev va nodad &&
	ip -n $NS_B addr add $ADDR6_B/64 dev vb nodad &&
	ip -n $NS_A link set va up && ip -n $NS_B link set vb up &&
	ip -n $NS_A link set lo up && ip -n $NS_B link set lo up
}

ns_cleanup() {
	local p
	for p in "${SRV_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	SRV_PIDS=()
	ip netns del $NS_A 2>/dev/null
	ip netns del $NS_B 2>/dev/null
	return 0
}

# srv_start OUTFILE ARGS...: run "tonic_xfer ARGS" in namespace B in the
# background and wait until it listens.
srv_start() {
	local out=$1 i
	shift
	ip netns exec $NS_B $XFER "$@" >"$out" 2>&1 &
	SRV_PIDS+=($!)
	for i in $(seq 100); do
		grep -q '^ready' "$out" && return 0
		sleep 0.05
	done
	echo "# server did not start: $(cat "$out")"
	return 1
}

srv_stop() {
	local p
	for p in "${SRV_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	SRV_PIDS=()
}

# netem NS DEV ARGS...: replace the root qdisc of DEV in NS with netem.
netem() {
	local ns=$1 dev=$2
	shift 2
	ip netns exec "$ns" tc qdisc replace dev "$dev" root netem "$@"
}

netem_clear() {
	ip netns exec $NS_A tc qdisc del dev va root 2>/dev/null
	ip netns exec $NS_B tc qdisc del dev vb root 2>/dev/null
	return 0
}

# drop_every_data NS DEV N [ingress]: drop every Nth Tonic data packet
# (total length 1024..2047) leaving DEV in NS (or arriving: ingress),
# deterministically.  Leaving, a filter sees a UDP GSO super-packet
# whole (too long to match); arriving, the datagrams the peer's device
# cut (tx-udp-segmentation off there) or it sent alone.
drop_every_data() {
	tc -n "$1" qdisc add dev "$2" clsact &&
	tc -n "$1" filter add dev "$2" "${4:-egress}" protocol ip u32 \
		$TONIC_U32 match u16 0x0400 0xfc00 at 2 \
		action gact ok random determ drop "$3"
}

# drop_every_ack NS DEV N: drop every Nth Tonic ACK packet (header type 3)
# leaving DEV in NS, deterministically.
drop_every_ack() {
	tc -n "$1" qdisc add dev "$2" clsact &&
	tc -n "$1" filter add dev "$2" egress protocol ip u32 \
		$TONIC_U32 match u8 0x03 0xff at $((TONIC_OFF + 4)) \
		action gact ok random determ drop "$3"
}

# csum_errors NS: packets NS dropped for a bad checksum on the wire under
# test: Tonic's DropCsum on raw IP, UdpInCsumErrors on UDP (the UDP layer
# checks the one checksum before Tonic sees the packet).
csum_errors() {
	if [ "$TONIC_ENCAP" = ip ]; then
		tstat "$1" DropCsum
		return
	fi
	ip netns exec "$1" awk '$1 == "Udp:" && !c {
		for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") c = i; next }
		$1 == "Udp:" { print $c }' /proc/net/snmp
}

# no_flows NS...: no Tonic connection is left in any NS (polls up to 10 s:
# the last packets of a close may still be in flight); shows what is left.
no_flows() {
	local ns i left
	for ns in "$@"; do
		for i in $(seq 100); do
			left=$(ip netns exec "$ns" build/tonic -j flows | jq length)
			[ "$left" = 0 ] && break
			sleep 0.1
		done
		[ "$left" = 0 ] && continue
		ip netns exec "$ns" build/tonic flows | sed "s/^/# $ns: /"
		return 1
	done
}

# snmp NS PROTO FIELD: a /proc/net/snmp counter of namespace NS.
snmp() {
	ip netns exec "$1" awk -v p="$2:" -v f="$3" '
		$1 == p && !h { for (i = 2; i <= NF; i++) n[i] = $i; h = 1; next }
		$1 == p { for (i = 2; i <= NF; i++) if (n[i] == f) print $i }' \
		/proc/net/snmp
}

# snmp6 NS FIELD: a /proc/net/snmp6 counter of namespace NS.
snmp6() {
	ip netns exec "$1" awk -v f="$2" '$1 == f { print $2 }' /proc/net/snmp6
}

# tstat NS NAME: one counter of /proc/net/tonic_stat in namespace NS.
tstat() {
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/tonic_stat
}

# xfer_ok OUTPUT: a tonic_xfer client transcript shows matching hashes.
xfer_ok() {
	grep -q '^sent .* ok ' <<<"$1"
}

# tap_xfer OUTPUT DESCRIPTION: one TAP result for a client transcript;
# the transcript is shown as diagnostics when the check fails.
tap_xfer() {
	local rc
	xfer_ok "$1"
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' <<<"$1"
	tap_result $rc "$2"
}

# tap_verdicts FILE CHECKS SCRIPT [PREFIX]: one TAP result for each of the
# first CHECKS "PASS name" / "FAIL name: why" lines a script using
# selftests/vm/verdicts.py wrote to FILE, and a failure for each check that
# never ran (the script died); sets got to the number of lines found.
tap_verdicts() {
	local file=$1 checks=$2 script=$3 prefix=${4:+$4: } verdict name rest i

	# (no process substitution: the VM has no /dev/fd)
	grep '^\(PASS\|FAIL\) ' "$file" | head -n "$checks" >"$file.verdicts"
	got=$(wc -l <"$file.verdicts")
	while read -r verdict name rest; do
		case $verdict in
		PASS) tap_result 0 "$prefix$name" ;;
		FAIL) echo "# $rest"; tap_result 1 "$prefix$name" ;;
		esac
	done <"$file.verdicts"
	rm -f "$file.verdicts"
	for ((i = got + 1; i <= checks; i++)); do
		tap_result 1 "$prefix$script check $i of $checks did not run"
	done
}

# info_field OUTPUT KEY: a key=value from the client's "info" line.
info_field() {
	sed -n "s/^info .*[ ]$2=\([^ ]*\).*/\1/p" <<<"$1" | head -n 1
}

# no_tonic_sockets: every Tonic socket has been freed.
no_tonic_sockets() {
	local i n
	for i in $(seq 50); do
		n=$(awk '$1 == "SocketsAllocated" { print $2 }' /proc/net/tonic_stat)
		[ "$n" = 0 ] && return 0
		sleep 0.1
	done
	echo "# SocketsAllocated=$n"
	return 1
}

# no_tonic_sockets_global: no Tonic socket left in any namespace (the
# counter is global; read it from the initial namespace).
no_tonic_sockets_global() {
	no_tonic_sockets
}

# rmmod_tonic: unload, retrying briefly while the last sockets go away
# and detached struct_ops maps are freed (after an RCU grace period).
rmmod_tonic() {
	local i
	for i in $(seq 50); do
		rmmod tonic 2>/dev/null && return 0
		sleep 0.2
	done
	rmmod tonic
}

# The module under test; the tests insmod it themselves.
TONIC_KO=${TONIC_KO:-./tonic.ko}

# ---- tonic-perf helpers (test_perf.sh, test_bpf_data.sh) ----
# Set PERF_TMP (a scratch directory) and PERF_PORT first.

PERF=${PERF:-build/tonic-perf}
PERF_SRV=

# perf_start_server: tonic-perf server in namespace B, waits until it listens.
perf_start_server() {
	ip netns exec $NS_B "$PERF" -s -P "$PERF_PORT" -q 2>"$PERF_TMP/server.err" &
	PERF_SRV=$!
	for _ in $(seq 50); do
		ip netns exec $NS_B ss -Hltn "sport = :$PERF_PORT" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

perf_stop_server() {
	[ -n "$PERF_SRV" ] && kill "$PERF_SRV" 2>/dev/null && wait "$PERF_SRV" 2>/dev/null
	PERF_SRV=
}

# perf_client NAME ARGS...: tonic-perf client in namespace A; keeps its
# stdout, stderr, exit code and final JSON line under PERF_TMP/NAME.*.
perf_client() {
	local name=$1
	shift
	ip netns exec $NS_A timeout 120 "$PERF" "$@" \
		>"$PERF_TMP/$name.out" 2>"$PERF_TMP/$name.err"
	echo $? >"$PERF_TMP/$name.rc"
	tail -n 1 "$PERF_TMP/$name.out" >"$PERF_TMP/$name.json"
}

# perf_expect NAME RC JQ_EXPR: the run exited RC and its JSON satisfies JQ_EXPR.
perf_expect() {
	local name=$1 rc=$2 expr=$3
	if [ "$(cat "$PERF_TMP/$name.rc")" != "$rc" ]; then
		echo "exit $(cat "$PERF_TMP/$name.rc"), wanted $rc"
		cat "$PERF_TMP/$name.err" "$PERF_TMP/$name.out"
		return 1
	fi
	jq -e "$expr" "$PERF_TMP/$name.json" >/dev/null || {
		echo "JSON does not satisfy: $expr"
		cat "$PERF_TMP/$name.json" "$PERF_TMP/$name.err"
		return 1
	}
}
