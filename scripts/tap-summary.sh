#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Count individual test cases over every test program under a directory
# and print one line: "N passed, N failed, N skipped".
#
# A program is NAME.tap (its output), NAME.rc (its exit code) and, when
# the runner knew it in advance, NAME.expected (its plan). Nothing fails
# silently:
#  - a program that was expected but left no output failed all its cases;
#  - a missing exit code, a non-zero exit with no failed case, a missing
#    plan or a plan other than the expected one is one more failure;
#  - cases planned but never reported are failures;
#  - a skip is a failure unless the test says an optional tool is missing
#    ("# SKIP missing optional tool: NAME").
# Exit status: 0 only if nothing failed and something ran.
set -u
root=${1:-build/results}
pass=0 fail=0 skip=0 programs=0
allowed_skip='# *SKIP missing optional tool: '

# count TAP PATTERN: the number of lines of TAP matching PATTERN.
count() {
	grep -cE "$2" "$1" | tr -d ' '
}

while IFS= read -r name; do
	base=$root/$name
	want=$(cat "$base.expected" 2>/dev/null || echo any)
	programs=$((programs + 1))
	if [ ! -e "$base.tap" ]; then
		n=1
		[[ $want == [0-9]* ]] && [ "$want" -gt 0 ] && n=$want
		echo "FAIL $name: did not run ($want cases expected)"
		fail=$((fail + n))
		continue
	fi
	rc=$(cat "$base.rc" 2>/dev/null || echo missing)
	p=$(count "$base.tap" '^ok [0-9]+')
	s=$(count "$base.tap" '^ok [0-9]+.*# *(SKIP|skip)')
	s_ok=$(count "$base.tap" "^ok [0-9]+.*$allowed_skip")
	f=$(count "$base.tap" '^not ok [0-9]+')
	planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$base.tap" | tail -n 1)
	ran=$((p + f))
	p=$((p - s))
	problems=()
	[ "$f" -eq 0 ] || problems+=("$f case(s) failed")
	if [ "$s" -gt "$s_ok" ]; then
		problems+=("$((s - s_ok)) case(s) skipped without a missing optional tool")
		f=$((f + s - s_ok))
	fi
	if [ "$rc" = missing ]; then
		problems+=("left no exit code")
		f=$((f + 1))
	elif [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		problems+=("exited with $rc")
		f=$((f + 1))
	fi
	if [ -z "$planned" ]; then
		problems+=("printed no TAP plan")
		f=$((f + 1))
	else
		if [ "$want" != any ] && [ "$want" != "$planned" ]; then
			problems+=("planned $planned cases, $want expected")
			f=$((f + 1))
		fi
		if [ "$ran" -lt "$planned" ]; then
			problems+=("$((planned - ran)) of $planned cases did not run")
			f=$((f + planned - ran))
		elif [ "$ran" -gt "$planned" ]; then
			problems+=("ran $ran cases, planned $planned")
			f=$((f + 1))
		fi
	fi
	if [ ${#problems[@]} -gt 0 ]; then
		(IFS=';'; echo "FAIL $name: ${problems[*]}" | sed 's/;/; /g')
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s_ok))
done < <(find "$root" \( -name '*.tap' -o -name '*.expected' \) 2>/dev/null |
	sed -e "s|^$root/||" -e 's/\.\(tap\|expected\)$//' | sort -u)

if [ "$programs" -eq 0 ]; then
	echo "FAIL: no test results under $root"
	fail=$((fail + 1))
fi
line="$pass passed, $fail failed, $skip skipped"
[ ! -s "$root/subset" ] || line="$line ($(cat "$root/subset"))"
echo "$line"
[ "$fail" -eq 0 ]
