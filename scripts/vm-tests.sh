#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM: run every selftests/vm/test_*.sh (or the ones named) as
# its own TAP program, with tonic.ko unloaded before and after each.
# After each program, the new part of the kernel log must be clean; that
# check is one more TAP result per program.  A TEST written ip:PATH runs
# with TONIC_ENCAP=ip (raw IP instead of the UDP wire), as NAME.ip.
#   vm-tests.sh RESULT_DIR [TEST...]
set -u
out=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(selftests/vm/test_*.sh)
limit=${TONIC_TEST_TIMEOUT:-900}

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
