#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the in-VM selftests: TAP output in kselftest style.
# Source it, call tap_plan N, then tap_ok/tap_check per case, tap_done last.

TAP_N=0
TAP_FAILED=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

# tap_result RESULT DESCRIPTION: RESULT 0 means pass.
tap_result() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

# tap_check DESCRIPTION COMMAND [ARGS...]: pass if COMMAND succeeds.
tap_check() {
	local desc=$1
	shift
	"$@" >/tmp/tap_check.out 2>&1
	local rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' /tmp/tap_check.out
	tap_result $rc "$desc"
}

tap_done() {
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}
