#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A program whose outputs are out of range (selftests/progs/clamped.bpf.c:
# a window far above K, a retransmission range past everything sent) hurts
# nobody: the engine clamps every output, data arrives intact, and each
# clip is counted in the namespace's prog_clamped statistic.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=build/tonic

cleanup() {
	ns_cleanup
	$TONIC prog unload clamped >/dev/null 2>&1
	[ ! -e /sys/module/tonic ] || rmmod_tonic >/dev/null 2>&1
}
trap cleanup EXIT

# clamped_stat NS: the prog_clamped counter of namespace NS over netlink.
clamped_stat() {
	ip netns exec "$1" $TONIC -j stats | jq -e .prog_clamped
}

tap_plan 8
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "the verifier accepts the hostile program" \
	$TONIC prog load build/bpf/clamped.bpf.o
tap_check "two namespaces over veth" ns_setup
tap_check "prog_clamped starts at 0" test "$(clamped_stat $NS_A)" = 0
# Only the sender's program runs the engine, so pick it in A's namespace.
tap_check "make it the sender namespace's default" \
	ip netns exec $NS_A $TONIC prog default clamped
srv_start /tmp/clamp-server server -p 7100
out=$(ip netns exec $NS_A $XFER client -a $ADDR_B -p 7100 -b 3000000 2>&1)
tap_xfer "$out" "3 MB arrive intact under the hostile program"
tap_check "TONIC_INFO names the program" \
	test "$(info_field "$out" proto)" = clamped
n=$(clamped_stat $NS_A)
late=$(tstat $NS_A AcksLate)
echo "# prog_clamped=$n acks_in=$(tstat $NS_A AcksIn) late=$late"
# A late ACK (below the cumulative ack) with no news reaches no program.
tap_check "every ACK's oversized window was clamped and counted" \
	test "${n:-0}" -ge "$(($(tstat $NS_A AcksIn) - late))"
tap_done
