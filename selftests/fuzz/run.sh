#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the packet fuzzer for SECONDS and print what it did.
#   run.sh SECONDS [CORPUS_DIR]
# New inputs go to CORPUS_DIR (default build/fuzz/corpus, kept between
# runs); the seeds of selftests/fuzz/corpus are read too.  A crash is
# saved as build/fuzz/crashes/crash-* and replayed with
#   build/fuzz/fuzz_pkt build/fuzz/crashes/crash-*
# (FUZZ_PKT_VERBOSE=1 prints where the connection was left).  libFuzzer's
# output goes to CORPUS_DIR.log.
# Exit status: 0 when nothing was found.
set -u
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-60}
work=${2:-build/fuzz/corpus}
bin=build/fuzz/fuzz_pkt
log=$work.log
mkdir -p "$work" build/fuzz/crashes
[ -x "$bin" ] || { echo "fuzz: $bin not built (libFuzzer missing? make deps)" >&2; exit 1; }

start=$SECONDS
# One process: the build machine's CPUs are shared.  -timeout: an input
# that runs ten seconds is a hang; -rss_limit_mb: memory the engine leaks.
"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix=build/fuzz/crashes/ \
	"$work" selftests/fuzz/corpus >"$log" 2>&1
rc=$?
took=$((SECONDS - start))

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1)
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
echo "fuzz: ${execs:-?} executions in ${took} s, cov: ${cov:-?} ft: ${ft:-?}," \
	"corpus: ${corp:-?} (inputs/bytes)"
if [ "$rc" -ne 0 ]; then
	echo "fuzz: FAILED (exit $rc); the end of $log:"
	grep -E 'ERROR|invariant|SUMMARY|Test unit written|^#[0-9]+.*DONE' "$log" | tail -n 20
	tail -n 40 "$log"
fi
exit "$rc"
