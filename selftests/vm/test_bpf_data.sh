#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Protocol programs moving data: every program delivers intact data (byte
# counts and checksums agree, tonic-perf --verify) under netem loss 1 %,
# 5 % and reordering, and TONIC_INFO names the program; replacing a
# program under a live flow and detaching it (fallback to the built-in)
# lose nothing; an unprivileged socket cannot select a restricted program
# (EPERM) until net.tonic.allowed_protocols lists it.
#
# Skips the data cases when the socket layer does not support
# setsockopt(SOL_TONIC, TONIC_PROTOCOL) yet.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=./build/tonic
perf=$PERF
PROGS="reno newreno sack ndp dcqcn irn"
NETEMS=("loss 1%" "loss 5%" "reorder 25% 50%")
SYS=/proc/sys/net/tonic
A=$NS_A
PORT=6301
PERF_PORT=$PORT
tmp=$(mktemp -d)
PERF_TMP=$tmp
bg=

cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	perf_stop_server
	ns_cleanup
	for p in $PROGS; do $TONIC prog unload $p >/dev/null 2>&1; done
	[ ! -e /sys/module/tonic ] || rmmod_tonic >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
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

NDATA=$((6 * ${#NETEMS[@]} + 6))
tap_plan $((4 + NDATA))
tap_check "insmod tonic.ko" insmod ./tonic.ko
tap_check "load the six programs" bash -c \
	"for p in $PROGS; do $TONIC prog load build/bpf/\$p.bpf.o || exit 1; done"
tap_check "two namespaces joined by a veth pair" setup
tap_check "server listens" perf_start_server

client probe --prog newreno -l 1 --verify
if grep -qE "Protocol not available|has no TONIC_PROTOCOL option" "$tmp/probe.err" "$tmp/probe.json"; then
	why="socket layer lacks setsockopt(SOL_TONIC, TONIC_PROTOCOL)"
	for ((i = 0; i < NDATA; i++)); do
		tap_skip "data case $((i + 1))" "$why"
	done
	tap_done
fi

for p in $PROGS; do
	for n in "${NETEMS[@]}"; do
		tc -n $A qdisc replace dev va root netem delay 100us $n
		client "$p" --prog "$p" -l 2 --verify
		tap_check "$p under netem $n: data intact, TONIC_INFO says $p" \
			expect "$p" 0 ".ok and .verify.ok and .client.tx > 0 and
				.client.tx == .server.rx and .tonic_protocol == \"$p\""
	done
done
tc -n $A qdisc replace dev va root netem delay 100us loss 1%

# Replace irn while a flow runs on it: the flow restarts with the new
# copy's init and loses nothing.
client live-replace --prog irn -l 6 --verify &
bg=$!
sleep 2
tap_check "replace irn under a live flow" \
	$TONIC prog replace build/bpf/irn.bpf.o irn_rto_high_ns=4000000
wait $bg
bg=
tap_check "the live flow finished intact" \
	expect live-replace 0 '.ok and .verify.ok and .client.tx == .server.rx'

# Detach reno under a live flow: it falls back to the built-in NewReno.
client live-detach --prog reno -l 6 --verify &
bg=$!
sleep 2
$TONIC prog unload reno >/dev/null
wait $bg
bg=
tap_check "detaching reno under a live flow loses nothing" \
	expect live-detach 0 '.ok and .verify.ok and .client.tx == .server.rx'

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
echo "newreno irn" | ip netns exec $A tee $SYS/allowed_protocols >/dev/null
ip netns exec $A setpriv --reuid=65534 --regid=65534 --clear-groups \
	timeout 60 "$perf" -H $ADDR_B -P $PORT -p tonic --prog irn -l 1 --verify \
	>"$tmp/allowed.out" 2>"$tmp/allowed.err"
echo $? >"$tmp/allowed.rc"
tail -n 1 "$tmp/allowed.out" >"$tmp/allowed.json"
tap_check "unprivileged: an allowed program works" \
	expect allowed 0 '.ok and .verify.ok and .tonic_protocol == "irn"'
tap_done
