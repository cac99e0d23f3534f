#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make compat: build tonic.ko, warning-free at W=1, against the kernel the
# tests boot and against the newest Debian kernel the archive offers
# (bookworm-backports).  The newest one's headers are downloaded and
# unpacked under build/compat, not installed: installing them would pull
# in its kernel image, which the tests would then boot.  Each build runs
# in a scratch copy of the module's sources, so the tree's tonic.ko stays
# the tested one.
set -u
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

files=$(make -s --no-print-directory print-dkms-files)
rc=0
for kdir in "${kdirs[@]}"; do
	name=${kdir##*/linux-headers-}
	tmp=$(mktemp -d)
	# shellcheck disable=SC2086
	tar -cf - $files | tar -C "$tmp" -xf -
	if make -C "$kdir" M="$tmp" W=1 modules >"$tmp/build.log" 2>&1 &&
	   ! grep -q 'warning:' "$tmp/build.log"; then
		echo "compat: $name: ok"
	else
		echo "compat: $name: FAILED"
		grep -E 'error|warning' "$tmp/build.log" | head -n 20
		rc=1
	fi
	rm -rf "$tmp"
done
exit $rc
