#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Socket API semantics of IPPROTO_TONIC (selftests/vm/sockapi.py): bind,
# EADDRINUSE, ECONNREFUSED, non-blocking connect, accept, MSG_PEEK,
# MSG_WAITALL, MSG_DONTWAIT, readv/writev, SO_RCVTIMEO, poll flags,
# half-close, resets (SO_LINGER 0, close with unread data), SO_SNDBUF/
# SO_RCVBUF, SOL_TONIC options and their errnos, TONIC_INFO, the bounded
# backlog and IPv6.  Each check is one TAP result.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

NS=tonic-api
out=$(mktemp)
trap 'ip netns del $NS 2>/dev/null; rm -f "$out" "$out.verdicts"' EXIT

insmod "$TONIC_KO"; rc_insmod=$?
ip netns add $NS && ip -n $NS link set lo up
ip netns exec $NS timeout 240 python3 selftests/vm/sockapi.py >"$out" 2>&1
# (no process substitution: the VM has no /dev/fd)
grep '^\(PASS\|FAIL\) ' "$out" >"$out.verdicts"
checks=$(wc -l <"$out.verdicts")

tap_plan $((checks + 4))
tap_result $rc_insmod "insmod tonic.ko"
while read -r verdict name rest; do
	case $verdict in
	PASS) tap_result 0 "$name" ;;
	FAIL) echo "# $rest"; tap_result 1 "$name" ;;
	esac
done <"$out.verdicts"
grep -v '^\(PASS\|FAIL\) ' "$out" | sed 's/^/# /'
tap_check "sockapi.py ran to the end" grep -q '^PASS ipv6_refused' "$out"
ip netns del $NS
tap_check "all sockets freed" no_tonic_sockets_global
tap_check "rmmod tonic" rmmod_tonic
tap_done
