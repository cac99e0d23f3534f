#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Count individual test cases over every NAME.tap/NAME.rc pair under a
# directory and print one line: "N passed, N failed[, N skipped]".
# A program that exits non-zero, dies before its plan is complete, or
# prints no plan counts as one failure of its own, so nothing fails
# silently. Exit status: 0 only if nothing failed and something ran.
set -u
root=${1:-build/results}
pass=0 fail=0 skip=0 programs=0

while IFS= read -r tap; do
	base=${tap%.tap}
	name=${base#"$root"/}
	rc=$(cat "$base.rc" 2>/dev/null || echo missing)
	p=$(grep -cE '^ok [0-9]+' "$tap" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+.*# *(SKIP|skip)' "$tap" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$tap" | tr -d ' ')
	planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$tap" | tail -n 1)
	p=$((p - s))
	programs=$((programs + 1))
	problem=
	if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		problem="exited with $rc"
	elif [ -z "$planned" ]; then
		problem="printed no TAP plan"
	elif [ "$planned" -ne $((p + s + f)) ]; then
		problem="planned $planned cases, ran $((p + s + f))"
	fi
	if [ -n "$problem" ]; then
		f=$((f + 1))
		echo "FAIL $name: $problem"
	elif [ "$f" -gt 0 ]; then
		echo "FAIL $name: $f case(s) failed"
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done < <(find "$root" -name '*.tap' 2>/dev/null | sort)

if [ "$programs" -eq 0 ]; then
	echo "FAIL: no test results under $root"
	fail=$((fail + 1))
fi
line="$pass passed, $fail failed"
[ "$skip" -eq 0 ] || line="$line, $skip skipped"
echo "$line"
[ "$fail" -eq 0 ]
