#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Attached BPF programs run inside tonic.ko exactly as their native builds
# do: the same scripted-loss scenario on kmod/progs/bpf_sim.h's network gives
# the same line from debugfs tonic_bpf_sim (engine in the kernel, program
# through struct_ops and kfuncs) as from build/progs/tsim (userspace).
# Then the lifecycle rules on a live flow: replacing its program (bpf_link
# update) and detaching it (fallback to the built-in NewReno) both deliver
# everything.  Needs no sockets.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=./build/tonic
TSIM=./build/progs/tsim
PROGS=$(tonic_progs)
D=/sys/kernel/debug/tonic_bpf_sim

cleanup() {
	local p
	[ -e $D ] && echo stop > $D
	for p in $PROGS; do
		[ -e /sys/fs/bpf/tonic/$p ] && $TONIC prog unload $p >/dev/null 2>&1
	done
	for _ in $(seq 50); do
		[ -e /sys/module/tonic ] || break
		rmmod tonic 2>/dev/null && break
		sleep 0.2
	done
}
trap cleanup EXIT

# same SCENARIO...: kernel and native print the same result line.
same() {
	local k n
	echo "start $*" > $D || return 1
	echo "run 1000000" > $D || return 1
	k=$(head -n 1 $D)
	n=$($TSIM "$@")
	echo "kernel: $k"
	echo "native: $n"
	[ -n "$k" ] && [ "$k" = "$n" ] && grep -q "state=done" <<<"$k"
}

SCEN=(
	"reno 200 5 8 12 13 40 90"
	"newreno 200 20 23 27"
	"sack 200 20 21 25 30 31 32"
	"ndp 200 7 19 120"
	"dcqcn 200 roce 10 60"
	"dcqcn 200 10 60"
	"irn 300 5 8 12 13 40 200 299"
	"rack 200 20 23 27 120 121 199"
)

tap_plan $((5 + ${#SCEN[@]}))
tap_check "insmod tonic.ko bpf_sim=1" insmod $TONIC_KO bpf_sim=1
tap_check "load the programs of bpf/progs.h" bash -c \
	"for p in $PROGS; do $TONIC prog load build/bpf/\$p.bpf.o >/dev/null || exit 1; done"
for s in "${SCEN[@]}"; do
	# shellcheck disable=SC2086
	tap_check "kernel = native: $s" same $s
done

live() {
	local name=$1 action=$2
	echo "start $name 600 10 50 51 200 350 500" > $D &&
	echo "run 300" > $D &&
	grep -q "state=running" $D &&
	$action &&
	echo "run 1000000" > $D &&
	cat $D &&
	grep -q "state=done cum=600 " $D
}
tap_check "replace irn under a live flow: all delivered, no fallback" bash -c \
	"$(declare -f live); D=$D; live irn '$TONIC prog replace build/bpf/irn.bpf.o irn_rto_low_ns=3000000' && grep -q '^fallbacks=0' $D"
tap_check "detach reno under a live flow: all delivered on the built-in" bash -c \
	"$(declare -f live); D=$D; live reno '$TONIC prog unload reno' && grep -q '^fallbacks=1' $D"
tap_check "a flow started after the detach uses the built-in" bash -c \
	"echo 'start reno 50 7' > $D && echo 'run 100000' > $D && grep -q 'proto=newreno state=done' $D"
echo stop > $D
tap_done
