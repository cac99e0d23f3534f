#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ACK policy and small-flight timeouts of the socket layer:
# - net.tonic.delack_segs=1 acknowledges every data segment (the paper's
#   receiver); =2 (the default) about every second one, as TCP does, and
#   the data still arrives intact;
# - a 1 KB request whose only packet is lost is resent after rto_low
#   (IRN's RTO_low), not after rto_min: with every 10th request dropped,
#   the slowest transaction stays far below rto_min = 200 ms, and with
#   rto_low_segs=0 it takes at least rto_min.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

PERF_PORT=6401
PERF_TMP=$(mktemp -d)

cleanup() {
	perf_stop_server
	srv_stop
	ns_cleanup
	rm -rf "$PERF_TMP"
}
trap cleanup EXIT

# both NAME VALUE: set net.tonic.NAME in both namespaces.
both() {
	ip netns exec $NS_A sysctl -qw "net.tonic.$1=$2" &&
	ip netns exec $NS_B sysctl -qw "net.tonic.$1=$2"
}

# transfer BYTES: one tonic_xfer transfer A -> B with checksums; sets
# SEGS and ACKS to the receiver's SegsIn and AcksOut during it.
transfer() {
	local s0 a0 out
	s0=$(tstat $NS_B SegsIn)
	a0=$(tstat $NS_B AcksOut)
	out=$(ip netns exec $NS_A timeout 120 $XFER client -a $ADDR_B -p 7101 -b "$1" -s 3)
	SEGS=$(($(tstat $NS_B SegsIn) - s0))
	ACKS=$(($(tstat $NS_B AcksOut) - a0))
	echo "# $1 B: receiver got $SEGS segments, sent $ACKS ACKs"
	xfer_ok "$out" || { sed 's/^/# /' <<<"$out"; return 1; }
}

tap_plan 11
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "defaults: delack_segs 2, rto_low_us 2000, rto_low_segs 3" bash -c \
	"[ \$(ip netns exec $NS_A sysctl -n net.tonic.delack_segs) = 2 ] &&
	 [ \$(ip netns exec $NS_A sysctl -n net.tonic.rto_low_us) = 2000 ] &&
	 [ \$(ip netns exec $NS_A sysctl -n net.tonic.rto_low_segs) = 3 ]"
tap_check "server listens" srv_start "$PERF_TMP/srv" server -p 7101

both delack_segs 1
transfer 4000000
tap_result $? "delack_segs=1: 4 MB intact"
tap_check "delack_segs=1: one ACK per data segment" test "$ACKS" -ge "$SEGS"

both delack_segs 2
transfer 4000000
tap_result $? "delack_segs=2: 4 MB intact"
tap_check "delack_segs=2: at most 6 ACKs per 10 data segments" \
	test $((ACKS * 10)) -le $((SEGS * 6))

# Every 10th 1 KB request leaving A is lost.
drop_every_data $NS_A va 10
perf_start_server

# rr_max: the slowest 1 KB transaction of a 1 s run, in microseconds.
rr_max() {
	perf_client rr -p tonic -H $ADDR_B -P $PERF_PORT -m rr -l 1 -r 1024 -q
	jq -r '.latency_us.max | floor' "$PERF_TMP/rr.json"
}

max=$(rr_max)
echo "# rto_low on: slowest transaction ${max} us"
tap_check "lost requests are resent after rto_low: slowest < 100 ms" \
	test "${max:-999999999}" -lt 100000
both rto_low_segs 0
max=$(rr_max)
echo "# rto_low off: slowest transaction ${max} us"
tap_check "rto_low_segs=0: a lost request waits rto_min (>= 200 ms)" \
	test "${max:-0}" -ge 200000
perf_stop_server
srv_stop
ns_cleanup
tap_check "rmmod tonic" rmmod_tonic
tap_done
