#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fault matrix: one transfer per path fault, Linux TCP first and then
# Tonic over the same path in the same run.  Each Tonic transfer must
# arrive intact (SHA-256 end to end), finish within a bound derived from
# TCP's time (TONIC_FAULT_FACTOR x TCP + 30 s: the constant is room for
# one segment's run of RTO backoffs, 0.2 + 0.4 + ... + 12.8 s, which 20 %
# loss gives about once in 30 transfers of 100 kB; a hang still fails),
# leave no connection behind on either side, and no connection may ever
# have owed progress with no timer armed (TimerMissing).  Faults: loss in the data direction, the ACK
# direction and both, reordering, duplication, corruption, delay, a rate
# limit with many flows (tail drops), a link outage.
# TONIC_SOAK=1 (make soak) runs the long matrix: more loss rates and
# delays, a 1 Mbit/s path with 2 s delay, and every protocol program.
# The short matrix runs the namespace default and keeps 20 % loss in both
# directions for the soak: there a lost resend or its lost ACK backs the
# RTO off again, for TCP as for Tonic, so one TCP sample (0.1 s to 200 s
# in five runs) cannot bound one Tonic sample.  The servers serve each
# connection in a process of its own, so a slow one delays no other.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=build/tonic
FACTOR=${TONIC_FAULT_FACTOR:-10}
PORT_TCP=7301
PORT_TONIC=7302
BUILTINS=" newreno rack "	# in tonic.ko: nothing to load
PROGS="rack"			# the namespace default; make soak runs them all
if [ -n "${TONIC_SOAK:-}" ]; then
	PROGS=$(tonic_progs)
	CASES=(
		"data|loss 0.1%|2000000|1"   "data|loss 1%|2000000|1"
		"data|loss 5%|2000000|1"     "data|loss 20%|200000|1"
		"ack|loss 1%|2000000|1"      "ack|loss 5%|2000000|1"
		"ack|loss 20%|200000|1"      "both|loss 1%|2000000|1"
		"both|loss 5%|2000000|1"     "both|loss 20%|200000|1"
		"data|delay 1ms reorder 25% 50%|2000000|1"
		"data|delay 1ms duplicate 5%|2000000|1"
		"both|corrupt 1%|2000000|1"
		"both|delay 100us|2000000|1" "both|delay 1ms|2000000|1"
		"both|delay 10ms|2000000|1"
		"data|rate 20mbit|2000000|40"
		"both|rate 1mbit delay 2000ms limit 1000|1000000|1"
		"outage|delay 1ms|4000000|1"
	)
else
	CASES=(
		"data|loss 5%|1000000|1"     "ack|loss 5%|1000000|1"
		"data|loss 20%|100000|1"
		"data|delay 1ms reorder 25% 50%|1000000|1"
		"both|delay 1ms duplicate 5% corrupt 1%|1000000|1"
		"both|delay 10ms|1000000|1"
		"data|rate 20mbit|300000|10"
		"outage|delay 1ms|2000000|1"
	)
fi
NPROG=$(wc -w <<<"$PROGS")

tap_plan $((5 + ${#CASES[@]} * NPROG * 3))
tmp=$(mktemp -d)
cleanup() {
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# setup: the namespaces, without segmentation offloads, so that netem drops
# TCP's packets one by one, as it does Tonic's, not a 64 KB GSO packet at
# a time.
setup() {
	ns_setup &&
	ip netns exec $NS_A ethtool -K va tso off gso off gro off >/dev/null &&
	ip netns exec $NS_B ethtool -K vb tso off gso off gro off >/dev/null
}

# servers: a TCP and a Tonic tonic_xfer server in B, listening.
servers() {
	srv_start "$tmp/srv_tcp" server -f -P 6 -p $PORT_TCP -c 100000 &&
	srv_start "$tmp/srv_tonic" server -f -p $PORT_TONIC -c 100000
}

# set_path WHERE NETEM: the fault on the data direction (A's egress), the
# ACK direction (B's egress) or both; "outage" takes the link down for 2 s
# a second into the transfer.
set_path() {
	netem_clear
	case $1 in
	data|outage) netem $NS_A va $2 ;;
	ack) netem $NS_B vb $2 ;;
	both) netem $NS_A va $2 && netem $NS_B vb $2 ;;
	esac
}

# transfers PROTO PORT BYTES FLOWS: FLOWS concurrent transfers, each with
# a deadline; prints the seconds the slowest took, fails if any failed.
transfers() {
	local proto=$1 port=$2 bytes=$3 flows=$4 i t0 rc=0 pids=()
	t0=$(date +%s.%N)
	for i in $(seq "$flows"); do
		ip netns exec $NS_A timeout "$DEADLINE" $XFER client -P "$proto" \
			-a $ADDR_B -p "$port" -b "$bytes" -s "$i" >"$tmp/c$i" 2>&1 &
		pids+=($!)
	done
	if [ "$WHERE" = outage ]; then
		sleep 1
		ip -n $NS_A link set va down
		sleep 2
		ip -n $NS_A link set va up
	fi
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	echo "$(date +%s.%N) - $t0" | bc
	for i in $(seq "$flows"); do
		xfer_ok "$(cat "$tmp/c$i")" && continue
		sed "s/^/# flow $i: /" "$tmp/c$i" >&2
		rc=1
	done
	return $rc
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth, offloads off" setup
tap_check "load the protocol programs" bash -c \
	"for p in $PROGS; do [[ '$BUILTINS' = *\" \$p \"* ]] || $TONIC prog load build/bpf/\$p.bpf.o || exit 1; done"
tap_check "servers listen" servers

for c in "${CASES[@]}"; do
	IFS='|' read -r WHERE NETEM BYTES FLOWS <<<"$c"
	name="$WHERE: $NETEM, $FLOWS x $BYTES B"
	set_path "$WHERE" "$NETEM"
	DEADLINE=600
	tcp_s=$(transfers 6 $PORT_TCP "$BYTES" "$FLOWS") || tcp_s=60
	bound=$(echo "$FACTOR * $tcp_s + 30" | bc)
	DEADLINE=${bound%.*}
	for p in $PROGS; do
		ip netns exec $NS_A $TONIC prog default "$p" >/dev/null
		miss0=$(($(tstat $NS_A TimerMissing) + $(tstat $NS_B TimerMissing)))
		s=$(transfers 253 $PORT_TONIC "$BYTES" "$FLOWS")
		rc=$?
		echo "# $p, $name: TCP ${tcp_s} s, Tonic ${s} s (bound ${DEADLINE} s)"
		tap_result $rc "$p, $name: intact within the bound"
		tap_check "$p, $name: no connection left behind" \
			no_flows $NS_A $NS_B
		miss=$(($(tstat $NS_A TimerMissing) + $(tstat $NS_B TimerMissing) - miss0))
		tap_check "$p, $name: no connection owed progress without a timer" \
			test "$miss" = 0
	done
done
ip netns exec $NS_A $TONIC prog default newreno >/dev/null
netem_clear
srv_stop
for p in $PROGS; do [[ $BUILTINS = *" $p "* ]] || $TONIC prog unload $p >/dev/null; done
ns_cleanup
tap_check "rmmod tonic" rmmod_tonic
tap_done
