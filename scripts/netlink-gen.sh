#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generate the netlink code of the tonic family from its YAML spec with the
# kernel's own generator (tools/net/ynl/ynl-gen-c.py of the 6.12 source):
#   uapi/linux/tonic_netlink.h   uapi header (attribute and command enums)
#   kmod/ctl/tonic_nl_gen.[ch]       policies, split ops, family, mcast groups
#
#   netlink-gen.sh [OUTDIR]      write under OUTDIR (default: this tree)
#
# The generator names its input by the path below the nearest directory
# holding MAINTAINERS and validates it against ../genetlink.yaml, so the
# spec is run from a scratch copy laid out like a kernel tree.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo}
ksrc=${KSRC:-/usr/src/linux-source-6.12}
gen=$ksrc/tools/net/ynl/ynl-gen-c.py
[ -f "$gen" ] || { echo "netlink-gen: $gen not found (make deps)" >&2; exit 1; }

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/Documentation/netlink/specs" "$out/kmod/ctl" "$out/uapi/linux"
touch "$tree/MAINTAINERS"
cp "$ksrc"/Documentation/netlink/genetlink*.yaml "$tree/Documentation/netlink/"
spec=$tree/Documentation/netlink/specs/tonic.yaml
cp "$repo/Documentation/netlink/specs/tonic.yaml" "$spec"

export PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 "$gen" --mode uapi --header --spec "$spec" -o "$tree/tonic_netlink.h"
/usr/bin/python3 "$gen" --mode kernel --header --spec "$spec" -o "$tree/tonic_nl_gen.h"
/usr/bin/python3 "$gen" --mode kernel --source --spec "$spec" -o "$tree/tonic_nl_gen.c"
cp "$tree/tonic_netlink.h" "$out/uapi/linux/tonic_netlink.h"
cp "$tree/tonic_nl_gen.h" "$tree/tonic_nl_gen.c" "$out/kmod/ctl/"
