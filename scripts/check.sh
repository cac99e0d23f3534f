#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every test: the native unit tests, then the VM selftests in one VM
# boot, then print the summary line. Called by `make check` after building.
#   check.sh UNIT_TEST_BINARY...
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
results=build/results
rm -rf "$results"
mkdir -p "$results/unit" "$results/vm"

for t in "$@"; do
	scripts/tap-run.sh "$results/unit" "$(basename "$t")" 600 -- "$t"
done

vm_limit=${TONIC_VM_TIMEOUT:-3000}
if scripts/vm-run.sh --timeout "$vm_limit" -- \
		scripts/vm-tests.sh "$results/vm" ${TONIC_VM_TESTS:-}; then
	status="ok 1 - VM run finished with a clean kernel log"
else
	status="not ok 1 - VM run finished with a clean kernel log"
fi
printf 'TAP version 13\n1..1\n%s\n' "$status" >"$results/vm-run.tap"
echo 0 >"$results/vm-run.rc"

echo "# ---- summary"
scripts/tap-summary.sh "$results"
