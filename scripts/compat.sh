#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build tonic.ko, warning-free at W=1, against the kernel the
# tests boot, against the newest Debian kernel the archive offers
# (bookworm-backports) and against 6.12 without DCCP (below).  The newest one's headers are downloaded and
# unpacked under build/compat, not installed: installing them would pull
# in its kernel image, which the tests would then boot.  Each build runs
# in a scratch copy of the module's sources, so the tree's tonic.ko stays
# the tested one.
#
#   compat.sh [--boot]
#
# --boot (make compat-boot) then boots the newest kernel in the test VM
# and runs the socket selftests on it with the tonic.ko built for it: its
# image package is downloaded and unpacked under build/compat as well (the
# VM mounts its modules over /lib/modules), never installed.
set -u
boot=
[ "${1:-}" = --boot ] && boot=1
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1

kdirs=()
for b in /lib/modules/*/build; do
	[ -f "$b/Makefile" ] && kdirs+=("$(readlink -f "$b")")
done

newest=$(apt-cache search --names-only '^linux-headers-[0-9.]+[^ ]*-amd64$' 2>/dev/null |
	awk '{print $1}' | grep -v -e '-cloud-' -e '-rt-' | sort -V | tail -n 1)
kver=${newest#linux-headers-}
if [ -n "$newest" ] && [ ! -d "/usr/src/$newest" ]; then
	root=$repo/build/compat/$kver
	hdr=$root/usr/src/$newest
	if [ ! -f "$hdr/Makefile" ]; then
		mkdir -p "$root/debs"
		(cd "$root/debs" && apt-get download -qq "$newest" \
			"linux-headers-${kver%-amd64}-common" \
			"linux-kbuild-${kver%-amd64}" 2>/dev/null) ||
			echo "compat: cannot download the headers of $kver" >&2
		for d in "$root"/debs/*.deb; do
			dpkg-deb -x "$d" "$root"
		done
		# its one absolute reference: the -common half of the headers
		sed -i "s|^include /usr/src/|include $root/usr/src/|" "$hdr/Makefile"
	fi
	[ -f "$hdr/Makefile" ] && kdirs+=("$hdr")
fi

# A kernel without DCCP, as upstream's from 6.16 on: the installed 6.12's
# configuration with CONFIG_IP_DCCP off, its source (linux-source-6.12)
# prepared under build/compat/nodccp (O=; /usr/src is not touched), and the
# installed kernel's exports minus what DCCP exports (net/dccp/*,
# secure_dccp*), so that modpost fails on any symbol tonic.ko would need
# from DCCP.  About 20 s to prepare once, then a build as any other.
nodccp=$repo/build/compat/nodccp
src=/usr/src/linux-source-6.12
cfg=$(printf '%s\n' /usr/src/linux-headers-6.12*-amd64 | sort -V | tail -n 1)
if [ -f "$src/Makefile" ] && [ -f "$cfg/.config" ]; then
	if [ ! -f "$nodccp/.prepared" ]; then
		rm -rf "$nodccp"
		mkdir -p "$nodccp"
		cp "$cfg/.config" "$nodccp/.config"
		"$src/scripts/config" --file "$nodccp/.config" -d IP_DCCP
		awk -F'\t' '$3 !~ /^net\/dccp\// && $2 !~ /^secure_dccp/' \
			"$cfg/Module.symvers" >"$nodccp/Module.symvers"
		if make -s -C "$src" O="$nodccp" olddefconfig >"$nodccp/prepare.log" 2>&1 &&
		   ! grep -q '^CONFIG_IP_DCCP=' "$nodccp/.config" &&
		   make -s -j2 -C "$src" O="$nodccp" modules_prepare >>"$nodccp/prepare.log" 2>&1; then
			touch "$nodccp/.prepared"
		else
			echo "compat: cannot prepare $src without DCCP" >&2
			tail -n 5 "$nodccp/prepare.log" >&2
			rc_prepare=1
		fi
	fi
	[ -f "$nodccp/.prepared" ] && kdirs+=("$nodccp")
else
	echo "compat: no linux-source-6.12 or headers: no build without DCCP" >&2
	rc_prepare=1
fi

files=$(make -s --no-print-directory print-dkms-files)
rc=${rc_prepare:-0}
for kdir in "${kdirs[@]}"; do
	name=${kdir##*/linux-headers-}
	[ "$kdir" = "$nodccp" ] && name="6.12 without CONFIG_IP_DCCP"
	tmp=$(mktemp -d)
	# shellcheck disable=SC2086
	tar -cf - $files | tar -C "$tmp" -xf -
	if make -C "$kdir" M="$tmp" W=1 modules >"$tmp/build.log" 2>&1 &&
	   ! grep -q 'warning:' "$tmp/build.log"; then
		echo "compat: $name: ok"
		[ "$name" != "$kver" ] || cp "$tmp/tonic.ko" "$root/tonic.ko"
	else
		echo "compat: $name: FAILED"
		grep -E 'error|warning' "$tmp/build.log" | head -n 20
		rc=1
	fi
	rm -rf "$tmp"
done
[ -n "$boot" ] && [ $rc -eq 0 ] || exit $rc

# --boot: the newest kernel's image and modules, then the socket tests.
[ -n "$newest" ] && [ -f "$root/tonic.ko" ] || {
	echo "compat: no newer kernel than the installed one to boot" >&2
	exit 0
}
img=$root/image
if [ ! -f "$img/boot/vmlinuz-$kver" ]; then
	mkdir -p "$root/debs"
	(cd "$root/debs" && apt-get download -qq "linux-image-$kver-unsigned" 2>/dev/null) || {
		echo "compat: cannot download the image of $kver" >&2
		exit 1
	}
	dpkg-deb -x "$root"/debs/linux-image-"$kver"-unsigned_*.deb "$img"
	depmod -b "$img" "$kver"
fi
rel=${root#"$repo"/}
socket_tests=$(ls selftests/vm/test_sock_*.sh selftests/vm/test_udp_encap.sh \
	selftests/vm/test_module.sh selftests/vm/test_netlink*.sh)
TONIC_VM_KERNEL=$img/boot/vmlinuz-$kver TONIC_VM_MODROOT=$img \
	TONIC_KO=./$rel/tonic.ko TONIC_VM_TESTS="$socket_tests" TONIC_VM_RAW_TESTS= \
	./scripts/check.sh
