# SPDX-License-Identifier: GPL-2.0
#
# tcgprof (userspace/tcgprof/): a qemu TCG plugin that counts guest
# instructions per translation block, for BENCH_PROFILE (see
# Documentation/benchmarks.md, "Profiling"). It needs qemu's
# qemu-plugin.h, which Debian does not ship: scripts/deps.sh installs it
# from qemu's source package. Without the header (or glib) the plugin is
# not part of `make all` and the bench falls back to perf in the guest.

TCGPROF := $(BUILD)/tcgprof.so
TCGPROF_INC ?= $(firstword $(wildcard /usr/local/include/qemu-plugin.h /usr/include/qemu-plugin.h))
TCGPROF_GLIB := $(shell pkg-config --cflags glib-2.0 2>/dev/null)
# Plugins are loaded into qemu: only qemu_plugin_install and the version
# are exported.
TCGPROF_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -fPIC -shared -fvisibility=hidden \
	-I$(dir $(TCGPROF_INC)) $(TCGPROF_GLIB)

ifneq ($(and $(TCGPROF_INC),$(TCGPROF_GLIB)),)
USERSPACE_TOOLS += $(TCGPROF)
endif

$(TCGPROF): userspace/tcgprof/tcgprof.c $(TCGPROF_INC)
	@test -n "$(TCGPROF_INC)" || { echo "no qemu-plugin.h: run make deps" >&2; exit 1; }
	@mkdir -p $(@D)
	$(CC) $(TCGPROF_CFLAGS) -o $@ $< -lpthread

tcgprof: $(TCGPROF)

.PHONY: tcgprof
