#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything Tonic needs on Debian 12 (bookworm), idempotently.
# The 6.12 LTS kernel, its headers and a libbpf new enough for module
# struct_ops (>= 1.4) come from bookworm-backports.
set -euo pipefail

BACKPORTS_LIST=/etc/apt/sources.list.d/tonic-backports.sources

BOOKWORM_PKGS="busybox-static pahole clang llvm gcc make libc6-dev cpio xz-utils
zstd kmod iproute2 bc iputils-ping netcat-openbsd iperf3 python3 jq
libmnl-dev pkg-config gnuplot-nox ethtool procps python3-yaml python3-jsonschema"
BACKPORTS_PKGS="linux-image-amd64 linux-headers-amd64 qemu-system-x86
libbpf-dev bpftool libelf-dev linux-source-6.12 linux-perf"

have_all() {
	local p
	for p in $BOOKWORM_PKGS $BACKPORTS_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || return 1
	done
	ls /boot/vmlinuz-6.12.* >/dev/null 2>&1 || return 1
	ls /usr/src/linux-source-6.12/scripts/checkpatch.pl >/dev/null 2>&1 || return 1
	return 0
}

if have_all; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages; run as root (make deps)" >&2
	exit 1
fi

# Reuse the mirror the machine already uses rather than naming a host.
if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
	uri=$(awk '/^URIs:/ && /debian\/?$/ {print $2; exit}' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$uri" ] || uri=$(awk '/^deb / && $3 == "bookworm" {print $2; exit}' \
		/etc/apt/sources.list 2>/dev/null || true)
	[ -n "$uri" ] || { echo "deps: cannot find the Debian mirror URI" >&2; exit 1; }
	cat >"$BACKPORTS_LIST" <<EOS
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $BOOKWORM_PKGS
# shellcheck disable=SC2086
INITRD=No apt-get install -y -qq --no-install-recommends -t bookworm-backports \
	$BACKPORTS_PKGS

# The kernel source is the reference for checkpatch.pl and kselftest headers;
# unpack it outside the repository, once.
if [ ! -d /usr/src/linux-source-6.12 ]; then
	tarball=$(ls /usr/src/linux-source-6.12*.tar.* | head -n 1)
	tar -C /usr/src -xf "$tarball"
fi
have_all || { echo "deps: installation incomplete" >&2; exit 1; }
echo "deps: all installed"
