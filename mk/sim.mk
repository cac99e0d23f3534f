# SPDX-License-Identifier: GPL-2.0
#
# The network simulator (userspace/sim/, Documentation/simulator.md): the
# engine library plus the protocol programs of bpf/ compiled natively.
#
#   make sim          build $(BUILD)/tonic-sim
#   make sim-report   run every experiment, write Documentation/results/sim*
#
# Its fast self-tests (selftests/sim/, ASan + UBSan) run in make check.

SIM_DIR := userspace/sim
SIM_SRCS := $(sort $(wildcard $(SIM_DIR)/*.c))
SIM_LIB_SRCS := $(filter-out $(SIM_DIR)/main.c,$(SIM_SRCS))
SIM_HDRS := $(wildcard $(SIM_DIR)/*.h) $(wildcard kmod/engine/*.h) bpf/progs.h
SIM_WARN := -Wall -Wextra -Werror
SIM_INC := -Ikmod/engine -Iuapi -I$(SIM_DIR) -Ibpf
SIM_CFLAGS := -O2 -g $(SIM_WARN) $(SIM_INC)
SIM_ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer $(SIM_WARN) $(SIM_INC)

# Protocol programs of bpf/ (BPF_PROGS, from bpf/progs.h) built natively
# (tonic_prog.h without __bpf__), without sanitizers for speed.  They are linked when they exist; the
# simulator references them weakly.  dcqcn.h defines its parameters in
# every program that includes it; each program other than dcqcn gets its
# own copy, renamed PROG__dcqcn_* (as each BPF object has its own rodata).
SIM_PROG_SRCS := $(wildcard $(addprefix bpf/,$(addsuffix .bpf.c,$(BPF_PROGS))))
SIM_PROG_INC := -Ikmod/progs -Iuapi -Ibpf
SIM_PROG_HDRS := $(wildcard bpf/*.h) $(wildcard kmod/progs/bpf_query.h)
SIM_RENAME = nm --defined-only $@ | \
	awk '$$3 ~ /dcqcn_/ { n = $$3; sub(/dcqcn_/, "$*__dcqcn_", n); print $$3, n }' \
	>$@.syms && { test "$*" = dcqcn || objcopy --redefine-syms=$@.syms $@; }

SIM := $(BUILD)/tonic-sim
SIM_OBJS := $(patsubst $(SIM_DIR)/%.c,$(BUILD)/sim/%.o,$(SIM_SRCS))
SIM_ASAN_OBJS := $(patsubst $(SIM_DIR)/%.c,$(BUILD)/sim-asan/%.o,$(SIM_LIB_SRCS))
SIM_PROG_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/sim/prog/%.o,$(SIM_PROG_SRCS))
SIM_PROG_ASAN_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/sim-asan/prog/%.o,$(SIM_PROG_SRCS))

$(BUILD)/sim/%.o: $(SIM_DIR)/%.c $(SIM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) -c $< -o $@

$(BUILD)/sim-asan/%.o: $(SIM_DIR)/%.c $(SIM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIM_ASAN_CFLAGS) -c $< -o $@

$(BUILD)/sim/prog/%.o: bpf/%.bpf.c $(SIM_PROG_HDRS) $(SIM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) $(SIM_PROG_INC) -c $< -o $@
	@$(SIM_RENAME)

$(BUILD)/sim-asan/prog/%.o: bpf/%.bpf.c $(SIM_PROG_HDRS) $(SIM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIM_ASAN_CFLAGS) $(SIM_PROG_INC) -c $< -o $@
	@$(SIM_RENAME)

$(SIM): $(SIM_OBJS) $(SIM_PROG_OBJS) $(ENGINE_LIB)
	$(CC) $(SIM_CFLAGS) $(SIM_OBJS) $(SIM_PROG_OBJS) $(ENGINE_LIB) -lm -o $@

SIM_TEST := $(BUILD)/unit/test_sim
$(SIM_TEST): selftests/sim/test_sim.c $(SIM_ASAN_OBJS) $(SIM_PROG_ASAN_OBJS) \
		$(ENGINE_ASAN_LIB) $(SIM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIM_ASAN_CFLAGS) $< $(SIM_ASAN_OBJS) $(SIM_PROG_ASAN_OBJS) \
		$(ENGINE_ASAN_LIB) -lm -o $@

UNIT_TESTS += $(SIM_TEST)
USERSPACE_TOOLS += $(SIM)

sim: $(SIM)

unit-build: $(SIM_TEST)

sim-report: $(SIM)
	$(SIM_DIR)/report.sh $(SIM) Documentation/results

.PHONY: sim sim-report
