#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The committed netlink code is what the spec generates today: regenerate
# into a scratch directory with the kernel's ynl-gen-c.py and compare, so
# Documentation/netlink/specs/tonic.yaml, uapi/linux/tonic_netlink.h and
# kmod/ctl/tonic_nl_gen.[ch] cannot drift apart.  Also checks that the spec is
# valid for the kernel's ynl library (the ynl CLI can load it).
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh
ksrc=${KSRC:-/usr/src/linux-source-6.12}

tap_plan 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_check "spec generates" scripts/netlink-gen.sh "$tmp"
for f in uapi/linux/tonic_netlink.h kmod/ctl/tonic_nl_gen.h kmod/ctl/tonic_nl_gen.c; do
	tap_check "$f matches the spec" diff -u "$f" "$tmp/$f"
done
# The ynl library validates against the genetlink-legacy schema and builds
# every attribute set and operation, as cli.py does before talking.
tap_check "ynl library loads the spec" env PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c "
import sys
sys.path.insert(0, '$ksrc/tools/net/ynl')
from lib import SpecFamily
f = SpecFamily('Documentation/netlink/specs/tonic.yaml',
	       '$ksrc/Documentation/netlink/genetlink-legacy.yaml')
assert 'events' in f.mcast_groups, f.mcast_groups
assert f.msgs['flow-get'].value == 2
"
tap_done
