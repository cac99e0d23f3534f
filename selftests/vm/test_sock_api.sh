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
trap 'ip netns del $NS 2>/dev/null; rm -f "$out" "$out.verdicts"' EXIT

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "namespace $NS with lo up" bash -c "ip netns add $NS && ip -n $NS link set lo up"
ip netns exec $NS timeout 240 python3 $SOCKAPI >"$out" 2>&1
# (no process substitution: the VM has no /dev/fd)
grep '^\(PASS\|FAIL\) ' "$out" | head -n "$checks" >"$out.verdicts"
got=$(wc -l <"$out.verdicts")
while read -r verdict name rest; do
	case $verdict in
	PASS) tap_result 0 "$name" ;;
	FAIL) echo "# $rest"; tap_result 1 "$name" ;;
	esac
done <"$out.verdicts"
# Checks that never ran (the script died) fail by number.
for ((i = got + 1; i <= checks; i++)); do
	tap_result 1 "sockapi.py check $i of $checks did not run"
done
grep -v '^\(PASS\|FAIL\) ' "$out" | sed 's/^/# /'
tap_check "sockapi.py ran all $checks checks to the end" bash -c \
	"[ $got -eq $checks ] && [ \$(grep -c '^\(PASS\|FAIL\) ' $out) -eq $checks ] &&
	 grep -qx DONE $out"
ip netns del $NS
tap_check "all sockets freed" no_tonic_sockets_global
tap_check "rmmod tonic" rmmod_tonic
tap_done
