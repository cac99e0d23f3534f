# SPDX-License-Identifier: GPL-2.0
#
# tonic-perf (userspace/perf/) and `make bench`: Tonic and Linux TCP side by
# side in one VM boot. See Documentation/benchmarks.md.

PERF_SRCS := $(wildcard userspace/perf/*.c)
PERF_HDRS := $(wildcard userspace/perf/*.h) uapi/linux/tonic.h
PERF_CFLAGS := -O2 -g -Wall -Wextra -Iuapi
USERSPACE_TOOLS += $(BUILD)/tonic-perf

$(BUILD)/tonic-perf: $(PERF_SRCS) $(PERF_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) -o $@ $(PERF_SRCS) -lm

# scripts/bench.sh builds the rest of the tree (if that fails, TCP is still
# measured and the Tonic rows say why), boots the VM once for
# scripts/bench-vm.sh and writes the report with scripts/bench-report.py.
bench: deps
	$(MAKE) $(BUILD)/tonic-perf
	./scripts/bench.sh $(BUILD)/netbench Documentation/results

.PHONY: bench
