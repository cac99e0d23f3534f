# SPDX-License-Identifier: GPL-2.0
#
# Installing, as any out-of-tree module:
#
#   make install [DESTDIR=] [PREFIX=/usr/local]    tonic.ko for $(KVER) under
#	/lib/modules/$(KVER)/updates, depmod; the CLI and its man page; the
#	protocol programs under $(PREFIX)/lib/tonic/bpf (`tonic prog load
#	irn` finds them by name); the uapi headers
#   make uninstall [DESTDIR=] [PREFIX=]             removes all of it
#   make dkms-install / dkms-uninstall               the module's sources
#	under /usr/src/tonic-VERSION, built by DKMS for every kernel
#
# DKMS_ARGS passes options to dkms (the tests use scratch trees).

PREFIX ?= /usr/local
TONIC_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
INST_MOD := /lib/modules/$(KVER)/updates
INST_BIN := $(PREFIX)/sbin
INST_MAN := $(PREFIX)/share/man/man8
INST_BPF := $(PREFIX)/lib/tonic/bpf
INST_INC := $(PREFIX)/include/linux
INST_SRC := /usr/src/tonic-$(TONIC_VERSION)
UAPI_HDRS := uapi/linux/tonic.h uapi/linux/tonic_netlink.h
# What DKMS needs to build tonic.ko: Kbuild and the sources it names.
DKMS_FILES := dkms.conf Kbuild $(wildcard kmod/*.[ch] kmod/*/*.[ch]) \
	kmod/engine/sources.mk $(UAPI_HDRS) bpf/rack.bpf.c bpf/tonic_prog.h

install: install-module install-utils

# tonic.ko for $(KVER), as `modprobe tonic` finds it.
install-module: tonic.ko
	install -D -m 0644 tonic.ko $(DESTDIR)$(INST_MOD)/tonic.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# What does not depend on the running kernel (Debian's tonic-utils).
install-utils: $(TONIC_CLI) $(BPF_OBJS)
	install -D -m 0755 $(TONIC_CLI) $(DESTDIR)$(INST_BIN)/tonic
	install -D -m 0644 userspace/tonic/tonic.8 $(DESTDIR)$(INST_MAN)/tonic.8
	install -d $(DESTDIR)$(INST_BPF) $(DESTDIR)$(INST_INC)
	install -m 0644 $(patsubst %,$(BUILD)/bpf/%.bpf.o,$(BPF_PROGS)) $(DESTDIR)$(INST_BPF)
	install -m 0644 $(UAPI_HDRS) $(DESTDIR)$(INST_INC)

uninstall:
	rm -f $(DESTDIR)$(INST_MOD)/tonic.ko $(DESTDIR)$(INST_BIN)/tonic \
		$(DESTDIR)$(INST_MAN)/tonic.8 \
		$(patsubst %,$(DESTDIR)$(INST_BPF)/%.bpf.o,$(BPF_PROGS)) \
		$(patsubst uapi/linux/%,$(DESTDIR)$(INST_INC)/%,$(UAPI_HDRS))
	-rmdir $(DESTDIR)$(INST_BPF) $(DESTDIR)$(PREFIX)/lib/tonic 2>/dev/null
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# The module's sources where DKMS takes them (Debian's tonic-dkms).
install-dkms-src:
	rm -rf $(DESTDIR)$(INST_SRC)
	for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DESTDIR)$(INST_SRC)/$$f; done

dkms-install: install-dkms-src
	dkms $(DKMS_ARGS) add -m tonic -v $(TONIC_VERSION)
	dkms $(DKMS_ARGS) build -m tonic -v $(TONIC_VERSION) -k $(KVER)
	dkms $(DKMS_ARGS) install -m tonic -v $(TONIC_VERSION) -k $(KVER)

dkms-uninstall:
	-dkms $(DKMS_ARGS) remove -m tonic -v $(TONIC_VERSION) --all
	rm -rf $(DESTDIR)$(INST_SRC)

.PHONY: install install-module install-utils install-dkms-src uninstall \
	dkms-install dkms-uninstall

# The kernel the module is built for (the install test asks), and the
# files a module build needs (scripts/compat.sh copies them).
print-kver:
	@echo $(KVER)

print-dkms-files:
	@echo $(DKMS_FILES)

# tonic.ko against every installed kernel's headers and the newest
# Debian kernel's (installed if missing).
compat:
	./scripts/compat.sh

# The same, then the socket selftests in the VM booted on the newest kernel.
compat-boot: all
	./scripts/compat.sh --boot

UNIT_TESTS += selftests/unit/test_install.sh selftests/unit/test_deb.sh \
	selftests/unit/test_nodccp.sh
.PHONY: print-kver print-dkms-files compat compat-boot
