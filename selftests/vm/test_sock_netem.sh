#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transfers through netem impairments on the data direction (A -> B),
# each with an end-to-end SHA-256 check and an assertion on the counter
# the impairment must move: delay 1 ms, loss 1 %, 5 %, 20 %, reorder 25 %,
# duplicate 5 %, corrupt 5 % (bad checksums dropped and counted: DropCsum
# on raw IP, UdpInCsumErrors on UDP) and ECN
# CE marking (ECN echo, one CNP per CE mark without a rate limit and
# rate-limited CNPs with one).
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 30
tmp=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$tmp"' EXIT
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
# Faster loss recovery in this test's namespaces (a per-netns sysctl).
tap_check "rto_min_ms=50 in A" ip netns exec $NS_A sysctl -qw net.tonic.rto_min_ms=50
# netem on va impairs skbs: a UDP GSO super-packet (20 datagrams or so)
# would be corrupted, marked or reordered whole, and the counts below
# assume one datagram per impairment.  Super-packets through netem loss:
# test_udp_encap.sh.
tap_check "gso_segs=1 in A (one skb per segment)" \
	ip netns exec $NS_A sysctl -qw net.tonic.gso_segs=1
# The ECN and NACK cases count the receiver signals NewReno asks for
# (rack, the default, needs ACKs only).
tap_check "newreno is the default in A and B" bash -c \
	"ip netns exec $NS_A build/tonic prog default newreno &&
	 ip netns exec $NS_B build/tonic prog default newreno"
tap_check "server listens" srv_start "$tmp/srv" server -p 7002

# run NAME BYTES NETEM-ARGS...: one transfer through netem on va.
run() {
	local name=$1 bytes=$2 start out
	shift 2
	netem $NS_A va "$@"
	start=$(date +%s)
	out=$(ip netns exec $NS_A timeout 240 $XFER client -a $ADDR_B -p 7002 -b "$bytes" -s "$bytes")
	echo "$out" | grep '^info' | sed 's/^/# /'
	tap_xfer "$out" "$name: $bytes B, SHA-256 matches ($(( $(date +%s) - start )) s)"
	netem_clear
}

# delta NS NAME: counter increase since the last snapshot.
declare -A snap
snapshot() { local k; for k in "$@"; do snap[$k]=$(tstat ${k%%:*} ${k#*:}); done; }
delta() { echo $(( $(tstat $1 $2) - ${snap[$1:$2]:-0} )); }

run "delay 1ms" 1000000 delay 1ms

snapshot $NS_A:SegsRetrans
run "loss 1%" 1000000 loss 1%
[ "$(delta $NS_A SegsRetrans)" -gt 0 ]; tap_result $? "loss 1% caused retransmissions"

snapshot $NS_A:SegsRetrans
run "loss 5%" 1000000 loss 5%
[ "$(delta $NS_A SegsRetrans)" -gt 0 ]; tap_result $? "loss 5% caused retransmissions"

snapshot $NS_A:SegsRetrans $NS_A:Timeouts
run "loss 20%" 300000 loss 20%
[ "$(delta $NS_A SegsRetrans)" -gt 0 ]; tap_result $? "loss 20% caused retransmissions"

snapshot $NS_B:NacksOut $NS_A:NacksIn
run "reorder 25%" 1000000 delay 1ms reorder 25% 50%
[ "$(delta $NS_B NacksOut)" -gt 0 ]; tap_result $? "reordering produced NACKs at the receiver"
[ "$(delta $NS_A NacksIn)" -gt 0 ]; tap_result $? "the sender received the NACKs"

snapshot $NS_B:DropDuplicate
run "duplicate 5%" 1000000 duplicate 5%
[ "$(delta $NS_B DropDuplicate)" -gt 0 ]; tap_result $? "duplicates suppressed and counted"

# netem flips a bit in the linear part only: a data packet's Ethernet,
# IP, (UDP) and Tonic headers, its payload being page fragments that no
# clone makes netem copy (sock/gso.c).  About half the flips hit a
# checksummed Tonic (or UDP) header, the rest are dropped below: 5 %
# gives some 15 of them in 1 MB, where 1 % gave 0 to 8.
csum=$(csum_errors $NS_B)
run "corrupt 5%" 1000000 corrupt 5%
csum=$(($(csum_errors $NS_B) - csum))
[ "$csum" -gt 0 ]
tap_result $? "corrupted packets dropped on bad checksum ($csum, $TONIC_ENCAP wire)"

# Without a rate limit every CE-marked segment is answered by one ACK
# carrying both the ECN echo and a CNP (input.c tonic_data_rcv): CNPs out
# equal echoes, and the reverse path is clean, so the sender gets them all.
tap_check "cnp_interval_us=0 in B" ip netns exec $NS_B sysctl -qw net.tonic.cnp_interval_us=0
snapshot $NS_B:EceOut $NS_B:CnpsOut $NS_A:CnpsIn
run "ECN CE marking, no CNP limit" 1000000 loss 5% ecn
ce=$(delta $NS_B EceOut) cnp=$(delta $NS_B CnpsOut) cnpin=$(delta $NS_A CnpsIn)
[ "$ce" -gt 0 ] && [ "$cnp" -eq "$ce" ] && [ "$cnpin" -eq "$cnp" ]
tap_result $? "one CNP per CE mark, all received ($ce echoed, $cnp sent, $cnpin received)"

# At most one CNP per second per connection: CNPs at least 1 s apart all
# fall between the two clock reads around the run, so there are at most
# 1 + the whole seconds it took (a bound a slow guest cannot break).
tap_check "cnp_interval_us=1000000 in B" \
	ip netns exec $NS_B sysctl -qw net.tonic.cnp_interval_us=1000000
snapshot $NS_B:EceOut $NS_B:CnpsOut $NS_A:CnpsIn
t0=$(date +%s%N)
run "ECN CE marking" 1000000 loss 5% ecn
secs=$((($(date +%s%N) - t0) / 1000000000))
ce=$(delta $NS_B EceOut) cnp=$(delta $NS_B CnpsOut)
[ "$ce" -gt 0 ]; tap_result $? "CE marks echoed (EceOut +$ce)"
[ "$cnp" -gt 0 ] && [ "$cnp" -le $((secs + 1)) ] && [ "$cnp" -lt "$ce" ]
tap_result $? "CNPs rate limited to 1/s ($cnp CNPs for $ce CE marks in ${secs}.x s)"
[ "$(delta $NS_A CnpsIn)" -eq "$cnp" ]; tap_result $? "the sender received every CNP"

srv_stop
ns_cleanup
tap_check "all sockets freed" no_tonic_sockets
tap_check "rmmod tonic" rmmod_tonic
tap_done
