#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM: run every selftests/vm/test_*.sh (or the ones named) as
# its own TAP program, with tonic.ko unloaded before and after each.
# After each program, the new part of the kernel log must be clean; that
# check is one more TAP result per program.  A TEST written ip:PATH runs
# with TONIC_ENCAP=ip (raw IP instead of the UDP wire), as NAME.ip.
# A program that fails while the guest's clock jumps ahead (the host was
# paused: scripts/clock-jump.sh) runs once more from a clean slate; the
# first try is kept as NAME.tap.jumped.
#   vm-tests.sh RESULT_DIR [TEST...]
set -u
out=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(selftests/vm/test_*.sh)
limit=${TONIC_TEST_TIMEOUT:-900}

# jumped FROM: the kernel log after line FROM shows the clock jumping.
jumped() {
	[ "$(dmesg | tail -n +"$(($1 + 1))" | "$repo/scripts/clock-jump.sh")" != 0 ]
}

# reset: what a killed test program leaves behind (its processes and
# namespaces, tonic.ko) gone.
reset() {
	local ns
	for ns in $(ip netns list | awk '{ print $1 }'); do
		ip netns pids "$ns" | xargs -r kill -9
		ip netns del "$ns"
	done
	for _ in $(seq 20); do
		lsmod | grep -q '^tonic ' || return 0
		rmmod tonic 2>/dev/null || sleep 0.5
	done
}

for t in "${tests[@]}"; do
	encap=udp
	if [[ "$t" == ip:* ]]; then
		encap=ip
		t=${t#ip:}
	fi
	name=$(basename "$t" .sh)
	[ "$encap" = udp ] || name=$name.$encap
	before=$(dmesg | wc -l)
	"$repo/scripts/tap-run.sh" "$out" "$name" "$limit" -- \
		env TONIC_ENCAP=$encap bash "$t"
	if { [ "$(cat "$out/$name.rc")" != 0 ] ||
	     grep -q '^not ok' "$out/$name.tap"; } && jumped "$before"; then
		echo "# $name: the clock jumped during it (the host paused the VM): once more"
		mv "$out/$name.tap" "$out/$name.tap.jumped"
		reset
		before=$(dmesg | wc -l)
		"$repo/scripts/tap-run.sh" "$out" "$name" "$limit" -- \
			env TONIC_ENCAP=$encap bash "$t"
	fi

	{
		echo "TAP version 13"
		echo "1..2"
		if lsmod | grep -q '^tonic '; then
			echo "not ok 1 - $name left tonic.ko loaded"
			rmmod tonic 2>&1 | sed 's/^/# /'
		else
			echo "ok 1 - $name left tonic.ko unloaded"
		fi
		if dmesg | tail -n +"$((before + 1))" | sed 's/^/# /' |
				"$repo/scripts/dmesg-check.sh" 2>/dev/null; then
			echo "ok 2 - kernel log clean after $name"
		else
			echo "not ok 2 - kernel log clean after $name"
		fi
	} >"$out/$name.after.tap"
	echo 0 >"$out/$name.after.rc"
	cat "$out/$name.after.tap"
done
exit 0
