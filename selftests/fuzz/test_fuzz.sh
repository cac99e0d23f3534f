#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packet fuzzer as a unit test: every seed of selftests/fuzz/corpus
# (regression inputs included) runs clean, then a short fuzzing pass
# (TONIC_FUZZ_SECONDS, 20 by default) from those seeds finds nothing.
# A crash fails the test; the input is kept in build/fuzz/crashes/.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 3
bin=build/fuzz/fuzz_pkt
secs=${TONIC_FUZZ_SECONDS:-20}

tap_check "the fuzzer is built ($bin; needs clang's libFuzzer)" test -x "$bin"
seeds=(selftests/fuzz/corpus/*)
tap_diag() { echo "# $*"; }
tap_diag "${#seeds[@]} seed inputs"
tap_check "every seed input runs without a failed invariant or sanitizer report" \
	"$bin" -runs=1 "${seeds[@]}"

work=$(mktemp -d build/fuzz/check-corpus.XXXXXX 2>/dev/null) ||
	work=$(mktemp -d)
out=$(selftests/fuzz/run.sh "$secs" "$work")
rc=$?
sed 's/^/# /' <<<"$out"
tap_result $rc "a ${secs} s fuzzing pass finds no crash"
rm -rf "$work" "$work.log"
tap_done
