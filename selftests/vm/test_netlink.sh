#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tonic generic netlink family and the tonic CLI, without traffic:
# counters, settings, programs, permissions, namespaces, events, JSON, and
# the kernel's own ynl client talking to the family from the YAML spec.
# Flows and counters under traffic: selftests/vm/netlink_flows.sh.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=${TONIC:-./build/tonic}
YNL="python3 /usr/src/linux-source-6.12/tools/net/ynl/cli.py \
	--spec Documentation/netlink/specs/tonic.yaml --no-schema"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
NS=tonic-nl2
OUT=

cleanup() {
	[ -n "${MON:-}" ] && kill "$MON" 2>/dev/null
	ip netns del $NS 2>/dev/null
	[ -z "$OUT" ] || rm -rf "$OUT"
}

# Counters in the spec's stats set: the MIB counters and active-flows
N_STATS=$(($(grep -c '^TONIC_MIB(' kmod/ctl/mib.h) + 1))

tap_plan 26
OUT=$(mktemp -d)
trap cleanup EXIT
tap_check "without the module, the CLI says how to load it" bash -c \
	"! $TONIC stats 2> $OUT/err && grep -qx \
	 'tonic: the tonic module is not loaded (modprobe tonic / insmod tonic.ko)' $OUT/err"
tap_check "insmod tonic.ko" insmod $TONIC_KO
tap_check "the family autoloads the module (genl alias)" bash -c \
	"modinfo -F alias $TONIC_KO | grep -qx net-pf-16-proto-16-family-tonic"
tap_check "tonic stats prints every counter, all zero" bash -c \
	"$TONIC stats > $OUT/stats && [ \$(wc -l < $OUT/stats) -eq $N_STATS ] && \
	 ! awk '\$2 != 0' $OUT/stats | grep -q ."
tap_check "tonic -j stats is JSON with every counter" bash -c \
	"$TONIC -j stats | jq -e 'length == $N_STATS and .active_flows == 0 and .segs_rtx == 0'"
tap_check "tonic -j -p config is JSON with the sysctl defaults" bash -c \
	"$TONIC -j -p config | jq -e \".window == \$(cat /proc/sys/net/tonic/window)\""
tap_check "tonic -j flows is an empty JSON list" bash -c \
	"[ \"\$($TONIC -j flows | jq length)\" = 0 ]"
tap_check "a filtered dump is empty too" bash -c \
	"[ \"\$($TONIC -j flows src 10.0.0.1 dport 80 prog newreno | jq length)\" = 0 ]"
tap_check "a bad filter is refused by the CLI" bash -c \
	"$TONIC flows sport 70000 2>&1 | grep -q 'bad port' && \
	 ! $TONIC flows src nowhere 2>/dev/null"
tap_check "flow-get of an unknown id says so (extack)" bash -c \
	"! $TONIC flows id 12345 2> $OUT/err && \
	 grep -q 'no flow with this id in this namespace' $OUT/err"

# Settings
tap_check "root sets window and flush delay" \
	$TONIC config set window 64 flush_delay_us 500
tap_check "config shows the new values, the sysctls too" bash -c \
	"$TONIC -j config | jq -e '.window == 64 and .flush_delay_us == 500' && \
	 [ \$(cat /proc/sys/net/tonic/window) = 64 ]"
tap_check "segment_size 10 is refused with the kernel's reason" bash -c \
	"! $TONIC config set segment_size 10 2> $OUT/err && \
	 grep -q 'Invalid argument: segment-size must be 0 (path MTU) or 64..65000' $OUT/err"
tap_check "window 1000 is refused by the policy, nothing changes" bash -c \
	"! $TONIC config set flush_delay_us 7 window 1000 2> $OUT/err && cat $OUT/err && \
	 grep -q 'out of range' $OUT/err && $TONIC -j config | jq -e '.flush_delay_us == 500'"

# Permissions
tap_check "an unprivileged user reads stats and config" bash -c \
	"$NOBODY $TONIC -j stats | jq -e .segs_out && $NOBODY $TONIC config >/dev/null"
tap_check "an unprivileged config set is refused" bash -c \
	"! $NOBODY $TONIC config set window 8 2> $OUT/err && cat $OUT/err && \
	 grep -q 'Operation not permitted (needs CAP_NET_ADMIN' $OUT/err && \
	 $TONIC -j config | jq -e '.window == 64'"
tap_check "an unprivileged prog-default-set is refused" bash -c \
	"! $NOBODY $YNL --do prog-default-set --json '{\"name\": \"newreno\"}' \
	 > $OUT/err 2>&1 && grep -q 'error: -1' $OUT/err"
tap_check "root of its own user+net namespace may set that namespace" bash -c \
	"$NOBODY unshare -Urn sh -c '$TONIC config set window 8 && \
	 $TONIC -j config' | jq -e '.window == 8' && $TONIC -j config | jq -e '.window == 64'"

# Namespaces
tap_check "a second namespace has its own settings" bash -c \
	"ip netns add $NS && ip netns exec $NS $TONIC config set window 16 && \
	 ip netns exec $NS $TONIC -j config | jq -e '.window == 16' && \
	 $TONIC -j config | jq -e '.window == 64'"

# Programs, through the kernel's ynl client (spec and kernel agree)
tap_check "ynl: prog-get lists rack, built in and default, and newreno, built in" bash -c \
	"$YNL --output-json --dump prog-get | \
	 jq -e 'any(.[]; .name == \"rack\" and .builtin == true and .default == true) and
		any(.[]; .name == \"newreno\" and .builtin == true and .default != true)'"
tap_check "ynl: stats-get and config-get" bash -c \
	"$YNL --output-json --do stats-get | jq -e '.\"active-flows\" == 0' && \
	 $YNL --output-json --do config-get | jq -e '.window == 64'"
tap_check "ynl: an unknown default program is refused with extack" bash -c \
	"! $YNL --do prog-default-set --json '{\"name\": \"nosuch\"}' > $OUT/err 2>&1 && \
	 grep -q 'no protocol program with this name is attached' $OUT/err"

# Events
$TONIC -j monitor > "$OUT/mon" 2> "$OUT/mon.err" &
MON=$!
sleep 1
$TONIC config set window 32 >/dev/null
ip netns exec $NS $TONIC config set window 4 >/dev/null
if [ -f build/bpf/reno.bpf.o ]; then
	$TONIC prog load build/bpf/reno.bpf.o >/dev/null 2>&1
	$YNL --do prog-default-set --json '{"name": "reno"}' >/dev/null 2>&1
	$YNL --do prog-default-set --json '{"name": "rack"}' >/dev/null 2>&1
	$TONIC prog unload reno >/dev/null 2>&1
fi
sleep 1
kill $MON
wait $MON 2>/dev/null
MON=
sed 's/^/# /' "$OUT/mon"
tap_check "monitor: a config event, with the new values" bash -c \
	"jq -s -e 'map(select(.event == \"config\")) | length == 1 and .[0].window == 32' $OUT/mon"
tap_check "monitor: nothing from the other namespace" bash -c \
	"jq -s -e 'map(select(.window == 4)) | length == 0' $OUT/mon"
tap_check "monitor: program attach, default and detach events" bash -c \
	"[ \"\$(jq -r 'select(.event | startswith(\"prog\")) | .event + \" \" + .name' $OUT/mon | tr '\n' ,)\" = \
	 'prog-attach reno,prog-default reno,prog-default rack,prog-detach reno,' ]"

ip netns del $NS
tap_check "rmmod tonic" bash -c \
	'for i in $(seq 50); do rmmod tonic 2>/dev/null && exit 0; sleep 0.2; done; rmmod tonic'
tap_done
