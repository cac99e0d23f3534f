#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Keepalives (SO_KEEPALIVE, TCP_KEEPIDLE/KEEPINTVL/KEEPCNT): an idle
# connection whose peer answers stays up while probes go out; once the
# peer goes silent (netem loss 100 % on its side) the connection is reset
# with ETIMEDOUT after KEEPCNT probes, as Linux TCP's (checked side by side).
# TCP_USER_TIMEOUT: unacknowledged data to a silent peer fails the
# connection with ETIMEDOUT after about that long, as TCP's.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 13
KA=selftests/vm/keepalive.py
TMP=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$TMP"' EXIT

# listen PROTO PORT: a server in B that accepts one connection and idles
listen() {
	ip netns exec $NS_B python3 -c "
import socket, sys, time
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM, $1)
l.bind(('$ADDR_B', $2)); l.listen(1)
print('ready', flush=True)
a, _ = l.accept()
time.sleep(90)" >"$TMP/srv.$2" 2>&1 &
	SRV_PIDS+=($!)
	for _ in $(seq 100); do
		grep -q ready "$TMP/srv.$2" && return 0
		sleep 0.05
	done
	return 1
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "namespaces" ns_setup
tap_check "Tonic server listens" listen 253 7100
p0=$(tstat $NS_A ProbesOut)
rm -f "$TMP/idle"
ip netns exec $NS_A timeout 90 python3 $KA $ADDR_B 7100 "$TMP/idle" >"$TMP/tonic.out" 2>&1 &
pid=$!
for _ in $(seq 400); do [ -e "$TMP/idle" ] && break; sleep 0.05; done
p1=$(tstat $NS_A ProbesOut)
netem $NS_B vb loss 100%
wait $pid
netem_clear
sed 's/^/# tonic: /' "$TMP/tonic.out"
echo "# ProbesOut while idle: $((p1 - p0)), after: $(($(tstat $NS_A ProbesOut) - p1))"
tap_check "idle 4 s with KEEPIDLE 1: probes answered, connection up" bash -c \
	"grep -qx 'alive 0' $TMP/tonic.out && [ $((p1 - p0)) -ge 2 ]"
tap_check "silent peer: recv() fails with ETIMEDOUT" grep -qx 'recv ETIMEDOUT' "$TMP/tonic.out"
tap_check "KEEPCNT 3: three more probes, then the reset" \
	test "$(($(tstat $NS_A ProbesOut) - p1))" -ge 3
tap_check "Linux TCP server listens" listen 6 7101
rm -f "$TMP/idle"
ip netns exec $NS_A timeout 90 python3 $KA --tcp $ADDR_B 7101 "$TMP/idle" >"$TMP/tcp.out" 2>&1 &
pid=$!
for _ in $(seq 400); do [ -e "$TMP/idle" ] && break; sleep 0.05; done
netem $NS_B vb loss 100%
wait $pid
netem_clear
sed 's/^/# tcp: /' "$TMP/tcp.out"
tap_check "Linux TCP gives the same: alive, then ETIMEDOUT" cmp "$TMP/tcp.out" "$TMP/tonic.out"

# ka_cut PORT OUT ARGS...: run keepalive.py ARGS against PORT in B, cut
# the path (B's side drops everything) when it says so
ka_cut() {
	local port=$1 out=$2 pid
	shift 2
	rm -f "$TMP/idle"
	ip netns exec $NS_A timeout 90 python3 $KA "$@" $ADDR_B $port "$TMP/idle" >"$out" 2>&1 &
	pid=$!
	for _ in $(seq 400); do [ -e "$TMP/idle" ] && break; sleep 0.05; done
	netem $NS_B vb loss 100%
	wait $pid
	netem_clear
}
tap_check "Tonic server for TCP_USER_TIMEOUT" listen 253 7102
tap_check "Linux TCP server for TCP_USER_TIMEOUT" listen 6 7103
ka_cut 7102 "$TMP/ut-tonic.out" --user-timeout
ka_cut 7103 "$TMP/ut-tcp.out" --tcp --user-timeout
sed 's/^/# tonic: /' "$TMP/ut-tonic.out"
sed 's/^/# tcp: /' "$TMP/ut-tcp.out"
tap_check "TCP_USER_TIMEOUT 2 s, silent peer: ETIMEDOUT" grep -qx 'recv ETIMEDOUT' "$TMP/ut-tonic.out"
tap_check "Linux TCP gives the same" cmp "$TMP/ut-tcp.out" "$TMP/ut-tonic.out"
ns_cleanup
tap_check "rmmod tonic" rmmod_tonic
tap_done
