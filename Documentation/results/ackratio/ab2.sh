#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The A/B behind ab2.txt: the built-in NewReno with ratio 0 and 8, from two
# builds of tonic.ko (build/tonic-nr0.ko, build/tonic-nr8.ko), in one boot.
cd "$(dirname "$0")/../../.." || exit 1
. selftests/vm/lib.sh
PERF_TMP=$(mktemp -d)
PERF_PORT=6501
setpath() {
	local ns d
	for ns in $NS_A $NS_B; do
		d=va; [ $ns = $NS_B ] && d=vb
		tc -n $ns qdisc del dev $d root 2>/dev/null
		[ -n "$1" ] && tc -n $ns qdisc add dev $d root netem $1 limit 100000
	done
}
for rep in 1 2 3; do
for ko in nr0 nr8; do
	command insmod build/tonic-$ko.ko || exit 1
	ns_setup || exit 1
	for ns in $NS_A $NS_B; do
		d=va; [ $ns = $NS_B ] && d=vb
		ip netns exec $ns ethtool -K $d tso off gso off gro off tx-udp-segmentation off >/dev/null 2>&1
	done
	perf_start_server || exit 1
	for path in "loss1|delay 100us loss 1%" "clean|"; do
		setpath "${path#*|}"
		p=newreno
		s0=$(tstat $NS_B SegsIn); a0=$(tstat $NS_B AcksOut); d0=$(tstat $NS_B DelayedAcks)
		t0=$(tstat $NS_A Timeouts); x0=$(tstat $NS_A SegsRetrans); o0=$(tstat $NS_A SegsOut)
		perf_client ab -H $ADDR_B -P $PERF_PORT -p tonic --prog $p -l 3 -q
		gp=$(jq -r '(.goodput_bps / 1e6 | floor)' "$PERF_TMP/ab.json" 2>/dev/null)
		S=$(($(tstat $NS_B SegsIn) - s0)); A=$(($(tstat $NS_B AcksOut) - a0)); D=$(($(tstat $NS_B DelayedAcks) - d0))
		T=$(($(tstat $NS_A Timeouts) - t0)); X=$(($(tstat $NS_A SegsRetrans) - x0)); O=$(($(tstat $NS_A SegsOut) - o0))
		echo "AB2 ${path%%|*} rep$rep builtin-newreno $ko goodput=$gp segs=$S acks=$A acks/seg=$(awk -v a=$A -v s=$S 'BEGIN{printf "%.3f", s?a/s:0}') delacks=$D timeouts=$T resent=$X/$O"
	done
	perf_stop_server
	ns_cleanup
	rmmod tonic || exit 1
	sleep 1
done
done
