#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Native checks of the test harness itself: the kernel-log check catches
# splats and passes clean logs (and a host pause's clock jump), and the
# summary counts every way a test program can fail.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 24
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# A jump of the clock (the host paused the VM) and the soft lockup it
# makes the watchdog report; a lockup that is not the jump still fails.
jump='[  152.9] tonic: loaded
[487327.1] watchdog: BUG: soft lockup - CPU#1 stuck for 453686s! [swapper/1:0]
[487327.2] clocksource: Long readout interval, skipping watchdog check: cs_nsec: 487142399535932 wd_nsec: 507295760'
tap_check "clock-jump.sh reads the jump from the clocksource watchdog" \
	test "$(scripts/clock-jump.sh <<<"$jump")" = 487141
tap_check "clock-jump.sh: a watchdog read seconds late is no jump" \
	test "$(scripts/clock-jump.sh <<<'[ 9.0] clocksource: Long readout interval, skipping watchdog check: cs_nsec: 3000000000 wd_nsec: 1000000000')" = 0
tap_check "a soft lockup as long as the clock's jump passes" \
	bash -c 'scripts/dmesg-check.sh >/dev/null 2>&1 <<<"$1"' _ "$jump"
tap_check "a soft lockup shorter than the jump is caught" \
	bash -c '! scripts/dmesg-check.sh <<<"$1"' _ "$jump
[487400.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [tonic_xfer:77]"
tap_check "a soft lockup without a jump is caught" \
	bash -c '! scripts/dmesg-check.sh <<<"$1"' _ \
	'[ 50.0] watchdog: BUG: soft lockup - CPU#1 stuck for 453686s! [swapper/1:0]'

# summary_of RESULTS...: each argument is "tap text|rc|expected plan" for
# one program; "-" leaves that file out (never ran, no exit code, plan not
# known in advance).
summary_of() {
	local d=$tmp/r$RANDOM i=0 arg tap rc want
	mkdir -p "$d"
	for arg in "$@"; do
		i=$((i + 1))
		IFS='|' read -r tap rc want <<<"$arg"
		[ "$tap" = - ] || printf '%b' "$tap" >"$d/t$i.tap"
		[ "$rc" = - ] || echo "$rc" >"$d/t$i.rc"
		[ "${want:--}" = - ] || echo "$want" >"$d/t$i.expected"
	done
	scripts/tap-summary.sh "$d" | tail -n 1
}

ok2='TAP version 13\n1..2\nok 1 - a\nok 2 - b\n'
okskip='TAP version 13\n1..2\nok 1 - a\nok 2 - b # SKIP missing optional tool: x\n'
badskip='TAP version 13\n1..2\nok 1 - a\nok 2 - b # SKIP not supported\n'
tap_check "counts passes" \
	test "$(summary_of "$ok2|0|2")" = "2 passed, 0 failed, 0 skipped"
tap_check "a skip for a missing optional tool is counted as a skip" \
	test "$(summary_of "$okskip|0|2")" = "1 passed, 0 failed, 1 skipped"
tap_check "any other skip is a failure" \
	test "$(summary_of "$badskip|0|2")" = "1 passed, 1 failed, 0 skipped"
tap_check "a non-zero exit with no failed case is a failure" \
	test "$(summary_of "$ok2|1")" = "2 passed, 1 failed, 0 skipped"
tap_check "a short run against its plan fails each case that did not run" \
	test "$(summary_of 'TAP version 13\n1..3\nok 1 - a\n|0')" = "1 passed, 2 failed, 0 skipped"
tap_check "a program that never ran fails all its expected cases" \
	test "$(summary_of "$ok2|0|2" "-|-|5")" = "2 passed, 5 failed, 0 skipped"
tap_check "a program that never ran, plan unknown, is one failure" \
	test "$(summary_of "-|-|unknown")" = "0 passed, 1 failed, 0 skipped"
tap_check "a missing exit code is a failure" \
	test "$(summary_of "$ok2|-|2")" = "2 passed, 1 failed, 0 skipped"
tap_check "a plan other than the expected one is a failure" \
	test "$(summary_of "$ok2|0|3")" = "2 passed, 1 failed, 0 skipped"
tap_check "no plan printed is a failure" \
	test "$(summary_of 'ok 1 - a\n|0')" = "1 passed, 1 failed, 0 skipped"
tap_check "the failing program is named" \
	bash -c "d=$tmp/named; mkdir -p \$d; echo 4 >\$d/test_gone.expected;
		scripts/tap-summary.sh \$d | grep -qx 'FAIL test_gone: did not run (4 cases expected)'"
tap_check "a subset run says so in the summary line" \
	bash -c "d=$tmp/sub; mkdir -p \$d; printf '1..1\nok 1 - a\n' >\$d/a.tap;
		echo 0 >\$d/a.rc; echo 'only 1 of 14 VM test files' >\$d/subset;
		scripts/tap-summary.sh \$d | tail -n 1 |
		grep -qx '1 passed, 0 failed, 0 skipped (only 1 of 14 VM test files)'"
tap_check "no results at all is a failure" \
	bash -c "! scripts/tap-summary.sh $tmp/none >/dev/null"
tap_check "plan-only mode prints the plan and runs nothing" \
	test "$(TAP_PLAN_ONLY=1 bash -c '. selftests/vm/lib.sh; tap_plan 7; echo ran')" = "1..7"
tap_done
