#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# GRO on the UDP wire (kmod/sock/gro.c): A cuts its super-packets in
# software before va (TSO and tx-udp-segmentation off, as a NIC without
# TSO/USO: the bench's clean-nic), so
# single datagrams cross the veth.  With GRO off at vb, B takes them one
# by one and GroBatches/GroSegs stay.  With GRO on, the tunnel socket's
# GRO merges a connection's DATA datagrams into batches that B's socket
# takes with one lookup, one lock and one cumulative ACK: the counters
# move, a batch averages more than one datagram, B sends fewer ACKs than
# one per two segments, and 20 MB arrive intact over IPv4 and IPv6 (and
# 5 MB with an AF_PACKET capture on vb cloning every batch), on
# a clean path and through 1% netem loss, both with super-packets
# dropped whole (holes between batches, resends) and with
# net.tonic.gso_segs=1 (datagrams lost singly: holes inside batches);
# with CE marks on whole super-packets, each CE datagram of a batch is
# still echoed at once.
# A batch of exactly the next segments expected goes to B's receive queue
# whole (GroFastBatches, GroFastSegs): most of them on a clean path;
# through loss and reordering some do and the others (holes, resends
# after them) are taken apart datagram by datagram, data intact either
# way.  (MSG_PEEK and odd reads across such skbs: test_sock_coalesce.sh.)
# `tonic stats` shows the counters; with GRO off again they stay.
cd "$(dirname "$0")/../.." || exit 1
TONIC_ENCAP=udp		# GRO is the UDP wire's
. selftests/vm/lib.sh

tap_plan 65
tmp=$(mktemp -d)
cleanup() {
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

client() {
	ip netns exec $NS_A timeout 300 $XFER client "$@"
}

# gro NS: "batches datagrams fast fastsegs" of NS's GroBatches, GroSegs,
# GroFastBatches and GroFastSegs.
gro() {
	echo "$(tstat "$1" GroBatches) $(tstat "$1" GroSegs)" \
		"$(tstat "$1" GroFastBatches) $(tstat "$1" GroFastSegs)"
}

# per A B: A / B with one decimal.
per() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b) printf "%.1f", a / b; else print "-" }'
}

# xfer_gro DESC ARGS...: one transfer from A to B; sets d_b, d_s (batches
# and datagrams in them), d_fb, d_fs (of which queued whole), d_in
# (segments B took), d_ack (ACKs B sent), d_rtx (segments A resent) and out.
xfer_gro() {
	local desc=$1 b0 s0 fb0 fs0 in0 ack0 rtx0 b s fb fs
	shift
	read -r b0 s0 fb0 fs0 <<<"$(gro $NS_B)"
	in0=$(tstat $NS_B SegsIn) ack0=$(tstat $NS_B AcksOut)
	rtx0=$(tstat $NS_A SegsRetrans)
	out=$(client "$@")
	tap_xfer "$out" "$desc"
	read -r b s fb fs <<<"$(gro $NS_B)"
	d_b=$((b - b0)) d_s=$((s - s0)) d_fb=$((fb - fb0)) d_fs=$((fs - fs0))
	d_in=$(($(tstat $NS_B SegsIn) - in0))
	d_ack=$(($(tstat $NS_B AcksOut) - ack0))
	d_rtx=$(($(tstat $NS_A SegsRetrans) - rtx0))
	echo "# $d_b batches of $d_s datagrams ($(per $d_s $d_b) a batch)," \
		"$d_fb of $d_fs queued whole," \
		"$d_in segments in, $d_ack ACKs out, $d_rtx resent"
}

# fast NAME MIN_PART SLOW: of the last transfer's batches, some were
# queued whole, carrying at least 1/MIN_PART of its batched datagrams
# (0: any number), and (SLOW = 1) some were not.
fast() {
	local ok=0

	[ "$d_fb" -gt 0 ] && [ "$d_fs" -ge $((2 * d_fb)) ] &&
		[ "$d_fb" -le "$d_b" ] && [ "$d_fs" -le "$d_s" ] || ok=1
	[ "$2" = 0 ] || [ $(($2 * d_fs)) -ge "$d_s" ] || ok=1
	[ "$3" = 0 ] || [ "$d_fb" -lt "$d_b" ] || ok=1
	tap_result $ok "$1: $d_fb of $d_b batches ($d_fs of $d_s datagrams) queued whole"
}

# batched NAME [PART]: the last transfer came in batches averaging more
# than one datagram that carried at least 1/PART of its segments (4; 0:
# any number of them).
batched() {
	local part=${2:-4}

	[ "$d_b" -gt 0 ] && [ "$d_s" -gt "$d_b" ] &&
		{ [ "$part" = 0 ] || [ $((part * d_s)) -ge "$d_in" ]; }
	tap_result $? "$1: $d_b batches of $d_s datagrams ($(per $d_s $d_b) a batch) of $d_in segments"
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "server listens (IPv4)" srv_start "$tmp/srv" server -p 7201
tap_check "server listens (IPv6)" srv_start "$tmp/srv6" server -6 -p 7202
# (TSO off too: veth hands its peer's NAPI, and so GRO, only what a
# device without TSO sends, veth_skb_is_eligible_for_gro().)
tap_check "va: TSO and tx-udp-segmentation off (datagrams cross one by one)" \
	ip netns exec $NS_A ethtool -K va tso off tx-udp-segmentation off

# GRO off (veth's default): nothing is merged.
tap_check "vb: GRO off" ip netns exec $NS_B ethtool -K vb gro off
xfer_gro "GRO off: IPv4 20 MB, SHA-256 matches" -a $ADDR_B -p 7201 -b 20000000 -s 1
[ "$d_b" = 0 ] && [ "$d_s" = 0 ]; tap_result $? "GRO off: GroBatches and GroSegs stay 0"
acks_off=$d_ack in_off=$d_in

# GRO on: batches, fewer ACKs, data intact.
tap_check "vb: GRO on" ip netns exec $NS_B ethtool -K vb gro on
xfer_gro "GRO on: IPv4 20 MB, SHA-256 matches" -a $ADDR_B -p 7201 -b 20000000 -s 2
batched "GRO on, IPv4"
fast "GRO on, IPv4" 2 0
[ "$d_ack" -gt 0 ] && [ $((2 * d_ack)) -lt "$d_in" ]
tap_result $? "GRO on: $d_ack ACKs for $d_in segments ($(per $d_in $d_ack) a ACK; GRO off: $(per $in_off $acks_off))"
xfer_gro "GRO on: IPv6 20 MB, SHA-256 matches" -6 -a $ADDR6_B -p 7202 -b 20000000 -s 3
batched "GRO on, IPv6"
fast "GRO on, IPv6" 2 0
xfer_gro "GRO on: IPv4 1 MB in 7-byte writes, SHA-256 matches" \
	-a $ADDR_B -p 7201 -b 1000000 -w 7 -s 4
xfer_gro "GRO on: IPv4 C+1 bytes, SHA-256 matches" -a $ADDR_B -p 7201 -b 1445 -s 5

# A tap on vb clones every skb, batches included: B's socket must take
# its own copy of a batch's frag_list (skb_unclone()), not the tap's.
ip netns exec $NS_B python3 -c '
import signal, socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(("vb", 0))
s.settimeout(0.2)
done = []
signal.signal(signal.SIGTERM, lambda *_: done.append(1))
print("ready", flush=True)
n = big = 0
while not done:
    try:
        f = s.recv(65536)
    except socket.timeout:
        continue
    n += 1
    big += len(f) > 3000
print("frames", n, "batches", big, flush=True)' >"$tmp/cap.out" 2>&1 &
cap=$!
for i in $(seq 100); do grep -q ready "$tmp/cap.out" && break; sleep 0.05; done
grep -q ready "$tmp/cap.out"; tap_result $? "an AF_PACKET capture on vb"
xfer_gro "GRO on, captured at vb: IPv4 5 MB, SHA-256 matches" -a $ADDR_B -p 7201 -b 5000000 -s 12
batched "GRO on, captured at vb"
fast "GRO on, captured at vb" 2 0
kill -TERM $cap; wait $cap
read -r _ frames _ seen <<<"$(grep frames "$tmp/cap.out")"
[ "${seen:-0}" -gt 0 ]; tap_result $? "the capture saw $seen batches in ${frames:-0} frames: $(tail -n 1 "$tmp/cap.out")"

# 1% loss leaving va: netem sees super-packets and drops them whole, so
# batches follow holes and resends (ACKREQ, never merged) fill them.
tap_check "netem loss 1% on va" netem $NS_A va loss 1%
xfer_gro "GRO on, 1% loss: IPv4 20 MB, SHA-256 matches" -a $ADDR_B -p 7201 -b 20000000 -s 6
batched "GRO on, 1% loss, IPv4"
fast "GRO on, 1% loss, IPv4" 0 1
[ "$d_rtx" -gt 0 ]; tap_result $? "1% loss, IPv4: A resent $d_rtx segments"
xfer_gro "GRO on, 1% loss: IPv6 20 MB, SHA-256 matches" -6 -a $ADDR6_B -p 7202 -b 20000000 -s 7
batched "GRO on, 1% loss, IPv6"
fast "GRO on, 1% loss, IPv6" 0 1
[ "$d_rtx" -gt 0 ]; tap_result $? "1% loss, IPv6: A resent $d_rtx segments"

# One skb per segment through the same netem: datagrams are lost one by
# one, so a batch can hold segments after a hole (out of order, each
# acknowledged at once as alone).  Sent one skb at a time, fewer of
# them meet in one NAPI poll (3 to 6 a batch, 3 to 40 % of the segments).
tap_check "net.tonic.gso_segs=1 in A" ip netns exec $NS_A sysctl -qw net.tonic.gso_segs=1
xfer_gro "GRO on, 1% loss, single datagrams: IPv4 20 MB, SHA-256 matches" \
	-a $ADDR_B -p 7201 -b 20000000 -s 8
batched "GRO on, 1% loss, single datagrams, IPv4" 0
fast "GRO on, 1% loss, single datagrams, IPv4" 0 1
[ "$d_rtx" -gt 0 ]; tap_result $? "single datagrams, IPv4: A resent $d_rtx segments"
xfer_gro "GRO on, 1% loss, single datagrams: IPv6 20 MB, SHA-256 matches" \
	-6 -a $ADDR6_B -p 7202 -b 20000000 -s 9
batched "GRO on, 1% loss, single datagrams, IPv6" 0
fast "GRO on, 1% loss, single datagrams, IPv6" 0 1
[ "$d_rtx" -gt 0 ]; tap_result $? "single datagrams, IPv6: A resent $d_rtx segments"
tap_check "net.tonic.gso_segs=64 in A again" ip netns exec $NS_A sysctl -qw net.tonic.gso_segs=64
netem_clear

# Reordering (25% of datagrams 1 ms late): out-of-order inside batches.
tap_check "netem delay 1ms reorder 25% on va" netem $NS_A va delay 1ms reorder 25% 50%
xfer_gro "GRO on, reordering: IPv4 20 MB, SHA-256 matches" -a $ADDR_B -p 7201 -b 20000000 -s 10
batched "GRO on, reordering, IPv4"
fast "GRO on, reordering, IPv4" 0 1
netem_clear

# CE inside batches: netem marks whole super-packets CE (every datagram
# of one), B's GRO merges them (one ECN codepoint a batch), and B must
# still answer each CE datagram at once: with no CNP limit, one ECN echo
# and one CNP per CE-marked DATA datagram A sent, counted after va's qdisc.
# The sender's program asks for the echo and CNPs (built-in newreno does).
# 10 %: a 5 MB transfer is some 80 super-packets, and at 5 % about one
# run in 60 had none marked.
proto=$(ip netns exec $NS_A sysctl -n net.tonic.default_protocol)
tap_check "cnp_interval_us=0 in B, newreno in A" bash -c \
	"ip netns exec $NS_B sysctl -qw net.tonic.cnp_interval_us=0 &&
	 ip netns exec $NS_A build/tonic prog default newreno"
ip netns exec $NS_A python3 selftests/vm/udp_wire.py capture va $TONIC_UDP_PORT \
	"$tmp/ce.json" >"$tmp/ce.out" 2>&1 &
cap=$!
for i in $(seq 100); do grep -q ready "$tmp/ce.out" && break; sleep 0.05; done
grep -q ready "$tmp/ce.out"; tap_result $? "an AF_PACKET capture on va"
tap_check "netem loss 10% ecn on va" netem $NS_A va loss 10% ecn
ece=$(tstat $NS_B EceOut) cnp=$(tstat $NS_B CnpsOut)
xfer_gro "GRO on, CE marks: IPv4 5 MB, SHA-256 matches" -a $ADDR_B -p 7201 -b 5000000 -s 13
batched "GRO on, CE marks, IPv4"
fast "GRO on, CE marks, IPv4" 0 1
ece=$(($(tstat $NS_B EceOut) - ece)) cnp=$(($(tstat $NS_B CnpsOut) - cnp))
kill -TERM $cap; wait $cap
read -r ce drops <<<"$(jq -r '"\(.data_ce) \(.drops)"' "$tmp/ce.json")"
[ "$drops" = 0 ]; tap_result $? "the capture missed no frame ($drops)"
[ "${ce:-0}" -gt 0 ] && [ "$ece" = "$ce" ] && [ "$cnp" = "$ce" ]
tap_result $? "each CE datagram answered at once: $ce marked, $ece ECN echoes, $cnp CNPs"
netem_clear
ip netns exec $NS_A sysctl -qw net.tonic.default_protocol="$proto"

for ns in $NS_A $NS_B; do
	[ "$(csum_errors $ns)" = 0 ]
	tap_result $? "UdpInCsumErrors is 0 in $ns"
done
[ "$(tstat $NS_B DropMalformed)" = 0 ]; tap_result $? "B dropped nothing as malformed"
[ "$(tstat $NS_B TimerMissing)" = 0 ]; tap_result $? "no connection without a timer in B"
tap_check "tonic stats shows gro_batches and gro_segs as /proc does" bash -c \
	"ip netns exec $NS_B build/tonic -j stats > $tmp/stats &&
	 [ \$(jq .gro_batches $tmp/stats) = $(tstat $NS_B GroBatches) ] &&
	 [ \$(jq .gro_segs $tmp/stats) = $(tstat $NS_B GroSegs) ] &&
	 [ \$(jq .gro_batches $tmp/stats) -gt 0 ]"
tap_check "tonic stats shows gro_fast_batches and gro_fast_segs as /proc does" bash -c \
	"[ \$(jq .gro_fast_batches $tmp/stats) = $(tstat $NS_B GroFastBatches) ] &&
	 [ \$(jq .gro_fast_segs $tmp/stats) = $(tstat $NS_B GroFastSegs) ] &&
	 [ \$(jq .gro_fast_batches $tmp/stats) -gt 0 ]"

# GRO off again: the counters stay.
tap_check "vb: GRO off again" ip netns exec $NS_B ethtool -K vb gro off
xfer_gro "GRO off again: IPv6 5 MB, SHA-256 matches" -6 -a $ADDR6_B -p 7202 -b 5000000 -s 11
[ "$d_b" = 0 ] && [ "$d_s" = 0 ] && [ "$d_fb" = 0 ] && [ "$d_fs" = 0 ]
tap_result $? "GRO off again: GroBatches, GroSegs, GroFastBatches and GroFastSegs stay"

srv_stop
tap_check "no connection left" no_flows $NS_A $NS_B
tap_check "rmmod tonic" rmmod_tonic
tap_done
