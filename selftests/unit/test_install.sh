#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installing as a user would, into scratch roots on the host (nothing on
# the host changes): `make install` puts the module under updates/ with a
# depmod index, the CLI, its man page, every protocol program of
# bpf/progs.h and the uapi headers, and `make uninstall` removes every one
# of them; `make dkms-install` has DKMS build and install tonic.ko for the
# kernel (its own scratch trees and signing key), and `make dkms-uninstall`
# leaves nothing.  The VM test test_install.sh loads what this installs.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

KVER=$(make -s --no-print-directory print-kver 2>/dev/null)
NPROG=$(wc -w <<<"$(tonic_progs)")

tap_plan 8
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
M=$S/root/lib/modules/$KVER

tap_check "make install DESTDIR=scratch" \
	make -s --no-print-directory install DESTDIR="$S/root"
tap_check "module, depmod index, CLI, man page, $NPROG programs, headers" bash -c "
	test -f $M/updates/tonic.ko && grep -q '^updates/tonic.ko:' $M/modules.dep &&
	test -x $S/root/usr/local/sbin/tonic &&
	test -f $S/root/usr/local/share/man/man8/tonic.8 &&
	[ \$(ls $S/root/usr/local/lib/tonic/bpf/*.bpf.o | wc -l) -eq $NPROG ] &&
	test -f $S/root/usr/local/include/linux/tonic.h &&
	test -f $S/root/usr/local/include/linux/tonic_netlink.h"
tap_check "make uninstall DESTDIR=scratch" \
	make -s --no-print-directory uninstall DESTDIR="$S/root"
tap_check "nothing of tonic is left" bash -c "
	[ -z \"\$(find $S/root -type f ! -name 'modules.*')\" ] &&
	[ -z \"\$(find $S/root -name '*tonic*')\" ] && ! grep -q tonic $M/modules.dep"

# DKMS in scratch trees, with its own signing key, no depmod of the host.
mkdir -p "$S/dkms" "$S/inst/$KVER"
export mok_signing_key=$S/mok.key mok_certificate=$S/mok.pub
ARGS="--sourcetree $S/src/usr/src --dkmstree $S/dkms --installtree $S/inst --no-depmod"
tap_check "make dkms-install builds and installs tonic.ko for $KVER" \
	make -s --no-print-directory dkms-install DESTDIR="$S/src" DKMS_ARGS="$ARGS"
tap_check "dkms status: installed, the module where DKMS puts it" bash -c "
	dkms $ARGS status -m tonic | tee /dev/stderr | grep -q 'installed' &&
	ls $S/inst/$KVER/updates/dkms/tonic.ko*"
tap_check "make dkms-uninstall" \
	make -s --no-print-directory dkms-uninstall DESTDIR="$S/src" DKMS_ARGS="$ARGS"
tap_check "DKMS left nothing behind" bash -c "
	[ -z \"\$(find $S/dkms $S/inst $S/src -type f)\" ] &&
	[ -z \"\$(dkms $ARGS status -m tonic)\" ]"
tap_done
