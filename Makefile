# SPDX-License-Identifier: GPL-2.0
#
# rbd: an RDMA block device (LIO fabric rbdt.ko, blk-mq initiator rbdi.ko,
# admin tool rbdadm).
#
# The kernel part is built by Kbuild (see ./Kbuild); this Makefile only
# wraps it and builds the userspace parts and the tests.
#
#   make                 modules, rbdadm and unit tests
#   make KDIR=/path      build against another kernel tree
#   make check           unit tests and the whole guest suite
#   make check T=...     a selection (see Documentation/testing.rst)
#   make check-quick     the quick subset, for the inner loop
#   make check-core      the core set that CI also runs on 6.12
#   make check KERNELS="6.1 6.12"  the suite on each guest kernel in turn
#   make check-unit      unit tests only (plain, ASan and UBSan), and
#                        systemd-analyze verify of rbd-sessions.service
#   make fuzz            libFuzzer harnesses over the validators, FUZZ_SECONDS
#                        each (default 60) or FUZZ_RUNS executions each
#   make check-fuzz      the same for 10 s each, for CI
#   make check-style     checkpatch --strict and sparse over kernel sources
#   make check-debug     the guest suite (T=...) on a debug kernel: KASAN,
#                        lockdep, kmemleak, fault injection (built once, cached)
#   make soak            link flaps, wire cuts, target restarts under fio verify
#                        on two guests, about 3 h per provider (SOAK_*=N to
#                        change counts); Documentation/testing.rst
#   make bench           performance against RNBD, nvme-rdma, SRP, iSER, iSCSI,
#                        NBD (BENCH_QUICK=1: a short run); Documentation/performance.rst
#   make install         modules (+ depmod), rbdadm, targetcli, udev rules,
#                        multipath-tools' rbdi.conf; honours DESTDIR
#   make install-targetcli  only the rbd fabric for targetcli (contrib/targetcli)

# Default kernel tree: the running kernel's build directory when it exists,
# else the newest installed Debian linux-headers-*-amd64.
ifeq ($(origin KDIR),undefined)
KDIR := $(shell d=/lib/modules/$$(uname -r)/build; \
	if [ -d "$$d" ]; then echo "$$d"; \
	else ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n1; fi)
endif

need-kdir = $(if $(KDIR),,$(error no kernel tree found: run scripts/setup.sh \
	(installs linux-headers-amd64) or pass KDIR=))

KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
RBD_CACHE ?= /var/cache/rbd
CHECKPATCH ?= $(RBD_CACHE)/linux-source-6.1/scripts/checkpatch.pl
KSRC := $(shell find drivers include tests/modules -name '*.[ch]' ! -name '*.mod.c' \
	! -name rbd_compat.h 2>/dev/null | sort)
# The one place keyed on the kernel version: checkpatch's objections to
# LINUX_VERSION_CODE itself, to comparing it (CONSTANT_COMPARISON sees two
# constants) and to typedefs that name an older kernel's type as the newer
# one's do not apply there.
KCOMPAT := drivers/rbd_common/rbd_compat.h
KCOMPAT_IGNORE := LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS

# Kbuild makes BTF for modules when the headers carry a vmlinux (Debian's
# 6.12 ones do) and needs pahole for it; without pahole, no BTF.
KBTF := $(if $(shell command -v pahole),,CONFIG_DEBUG_INFO_BTF_MODULES=)

export KDIR KVER

.PHONY: all modules userspace tools unit setup check check-quick check-core check-unit check-schema \
	check-guest check-style check-fuzz fuzz bench soak install install-targetcli install-udev \
	install-multipath uninstall-udev check-debug clean help \
	dkms-source install-dkms check-dkms

all: modules userspace tools unit

help:
	@sed -n '3,31p' Makefile | sed 's/^# \{0,1\}//'

setup:
	scripts/setup.sh

# RBD_FAULT_INJECTION=1 builds the test-only fault counters in (rbdi_fault.c,
# rbdt_fault.c); the guest test targets below set it, "make" alone does not.
RBD_FAULT_INJECTION ?=

modules:
	$(need-kdir)
	@echo "rbd: building modules against $(KDIR) ($(KVER))$(if $(RBD_FAULT_INJECTION), with fault injection)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 $(KBTF) RBD_FAULT_INJECTION=$(RBD_FAULT_INJECTION) modules

userspace:
	$(MAKE) -C userspace/rbdadm

tools:
	$(MAKE) -C tests/tools

unit:
	$(MAKE) -C tests/unit

check-unit: check-schema userspace
	$(MAKE) -C tests/unit check
	tests/host/unit-file.sh

# Coverage-guided fuzzing of include/uapi/rbd/rbd_proto_check.h (tests/fuzz/).
fuzz:
	$(MAKE) -C tests/fuzz run

check-fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=10 FUZZ_RUNS=

# The configfs description: valid against its JSON Schema, and the ABI page
# generated from it is current.
check-schema:
	configfs-schema/configfs_schema.py validate
	configfs-schema/configfs_schema.py check-rst Documentation/configfs-abi.rst

# The guest suite; T selects tests, RBD_TRANSPORTS the soft RDMA providers.
# The tests' modules have the fault counters (the soak's too; the bench
# measures the default build).
# KERNELS: the guest kernels to run them on, in turn (tests/check's
# RBD_GUEST_KERNEL: 6.1 and 6.12; scripts/setup.sh prepares both).
KERNELS ?= 6.1
run-kernels = rc=0; for k in $(KERNELS); do \
	RBD_GUEST_KERNEL=$$k tests/check $(1) || rc=1; done; exit $$rc
check-guest check-quick check-core soak: RBD_FAULT_INJECTION := 1
check-guest: modules userspace tools
	@$(call run-kernels,$(T))

check: check-unit check-guest

check-quick: modules userspace tools
	@$(call run-kernels,quick)

# The core set (tests with CORE=1): what CI runs on the second kernel.
check-core: modules userspace tools
	@$(call run-kernels,core)

# The guest suite on a debug kernel built from linux-source-6.1
# (scripts/build-debug-kernel.sh, cached once); Documentation/testing.rst.
# tests/check builds our modules for that kernel itself, in .build/.
# Not part of "make check": far too slow for CI.
check-debug: userspace tools
	@dir=$$(scripts/build-debug-kernel.sh) && RBD_KERNEL=$$dir tests/check $(T)

# The reliability soak on two guests, both providers, about 3 hours each
# (tests/soak/001, Documentation/testing.rst). Not part of "make check";
# SOAK_* variables (tests/common/soak) change its counts.
soak: modules userspace tools
	tests/check soak

# The performance comparison: one guest, every transport (bench/).
bench: modules userspace tools
	bench/bench.sh

# Fails on any checkpatch or sparse finding.
check-style:
	@test -f $(CHECKPATCH) || { echo "check-style: $(CHECKPATCH) missing; run scripts/setup.sh"; exit 1; }
	@echo "check-style: checkpatch --strict"
	@perl $(CHECKPATCH) --no-tree --strict --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $(KSRC) > .checkpatch.log 2>&1; \
		rc=$$?; perl $(CHECKPATCH) --no-tree --strict --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,$(KCOMPAT_IGNORE) \
		-f $(KCOMPAT) >> .checkpatch.log 2>&1 || rc=1; \
		cat .checkpatch.log; rm -f .checkpatch.log; \
		if [ $$rc -ne 0 ]; then echo "check-style: checkpatch found problems"; exit 1; fi
	@echo "check-style: sparse (C=2)"
	@$(MAKE) -s -C $(KDIR) M=$(CURDIR) C=2 W=1 $(KBTF) RBD_FAULT_INJECTION=1 modules > .sparse.log 2>&1; \
		rc=$$?; grep -E '(warning|error):' .sparse.log > .sparse.find; \
		cat .sparse.find; n=$$(wc -l < .sparse.find); rm -f .sparse.log .sparse.find; \
		if [ $$rc -ne 0 ] || [ $$n -ne 0 ]; then echo "check-style: sparse/W=1 found $$n problems"; exit 1; fi
	@echo "check-style: clean"

# The source DKMS builds from: kernel sources and build files only.
DKMS_SRC ?= $(DESTDIR)/usr/src/rbd-$(shell cat VERSION)
dkms-source:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r Kbuild VERSION dkms.conf $(DKMS_SRC)/
	mkdir -p $(DKMS_SRC)/drivers $(DKMS_SRC)/include
	cp -r include/uapi $(DKMS_SRC)/include/
	for d in rbd_fabric rbd_ini rbd_common; do \
		mkdir -p $(DKMS_SRC)/drivers/$$d; \
		find drivers/$$d -maxdepth 1 \( -name Kbuild -o -name '*.mk' -o -name '*.[ch]' \) \
			! -name '*.mod.c' -exec cp {} $(DKMS_SRC)/drivers/$$d/ \; ; \
	done

# Register with DKMS so the modules are rebuilt on every kernel upgrade.
install-dkms: dkms-source
	dkms install -m rbd -v $(shell cat VERSION)

check-dkms:
	tests/host/dkms.sh

install: modules userspace
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=extra \
		INSTALL_MOD_STRIP=1 modules_install
	@if [ -z "$(DESTDIR)" ]; then depmod $(KVER); \
	else echo "install: staged in $(DESTDIR); run depmod $(KVER) on the target system"; fi
	$(MAKE) -C userspace/rbdadm install DESTDIR=$(DESTDIR)
	$(MAKE) install-targetcli
	$(MAKE) install-udev
	$(MAKE) install-multipath

# Persistent /dev/disk/by-id and by-path names for /dev/rbdiN.
UDEVRULESDIR ?= /lib/udev/rules.d
install-udev:
	install -D -m 0644 udev/60-rbdi.rules $(DESTDIR)$(UDEVRULESDIR)/60-rbdi.rules
	@if [ -z "$(DESTDIR)" ] && udevadm control --ping 2>/dev/null; then \
		udevadm control --reload; fi

uninstall-udev:
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-rbdi.rules

# Lets multipath-tools take rbdi disks (Documentation/admin-guide.rst,
# "Multipath"). A file the admin may have edited is kept.
MULTIPATHCONFDIR ?= /etc/multipath/conf.d
install-multipath:
	@if [ -e $(DESTDIR)$(MULTIPATHCONFDIR)/rbdi.conf ]; then \
		echo "install: keeping $(DESTDIR)$(MULTIPATHCONFDIR)/rbdi.conf"; \
	else install -D -m 0644 contrib/multipath/rbdi.conf \
		$(DESTDIR)$(MULTIPATHCONFDIR)/rbdi.conf; fi

# Python only: writes nothing into the source tree, so it also runs from a
# read-only checkout (the guest tests do). Uninstall: make -C
# contrib/targetcli uninstall [DESTDIR=...].
install-targetcli:
	$(MAKE) -C contrib/targetcli install DESTDIR=$(DESTDIR)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace/rbdadm clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/fuzz clean
	$(MAKE) -C tests/tools clean
	rm -rf results .build
