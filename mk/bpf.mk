# SPDX-License-Identifier: GPL-2.0
#
# Protocol programs (bpf/*.bpf.c) built two ways, their native tests, and
# the `tonic` loader CLI (issue 5).
#
#   $(BUILD)/bpf/NAME.bpf.o       struct_ops object for `tonic prog load`
#   $(BUILD)/progs/NAME.o         the same source, native (ASan/UBSan)
#   $(BUILD)/progs/test_*         native tests against the userspace engine
#   $(BUILD)/progs/tsim           a program on kmod/progs/bpf_sim.h's network
#   $(BUILD)/tonic                CLI: tonic prog load|list|unload|default
#
# vmlinux.h comes from the module's split BTF on top of the kernel's.
# The programs are the TONIC_PROG(NAME) lines of bpf/progs.h.

BPF_DIR := bpf
BPF_PROGS := $(shell sed -n 's/^TONIC_PROG(\([a-z0-9_]*\))$$/\1/p' $(BPF_DIR)/progs.h)
BPF_CLANG ?= clang
BPFTOOL ?= bpftool
BPF_HDRS := $(wildcard $(BPF_DIR)/*.h)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(BUILD)/bpf -I$(BPF_DIR)
BPF_OBJS += $(patsubst %,$(BUILD)/bpf/%.bpf.o,$(BPF_PROGS)) \
	$(BUILD)/bpf/bad_write.bpf.o $(BUILD)/bpf/foreign_kfunc.bpf.o \
	$(BUILD)/bpf/clamped.bpf.o

$(BUILD)/bpf/vmlinux.h: tonic.ko
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file tonic.ko -B $(KDIR)/vmlinux format c > $@.tmp
	@# keep the old file (and its time) when the types did not change
	if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/bpf/%.bpf.o: $(BPF_DIR)/%.bpf.c $(BPF_HDRS) $(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

# Broken programs the VM tests expect the verifier to reject.
$(BUILD)/bpf/%.bpf.o: selftests/progs/%.bpf.c $(BPF_HDRS) $(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

# Native: the programs against the userspace engine, with sanitizers.
# (mk/engine.mk is read after this file: refer to its outputs by path)
PROGS_ENGINE_LIB := $(BUILD)/libtonic_engine_asan.a
PROGS_ENGINE_HDRS := $(wildcard kmod/engine/*.h)
PROGS_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wall -Wextra -Werror \
	-Ikmod/engine -Ikmod -Ikmod/progs -Iuapi -I$(BPF_DIR)
PROGS_NATIVE := $(patsubst %,$(BUILD)/progs/%.o,$(BPF_PROGS))

$(BUILD)/progs/%.o: $(BPF_DIR)/%.bpf.c $(BPF_HDRS) kmod/progs/bpf_query.h $(PROGS_ENGINE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) -c $< -o $@

PROGS_TEST_SRCS := $(sort $(wildcard selftests/progs/test_*.c))
PROGS_TESTS := $(patsubst selftests/progs/%.c,$(BUILD)/progs/%,$(PROGS_TEST_SRCS))
UNIT_TESTS += $(PROGS_TESTS)

$(BUILD)/progs/test_%: selftests/progs/test_%.c selftests/progs/sim.h $(PROGS_NATIVE) $(PROGS_ENGINE_LIB)
	$(CC) $(PROGS_CFLAGS) -Iselftests/progs $< $(PROGS_NATIVE) $(PROGS_ENGINE_LIB) -o $@

unit-build: $(PROGS_TESTS)

# tsim: the native half of selftests/vm/test_bpf_sim.sh.
TSIM := $(BUILD)/progs/tsim
VM_TEST_TOOLS += $(TSIM)

$(TSIM): selftests/progs/tsim.c kmod/progs/bpf_sim.h $(PROGS_NATIVE) $(PROGS_ENGINE_LIB)
	$(CC) $(PROGS_CFLAGS) $< $(PROGS_NATIVE) $(PROGS_ENGINE_LIB) -o $@

vm-tools: $(TSIM)

# The CLI.  Other subcommand families (netlink stats) add their files to
# TONIC_CLI_SRCS, include flags to TONIC_CLI_INC and libraries to
# TONIC_CLI_LIBS in their own fragment,
# and register in userspace/tonic/main.c.
TONIC_CLI := $(BUILD)/tonic
TONIC_CLI_SRCS += userspace/tonic/main.c userspace/tonic/prog.c
TONIC_CLI_LIBS += -lbpf -lelf -lz
USERSPACE_TOOLS += $(TONIC_CLI)

$(TONIC_CLI): $(TONIC_CLI_SRCS) $(wildcard userspace/tonic/*.h) uapi/linux/tonic.h
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -Iuapi -Iuserspace/tonic $(TONIC_CLI_INC) \
		$(sort $(TONIC_CLI_SRCS)) $(TONIC_CLI_LIBS) -o $@

.PHONY: bpf-progs
bpf-progs: $(BPF_OBJS)
