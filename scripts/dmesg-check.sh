#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Read a kernel log on stdin; print and fail on any report that means the
# kernel noticed something wrong: a warning, BUG, oops, refcount or lockdep
# report, hung task, sanitizer report or panic.
pattern='WARNING:|BUG:|Oops|general protection fault|refcount_t:|'
pattern+='possible recursive locking|possible circular locking|'
pattern+='inconsistent lock state|lockdep|INFO: task .* blocked for more|'
pattern+='UBSAN:|KASAN:|kernel BUG|Kernel panic|unreferenced object|'
pattern+='list_add corruption|list_del corruption|stack-protector|'
pattern+='RCU stall|rcu_sched detected stalls|soft lockup|hard LOCKUP'
if grep -E "$pattern"; then
	echo "dmesg-check: kernel reported a problem (lines above)" >&2
	exit 1
fi
exit 0
