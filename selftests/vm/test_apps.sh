#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real programs over Tonic (issue 16), each as it is (Linux TCP) and under
# `tonic run`, over a veth path losing 1 % of the packets each way
# (selftests/vm/apps.sh runs them): redis-server with redis-benchmark
# (SET and GET) and a 300 KB value SET then GET byte for byte; nginx with
# curl of a 20 MB file (SHA-256); sshd with scp of the same file
# (SHA-256).  For each, the counters show that Tonic carried the `tonic
# run` connections and Linux TCP none.  A program whose binary is not
# installed is skipped (scripts/deps.sh installs them).  `make bench`
# reports their figures (scripts/bench-vm.sh).
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh
. selftests/vm/apps.sh

tap_plan 15
TONIC=build/tonic
APP_DIR=$(mktemp -d)
APP_NS_C=$NS_A
APP_NS_S=$NS_B
APP_ADDR=$ADDR_B
trap 'ns_cleanup; rm -rf "$APP_DIR"' EXIT

# tcp_opens NS: Linux TCP's active + passive opens in NS
tcp_opens() {
	ip netns exec "$1" awk '/^Tcp:/ && n++ { print $6 + $7 }' /proc/net/snmp
}
topens() { echo $(($(tstat "$1" ActiveOpens) + $(tstat "$1" PassiveOpens))); }

# one_app APP WHAT: over TCP, under tonic run, and who carried the latter
one_app() {
	local app=$1 what=$2 miss rc ta tb ca cb got t
	if miss=$(app_missing "$app"); then
		tap_skip_optional "$miss" "$what over Linux TCP"
		tap_skip_optional "$miss" "$what under tonic run"
		tap_skip_optional "$miss" "$app: Tonic carried it, Linux TCP nothing"
		return
	fi
	t=$SECONDS
	app_"$app" "$app-tcp"
	rc=$?
	echo "# $(cat "$APP_DIR/$app-tcp.json" 2>&1), $((SECONDS - t)) s"
	tap_result $rc "$what over Linux TCP"
	ta=$(topens $NS_A) tb=$(topens $NS_B)
	ca=$(tcp_opens $NS_A) cb=$(tcp_opens $NS_B)
	t=$SECONDS
	app_"$app" "$app-tonic" $TONIC run --
	rc=$?
	echo "# $(cat "$APP_DIR/$app-tonic.json" 2>&1), $((SECONDS - t)) s"
	tap_result $rc "$what under tonic run"
	got="$(($(topens $NS_A) > ta)) $(($(topens $NS_B) > tb))"
	got+=" $(($(tcp_opens $NS_A) - ca)) $(($(tcp_opens $NS_B) - cb))"
	echo "# Tonic opened (A, B), TCP opens (A, B): $got"
	tap_check "$app: Tonic carried it, Linux TCP nothing" test "$got" = "1 1 0 0"
}

tap_check "insmod tonic.ko" insmod "$TONIC_KO"
tap_check "namespaces $NS_A, $NS_B joined by veth" ns_setup
tap_check "netem loss 1 % both ways" bash -c \
	"$(declare -f netem); netem $NS_A va loss 1% && netem $NS_B vb loss 1%"
t0=$SECONDS
app_prepare
echo "# files made in $((SECONDS - t0)) s"
one_app redis "redis-benchmark ($APP_REDIS_REQS SET, GET) and a 300 KB value"
one_app nginx "nginx + curl: $APP_FILE_MB MB, SHA-256"
one_app scp "sshd + scp: $APP_FILE_MB MB, SHA-256"
tap_check "no flows left" no_flows $NS_A $NS_B
ns_cleanup
tap_check "all sockets freed" no_tonic_sockets_global
tap_check "rmmod tonic" rmmod_tonic
tap_done
