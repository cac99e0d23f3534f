#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Protocol programs moving data: every program delivers intact data (byte
# counts and checksums agree, tonic-perf --verify) under netem loss 1 %,
# 5 % and reordering, and TONIC_INFO names the program; replacing a
# program under a live flow and detaching it (fallback to the built-in)
# lose nothing; an unprivileged socket cannot select a restricted program
# (EPERM) until net.tonic.allowed_protocols lists it.  Every setup step
# (netem qdisc, prog replace/unload, the sysctl) is a checked case, and the
# loss cases assert that retransmissions happened.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=./build/tonic
perf=$PERF
PROGS=$(tonic_progs)
NETEMS=("loss 1%" "loss 5%" "reorder 25% 50%")
SYS=/proc/sys/net/tonic
A=$NS_A
PORT=6301
PERF_PORT=$PORT
tmp=
bg=

cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	perf_stop_server
	ns_cleanup
	for p in $PROGS; do $TONIC prog unload $p >/dev/null 2>&1; done
	[ ! -e /sys/module/tonic ] || rmmod_tonic >/dev/null 2>&1
	[ -z "$tmp" ] || rm -rf "$tmp"
}

# The veth pair without segmentation offloads, as tonic-perf's TCP rows.
setup() {
	ns_setup &&
	{ ip netns exec $A ethtool -K va tso off gso off >/dev/null 2>&1; true; }
}

# client NAME ARGS...: a Tonic tonic-perf client from A to B.
client() {
	local name=$1
	shift
	perf_client "$name" -H $ADDR_B -P $PORT -p tonic "$@"
}
expect() { perf_expect "$@"; }

# netem_dropped: packets the netem qdisc on A's va has dropped.
netem_dropped() {
	tc -s -n $A qdisc show dev va | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n 1
}

# data_case PROG NETEM JQ_EXPR: netem on A's data direction (a failed
# qdisc fails the case), one 2 s --verify run on PROG, its JSON checked.
# Under loss, netem must have dropped packets: retransmissions alone do
# not tell a lossy link from a clean one (runs over "loss 0%" resent
# segments too).
data_case() {
	local p=$1 n=$2 d
	tc -n $A qdisc replace dev va root netem delay 100us $n ||
		{ echo "netem $n: tc failed"; return 1; }
	client "$p" --prog "$p" -l 2 --verify
	d=$(netem_dropped)
	echo "netem dropped ${d:-?}"
	if [[ $n == loss* ]] && ! [ "${d:-0}" -gt 0 ]; then
		echo "netem $n dropped nothing: a clean link"
		return 1
	fi
	expect "$p" 0 "$3"
}

# flow_acked PROG: bytes_acked of the established Tonic flow on PROG in A
# (empty if there is none).
flow_acked() {
	ip netns exec $A $TONIC -j flows prog "$1" 2>/dev/null |
		jq -r 'map(select(.state == "ESTAB")) | .[0].bytes_acked // empty'
}

# live_flow PROG: wait up to 30 s for a flow on PROG that has moved data;
# prints its bytes_acked.
live_flow() {
	local i a
	for i in $(seq 150); do
		a=$(flow_acked "$1")
		[ -n "$a" ] && [ "$a" -gt 0 ] && { echo "$a"; return 0; }
		sleep 0.2
	done
	echo "no established flow on $1 in $A" >&2
	return 1
}

# programs x netems data cases, then the live cases, then EPERM.
NDATA=$(($(wc -w <<<"$PROGS") * ${#NETEMS[@]}))
tap_plan $((4 + NDATA + 13))
tmp=$(mktemp -d)
PERF_TMP=$tmp
trap cleanup EXIT
tap_check "insmod tonic.ko" insmod $TONIC_KO
tap_check "load the programs of bpf/progs.h" bash -c \
	"for p in $PROGS; do $TONIC prog load build/bpf/\$p.bpf.o || exit 1; done"
tap_check "two namespaces joined by a veth pair" setup
tap_check "server listens" perf_start_server

DATA_OK='.ok and .verify.ok and .client.tx > 0 and .client.tx == .server.rx'
for p in $PROGS; do
	for n in "${NETEMS[@]}"; do
		# Under loss netem dropped packets and the program resent;
		# thousands of segments at 1 % make a loss-free run
		# practically impossible.
		rtx=true what=
		[[ $n == loss* ]] && rtx='.retrans_segs > 0' what=", resent"
		tap_check "$p under netem $n: data intact, TONIC_INFO says $p$what" \
			data_case "$p" "$n" "$DATA_OK and .tonic_protocol == \"$p\" and $rtx"
	done
done
tap_check "netem delay 100us loss 1% for the live flows" \
	tc -n $A qdisc replace dev va root netem delay 100us loss 1%

# Replace irn while a flow runs on it: the flow restarts with the new
# copy's init and loses nothing.
client live-replace --prog irn -l 6 --verify &
bg=$!
acked=$(live_flow irn)
tap_result $? "a flow runs on irn (${acked:-0} bytes acked)"
tap_check "replace irn under the live flow" \
	$TONIC prog replace build/bpf/irn.bpf.o irn_rto_high_ns=4000000
tap_check "the flow is still open after the replace" test -n "$(flow_acked irn)"
wait $bg
bg=
tap_check "the live flow finished intact, and moved data after the replace" \
	expect live-replace 0 "$DATA_OK and .client.tx > ${acked:-0}"

# Detach reno under a live flow: it falls back to the built-in NewReno.
# The flow still reports reno (TONIC_INFO names what it selected), so the
# fallback shows as data acknowledged after reno is gone.
client live-detach --prog reno -l 6 --verify &
bg=$!
live_flow reno >/dev/null
tap_result $? "a flow runs on reno"
tap_check "prog unload reno under the live flow" $TONIC prog unload reno
acked=$(flow_acked reno)
tap_check "reno is gone (not available, not pinned), the flow is still open" bash -c \
	"! grep -qw reno $SYS/available_protocols && [ ! -e /sys/fs/bpf/tonic/reno ] &&
	 [ -n '$acked' ]"
wait $bg
bg=
tap_check "detaching reno under a live flow loses nothing; the built-in moved the rest" \
	expect live-detach 0 "$DATA_OK and .client.tx > ${acked:-0}"

# Unprivileged selection (tcp_cong.c rules).
ip netns exec $A setpriv --reuid=65534 --regid=65534 --clear-groups \
	timeout 60 "$perf" -H $ADDR_B -P $PORT -p tonic --prog irn -l 1 \
	>"$tmp/eperm.out" 2>"$tmp/eperm.err"
tap_check "unprivileged: a program not in allowed_protocols fails with EPERM" \
	grep -q "Operation not permitted" "$tmp/eperm.err" "$tmp/eperm.out"
ip netns exec $A setpriv --reuid=65534 --regid=65534 --clear-groups \
	python3 selftests/vm/proto_errno.py >"$tmp/errno.out" 2>&1
tap_check "unprivileged: EPERM (irn), ENOENT (unknown, over-long), built-in ok" \
	grep -q "^(1, 2, 2, 0)$" "$tmp/errno.out"
tap_check "net.tonic.allowed_protocols = newreno irn in $A" bash -c \
	"echo 'newreno irn' | ip netns exec $A tee $SYS/allowed_protocols >/dev/null &&
	 [ \"\$(ip netns exec $A cat $SYS/allowed_protocols)\" = 'newreno irn' ]"
ip netns exec $A setpriv --reuid=65534 --regid=65534 --clear-groups \
	timeout 60 "$perf" -H $ADDR_B -P $PORT -p tonic --prog irn -l 1 --verify \
	>"$tmp/allowed.out" 2>"$tmp/allowed.err"
echo $? >"$tmp/allowed.rc"
tail -n 1 "$tmp/allowed.out" >"$tmp/allowed.json"
tap_check "unprivileged: an allowed program works" \
	expect allowed 0 '.ok and .verify.ok and .tonic_protocol == "irn"'
tap_done
