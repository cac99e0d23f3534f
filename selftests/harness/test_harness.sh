#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Native checks of the test harness itself: the kernel-log check catches
# splats and passes clean logs, and the summary counts every way a test
# program can fail.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 9

clean='[    4.6] tonic: loaded
[    4.9] tonic: unloaded'
tap_check "clean kernel log passes" \
	bash -c "scripts/dmesg-check.sh >/dev/null 2>&1 <<<'$clean'"
for splat in 'WARNING: CPU: 1 PID: 42 at kmod/main.c:10 tonic_init+0x1' \
	     'BUG: kernel NULL pointer dereference, address: 0000000000000008' \
	     'refcount_t: underflow; use-after-free.' \
	     'INFO: task rmmod:99 blocked for more than 120 seconds.'; do
	tap_check "kernel log check catches: ${splat%%:*}" \
		bash -c '! scripts/dmesg-check.sh <<<"$1"' _ "$splat"
done

# summary_of RESULTS...: each argument is "tap text|rc" for one program.
summary_of() {
	local d=$tmp/r$RANDOM i=0 arg
	mkdir -p "$d"
	for arg in "$@"; do
		i=$((i + 1))
		printf '%b' "${arg%|*}" >"$d/t$i.tap"
		echo "${arg##*|}" >"$d/t$i.rc"
	done
	scripts/tap-summary.sh "$d" | tail -n 1
}

ok2='TAP version 13\n1..2\nok 1 - a\nok 2 - b # SKIP no\n'
tap_check "counts passes and skips" \
	test "$(summary_of "$ok2|0")" = "1 passed, 0 failed, 1 skipped"
tap_check "a non-zero exit with no failed case is a failure" \
	test "$(summary_of "$ok2|1")" = "1 passed, 1 failed, 1 skipped"
tap_check "a short run against its plan is a failure" \
	test "$(summary_of 'TAP version 13\n1..3\nok 1 - a\n|0')" = "1 passed, 1 failed"
tap_check "no results at all is a failure" \
	bash -c "! scripts/tap-summary.sh $tmp/none >/dev/null"
tap_done
