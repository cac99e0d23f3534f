#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Read a kernel log on stdin; print and fail on any report that means the
# kernel noticed something wrong: a warning, BUG, oops, refcount or lockdep
# report, hung task, sanitizer report or panic.  A soft lockup as long as
# a jump of the clock itself (scripts/clock-jump.sh: the host was paused)
# is that jump, not a lockup, and is left out with a note.
pattern='WARNING:|BUG:|Oops|general protection fault|refcount_t:|'
pattern+='possible recursive locking|possible circular locking|'
pattern+='inconsistent lock state|lockdep|INFO: task .* blocked for more|'
pattern+='UBSAN:|KASAN:|kernel BUG|Kernel panic|unreferenced object|'
pattern+='list_add corruption|list_del corruption|stack-protector|'
pattern+='RCU stall|rcu_sched detected stalls|soft lockup|hard LOCKUP'
log=$(cat)
jump=$("$(dirname "$0")/clock-jump.sh" <<<"$log")
if [ "$jump" -gt 0 ]; then
	echo "dmesg-check: the clock jumped ${jump} s at once (the host paused the VM)" >&2
	log=$(awk -v j="$jump" '
		match($0, /soft lockup - CPU#[0-9]+ stuck for [0-9]+s/) {
			s = substr($0, RSTART, RLENGTH)
			sub(/.* for /, "", s)
			if (s + 0 >= j / 2)
				next
		}
		{ print }' <<<"$log")
fi
if grep -E "$pattern" <<<"$log"; then
	echo "dmesg-check: kernel reported a problem (lines above)" >&2
	exit 1
fi
exit 0
