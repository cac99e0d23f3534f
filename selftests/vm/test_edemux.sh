#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Early demux (kmod/sock/edemux.c): a connection's packets reuse the input
# route of its last packet instead of being routed, as TCP's do.  With
# UDP segmentation off on both veths (one datagram per packet, no GRO),
# each transfer checks, besides SHA-256 end to end:
# - EarlyDemux (tonic_stat) at the receiver counts every data packet but
#   the few that come before the connection has a route to reuse, and
#   at the sender nearly every ACK;
# - the receiver's route lookups (the FIB's own counter) stay a handful,
#   where without early demux there is at least one per data packet;
# on the UDP wire and on raw IP, over IPv4 and IPv6 (EarlyDemux only:
# IPv6 has no lookup counter), and from an IPv4 peer to a listener on ::.  net.tonic.early_demux=0 removes the hooks
# and net.ipv4.ip_early_demux=0 turns them off: no packet is early-demuxed
# and every data packet is routed; 1 brings them back.  A route change
# during a transfer (the cached routes become stale) loses nothing.
#
# On the UDP wire early demux also delivers a datagram itself, past IP's
# local delivery and UDP's input (EarlyDeliver), when nothing there would
# see it: every data packet and ACK of a plain transfer over IPv4, IPv6
# and dual stack, with UDP's and IP's counters (InDatagrams, InDelivers)
# counting each as before.  Not when an input chain (nftables) is in the
# namespace, whose counter then sees every datagram, and not while a raw
# UDP socket of the family is open, which then gets its copy of each.
cd "$(dirname "$0")/../.." || exit 1
TONIC_ENCAP=udp		# both wires are set per namespace below
. selftests/vm/lib.sh

tap_plan 68
tmp=$(mktemp -d)
cleanup() {
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

MB=2000000

client() {
	ip netns exec $NS_A timeout 120 $XFER client "$@"
}

# fib_gets NS: FIB lookups in NS so far (CONFIG_IP_FIB_TRIE_STATS's gets,
# every table): one per routed packet, none for one early-demuxed.
fib_gets() {
	ip netns exec "$1" awk '$1 == "gets" { n += $3 } END { print n + 0 }' \
		/proc/net/fib_triestat
}

both() {
	ip netns exec $NS_A sysctl -qw "$1" && ip netns exec $NS_B sysctl -qw "$1"
}

# udp_in, ip_in: B's UDP datagrams and IP packets delivered, both families.
udp_in() {
	echo $(($(snmp $NS_B Udp InDatagrams) + $(snmp6 $NS_B Udp6InDatagrams)))
}
ip_in() {
	echo $(($(snmp $NS_B Ip InDelivers) + $(snmp6 $NS_B Ip6InDelivers)))
}

# xfer NAME ARGS...: one transfer; these hold the counters' deltas:
# EarlyDemux at B (ed_b) and A (ed_a), EarlyDeliver at B (dl_b) and A
# (dl_a), data segments B took (segs_b), ACKs A took (acks_a), B's route
# lookups (routes), UDP's InDatagrams (udp_b) and IP's InDelivers (ip_b)
# at B, both families.
xfer() {
	local name=$1 e0 f0 d0 g0 s0 a0 r0 u0 i0 out
	shift
	e0=$(tstat $NS_B EarlyDemux) f0=$(tstat $NS_A EarlyDemux)
	d0=$(tstat $NS_B EarlyDeliver) g0=$(tstat $NS_A EarlyDeliver)
	s0=$(tstat $NS_B SegsIn) a0=$(tstat $NS_A AcksIn) r0=$(fib_gets $NS_B)
	u0=$(udp_in) i0=$(ip_in)
	out=$(client "$@")
	ed_b=$(($(tstat $NS_B EarlyDemux) - e0))
	ed_a=$(($(tstat $NS_A EarlyDemux) - f0))
	dl_b=$(($(tstat $NS_B EarlyDeliver) - d0))
	dl_a=$(($(tstat $NS_A EarlyDeliver) - g0))
	segs_b=$(($(tstat $NS_B SegsIn) - s0))
	acks_a=$(($(tstat $NS_A AcksIn) - a0))
	routes=$(($(fib_gets $NS_B) - r0))
	udp_b=$(($(udp_in) - u0))
	ip_b=$(($(ip_in) - i0))
	echo "# $name: EarlyDemux B $ed_b A $ed_a, EarlyDeliver B $dl_b A $dl_a, SegsIn B $segs_b, AcksIn A $acks_a, B route lookups $routes, B UdpInDatagrams $udp_b IpInDelivers $ip_b"
	tap_xfer "$out" "$name: $((MB / 1000000)) MB, SHA-256 matches"
}

# demuxed NAME: the transfer's data and ACKs were early-demuxed (all but
# the first few: the handshake and what came before a route was kept).
# The counter also counts the few control packets that are neither data
# nor ACKs (the handshake's last ACK, FINs and their ACKs, window
# updates): up to 6 more; counting a packet twice would be far more.
demuxed() {
	[ "$segs_b" -ge 1000 ] && [ "$ed_b" -ge $((segs_b - 3)) ] &&
		[ "$ed_b" -le $((segs_b + 6)) ]
	tap_result $? "$1: B early-demuxed $ed_b of $segs_b data packets"
	[ "$ed_a" -ge $((acks_a - 3)) ] && [ "$ed_a" -le $((acks_a + 6)) ]
	tap_result $? "$1: A early-demuxed $ed_a of $acks_a ACKs"
}

# delivered NAME: early demux delivered the data packets and ACKs it
# demuxed itself (all but those before the route was kept), and UDP and
# IP counted every datagram as when they deliver it.
delivered() {
	[ "$dl_b" -ge $((segs_b - 3)) ] && [ "$dl_b" -le "$ed_b" ] &&
		[ "$udp_b" -ge "$segs_b" ] && [ "$ip_b" -ge "$segs_b" ]
	tap_result $? "$1: B delivered $dl_b of $segs_b data packets itself; UdpInDatagrams $udp_b, IpInDelivers $ip_b"
	[ "$dl_a" -ge $((acks_a - 3)) ] && [ "$dl_a" -le "$ed_a" ]
	tap_result $? "$1: A delivered $dl_a of $acks_a ACKs itself"
}

# not_delivered NAME WHY: early demux at B found the route but left
# delivery to IP and UDP.
not_delivered() {
	[ "$dl_b" = 0 ] && [ "$ed_b" -ge $((segs_b - 3)) ]
	tap_result $? "$1: $2: B delivered none early, $ed_b of $segs_b early-demuxed"
}

# few_routes NAME: B routed only the handshake's packets, not the data.
few_routes() {
	[ "$routes" -le 20 ]
	tap_result $? "$1: B made $routes route lookups for $segs_b data packets"
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "net.tonic.early_demux is 1 by default" \
	test "$(ip netns exec $NS_A sysctl -n net.tonic.early_demux)" = 1
tap_check "va and vb: tx-udp-segmentation off (one datagram a packet)" bash -c \
	"ip netns exec $NS_A ethtool -K va tx-udp-segmentation off &&
	 ip netns exec $NS_B ethtool -K vb tx-udp-segmentation off"
tap_check "server listens on the UDP wire (IPv4)" srv_start "$tmp/srv" server -p 7201
tap_check "server listens on the UDP wire (IPv6)" srv_start "$tmp/srv6" server -6 -p 7202

# ---- the UDP wire ----
xfer "UDP IPv4" -a $ADDR_B -p 7201 -b $MB -s 1
demuxed "UDP IPv4"
few_routes "UDP IPv4"
delivered "UDP IPv4"
xfer "UDP IPv6" -6 -a $ADDR6_B -p 7202 -b $MB -s 2
demuxed "UDP IPv6"
delivered "UDP IPv6"
# An IPv4 peer of the IPv6 listener on :: (an IPv4-mapped child).
xfer "UDP dual stack" -a $ADDR_B -p 7202 -b $MB -s 9
demuxed "UDP dual stack"
delivered "UDP dual stack"

# ---- what early delivery must not skip ----
uport=$(ip netns exec $NS_B sysctl -n net.tonic.udp_port)
# An input chain (both families): a LOCAL_IN hook, which sees every
# datagram.
tap_check "nftables: an input chain in B counting the tunnel port" \
	ip netns exec $NS_B nft add table inet tonic_test \; \
	add chain inet tonic_test input "{ type filter hook input priority 0 ; }" \; \
	add rule inet tonic_test input udp dport "$uport" counter
# chain_count: the input chain's counter.
chain_count() {
	ip netns exec $NS_B nft list chain inet tonic_test input |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}
c0=$(chain_count)
xfer "input chain" -a $ADDR_B -p 7201 -b $MB -s 10
c1=$(chain_count)
not_delivered "input chain" "the chain counted $((c1 - c0))"
[ $((c1 - c0)) -ge "$segs_b" ]
tap_result $? "input chain: it counted every datagram ($((c1 - c0)) for $segs_b data packets)"
xfer "input chain IPv6" -6 -a $ADDR6_B -p 7202 -b $MB -s 13
c2=$(chain_count)
not_delivered "input chain IPv6" "the chain counted $((c2 - c1))"
[ $((c2 - c1)) -ge "$segs_b" ]
tap_result $? "input chain IPv6: it counted every datagram ($((c2 - c1)) for $segs_b data packets)"
tap_check "nftables: the table deleted" ip netns exec $NS_B nft delete table inet tonic_test
xfer "input chain gone" -a $ADDR_B -p 7201 -b $MB -s 11
delivered "input chain gone"

# A raw socket for UDP gets a copy of every UDP datagram of its family.
# raw_xfer FAMILY NAME ARGS...: a transfer with one open in B; copies
# holds what it got.
raw_xfer() {
	local fam=$1 name=$2 pid
	shift 2
	rm -f "$tmp/raw.ready" "$tmp/raw.stop"
	ip netns exec $NS_B python3 selftests/vm/raw_udp_count.py "$fam" "$uport" \
		"$tmp/raw.ready" "$tmp/raw.stop" >"$tmp/raw.count" &
	pid=$!
	for _ in $(seq 100); do [ -e "$tmp/raw.ready" ] && break; sleep 0.1; done
	tap_check "$name: a raw UDP socket open in B" test -e "$tmp/raw.ready"
	xfer "$name" "$@"
	sleep 0.5
	touch "$tmp/raw.stop"
	wait $pid
	copies=$(cat "$tmp/raw.count")
	[ "$dl_b" = 0 ] && [ "${copies:-0}" -ge "$segs_b" ]
	tap_result $? "$name: none delivered early ($dl_b), the socket got ${copies:-0} copies of $segs_b data packets"
}
raw_xfer 4 "raw UDP socket" -a $ADDR_B -p 7201 -b $MB -s 12
raw_xfer 6 "raw UDP socket IPv6" -6 -a $ADDR6_B -p 7202 -b $MB -s 14

# ---- off, and back on ----
tap_check "net.tonic.early_demux=0 in both namespaces" both net.tonic.early_demux=0
xfer "hooks removed" -a $ADDR_B -p 7201 -b $MB -s 3
[ "$ed_b" = 0 ] && [ "$ed_a" = 0 ]
tap_result $? "hooks removed: nothing early-demuxed ($ed_b, $ed_a)"
[ "$routes" -ge "$segs_b" ]
tap_result $? "hooks removed: every data packet routed ($routes lookups, $segs_b packets)"
tap_check "net.tonic.early_demux=1 again" both net.tonic.early_demux=1
xfer "hooks back" -a $ADDR_B -p 7201 -b $MB -s 4
demuxed "hooks back"

tap_check "net.ipv4.ip_early_demux=0" both net.ipv4.ip_early_demux=0
xfer "ip_early_demux off" -a $ADDR_B -p 7201 -b $MB -s 5
[ "$ed_b" = 0 ] && [ "$ed_a" = 0 ] && [ "$routes" -ge "$segs_b" ]
tap_result $? "ip_early_demux off: nothing early-demuxed ($ed_b, $ed_a), $routes lookups"
tap_check "net.ipv4.ip_early_demux=1" both net.ipv4.ip_early_demux=1

# ---- a route change makes the kept routes stale mid-transfer ----
e0=$(tstat $NS_B EarlyDemux) s0=$(tstat $NS_B SegsIn)
client -a $ADDR_B -p 7201 -b 20000000 -s 6 >"$tmp/change.out" &
pid=$!
# The route changes once B has taken some 2,000 segments of it.
for _ in $(seq 500); do
	[ $(($(tstat $NS_B SegsIn) - s0)) -ge 2000 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.02
done
running=0
kill -0 $pid 2>/dev/null && running=1
tap_check "a route added in B during the transfer" \
	ip -n $NS_B route add 10.78.0.0/24 dev vb
wait $pid
tap_xfer "$(cat "$tmp/change.out")" "route change: 20 MB, SHA-256 matches"
ed_b=$(($(tstat $NS_B EarlyDemux) - e0)) segs_b=$(($(tstat $NS_B SegsIn) - s0))
# Packets that arrive between the change and the input's next run (the
# backlog of a socket its reader holds) miss, as TCP's would: the route
# is kept again under the socket lock.  Not keeping it would miss all
# that followed the change.
[ "$running" = 1 ] && [ "$segs_b" -ge 13000 ] &&
	[ "$ed_b" -ge $((segs_b - segs_b / 20)) ]
tap_result $? "route change: B re-kept the new route ($ed_b of $segs_b early-demuxed, transfer running at the change: $running)"

# ---- raw IP ----
tap_check "net.tonic.encap=0 (raw IP) in both namespaces" both net.tonic.encap=0
tap_check "server listens on raw IP (IPv4)" srv_start "$tmp/srvr" server -p 7203
tap_check "server listens on raw IP (IPv6)" srv_start "$tmp/srvr6" server -6 -p 7204
u0=$(snmp $NS_B Udp InDatagrams)
xfer "raw IPv4" -a $ADDR_B -p 7203 -b $MB -s 7
demuxed "raw IPv4"
few_routes "raw IPv4"
xfer "raw IPv6" -6 -a $ADDR6_B -p 7204 -b $MB -s 8
demuxed "raw IPv6"
[ "$(snmp $NS_B Udp InDatagrams)" = "$u0" ]
tap_result $? "raw IP: B's UDP layer saw none of it"

srv_stop
tap_check "no Tonic connection left" no_flows $NS_A $NS_B
ns_cleanup
tap_check "no Tonic socket left" no_tonic_sockets
tap_check "rmmod tonic" rmmod_tonic
tap_done
