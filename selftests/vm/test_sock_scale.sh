#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A non-blocking epoll echo server and 1000 concurrent connections made
# with non-blocking connect(): every connection completes (SO_ERROR 0),
# its 16-byte message comes back unchanged, and every socket is freed
# afterwards.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

N=${TONIC_SCALE_CONNS:-1000}

tap_plan 9
tmp=$(mktemp -d)
trap 'ns_cleanup; rm -rf "$tmp"' EXIT
tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "two namespaces over veth" ns_setup
tap_check "epoll echo server listens" srv_start "$tmp/echo" echo -p 7003

pass=$(tstat $NS_B PassiveOpens) act=$(tstat $NS_A ActiveOpens)
out=$(ip netns exec $NS_A timeout 300 $XFER many -a $ADDR_B -p 7003 -n $N)
echo "$out" | sed 's/^/# /'
grep -q "^many $N connected $N echoed $N bad 0 " <<<"$out"
tap_result $? "$N concurrent connections echoed"
echo "# A: $(ip netns exec $NS_A cat /proc/net/tonic_stat | grep -v ' 0$' | tr '\n' ' ')"
echo "# B: $(ip netns exec $NS_B cat /proc/net/tonic_stat | grep -v ' 0$' | tr '\n' ' ')"
# Each connect() is one SYN and one accepted child: exactly N both sides.
pass=$(($(tstat $NS_B PassiveOpens) - pass)) act=$(($(tstat $NS_A ActiveOpens) - act))
[ "$pass" -eq "$N" ] && [ "$act" -eq "$N" ]
tap_result $? "listener accepted exactly $N connections ($pass passive, $act active opens)"

tap_check "IPv6 epoll echo server listens" srv_start "$tmp/echo6" echo -6 -p 7013
out=$(ip netns exec $NS_A timeout 60 $XFER many -6 -a $ADDR6_B -p 7013 -n 50)
echo "$out" | sed 's/^/# /'
grep -q "^many 50 connected 50 echoed 50 bad 0 " <<<"$out"
tap_result $? "50 concurrent IPv6 connections echoed"

srv_stop
ns_cleanup
tap_check "all sockets freed" no_tonic_sockets
tap_check "rmmod tonic" rmmod_tonic
tap_done
