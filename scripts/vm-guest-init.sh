#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 inside the test VM, in the host's root (read-only, moved over the initramfs)
# with scratch tmpfs on /tmp, /run and /var/tmp and the work tree mounted
# read-write at its host path. Runs the command vm-run.sh left in the run
# directory, records its exit code and the kernel log there, then powers off.
repo=$1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t cgroup2 cgroup2 /sys/fs/cgroup

run=
modroot=
for arg in $(cat /proc/cmdline); do
	case $arg in
	tonic.run=*) run=${arg#tonic.run=} ;;
	tonic.modroot=*) modroot=${arg#tonic.modroot=} ;;
	esac
done
# A kernel that is not installed: its modules in place of the host's.
[ -z "$modroot" ] || mount --bind "$modroot/lib/modules" /lib/modules
# ip netns keeps its handles here.
mkdir -p /run/netns
ip link set lo up
hostname tonic-vm

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TMPDIR=/tmp TERM=dumb LANG=C.UTF-8
# Guest-side knobs a command can read.
export TONIC_IN_VM=1 TONIC_RUN_DIR="$repo/$run"

power_off() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
}
trap power_off EXIT

cd "$repo" || exit 1
bash "$repo/$run/cmd.sh" </dev/null
rc=$?
echo "$rc" >"$repo/$run/rc"
dmesg >"$repo/$run/dmesg.txt"
