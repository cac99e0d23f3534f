#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile packets (issue 15), from selftests/vm/tonic_inject.py: each end
# attacked from the other's namespace with its address, blind (the ports
# known, the numbers guessed) and on path (the numbers sniffed).
# - A request sock accepts the RST that answers its SYN-ACK; unknown SYN
#   signal bits are ignored.
# - A blind ICMP host unreachable does not abort connect().
# - 20 MB transfers (IPv4, IPv6) under blind RST/ACK/DATA/SYN and
#   ICMP (unreachable, frag-needed) sprays, then (the receiver stopped)
#   on-path RSTs in the window, over-long DATA, resends of another length,
#   DATA naming a C out of range and ACKs for unsent data: SHA-256 matches, nothing resets, and each
#   class moves its counter exactly (DropState, ChallengeAcks,
#   DropMalformed, OutOfWindowIcmps); the IPv4 route MTU stays.
# - net.tonic.challenge_ack_limit bounds challenge ACKs; an RST at
#   exactly rcv_nxt resets (after one in the window was challenged).
# - SYN cookies: always (syncookies=2) on both families and from IPv4 to
#   a dual-stack IPv6 listener, and a 2000-SYN
#   flood whose SYN-ACKs go nowhere does not stop a legitimate connect.
# - A FIN after the FIN (on path, at the server's new rcv_nxt) is
#   dropped: the server, half-closed by the client, sends the rest.
# - Late ACKs (B's own, replayed once newer ones have left) are no
#   duplicate ACKs: a newreno transfer resends nothing.
# - Sockets and memory return to zero.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 64
tmp=$(mktemp -d)
BG=()
cleanup() {
	local p
	for p in "${BG[@]}"; do
		kill "$p" 2>/dev/null
	done
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
INJ="python3 selftests/vm/tonic_inject.py"
[ "$TONIC_ENCAP" = ip ] && WIRE=ip || WIRE=udp

# snap NS NAME: keep the counters of NS.  d NAME COUNTER NS: the change
# of COUNTER since snapshot NAME, to now in NS or (NS a snapshot name
# too) to that snapshot.
snap() {
	ip netns exec "$1" cat /proc/net/tonic_stat >"$tmp/$2.snap"
}
d() {
	local was now
	was=$(awk -v n="$2" '$1 == n { print $2 }' "$tmp/$1.snap")
	if [ -f "$tmp/$3.snap" ]; then
		now=$(awk -v n="$2" '$1 == n { print $2 }' "$tmp/$3.snap")
	else
		now=$(tstat "$3" "$2")
	fi
	echo $((now - was))
}

# stamp WHAT: a timestamp in the TAP output (where the time goes).
T0=$(date +%s.%N)
stamp() {
	awk -v t="$(date +%s.%N)" -v t0="$T0" -v w="$*" \
		'BEGIN { printf "# t=%.1f s: %s\n", t - t0, w }'
}

# wait_ready FILE: a background injector printed "ready".
wait_ready() {
	local i
	for i in $(seq 200); do
		grep -q ready "$1" && return 0
		sleep 0.05
	done
	return 1
}

# expect_d SNAP NS DESC COUNTER=VALUE...: one TAP result for exact changes.
expect_d() {
	local snap=$1 ns=$2 desc=$3 kv got ok=0 seen=
	shift 3
	for kv in "$@"; do
		got=$(d "$snap" "${kv%=*}" "$ns")
		seen+=" ${kv%=*}+$got"
		[ "$got" = "${kv#*=}" ] || ok=1
	done
	tap_result $ok "$desc:$seen"
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "server listens (IPv4)" srv_start "$tmp/srv4" server -f -p 7301
tap_check "server listens (IPv6)" srv_start "$tmp/srv6" server -f -6 -p 7302
tap_check "clsact on A's va" tc -n $NS_A qdisc add dev va clsact


stamp "1."
# 1. SYN cookies.  A flood of 2000 SYNs from ports 20480.. whose SYN-ACKs A drops (a
# spoofed flood: nobody answers them) fills the request queue (backlog
# 1024); a legitimate connect then completes from a cookie.
tap_check "server listens on 7305" srv_start "$tmp/srv5" server -f -p 7305
tap_check "A drops SYN-ACKs to the flood's ports (to the end)" \
	tc -n $NS_A filter add dev va ingress pref 20 protocol ip u32 \
		$TONIC_U32 match u16 0x5000 0xf800 at $((TONIC_OFF + 2)) action drop
snap $NS_B b
out=$(ip netns exec $NS_A timeout 60 $INJ flood 4 $WIRE $ADDR_B 7305 2000 20480)
# The queue holds 1025 (more than the backlog): 975 cookies.
for i in $(seq 200); do
	[ "$(d b SyncookiesSent $NS_B)" -ge 975 ] && break
	sleep 0.1
done
tap_check "syn_retries=2 in A (a failure shows in 7 s)" \
	ip netns exec $NS_A sysctl -qw net.tonic.syn_retries=2
out=$(ip netns exec $NS_A timeout 60 $XFER client -a $ADDR_B -p 7305 -b 1000000 -s 30)
tap_xfer "$out" "after a 2000-SYN flood a legitimate connect succeeds, SHA-256 matches"
sent=$(d b SyncookiesSent $NS_B)
[ "$sent" -ge 976 ]
tap_result $? "SyncookiesSent +$sent (the flood beyond the request queue, and the legitimate SYN)"
expect_d b $NS_B "the legitimate handshake completed from its cookie" \
	SyncookiesRecv=1 SyncookiesFailed=0 PassiveOpens=1 ListenDrops=0
# The flood's requests expire after one SYN-ACK retransmission.
tap_check "tcp_synack_retries=1 in B" \
	ip netns exec $NS_B sysctl -qw net.ipv4.tcp_synack_retries=1
tap_check "syn_retries=5 in A" ip netns exec $NS_A sysctl -qw net.tonic.syn_retries=5


stamp "2."
# 2. An RST answering a SYN-ACK: A's stack sends it (no socket for the
# injected SYN); B drops the request, and the final ACK finds nothing.
for f in 4 6; do
	[ $f = 4 ] && addr=$ADDR_B port=7301 || addr=$ADDR6_B port=7302
	snap $NS_B b
	out=$(ip netns exec $NS_A timeout 30 $INJ req-rst $f $WIRE va $addr $port)
	jq -e '.stack_rst and .rst_seq_ok' <<<"$out" >/dev/null
	tap_result $? "IPv$f: a stray SYN-ACK is answered with seq = client ISN + 1, ack = ISN + 1: $out"
	jq -e '.signals < 32' <<<"$out" >/dev/null
	tap_result $? "IPv$f: unknown signal bits of the SYN are not taken up by the SYN-ACK"
	jq -e '.final_ack_reset' <<<"$out" >/dev/null &&
		[ "$(d b PassiveOpens $NS_B)" = 0 ]
	tap_result $? "IPv$f: the request took the RST; the final ACK is reset, no child (PassiveOpens +$(d b PassiveOpens $NS_B))"
	expect_d b $NS_B "IPv$f: counted" RstsIn=1 DropState=0
done

stamp "3."
# 3. A blind ICMP host unreachable for a connecting socket (its seq is
# the SYN's + 1000): ignored.  The first SYN-ACK is dropped on its way
# to A so that the ICMP error comes first; the SYN is resent after 1 s.
tap_check "A drops SYN-ACKs for a moment" \
	tc -n $NS_A filter add dev va ingress pref 10 protocol ip u32 \
		$TONIC_U32 match u8 2 0xff at $((TONIC_OFF + 4)) action drop
ip netns exec $NS_B timeout 30 $INJ icmp-syn 4 $WIRE vb >"$tmp/isyn" 2>&1 &
ipid=$!
wait_ready "$tmp/isyn"
snap $NS_A a
ip netns exec $NS_A timeout 60 $XFER client -a $ADDR_B -p 7301 -b 100000 -s 1 \
	>"$tmp/c1" 2>&1 &
cpid=$!
wait $ipid
sleep 0.3
tc -n $NS_A filter del dev va ingress pref 10
wait $cpid
tap_xfer "$(cat "$tmp/c1")" "a blind ICMP host unreachable does not abort connect(): $(tail -n 1 "$tmp/isyn")"
expect_d a $NS_A "the ICMP error is out of window" OutOfWindowIcmps=1 ConnFailed=0

stamp "4."
# 4. Live 20 MB transfers (C = 1000, so that an over-long DATA fits the
# MTU; the path limited to 15 Mbit/s, with a queue long enough to lose
# nothing, so that the transfer outlasts the sprays): blind sprays at
# both ends, counters read while it runs (its close may race a late
# packet); then, the receiver stopped so that its numbers hold still
# (an on-path attacker races nothing), the on-path classes.
N=200
tap_check "A's path at 15 Mbit/s" netem $NS_A va rate 15mbit limit 10000
for f in 4 6; do
	if [ $f = 4 ]; then
		addr=$ADDR_B port=7301 fl= srv=${SRV_PIDS[0]}
	else
		addr=$ADDR6_B port=7302 fl=-6 srv=${SRV_PIDS[1]}
	fi
	snap $NS_A a
	snap $NS_B b
	ip netns exec $NS_A timeout 60 $INJ spray $f $WIRE va $addr $port $N \
		>"$tmp/spray$f" 2>&1 &
	spid=$!
	ip netns exec $NS_B timeout 60 $INJ icmp $f $WIRE vb $N >"$tmp/icmp$f" 2>&1 &
	ipid=$!
	wait_ready "$tmp/spray$f" && wait_ready "$tmp/icmp$f"
	ip netns exec $NS_A timeout 120 $XFER client $fl -a $addr -p $port \
		-b 20000000 -S 1000 -s $((f + 10)) >"$tmp/x$f" 2>&1 &
	cpid=$!
	wait $spid
	wait $ipid
	sleep 0.5	# the last injected packets through the path's queue
	kill -0 $cpid 2>/dev/null
	tap_result $? "IPv$f: the transfer outlasts the sprays; $(tail -n 1 "$tmp/spray$f")"
	expect_d b $NS_B "IPv$f: blind RST/ACK/DATA out of window dropped" \
		DropState=$((3 * N)) RstsIn=0
	expect_d b $NS_B "IPv$f: blind SYNs draw challenge ACKs" \
		ChallengeAcks=$N
	expect_d a $NS_A "IPv$f: blind ICMP errors ignored; $(tail -n 1 "$tmp/icmp$f")" \
		OutOfWindowIcmps=$((2 * N)) RstsIn=0
	# The receiver (the server's child for this connection) stops reading.
	child=$(pgrep -P "$srv" | tail -n 1)
	kill -STOP "$child"
	sleep 1.5	# its window closes
	snap $NS_B b
	out=$(ip netns exec $NS_A timeout 30 $INJ onpath $f $WIRE va $addr $port)
	sleep 0.3
	expect_d b $NS_B "IPv$f: on path: $out" \
		ChallengeAcks=5 DropMalformed=20 DropState=5 RstsIn=0
	kill -CONT "$child"
	wait $cpid
	tap_xfer "$(cat "$tmp/x$f")" "IPv$f: 20 MB under the sprays, SHA-256 matches"
	expect_d a $NS_A "IPv$f: no RST reached A, to the end" RstsIn=0
done
netem_clear
! ip -n $NS_A route get $ADDR_B | grep -q "mtu"
tap_result $? "IPv4: forged frag-needed left the route MTU alone: $(ip -n $NS_A route get $ADDR_B | xargs)"

stamp "5."
# 5. A connection writing 100 bytes every 0.5 s: the challenge ACK limit,
# then an RST in the window (challenged) and one at rcv_nxt (resets).
ip netns exec $NS_A python3 -c '
import errno, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 253)
s.connect((sys.argv[1], 7301))
print("connected", flush=True)
end = time.time() + 20
try:
    while time.time() < end:
        s.send(b"x" * 100)
        time.sleep(0.5)
    print("alive", flush=True)
except OSError as e:
    print("error", errno.errorcode[e.errno], flush=True)
' $ADDR_B >"$tmp/idle" 2>&1 &
BG+=($!)
idle=$!
for i in $(seq 100); do grep -q connected "$tmp/idle" && break; sleep 0.05; done
tap_check "challenge_ack_limit=1 in B" \
	ip netns exec $NS_B sysctl -qw net.tonic.challenge_ack_limit=1
snap $NS_B b
out=$(ip netns exec $NS_A timeout 30 $INJ syns 4 $WIRE va $ADDR_B 7301 50)
sleep 0.3
ca=$(d b ChallengeAcks $NS_B)
[ "$ca" -ge 1 ] && [ "$ca" -le 2 ]
tap_result $? "50 SYNs on a connection draw 1 or 2 challenge ACKs at limit 1: $ca"
tap_check "challenge_ack_limit=1000 in B" \
	ip netns exec $NS_B sysctl -qw net.tonic.challenge_ack_limit=1000
sleep 1		# a new second: a new budget
snap $NS_B b
out=$(ip netns exec $NS_A timeout 30 $INJ rst 4 $WIRE va $ADDR_B 7301)
wait $idle
expect_d b $NS_B "an RST at rcv_nxt + 1 is challenged, one at rcv_nxt resets" \
	ChallengeAcks=1 RstsIn=1
grep -Eq "error (ECONNRESET|EPIPE)" "$tmp/idle"
tap_result $? "the client's connection is reset: $(tail -n 1 "$tmp/idle")"

stamp "6."
# 6. SYN cookies always (2): a connection completes from the cookie, also
# an IPv4 one to the dual-stack IPv6 listener (IPv4's request sock).
tap_check "syncookies=2 in B" ip netns exec $NS_B sysctl -qw net.tonic.syncookies=2
for f in 4 6 4-mapped; do
	case $f in
	4) addr=$ADDR_B port=7301 fl= seed=24 ;;
	6) addr=$ADDR6_B port=7302 fl=-6 seed=26 ;;
	*) addr=$ADDR_B port=7302 fl= seed=27 ;;
	esac
	snap $NS_B b
	out=$(ip netns exec $NS_A timeout 60 $XFER client $fl -a $addr -p $port \
		-b 1000000 -s $seed)
	tap_xfer "$out" "IPv$f: a connection from a SYN cookie, 1 MB, SHA-256 matches"
	expect_d b $NS_B "IPv$f: cookie sent and accepted" SyncookiesSent=1 \
		SyncookiesRecv=1 SyncookiesFailed=0 PassiveOpens=1
done
tap_check "syncookies=1 in B" ip netns exec $NS_B sysctl -qw net.tonic.syncookies=1

stamp "7."
# 7. A FIN after the FIN: the client half-closes, the server writes 100
# bytes every 0.1 s; on path, a FIN at the server's new rcv_nxt.  Taken,
# it would move rcv_nxt past anything the client sent, and the client
# would drop every packet of the server (an ack for what it never sent).
ip netns exec $NS_B python3 -c '
import socket, sys, time
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 253)
l.bind(("", 7307))
l.listen(1)
print("listening", flush=True)
c, _ = l.accept()
while c.recv(4096):
    pass
for i in range(30):
    c.send(b"z" * 100)
    time.sleep(0.1)
c.close()
' >"$tmp/fsrv" 2>&1 &
BG+=($!)
for i in $(seq 100); do grep -q listening "$tmp/fsrv" && break; sleep 0.05; done
ip netns exec $NS_A timeout 30 $INJ fin2 4 $WIRE va $ADDR_B 7307 >"$tmp/fin2" 2>&1 &
fpid=$!
wait_ready "$tmp/fin2"
snap $NS_A a
snap $NS_B b
out=$(ip netns exec $NS_A timeout 30 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 253)
s.settimeout(15)
s.connect((sys.argv[1], 7307))
s.shutdown(socket.SHUT_WR)
n = 0
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
        n += len(b)
    print("got", n, flush=True)
except OSError as e:
    print("error", e, "after", n, flush=True)
' $ADDR_B)
wait $fpid
[ "$out" = "got 3000" ] && grep -q '"fin": 1' "$tmp/fin2"
tap_result $? "the half-closed client gets all 3000 bytes: $out; $(tail -n 1 "$tmp/fin2")"
expect_d b $NS_B "the server dropped the FIN after the FIN" DropState=1 RstsIn=0
expect_d a $NS_A "the client took every packet of the server" DropState=0

stamp "8."
# 8. Late ACKs: ACKs sent from two CPUs can arrive swapped, and one below
# the cumulative ack is no duplicate ACK (RFC 5681 §2).  A 5 MB transfer
# from A with newreno (three duplicates resend a segment) while B's own
# ACKs are replayed, three at a time, once a newer one has left: nothing
# is resent.
tap_check "A's path at 15 Mbit/s, newreno the default in A" sh -c "
	tc -n $NS_A qdisc replace dev va root netem rate 15mbit limit 10000 &&
	ip netns exec $NS_A sysctl -qw net.tonic.default_protocol=newreno"
ip netns exec $NS_B timeout 60 $INJ late 4 $WIRE vb $ADDR_A 7301 20 \
	>"$tmp/late" 2>&1 &
lpid=$!
wait_ready "$tmp/late"
snap $NS_A a
snap $NS_B b
out=$(ip netns exec $NS_A timeout 60 $XFER client -a $ADDR_B -p 7301 \
	-b 5000000 -s 23 2>&1)
wait $lpid
tap_xfer "$out" "5 MB with newreno under late ACKs: $(tail -n 1 "$tmp/late")"
expect_d a $NS_A "late ACKs resend nothing" SegsRetrans=0 Timeouts=0
expect_d b $NS_B "nothing arrived twice" DropDuplicate=0
netem_clear
ip netns exec $NS_A sysctl -qw net.tonic.default_protocol=rack

stamp "end"
srv_stop
tap_check "no connection left" no_flows $NS_A $NS_B
# The flood's requests hold listener 7305 until their timers drop them.
for i in $(seq 200); do
	n=$(awk '$1 == "SocketsAllocated" { print $2 }' /proc/net/tonic_stat)
	[ "$n" = 0 ] && break
	sleep 0.1
done
[ "$n" = 0 ]
tap_result $? "every Tonic socket freed: $n left"
ns_cleanup
for i in $(seq 100); do
	pages=$(awk '$1 == "MemoryPages" { print $2 }' /proc/net/tonic_stat)
	[ "$pages" = 0 ] && break
	sleep 0.1
done
[ "$pages" = 0 ]
tap_result $? "Tonic memory back to 0 pages: $pages"
tap_check "rmmod tonic" rmmod_tonic
tap_done
