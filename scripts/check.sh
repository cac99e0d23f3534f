#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every test: the native unit tests, then the VM selftests in one VM
# boot, then print the summary line. Called by `make check` after building.
#   check.sh UNIT_TEST_BINARY...
# Before anything runs, each program is asked for its plan (TAP_PLAN_ONLY),
# so a program that never runs or stops early is a failure by name.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
results=build/results
rm -rf "$results"
mkdir -p "$results/unit" "$results/vm"

# expect DIR NAME COMMAND...: record NAME's plan as DIR/NAME.expected.
expect() {
	local dir=$1 name=$2 plan
	shift 2
	plan=$(TAP_PLAN_ONLY=1 timeout 30 "$@" 2>/dev/null |
		sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p')
	echo "${plan:-unknown}" >"$dir/$name.expected"
}

for t in "$@"; do
	expect "$results/unit" "$(basename "$t")" "$t"
done
all_vm=(selftests/vm/test_*.sh)
vm_tests=(${TONIC_VM_TESTS:-${all_vm[*]}})
for t in "${vm_tests[@]}"; do
	name=$(basename "$t" .sh)
	expect "$results/vm" "$name" bash "$t"
	echo 2 >"$results/vm/$name.after.expected"	# see vm-tests.sh
done
# The same tests on the raw IP wire (the default is UDP): a representative
# subset, or TONIC_VM_RAW_TESTS (none by default when TONIC_VM_TESTS names
# a subset; "all": every VM test).
raw_default="selftests/vm/test_sock_xfer.sh selftests/vm/test_sock_acks.sh"
raw_default+=" selftests/vm/test_sock_api.sh selftests/vm/test_module.sh"
raw_default+=" selftests/vm/test_sock_netem.sh selftests/vm/test_sock_stall.sh"
raw_default+=" selftests/vm/test_inject.sh"
[ -z "${TONIC_VM_TESTS:-}" ] || raw_default=
raw_list=${TONIC_VM_RAW_TESTS-$raw_default}
[ "$raw_list" != all ] || raw_list="${all_vm[*]}"
raw_tests=()
for t in $raw_list; do
	name=$(basename "$t" .sh).ip
	expect "$results/vm" "$name" env TONIC_ENCAP=ip bash "$t"
	echo 2 >"$results/vm/$name.after.expected"
	raw_tests+=("ip:$t")
done
echo 1 >"$results/vm-run.expected"
[ ${#vm_tests[@]} -eq ${#all_vm[@]} ] ||
	echo "only ${#vm_tests[@]} of ${#all_vm[@]} VM test files (TONIC_VM_TESTS)" \
		>"$results/subset"

for t in "$@"; do
	scripts/tap-run.sh "$results/unit" "$(basename "$t")" 600 -- "$t"
done

vm_limit=${TONIC_VM_TIMEOUT:-3000}
if scripts/vm-run.sh --timeout "$vm_limit" -- \
		env TONIC_SOAK="${TONIC_SOAK:-}" TONIC_KO="${TONIC_KO:-./tonic.ko}" \
		TONIC_TEST_TIMEOUT="${TONIC_TEST_TIMEOUT:-900}" \
		scripts/vm-tests.sh "$results/vm" "${vm_tests[@]}" \
		"${raw_tests[@]}"; then
	status="ok 1 - VM run finished with a clean kernel log"
else
	status="not ok 1 - VM run finished with a clean kernel log"
fi
printf 'TAP version 13\n1..1\n%s\n' "$status" >"$results/vm-run.tap"
echo 0 >"$results/vm-run.rc"

echo "# ---- summary"
scripts/tap-summary.sh "$results"
