#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The installed module as a user gets it: `make install` into a scratch
# root, `modprobe tonic` from it (modprobe -d: the guest's / is read
# only), the installed CLI loads a protocol program by name from the
# installed library, a transfer over it arrives intact, then `modprobe -r`
# and `make uninstall` leave no tonic file behind.  (DKMS builds are
# tested on the host: selftests/unit/test_install.sh.)
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

KVER=$(uname -r)
R=/tmp/tonic-root
T=$R/usr/local/sbin/tonic

tap_plan 9
trap 'ns_cleanup; modprobe -d $R -r tonic 2>/dev/null; rm -rf $R' EXIT
tap_check "make install DESTDIR=$R (no rebuild)" \
	make -s --no-print-directory install DESTDIR=$R
tap_check "modprobe tonic finds it under updates/" bash -c \
	"modprobe -d $R tonic && grep -q '^tonic ' /proc/modules &&
	 modinfo -b $R -F filename tonic | grep -q '/updates/tonic.ko$'"
tap_check "the installed CLI loads irn by name" bash -c \
	"$T prog load irn && $T prog list | grep -q '^ *irn .*bpf link'"
ns_setup && ip netns exec $NS_A $T prog default irn
tap_result $? "two namespaces over veth; irn the default in A"
srv_start /tmp/tonic-srv server -p 7401 -c 1 >/dev/null
out=$(ip netns exec $NS_A timeout 60 $XFER client -a $ADDR_B -p 7401 -b 2000000)
tap_xfer "$out" "2 MB over irn, SHA-256 matches"
tap_check "the flow ran irn" test "$(info_field "$out" proto)" = irn
srv_stop
ns_cleanup
tap_check "unload irn, modprobe -r tonic" bash -c \
	"$T prog unload irn >/dev/null && for i in \$(seq 50); do
		modprobe -d $R -r tonic 2>/dev/null && break; sleep 0.2; done;
	 ! grep -q '^tonic ' /proc/modules"
tap_check "make uninstall DESTDIR=$R" \
	make -s --no-print-directory uninstall DESTDIR=$R
tap_check "no tonic file is left" bash -c \
	"[ -z \"\$(find $R -type f ! -name 'modules.*')\" ] &&
	 ! grep -q tonic $R/lib/modules/$KVER/modules.dep"
tap_done
