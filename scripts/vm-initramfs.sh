#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the tiny busybox initramfs the test VM boots into.
# Usage: vm-initramfs.sh KVER OUTPUT [MODROOT]
# (KVER's modules are under MODROOT/lib/modules, by default /lib/modules.)
# The initramfs only loads 9p, mounts the host's root (read-only) and the
# work tree (read-write), then hands over to vm-guest-init.sh in the tree.
set -euo pipefail

kver=$1
out=$2
moddir=${3:-}/lib/modules/$kver

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp"/{bin,sbin,proc,sys,dev,root,modules}
cp /bin/busybox "$tmp/bin/busybox"
for applet in sh mount umount mkdir insmod chroot poweroff cat echo sleep; do
	ln -s busybox "$tmp/bin/$applet"
done

# Modules 9p needs, in load order; busybox insmod wants them uncompressed.
for m in fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
	src=$moddir/kernel/$m.ko
	name=$(basename "$m")
	if [ -f "$src.xz" ]; then
		xz -dc "$src.xz" >"$tmp/modules/$name.ko"
	elif [ -f "$src.zst" ]; then
		zstd -qdc "$src.zst" >"$tmp/modules/$name.ko"
	else
		cp "$src" "$tmp/modules/$name.ko"
	fi
done

# On-demand module loads run /proc/sys/kernel/modprobe in this root, not
# in the host's root moved over it: forward them to init's root.
cat >"$tmp/sbin/modprobe" <<'EOS'
#!/bin/sh
exec /bin/chroot /proc/1/root /sbin/modprobe "$@"
EOS
chmod +x "$tmp/sbin/modprobe"

cat >"$tmp/init" <<'EOS'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in netfs 9pnet 9pnet_virtio 9p; do
	insmod /modules/$m.ko || echo "vm: insmod $m failed"
done
echo /sbin/modprobe > /proc/sys/kernel/modprobe

repo=
for arg in $(cat /proc/cmdline); do
	case $arg in
	tonic.repo=*) repo=${arg#tonic.repo=} ;;
	esac
done

opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o ro,$opts,cache=loose hostroot /root || echo "vm: mount root failed"
# Scratch space first, so that a work tree below /tmp stays visible.
for d in /tmp /run /var/tmp; do
	mount -t tmpfs tmpfs /root$d
done
mkdir -p "/root$repo"
mount -t 9p -o $opts worktree "/root$repo" || echo "vm: mount work tree failed"
# Move the host's root over / (as switch_root does) rather than chroot
# into it: a chrooted process may not create a user namespace
# (selftests/vm/test_privilege.sh runs as root of its own).
cd /root
mount -o move . /
exec /bin/chroot . /bin/bash "$repo/scripts/vm-guest-init.sh" "$repo"
EOS
chmod +x "$tmp/init"

(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
