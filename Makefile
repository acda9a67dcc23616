# SPDX-License-Identifier: GPL-2.0
#
# perfctr: virtual per-process performance counters for Linux 6.12.
#
#   make demo      build everything, boot it in QEMU, run perfex on examples;
#                  then on QEMU's x86 PMU model (scripts/qemu/), Intel and
#                  AMD, perfex counts a known loop to the instruction
#   make demo ARCH=arm64
#                  the same on arm64, whose emulated PMU counts exactly:
#                  perfex counts a known loop to the instruction
#   make check     every test: host, KUnit and kselftests on a debug kernel,
#                  checkpatch, W=1, kunit.py, and a CONFIG_PERFCTR=n kernel;
#                  among the kselftests, short runs with fixed seeds of the
#                  fuzzer (vperfctr_fuzz) and of the race stress
#                  (vperfctr_stress), on x86 and on arm64
#   make stress    the race stress and the fuzzer at once, on the debug
#                  kernel in QEMU, for STRESS_SECONDS (default 60) with
#                  STRESS_SEED (default: random, printed; give it again to
#                  replay a run); fails on any violation or kernel report
#   make stress ARCH=arm64
#                  the same on the arm64 debug kernel, two CPUs, no PMU
#   make selftests the ABI selftests alone (vperfctr_*_test, built by
#                  their kselftest Makefile) on the debug kernel in QEMU,
#                  without KUnit; fails on any failed test or kernel report
#   make selftests ARCH=arm64
#                  the same on the arm64 debug kernel, two CPUs, no PMU
#   make run       boot the demo kernel with an interactive shell
#   make bench     perfctr's costs next to perf's, measured in QEMU: ratios
#   make bench ARCH=arm64
#                  the same in exact instructions, on a kernel without the
#                  debug options, on the arm64 virt machine under
#                  -icount shift=0, with the targets each figure must meet;
#                  and the code regions' markers next to PAPI's
#   make bench-host
#                  the library's fast reads on this machine, in TSC ticks,
#                  next to a bare rdtsc (no perfctr kernel needed)
#   make profile-arm64 [PROFILE=pp|fork]
#                  where the bench kernel spends a pipe round trip's (or
#                  a fork's) instructions, per function, with counters
#                  and without, on the arm64 icount machine
#   make patch     the git am-able patch series, in $(O)/patches; needs
#                  only git, xz and the kernel tarball (or KERNEL_SRC)
#   make series-build
#                  apply the series one patch at a time and build each,
#                  x86-64 and arm64, CONFIG_PERFCTR=n and =y
#   make kunit     the KUnit suites with the kernel's kunit.py and our
#                  .kunitconfig files, on x86-64 in QEMU; make kunit
#                  ARCH=arm64 on arm64, cross-built
#   make host-test the library's and perfex's unit tests, on the host
#   make clean     remove build products, keep the unpacked kernel source
#   make distclean remove $(O) entirely
#
# Variables: O=DIR (build directory, default ./build), KERNEL_SRC=DIR (your
# own Linux 6.12 tree instead of Debian's linux-source-6.12, only read: a
# copy of it is patched and built, brought up to date when it changes),
# JOBS=N (parallel jobs, default: number of CPUs), STRESS_SECONDS and
# STRESS_SEED (make stress), KUNIT_TIMEOUT (make kunit: seconds for the
# tests' run, default 300).

TOP		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
O		?= $(TOP)/build
override O	:= $(abspath $(O))
JOBS		?= $(shell nproc)
TARBALL		:= /usr/src/linux-source-6.12.tar.xz
QEMU_TIMEOUT	?= 600

ifneq ($(KERNEL_SRC),)
PRISTINE	:= $(abspath $(KERNEL_SRC))
ifeq ($(wildcard $(PRISTINE)/Makefile),)
$(error KERNEL_SRC=$(KERNEL_SRC) is not a kernel source tree: no Makefile there)
endif
else
PRISTINE	:= $(O)/linux-pristine
endif
TREE		:= $(O)/linux
SERIES		:= $(O)/series
KDEMO		:= $(O)/kernel-demo
KDEBUG		:= $(O)/kernel-debug
KNOPC		:= $(O)/kernel-noperfctr
KARM64		:= $(O)/kernel-arm64
KARM64_BENCH	:= $(O)/kernel-arm64-bench
KX86_BENCH	:= $(O)/kernel-x86-bench
USER		:= $(O)/user
USER_ARM64	:= $(O)/user-arm64
SELFTESTS	:= $(O)/selftests
SELFTESTS_ARM64	:= $(O)/selftests-arm64
ARM64_CROSS	:= aarch64-linux-gnu-
CONFIGS		:= $(TOP)/scripts/configs
KMAKE		= $(MAKE) -s -C $(TREE) -j$(JOBS)

export O

# The Debian packages, by what needs them (scripts/install-deps): each
# target asks for its groups, make patch for none; make deps installs all.
DEPS		:= source user kernel qemu arm64 qemu-arm64 arm64-guest man

.PHONY: all demo run check patch patch-check clean distclean deps tree \
	kernel-demo kernel-debug kernel-noperfctr user host-test checkpatch \
	w1 initramfs-demo initramfs-check install initramfs-bench bench \
	initramfs-bench-arm64 bench-arm64 region-bench-arm64 bench-host \
	profile-arm64 \
	kernel-arm64 kernel-arm64-bench kernel-x86-bench user-arm64 initramfs-arm64 \
	demo-arm64 w1-arm64 \
	stress initramfs-stress stress-x86 stress-arm64 kunit \
	user-selftests user-selftests-arm64 selftests initramfs-selftests \
	selftests-x86 selftests-arm64 series-build qemu-x86-pmu pmu-model-test initramfs-pmu \
	native-test \
	$(addprefix deps-,$(DEPS))

all: kernel-demo user

deps:
	@$(TOP)/scripts/install-deps

$(addprefix deps-,$(DEPS)):
	@$(TOP)/scripts/install-deps $(@:deps-%=%)

# --- The kernel tree: pristine 6.12 plus the series ---------------------

# Only when the tarball is missing: Debian's linux-source-6.12 brings it.
$(TARBALL):
	@$(TOP)/scripts/install-deps source

# Unpacked again when the tarball is newer (a new linux-source-6.12).
$(O)/linux-pristine/Makefile: $(TARBALL)
	@echo "  UNPACK  $(TARBALL)"
	@rm -rf $(O)/linux-pristine $(O)/linux-source-6.12
	@mkdir -p $(O)
	@tar -C $(O) -xJf $(TARBALL)
	@mv $(O)/linux-source-6.12 $(O)/linux-pristine
	@touch $@

# $(TREE) is a copy of $(PRISTINE), never linked to it, brought up to date
# when $(PRISTINE) changes (scripts/copy-pristine), with the series on it.
tree: $(PRISTINE)/Makefile
	@v=$$($(MAKE) -s -C $(PRISTINE) kernelversion 2>/dev/null); \
	case "$$v" in 6.12|6.12.*) ;; \
	*) echo "perfctr: $(PRISTINE) is Linux '$$v', not 6.12: the series is for 6.12 only" >&2; exit 1;; esac; \
	if [ -e $(PRISTINE)/.config ] || [ -e $(PRISTINE)/include/config ]; then \
		echo "perfctr: $(PRISTINE) has been configured in place; run 'make mrproper' there first" >&2; exit 1; fi
	@$(TOP)/scripts/copy-pristine $(PRISTINE) $(TREE)
	@$(TOP)/scripts/kseries commit $(PRISTINE) $(SERIES)
	@$(TOP)/scripts/kseries sync $(PRISTINE) $(SERIES) $(TREE)

patch: tree
	@$(TOP)/scripts/kseries format $(SERIES) $(O)/patches
	@echo "  PATCH   $(O)/patches: $$(wc -l < $(O)/patches/series) patches and a cover letter for Linux 6.12"

# Apply the series patch by patch and build each: x86-64 and arm64, with
# CONFIG_PERFCTR=n and, where the architecture offers it, =y.
series-build: tree | deps-kernel deps-arm64
	@$(TOP)/scripts/series-build $(PRISTINE) $(SERIES) $(O)/series-build

# git am the series onto a fresh copy of the pristine tree and build it.
patch-check: patch
	@$(TOP)/scripts/patch-check $(PRISTINE) $(O)/patches $(O)/patch-check $(TREE)

# --- Kernels ---------------------------------------------------------------

kernel-demo: tree | deps-kernel
	@$(TOP)/scripts/kernel-config $(TREE) $(KDEMO) $(CONFIGS)/base.config
	@echo "  KERNEL  $(KDEMO)"
	@$(KMAKE) O=$(KDEMO) bzImage

kernel-debug: tree | deps-kernel
	@$(TOP)/scripts/kernel-config $(TREE) $(KDEBUG) $(CONFIGS)/base.config $(CONFIGS)/debug.config \
		$(CONFIGS)/x86-debug.config
	@echo "  KERNEL  $(KDEBUG) (debug)"
	@$(KMAKE) O=$(KDEBUG) bzImage

kernel-noperfctr: tree | deps-kernel
	@$(TOP)/scripts/kernel-config $(TREE) $(KNOPC) $(CONFIGS)/base.config $(CONFIGS)/noperfctr.config
	@echo "  KERNEL  $(KNOPC) (CONFIG_PERFCTR=n)"
	@$(KMAKE) O=$(KNOPC) bzImage

# arm64, cross-built: the debug kernel with KUnit, for the exact counts of
# QEMU's PMU.  It serves both make check and make demo ARCH=arm64.
KMAKE_ARM64	= $(KMAKE) ARCH=arm64 CROSS_COMPILE=$(ARM64_CROSS)

kernel-arm64: tree | deps-kernel deps-arm64
	@ARCH=arm64 CROSS_COMPILE=$(ARM64_CROSS) $(TOP)/scripts/kernel-config \
		$(TREE) $(KARM64) $(CONFIGS)/arm64.config $(CONFIGS)/debug.config
	@echo "  KERNEL  $(KARM64) (arm64, debug)"
	@$(KMAKE_ARM64) O=$(KARM64) Image

# arm64 without the debug options and compiled with -O2, for make bench
# ARCH=arm64: what a read, a switch or a fork costs on a production
# kernel, with perf's software events beside perfctr's.
# The x86 bench kernel: the demo's, compiled with -O2, with tracepoints.
kernel-x86-bench: tree | deps-kernel
	@$(TOP)/scripts/kernel-config $(TREE) $(KX86_BENCH) \
		$(CONFIGS)/base.config $(CONFIGS)/bench.config \
		$(CONFIGS)/x86-bench.config
	@echo "  KERNEL  $(KX86_BENCH) (no debug options, tracepoints)"
	@$(KMAKE) O=$(KX86_BENCH) bzImage

kernel-arm64-bench: tree | deps-kernel deps-arm64
	@ARCH=arm64 CROSS_COMPILE=$(ARM64_CROSS) $(TOP)/scripts/kernel-config \
		$(TREE) $(KARM64_BENCH) $(CONFIGS)/arm64.config \
		$(CONFIGS)/bench.config
	@echo "  KERNEL  $(KARM64_BENCH) (arm64, no debug options)"
	@$(KMAKE_ARM64) O=$(KARM64_BENCH) Image

# Our kernel code again with W=1: any warning fails.
w1: kernel-debug
	@echo "  W=1     kernel/perfctr arch/x86/perfctr"
	@$(KMAKE) O=$(KDEBUG) W=1 kernel/perfctr/ arch/x86/perfctr/ 2>&1 | tee $(O)/w1.log
	@! grep -q 'warning:' $(O)/w1.log

w1-arm64: kernel-arm64
	@echo "  W=1     kernel/perfctr arch/arm64/perfctr (arm64)"
	@$(KMAKE_ARM64) O=$(KARM64) W=1 kernel/perfctr/ arch/arm64/perfctr/ 2>&1 | tee $(O)/w1-arm64.log
	@! grep -q 'warning:' $(O)/w1-arm64.log

# The KUnit suites, run by the kernel's own kunit.py with our .kunitconfig
# files, on a kernel of its making built in $(O)/kunit-ARCH and booted in
# QEMU: UML has no perfctr driver.  On arm64 with -icount shift=0, under
# which QEMU's PMU counts exactly.  The console is in $(O)/kunit-ARCH/test.log.
KUNIT_TIMEOUT	?= 300
KUNIT_RUN	= cd $(TREE) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		  PYTHONDONTWRITEBYTECODE=1 python3 tools/testing/kunit/kunit.py \
		  run --jobs=$(JOBS) --timeout=$(KUNIT_TIMEOUT) \
		  --kunitconfig=kernel/perfctr

ifeq ($(ARCH),arm64)
kunit: tree | deps-kernel deps-arm64 deps-qemu-arm64
	@echo "  KUNIT   kernel/perfctr arch/arm64/perfctr (arm64) in $(O)/kunit-arm64"
	@$(KUNIT_RUN) --kunitconfig=arch/arm64/perfctr \
		--arch=arm64 --cross_compile=$(ARM64_CROSS) \
		--qemu_args='-icount shift=0' --build_dir=$(O)/kunit-arm64
else
kunit: tree | deps-kernel deps-qemu
	@echo "  KUNIT   kernel/perfctr arch/x86/perfctr (x86_64) in $(O)/kunit-x86_64"
	@$(KUNIT_RUN) --kunitconfig=arch/x86/perfctr \
		--arch=x86_64 --build_dir=$(O)/kunit-x86_64
endif

checkpatch: patch | deps-kernel
	@$(TOP)/scripts/run-checkpatch $(TREE) $(O)/patches

# --- User space ------------------------------------------------------------

USER_MAKE = $(MAKE) -s O=$(USER)

user: | deps-user
	@+$(USER_MAKE) -C $(TOP)/lib
	@+$(USER_MAKE) -C $(TOP)/lib examples
	@+$(USER_MAKE) -C $(TOP)/tools/perfex
	@+$(USER_MAKE) -C $(TOP)/tools/examples
	@+$(USER_MAKE) -C $(TOP)/tools/bench

user: tree user-selftests

# The arm64 guest's programs, static, cross-built, with Debian's arm64
# libpfm4 for their native event names: fetched and unpacked, not
# installed, as the guest's busybox is.
ARM64_PFM	:= $(O)/arm64-libpfm4
USER_MAKE_ARM64 = $(MAKE) -s O=$(USER_ARM64) CC=$(ARM64_CROSS)gcc LIBPFM=yes \
	LIBPFM_CFLAGS=-I$(ARM64_PFM)/usr/include \
	LIBPFM_LIBS="-L$(ARM64_PFM)/usr/lib/aarch64-linux-gnu -lpfm"

$(ARM64_PFM)/usr/lib/aarch64-linux-gnu/libpfm.a: | deps-arm64-guest
	@echo "  FETCH   libpfm4-dev:arm64"
	@rm -rf $(ARM64_PFM) && mkdir -p $(ARM64_PFM)/deb
	@cd $(ARM64_PFM)/deb && apt-get download -q libpfm4-dev:arm64 >/dev/null
	@dpkg-deb -x $(ARM64_PFM)/deb/libpfm4-dev_*_arm64.deb $(ARM64_PFM)
	@touch $@

# PAPI, the peer of the code regions in make bench ARCH=arm64: Debian's
# arm64 libpapi-dev, whose static libpapi.a needs only libpfm4 above,
# fetched and unpacked the same way.  Its headers are system headers to
# region_bench: their prototypes are not ours to warn of.
ARM64_PAPI	:= $(O)/arm64-papi
ARM64_PAPI_A	:= $(ARM64_PAPI)/usr/lib/aarch64-linux-gnu/libpapi.a

$(ARM64_PAPI_A): | deps-arm64-guest
	@echo "  FETCH   libpapi-dev:arm64"
	@rm -rf $(ARM64_PAPI) && mkdir -p $(ARM64_PAPI)/deb
	@cd $(ARM64_PAPI)/deb && apt-get download -q libpapi-dev:arm64 >/dev/null
	@dpkg-deb -x $(ARM64_PAPI)/deb/libpapi-dev_*_arm64.deb $(ARM64_PAPI)
	@touch $@

region-bench-arm64: user-arm64 $(ARM64_PAPI_A)
	@+$(USER_MAKE_ARM64) -C $(TOP)/tools/bench region_bench \
		PAPI_CFLAGS="-isystem $(ARM64_PAPI)/usr/include" \
		PAPI_LIBS=$(ARM64_PAPI_A)

user-arm64: $(ARM64_PFM)/usr/lib/aarch64-linux-gnu/libpfm.a
user-arm64: tree user-selftests-arm64 | deps-user deps-arm64
	@+$(USER_MAKE_ARM64) -C $(TOP)/lib
	@+$(USER_MAKE_ARM64) -C $(TOP)/lib examples
	@+$(USER_MAKE_ARM64) -C $(TOP)/tools/perfex
	@+$(USER_MAKE_ARM64) -C $(TOP)/tools/examples
	@+$(USER_MAKE_ARM64) -C $(TOP)/tools/bench

# The selftests, built by their own kselftest Makefile in the kernel tree
# (make -C $(TREE)/tools/testing/selftests TARGETS=perfctr), against the
# tree's uapi headers, static and with warnings as errors: see
# scripts/build-selftests.  The programs are those selftests/Makefile
# lists, in $(SELFTESTS)/kselftest/perfctr.
user-selftests: tree | deps-user
	@$(TOP)/scripts/build-selftests $(TREE) $(SELFTESTS)

user-selftests-arm64: tree | deps-user deps-arm64
	@$(TOP)/scripts/build-selftests $(TREE) $(SELFTESTS_ARM64) arm64

# selftest_progs DIR [arm64]: the paths of the programs built in DIR.
selftest_progs = $(addprefix $(1)/kselftest/perfctr/,$(shell \
	$(TOP)/scripts/build-selftests --list $(TREE) $(2)))

host-test: | deps-user
	@+$(USER_MAKE) -C $(TOP)/lib test
	@+$(USER_MAKE) -C $(TOP)/tools/perfex test
	@echo "# without libpfm4: the library and perfex, their tests"
	@+$(MAKE) -s O=$(O)/user-nolibpfm LIBPFM=no -C $(TOP)/lib test
	@+$(MAKE) -s O=$(O)/user-nolibpfm LIBPFM=no -C $(TOP)/tools/perfex test

# Native event names against perf's event tables in the Linux tree: the
# host's encoder for the x86 PMUs, the arm64 one, static, under
# qemu-aarch64 for Arm's (lib/tests/native-test.sh); and the table of
# counter-restricted Intel events made again from those tables, which
# must be the one in the tree (scripts/gen-intel-counters).
NATIVE_ENCODE := obj/lib/tests/native_encode

native-test: $(PRISTINE)/Makefile $(ARM64_PFM)/usr/lib/aarch64-linux-gnu/libpfm.a | deps-user deps-arm64
	@+$(USER_MAKE) -C $(TOP)/lib $(USER)/$(NATIVE_ENCODE)
	@+$(USER_MAKE_ARM64) LDFLAGS=-static -C $(TOP)/lib \
		$(USER_ARM64)/$(NATIVE_ENCODE)
	@$(TOP)/lib/tests/native-test.sh $(USER)/$(NATIVE_ENCODE) \
		$(PRISTINE)/tools/perf/pmu-events/arch \
		$(USER_ARM64)/$(NATIVE_ENCODE)
	@$(TOP)/scripts/gen-intel-counters $(PRISTINE) | \
		diff -u $(TOP)/lib/src/counters.c - && \
		echo "ok 1 - lib/src/counters.c is what gen-intel-counters makes of Linux's tables"

# The library's fast reads timed on this machine, in TSC ticks.
bench-host: | deps-user
	@+$(USER_MAKE) -C $(TOP)/lib bench

# --- Install ---------------------------------------------------------------

# libperfctr (headers, libraries, pkg-config file, man pages), perfex and
# the man pages of the system calls, under PREFIX in DESTDIR.  It builds
# what it installs, and needs no kernel tree.
PREFIX		?= /usr/local

install:
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	@+$(USER_MAKE) -C $(TOP)/lib install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	@+$(USER_MAKE) -C $(TOP)/tools/perfex
	@install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man2
	@install -m 755 $(USER)/perfex $(DESTDIR)$(PREFIX)/bin/
	@install -m 644 $(TOP)/tools/perfex/perfex.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/
	@install -m 644 $(TOP)/man/man2/*.2 $(DESTDIR)$(PREFIX)/share/man/man2/

# --- Boot ------------------------------------------------------------------

GUEST_BINS = $(USER)/perfex $(USER)/examples/spin $(USER)/examples/sleeper \
	$(USER)/examples/forker $(USER)/examples/self_count \
	$(USER)/examples/irq_count $(USER)/examples/remote_read \
	$(USER)/examples/compat27 $(USER)/examples/region_exact \
	$(USER)/examples/regions \
	$(call selftest_progs,$(SELFTESTS)) \
	$(TOP)/tools/perfex/tests/perfex-e2e.sh \
	$(TOP)/lib/examples/examples-e2e.sh

initramfs-demo: kernel-demo user | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KDEMO) $(O)/initramfs-demo.cpio \
		$(TOP)/scripts/guest/init-demo $(GUEST_BINS)
	@$(TOP)/scripts/mkinitramfs $(KDEMO) $(O)/initramfs-demo-exact.cpio \
		$(TOP)/scripts/guest/init-demo-exact $(GUEST_BINS) \
		$(USER)/examples/insn_loop

initramfs-check: kernel-debug user | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KDEBUG) $(O)/initramfs-check.cpio \
		$(TOP)/scripts/guest/init-check $(GUEST_BINS)

# --- QEMU's x86 PMU model (scripts/qemu/) ---------------------------------

# QEMU with the model, built once per version of scripts/qemu/x86-pmu.patch
# in a cache outside $(O) (PERFCTR_CACHE, default /var/cache/perfctr).
PMU_MODEL	:= $(O)/pmu-model

qemu-x86-pmu: | deps-qemu
	@echo "  QEMU    $$($(TOP)/scripts/qemu/build)"

# The model's own tests: a bare-metal program booted on each vendor's model.
pmu-model-test: qemu-x86-pmu
	@+$(MAKE) -s -C $(TOP)/scripts/qemu/tests/model O=$(PMU_MODEL)
	@for v in intel amd; do \
		$(TOP)/scripts/qemu/run-model-test $$v $(PMU_MODEL)/model_test.elf \
			$(PMU_MODEL)/$$v.log > /dev/null; \
		$(TOP)/scripts/check-console $(PMU_MODEL)/$$v.log pmu_model_$$v || exit 1; \
	done

# perf's referee, and the debug kernel's initramfs for the model's boots.
$(PMU_MODEL)/perf_referee: tree | deps-user
	@+$(MAKE) -s -C $(TOP)/scripts/qemu/tests/referee O=$(PMU_MODEL) \
		SELFTESTS_INC=$(TREE)/tools/testing/selftests

initramfs-pmu: kernel-debug user user-selftests $(PMU_MODEL)/perf_referee | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KDEBUG) $(O)/initramfs-pmu.cpio \
		$(TOP)/scripts/guest/init-pmu-x86 $(PMU_MODEL)/perf_referee \
		$(USER)/perfex $(USER)/examples/insn_loop \
		$(TOP)/tools/perfex/tests/native-e2e.sh \
		$(addprefix $(SELFTESTS)/kselftest/perfctr/,vperfctr_exact \
			vperfctr_share vperfctr_imode_test vperfctr_inherit_test)

# busybox for the arm64 guest: Debian's, fetched and unpacked, not installed.
$(O)/arm64/busybox: | deps-arm64-guest
	@echo "  FETCH   busybox-static:arm64"
	@rm -rf $(O)/arm64 && mkdir -p $(O)/arm64/deb
	@cd $(O)/arm64/deb && apt-get download -q busybox-static:arm64 >/dev/null
	@dpkg-deb -x $(O)/arm64/deb/busybox-static_*_arm64.deb $(O)/arm64/root
	@cp $(O)/arm64/root/bin/busybox $@

GUEST_BINS_ARM64 = $(USER_ARM64)/perfex $(USER_ARM64)/examples/spin \
	$(USER_ARM64)/examples/sleeper $(USER_ARM64)/examples/forker \
	$(USER_ARM64)/examples/insn_loop $(USER_ARM64)/examples/self_count \
	$(USER_ARM64)/examples/irq_count $(USER_ARM64)/examples/remote_read \
	$(USER_ARM64)/examples/compat27 $(USER_ARM64)/examples/region_exact \
	$(USER_ARM64)/examples/regions \
	$(call selftest_progs,$(SELFTESTS_ARM64),arm64) \
	$(TOP)/tools/perfex/tests/perfex-e2e.sh \
	$(TOP)/tools/perfex/tests/native-e2e.sh \
	$(TOP)/lib/examples/examples-e2e.sh

initramfs-arm64: kernel-arm64 user-arm64 $(O)/arm64/busybox | deps-qemu-arm64
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64) \
		$(O)/initramfs-arm64-check.cpio $(TOP)/scripts/guest/init-arm64 \
		$(GUEST_BINS_ARM64)
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64) \
		$(O)/initramfs-arm64-demo.cpio $(TOP)/scripts/guest/init-demo-exact \
		$(GUEST_BINS_ARM64)
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64) \
		$(O)/initramfs-arm64-abi.cpio $(TOP)/scripts/guest/init-arm64-abi \
		$(GUEST_BINS_ARM64)
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64) \
		$(O)/initramfs-arm64-smp.cpio $(TOP)/scripts/guest/init-arm64-smp \
		$(GUEST_BINS_ARM64)

demo-arm64: initramfs-arm64
	@$(TOP)/scripts/run-qemu --arch arm64 --timeout $(QEMU_TIMEOUT) \
		--log $(O)/demo-arm64.log $(KARM64)/arch/arm64/boot/Image \
		$(O)/initramfs-arm64-demo.cpio
	@$(TOP)/scripts/check-demo $(O)/demo-arm64.log

ifeq ($(ARCH),arm64)
demo: demo-arm64
else
demo: initramfs-demo qemu-x86-pmu
	@$(TOP)/scripts/run-qemu --timeout $(QEMU_TIMEOUT) --log $(O)/demo.log \
		$(KDEMO)/arch/x86/boot/bzImage $(O)/initramfs-demo.cpio
	@$(TOP)/scripts/check-demo $(O)/demo.log
	@for v in intel amd; do \
		$(TOP)/scripts/run-qemu --arch x86-$$v --timeout $(QEMU_TIMEOUT) \
			--log $(O)/demo-$$v.log $(KDEMO)/arch/x86/boot/bzImage \
			$(O)/initramfs-demo-exact.cpio || exit 1; \
		$(TOP)/scripts/check-demo $(O)/demo-$$v.log || exit 1; \
	done
endif

run: kernel-demo user | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KDEMO) $(O)/initramfs-run.cpio \
		$(TOP)/scripts/guest/init-run $(GUEST_BINS)
	@$(TOP)/scripts/run-qemu --interactive \
		$(KDEMO)/arch/x86/boot/bzImage $(O)/initramfs-run.cpio

# The benchmark in exact instructions on the Intel PMU model, one CPU,
# -icount shift=0: the x86 bench kernel.  Only the table is printed; the
# console is in $(O)/bench.log.
initramfs-bench: kernel-x86-bench user | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KX86_BENCH) $(O)/initramfs-bench.cpio \
		$(TOP)/scripts/guest/init-bench $(USER)/vperfctr_bench

ifeq ($(ARCH),arm64)
bench: bench-arm64
else
bench: initramfs-bench
	@echo "  BENCH   x86 on the Intel PMU model, in instructions, console in $(O)/bench.log"
	@$(TOP)/scripts/run-qemu --arch x86-intel-bench --timeout $(QEMU_TIMEOUT) \
		--log $(O)/bench.log $(KX86_BENCH)/arch/x86/boot/bzImage \
		$(O)/initramfs-bench.cpio >/dev/null
	@$(TOP)/scripts/bench-report $(O)/bench.log
endif

# The same in exact instructions on arm64: the kernel without debug
# options, one CPU, -icount shift=0.
initramfs-bench-arm64: kernel-arm64-bench user-arm64 region-bench-arm64 \
		$(O)/arm64/busybox | deps-qemu-arm64
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64_BENCH) \
		$(O)/initramfs-bench-arm64.cpio \
		$(TOP)/scripts/guest/init-bench-arm64 $(USER_ARM64)/vperfctr_bench \
		$(USER_ARM64)/region_bench

bench-arm64: initramfs-bench-arm64
	@echo "  BENCH   arm64, in instructions, console in $(O)/bench-arm64.log"
	@$(TOP)/scripts/run-qemu --arch arm64-bench --timeout $(QEMU_TIMEOUT) \
		--log $(O)/bench-arm64.log $(KARM64_BENCH)/arch/arm64/boot/Image \
		$(O)/initramfs-bench-arm64.cpio >/dev/null
	@$(TOP)/scripts/bench-report $(O)/bench-arm64.log

# A developer's tool: scripts/profile/README.
PROFILE		?= pp
profile-arm64: kernel-arm64-bench $(O)/arm64/busybox | deps-qemu-arm64
	@$(TOP)/scripts/profile/profile-arm64 $(KARM64_BENCH) \
		$(O)/arm64/busybox $(O)/profile $(PROFILE)

check: | deps
	@$(TOP)/scripts/check

# --- Stress ------------------------------------------------------------------

# The seed is drawn once per make run, printed, and given to the guest on
# the kernel command line; STRESS_SEED=N replays a run.  QEMU's limit
# covers the boot under KASAN, the stress's own grace for a scenario that
# overruns, and the kmemleak scan, on top of STRESS_SECONDS.
STRESS_SECONDS	?= 60
ifeq ($(STRESS_SEED),)
STRESS_SEED	:= $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
endif
STRESS_APPEND	= loglevel=7 perfctr_stress_seed=$(STRESS_SEED) \
		  perfctr_stress_seconds=$(STRESS_SECONDS)

# run_stress ARCH KERNEL INITRAMFS LOG: boot, then read the console: any
# failed check, missing result or kernel report fails.
define run_stress
	@echo "  STRESS  $(1): seed $(STRESS_SEED), $(STRESS_SECONDS) s, console in $(4)"
	@$(TOP)/scripts/run-qemu --arch $(1) \
		--timeout $$(( $(STRESS_SECONDS) + 600 )) --log $(4) \
		--append "$(STRESS_APPEND)" $(2) $(3) > /dev/null; \
	out=$$($(TOP)/scripts/check-console $(4) vperfctr_stress vperfctr_fuzz); \
	echo "$$out" | grep -v '^TOTAL'; \
	if ! echo "$$out" | awk '/^TOTAL/ { exit $$3 != 0 }'; then \
		echo "  STRESS  FAILED; replay: make stress STRESS_SEED=$(STRESS_SEED) STRESS_SECONDS=$(STRESS_SECONDS)"; \
		exit 1; \
	fi
endef

initramfs-stress: kernel-debug user-selftests | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KDEBUG) $(O)/initramfs-stress.cpio \
		$(TOP)/scripts/guest/init-stress \
		$(SELFTESTS)/kselftest/perfctr/vperfctr_stress \
		$(SELFTESTS)/kselftest/perfctr/vperfctr_fuzz

stress-x86: initramfs-stress
	$(call run_stress,x86_64,$(KDEBUG)/arch/x86/boot/bzImage,$(O)/initramfs-stress.cpio,$(O)/stress.log)

stress-arm64: kernel-arm64 user-selftests-arm64 $(O)/arm64/busybox | deps-qemu-arm64
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64) \
		$(O)/initramfs-arm64-stress.cpio $(TOP)/scripts/guest/init-stress \
		$(SELFTESTS_ARM64)/kselftest/perfctr/vperfctr_stress \
		$(SELFTESTS_ARM64)/kselftest/perfctr/vperfctr_fuzz
	$(call run_stress,arm64-nopmu,$(KARM64)/arch/arm64/boot/Image,$(O)/initramfs-arm64-stress.cpio,$(O)/stress-arm64.log)

ifeq ($(ARCH),arm64)
stress: stress-arm64
else
stress: stress-x86
endif

# --- The ABI selftests alone -------------------------------------------------

# The ABI selftests are the programs named vperfctr_*_test; the guest runs
# each, then scans for leaks.  KUnit is off (kunit.enable=0) and the
# console shows every kernel message: a failed, skipped or missing test
# or any kernel report fails the run.
abi_tests = $(filter %_test,$(call selftest_progs,$(1),$(2)))

# run_selftests ARCH KERNEL INITRAMFS LOG SUITES
define run_selftests
	@echo "  SELFTEST $(1): console in $(4)"
	@$(TOP)/scripts/run-qemu --arch $(1) --timeout $(QEMU_TIMEOUT) \
		--log $(4) --append "loglevel=7 kunit.enable=0" $(2) $(3) \
		> /dev/null; \
	out=$$($(TOP)/scripts/check-console $(4) $(5)); \
	echo "$$out" | grep -v '^TOTAL'; \
	echo "$$out" | awk '/^TOTAL/ { exit $$3 != 0 }'
endef

initramfs-selftests: kernel-debug user-selftests | deps-qemu
	@$(TOP)/scripts/mkinitramfs $(KDEBUG) $(O)/initramfs-selftests.cpio \
		$(TOP)/scripts/guest/init-selftests $(call abi_tests,$(SELFTESTS))

selftests-x86: initramfs-selftests
	$(call run_selftests,x86_64,$(KDEBUG)/arch/x86/boot/bzImage,$(O)/initramfs-selftests.cpio,$(O)/selftests.log,$(notdir $(call abi_tests,$(SELFTESTS))))

selftests-arm64: kernel-arm64 user-selftests-arm64 $(O)/arm64/busybox
	@BUSYBOX=$(O)/arm64/busybox $(TOP)/scripts/mkinitramfs $(KARM64) \
		$(O)/initramfs-arm64-selftests.cpio \
		$(TOP)/scripts/guest/init-selftests \
		$(call abi_tests,$(SELFTESTS_ARM64),arm64)
	$(call run_selftests,arm64-nopmu,$(KARM64)/arch/arm64/boot/Image,$(O)/initramfs-arm64-selftests.cpio,$(O)/selftests-arm64.log,$(notdir $(call abi_tests,$(SELFTESTS_ARM64),arm64)))

ifeq ($(ARCH),arm64)
selftests: selftests-arm64
else
selftests: selftests-x86
endif

clean:
	rm -rf $(USER) $(USER_ARM64) $(SELFTESTS) $(SELFTESTS_ARM64) \
		$(KDEMO) $(KDEBUG) $(KNOPC) $(KARM64) \
		$(O)/kunit-x86_64 $(O)/kunit-arm64 \
		$(SERIES) $(O)/patches \
		$(O)/patch-check $(O)/*.cpio $(O)/*.log $(O)/results \
		$(O)/kselftest-perfctr

distclean:
	rm -rf $(O)
