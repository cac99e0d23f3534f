#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Forwarding safety: a router namespace R between A and B, with tonic.ko
# loaded (so R has its own UDP tunnel socket on the Tonic port) and every
# receive merge the kernel offers turned on at R's ingress (GRO,
# rx-gro-list, rx-udp-gro-forwarding), and A sending single datagrams
# (tx-udp-segmentation and TSO off) so there is something to merge.
# Tonic traffic from A to B through R must arrive whole and unaltered
# (SHA-256 at both ends, no checksum, malformed or duplicate drop at B,
# B received every data segment A sent less what the devices dropped)
# and R's Tonic must never take a forwarded packet for its own (its UDP
# layer delivers nothing and its Tonic counters see no data), while R
# runs a Tonic connection of its own to B at the same time.  IPv4 and
# IPv6; the UDP wire, the one with a GRO hook.
cd "$(dirname "$0")/../.." || exit 1
TONIC_ENCAP=udp
. selftests/vm/lib.sh

tap_plan 25
tmp=$(mktemp -d)
NS_R=tonic-fr
cleanup() {
	ns_cleanup
	ip netns del $NS_R 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

R4_A=10.79.1.2
R4_B=10.79.2.1
A4=10.79.1.1
B4=10.79.2.2
R6_A=fd00:79:1::2
R6_B=fd00:79:2::1
A6=fd00:79:1::1
B6=fd00:79:2::2
MB=20000000

# A -- (va | ra) -- R -- (rb | vb) -- B
route_setup() {
	ip netns add $NS_A && ip netns add $NS_R && ip netns add $NS_B &&
	ip link add va netns $NS_A type veth peer name ra netns $NS_R &&
	ip link add rb netns $NS_R type veth peer name vb netns $NS_B &&
	ip -n $NS_A addr add $A4/24 dev va &&
	ip -n $NS_A addr add $A6/64 dev va nodad &&
	ip -n $NS_R addr add $R4_A/24 dev ra &&
	ip -n $NS_R addr add $R6_A/64 dev ra nodad &&
	ip -n $NS_R addr add $R4_B/24 dev rb &&
	ip -n $NS_R addr add $R6_B/64 dev rb nodad &&
	ip -n $NS_B addr add $B4/24 dev vb &&
	ip -n $NS_B addr add $B6/64 dev vb nodad &&
	for l in "$NS_A va" "$NS_R ra" "$NS_R rb" "$NS_B vb" \
		 "$NS_A lo" "$NS_R lo" "$NS_B lo"; do
		set -- $l
		ip -n "$1" link set "$2" up || return 1
	done &&
	ip -n $NS_A route add default via $R4_A &&
	ip -n $NS_A -6 route add default via $R6_A &&
	ip -n $NS_B route add default via $R4_B &&
	ip -n $NS_B -6 route add default via $R6_B &&
	ip netns exec $NS_R sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec $NS_R sysctl -qw net.ipv6.conf.all.forwarding=1
}

# Every receive merge at R's ingress from A (and from B, for the ACKs);
# single datagrams from A and B.  rx-gro-list and rx-udp-gro-forwarding
# are each tried: the test is meaningful with GRO alone.
merge_setup() {
	local d
	for d in ra rb; do
		ip netns exec $NS_R ethtool -K $d gro on || return 1
		ip netns exec $NS_R ethtool -K $d rx-gro-list on 2>/dev/null
		ip netns exec $NS_R ethtool -K $d rx-udp-gro-forwarding on 2>/dev/null
	done
	ip netns exec $NS_A ethtool -K va tso off tx-udp-segmentation off &&
	ip netns exec $NS_B ethtool -K vb tso off tx-udp-segmentation off
}

# dev_drops NS DEV: packets DEV in NS dropped on receive and transmit.
dev_drops() {
	ip -n "$1" -j -s link show "$2" |
		jq '.[0].stats64 | .rx.dropped + .tx.dropped'
}

all_drops() {
	echo $(( $(dev_drops $NS_A va) + $(dev_drops $NS_R ra) +
		 $(dev_drops $NS_R rb) + $(dev_drops $NS_B vb) ))
}

# forward_case FAMILY: R's own transfer to B and A's through R at once.
forward_case() {
	local fam=$1 opt= a_b=$B4 r_b=$B4 port=7201 fwd
	local out_a out_r out0 in0 rin0 rudp0 drops0 out1 in1 rin1 drops1

	if [ "$fam" = IPv6 ]; then
		opt=-6 a_b=$B6 r_b=$B6 port=7202
	fi
	out0=$(tstat $NS_A SegsOut)
	in0=$(tstat $NS_B SegsIn)
	rin0=$(tstat $NS_R SegsIn)
	rudp0=$(snmp $NS_R Udp InDatagrams)
	[ "$fam" = IPv6 ] && rudp0=$(snmp6 $NS_R Udp6InDatagrams)
	fwd=$(snmp $NS_R Ip ForwDatagrams)
	[ "$fam" = IPv6 ] && fwd=$(snmp6 $NS_R Ip6OutForwDatagrams)
	drops0=$(all_drops)

	ip netns exec $NS_R timeout 300 $XFER client $opt -a $r_b -p $port \
		-b $MB -s 2 >"$tmp/r.out" 2>&1 &
	local rpid=$!
	out_a=$(ip netns exec $NS_A timeout 300 $XFER client $opt -a $a_b \
		-p $port -b $MB -s 1 2>&1)
	wait $rpid
	out_r=$(cat "$tmp/r.out")
	tap_xfer "$out_a" "$fam: 20 MB from A to B through R intact"
	tap_xfer "$out_r" "$fam: R's own 20 MB to B at the same time intact"

	out1=$(tstat $NS_A SegsOut)
	in1=$(tstat $NS_B SegsIn)
	rin1=$(tstat $NS_R SegsIn)
	drops1=$(all_drops)
	local rudp1 fwd1
	rudp1=$(snmp $NS_R Udp InDatagrams)
	[ "$fam" = IPv6 ] && rudp1=$(snmp6 $NS_R Udp6InDatagrams)
	fwd1=$(snmp $NS_R Ip ForwDatagrams)
	[ "$fam" = IPv6 ] && fwd1=$(snmp6 $NS_R Ip6OutForwDatagrams)

	# B's SegsIn also counts R's segments; A sent only through R.
	local sent_a=$((out1 - out0)) got_b=$((in1 - in0)) lost=$((drops1 - drops0))
	local r_sent
	r_sent=$(info_field "$out_r" segs_out)
	echo "# $fam: A sent $sent_a, R sent $r_sent, B got $got_b, devices dropped $lost, R forwarded $((fwd1 - fwd)) skbs (GRO merges), R's UDP took $((rudp1 - rudp0)) (its own connection's ACKs), R's Tonic got $((rin1 - rin0)) data segments"
	tap_check "$fam: R forwarded the traffic" test $((fwd1 - fwd)) -gt 1000
	tap_check "$fam: B got every data segment A and R sent, less device drops" \
		test $((sent_a + r_sent - got_b)) -ge 0 -a \
		     $((sent_a + r_sent - got_b)) -le "$lost"
	# R's reply from B is one data segment; forwarded ones would be
	# thousands.
	tap_check "$fam: R's Tonic took no forwarded data segment" \
		test $((rin1 - rin0)) -le 2
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "A, router R and B over two veth pairs" route_setup
tap_check "GRO on at R's ingress, single datagrams from A and B" merge_setup
tap_check "R has its own Tonic UDP tunnel socket" \
	ip netns exec $NS_R grep -qi ":$(printf %04X "$TONIC_UDP_PORT") " /proc/net/udp
tap_check "server in B (IPv4)" srv_start "$tmp/srv4" server -p 7201 -f
tap_check "server in B (IPv6)" srv_start "$tmp/srv6" server -6 -p 7202 -f

forward_case IPv4
forward_case IPv6

for ns in $NS_B $NS_R; do
	tap_check "$ns: no checksum error" test "$(csum_errors $ns)" = 0
done
tap_check "B dropped no malformed segment" test "$(tstat $NS_B DropMalformed)" = 0
tap_check "R dropped nothing as Tonic" \
	test "$(( $(tstat $NS_R DropMalformed) + $(tstat $NS_R DropNoSocket) +
		  $(tstat $NS_R DropCsum) + $(tstat $NS_R DropState) ))" = 0
tap_check "R answered no forwarded packet with a reset" \
	test "$(tstat $NS_R RstsOut)" = 0
srv_stop
tap_check "no Tonic connection left" no_flows $NS_A $NS_R $NS_B
tap_check "no checksum error in A" test "$(csum_errors $NS_A)" = 0
cleanup
trap - EXIT
tap_check "no Tonic socket left" no_tonic_sockets_global
tap_check "rmmod tonic" rmmod_tonic
tap_done
