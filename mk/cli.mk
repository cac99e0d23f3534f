# SPDX-License-Identifier: GPL-2.0
#
# The netlink subcommands of the `tonic` CLI (stats, flows, config,
# monitor; issue 6).  mk/bpf.mk owns the $(BUILD)/tonic rule; this adds
# their sources and libmnl.

CLI_NL_SRCS := $(addprefix userspace/tonic/,nl.c stats.c flows.c config.c monitor.c)
TONIC_CLI_SRCS += $(CLI_NL_SRCS)
TONIC_CLI_LIBS += $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl)

# The counter and setting names come from the module's lists.
TONIC_CLI_INC += -iquote kmod/ctl

$(TONIC_CLI): $(CLI_NL_SRCS) uapi/linux/tonic_netlink.h kmod/ctl/mib.h kmod/ctl/settings.h
