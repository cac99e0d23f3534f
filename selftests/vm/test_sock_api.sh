#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Socket API semantics of IPPROTO_TONIC (selftests/vm/sockapi.py): bind,
# EADDRINUSE, ECONNREFUSED, non-blocking connect, accept, MSG_PEEK,
# MSG_WAITALL, MSG_DONTWAIT, readv/writev, SO_RCVTIMEO, poll flags,
# half-close, resets (SO_LINGER 0, close with unread data), SO_SNDBUF/
# SO_RCVBUF, SOL_TONIC options and their errnos, TONIC_INFO, the bounded
# backlog, IPv6, dual stack (IPv4 peers of AF_INET6 sockets, against Linux
# TCP), the port table (bind rules, ephemeral ports, SO_REUSEPORT, against
# Linux TCP; TCP and Tonic on one port, namespaces apart, many connections,
# ports freed) and the TCP options.  Each check is one TAP result.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

NS=tonic-api
SOCKAPI=selftests/vm/sockapi.py

# The plan, from the script's list of checks (runs nothing else).
checks=$(python3 $SOCKAPI --count)
tap_plan $((checks + 5))
out=$(mktemp)
trap 'ip netns del $NS 2>/dev/null; rm -f "$out"' EXIT

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "namespace $NS with lo up" bash -c "ip netns add $NS && ip -n $NS link set lo up"
ip netns exec $NS timeout 240 python3 $SOCKAPI >"$out" 2>&1
tap_verdicts "$out" "$checks" sockapi.py
grep -v '^\(PASS\|FAIL\) ' "$out" | sed 's/^/# /'
tap_check "sockapi.py ran all $checks checks to the end" bash -c \
	"[ $got -eq $checks ] && [ \$(grep -c '^\(PASS\|FAIL\) ' $out) -eq $checks ] &&
	 grep -qx DONE $out"
ip netns del $NS
tap_check "all sockets freed" no_tonic_sockets_global
tap_check "rmmod tonic" rmmod_tonic
tap_done
