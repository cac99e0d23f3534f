#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ACK policy and small-flight timeouts of the socket layer:
# - net.tonic.delack_segs=1 (with delack_max=1, the cap for a sender with
#   an ACK ratio, as the default rack) acknowledges every data segment
#   (the paper's receiver); =2 (the default) at most every second one, as
#   TCP does, and the data still arrives intact (test_sock_ackratio.sh
#   tests the ratio a program chooses);
# - a 1 KB request whose only packet is lost is resent by the
#   retransmission timer after rto_low (IRN's RTO_low), not after
#   rto_min: with every 10th request dropped, more timeouts fire during
#   the run than could if each waited rto_min = 200 ms, and with
#   rto_low_segs=0 no more fire than rto_min allows.  Time is read from
#   the Timeouts counter, not from latencies.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

PERF_PORT=6401
PERF_TMP=

cleanup() {
	perf_stop_server
	srv_stop
	ns_cleanup
	[ -z "$PERF_TMP" ] || rm -rf "$PERF_TMP"
}

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

tap_plan 17
PERF_TMP=$(mktemp -d)
trap cleanup EXIT
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "defaults: delack_segs 2, rto_low_us 1000, rto_low_segs 3" bash -c \
	"[ \$(ip netns exec $NS_A sysctl -n net.tonic.delack_segs) = 2 ] &&
	 [ \$(ip netns exec $NS_A sysctl -n net.tonic.rto_low_us) = 1000 ] &&
	 [ \$(ip netns exec $NS_A sysctl -n net.tonic.rto_low_segs) = 3 ]"
tap_check "server listens" srv_start "$PERF_TMP/srv" server -p 7101

both delack_segs 1 && both delack_max 1
transfer 4000000
tap_result $? "delack_segs=1: 4 MB intact"
tap_check "delack_segs=1: one ACK per data segment" test "$ACKS" -ge "$SEGS"

both delack_segs 2 && both delack_max 16
transfer 4000000
tap_result $? "delack_segs=2: 4 MB intact"
tap_check "delack_segs=2: at most 6 ACKs per 10 data segments" \
	test $((ACKS * 10)) -le $((SEGS * 6))

# Every 10th 1 KB request leaving A is lost.
tap_check "drop every 10th data packet leaving A" drop_every_data $NS_A va 10
tap_check "tonic-perf server listens" perf_start_server

# tc_dropped: packets the drop filter on A's va has dropped so far.
tc_dropped() {
	tc -n $NS_A -s filter show dev va egress |
		sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n 1
}

# rr: a 2 s run of 1 KB transactions on one connection (one request in
# flight at a time). Sets DROP (requests lost), TO and RTX (A's Timeouts
# and SegsRetrans) and MS (milliseconds the run took, start to exit).
rr() {
	local d0 t0 r0 s0 u0
	d0=$(tc_dropped) t0=$(tstat $NS_A Timeouts) r0=$(tstat $NS_A SegsRetrans)
	u0=$(tstat $NS_B DropDuplicate)
	s0=$(date +%s%N)
	perf_client rr -p tonic -H $ADDR_B -P $PERF_PORT -m rr -l 2 -r 1024 -q
	MS=$((($(date +%s%N) - s0) / 1000000))
	DROP=$(($(tc_dropped) - d0))
	TO=$(($(tstat $NS_A Timeouts) - t0))
	RTX=$(($(tstat $NS_A SegsRetrans) - r0))
	DUP=$(($(tstat $NS_B DropDuplicate) - u0))
	echo "# $(jq -c '{transactions, ok}' "$PERF_TMP/rr.json"): $DROP lost," \
		"$TO timeouts, $RTX resent ($DUP arrived twice) in $MS ms"
	perf_expect rr 0 '.ok and .transactions > 0'
}

# A lone lost request has no later segment to reveal it: only the timer
# resends it, once per loss (a resend lost again is one more drop).  A
# timer that fires while the request's ACK is merely late (a guest stall
# longer than the 1 ms floor) resends one that arrived: the server counts
# it as a duplicate, so resends less duplicates must equal the drops (and
# such stalls stay rare: at most 3 a run).
# The timeouts of one connection follow each other, each at least the
# floor after the send it covers, so N timeouts at rto_min = 200 ms
# need N * 200 ms: more than the run lasted means the floor was
# rto_low, and with rto_low off they must fit.  Both bounds are sound
# however slow the guest is; a slow guest only needs more transactions
# than 10 per 200 ms of run time for the first.
rr
tap_result $? "rto_low on: 2 s of 1 KB transactions intact"
[ "$DROP" -gt 0 ] && [ "$TO" -eq "$RTX" ] && [ $((RTX - DUP)) -eq "$DROP" ] &&
	[ "$DUP" -le 3 ]
tap_result $? "every lost request resent once, by a timeout ($TO timeouts, $DROP lost)"
[ $((TO * 200)) -gt "$MS" ]
tap_result $? "timeouts fired after rto_low: $TO x 200 ms > the $MS ms run"
both rto_low_segs 0
rr
tap_result $? "rto_low_segs=0: 2 s of 1 KB transactions intact"
[ "$DROP" -gt 0 ] && [ "$TO" -eq "$RTX" ] && [ $((RTX - DUP)) -eq "$DROP" ] &&
	[ "$DUP" -le 3 ]
tap_result $? "rto_low_segs=0: every lost request resent once, by a timeout ($TO, $DROP lost)"
[ $((TO * 200)) -le "$MS" ]
tap_result $? "rto_low_segs=0: a lost request waits rto_min: $TO x 200 ms <= the $MS ms run"
perf_stop_server
srv_stop
ns_cleanup
tap_check "rmmod tonic" rmmod_tonic
tap_done
