#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The settings have one list, kmod/ctl/settings.h, from which the sysctls,
# their defaults and netlink's config table are built; but netlink's
# ranges are the `checks:` of Documentation/netlink/specs/tonic.yaml (the
# generated policy).  Check that the spec has exactly those settings, in
# that order, and that each accepts the same range over netlink as its
# sysctl does.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

tap_plan $(($(grep -c '^TONIC_SETTING(' kmod/ctl/settings.h) + 1))
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 - <<'PY' >"${TMPDIR:-/tmp}/test_settings.$$"
import re
import yaml

table = [m.groups() for m in re.finditer(
    r'^TONIC_SETTING\((\w+), (\w+), [^,]+, (\d+), (\d+)\)$',
    open('kmod/ctl/settings.h').read(), re.M)]
spec = yaml.safe_load(open('Documentation/netlink/specs/tonic.yaml'))
attrs = next(s for s in spec['attribute-sets'] if s['name'] == 'config')
attrs = {a['name']: a for a in attrs['attributes']}

names = [n.replace('_', '-') for n, _, _, _ in table]
ok = names == list(attrs) and all(a == n.upper() for n, a, _, _ in table)
print(f"{int(ok)} the config attributes of the spec are the lines of kmod/ctl/settings.h, in order")
if not ok:
    print(f"# settings.h: {names}\n# spec: {list(attrs)}")
for name, _, lo, hi in table:
    checks = attrs.get(name.replace('_', '-'), {}).get('checks', {})
    got = (checks.get('min', 0), checks.get('max', 2**32 - 1))
    ok = got == (int(lo), int(hi))
    print(f"{int(ok)} {name}: sysctl and netlink accept {lo}..{hi}")
    if not ok:
        print(f"# the spec's checks say {got[0]}..{got[1]}")
PY
while read -r ok desc; do
	case $ok in
	'#') echo "# $desc" ;;
	1) tap_result 0 "$desc" ;;
	*) tap_result 1 "$desc" ;;
	esac
done <"${TMPDIR:-/tmp}/test_settings.$$"
rm -f "${TMPDIR:-/tmp}/test_settings.$$"
tap_done
