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
# IPv4 and IPv6 (where in-order GRO batches are queued whole, one skb
# each), with offloads off (the bench's clean path), and with one
# datagram per skb (net.tonic.gso_segs=1), where B receives clones of A's
# skbs as on raw IP: B's socket gives the one that becomes the queue's
# tail its own head so that later ones can be appended.  With offloads
# off, datagrams that wait in the backlog are merged there (input.c,
# tonic_backlog_merge()).  The UDP wire
# only (GRO is the UDP wire's).  The harness's checks after the test
# catch receive memory left charged (inet_sock_destruct()).
cd "$(dirname "$0")/../.." || exit 1
TONIC_ENCAP=udp
. selftests/vm/lib.sh

PY=selftests/vm/coalesce.py
checks=$(python3 $PY --count)
tap_plan $((4 * (checks + 2) + 16))
tmp=$(mktemp -d)
cleanup() {
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# run DESC PORT [-6]: the three cases of coalesce.py from A to B.
run() {
	local desc=$1 port=$2 addr=$ADDR_B got i srv
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
	tap_verdicts "$tmp/srv.$port" "$checks" coalesce.py "$desc"
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
f0=$(tstat $NS_B GroFastBatches)
run "clean-nic, IPv4" 7301
run "clean-nic, IPv6" 7303 -6
# In-order GRO batches reach the queue whole, one skb of many segments
# (input.c, tonic_batch_fast()): the peeks and reads above crossed them.
f=$(($(tstat $NS_B GroFastBatches) - f0))
[ "$f" -gt 0 ]; tap_result $? "clean-nic: $f GRO batches queued whole as one skb each"
tap_check "clean: offloads off at va and vb" bash -c \
	"ip netns exec $NS_A ethtool -K va tso off gso off tx-udp-segmentation off &&
	 ip netns exec $NS_B ethtool -K vb gro off"
run "clean, IPv4" 7305
# While B's reader holds its socket, datagrams that continue the one
# before them in the backlog are merged with it and taken as one batch
# (tonic_backlog_merge(), input.c), as TCP coalesces its backlog; GRO's
# counters do not count these batches.
tap_check "B serves transfers (clean)" srv_start "$tmp/xferc" server -p 7311
b0=$(tstat $NS_B BacklogCoalesce) g0=$(tstat $NS_B GroBatches)
out=$(ip netns exec $NS_A timeout 120 $XFER client -a $ADDR_B -p 7311 -b 20000000 -s 2)
tap_xfer "$out" "clean: 20 MB, SHA-256 matches"
b=$(($(tstat $NS_B BacklogCoalesce) - b0)) g=$(($(tstat $NS_B GroBatches) - g0))
[ "$b" -gt 0 ] && [ "$g" = 0 ]
tap_result $? "clean: $b datagrams merged in B's backlog, GroBatches +$g"
srv_stop
# One datagram per skb: over veth B gets clones of A's skbs, which
# coalescing can append to only once B's socket gave them their own head.
tap_check "net.tonic.gso_segs=1 in A" ip netns exec $NS_A sysctl -qw net.tonic.gso_segs=1
run "lone datagrams, IPv4" 7307
# With a reader that keeps up, every segment finds the queue's tail a
# clone too, unless B's socket gave the tail its own head (2 of 3,510
# segments merged without).
tap_check "B serves 5 MB transfers" srv_start "$tmp/xfer" server -p 7309
c0=$(tstat $NS_B RcvCoalesce) s0=$(tstat $NS_B SegsIn)
out=$(ip netns exec $NS_A timeout 120 $XFER client -a $ADDR_B -p 7309 -b 5000000 -s 1)
tap_xfer "$out" "lone datagrams, a reader that keeps up: 5 MB, SHA-256 matches"
c=$(($(tstat $NS_B RcvCoalesce) - c0)) s=$(($(tstat $NS_B SegsIn) - s0))
[ $((2 * c)) -ge "$s" ]
tap_result $? "lone datagrams, a reader that keeps up: $c of $s segments merged (at least half)"
srv_stop
c=$(tstat $NS_B RcvCoalesce)
[ "${c:-0}" -gt 0 ]; tap_result $? "B's RcvCoalesce counted $c segments"
[ "$(tstat $NS_B DropMalformed)" = 0 ]; tap_result $? "B dropped nothing as malformed"
tap_check "no connection left" no_flows $NS_A $NS_B
tap_check "rmmod tonic" rmmod_tonic
tap_done
