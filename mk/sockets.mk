# SPDX-License-Identifier: GPL-2.0
# Socket-layer test tools run inside the VM (selftests/vm/test_sock_*.sh).

SOCK_TOOLS := $(BUILD)/selftests/tonic_xfer
VM_TEST_TOOLS += $(SOCK_TOOLS)

$(BUILD)/selftests/tonic_xfer: selftests/vm/tonic_xfer.c selftests/vm/sha256.h uapi/linux/tonic.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -o $@ $<

vm-tools: $(SOCK_TOOLS)
.PHONY: vm-tools
