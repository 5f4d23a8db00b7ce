# SPDX-License-Identifier: GPL-2.0
# robust_list2: the user entry point.  kbuild never reads this file (it
# reads Kbuild).  Every target honours KERNELRELEASE, KDIR, PREFIX,
# DESTDIR and V=1; WERROR=1 turns warnings into errors (CI).
VERSION       := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
KERNELRELEASE ?= $(shell uname -r)
KDIR          ?= /lib/modules/$(KERNELRELEASE)/build
PREFIX        ?= /usr/local
KERNEL        ?=
export V WERROR PREFIX DESTDIR

ifeq ($(WERROR),1)
KBUILD_WERROR := KCFLAGS=-Werror
endif

# Without headers for the kernel, `make` still builds the library and says
# in one line what is missing; `make module` fails.
HAVE_KDIR := $(wildcard $(KDIR)/Makefile)
NO_KDIR_MSG := no kernel headers in $(KDIR): the module is not built. \
	Install linux-headers-$(KERNELRELEASE), or build for another kernel with \
	make KERNELRELEASE=<release> (scripts/fetch-kernel <alias> gets the test kernels)

# `make`: the module and the library only; the tests are built by the
# targets that run them (check-host, check-vm), or all at once by `make tests`.
all: lib $(if $(HAVE_KDIR),module,no-module) ## the module (if KDIR has headers) and the library

# make help: the "## " text of every target of this file, in order.
help: ## this list: every target with one line
	@sed -n 's/^\([a-z0-9-]*\):.*## \(.*\)/\1|\2/p' Makefile | \
		awk -F'|' '{ printf "  %-16s %s\n", $$1, $$2 }'

# Everything built goes to build/ (git status stays clean).  kbuild writes
# its objects next to the sources of M= on every kernel we support (MO=, a
# separate output directory, came only in 6.13), so the module's sources are
# copied to build/module/ (a changed file only, so make rebuilds what
# changed) and kbuild runs there: build/module/robust_list2.ko.
MOD_OUT  := $(CURDIR)/build/module
MOD_SRCS := Kbuild dkms.conf $(wildcard module/*.c module/*.h module/*.S uapi/linux/*.h)

$(MOD_OUT)/%: %
	@mkdir -p $(dir $@)
	cp $< $@

module: $(addprefix $(MOD_OUT)/,$(MOD_SRCS)) ## the kernel module for KERNELRELEASE (KDIR), in build/module/
	$(if $(HAVE_KDIR),,$(error $(NO_KDIR_MSG)))
	$(MAKE) -C $(KDIR) M=$(MOD_OUT) $(KBUILD_WERROR) modules

no-module: ## say why the module is not built (no headers in KDIR)
	@echo "make: $(NO_KDIR_MSG)"

# make lib: build/libshim/; make lib ARCH=arm64: the aarch64 library in
# build/arm64/libshim/; make lib NATIVE=6.12-native: the library that calls
# the system calls of kernel-series/ (built against that kernel's headers),
# in build/native/libshim/ (with M32=1: build/native/m32/libshim/), for tests
# only: never packaged or installed from there
lib: ## librobust_list2 (.a, .so, .pc) in build/libshim/; ARCH=arm64: the aarch64 one
	$(MAKE) -C libshim $(if $(filter arm64,$(ARCH)),ARCH=arm64)

tests: lib ## every test program and the robust-list2 tool
	$(MAKE) -C tests
	$(MAKE) -C tools

# The FEX-style demo in a VM: an emulator with a 64-bit and a 32-bit list
# is SIGKILLed while another process waits on all its locks.
# On an arm64 kernel (KERNEL=arm64-6.12) it is cross-built: FEX's own platform.
DEMO_KERNEL ?= 6.12
DEMO_K      = $(or $(KERNEL),$(DEMO_KERNEL))
DEMO_ARM64  = $(filter arm64-%,$(DEMO_K))
DEMO_CC     = $(if $(DEMO_ARM64),$(shell scripts/toolchain arm64),$(CC))
DEMO_DIR    = build$(if $(DEMO_ARM64),/arm64)
demo: deps lib ## the FEX-style demo in a VM (KERNEL=6.12, or arm64-6.12)
	@mkdir -p $(DEMO_DIR)
	$(if $(DEMO_ARM64),$(MAKE) -s -C libshim ARCH=arm64)
	$(DEMO_CC) -O2 -Wall -Wextra $(if $(WERROR),-Werror) -Iuapi -Ilibshim/include -pthread \
		-o $(DEMO_DIR)/fex_demo examples/fex_demo.c $(DEMO_DIR)/libshim/librobust_list2.a
	scripts/vm-run --kernel $(DEMO_K) -- $(DEMO_DIR)/fex_demo

# Everything, on every kernel of the default matrix (scripts/kernels.conf):
# the host checks, the Debian packages built and tested with apt, the VM
# suite, plus a VM run on Debian 13's amd64 and arm64 kernels with the module
# DKMS built there from the packages, qemu-user with the integration
# patch (check-emulator, its default kernels), and the quick start on a
# Debian 13 host (check-trixie-host).  The installs and what boots a VM run
# as lanes of one check-vm, two at a time: the Debian 13 arm64 install
# (check-deb's VM), the Debian 12 and 13 amd64 installs (chroots), the
# Debian 13 host, every kernel, the emulators (tests/README.md, "Time").
check: deps check-host ## everything: host checks, packages, VM suites, emulator
	scripts/build-deb
	$(if $(filter no,$(ARM64_DEB)),RL2_DEB_ARM64=no scripts/check-deb,scripts/build-deb arm64)
	scripts/deps --qemu
	$(MAKE) check-vm \
		$(if $(filter no,$(ARM64_DEB)),DEB_KERNEL=6.12-trixie,DEB_INSTALL_KERNEL="6.12-trixie arm64-6.12-trixie") \
		EMULATOR="$(EMULATOR_KERNEL)" TRIXIE_HOST="$(TRIXIE_HOST_KERNEL)"
	$(MAKE) demo

deps: ## install the host packages the build and tests need (scripts/deps)
	scripts/deps

# Host only, no VM: layouts for every ABI, the library against a mocked
# seam, the harness's own tests, docs against the header, packaging, and the
# module built for each kernel; "host: P passed, F failed, S skipped".
check-host: lib ## host-only checks, no VM: layouts, library, docs, packaging
	$(MAKE) -C tests host
	scripts/check-host $(KERNEL)

# The cmocka suites inside QEMU: make check-vm [KERNEL="6.1 6.12"]
# [DEB_KERNEL="6.12-trixie ...": one more run on each with the module DKMS
# built from the packages (scripts/check-deb)] [DEB_INSTALL_KERNEL=...: the
# same after check-deb installs them, in the lane] [EMULATOR="6.12 ...":
# check-emulator on each, as lanes] [TRIXIE_HOST=6.12: check-trixie-host
# on it, as a lane]
check-vm: lib ## the test suites in QEMU: [KERNEL="6.1 6.12"] [DEB_KERNEL=6.12-trixie]
	$(MAKE) -C tests vm
	$(MAKE) -C tools
	$(if $(filter arm64-%,$(or $(KERNEL),arm64-) $(DEB_KERNEL) $(DEB_INSTALL_KERNEL)),$(MAKE) -C tests arm64 armhf)
	$(if $(EMULATOR),scripts/deps --qemu)
	RL2_QEMU_USER=$(QEMU_USER) scripts/check-vm $(foreach k,$(DEB_KERNEL),--deb $(k)) \
		$(foreach k,$(DEB_INSTALL_KERNEL),--deb-install $(k)) \
		$(foreach k,$(EMULATOR),--emulator $(k)) $(foreach k,$(TRIXIE_HOST),--trixie-host $(k)) $(KERNEL)

# The Debian packages (debian/), built with dpkg-buildpackage on a copy of the
# tree and checked by lintian, into build/deb/: the dkms package (all) and
# the amd64 ones; make deb ARCH=arm64 (or armhf): that architecture's,
# cross-built in a chroot (root).
deb: ## the Debian packages, into build/deb/ (ARCH=arm64, armhf: cross-built)
	scripts/build-deb $(ARCH)

# The packages installed with apt on clean Debian 12 and 13 amd64 chroots and
# a Debian 13 arm64 VM (root; boots a VM): an upgrade from the previous
# release, DKMS builds and signs the module for each release's kernels, a
# pkg-config consumer, a clean purge (scripts/check-deb).
# ARM64_DEB=no (here and in make check): without the Debian 13 arm64 system,
# the slowest part (its VM: two DKMS builds under TCG).
check-deb: ## the packages installed with apt on Debian 12/13 amd64, 13 arm64 (root)
	scripts/build-deb
	$(if $(filter arm64-%-trixie,$(or $(KERNEL),$(if $(filter no,$(ARM64_DEB)),,arm64--trixie))),scripts/build-deb arm64)
	RL2_DEB_ARM64=$(or $(ARM64_DEB),yes) scripts/check-deb $(KERNEL)

# The debug kernels we build ourselves (scripts/build-debug-kernel, cached in
# ~/.cache/robust_list2; each first build takes 15-25 min on 2 idle cores):
# 6.12-debug (KASAN, lockdep, UBSAN, KFENCE, KCOV, GCOV) and 6.12-kcsan.
# make check-debug runs on them: the VM suite (as check-vm) on 6.12-debug,
# make coverage, a short make fuzz (CHECK_FUZZ_S, at least 60 s) and make
# check-kcsan.  Not part of `make check` (tests/README.md has the times).
DEBUG_KERNEL ?= 6.12-debug
KCSAN_KERNEL ?= 6.12-kcsan
DEBUG_TIMEOUT ?= 3600
DEBUG_TEST_TIMEOUT ?= 600
CHECK_FUZZ_S ?= 60
FUZZ_S ?= 180
check-debug: lib ## the VM suite, coverage, fuzz and KCSAN on kernels we build (slow)
	scripts/deps --debug
	$(MAKE) -C tests vm fuzz
	$(MAKE) -C tools
	scripts/build-debug-kernel $(DEBUG_KERNEL)
	scripts/build-debug-kernel $(KCSAN_KERNEL)
	TIMEOUT=$(DEBUG_TIMEOUT) TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) scripts/check-vm $(DEBUG_KERNEL)
	DEBUG_TIMEOUT=$(DEBUG_TIMEOUT) DEBUG_TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) scripts/coverage $(DEBUG_KERNEL)
	FUZZ_S=$(CHECK_FUZZ_S) scripts/fuzz $(DEBUG_KERNEL)
	$(MAKE) check-kcsan FUZZ_S=$(CHECK_FUZZ_S)

# Line and branch coverage of module/ by the whole VM suite (both ABIs, the
# fault-injection VMs) on 6.12-debug: "coverage: module/ L% lines (a of b),
# B% branches", the report in build/coverage/ (scripts/coverage).
coverage: lib ## line and branch coverage of module/ by the VM suite (debug kernel)
	scripts/deps --debug
	$(MAKE) -C tests vm
	$(MAKE) -C tools
	scripts/build-debug-kernel $(DEBUG_KERNEL)
	DEBUG_TIMEOUT=$(DEBUG_TIMEOUT) DEBUG_TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) scripts/coverage $(DEBUG_KERNEL)

# The coverage-guided fuzzer (libFuzzer fed by KCOV, tests/fuzz/) for
# FUZZ_S seconds on FUZZ_KERNEL: "fuzz: E execs (R/s), P features, module
# edges N, fuse stalls F, crashes C" (scripts/fuzz).  FUZZ_PLANT=MASK
# plants a bug to find.
FUZZ_KERNEL ?= $(DEBUG_KERNEL)
fuzz: lib ## the coverage-guided fuzzer, FUZZ_S seconds (debug kernel)
	scripts/deps --debug
	$(MAKE) -C tests fuzz
	scripts/build-debug-kernel $(FUZZ_KERNEL)
	FUZZ_S=$(FUZZ_S) scripts/fuzz $(if $(FUZZ_PLANT),--plant $(FUZZ_PLANT)) $(FUZZ_KERNEL)

# Data races: the VM suite and the fuzzer on the KCSAN kernel; a report
# naming robust_list2 fails, the others are listed ("KCSAN outside the
# module") and excused (tests/qemu/init.sh).
check-kcsan: lib ## the VM suite and the fuzzer on the KCSAN kernel
	scripts/deps --debug
	$(MAKE) -C tests vm fuzz
	$(MAKE) -C tools
	scripts/build-debug-kernel $(KCSAN_KERNEL)
	TIMEOUT=$(DEBUG_TIMEOUT) TEST_TIMEOUT=$(DEBUG_TEST_TIMEOUT) scripts/check-vm $(KCSAN_KERNEL)
	FUZZ_S=$(FUZZ_S) scripts/fuzz $(KCSAN_KERNEL)

# The VM suite on 6.12-native, a kernel we build with the set_robust_list2()
# series of kernel-series/ (scripts/build-native-kernel, cached like the
# debug kernels), booted without the module, with the library built against
# its headers (NATIVE=): "6.12-native: P passed, F failed, S skipped".  Not
# part of `make check` (tests/README.md has the times).
NATIVE_KERNEL ?= 6.12-native
check-native: deps ## the VM suite on our kernel with the set_robust_list2() series, no module
	scripts/check-native $(NATIVE_KERNEL)

# qemu-user's guests with robust mutexes (integrations/qemu-user/): builds a
# patched qemu-i386 and qemu-x86_64 10.2 (QEMU_USER=10.0: 10.0) from Debian's
# source for amd64 and for arm64 (cached), then one VM per kernel runs an i386
# and an x86_64 guest under them and, as the control, under Debian 13's
# qemu-user.  make check-emulator [KERNEL="6.1 arm64-6.1"], by default on
# 6.12 for x86-64 and for arm64 (EMULATOR_KERNEL); times in
# integrations/qemu-user/README.md.
EMULATOR_KERNEL ?= 6.12 arm64-6.12
check-emulator: lib ## qemu-user with robust mutexes through the module (VMs)
	scripts/deps --qemu
	RL2_QEMU_USER=$(QEMU_USER) scripts/check-emulator $(or $(KERNEL),$(EMULATOR_KERNEL))

# The README's quick start on a Debian 13 (trixie) host: make demo and
# make check-vm KERNEL=6.12 (TRIXIE_HOST_KERNEL) as root in a clone of the
# tree inside a trixie root under the cache (scripts/check-trixie-host);
# "trixie host: P passed, F failed".  make check runs it as a lane.
TRIXIE_HOST_KERNEL ?= 6.12
check-trixie-host: ## the quick start (make demo, a VM suite) on a Debian 13 root (root; VMs)
	scripts/check-trixie-host $(or $(KERNEL),$(TRIXIE_HOST_KERNEL))

# Benchmarks in QEMU against the kernel's own robust list (bench/README.md):
# make bench [KERNEL="6.1 6.12"], default 6.12; output in build/bench/<kernel>/
bench: lib ## benchmarks in QEMU against the kernel's own robust list
	scripts/bench $(KERNEL)

# The module goes where kbuild's modules_install puts an external module
# (updates/ since 6.4, extra/ before), under DESTDIR if given.
MODULE_DIR := $(DESTDIR)/lib/modules/$(KERNELRELEASE)
install: modules-load ## install the module for KERNELRELEASE, loaded at boot
	$(MAKE) -C $(KDIR) M=$(MOD_OUT) $(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	$(if $(DESTDIR),,depmod -a $(KERNELRELEASE))

install-lib: lib ## install the library, headers, .pc and man pages under PREFIX
	$(MAKE) -C libshim install

install-tools: lib ## install robust-list2(1) and its man page under PREFIX
	$(MAKE) -C tools install

install-headers: ## install the two headers only, under PREFIX
	install -d $(DESTDIR)$(PREFIX)/include/linux
	install -m 644 uapi/linux/robust_list2.h $(DESTDIR)$(PREFIX)/include/linux/
	install -m 644 libshim/include/robust_list2.h $(DESTDIR)$(PREFIX)/include/

DKMS_SRC := $(DESTDIR)/usr/src/robust_list2-$(VERSION)
MODULES_LOAD := $(DESTDIR)/etc/modules-load.d/robust_list2.conf

# The sources DKMS builds from: exactly these files, no build output and
# nothing of the tests (scripts/check-dkms checks the list: not the VM
# tests' fault injection, module/fault_inject.c); the tree's
# Makefile is module/Makefile.dkms, which only calls kbuild.
dkms-source: ## copy the module's sources to /usr/src/robust_list2-VERSION
	install -d $(DKMS_SRC)/module $(DKMS_SRC)/uapi/linux
	install -m 644 dkms.conf Kbuild $(DKMS_SRC)/
	install -m 644 module/Makefile.dkms $(DKMS_SRC)/Makefile
	install -m 644 $(filter-out module/fault_inject.c,$(wildcard module/*.c)) module/*.h module/*.S \
		$(DKMS_SRC)/module/
	install -m 644 uapi/linux/*.h $(DKMS_SRC)/uapi/linux/

# Load at boot: modules-load.d (the misc minor is dynamic, so there is no
# devname alias for on-demand loading); /dev/robust_list2 is created 0666
# by the module itself.
modules-load: ## /etc/modules-load.d/robust_list2.conf: load at boot
	install -d $(dir $(MODULES_LOAD))
	echo robust_list2 > $(MODULES_LOAD)

dkms-install: dkms-source modules-load ## add, build, install with DKMS (rebuilt for new kernels)
	dkms add -m robust_list2 -v $(VERSION)
	dkms build -m robust_list2 -v $(VERSION) -k $(KERNELRELEASE)
	dkms install -m robust_list2 -v $(VERSION) -k $(KERNELRELEASE)

# Without DESTDIR, dkms removes what it built and installed; with one, only
# the staged files go (DKMS's own tree is not under DESTDIR).
dkms-uninstall: ## remove the DKMS module, its sources, the modules-load.d entry
	$(if $(DESTDIR),,-command -v dkms >/dev/null && dkms remove robust_list2/$(VERSION) --all)
	rm -rf $(DKMS_SRC) $(MODULES_LOAD)

# Everything install, install-lib, install-tools, install-headers and
# dkms-install put, for the same PREFIX, DESTDIR and KERNELRELEASE;
# tests/host/t_uninstall.sh checks that nothing is left.
uninstall: dkms-uninstall ## remove all that the install targets put, DKMS or not
	rm -f $(MODULE_DIR)/updates/robust_list2.ko* $(MODULE_DIR)/extra/robust_list2.ko*
	$(if $(DESTDIR),,-depmod -a $(KERNELRELEASE) 2>/dev/null)
	$(MAKE) -C libshim uninstall
	$(MAKE) -C tools uninstall

# The kernel's checkpatch.pl --strict on module/ (scripts/checkpatch says where
# it comes from and why clang-format is not a gate); also run by check-host.
style: ## checkpatch.pl --strict on module/
	scripts/checkpatch

check-docs: ## docs against the code; no run logs, length limits, the env table
	scripts/check-docs

clean: ## remove the build output: build/
	rm -rf build

.PHONY: demo all help module no-module lib tests check deps check-host check-vm deb check-deb check-debug check-native \
	check-emulator check-trixie-host coverage fuzz check-kcsan bench install install-lib \
	install-headers install-tools dkms-source modules-load dkms-install dkms-uninstall uninstall \
	style check-docs clean
