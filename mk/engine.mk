# SPDX-License-Identifier: GPL-2.0
#
# The transport-logic engine in userspace: the library, its unit tests
# (ASan + UBSan) and the microbenchmark.  The same sources listed in
# kmod/engine/sources.mk are built into tonic.ko by ./Kbuild.
#
#   make unit-build     build $(BUILD)/unit/test_* (run by make check)
#   make bench-engine   build and run the engine microbenchmark on one core

ENGINE_DIR := kmod/engine
include $(ENGINE_DIR)/sources.mk

ENGINE_USER_SRCS := $(addprefix $(ENGINE_DIR)/,$(ENGINE_SRCS) env_user.c)
ENGINE_HDRS := $(wildcard $(ENGINE_DIR)/*.h)
ENGINE_WARN := -Wall -Wextra -Werror
# The optimised build (benchmark, simulator) uses the hardware popcount when
# the build machine has it; the sanitizer build keeps the portable one.
ENGINE_ARCH := $(shell grep -qw popcnt /proc/cpuinfo 2>/dev/null && echo -mpopcnt)
# -Iuapi: the receiver model reads the TONIC_SIG_* of <linux/tonic.h>.
ENGINE_CFLAGS := -O2 -g $(ENGINE_ARCH) $(ENGINE_WARN) -I$(ENGINE_DIR) -Iuapi
ENGINE_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
ENGINE_ASAN_CFLAGS := -O1 -g $(ENGINE_SAN) -fno-omit-frame-pointer \
	$(ENGINE_WARN) -I$(ENGINE_DIR) -Iuapi

ENGINE_LIB := $(BUILD)/libtonic_engine.a
ENGINE_ASAN_LIB := $(BUILD)/libtonic_engine_asan.a
ENGINE_OBJS := $(patsubst $(ENGINE_DIR)/%.c,$(BUILD)/engine/%.o,$(ENGINE_USER_SRCS))
ENGINE_ASAN_OBJS := $(patsubst $(ENGINE_DIR)/%.c,$(BUILD)/engine-asan/%.o,$(ENGINE_USER_SRCS))

$(BUILD)/engine/%.o: $(ENGINE_DIR)/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_CFLAGS) -c $< -o $@

$(BUILD)/engine-asan/%.o: $(ENGINE_DIR)/%.c $(ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_ASAN_CFLAGS) -c $< -o $@

$(ENGINE_LIB): $(ENGINE_OBJS)
	rm -f $@
	ar rcs $@ $^

$(ENGINE_ASAN_LIB): $(ENGINE_ASAN_OBJS)
	rm -f $@
	ar rcs $@ $^

# Unit tests: one binary per selftests/unit/test_*.c, TAP 13 on stdout.
ENGINE_UNIT_SRCS := $(sort $(wildcard selftests/unit/test_*.c))
ENGINE_UNIT_TESTS := $(patsubst selftests/unit/%.c,$(BUILD)/unit/%,$(ENGINE_UNIT_SRCS))
ENGINE_UNIT_HDRS := $(wildcard selftests/unit/*.h)
UNIT_TESTS += $(ENGINE_UNIT_TESTS)

$(BUILD)/unit/test_%: selftests/unit/test_%.c $(ENGINE_ASAN_LIB) $(ENGINE_UNIT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_ASAN_CFLAGS) -Iselftests/unit $< $(ENGINE_ASAN_LIB) -o $@

unit-build: $(ENGINE_UNIT_TESTS)

# Microbenchmark: native, -O2, no sanitizers, pinned to one core.
ENGINE_BENCH := $(BUILD)/bench/bench_engine

$(ENGINE_BENCH): userspace/bench/bench_engine.c $(ENGINE_LIB)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_CFLAGS) $< $(ENGINE_LIB) -o $@

bench-engine: $(ENGINE_BENCH)
	@if command -v taskset >/dev/null; then taskset -c 0 $(ENGINE_BENCH); \
	else $(ENGINE_BENCH); fi

.PHONY: bench-engine
