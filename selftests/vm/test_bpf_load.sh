#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Protocol programs: the verifier accepts all of bpf/progs.h, `tonic prog` lists,
# selects a default and unloads them, the verifier rejects a write to a
# read-only context field, and tonic.ko cannot be removed while a program
# is attached.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=./build/tonic
PROGS=$(tonic_progs)
NPROG=$(wc -w <<<"$PROGS")
BUILTINS="newreno rack"	# built into tonic.ko; rack is the default
SYS=/proc/sys/net/tonic

# Whatever failed, leave no program attached and tonic.ko unloaded.
cleanup() {
	local p
	for p in $PROGS bad_write foreign; do
		[ -e /sys/fs/bpf/tonic/$p ] && $TONIC prog unload $p >/dev/null 2>&1
	done
	[ -e /sys/module/tonic ] && rmmod_tonic >/dev/null 2>&1
}
trap cleanup EXIT

tap_plan $((17 + NPROG))
tap_check "insmod tonic.ko" insmod $TONIC_KO
tap_check "only the built-ins are available" \
	bash -c "[ \"\$(cat $SYS/available_protocols)\" = '$BUILTINS' ]"
for p in $PROGS; do
	tap_check "load and attach $p" $TONIC prog load build/bpf/$p.bpf.o
done
tap_check "all $NPROG are available" bash -c \
	"for p in $PROGS; do grep -qw \$p $SYS/available_protocols || exit 1; done"
tap_check "prog list shows them pinned" bash -c \
	"$TONIC prog list > /tmp/list && cat /tmp/list && [ \$(grep -c 'bpf link' /tmp/list) -eq $NPROG ]"
tap_check "prog list -j: the built-ins and $NPROG linked programs, rack default" \
	bash -c "$TONIC -j prog list | jq -e '(map(select(.kind == \"bpf\" and .link > 0)) | length) == $NPROG and
		 (map(select(.default)) | map(.name)) == [\"rack\"]'"
# tonic_bpf_reg refuses a name already attached with -EEXIST.
tap_check "a second program of the same name is refused (EEXIST)" bash -c \
	"! $TONIC prog load build/bpf/irn.bpf.o 2> /tmp/dup && cat /tmp/dup &&
	 grep -qx 'tonic: attaching irn failed: File exists' /tmp/dup"
tap_check "verifier rejects a write to a read-only field" bash -c \
	"! $TONIC prog load build/bpf/bad_write.bpf.o 2> /tmp/bad && \
	 grep -q \"tonic: write to read-only field 'wnd'\" /tmp/bad"
tap_check "the tonic kfuncs are refused to other struct_ops types" bash -c \
	"! $TONIC prog load build/bpf/foreign_kfunc.bpf.o 2> /tmp/foreign && \
	 grep -q 'calling kernel function bpf_tonic_count_acked is not allowed' /tmp/foreign"
tap_check "rmmod is refused while programs are attached (in use)" bash -c \
	"! rmmod tonic 2> /tmp/rmmod && cat /tmp/rmmod &&
	 grep -q 'Module tonic is in use' /tmp/rmmod && [ -e /sys/module/tonic ]"
tap_check "prog default irn" bash -c \
	"$TONIC prog default irn && [ \"\$(cat $SYS/default_protocol)\" = irn ] && \
	 $TONIC prog list | grep -q '^\* irn'"
tap_check "the default is per namespace" bash -c \
	"ip netns add tp-bpf-ns && \
	 [ \"\$(ip netns exec tp-bpf-ns cat $SYS/default_protocol)\" = rack ] && \
	 ip netns exec tp-bpf-ns $TONIC prog default sack && \
	 [ \"\$(ip netns exec tp-bpf-ns cat $SYS/default_protocol)\" = sack ] && \
	 [ \"\$(cat $SYS/default_protocol)\" = irn ]; rc=\$?; ip netns del tp-bpf-ns; exit \$rc"
tap_check "allowed_protocols takes names, refuses junk" bash -c \
	"echo 'newreno irn' > $SYS/allowed_protocols && \
	 [ \"\$(cat $SYS/allowed_protocols)\" = 'newreno irn' ] && \
	 ! echo 'irn;rm' > $SYS/allowed_protocols 2>/dev/null"
tap_check "an unknown default is refused" \
	bash -c "! $TONIC prog default nosuch 2>/dev/null && [ \"\$(cat $SYS/default_protocol)\" = irn ]"
tap_check "replace irn with a new copy (bpf_link update)" \
	$TONIC prog replace build/bpf/irn.bpf.o irn_rto_low_ns=1000000
tap_check "unload all $NPROG" bash -c \
	"for p in $PROGS; do $TONIC prog unload \$p || exit 1; done"
tap_check "only the built-ins are left" \
	bash -c "[ \"\$(cat $SYS/available_protocols)\" = '$BUILTINS' ]"
tap_check "rmmod succeeds after unload" rmmod_tonic
tap_done
