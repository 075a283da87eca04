# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# MetaRoCE top-level Makefile.  The kernel module is built by kbuild (see
# Kbuild); everything else (host tests, VM selftests, demo) is driven from
# here.  The target kernel is the Debian kernel the tests boot, discovered
# from installed files, never from `uname -r`.  Override with KVER= or KDIR=.

ROOT := $(CURDIR)
BUILD := $(ROOT)/build

# Newest kernel that has both an image in /boot and a build tree.
KVER ?= $(shell $(ROOT)/tools/kver.sh 2>/dev/null)
INSTALL_MOD_DIR ?= extra
DESTDIR ?=

# On a machine without kernel packages KVER is empty until `make deps` has
# run: export nothing then, so that the scripts and sub-makes that run after
# deps (check, demo, bench) find the kernel themselves instead of inheriting
# an empty KVER and a KDIR of /lib/modules//build.
ifneq ($(KVER),)
KDIR ?= /lib/modules/$(KVER)/build
export KVER KDIR
endif

.PHONY: all modules provider check-kdir install modules_install clean distclean deps \
	dkms-src dkms-install dkms-uninstall dkms-test deb \
	check unit coverage fuzz fuzz-smoke vm-selftests demo bench help \
	debug-kernel check-debug fuzz-vm tools_install wireshark_install cli-test wireshark-test

all: modules provider

# The libibverbs provider (userspace/), built when its Makefile exists.
provider:
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace; fi

help:
	@echo "make [modules]     build metaroce.ko for KVER=$(KVER)"
	@echo "make install       install metaroce.ko under /lib/modules/<kver> and run depmod,"
	@echo "                   the provider, and the metaroce command under PREFIX=/usr/local,"
	@echo "                   the MetaRoCE Wireshark dissector (tools/wireshark)"
	@echo "make dkms-install  metaroce.ko through DKMS, for every kernel with headers (root)"
	@echo "make dkms-uninstall  remove it from DKMS and /usr/src"
	@echo "make deb           Debian packages metaroce-dkms and metaroce-provider in build/deb"
	@echo "make deps          install the Debian packages the project needs (root)"
	@echo "make check         host tests, then the selftests in a QEMU guest"
	@echo "make check-debug   the selftests on a KASAN/lockdep/kmemleak/UBSAN kernel, planted bugs first"
	@echo "make debug-kernel  build (or reuse) that kernel and metaroce.ko against it"
	@echo "make demo          two namespaces, a MetaRoCE device on each side, RC traffic"
	@echo "make bench         perftest, MetaRoCE vs rdma_rxe in one VM: bench/results.md"
	@echo "make fuzz-vm [PACKETS=N] [SEED=S]  the VM packet fuzzer under checked traffic (default 1000000 IPv4, half as many IPv6)"
	@echo "make unit | coverage | fuzz   transport core tests on the host"
	@echo "make cli-test      host tests of the metaroce command (fixture sysfs)"
	@echo "make wireshark-test  tshark with the MetaRoCE dissector on a generated pcap"
	@echo "variables: KVER= KDIR= W=1 C=1 VM_KVM=1 VM_TIMEOUT=<s>"

check-kdir:
	@if [ -z "$(KVER)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "metaroce: no kernel build tree found (KVER='$(KVER)', KDIR='$(KDIR)')." >&2; \
		echo "metaroce: run 'make deps' (installs linux-image-amd64 and linux-headers-amd64) or set KDIR=." >&2; \
		exit 1; \
	fi

# metaroce.ko, the kernel consumer the verbs selftests load and the fake
# NIC of selftests/metaroce/nic.sh.
modules: check-kdir
	$(MAKE) -C $(KDIR) M=$(ROOT) modules
	$(MAKE) -C $(KDIR) M=$(ROOT)/selftests/verbs/kmod modules
	$(MAKE) -C $(KDIR) M=$(ROOT)/selftests/metaroce/kmod modules

install: modules_install provider tools_install wireshark_install
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace install DESTDIR=$(DESTDIR); fi

# The `metaroce` operator command and metaroce(8), under PREFIX (/usr/local).
tools_install:
	$(MAKE) -C tools/metaroce install DESTDIR=$(DESTDIR)

# The tshark/Wireshark dissector of MetaRoCE extension packets, into
# Wireshark's global Lua plugin folder (Documentation/wire.rst).
wireshark_install:
	$(MAKE) -C tools/wireshark install DESTDIR=$(DESTDIR)

# Install the module without re-entering kbuild when it is up to date: kbuild
# probes the compiler dozens of times on every entry, which takes minutes in
# the TCG guest of the install tests.  Debian's kernels neither compress nor
# (for out-of-tree modules) sign, so a copy and depmod is what
# modules_install would do.
MODULE_SRCS := Kbuild $(shell find drivers include -name '*.[ch]' 2>/dev/null)

metaroce.ko: $(MODULE_SRCS)
	$(MAKE) modules

modules_install: check-kdir metaroce.ko
	install -D -m 644 metaroce.ko \
		$(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)/metaroce.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# ---- DKMS (Documentation/deployment.rst) ----------------------------------
# dkms-src copies the module's sources (not its build products) and dkms.conf
# to $(DKMS_SRC_TREE)/metaroce-<version>; dkms-install adds them to DKMS and
# builds and installs the module for every kernel whose headers are installed
# (DKMS_KERNELS); dkms-uninstall undoes both.  DKMS_FLAGS passes options to
# every dkms call (the test, tools/dkms_test.sh, points all of DKMS's trees
# into a scratch folder with them).
MROCE_VERSION := 0.1
DKMS_FLAGS ?=
DKMS_SRC_TREE ?= /usr/src
DKMS_DIR = $(DESTDIR)$(DKMS_SRC_TREE)/metaroce-$(MROCE_VERSION)
DKMS_KERNELS ?= $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build)))
DKMS_MOD := -m metaroce -v $(MROCE_VERSION)

dkms-src:
	rm -rf $(DKMS_DIR)
	mkdir -p $(DKMS_DIR)
	cp --parents Kbuild COPYING $$(find drivers include LICENSES -type f \
		\( -name '*.[ch]' -o -path 'LICENSES/*' \) ! -name '*.mod.c') $(DKMS_DIR)/
	sed 's/@VERSION@/$(MROCE_VERSION)/' dkms.conf >$(DKMS_DIR)/dkms.conf

dkms-install: dkms-src
	dkms add $(DKMS_FLAGS) $(DKMS_MOD)
	@[ -n "$(DKMS_KERNELS)" ] || { echo "dkms-install: no kernel headers under /lib/modules/*/build" >&2; exit 1; }
	for k in $(DKMS_KERNELS); do \
		dkms install $(DKMS_FLAGS) $(DKMS_MOD) -k $$k || exit 1; \
	done

dkms-uninstall:
	-dkms remove $(DKMS_FLAGS) $(DKMS_MOD) --all
	rm -rf $(DKMS_DIR)

dkms-test:
	@$(ROOT)/tools/dkms_test.sh

# Debian packages (tools/deb/build.sh): metaroce-dkms and metaroce-provider,
# in build/deb/.
deb: provider
	@$(ROOT)/tools/deb/build.sh

# build/debugkernel/ (the debug kernel, its source and ccache: a cold
# rebuild is 20+ minutes) survives `make clean`; `make distclean` removes it.
clean:
	@if [ -n "$(KVER)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(ROOT) clean; \
		$(MAKE) -C $(KDIR) M=$(ROOT)/selftests/verbs/kmod clean; \
		$(MAKE) -C $(KDIR) M=$(ROOT)/selftests/metaroce/kmod clean; \
	fi
	@if [ -f userspace/Makefile ]; then $(MAKE) -C userspace clean; fi
	@if [ -d $(BUILD) ]; then \
		find $(BUILD) -mindepth 1 -maxdepth 1 ! -name debugkernel -exec rm -rf {} +; fi

distclean: clean
	rm -rf $(BUILD)

deps:
	@$(ROOT)/tools/deps.sh

# ---- tests ---------------------------------------------------------------

unit:
	@if [ -f selftests/unit/Makefile ]; then $(MAKE) -C selftests/unit run; \
	else echo "unit: no host unit tests yet"; fi

coverage:
	$(MAKE) -C selftests/unit coverage

fuzz:
	$(MAKE) -C selftests/fuzz run

# The operator command against a fixture sysfs tree (seconds).
cli-test:
	@$(MAKE) -s -C selftests/cli run

# The MetaRoCE dissector against packets from the core's encoders (seconds).
wireshark-test:
	@$(ROOT)/tools/wireshark/test.sh

fuzz-smoke:
	@if [ -f selftests/fuzz/Makefile ]; then $(MAKE) -C selftests/fuzz smoke; \
	else echo "fuzz-smoke: no fuzz targets yet"; fi

# The VM packet fuzzer alone (selftests/datapath/pktfuzz.sh), PACKETS
# mutated IPv4 packets, then half as many IPv6 ones (SEED= repeats a run);
# results in build/vm/fuzz-vm.
PACKETS ?= 1000000
fuzz-vm: modules provider
	MROCE_T_FUZZ_PACKETS=$(PACKETS) $(if $(SEED),MROCE_T_FUZZ_SEED=$(SEED)) \
		MROCE_T_ONLY=pktfuzz.sh MROCE_T_TIMEOUT=$$((600 + $(PACKETS) * 3 / 4000)) \
		$(ROOT)/tools/vm/run.sh --name fuzz-vm --timeout $$((900 + $(PACKETS) * 3 / 4000)) \
		-- $(ROOT)/selftests/run_guest.sh datapath

# One VM boot runs every VM selftest; results land in build/vm/selftests.
vm-selftests: modules provider
	$(ROOT)/tools/vm/run.sh --name selftests -- $(ROOT)/selftests/run_guest.sh

check:
	@$(ROOT)/tools/check.sh

# The debug-kernel lane (Documentation/debug.rst): Debian's linux-source-6.1
# with the kernel's bug detectors, cached under build/debugkernel/.
debug-kernel:
	@$(ROOT)/tools/debugkernel/build.sh --print-env

check-debug:
	@$(ROOT)/tools/debugkernel/lane.sh

# perftest over MetaRoCE and rdma_rxe side by side: bench/results.md.
bench:
	@$(ROOT)/tools/bench/bench.sh

demo:
	@$(ROOT)/tools/deps.sh
	@$(MAKE) --no-print-directory modules provider
	$(ROOT)/tools/vm/run.sh --name demo -- $(ROOT)/tools/demo/demo.sh
