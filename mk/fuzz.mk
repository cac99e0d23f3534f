# SPDX-License-Identifier: GPL-2.0
#
# The packet fuzzer (selftests/fuzz/): libFuzzer with ASan and UBSan over
# the receive parser, the socket layer's acceptance checks, the engine, the
# protocol programs and the receiver model, all built natively with
# clang's coverage instrumentation.
#
#   make fuzz [FUZZ_SECONDS=60]   fuzz; print executions, coverage, corpus
#   make check                    runs selftests/fuzz/test_fuzz.sh: the seed
#                                 corpus and a short pass (about 20 s)
#
# Needs clang's libFuzzer runtime (libclang-rt-14-dev, installed by
# scripts/deps.sh); without it the harness is not built and
# test_fuzz.sh fails.

FUZZ_CC ?= clang
FUZZ_DIR := selftests/fuzz
FUZZ_BIN := $(BUILD)/fuzz/fuzz_pkt
FUZZ_SECONDS ?= 60
FUZZ_RT := $(wildcard $(shell $(FUZZ_CC) -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a)
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -Ikmod/engine -Ikmod -Ikmod/progs -Iuapi -Ibpf
# Everything but the harness is instrumented for coverage only
# (fuzzer-no-link); the harness brings libFuzzer's main().
FUZZ_SAN_LIB := -fsanitize=fuzzer-no-link,address,undefined
FUZZ_SAN_BIN := -fsanitize=fuzzer,address,undefined
FUZZ_SRCS := $(addprefix kmod/engine/,$(ENGINE_SRCS) env_user.c) \
	$(patsubst %,bpf/%.bpf.c,$(BPF_PROGS))
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(FUZZ_SRCS))
FUZZ_HDRS := $(wildcard kmod/engine/*.h kmod/*.h kmod/progs/*.h bpf/*.h uapi/linux/*.h)

$(BUILD)/fuzz/obj/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SAN_LIB) -c $< -o $@

$(FUZZ_BIN): $(FUZZ_DIR)/fuzz_pkt.c $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SAN_BIN) $< $(FUZZ_OBJS) -o $@

UNIT_TESTS += $(FUZZ_DIR)/test_fuzz.sh
ifneq ($(FUZZ_RT),)
unit-build: $(FUZZ_BIN)
endif

fuzz: $(FUZZ_BIN)
	$(FUZZ_DIR)/run.sh $(FUZZ_SECONDS)

.PHONY: fuzz
