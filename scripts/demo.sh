#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by `make demo`: load tonic.ko, show it,
# unload it cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "kernel"
uname -r

step "load tonic.ko"
insmod ./tonic.ko
lsmod | grep -E '^(Module|tonic) '
modinfo -F description ./tonic.ko

step "unload"
rmmod tonic
if [ -e /sys/module/tonic ]; then
	echo "tonic.ko is still loaded" >&2
	exit 1
fi
echo "tonic.ko unloaded cleanly"
dmesg | grep -E 'tonic: (loaded|unloaded)'
