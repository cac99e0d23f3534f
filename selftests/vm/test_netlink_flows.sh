#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tonic netlink family under traffic: `tonic flows` lists exactly the
# open connections (1000 of them, so the dump spans many messages), each
# namespace sees only its own, `tonic monitor` reports opens and closes,
# and after a transfer with a known loss pattern the counters equal what
# happened.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=${TONIC:-./build/tonic}
CONNS="python3 selftests/vm/tonic_conns.py"
NS=tonic-fl2
A=tonic-fla
B=tonic-flb
N=1000
PORT=7000
OUT=
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	exec 6>&- 7>&- 8>&- 9>&- 2>/dev/null
	for p in $NS $A $B; do ip netns del $p 2>/dev/null; done
	[ -z "$OUT" ] || rm -rf "$OUT"
}

# wait_for FILE TEXT: up to 120 s for TEXT to appear in FILE
wait_for() {
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "# timed out waiting for '$2' in $1"
	return 1
}

# flows [NETNS] [FILTER...]: how many flows the dump returns
flows() {
	local ns=()
	if [ "${1:-}" = -n ]; then
		ns=(ip netns exec "$2")
		shift 2
	fi
	"${ns[@]}" $TONIC -j flows "$@" | jq length
}

# eventually EXPR...: up to 10 s for the command to succeed
eventually() {
	local i
	for i in $(seq 50); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

tap_plan 22
OUT=$(mktemp -d)
trap cleanup EXIT
export -f flows wait_for
export TONIC OUT
tap_check "insmod tonic.ko" insmod $TONIC_KO
ip link set lo up

# --- events: one connection opens, carries data, closes
$TONIC -j monitor > "$OUT/mon" 2>&1 &
PIDS+=($!)
sleep 1
mkfifo "$OUT/in1"
$CONNS hold $PORT 1 < "$OUT/in1" > "$OUT/hold1" &
PIDS+=($!)
exec 8> "$OUT/in1"
wait_for "$OUT/hold1" ready
exec 8>&-
wait_for "$OUT/hold1" closed
sleep 1
sed 's/^/# /' "$OUT/mon"
tap_check "monitor: flow-open for both ends, with ports and prog" bash -c \
	"jq -s -e 'map(select(.event == \"flow-open\")) | length == 2 and
	 (map(.sport) | sort) == (map(.dport) | sort) and any(.[]; .sport == $PORT) and
	 all(.[]; .prog == \"rack\" and .src == \"127.0.0.1\")' $OUT/mon"
tap_check "monitor: flow-close for both ends, orderly" bash -c \
	"jq -s -e 'map(select(.event == \"flow-close\")) | length == 2 and
	 all(.[]; .reason == 0 and .state == \"CLOSE\")' $OUT/mon"
tap_check "monitor: open and close carry the same ids" bash -c \
	"jq -s -e '(map(select(.event == \"flow-open\") | .id) | sort) ==
	 (map(select(.event == \"flow-close\") | .id) | sort)' $OUT/mon"

# --- 1000 connections: both ends of each are flows
mkfifo "$OUT/in"
$CONNS hold $PORT $N < "$OUT/in" > "$OUT/hold" &
PIDS+=($!)
exec 9> "$OUT/in"
tap_check "open $N connections" wait_for "$OUT/hold" ready
tap_check "tonic flows lists exactly $((2 * N)) flows" bash -c \
	"[ \$($TONIC flows | grep -c '^ESTAB') -eq $((2 * N)) ]"
tap_check "JSON dump: $((2 * N)) distinct ids, all established" bash -c \
	"$TONIC -j flows | jq -e 'length == $((2 * N)) and
	 ([.[].id] | unique | length) == $((2 * N)) and all(.[]; .state == \"ESTAB\")'"
tap_check "stats: active_flows is $((2 * N))" bash -c \
	"$TONIC -j stats | jq -e '.active_flows == $((2 * N))'"
tap_check "filter sport $PORT: the $N server ends" bash -c \
	"[ \$(flows sport $PORT) -eq $N ] && [ \$(flows dport $PORT) -eq $N ]"
tap_check "filters dst, src and prog" bash -c \
	"[ \$(flows dst 127.0.0.1 dport $PORT) -eq $N ] &&
	 [ \$(flows src 127.0.0.2) -eq 0 ] && [ \$(flows prog rack) -eq $((2 * N)) ] &&
	 [ \$(flows prog nosuch) -eq 0 ]"
tap_check "flow-get by id returns that flow" bash -c \
	"id=\$($TONIC -j flows sport $PORT | jq '.[7].id') &&
	 $TONIC -j flows id \$id | jq -e \"length == 1 and .[0].id == \$id and .[0].sport == $PORT\""

# --- a second namespace sees only its own
ip netns add $NS
ip -n $NS link set lo up
mkfifo "$OUT/in2"
ip netns exec $NS $CONNS hold $PORT 10 < "$OUT/in2" > "$OUT/hold2" &
PIDS+=($!)
exec 7> "$OUT/in2"
wait_for "$OUT/hold2" ready
tap_check "the second namespace lists its 20 flows only" bash -c \
	"[ \$(flows -n $NS) -eq 20 ] && ip netns exec $NS $TONIC -j stats | jq -e '.active_flows == 20'"
tap_check "the first still lists $((2 * N))" bash -c "[ \$(flows) -eq $((2 * N)) ]"
tap_check "a flow of the other namespace cannot be fetched by id" bash -c \
	"id=\$(ip netns exec $NS $TONIC -j flows | jq '.[0].id') && ! $TONIC flows id \$id 2>/dev/null"
mkfifo "$OUT/in6"
$CONNS hold $((PORT + 1)) 2 ::1 < "$OUT/in6" > "$OUT/hold6" &
PIDS+=($!)
exec 6> "$OUT/in6"
wait_for "$OUT/hold6" ready
tap_check "IPv6 flows: filters by address and family" bash -c \
	"$TONIC -j flows src ::1 | jq -e 'length == 4 and all(.[]; .family == \"inet6\" and
	 .src == \"::1\" and .dst == \"::1\")' && [ \$(flows dst ::1 sport $((PORT + 1))) -eq 2 ] &&
	 [ \$(flows src 127.0.0.1) -eq $((2 * N)) ]"
exec 6>&- 7>&- 9>&-
wait_for "$OUT/hold6" closed
wait_for "$OUT/hold" closed
wait_for "$OUT/hold2" closed
tap_check "once closed, no flows are left" eventually bash -c \
	"[ \$(flows) -eq 0 ] && [ \$(flows -n $NS) -eq 0 ]"

# --- a transfer with every 10th data packet dropped
ip netns add $A
ip netns add $B
ip link add va netns $A type veth peer name vb netns $B
ip -n $A addr add 10.9.0.1/24 dev va
ip -n $B addr add 10.9.0.2/24 dev vb
ip -n $A link set va up
ip -n $B link set vb up
# Super-packets are cut before the veth, and the filter drops datagrams
# as they arrive at B, so resends travel in super-packets too.
ip netns exec $A ethtool -K va tx-udp-segmentation off >/dev/null
drop_every_data $B vb 10 ingress
# Flows run the namespace default, the built-in rack, which resends
# exactly what was lost (no reordering here) but around a timeout.
PROG=rack
ip netns exec $A $TONIC -j monitor > "$OUT/monA" 2>&1 &
PIDS+=($!)
BYTES=2000000
ip netns exec $B $CONNS serve $PORT $BYTES > "$OUT/serve" &
PIDS+=($!)
wait_for "$OUT/serve" listening
tap_check "2 MB with 1000-byte segments arrive intact" bash -c \
	"ip netns exec $A timeout 300 $CONNS send 10.9.0.2 $PORT $BYTES 1000 &&
	 wait_for $OUT/serve 'ok $BYTES'"
sleep 1
DROPPED=$(tc -n $B -s filter show dev vb ingress | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n 1)
ip netns exec $A $TONIC -j stats > "$OUT/sA"
ip netns exec $B $TONIC -j stats > "$OUT/sB"
echo "# dropped by tc: $DROPPED"
jq -c '{segs_out, segs_rtx, segs_in, timeouts, early_timers, nacks_in}' "$OUT/sA" | sed 's/^/# A: /'
jq -c '{segs_out, segs_rtx, segs_in, drop_dup, drop_window}' "$OUT/sB" | sed 's/^/# B: /'
tap_check "receiver segs_in = sender segs_out - dropped" bash -c \
	"[ \"${DROPPED:-0}\" -gt 0 ] &&
	 [ \$(jq .segs_in $OUT/sB) -eq \$((\$(jq .segs_out $OUT/sA) - $DROPPED)) ]"
# Only a timer may resend what arrived: a timeout (a resend lost where
# nothing sent later can reveal it) at most two segments, a tail-loss
# probe one whose ACK was merely late.  The receiver reports each as a
# duplicate; without a timer resends equal drops.
tap_check "retransmitted = dropped + duplicates at B, at most 2 a timeout, 1 a probe" bash -c \
	"dup=\$(jq .drop_dup $OUT/sB) &&
	 [ \$(jq .segs_rtx $OUT/sA) -eq \$(($DROPPED + dup)) ] &&
	 [ \$dup -le \$((2 * \$(jq .timeouts $OUT/sA) + \$(jq .early_timers $OUT/sA))) ]"
sed 's/^/# A events: /' "$OUT/monA"
tap_check "netlink counters agree with /proc/net/tonic_stat" bash -c \
	"ip netns exec $A cat /proc/net/tonic_stat > $OUT/procA && ! grep -q null $OUT/procA &&
	 grep -qx \"SegsOut \$(jq .segs_out $OUT/sA)\" $OUT/procA &&
	 grep -qx \"SegsRetrans \$(jq .segs_rtx $OUT/sA)\" $OUT/procA &&
	 grep -qx \"EngineBatches \$(jq .engine_batches $OUT/sA)\" $OUT/procA &&
	 [ \$(jq .engine_batches $OUT/sA) -gt 0 ]"
tap_check "the flow-close event carries the flow's counters" bash -c \
	"jq -s -e 'map(select(.event == \"flow-close\" and .dport == $PORT)) | length == 1 and
	 .[0].retransmits == $(jq .segs_rtx "$OUT/sA") and .[0].prog == \"$PROG\" and
	 .[0].bytes_acked == $BYTES' $OUT/monA"

for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
wait 2>/dev/null
PIDS=()
ip netns del $A
ip netns del $B
ip netns del $NS
tap_check "rmmod tonic" bash -c \
	'for i in $(seq 100); do rmmod tonic 2>/dev/null && exit 0; sleep 0.2; done; rmmod tonic'
tap_done
