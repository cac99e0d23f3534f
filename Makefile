# SPDX-License-Identifier: GPL-2.0
#
# Developer targets for Tonic for Linux. The module itself is described by
# ./Kbuild; everything else (userspace, BPF, tests) is built from mk/*.mk.
#
#   make            build tonic.ko, BPF objects and userspace tools
#   make deps       install what the project needs (Debian 12, root)
#   make check      install, build, run every test, print the summary
#   make soak       the long fault matrix (every program, more paths)
#   make demo       install, build, run the demo in a VM
#   make checkpatch run the kernel's checkpatch.pl on kernel and BPF code

KVER ?= $(shell ls /boot 2>/dev/null | sed -n 's/^vmlinuz-\(6\.12\..*\)/\1/p' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := build
CC ?= gcc
CHECKPATCH := /usr/src/linux-source-6.12/scripts/checkpatch.pl

# Filled in by the fragments below.
UNIT_TESTS :=
VM_TEST_TOOLS :=
USERSPACE_TOOLS :=
BPF_OBJS :=

all: module

include $(sort $(wildcard mk/*.mk))

all: $(USERSPACE_TOOLS) $(BPF_OBJS) vm-tools unit-build

deps:
	@./scripts/deps.sh

# One rule runs kbuild, so parallel makes never build the module twice at once.
# The built-in rack is bpf/rack.bpf.c compiled in (kmod/progs/builtin_rack.c).
TONIC_KO_DEPS := Kbuild kmod/engine/sources.mk bpf/rack.bpf.c \
	$(wildcard kmod/*.[ch] kmod/*/*.[ch] bpf/*.h uapi/linux/*.h)

module: tonic.ko

tonic.ko: $(TONIC_KO_DEPS)
	@test -n "$(KVER)" || { echo "no 6.12 kernel installed: run make deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

vm-tools unit-build:

# The two README commands install what is missing first, then build.
check: deps
	$(MAKE) all
	./scripts/check.sh $(UNIT_TESTS)

# The long fault matrix (every program, more loss rates and delays).
soak: deps
	$(MAKE) all
	TONIC_SOAK=1 TONIC_TEST_TIMEOUT=5400 TONIC_VM_TIMEOUT=6000 \
		TONIC_VM_TESTS=selftests/vm/test_sock_faults.sh ./scripts/check.sh

demo: deps
	$(MAKE) all
	./scripts/vm-run.sh --timeout 900 -- ./scripts/demo.sh

# VOLATILE: BPF rodata knobs must be `const volatile` for libbpf to set them.
# MACRO_ARG_UNUSED: an expansion of an X-macro list (kmod/ctl/mib.h,
# kmod/ctl/settings.h) takes every column and uses those it needs.
checkpatch:
	@{ find kmod bpf uapi -name '*.[ch]' ! -name '*.mod.c' ! -name 'vmlinux.h'; echo userspace/tonic/shim.bpf.c; } | sort | \
		xargs $(CHECKPATCH) --no-tree --quiet --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,VOLATILE,MACRO_ARG_UNUSED -f

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)

.PHONY: all deps module check soak demo checkpatch clean vm-tools unit-build
