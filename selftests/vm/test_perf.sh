#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tonic-perf over TCP between two network namespaces: byte and request
# counts agree between client and server, checksums of both directions
# match, retransmissions are counted under loss, bad arguments exit 2 with
# a message, a failed test exits 1 with a JSON error. Does not need tonic.ko.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

perf=$PERF
A=$NS_A
PORT=6201
PERF_PORT=$PORT
tmp=

cleanup() {
	perf_stop_server
	ns_cleanup
	[ -z "$tmp" ] || rm -rf "$tmp"
}

client() { perf_client "$@"; }
expect() { perf_expect "$@"; }

# usage_error ARGS... -- PATTERN: exit 2, PATTERN in the message, no JSON.
usage_error() {
	local args=() pat
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	pat=$2
	"$perf" "${args[@]}" >"$tmp/usage.out" 2>"$tmp/usage.err"
	local rc=$?
	[ $rc -eq 2 ] || { echo "exit $rc, wanted 2"; cat "$tmp/usage.err"; return 1; }
	grep -q -- "$pat" "$tmp/usage.err" || { echo "no '$pat' in:"; cat "$tmp/usage.err"; return 1; }
	[ ! -s "$tmp/usage.out" ] || { echo "unexpected stdout"; cat "$tmp/usage.out"; return 1; }
}

tap_plan 15
tmp=$(mktemp -d)
PERF_TMP=$tmp
trap cleanup EXIT
tap_check "tonic-perf is built" test -x "$perf"
tap_check "two namespaces joined by a veth pair" ns_setup
tap_check "server listens" perf_start_server

client s4 -H $ADDR_B -P $PORT -m stream -c 2 -l 2 --verify
tap_check "stream, IPv4, 2 connections: bytes sent = bytes received, checksums match" \
	expect s4 0 '.ok and .client.tx > 0 and .client.tx == .server.rx and
		.verify.ok and .goodput_bps > 0 and .cpu_s_per_gb > 0'
# The retransmission fields: numbers, the totals are client + server, and
# bytes are counted exactly when segments are.
tap_check "stream: retransmission counters present and consistent" \
	expect s4 0 '(.client.retrans_bytes | type) == "number" and
		.retrans_bytes == .client.retrans_bytes + .server.retrans_bytes and
		.retrans_segs == .client.retrans_segs + .server.retrans_segs and
		((.client.retrans_segs == 0) == (.client.retrans_bytes == 0))'

client rr -H $ADDR_B -P $PORT -m rr -c 4 -l 2 -r 1024 --verify
tap_check "rr, 4 connections: requests completed = requests served, bytes = count x size" \
	expect rr 0 '.ok and .transactions > 0 and .transactions == .server.requests and
		.client.tx == .transactions * 1024 and .client.rx == .transactions * 1024 and
		.server.rx == .client.tx and .server.tx == .client.rx and .verify.ok'
tap_check "rr: latency percentiles are ordered" \
	expect rr 0 '.latency_us.min > 0 and .latency_us.min <= .latency_us.p50 and
		.latency_us.p50 <= .latency_us.p99 and .latency_us.p99 <= .latency_us.p999 and
		.latency_us.p999 <= .latency_us.max'

client asym -H $ADDR_B -P $PORT -m rr -l 1 -r 100 -R 5000 --verify
tap_check "rr, 100-byte requests and 5000-byte responses" \
	expect asym 0 '.ok and .transactions > 0 and .client.tx == .transactions * 100 and
		.client.rx == .transactions * 5000 and .verify.ok'

client s6 -6 -H $ADDR6_B -P $PORT -m stream -l 1 --cc reno --verify
tap_check "stream over IPv6 with TCP reno" \
	expect s6 0 '.ok and .cc == "reno" and .family == "ipv6" and
		.client.tx == .server.rx and .verify.ok'

# lossy: 2 s under 2 % loss; a failed qdisc fails the case.
lossy() {
	tc -n $A qdisc add dev va root netem delay 100us loss 2% ||
		{ echo "netem: tc failed"; return 1; }
	ip netns exec $A ethtool -K va tso off gso off >/dev/null 2>&1
	client lossy -H $ADDR_B -P $PORT -m stream -l 2 --verify
	tc -n $A qdisc del dev va root || { echo "netem: tc del failed"; return 1; }
	expect lossy 0 '.ok and .client.tx == .server.rx and .verify.ok and
		.retrans_bytes > 0 and .retrans_segs > 0'
}
tap_check "stream under 2 % loss: data intact, retransmitted bytes counted" lossy

client noserver -H $ADDR_B -P 6299 -l 1
tap_check "no server: exit 1 with the error in the JSON line" \
	expect noserver 1 '.ok == false and (.error | test("refused"))'

tap_check "bad -c: exit 2 with a message" usage_error -H $ADDR_B -c 0 -- "invalid value for -c"
tap_check "bad protocol: exit 2 with a message" usage_error -H $ADDR_B -p udp -- "invalid protocol 'udp'"
tap_check "--prog with tcp: exit 2 with a message" usage_error -H $ADDR_B --prog x -- "--prog applies to -p tonic only"
tap_check "server served every test and is still running" kill -0 "$PERF_SRV"
tap_done
