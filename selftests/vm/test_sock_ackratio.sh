#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ACK ratio a program chooses (struct tonic_hook_out.ack_ratio,
# Documentation/programs.md): bulk transfers over a clean veth with the
# rack program loaded under the built-in's name with rack_ack_ratio=0 (the
# receiver's default, net.tonic.delack_segs = 2) and 8, counting the
# receiver's data segments and ACKs:
# - ratio 0: every ACK covers at most 2 in-order segments, so there are at
#   least half as many ACKs as segments (and at most 6 per 10);
# - ratio 8: the sender asks for an ACK every 8 segments (ACKREQ) and the
#   receiver holds up to net.tonic.delack_max (16): fewer than 2 ACKs per
#   10 segments, and at least one per 16;
# - delack_max=4 caps it: at least one ACK per 4 segments;
# - the segment that fills the sender's window asks for its ACK: 20
#   transfers of 64 KB with ratio 32, delack_max 64 and an initial window
#   of 2 segments go through slow start's windows of 2, 4, 8 and 16
#   segments, each smaller than the ratio (rack_acks_per_wnd=0 keeps rack
#   from lowering its ratio in small windows); without that ACKREQ the
#   receiver would hold each window's segments for the delayed-ACK timer
#   (about 4 timer ACKs per transfer), with it almost none is sent by the
#   timer.  (A window K smaller than the ratio would not show it: the
#   reader's window updates acknowledge then.)
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=build/tonic
PERF_TMP=

cleanup() {
	srv_stop
	ns_cleanup
	$TONIC prog unload rack >/dev/null 2>&1
	[ -z "$PERF_TMP" ] || rm -rf "$PERF_TMP"
}

# both NAME VALUE: set net.tonic.NAME in both namespaces.
both() {
	ip netns exec $NS_A sysctl -qw "net.tonic.$1=$2" &&
	ip netns exec $NS_B sysctl -qw "net.tonic.$1=$2"
}

# transfer BYTES [ARGS...]: one tonic_xfer transfer A -> B with checksums;
# sets SEGS, ACKS and DELACKS to the receiver's SegsIn, AcksOut and
# DelayedAcks during it.
transfer() {
	local s0 a0 d0 out bytes=$1
	shift
	s0=$(tstat $NS_B SegsIn)
	a0=$(tstat $NS_B AcksOut)
	d0=$(tstat $NS_B DelayedAcks)
	out=$(ip netns exec $NS_A timeout 120 $XFER client -a $ADDR_B -p 7102 \
		-b "$bytes" -s 5 "$@")
	SEGS=$(($(tstat $NS_B SegsIn) - s0))
	ACKS=$(($(tstat $NS_B AcksOut) - a0))
	DELACKS=$(($(tstat $NS_B DelayedAcks) - d0))
	echo "# $bytes B $*: receiver got $SEGS segments, sent $ACKS ACKs" \
		"($DELACKS by the delayed-ACK timer)"
	xfer_ok "$out" || { sed 's/^/# /' <<<"$out"; return 1; }
}

tap_plan 18
PERF_TMP=$(mktemp -d)
trap cleanup EXIT
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "defaults: delack_segs 2, delack_max 16" bash -c \
	"[ \$(ip netns exec $NS_B sysctl -n net.tonic.delack_segs) = 2 ] &&
	 [ \$(ip netns exec $NS_B sysctl -n net.tonic.delack_max) = 16 ]"
tap_check "server listens" srv_start "$PERF_TMP/srv" server -p 7102
tap_check "load rack with rack_ack_ratio=0 (over the built-in)" \
	$TONIC prog load build/bpf/rack.bpf.o rack_ack_ratio=0

transfer 4000000
tap_result $? "ratio 0: 4 MB intact"
tap_check "ratio 0: between 5 and 6 ACKs per 10 segments ($ACKS, $SEGS)" \
	test $((ACKS * 2)) -ge "$SEGS" -a $((ACKS * 10)) -le $((SEGS * 6))

tap_check "replace rack with rack_ack_ratio=8" \
	$TONIC prog replace build/bpf/rack.bpf.o rack_ack_ratio=8
transfer 4000000
tap_result $? "ratio 8: 4 MB intact"
tap_check "ratio 8: fewer than 2 ACKs per 10 segments, at least 1 per 16 ($ACKS, $SEGS)" \
	test $((ACKS * 10)) -lt $((SEGS * 2)) -a $((ACKS * 16)) -ge "$SEGS"

tap_check "delack_max=4" both delack_max 4
transfer 2000000
tap_result $? "ratio 8, delack_max 4: 2 MB intact"
tap_check "ratio 8, delack_max 4: at least 1 ACK per 4 segments ($ACKS, $SEGS)" \
	test $((ACKS * 4)) -ge "$SEGS"
both delack_max 16

tap_check "replace rack with rack_ack_ratio=32 rack_acks_per_wnd=0 rack_init_cwnd=2, delack_max=64" bash -c \
	"$TONIC prog replace build/bpf/rack.bpf.o rack_ack_ratio=32 rack_acks_per_wnd=0 rack_init_cwnd=2 &&
	 ip netns exec $NS_A sysctl -qw net.tonic.delack_max=64 &&
	 ip netns exec $NS_B sysctl -qw net.tonic.delack_max=64"
segs=0 acks=0 delacks=0 bad=0
for i in $(seq 20); do
	transfer 65536 >/dev/null || bad=$((bad + 1))
	segs=$((segs + SEGS)) acks=$((acks + ACKS)) delacks=$((delacks + DELACKS))
done
echo "# 20 x 64 KB: receiver got $segs segments, sent $acks ACKs ($delacks by the delayed-ACK timer)"
tap_result $bad "ratio 32, initial window 2: 20 transfers of 64 KB intact"
tap_check "slow start's window-filling segments ask: $delacks of $acks ACKs by the timer" \
	test "$delacks" -le 10
tap_check "unload rack" $TONIC prog unload rack
srv_stop
ns_cleanup
tap_check "rmmod tonic" rmmod_tonic
tap_done
