#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Receive-queue coalescing (tonic_try_coalesce(), kmod/sock/input.c): B's
# socket appends in-order segments to the last skb of its receive queue,
# as TCP does.  selftests/vm/coalesce.py checks what that must not break,
# byte for byte and with SHA-256: MSG_PEEK across and inside coalesced
# skbs, reads of odd sizes, MSG_WAITALL, SO_RCVLOWAT, short segments from
# 7-byte writes, a 32 KB SO_RCVBUF with a slow reader.  On the bench's
# clean-nic path (A cuts its super-packets in software, GRO at vb) over
# IPv4 and IPv6, and with offloads off (the bench's clean path).  The UDP
# wire only: on raw IP over veth every received skb is still a clone of
# the sender's, which skb_try_coalesce() cannot append to.  The harness's checks after
# the test catch receive memory left charged (inet_sock_destruct()).
cd "$(dirname "$0")/../.." || exit 1
TONIC_ENCAP=udp
. selftests/vm/lib.sh

PY=selftests/vm/coalesce.py
checks=$(python3 $PY --count)
tap_plan $((3 * (checks + 2) + 8))
tmp=$(mktemp -d)
cleanup() {
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# run DESC PORT [-6]: the three cases of coalesce.py from A to B.
run() {
	local desc=$1 port=$2 addr=$ADDR_B got i srv verdict name rest
	shift 2
	[ "${1:-}" = -6 ] && addr=$ADDR6_B
	ip netns exec $NS_B timeout 240 python3 $PY server "$port" "$@" \
		>"$tmp/srv.$port" 2>&1 &
	srv=$!
	for i in $(seq 200); do
		grep -q '^ready' "$tmp/srv.$port" && break
		sleep 0.05
	done
	ip netns exec $NS_A timeout 240 python3 $PY client "$addr" "$port" "$@" \
		>"$tmp/cli.$port" 2>&1
	grep -qx sent "$tmp/cli.$port"
	tap_result $? "$desc: the client sent all three cases"
	wait $srv
	grep '^\(PASS\|FAIL\) ' "$tmp/srv.$port" | head -n "$checks" >"$tmp/v.$port"
	got=$(wc -l <"$tmp/v.$port")
	while read -r verdict name rest; do
		case $verdict in
		PASS) tap_result 0 "$desc: $name" ;;
		FAIL) echo "# $rest"; tap_result 1 "$desc: $name" ;;
		esac
	done <"$tmp/v.$port"
	for ((i = got + 1; i <= checks; i++)); do
		tap_result 1 "$desc: coalesce.py check $i of $checks did not run"
	done
	grep -hvx 'ready\|DONE\|sent\|\(PASS\|FAIL\) .*' "$tmp/srv.$port" "$tmp/cli.$port" |
		sed 's/^/# /'
	grep -qx DONE "$tmp/srv.$port"
	tap_result $? "$desc: the server ran to the end"
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "clean-nic: software GSO at va, GRO at vb" bash -c \
	"ip netns exec $NS_A ethtool -K va tso off tx-udp-segmentation off &&
	 ip netns exec $NS_B ethtool -K vb gro on"
run "clean-nic, IPv4" 7301
run "clean-nic, IPv6" 7303 -6
tap_check "clean: offloads off at va and vb" bash -c \
	"ip netns exec $NS_A ethtool -K va tso off gso off tx-udp-segmentation off &&
	 ip netns exec $NS_B ethtool -K vb gro off"
run "clean, IPv4" 7305
c=$(tstat $NS_B RcvCoalesce)
[ "${c:-0}" -gt 0 ]; tap_result $? "B's RcvCoalesce counted $c segments"
[ "$(tstat $NS_B DropMalformed)" = 0 ]; tap_result $? "B dropped nothing as malformed"
tap_check "no connection left" no_flows $NS_A $NS_B
tap_check "rmmod tonic" rmmod_tonic
tap_done
