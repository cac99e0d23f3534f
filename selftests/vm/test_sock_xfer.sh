#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Transfers between two namespaces over veth with an end-to-end SHA-256
# check (the server answers "<bytes> <sha256>" after EOF, so every
# transfer is also a half-close): 0 B, 1 B, C-1, C, C+1, 1 MB, 100 MB,
# IPv6, small writes merged into sub-segments after the flush delay;
# ECONNREFUSED, reset of a connection closed with unread data, ETIMEDOUT
# for an unreachable peer; rmmod refused while a socket exists.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

BIG=${TONIC_BIG_BYTES:-100000000}

tap_plan 29
tmp=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$tmp"' EXIT
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "server listens" srv_start "$tmp/srv" server -p 7001

client() {
	ip netns exec $NS_A timeout 300 $XFER client -a $ADDR_B -p 7001 "$@"
}

# The segment size C of this path, from TONIC_INFO of a 1-byte transfer.
out=$(client -b 1)
C=$(info_field "$out" C)
tap_xfer "$out" "1 B transfer (C=$C)"

for n in 0 $((C - 1)) $C $((C + 1)) 1000000; do
	out=$(client -b $n -s $n)
	tap_xfer "$out" "$n B transfer, SHA-256 matches"
done

start=$(date +%s)
out=$(client -b "$BIG" -s 7)
echo "$out" | sed 's/^/# /'
tap_xfer "$out" "$BIG B transfer, SHA-256 matches ($(( $(date +%s) - start )) s)"

# 20000 bytes in 7-byte writes with a 100 us flush delay: the short tail
# is announced as sub-segments, bytes must still arrive in order.
out=$(client -b 20000 -w 7 -F 100 -s 3)
subseg=$(info_field "$out" subseg)
tap_xfer "$out" "7-byte writes with flush delay keep byte order"
[ "${subseg:-0}" -gt 0 ]; tap_result $? "sub-segments were announced ($subseg)"

tap_check "IPv6 server listens" srv_start "$tmp/srv6" server -6 -p 7011
out=$(ip netns exec $NS_A timeout 120 $XFER client -6 -a $ADDR6_B -p 7011 -b 1000000 -s 6)
tap_xfer "$out" "IPv6 1 MB transfer, SHA-256 matches"
srv_stop

# One SYN to a closed port: one no-socket drop, one reset, no retry.
nosock=$(tstat $NS_B DropNoSocket)
out=$(client -b 10 2>&1)
grep -q '^error connect ECONNREFUSED' <<<"$out"; tap_result $? "connect to a closed port: ECONNREFUSED"
nosock=$(($(tstat $NS_B DropNoSocket) - nosock))
[ "$nosock" -eq 1 ]; tap_result $? "no-socket drop counted and reset sent (DropNoSocket +$nosock)"

# The server closes with the data unread: the client sees a reset.
tap_check "unread-close server listens" srv_start "$tmp/rst" server -p 7001 -R 300
rsts=$(tstat $NS_A RstsIn)
out=$(client -b 2000000 -E 2>&1)
echo "$out" | sed 's/^/# /'
grep -q '^error \(send\|recv\) \(ECONNRESET\|EPIPE\)' <<<"$out"; tap_result $? "close with unread data resets the peer"
# At least one: data still in flight after the close meets no socket and
# draws one more reset each, but a reset-free run cannot pass.
rsts=$(($(tstat $NS_A RstsIn) - rsts))
[ "$rsts" -gt 0 ]; tap_result $? "reset counted by the client (RstsIn +$rsts)"

# While the listener exists the module is pinned.
rmmod tonic 2>"$tmp/rmmod.err"; rc=$?
[ $rc -ne 0 ] && grep -q 'in use' "$tmp/rmmod.err"; tap_result $? "rmmod refused while a socket exists"
srv_stop

# Unreachable peer: every packet to B is dropped; 1 SYN retry.
ip netns exec $NS_A sysctl -qw net.tonic.syn_retries=1 &&
	netem $NS_A va loss 100%
tap_result $? "syn_retries=1 and 100% loss on A's side"
synrtx=$(tstat $NS_A SynRetrans)
start=$(date +%s)
out=$(client -b 10 2>&1)
took=$(( $(date +%s) - start ))
grep -q '^error connect ETIMEDOUT' <<<"$out"; tap_result $? "unreachable peer: ETIMEDOUT after ${took}s"
synrtx=$(($(tstat $NS_A SynRetrans) - synrtx))
[ "$synrtx" -eq 1 ]; tap_result $? "SYN retransmitted exactly syn_retries = 1 time ($synrtx)"
netem_clear

# A peer that vanishes mid-transfer: every packet in both directions is
# dropped and the client is killed (its socket is orphaned with
# unacknowledged data in flight).  The orphan must give up after
# fin_retries engine timeouts and be freed.
ip netns exec $NS_A sysctl -qw net.tonic.fin_retries=2
ip netns exec $NS_B sysctl -qw net.tonic.fin_retries=2
tap_check "server for the vanishing-peer case" srv_start "$tmp/srv2" server -p 7021
# 1 GB: still sending a second later on the fastest guest (50 MB once
# finished first, and the orphan then waited in FIN_WAIT2 with no timeout).
ip netns exec $NS_A $XFER client -a $ADDR_B -p 7021 -b 1000000000 >/dev/null 2>&1 &
cpid=$!
sleep 1
# From here on nothing gets through: no progress, so every timeout is a
# strike, and the orphan gives up at the strike after fin_retries
# (sndbuf.c tonic_flow_timer): at least fin_retries + 1 = 3 timeouts
# counted since this snapshot.  Not exact: runs showed 4 (one more timeout
# than strikes needed; which one is not pinned down), so this is a
# lower bound on a difference, no longer >= 2 on the namespace's total.
tmo=$(tstat $NS_A Timeouts)
netem $NS_A va loss 100% && netem $NS_B vb loss 100%
tap_result $? "100% loss both ways"
kill -9 $cpid 2>/dev/null
wait $cpid 2>/dev/null
srv_stop
start=$(date +%s)
gone=1
for i in $(seq ${TONIC_ORPHAN_WAIT:-600}); do
	[ "$(awk '$1 == "SocketsAllocated" { print $2 }' /proc/net/tonic_stat)" = 0 ] && { gone=0; break; }
	sleep 0.1
done
tap_result $gone "orphan with a dead peer freed after $(( $(date +%s) - start )) s"
[ $gone -eq 0 ] || echo "# A: $(ip netns exec $NS_A cat /proc/net/tonic_stat | grep -v ' 0$' | tr '\n' ' ')"
tmo=$(($(tstat $NS_A Timeouts) - tmo))
[ "$tmo" -ge 3 ]; tap_result $? "it retransmitted on at least fin_retries + 1 = 3 timeouts first ($tmo)"
netem_clear

ns_cleanup
tap_check "all sockets freed" no_tonic_sockets
tap_check "rmmod tonic" rmmod_tonic
tap_done
