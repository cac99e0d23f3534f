#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make bench` (after tonic-perf is built): build the rest of
# the tree, boot one VM that runs scripts/bench-vm.sh, then write the report
# with scripts/bench-report.py.
#
# If the guest kernel dies while tonic.ko is loaded, the measurements of
# that boot are incomplete: a second boot then measures TCP alone and every
# Tonic row says what the kernel reported. The exit status is non-zero
# whenever a VM run failed (crash, kernel warning, timeout), after the
# report has been written.
#   bench.sh [OUT_DIR [RESULTS_DIR]]
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
out=${1:-build/netbench}
results=${2:-Documentation/results}
# The guest's time limit: 1500 s fits the default repetitions (as many
# as fit in BENCH_BUDGET) and the applications; each fixed repetition
# beyond the first adds about 10 minutes under TCG.
reps=${BENCH_REPEAT:-1}
[[ $reps =~ ^[0-9]+$ ]] && [ "$reps" -ge 1 ] || reps=1
limit=${BENCH_VM_TIMEOUT:-$((900 + 600 * reps))}

rm -rf "$out"
mkdir -p "$out"
# tonic.ko decides whether Tonic can be measured at all; the rest of the
# tree (the tonic CLI, BPF programs) only decides which programs are tried.
if ${MAKE:-make} module >"$out/build.log" 2>&1; then
	echo ok >"$out/build.status"
else
	{ echo "tonic.ko does not build:"; grep -m1 -E 'error' "$out/build.log"; } |
		tr '\n' ' ' >"$out/build.status"
	echo "bench: $(cat "$out/build.status") (see $out/build.log)" >&2
fi
${MAKE:-make} -k all >>"$out/build.log" 2>&1 ||
	echo "bench: 'make all' failed (see $out/build.log); benchmarking what exists" >&2

# The guest gets the BENCH_* settings that are set here.
pass=()
for v in BENCH_DURATION BENCH_REPEAT BENCH_BUDGET BENCH_PATHS BENCH_STACKS BENCH_TONIC_PROGS BENCH_NIC_STACKS BENCH_PROFILE BENCH_APPS BENCH_PIN; do
	[ -n "${!v+x}" ] && pass+=("$v=${!v}")
done

# BENCH_PROFILE: qemu counts guest instructions with the tcgprof plugin
# (build/tcgprof.so); the guest frames each profiled run by writing
# "start STACK" / "stop STACK" to $out/tcgprof.ctl, which the plugin polls.
# Without the plugin the guest falls back to perf record (useless under
# TCG, see Documentation/benchmarks.md).
vm_args=()
case ${BENCH_PROFILE:-0} in
0 | "") ;;
*)
	abs_out=$(cd "$out" && pwd)
	if [ -f build/tcgprof.so ] && [[ $abs_out != *,* && $repo != *,* ]]; then
		: >"$abs_out/tcgprof.ctl"
		vm_args=(--qemu-arg -plugin
			--qemu-arg "$repo/build/tcgprof.so,ctl=$abs_out/tcgprof.ctl,out=$abs_out")
		pass+=(BENCH_PROFILER=tcgprof)
	else
		echo "bench: build/tcgprof.so is not built (make deps; make tcgprof):" \
			"profiling with perf in the guest, which is useless under TCG" >&2
	fi
	;;
esac

# The guest's speed depends on how busy the host is: keep its load.
cut -d' ' -f1-3 /proc/loadavg >"$out/host-load.before"

vm_rc=0
scripts/vm-run.sh --timeout "$limit" ${vm_args[@]+"${vm_args[@]}"} -- \
	env "${pass[@]}" ./scripts/bench-vm.sh "$out" 2>&1 |
	tee "$out/vm.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || vm_rc=1

state=$(cat "$out/tonic.state" 2>/dev/null || echo none)
# A guest that ran out of time did not fail: report what it measured.
if [ $vm_rc -ne 0 ] && grep -q '^vm-run: timed out after' "$out/vm.log"; then
	echo "bench: the guest ran out of time (${limit} s, BENCH_VM_TIMEOUT):" \
		"the report has the runs that finished" >&2
	state=timeout
fi
if [ $vm_rc -ne 0 ]; then
	case $state in
	loading | loaded | probing | running)
		oops=$(grep -m1 -oE '(BUG: |Oops: |kernel BUG|WARNING: |general protection|Kernel panic)[^[]*' \
			"$out/vm.log" | sed 's/ *$//')
		rip=$(grep -m1 -oE 'RIP: [0-9a-f]+:[^ ]+' "$out/vm.log" | sed 's/RIP: [0-9a-f]*://')
		# First reliable frame of the module (not a "? " guess).
		frame=$(grep -m1 -oE '\]  [a-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[tonic\]' \
			"$out/vm.log" | sed 's/^\]  //; s/ \[tonic\]//')
		reason="the guest kernel failed while tonic.ko was $state"
		[ -n "$oops" ] && reason="$reason: $oops"
		[ -n "$rip" ] && reason="$reason at $rip"
		[ -n "$frame" ] && reason="$reason, called from $frame"
		echo "bench: $reason; measuring TCP alone in a second boot" >&2
		mkdir -p "$out/crashed"
		mv "$out"/runs.jsonl "$out"/vm.log "$out"/tonic.state "$out/crashed/" 2>/dev/null
		scripts/vm-run.sh --timeout "$limit" ${vm_args[@]+"${vm_args[@]}"} -- \
			env "${pass[@]}" BENCH_TONIC_SKIP="$reason" ./scripts/bench-vm.sh "$out" 2>&1 |
			tee "$out/vm.log"
		;;
	esac
fi

cut -d' ' -f1-3 /proc/loadavg >"$out/host-load.after"

# Flat profiles of the tcgprof windows: the plugin wrote the instruction
# counts per block (tcgprof.STACK.raw), the guest its kallsyms after the
# run and "PATH RUN" in tcgprof.STACK.run (RUN.json has the bytes moved).
for raw in "$out"/tcgprof.*.raw; do
	[ -f "$raw" ] || continue
	stack=${raw##*/tcgprof.}
	stack=${stack%.raw}
	read -r ppath prun <"$out/tcgprof.$stack.run" 2>/dev/null || { ppath="?"; prun=none; }
	bytes=$(jq -r '.server.rx // 0' "$out/$prun.json" 2>/dev/null)
	python3 scripts/tcgprof-report.py "$raw" "$out/kallsyms.$stack.txt" \
		--title "$stack, bulk on path $ppath" --bytes "${bytes:-0}" --stages \
		>"$out/profile.$stack.txt" ||
		echo "bench: no profile for $stack (see $raw)" >&2
done
python3 scripts/bench-report.py "$out" "$results" || exit 1
if [ $vm_rc -ne 0 ]; then
	echo "bench: a VM run failed (kernel crash, warning or timeout): see $out/vm.log" >&2
	exit 1
fi
exit 0
