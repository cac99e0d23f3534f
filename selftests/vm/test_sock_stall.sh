#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections that must never hang:
# - the close/reply pattern (the client writes, shuts down its side and
#   waits for the reply and the server's close) with every second ACK of
#   one side lost: the ACKs of the server's reply and of its FIN are among
#   them, so the reply and the FIN must be resent, and the same for the
#   client's data and FIN;
# - a path MTU drop below C + headers under a live transfer;
# - a link outage with the backoff capped (net.tonic.rto_max_ms);
# - Nagle's rule: with a flush delay of 1 s, a request/response loop with
#   socket defaults still runs, because nothing is in flight when each
#   request is written; TCP_CORK and MSG_MORE hold a short write back;
# - no connection was ever found owing progress with no timer armed
#   (TimerMissing stays 0).
# Every transfer has a deadline; a stuck one shows both sides' flows.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=build/tonic
PERF_PORT=6501
tap_plan 24
PERF_TMP=$(mktemp -d)

cleanup() {
	perf_stop_server
	ns_cleanup
	rm -rf "$PERF_TMP"
}
trap cleanup EXIT

# xfer DEADLINE BYTES: one tonic_xfer transfer A -> B; on failure show the
# transcript and both sides' flows.
xfer() {
	local out
	out=$(ip netns exec $NS_A timeout "$1" $XFER client -a $ADDR_B -p 7201 -b "$2" -s 5)
	if xfer_ok "$out"; then
		return 0
	fi
	sed 's/^/# client: /' <<<"$out"
	ip netns exec $NS_A $TONIC flows | sed 's/^/# A: /'
	ip netns exec $NS_B $TONIC flows | sed 's/^/# B: /'
	return 1
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "server listens" srv_start "$PERF_TMP/srv" server -p 7201 -c 1000

# Every second ACK leaving the client is lost: the ACK of the server's
# reply and the ACK of its FIN.
tap_check "drop every second ACK leaving the client" drop_every_ack $NS_A va 2
rtx0=$(tstat $NS_B SegsRetrans)
fin0=$(tstat $NS_B FinRetrans)
tap_check "close/reply, client ACKs lost: completes" xfer 60 4000
# The client is gone once it has the server's FIN; the ACK of that FIN
# was lost, so the server resends the FIN after rto_min and is answered
# with a reset (there is no TIME_WAIT).
tap_check "the server's connection ends" no_flows $NS_B
rtx=$(($(tstat $NS_B SegsRetrans) - rtx0))
fin=$(($(tstat $NS_B FinRetrans) - fin0))
echo "# server resent $rtx segment(s) and $fin FIN(s)"
tap_check "the server resent its reply" test "$rtx" -ge 1
tap_check "the server resent its FIN exactly once" test "$fin" = 1
tc -n $NS_A qdisc del dev va clsact

# Every second ACK leaving the server is lost: ACKs of the client's data
# and of its FIN.
tap_check "drop every second ACK leaving the server" drop_every_ack $NS_B vb 2
tap_check "close/reply, server ACKs lost: completes" xfer 60 40000
tap_check "no connection left on either side" no_flows $NS_A $NS_B
tc -n $NS_B qdisc del dev vb clsact

# The path MTU drops under a live transfer (C was chosen for 1500): the
# segments no longer fit and must still get through.
ip netns exec $NS_A timeout 120 $XFER client -a $ADDR_B -p 7201 -b 20000000 -s 6 \
	>"$PERF_TMP/pmtu" 2>&1 &
bg=$!
sleep 1
ip -n $NS_A link set va mtu 1000
ip -n $NS_B link set vb mtu 1000
wait $bg
tap_check "the path MTU drops to 1000 under a 20 MB transfer: completes intact" \
	xfer_ok "$(cat "$PERF_TMP/pmtu")"
ip -n $NS_A link set va mtu 1500
ip -n $NS_B link set vb mtu 1500

# A 3 s link outage with the backoff capped at 300 ms (net.tonic.rto_max_ms):
# the sender keeps probing at least every 300 ms, so more than the 4
# timeouts an uncapped 200 ms-doubling backoff fits in 3 s (0.2 + 0.4 +
# 0.8 + 1.6), and the transfer resumes once the link is back.
tap_check "rto_max_ms takes 300" ip netns exec $NS_A sysctl -qw net.tonic.rto_max_ms=300
# 10 MB at 20 Mbit/s: still running when the link goes down
tap_check "a 20 Mbit/s link" netem $NS_A va rate 20mbit
ip netns exec $NS_A timeout 120 $XFER client -a $ADDR_B -p 7201 -b 10000000 -s 7 \
	>"$PERF_TMP/outage" 2>&1 &
bg=$!
sleep 1
to0=$(tstat $NS_A Timeouts)
ip -n $NS_A link set va down
sleep 3
to=$(($(tstat $NS_A Timeouts) - to0))
ip -n $NS_A link set va up
wait $bg
echo "# $to timeouts during the 3 s outage"
tap_check "outage, rto_max_ms=300: probed at least 6 times" test "$to" -ge 6
tap_check "outage, rto_max_ms=300: the transfer completes intact" \
	xfer_ok "$(cat "$PERF_TMP/outage")"
ip netns exec $NS_A sysctl -qw net.tonic.rto_max_ms=120000
netem_clear

# Nagle's rule: T = 1 s on both sides and socket defaults (no
# TCP_NODELAY): each 1 KB request finds nothing in flight and goes at
# once, so a 2 s run does far more than the 2 transactions a 1 s wait
# per request would allow.
ip netns exec $NS_A sysctl -qw net.tonic.flush_delay_us=1000000
ip netns exec $NS_B sysctl -qw net.tonic.flush_delay_us=1000000
tap_check "tonic-perf server listens" perf_start_server
perf_client rr -p tonic -H $ADDR_B -P $PERF_PORT -m rr -l 2 -r 1024 --no-nodelay
tap_check "T = 1 s, socket defaults: request/response does not wait T" \
	perf_expect rr 0 '.ok and .transactions >= 50'
echo "# $(jq -r '.transactions' "$PERF_TMP/rr.json") transactions in 2 s"

# TCP_CORK / MSG_MORE hold a short write; uncorking or a plain write sends it.
cat >"$PERF_TMP/cork.py" <<'PY'
import select, socket, sys
IPPROTO_TONIC = 253
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_TONIC)
ls.bind(("127.0.0.1", 0)); ls.listen(1)
c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_TONIC)
c.connect(ls.getsockname())
s, _ = ls.accept()

def arrives(within):
    return bool(select.select([s], [], [], within)[0])

# sent once held: nothing may arrive while held (a cork lasts 200 ms at
# most, so 50 ms is safe however slow the machine is), then it must.
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
assert c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CORK) == 1
c.send(b"x" * 100)
held = not arrives(0.05)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)
print("cork", held, arrives(5) and len(s.recv(1000)) == 100)
c.send(b"y" * 100, socket.MSG_MORE)
held = not arrives(0.05)
c.send(b"z" * 100)
got = b""
while len(got) < 200 and arrives(5):
    got += s.recv(1000)
print("more", held, got == b"y" * 100 + b"z" * 100)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
print("nodelay", c.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1)
PY
ip netns exec $NS_A python3 "$PERF_TMP/cork.py" >"$PERF_TMP/cork.out" 2>&1
sed 's/^/# /' "$PERF_TMP/cork.out"
tap_check "TCP_CORK holds a short write, uncorking sends it" \
	grep -qx "cork True True" "$PERF_TMP/cork.out"
tap_check "MSG_MORE holds a short write, the next write sends both" \
	grep -qx "more True True" "$PERF_TMP/cork.out"
tap_check "TCP_NODELAY reads back" grep -qx "nodelay True" "$PERF_TMP/cork.out"

tap_check "no connection owed progress without a timer (A)" \
	test "$(tstat $NS_A TimerMissing)" = 0
tap_check "no connection owed progress without a timer (B)" \
	test "$(tstat $NS_B TimerMissing)" = 0
cleanup
tap_check "rmmod tonic" rmmod_tonic
tap_done
