#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything Tonic needs on Debian 12 (bookworm), idempotently.
# The 6.12 LTS kernel, its headers and a libbpf new enough for module
# struct_ops (>= 1.4) come from bookworm-backports.
#
# Debian ships qemu without its TCG plugin header; the guest profiler
# (userspace/tcgprof/) needs it, so it is taken from the source package of
# the installed qemu (only the upstream tarball, about 40 MB, and only that
# one file is kept) and installed where qemu's own `make install` puts it.
set -euo pipefail

BACKPORTS_LIST=/etc/apt/sources.list.d/tonic-backports.sources
BACKPORTS_SRC_LIST=/etc/apt/sources.list.d/tonic-backports-src.sources
QEMU_PLUGIN_H=/usr/local/include/qemu-plugin.h

BOOKWORM_PKGS="busybox-static pahole clang llvm libclang-rt-14-dev gcc make libc6-dev cpio xz-utils
zstd kmod iproute2 bc iputils-ping netcat-openbsd iperf3 python3 jq curl
libmnl-dev pkg-config gnuplot-nox ethtool nftables procps python3-yaml python3-jsonschema
libglib2.0-dev dkms debhelper dh-dkms flex bison libssl-dev
redis-server redis-tools nginx-light openssh-server openssh-client"
# Packages above that enable and start a service (package:service).  The VM
# tests run these programs under `tonic run` (selftests/vm/test_apps.sh);
# the host must not run them, so a service this script installs is never
# started and is disabled.  One installed before is left as it was.
SERVICE_PKGS="redis-server:redis-server nginx-light:nginx openssh-server:ssh"
BACKPORTS_PKGS="linux-image-amd64 linux-headers-amd64 qemu-system-x86
libbpf-dev bpftool libelf-dev linux-source-6.12 linux-perf"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# disable_service NAME: neither running nor started at boot.
disable_service() {
	if [ -d /run/systemd/system ]; then
		systemctl disable --now "$1" >/dev/null 2>&1 || true
	elif command -v systemctl >/dev/null; then
		systemctl disable "$1" >/dev/null 2>&1 || true
	fi
	if command -v update-rc.d >/dev/null; then
		update-rc.d "$1" disable >/dev/null 2>&1 || true
	fi
}

have_pkgs() {
	local p
	for p in $BOOKWORM_PKGS $BACKPORTS_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || return 1
	done
}

have_all() {
	have_pkgs || return 1
	ls /boot/vmlinuz-6.12.* >/dev/null 2>&1 || return 1
	ls /usr/src/linux-source-6.12/scripts/checkpatch.pl >/dev/null 2>&1 || return 1
	return 0
}

mirror_uri() {
	local uri
	uri=$(awk '/^URIs:/ && /debian\/?$/ {print $2; exit}' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$uri" ] || uri=$(awk '/^deb / && $3 == "bookworm" {print $2; exit}' \
		/etc/apt/sources.list 2>/dev/null || true)
	[ -n "$uri" ] || { echo "deps: cannot find the Debian mirror URI" >&2; return 1; }
	echo "$uri"
}

# include/qemu/qemu-plugin.h of the installed qemu's source package.
fetch_qemu_plugin_h() {
	local ver tmp orig uri
	ver=$(dpkg-query -W -f='${Version}' qemu-system-x86)
	if ! apt-cache showsrc qemu 2>/dev/null | grep -qxF "Version: $ver"; then
		uri=$(mirror_uri)
		cat >"$BACKPORTS_SRC_LIST" <<EOS
Types: deb-src
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
		apt-get update -qq
	fi
	tmp=$(mktemp -d)
	# Only the upstream tarball is needed: a missing .dsc or Debian
	# tarball is not fatal. apt keeps a download only once its hash
	# matched the source index.
	(cd "$tmp" && apt-get source --download-only -qq "qemu=$ver" >/dev/null 2>&1) || true
	orig=$(ls "$tmp"/qemu_*.orig.tar.* 2>/dev/null | head -n 1)
	if [ -z "$orig" ] ||
	   ! tar -xOf "$orig" --wildcards '*/include/qemu/qemu-plugin.h' >"$tmp/qemu-plugin.h" ||
	   ! grep -q 'define QEMU_PLUGIN_VERSION' "$tmp/qemu-plugin.h"; then
		rm -rf "$tmp"
		echo "deps: cannot get qemu-plugin.h from the source of qemu $ver" >&2
		return 1
	fi
	install -D -m 644 "$tmp/qemu-plugin.h" "$QEMU_PLUGIN_H"
	rm -rf "$tmp"
	echo "deps: installed $QEMU_PLUGIN_H (qemu $ver)"
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
	uri=$(mirror_uri)
	cat >"$BACKPORTS_LIST" <<EOS
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
fi

export DEBIAN_FRONTEND=noninteractive
if ! have_pkgs; then
	new_services=
	for ps in $SERVICE_PKGS; do
		installed "${ps%%:*}" || new_services+=" ${ps#*:}"
	done
	# invoke-rc.d and deb-systemd-invoke start nothing while this says 101.
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $BOOKWORM_PKGS
	for svc in $new_services; do
		disable_service "$svc"
	done
	if [ -n "$policy" ]; then
		rm -f "$policy"
		trap - EXIT
	fi
	# shellcheck disable=SC2086
	INITRD=No apt-get install -y -qq --no-install-recommends -t bookworm-backports \
		$BACKPORTS_PKGS
fi
# Optional: without the header only BENCH_PROFILE falls back to perf.
[ -f "$QEMU_PLUGIN_H" ] || fetch_qemu_plugin_h ||
	echo "deps: no TCG profiler; BENCH_PROFILE will use perf" >&2

# The kernel source is the reference for checkpatch.pl and kselftest headers;
# unpack it outside the repository, once.
if [ ! -d /usr/src/linux-source-6.12 ]; then
	tarball=$(ls /usr/src/linux-source-6.12*.tar.* | head -n 1)
	tar -C /usr/src -xf "$tarball"
fi
have_all || { echo "deps: installation incomplete" >&2; exit 1; }
echo "deps: all installed"
