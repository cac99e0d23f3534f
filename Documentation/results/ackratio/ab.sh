#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The A/B behind ab.txt: each program with <name>_ack_ratio 0 and 8 on a
# clean path and at 1 % loss, in one VM boot (scripts/vm-run.sh -- THIS).
# AB_PROGS, AB_RATIOS, AB_LEN, AB_REPS override the programs, ratios,
# seconds and repetitions; AB_PATHS ("name|netem args" entries, one per
# line) the paths.  A ratio may carry more parameters after commas
# ("16,rack_acks_per_wnd=0").
cd "$(dirname "$0")/../../.." || exit 1
. selftests/vm/lib.sh
PERF_TMP=$(mktemp -d)
PERF_PORT=6501
PROGS=${AB_PROGS:-"irn dcqcn reno sack newreno rack"}
RATIOS=${AB_RATIOS:-"0 8"}
LEN=${AB_LEN:-3}
REPS=${AB_REPS:-2}
PATHS=${AB_PATHS:-"clean|
loss1|delay 100us loss 1%"}
insmod ./tonic.ko || exit 1
ns_setup || exit 1
for ns in $NS_A $NS_B; do
	d=va; [ $ns = $NS_B ] && d=vb
	ip netns exec $ns ethtool -K $d tso off gso off gro off tx-udp-segmentation off >/dev/null 2>&1
done
perf_start_server || exit 1
setpath() {
	local ns d
	for ns in $NS_A $NS_B; do
		d=va; [ $ns = $NS_B ] && d=vb
		tc -n $ns qdisc del dev $d root 2>/dev/null
		[ -n "$1" ] && tc -n $ns qdisc add dev $d root netem $1 limit 100000
	done
}
mapfile -t PATHLIST <<<"$PATHS"
for path in "${PATHLIST[@]}"; do
	setpath "${path#*|}"
	for rep in $(seq "$REPS"); do
	for p in $PROGS; do
		for spec in $RATIOS; do
			r=${spec%%,*} extra=
			[ "$r" = "$spec" ] || extra=${spec#*,}
			build/tonic prog unload $p >/dev/null 2>&1
			build/tonic prog load build/bpf/$p.bpf.o ${p}_ack_ratio=$r ${extra//,/ } >/dev/null || { echo "load $p failed"; continue; }
			s0=$(tstat $NS_B SegsIn); a0=$(tstat $NS_B AcksOut); d0=$(tstat $NS_B DelayedAcks)
			t0=$(tstat $NS_A Timeouts); x0=$(tstat $NS_A SegsRetrans); o0=$(tstat $NS_A SegsOut)
			perf_client ab -H $ADDR_B -P $PERF_PORT -p tonic --prog $p -l $LEN -q
			gp=$(jq -r '(.goodput_bps / 1e6 | floor)' "$PERF_TMP/ab.json" 2>/dev/null)
			[ -n "$gp" ] || gp=$(head -c 300 "$PERF_TMP/ab.json")
			S=$(($(tstat $NS_B SegsIn) - s0)); A=$(($(tstat $NS_B AcksOut) - a0)); D=$(($(tstat $NS_B DelayedAcks) - d0))
			T=$(($(tstat $NS_A Timeouts) - t0)); X=$(($(tstat $NS_A SegsRetrans) - x0)); O=$(($(tstat $NS_A SegsOut) - o0))
			echo "AB ${path%%|*} rep$rep $p ratio=$spec goodput=$gp segs=$S acks=$A acks/seg=$(awk -v a=$A -v s=$S 'BEGIN{printf "%.3f", s?a/s:0}') delacks=$D timeouts=$T resent=$X/$O"
		done
	done
	done
done
for p in $PROGS; do build/tonic prog unload $p >/dev/null 2>&1; done
perf_stop_server
ns_cleanup
rmmod_tonic
