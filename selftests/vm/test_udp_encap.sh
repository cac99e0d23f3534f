#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The UDP wire (net.tonic.encap=1, the default): a capture on the veth
# (selftests/vm/udp_wire.py, an AF_PACKET socket) shows UDP datagrams to
# net.tonic.udp_port, one Tonic header each, one UDP source port per
# connection and different ones across connections, no raw protocol-253
# packets; UdpInCsumErrors stays 0; IPv4 and IPv6 transfers with SHA-256;
# a namespace switched to raw IP talks raw IP (the peer answers in kind);
# a port that cannot be bound falls back to raw IP with a log line and a
# counter; an ICMP "fragmentation needed" (ICMPv6 "packet too big") for a
# live UDP connection lowers the path MTU and C: the segments cut after
# it fit the path (IP fragments only those cut before), and the transfer
# completes intact (and so on the raw IP wire); an ICMP "host unreachable" for a SYN in UDP fails connect().
# Super-packets (UDP GSO): a capture with checksum offload and UDP
# segmentation off on both veths shows the datagrams software GSO cut,
# each with its own Tonic header and a UDP checksum that verifies;
# GsoPackets/GsoSegs count them (also in `tonic stats`); 20 MB over IPv4
# and IPv6 through 1% loss with the veths' defaults (super-packets cross
# the veth whole, B's UDP layer cuts them) arrive intact; raw IP and
# net.tonic.gso_segs=1 send one skb per segment.  Resends of segments
# whose first send still waits in a 30 ms netem queue (RTO capped at
# 2 ms) arrive intact beside it: every transmission's headers are its
# own (sock/gso.c), both copies reference the same payload pages.
cd "$(dirname "$0")/../.." || exit 1
TONIC_ENCAP=udp		# this test is about the UDP wire whatever the run
. selftests/vm/lib.sh

tap_plan 80
tmp=$(mktemp -d)
CAP_PID=
HOLD_PID=
cleanup() {
	[ -n "$CAP_PID" ] && kill "$CAP_PID" 2>/dev/null
	[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
WIRE="python3 selftests/vm/udp_wire.py"
P=$TONIC_UDP_PORT

# cap_start NAME: capture on va in A (both directions) into $tmp/NAME.json.
cap_start() {
	local i
	ip netns exec $NS_A $WIRE capture va "$P" "$tmp/$1.json" >"$tmp/$1.out" 2>&1 &
	CAP_PID=$!
	for i in $(seq 100); do
		grep -q ready "$tmp/$1.out" && return 0
		sleep 0.05
	done
	return 1
}

cap_stop() {
	kill -TERM "$CAP_PID" && wait "$CAP_PID"
	CAP_PID=
	sed 's/^/# /' "$tmp/$1.json"
	echo
}

# jf NAME EXPR: a jq expression over capture NAME.
jf() {
	jq -r "$2" "$tmp/$1.json"
}

client() {
	ip netns exec $NS_A timeout 300 $XFER client "$@"
}

# wait_gone PID: until process PID (not a child of this shell) has ended.
wait_gone() {
	while kill -0 "$1" 2>/dev/null; do
		sleep 0.05
	done
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "net.tonic.encap is 1 (UDP) by default" \
	test "$(ip netns exec $NS_A sysctl -n net.tonic.encap)" = 1
tap_check "net.tonic.udp_port is $P by default" \
	test "$(ip netns exec $NS_B sysctl -n net.tonic.udp_port)" = "$P"
tap_check "the namespace's UDP tunnel socket is bound to $P" \
	ip netns exec $NS_B grep -qi ":$(printf %04X "$P") " /proc/net/udp

tap_check "server listens (IPv4)" srv_start "$tmp/srv" server -p 7101
tap_check "server listens (IPv6)" srv_start "$tmp/srv6" server -6 -p 7102

# gso NS: "packets segs" of NS's GsoPackets and GsoSegs.
gso() {
	echo "$(tstat "$1" GsoPackets) $(tstat "$1" GsoSegs)"
}

# Four IPv4 connections and one IPv6 connection, one capture.  With tx
# checksumming and UDP segmentation off, validate_xmit_skb() cuts and
# checksums each super-packet in software before the capture sees it.
tap_check "va and vb: tx checksumming and tx-udp-segmentation off" bash -c \
	"ip netns exec $NS_A ethtool -K va tx off tx-udp-segmentation off &&
	 ip netns exec $NS_B ethtool -K vb tx off tx-udp-segmentation off"
read -r g0 s0 <<<"$(gso $NS_A)"
tap_check "capture on va" cap_start udp
for i in 1 2 3 4; do
	out=$(client -a $ADDR_B -p 7101 -b 300000 -s $i)
	tap_xfer "$out" "IPv4 connection $i over UDP: 300 kB, SHA-256 matches"
done
C=$(info_field "$out" C)
[ "$C" = 1444 ]; tap_result $? "C on a 1500-byte MTU is 1444 (IP 20 + UDP 8 + Tonic 28 less): $C"
out=$(client -6 -a $ADDR6_B -p 7102 -b 300000 -s 9)
tap_xfer "$out" "IPv6 connection over UDP: 300 kB, SHA-256 matches"
C=$(info_field "$out" C)
[ "$C" = 1424 ]; tap_result $? "IPv6 C is 1424: $C"
cap_stop udp

[ "$(jf udp .udp4)" -gt 500 ]; tap_result $? "IPv4 UDP datagrams to port $P: $(jf udp .udp4)"
[ "$(jf udp .udp6)" -gt 100 ]; tap_result $? "IPv6 UDP datagrams to port $P: $(jf udp .udp6)"
[ "$(jf udp .raw)" = 0 ]; tap_result $? "no raw protocol-253 packets"
[ "$(jf udp .bad)" = 0 ]; tap_result $? "every datagram holds exactly one Tonic header"
[ "$(jf udp .csum_bad)" = 0 ] && [ "$(jf udp .csum_ok)" -gt 600 ]
tap_result $? "every datagram's UDP checksum verifies: $(jf udp .csum_ok) ok, $(jf udp .csum_bad) bad"
read -r g s <<<"$(gso $NS_A)"
g=$((g - g0)) s=$((s - s0))
[ "$g" -gt 0 ] && [ "$s" -ge $((2 * g)) ]
tap_result $? "A sent super-packets: $g of $s segments ($(awk -v s=$s -v g=$g 'BEGIN { if (g) printf "%.1f", s / g }') a packet)"
tap_check "tonic stats shows gso_packets and gso_segs as /proc does" bash -c \
	"ip netns exec $NS_A build/tonic -j stats > $tmp/stats &&
	 [ \$(jq .gso_packets $tmp/stats) = $(tstat $NS_A GsoPackets) ] &&
	 [ \$(jq .gso_segs $tmp/stats) = $(tstat $NS_A GsoSegs) ]"
tap_check "va and vb: offloads back on" bash -c \
	"ip netns exec $NS_A ethtool -K va tx on tx-udp-segmentation on &&
	 ip netns exec $NS_B ethtool -K vb tx on tx-udp-segmentation on"
[ "$(jf udp '[.conns[] | length] | max')" = 1 ]
tap_result $? "one UDP source port per connection and direction"
client_ports=$(jf udp '[.conns | to_entries[] | select(.key | test("^4 10.77.0.1.")) | .value[0]] | unique | length')
[ "$(jf udp '[.conns | keys[] | select(test("^4 10.77.0.1."))] | length')" = 4 ] &&
	[ "$client_ports" -ge 3 ]
tap_result $? "four IPv4 connections from A, $client_ports different UDP source ports"
[ "$(jf udp '[.conns[][] | select(. < 49152)] | length')" = 0 ]
tap_result $? "UDP source ports are in 49152..65535"
for ns in $NS_A $NS_B; do
	[ "$(csum_errors $ns)" = 0 ]
	tap_result $? "UdpInCsumErrors is 0 in $ns"
done
[ "$(tstat $NS_B DropCsum)" = 0 ]; tap_result $? "no Tonic checksum drops"

# Super-packets as the veths pass them by default: whole to B, whose UDP
# layer cuts them (udp_rcv_segment()).  1% loss: netem drops whole
# super-packets, so resends travel in super-packets as well.
read -r g0 s0 <<<"$(gso $NS_A)"
r0=$(tstat $NS_A SegsRetrans)
tap_check "netem loss 1% on va" netem $NS_A va loss 1%
out=$(client -a $ADDR_B -p 7101 -b 20000000 -s 10)
tap_xfer "$out" "IPv4 20 MB over 1% loss in super-packets, SHA-256 matches"
out=$(client -6 -a $ADDR6_B -p 7102 -b 20000000 -s 11)
tap_xfer "$out" "IPv6 20 MB over 1% loss in super-packets, SHA-256 matches"
netem_clear
read -r g s <<<"$(gso $NS_A)"
g=$((g - g0)) s=$((s - s0)) r=$(($(tstat $NS_A SegsRetrans) - r0))
[ "$g" -gt 0 ] && [ "$s" -ge $((2 * g)) ] && [ "$r" -gt 0 ]
tap_result $? "40 MB: $g super-packets of $s segments ($(awk -v s=$s -v g=$g 'BEGIN { if (g) printf "%.1f", s / g }') a packet), $r resent"
for ns in $NS_A $NS_B; do
	[ "$(csum_errors $ns)" = 0 ]
	tap_result $? "UdpInCsumErrors is still 0 in $ns"
done

# Resends while the first copy still waits in the qdisc: 30 ms of delay
# on va and the RTO capped at 2 ms, so timeouts resend segments whose
# first send (its headers, its references to the payload pages) has not
# left A.  Both copies reach B, intact.
d0=$(tstat $NS_B DropDuplicate)
r0=$(tstat $NS_A SegsRetrans)
tap_check "netem delay 30 ms on va, rto_min_ms=1 rto_max_ms=2 in A" bash -c \
	"ip netns exec $NS_A tc qdisc replace dev va root netem delay 30ms limit 100000 &&
	 ip netns exec $NS_A sysctl -qw net.tonic.rto_min_ms=1 net.tonic.rto_max_ms=2"
out=$(client -a $ADDR_B -p 7101 -b 2000000 -s 13)
tap_xfer "$out" "2 MB resent while queued, SHA-256 matches"
out=$(client -6 -a $ADDR6_B -p 7102 -b 2000000 -s 14)
tap_xfer "$out" "IPv6 2 MB resent while queued, SHA-256 matches"
ip netns exec $NS_A sysctl -qw net.tonic.rto_min_ms=200 net.tonic.rto_max_ms=120000
netem_clear
d=$(($(tstat $NS_B DropDuplicate) - d0)) r=$(($(tstat $NS_A SegsRetrans) - r0))
[ "$r" -gt 0 ] && [ "$d" -gt 0 ]
tap_result $? "$r resent, first sends and resends both arrived: $d duplicates at B"

# net.tonic.gso_segs=1: one skb per segment.
read -r g0 s0 <<<"$(gso $NS_A)"
tap_check "net.tonic.gso_segs=1 in A" ip netns exec $NS_A sysctl -qw net.tonic.gso_segs=1
out=$(client -a $ADDR_B -p 7101 -b 1000000 -s 12)
tap_xfer "$out" "gso_segs=1: 1 MB, SHA-256 matches"
[ "$(gso $NS_A)" = "$g0 $s0" ]; tap_result $? "gso_segs=1: no super-packets"
tap_check "net.tonic.gso_segs=64 in A again" ip netns exec $NS_A sysctl -qw net.tonic.gso_segs=64

# A switched to raw IP: its SYN goes raw, and B answers in kind.
tap_check "net.tonic.encap=0 in A" ip netns exec $NS_A sysctl -qw net.tonic.encap=0
read -r g0 s0 <<<"$(gso $NS_A)"
tap_check "capture on va" cap_start raw
out=$(client -a $ADDR_B -p 7101 -b 300000 -s 5)
tap_xfer "$out" "raw IP connection: 300 kB, SHA-256 matches"
cap_stop raw
[ "$(jf raw .raw)" -gt 100 ] && [ "$(jf raw .udp4)" = 0 ]
tap_result $? "raw mode: $(jf raw .raw) protocol-253 packets, no UDP"
[ "$(gso $NS_A)" = "$g0 $s0" ]; tap_result $? "raw mode: no super-packets"
tap_check "net.tonic.encap=1 in A again" ip netns exec $NS_A sysctl -qw net.tonic.encap=1

# Port taken: A falls back to raw IP, logs it and counts it.
ip netns exec $NS_A python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7777))
print("bound", flush=True)
time.sleep(600)' >"$tmp/hold" 2>&1 &
HOLD_PID=$!
for i in $(seq 100); do grep -q bound "$tmp/hold" && break; sleep 0.05; done
fb=$(tstat $NS_A UdpFallback)
tap_check "udp_port=7777 (taken) in A" ip netns exec $NS_A sysctl -qw net.tonic.udp_port=7777
out=$(client -a $ADDR_B -p 7101 -b 100000 -s 6)
tap_xfer "$out" "port taken: the connection falls back to raw IP, SHA-256 matches"
fb=$(($(tstat $NS_A UdpFallback) - fb))
[ "$fb" = 1 ]; tap_result $? "UdpFallback +$fb"
dmesg | grep -q "tonic: UDP port 7777 unavailable"
tap_result $? "the fallback is logged"
kill "$HOLD_PID"; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=
tap_check "udp_port=$P in A again" ip netns exec $NS_A sysctl -qw net.tonic.udp_port=$P

# ICMP fragmentation needed for a live UDP connection (sent by B as a
# router would, for DATA it dropped: B's ingress drops DATA until the
# error is out, so that its quote is of a packet still in flight): A
# lowers its path MTU and C.  The segments cut before keep their size and
# are left as IP fragments, two each: fewer fragments than segments
# sent means most went out whole at the new C (with C kept, nearly every
# segment would be two fragments).
#
# pmtu_drop NAME PROTO MATCH C FRAGS WIRE_ARGS -- CLIENT_ARGS: B drops A's
# DATA (tc u32 on protocol PROTO: MATCH) until udp_wire.py frag-needed
# WIRE_ARGS has answered one, while A sends 10 MB (client CLIENT_ARGS):
# the transfer completes, A's C is then C, and the command FRAGS (A's
# fragments created) counts fewer fragments than segments sent.  5 cases.
pmtu_drop() {
	local name=$1 proto=$2 match=$3 c=$4 frags=$5 wire=() out rc n segs
	local icmp_pid undrop

	shift 5
	while [ "$1" != -- ]; do wire+=("$1"); shift; done
	shift
	tap_check "$name: B drops Tonic DATA for a moment" bash -c \
		"tc -n $NS_B qdisc add dev vb clsact &&
		 tc -n $NS_B filter add dev vb ingress protocol $proto u32 \
			$match action drop"
	ip netns exec $NS_B timeout 120 $WIRE frag-needed vb "${wire[@]}" \
		>"$tmp/icmp" 2>&1 &
	icmp_pid=$!
	for i in $(seq 200); do grep -q ready "$tmp/icmp" && break; sleep 0.05; done
	n=$($frags)
	(wait_gone $icmp_pid; tc -n $NS_B qdisc del dev vb clsact) &
	undrop=$!
	out=$(client "$@" -b 10000000)
	wait $icmp_pid
	rc=$?
	wait $undrop
	tap_result $rc "$name: ICMP error sent during the transfer: $(grep sent "$tmp/icmp")"
	tap_xfer "$out" "$name: the transfer completes, SHA-256 matches"
	n=$(($($frags) - n))
	[ "$(info_field "$out" C)" = "$c" ]
	tap_result $? "$name: C lowered to $c: $(info_field "$out" C)"
	segs=$(info_field "$out" segs_out)
	[ "$n" -gt 0 ] && [ "$n" -lt "$segs" ]
	tap_result $? "$name: only segments cut before the drop left as IP fragments: $n fragments, $segs segments"
}

# IPv4: C = 1280 - IP 20 - UDP 8 - Tonic 28.
pmtu_drop IPv4 ip "$TONIC_U32 match u8 4 0xff at $((TONIC_OFF + 4))" 1224 \
	"snmp $NS_A Ip FragCreates" "$P" 1280 -- -a $ADDR_B -p 7101 -s 7
ip -n $NS_A route get $ADDR_B | grep -q "mtu 1280"
tap_result $? "A's route to B has mtu 1280: $(ip -n $NS_A route get $ADDR_B | xargs)"

# IPv6, an ICMPv6 "packet too big": C = 1280 - IPv6 40 - UDP 8 - Tonic 28.
pmtu_drop IPv6 ipv6 "match ip6 protocol 17 0xff match u16 $P 0xffff at 42 match u8 4 0xff at 52" \
	1204 "snmp6 $NS_A Ip6FragCreates" "$P" 1280 6 -- -6 -a $ADDR6_B -p 7102 -s 8
ip -6 -n $NS_A route get $ADDR6_B | grep -q "mtu 1280"
tap_result $? "A's IPv6 route to B has mtu 1280: $(ip -6 -n $NS_A route get $ADDR6_B | xargs)"

# The raw IP wire (IPv4) the same way: A's route to B is at 1280 from
# above, so the connection starts with C = 1232; an error for 1100 lowers
# it to 1100 - IP 20 - Tonic 28.
tap_check "net.tonic.encap=0 in A" ip netns exec $NS_A sysctl -qw net.tonic.encap=0
pmtu_drop "raw IP" ip "match ip protocol 253 0xff match u8 4 0xff at 24" 1052 \
	"snmp $NS_A Ip FragCreates" 0 1100 -- -a $ADDR_B -p 7101 -s 10
tap_check "net.tonic.encap=1 in A again" ip netns exec $NS_A sysctl -qw net.tonic.encap=1

# ICMP host unreachable for a SYN in UDP (the SYN itself dropped on
# arrival): the encap error hook hands it to the connecting socket, whose
# connect() fails at once with EHOSTUNREACH instead of retrying.
tap_check "B drops Tonic SYNs arriving in UDP" bash -c \
	"tc -n $NS_B qdisc add dev vb clsact &&
	 tc -n $NS_B filter add dev vb ingress protocol ip u32 \
		$TONIC_U32 match u8 1 0xff at $((TONIC_OFF + 4)) action drop"
ip netns exec $NS_B timeout 60 $WIRE host-unreach vb "$P" >"$tmp/unreach" 2>&1 &
icmp_pid=$!
for i in $(seq 200); do grep -q ready "$tmp/unreach" && break; sleep 0.05; done
out=$(ip netns exec $NS_A timeout 30 $XFER client -a $ADDR_B -p 7101 -b 10 2>&1)
wait $icmp_pid
tap_result $? "ICMP host unreachable sent for the SYN: $(grep sent "$tmp/unreach")"
grep -q '^error connect EHOSTUNREACH' <<<"$out"
tap_result $? "connect() fails with EHOSTUNREACH: $(head -n 1 <<<"$out")"
tap_check "B takes SYNs again" tc -n $NS_B qdisc del dev vb clsact

srv_stop
tap_check "no connection left" no_flows $NS_A $NS_B
tap_check "rmmod tonic" rmmod_tonic
tap_done
