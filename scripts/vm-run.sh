#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a throwaway VM booted on the installed 6.12 kernel.
#
#   scripts/vm-run.sh [--timeout SECONDS] [--mem MB] [--qemu-arg ARG]... \
#       -- COMMAND [ARGS...]
#
# qemu runs under TCG (nested KVM does not work on these machines). The
# guest sees the host's root read-only and this work tree read-write at the
# same path, runs COMMAND as root from the top of the tree, and powers off.
# The exit code is COMMAND's; it is non-zero as well when the run times out
# or the kernel log shows a warning, BUG, oops, refcount, lockdep or
# hung-task report. On failure the guest console and kernel log are shown.
# --qemu-arg passes one more argument to qemu as is (repeat it for more),
# e.g. `--qemu-arg -plugin --qemu-arg build/tcgprof.so,ctl=FILE`.
set -euo pipefail

timeout_s=600
mem=3072
qemu_extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout_s=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--qemu-arg) qemu_extra+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || {
	echo "usage: $0 [--timeout S] [--mem MB] [--qemu-arg ARG]... -- COMMAND..." >&2
	exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
case $repo in
*[[:space:]]*) echo "vm-run: the work tree path must not contain spaces" >&2; exit 2 ;;
esac

# TONIC_VM_KERNEL boots another kernel than the installed one, with its
# modules under TONIC_VM_MODROOT/lib/modules (scripts/compat.sh --boot).
kernel=${TONIC_VM_KERNEL:-$(ls /boot/vmlinuz-6.12.* 2>/dev/null | sort -V | tail -n 1)}
[ -n "$kernel" ] || { echo "vm-run: no /boot/vmlinuz-6.12.*; run make deps" >&2; exit 2; }
kver=${kernel##*/vmlinuz-}
modroot=${TONIC_VM_MODROOT:-}

mkdir -p "$repo/build/vm"
initrd=$repo/build/vm/initramfs-$kver.cpio.gz
if [ ! -f "$initrd" ] || [ "$repo/scripts/vm-initramfs.sh" -nt "$initrd" ]; then
	"$repo/scripts/vm-initramfs.sh" "$kver" "$initrd" "$modroot"
fi

# One directory per run, so that several runs can share the tree.
run=$(mktemp -d "$repo/build/vm/run.XXXXXX")
rel=${run#"$repo"/}
{
	printf 'set -u\n'
	printf '%q ' "$@"
	printf '\n'
} >"$run/cmd.sh"

console=$run/console.log
set +e
timeout --foreground -k 10 "$timeout_s" \
	qemu-system-x86_64 -accel tcg -cpu max -m "$mem" -smp 2 \
	-nographic -no-reboot -nodefaults -display none \
	-serial stdio -bios /usr/share/qemu/qboot.rom \
	-kernel "$kernel" -initrd "$initrd" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$repo",mount_tag=worktree,security_model=none,multidevs=remap \
	-append "console=ttyS0 panic=-1 quiet loglevel=1 tonic.repo=$repo tonic.run=$rel${modroot:+ tonic.modroot=$modroot}" \
	${qemu_extra[@]+"${qemu_extra[@]}"} </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$console"
qemu_rc=${PIPESTATUS[0]}
set -e

fail() {
	echo "vm-run: $*" >&2
	echo "----- guest console (last 60 lines) -----" >&2
	tail -n 60 "$console" >&2
	if [ -f "$run/dmesg.txt" ]; then
		echo "----- guest kernel log (last 60 lines) -----" >&2
		tail -n 60 "$run/dmesg.txt" >&2
	fi
	echo "vm-run: logs kept in $run" >&2
	exit 1
}

[ "$qemu_rc" -ne 124 ] && [ "$qemu_rc" -ne 137 ] ||
	fail "timed out after ${timeout_s}s"
[ -f "$run/rc" ] || fail "the guest did not finish the command (qemu exit $qemu_rc)"
rc=$(cat "$run/rc")
if ! "$repo/scripts/dmesg-check.sh" <"$run/dmesg.txt" >&2; then
	fail "kernel log shows a problem"
fi
[ "$rc" -eq 0 ] || fail "command exited with $rc"
rm -rf "$run"
exit 0
