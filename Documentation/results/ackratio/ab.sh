#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The A/B behind ab.txt: each program with <name>_ack_ratio 0 and 8 on a
# clean path and at 1 % loss, in one VM boot (scripts/vm-run.sh -- THIS).
# AB_PROGS, AB_RATIOS, AB_LEN, AB_REPS override the programs, ratios,
# seconds and repetitions; AB_PATHS ("name|netem args" entries, one per
# line) the paths.  A ratio may carry more parameters after commas
# ("16,rack_acks_per_wnd=0").  A program may name its object
# ("rack@build/ab/rack-before.bpf.o"; default build/bpf/NAME.bpf.o), so
# two builds of one program run in the same boot.  AB_AT=ingress runs
# netem as make bench does, on an ifb fed by each veth's ingress (per
# packet, after GSO's cut); the default is the veth's egress qdisc.  Each
# line also gives the early timers (TLP probes, reordering deadlines) and
# the duplicate segments the receiver dropped (spurious resends).
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
	local ns d i
	for ns in $NS_A $NS_B; do
		d=va i=ifa; [ $ns = $NS_B ] && d=vb i=ifb
		tc -n $ns qdisc del dev $d root 2>/dev/null
		tc -n $ns qdisc del dev $d ingress 2>/dev/null
		ip -n $ns link del $i 2>/dev/null
		[ -n "$1" ] || continue
		if [ "${AB_AT:-egress}" != ingress ]; then
			tc -n $ns qdisc add dev $d root netem $1 limit 100000
			continue
		fi
		ip -n $ns link add $i type ifb && ip -n $ns link set $i up &&
		tc -n $ns qdisc add dev $d handle ffff: ingress &&
		tc -n $ns filter add dev $d parent ffff: matchall \
			action mirred egress redirect dev $i &&
		tc -n $ns qdisc add dev $i root netem $1 limit 100000
	done
}
mapfile -t PATHLIST <<<"$PATHS"
for path in "${PATHLIST[@]}"; do
	setpath "${path#*|}"
	for rep in $(seq "$REPS"); do
	for pspec in $PROGS; do
		p=${pspec%%@*} obj=build/bpf/${pspec%%@*}.bpf.o
		[ "$p" = "$pspec" ] || obj=${pspec#*@}
		for spec in $RATIOS; do
			r=${spec%%,*} extra=
			[ "$r" = "$spec" ] || extra=${spec#*,}
			build/tonic prog unload $p >/dev/null 2>&1
			build/tonic prog load "$obj" ${p}_ack_ratio=$r ${extra//,/ } >/dev/null || { echo "load $p failed"; continue; }
			s0=$(tstat $NS_B SegsIn); a0=$(tstat $NS_B AcksOut); d0=$(tstat $NS_B DelayedAcks)
			t0=$(tstat $NS_A Timeouts); e0=$(tstat $NS_A EarlyTimers); u0=$(tstat $NS_B DropDuplicate); x0=$(tstat $NS_A SegsRetrans); o0=$(tstat $NS_A SegsOut)
			perf_client ab -H $ADDR_B -P $PERF_PORT -p tonic --prog $p -l $LEN -q
			gp=$(jq -r '(.goodput_bps / 1e6 | floor)' "$PERF_TMP/ab.json" 2>/dev/null)
			[ -n "$gp" ] || gp=$(head -c 300 "$PERF_TMP/ab.json")
			S=$(($(tstat $NS_B SegsIn) - s0)); A=$(($(tstat $NS_B AcksOut) - a0)); D=$(($(tstat $NS_B DelayedAcks) - d0))
			T=$(($(tstat $NS_A Timeouts) - t0)); E=$(($(tstat $NS_A EarlyTimers) - e0)); U=$(($(tstat $NS_B DropDuplicate) - u0)); X=$(($(tstat $NS_A SegsRetrans) - x0)); O=$(($(tstat $NS_A SegsOut) - o0))
			echo "AB ${path%%|*} rep$rep $pspec ratio=$spec goodput=$gp segs=$S acks=$A acks/seg=$(awk -v a=$A -v s=$S 'BEGIN{printf "%.3f", s?a/s:0}') delacks=$D timeouts=$T resent=$X/$O early=$E dups=$U"
		done
	done
	done
done
for p in $PROGS; do build/tonic prog unload "${p%%@*}" >/dev/null 2>&1; done
perf_stop_server
ns_cleanup
rmmod_tonic
