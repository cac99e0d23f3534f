#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `tonic run` and `tonic offload` (issue 16): the cgroup shim turns the
# TCP sockets of unmodified programs into Tonic sockets.  Checks the
# refusals (no privilege, no hook), which sockets are converted (family,
# type flags, protocol 0/IPPROTO_TCP; not UDP, not sockets opened before,
# not other cgroups), --protocol, the exit status, the clean-up, and real
# programs over a 1 % lossy veth path: python3 http.server + curl (an
# 8 MB file, SHA-256 checked) and iperf3 (client and server, JSON; the
# server on [::] taking an IPv4 client), with
# the counters showing Tonic carried them and TCP did not.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 32
TONIC=build/tonic
TMP=$(mktemp -d)
CG=/sys/fs/cgroup/tonic-test
trap 'ns_cleanup; rmdir $CG 2>/dev/null; rm -rf "$TMP"' EXIT

# proto_of PYTHON-EXPR: SO_PROTOCOL of socket.socket(EXPR) in this process
PYPROTO='import socket,sys
s = socket.socket(*eval(sys.argv[1]))
print(s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL))'
proto_of() { python3 -c "$PYPROTO" "$1"; }
run_proto() { $TONIC run -- python3 -c "$PYPROTO" "$1"; }

# tcp_opens NS: Linux TCP's active + passive opens in NS
tcp_opens() {
	ip netns exec "$1" awk '/^Tcp:/ && n++ { print $6 + $7 }' /proc/net/snmp
}
topens() { echo $(($(tstat "$1" ActiveOpens) + $(tstat "$1" PassiveOpens))); }

# sockets / listening N: Tonic sockets now / wait until more than N exist
sockets() { awk '$1 == "SocketsAllocated" { print $2 }' /proc/net/tonic_stat; }
listening() {
	local i
	for i in $(seq 200); do
		[ "$(sockets)" -gt "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# one-line error and status 1: refused "cleanly"
refused() {
	local err rc
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	echo "$err"
	[ $rc -eq 1 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q '^tonic: ' <<<"$err"
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "refused without privilege (one line, status 1)" refused \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	$TONIC run -- true
tap_check "refused without the update_socket_protocol hook" refused \
	env TONIC_SHIM_HOOK=tonic_no_such_hook $TONIC run -- true
tap_check "unknown --protocol refused" refused \
	$TONIC run --protocol nosuchproto -- true
tap_check "CMD's exit status is tonic run's" bash -c \
	"$TONIC run -- sh -c 'exit 7'; [ \$? -eq 7 ]"
tap_check "AF_INET SOCK_STREAM 0 becomes Tonic" \
	test "$(run_proto '(socket.AF_INET, socket.SOCK_STREAM, 0)')" = 253
tap_check "AF_INET6 IPPROTO_TCP with NONBLOCK|CLOEXEC becomes Tonic" \
	test "$(run_proto '(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC, 6)')" = 253
tap_check "UDP stays UDP" \
	test "$(run_proto '(socket.AF_INET, socket.SOCK_DGRAM, 0)')" = 17
tap_check "--protocol gives new sockets that program" bash -c \
	"[ \"\$($TONIC run --protocol newreno -- python3 -c 'import socket
s = socket.socket()
print(s.getsockopt(253, 5, 16).rstrip(b\"\\0\").decode())')\" = newreno ]"
tap_check "cleaned up: no tonic-run cgroup, shim detached" bash -c \
	"! ls -d /sys/fs/cgroup/tonic-run.* 2>/dev/null &&
	 [ ! -e /sys/fs/bpf/tonic/shim/link ] && [ -z \"\$($TONIC offload list)\" ]"

# tonic offload on an existing cgroup: sockets opened before stay TCP
tap_check "cgroup $CG" mkdir $CG
cat >"$TMP/before.py" <<'PY'
import os, socket, sys, time
before = socket.socket()
open(sys.argv[1] + "/ready", "w").close()
while not os.path.exists(sys.argv[1] + "/go"):
    time.sleep(0.05)
after = socket.socket()
print(before.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL),
      after.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL))
PY
sh -c "echo \$\$ > $CG/cgroup.procs; exec python3 $TMP/before.py $TMP" >"$TMP/before.out" &
bpid=$!
for i in $(seq 200); do [ -e "$TMP/ready" ] && break; sleep 0.05; done
tap_check "offload add $CG" $TONIC offload add tonic-test
tap_check "offload list shows it" bash -c "$TONIC offload list | grep -q ' $CG\$'"
touch "$TMP/go"
wait $bpid
tap_check "socket opened before stays TCP, a new one is Tonic" \
	test "$(cat "$TMP/before.out")" = "6 253"
tap_check "other cgroups stay TCP" \
	test "$(proto_of '(socket.AF_INET, socket.SOCK_STREAM, 0)')" = 6
tap_check "offload del $CG detaches the shim" bash -c \
	"$TONIC offload del tonic-test && [ -z \"\$($TONIC offload list)\" ] &&
	 [ ! -e /sys/fs/bpf/tonic/shim/link ] && rmdir $CG"

# Real programs over a 1 % lossy path, each under tonic run.
tap_check "namespaces $NS_A, $NS_B joined by veth" ns_setup
tap_check "netem loss 1 % both ways" bash -c \
	"$(declare -f netem); netem $NS_A va loss 1% && netem $NS_B vb loss 1%"
head -c 8000000 /dev/urandom >"$TMP/file"
want=$(sha256sum <"$TMP/file" | cut -d' ' -f1)
cb=$(tcp_opens $NS_B)
n0=$(sockets)
ip netns exec $NS_B $TONIC run -- python3 -m http.server 8080 --bind $ADDR_B \
	--directory "$TMP" >"$TMP/http.log" 2>&1 &
SRV_PIDS+=($!)
tap_check "http.server listens under tonic run" listening $n0
tap_check "curl outside the cgroup gets TCP: refused by the Tonic server" bash -c \
	"! ip netns exec $NS_A curl -s -m 5 -o /dev/null http://$ADDR_B:8080/file"
# (that refused attempt was a TCP open: count from here)
ta=$(topens $NS_A)
ca=$(tcp_opens $NS_A)
ip netns exec $NS_A timeout 300 $TONIC run -- curl -s -S -m 280 \
	-o "$TMP/got" http://$ADDR_B:8080/file
tap_check "curl under tonic run: 8 MB over 1 % loss, SHA-256 matches" \
	test "$(sha256sum <"$TMP/got" | cut -d' ' -f1)" = "$want"
srv_stop
ca=$(($(tcp_opens $NS_A) - ca))
got="$(($(topens $NS_A) - ta)) $ca"
echo "# Tonic opens, TCP opens in $NS_A: $got"
tap_check "that connection was Tonic (ActiveOpens +1), TCP opened none in $NS_A" \
	test "$got" = "1 0"

n0=$(sockets)
# iperf3 -s listens on [::] (AF_INET6, dual stack): the client is IPv4
ip netns exec $NS_B timeout 300 $TONIC run -- iperf3 -s -1 -J \
	>"$TMP/iperf-s.json" 2>&1 &
spid=$!
tap_check "iperf3 -s listens under tonic run" listening $n0
ip netns exec $NS_A timeout 300 $TONIC run -- iperf3 -c $ADDR_B -t 3 -J \
	>"$TMP/iperf-c.json" 2>&1
crc=$?
wait $spid
src=$?
tap_check "iperf3 client under tonic run: JSON, bytes received" bash -c \
	"[ $crc -eq 0 ] && jq -e '.end.sum_received.bytes > 0' $TMP/iperf-c.json"
# iperf3 reads TCP_INFO (retransmits) and TCP_CONGESTION (the program)
echo "# iperf3 client: $(jq -c '{retransmits: .end.sum_sent.retransmits,
	congestion: .end.sender_tcp_congestion}' "$TMP/iperf-c.json" 2>&1)"
tap_check "iperf3 read TCP_INFO retransmissions and TCP_CONGESTION = rack" \
	jq -e '(.end.sum_sent.retransmits | type) == "number" and
	       .end.sender_tcp_congestion == "rack"' "$TMP/iperf-c.json"
tap_check "iperf3 server under tonic run: JSON, bytes received" bash -c \
	"[ $src -eq 0 ] && jq -e '.end.sum_received.bytes > 0' $TMP/iperf-s.json"
echo "# iperf3 server: $(jq -c '.start.connected' "$TMP/iperf-s.json" 2>&1)"
# (iperf3 prints an IPv4-mapped address as the IPv4 one)
tap_check "iperf3 -s on [::] took the IPv4 client $ADDR_A" \
	jq -e --arg a "$ADDR_A" '.start.connected[0].remote_host == $a' \
	"$TMP/iperf-s.json"
tap_check "Linux TCP opened no connection in $NS_B" \
	test "$(($(tcp_opens $NS_B) - cb))" = 0
tap_check "no flows left" no_flows $NS_A $NS_B
ns_cleanup
tap_check "shim detached after the runs" bash -c \
	"[ ! -e /sys/fs/bpf/tonic/shim/link ] && ! ls -d /sys/fs/cgroup/tonic-run.* 2>/dev/null"
tap_check "all sockets freed" no_tonic_sockets_global
tap_check "rmmod tonic" rmmod_tonic
tap_done
