#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tonic.ko loads, keeps state per network namespace, and unloads cleanly.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan 6
tap_check "insmod tonic.ko" insmod $TONIC_KO
tap_check "module is live" grep -qx live /sys/module/tonic/initstate
# Namespaces created and destroyed while loaded run the pernet init/exit.
tap_check "create 20 namespaces while loaded" \
	bash -c 'for i in $(seq 20); do ip netns add tonic-t$i || exit 1; done'
tap_check "destroy them" \
	bash -c 'for i in $(seq 20); do ip netns del tonic-t$i || exit 1; done'
tap_check "rmmod tonic" rmmod tonic
tap_check "module is gone" test ! -e /sys/module/tonic
tap_done
