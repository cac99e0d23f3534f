#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Once tonic.ko is installed and depmod has run, socket(IPPROTO_TONIC)
# loads it (module aliases net-pf-{2,10}-proto-253-type-1). The guest's
# /lib/modules is the host's, read-only: install into an overlay on tmpfs.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

cleanup() {
	[ -e /sys/module/tonic ] && rmmod_tonic >/dev/null 2>&1
	umount "$mods" 2>/dev/null
	rm -rf "$tmp"
}

open_socket() {
	python3 -c "import socket; socket.socket($1, socket.SOCK_STREAM, 253).close()"
}

# unload: rmmod succeeds and the module is gone, so that the IPv6 socket
# below must load it again.
unload() {
	rmmod_tonic && test ! -e /sys/module/tonic
}

tap_plan 7
kver=$(uname -r)
mods=/lib/modules/$kver
tmp=$(mktemp -d)
trap cleanup EXIT
mkdir -p "$tmp/upper" "$tmp/work"
tap_check "overlay over /lib/modules/$kver" mount -t overlay overlay \
	-o "lowerdir=$mods,upperdir=$tmp/upper,workdir=$tmp/work" "$mods"
tap_check "install tonic.ko and run depmod" bash -c \
	"mkdir -p $mods/extra && cp $TONIC_KO $mods/extra/tonic.ko && depmod -a $kver"
tap_check "tonic.ko is not loaded yet" test ! -e /sys/module/tonic
tap_check "socket(AF_INET, SOCK_STREAM, 253) loads it" open_socket socket.AF_INET
tap_check "module is live" grep -qx live /sys/module/tonic/initstate
tap_check "rmmod tonic: not loaded before the IPv6 socket" unload
tap_check "socket(AF_INET6, SOCK_STREAM, 253) loads it" open_socket socket.AF_INET6
tap_done
