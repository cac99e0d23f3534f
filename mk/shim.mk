# SPDX-License-Identifier: GPL-2.0
#
# `tonic run` and `tonic offload` (issue 16): the CLI's cgroup shim.
# userspace/tonic/shim.bpf.c is not a protocol program (bpf/progs.h does
# not list it); its object is embedded in the CLI (shim_obj.S) so that
# the tool works from any directory.

SHIM_OBJ := $(BUILD)/bpf/shim.bpf.o
TONIC_CLI_SRCS += userspace/tonic/run.c userspace/tonic/offload.c \
	userspace/tonic/shim_obj.S
TONIC_CLI_INC += -DSHIM_OBJ='"$(SHIM_OBJ)"'
BPF_OBJS += $(SHIM_OBJ)

$(SHIM_OBJ): userspace/tonic/shim.bpf.c $(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(TONIC_CLI): $(SHIM_OBJ)
