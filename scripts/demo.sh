#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by `make demo`: load tonic.ko, attach the
# eBPF protocol programs, move data between two network namespaces over a
# lossy, delayed veth link with an end-to-end SHA-256 check, show the
# transport statistics over netlink, and unload everything cleanly.
set -uo pipefail
cd "$(dirname "$0")/.."
. selftests/vm/lib.sh

TONIC=build/tonic
BYTES=${DEMO_BYTES:-20000000}
LINK="delay 1ms loss 2%"

step() { printf '\n== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

cleanup() {
	ns_cleanup
	for p in $($TONIC prog list 2>/dev/null | awk 'NR > 1 { print $1 }'); do
		$TONIC prog unload "$p" >/dev/null 2>&1 || true
	done
	[ ! -e /sys/module/tonic ] || rmmod_tonic
}
trap cleanup EXIT

step "load tonic.ko into $(uname -r)"
insmod ./tonic.ko || die "insmod failed"
lsmod | grep -E '^(Module|tonic) '

step "attach the eBPF protocol programs"
for p in $(tonic_progs); do
	[ "$p" = newreno ] && continue	# the built-in is there already
	$TONIC prog load build/bpf/$p.bpf.o >/dev/null || die "cannot load $p"
done
$TONIC prog list

step "two namespaces over veth, netem $LINK on both sides"
ns_setup || die "namespace setup failed"
netem $NS_A va $LINK && netem $NS_B vb $LINK || die "netem failed"
ip netns exec $NS_A tc qdisc show dev va

step "send $BYTES bytes $NS_A -> $NS_B over IPPROTO_TONIC"
srv_start /tmp/demo-server server -p 7000 || die "server did not start"
ip netns exec $NS_A $XFER client -a $ADDR_B -p 7000 -b "$BYTES" \
	-w 65536 >/tmp/demo-client 2>&1 &
client=$!
sleep 2
echo "-- open flows in $NS_A while the transfer runs:"
ip netns exec $NS_A $TONIC flows
wait $client
cat /tmp/demo-client
xfer_ok "$(cat /tmp/demo-client)" || die "the transfer did not arrive intact"
echo "integrity: byte count and SHA-256 match on both ends"

step "transport statistics of the sender ($NS_A) over netlink"
ip netns exec $NS_A $TONIC stats
step "and of the receiver ($NS_B), as JSON"
ip netns exec $NS_B $TONIC -j -p stats

step "unload"
cleanup
trap - EXIT
[ ! -e /sys/module/tonic ] || die "tonic.ko is still loaded"
echo "tonic.ko unloaded cleanly"
