# SPDX-License-Identifier: GPL-2.0
#
# The tonic generic netlink family is described by
# Documentation/netlink/specs/tonic.yaml; the kernel's ynl-gen-c.py turns
# it into uapi/linux/tonic_netlink.h and kmod/ctl/tonic_nl_gen.[ch], which are
# committed.  After changing the spec:
#
#   make netlink-gen    regenerate them
#
# selftests/unit/test_netlink_gen.sh fails while they disagree.

netlink-gen:
	./scripts/netlink-gen.sh

UNIT_TESTS += selftests/unit/test_netlink_gen.sh selftests/unit/test_settings.sh

.PHONY: netlink-gen
