#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages, built from a copy of the tree with
# `dpkg-buildpackage -us -uc -b` (nothing on the host changes):
# tonic-utils has the CLI, its man page, every protocol program and the
# headers, installs into a scratch dpkg root, finds the programs by name
# there, and is removed without a trace; tonic-dkms has the module's
# sources and dkms.conf, from which DKMS (in scratch trees, as its
# postinst does) builds, installs and removes tonic.ko.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

KVER=$(make -s --no-print-directory print-kver 2>/dev/null)
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
NPROG=$(wc -w <<<"$(tonic_progs)")

tap_plan 9
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
tap_check "debian/changelog and dkms.conf give the same version ($VER)" \
	test "$(dpkg-parsechangelog -S Version)" = "$VER"
mkdir -p "$S/src"
git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$S/src"
tap_check "dpkg-buildpackage -us -uc -b" bash -c \
	"cd $S/src && dpkg-buildpackage -us -uc -b > $S/build.log 2>&1 ||
	 { tail -n 20 $S/build.log; exit 1; }"
U=$S/tonic-utils_${VER}_amd64.deb
D=$S/tonic-dkms_${VER}_all.deb
tap_check "tonic-utils: CLI, man page, $NPROG programs, headers; no dkms dependency" bash -c "
	dpkg-deb -c $U > $S/u && grep -q ' ./usr/sbin/tonic$' $S/u &&
	grep -q ' ./usr/share/man/man8/tonic.8.gz$' $S/u &&
	[ \$(grep -c '/usr/lib/tonic/bpf/.*\.bpf\.o$' $S/u) -eq $NPROG ] &&
	grep -q ' ./usr/include/linux/tonic.h$' $S/u &&
	! dpkg-deb -f $U Depends | grep -q dkms"
tap_check "tonic-dkms: the sources and dkms.conf under /usr/src/tonic-$VER" bash -c "
	dpkg-deb -c $D > $S/d && grep -q ' ./usr/src/tonic-$VER/dkms.conf$' $S/d &&
	grep -q ' ./usr/src/tonic-$VER/Kbuild$' $S/d &&
	grep -q ' ./usr/src/tonic-$VER/kmod/engine/engine.c$' $S/d &&
	dpkg-deb -I $D postinst | grep -q dkms"

# tonic-utils into a scratch dpkg database (its libraries are the host's).
R=$S/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
touch "$R/var/lib/dpkg/status"
tap_check "tonic-utils installs (dpkg --root)" \
	dpkg --root="$R" --force-depends -i "$U"
tap_check "the installed CLI runs and resolves programs by name" bash -c "
	$R/usr/sbin/tonic prog help 2>&1 | grep -q 'FILE|NAME' &&
	ls $R/usr/lib/tonic/bpf/irn.bpf.o"
tap_check "tonic-utils is removed without a trace" bash -c "
	dpkg --root=$R --purge tonic-utils &&
	[ -z \"\$(find $R -type f ! -path '$R/var/lib/dpkg/*')\" ]"

# What tonic-dkms's postinst does, in scratch trees.
X=$S/x
dpkg-deb -x "$D" "$X"
mkdir -p "$S/dkms" "$S/inst/$KVER"
export mok_signing_key=$S/mok.key mok_certificate=$S/mok.pub
A="--sourcetree $X/usr/src --dkmstree $S/dkms --installtree $S/inst --no-depmod"
tap_check "DKMS builds and installs tonic.ko from tonic-dkms's tree" bash -c "
	dkms $A add -m tonic -v $VER && dkms $A build -m tonic -v $VER -k $KVER &&
	dkms $A install -m tonic -v $VER -k $KVER && ls $S/inst/$KVER/updates/dkms/tonic.ko*"
tap_check "and removes it without a trace" bash -c "
	dkms $A remove -m tonic -v $VER --all &&
	[ -z \"\$(find $S/dkms $S/inst -type f)\" ]"
tap_done
