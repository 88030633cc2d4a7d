# memhp-lab - one verb per target. See README.md.
#
#   make demo      deps + guest image + orchestrator, the demo on Debian's stock 6.12 kernel, then the patched kernel's A/B
#   make demo-stock   the first half alone: the demo on Debian's stock 6.12 kernel (apt), no kernel build
#   make check     the same setup, then the fast tier of the tests (CI's gate; PARTS=... for some)
#   make check-full   every test: the fast tier and the long ones (soaks, fleet kills, kmemleak, LSan)
#   make bench     measurements side by side, as ratios (tools/bench.sh)
#   make conformance  the seed series' claims on both kernels, both policies
#   make report-check the conformance report in headless Chromium (1366, 1920 px), screenshots into docs/
#   make stock     the stock-kernel suite on Debian's own 6.1 and 6.12 kernels (apt, no build)
#   make deps      install missing Debian packages (tools/deps.list)
#   make kernel    build (or reuse) both guest kernels (6.12, 6.1) and their rdma flavours in $(MEMHP_CACHE)
#   make kernel-kmemleak  the 6.12 kernel with the leak detector (kernel: {debug: kmemleak}; soaks)
#   make install   the orchestrator, its data, man page and bash completion into $(DESTDIR)$(PREFIX) (no kernel build)
#   make coverage  gcovr line and branch coverage of orchestrator/ + reports/ under make check ($(B)/cov/)
#   make fuzz      each libFuzzer target (tests/fuzz/) for FUZZ_SECONDS (60) s
#   make mutants   each mutant (tests/mutants/*.patch) in a scratch copy: the unit tests it names must fail
#   make clean     remove build/ (the kernel cache stays)

# Guest kernel trees; the first one's gup_test.h builds the workload, and the
# series makes that header identical on both (checked below).
KVERS       ?= 6.12 6.1
KVER        := $(firstword $(KVERS))
MEMHP_CACHE ?= $(HOME)/.cache/memhp-lab
export MEMHP_CACHE
# The cache is a trust boundary (docs/security.md, "The cache"): what it holds
# is built and run here. One another user owns or can write is refused.
ifneq ($(shell kernel/cache-trust.sh '$(subst ','\'',$(MEMHP_CACHE))' >/dev/null 2>&1 || echo refused),)
$(error $(shell kernel/cache-trust.sh '$(subst ','\'',$(MEMHP_CACHE))' 2>&1))
endif
B           := build
VERSION     := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# make install: bin/memhp-lab, share/memhp-lab/ (what it reads at run time:
# the guest image, domains/, kernel/, scenarios/; and the docs), share/doc/memhp-lab/,
# share/man/man1/memhp-lab.1, share/bash-completion/completions/memhp-lab.
PREFIX      ?= /usr/local
DESTDIR     ?=
DATADIR      = $(PREFIX)/share/memhp-lab
DOCDIR       = $(PREFIX)/share/doc/memhp-lab
MANDIR       = $(PREFIX)/share/man
BASHCOMPDIR  = $(PREFIX)/share/bash-completion/completions

CC      ?= cc
CFLAGS  ?= -O2 -g
# Every compile (-c) goes through ccache when it is installed (tools/deps.list;
# CCACHE= turns it off): its cache lives beside the kernels in $(MEMHP_CACHE),
# outside the clone, so a fresh clone (CI's) finds what the last build of the
# same sources compiled. ccache hashes each file's preprocessed input, its
# headers and the flags, so a changed input is compiled again. The checkout's
# own folder is no part of the hash (CCACHE_BASEDIR, CCACHE_NOHASHDIR): our
# -I paths are relative, and only the debug info's DW_AT_comp_dir may then
# name the clone that filled the cache. docs/testing.md, "Build cache".
CCACHE  ?= $(shell command -v ccache 2>/dev/null)
CCACHE_DIR ?= $(MEMHP_CACHE)/ccache
CCACHE_MAXSIZE ?= 2G
CCACHE_BASEDIR := $(CURDIR)
CCACHE_NOHASHDIR := 1
export CCACHE_DIR CCACHE_MAXSIZE CCACHE_BASEDIR CCACHE_NOHASHDIR
WARN    := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror
PKGS    := libvirt libvirt-qemu glib-2.0 json-c yaml-0.1 libxml-2.0

# The orchestrator, by concern (docs/architecture.md): cli -> scenario ->
# trial (host + guest) -> record -> reports. lib/ is shared with the workloads.
ORCH_DIRS := orchestrator orchestrator/cli orchestrator/scenario orchestrator/host \
	     orchestrator/guest orchestrator/trial orchestrator/soak orchestrator/record orchestrator/fleet reports
ORCH_SRC := $(foreach d,$(ORCH_DIRS),$(wildcard $(d)/*.c)) lib/mhl-size.c lib/util.c lib/spawn.c
ORCH_HDR := $(foreach d,$(ORCH_DIRS),$(wildcard $(d)/*.h)) $(wildcard lib/*.h)
# Without the command line: main.c, the registry and what prints or parses
# from it (cli/registry.c, dispatch.c, opts.c, usage.c, man.c), the commands
# (cli/cmd-*.c) it points at.
ORCH_CMDLINE := orchestrator/main.c orchestrator/cli/cmd-%.c $(addprefix orchestrator/cli/,registry.c dispatch.c opts.c usage.c man.c)
ORCH_LIB := $(filter-out $(ORCH_CMDLINE),$(ORCH_SRC))
ORCH_INC := -I. -Iorchestrator -Ilib
PIN_SRC  := workloads/memhp-pin.c workloads/holder.c workloads/uring.c workloads/leak.c workloads/vfio.c workloads/rdma.c workloads/kmem.c workloads/bench.c workloads/buffer.c workloads/census.c workloads/retry.c lib/mhl-size.c
# rdma: libibverbs with its soft-RoCE provider, statically (rdma.c asks for rxe
# with RDMA_STATIC_PROVIDERS); libibverbs finds devices over netlink (libnl).
# static glibc warns about the NSS lookups libnl-3 carries but memhp-pin never calls.
PIN_RDMA_LIBS := -lrxe-rdmav34 -libverbs -lnl-route-3 -lnl-3 -lpthread
KART      = $(shell cat $(MEMHP_CACHE)/kernel/$(KVER)/current 2>/dev/null)
KARTS     = $(foreach k,$(KVERS),$(shell cat $(MEMHP_CACHE)/kernel/$(k)/current 2>/dev/null))

.PHONY: all deps kernel kernel-kmemleak kernel-export workloads orchestrator image demo-setup demo demo-stock check check-full bench conformance report-check stock image-debian unit-tests install clean stacks

all: orchestrator image

deps:
	@tools/deps.sh

# Per version the default build, then each of KERNEL_FLAVOURS: rdma, what
# RDMA pins boot (kernel/config/flavours/rdma.config; its first build starts
# from a copy of the default tree and recompiles what the fragment changes).
KERNEL_FLAVOURS ?= rdma
kernel: deps
	@for k in $(KVERS); do kernel/build.sh $$k >/dev/null || exit 1; \
		for f in $(KERNEL_FLAVOURS); do kernel/build.sh --flavour $$f $$k >/dev/null || exit 1; done; done

# What could be sent (docs/kernel.md, "Posting"): per kernel the upstream and
# the lab-only series, git format-patch with cover letters, in POSTING_DIR.
POSTING_DIR ?= $(MEMHP_CACHE)/posting
kernel-export:
	@kernel/export.sh --posting -o $(POSTING_DIR) $(KVERS)

# A debug flavour (kernel/config/flavours/): its own build tree and pointer.
kernel-kmemleak: deps
	@kernel/build.sh --flavour kmemleak 6.12 >/dev/null

$(B):
	@mkdir -p $@

orchestrator: $(B)/memhp-lab $(B)/memhp-kmod

# Linked from the objects the unit tests and tests/layers.py use too
# ($(B)/unit-obj/, below): each file is compiled once for all three, and
# a compile is what ccache can keep (one cc of many sources it cannot). The
# files that print the version (git describe) are compiled again with it
# at each link, which follows any change of a source or header, as before.
ORCH_VER  := orchestrator/cli/dispatch.c orchestrator/cli/man.c orchestrator/trial/trial.c
ORCH_OBJS := $(patsubst %.c,$(B)/unit-obj/%.o,$(filter-out $(ORCH_VER),$(ORCH_SRC)))
ORCH_VOBJS := $(patsubst %.c,$(B)/ver/%.o,$(ORCH_VER))
$(B)/memhp-lab: $(ORCH_OBJS) $(ORCH_VER) $(ORCH_HDR) | $(B)
	@echo "[cc] $@"
	@$(foreach f,$(ORCH_VER),mkdir -p $(dir $(B)/ver/$(f)) && \
		$(CCACHE) $(CC) $(WARN) $(CFLAGS) -DMHL_VERSION='"$(VERSION)"' $(ORCH_INC) -Iworkloads -Itests \
		$$(pkg-config --cflags $(PKGS)) -c -o $(B)/ver/$(f:.c=.o) $(f) &&) \
	$(CC) $(CFLAGS) -o $@ $(ORCH_OBJS) $(ORCH_VOBJS) $$(pkg-config --libs $(PKGS)) -lpthread -lm

# What kernel/package.sh asks of a package or modules tree, read as data in C
# (orchestrator/host/kmod.c): its archive's members, modules.dep, files opened
# without following a link.
# It extracts a package with libarchive (kernel/kmod-extract.c), which only it links.
KMOD_SRC := kernel/memhp-kmod.c kernel/kmod-extract.c orchestrator/host/kmod.c lib/util.c
$(B)/memhp-kmod: $(KMOD_SRC) kernel/kmod-extract.h orchestrator/host/kmod.h lib/util.h | $(B)
	@echo "[cc] $@"
	@$(CC) $(WARN) $(CFLAGS) $(ORCH_INC) $$(pkg-config --cflags $(PKGS) libarchive) \
		-o $@ $(KMOD_SRC) $$(pkg-config --libs $(PKGS) libarchive)

# The workload compiles against the series' gup_test.h taken from Debian's
# linux-source and the series' hunks for it (workloads/gup-header.sh, cached
# in $(MEMHP_CACHE)/headers/): no kernel build. One binary (and one initramfs)
# serves every kernel, so each built kernel's own copy must agree with it
# (and with each other's).
GUP_KVER := 6.12
GUPH     := $(B)/gup/gup_test.h
$(GUPH): workloads/gup-header.sh kernel/patches/$(GUP_KVER)/series $(wildcard kernel/patches/$(GUP_KVER)/*.patch) \
		$(wildcard /usr/src/linux-source-$(GUP_KVER).tar.xz) | $(B)
	@workloads/gup-header.sh $(GUP_KVER) $@

workloads: $(GUPH)
	@for a in $(KARTS); do cmp -s $(GUPH) $$a/include/gup_test.h || \
		{ echo "Error: $$a/include/gup_test.h differs from $(GUPH) (linux-source-$(GUP_KVER) and the series' hunks): one memhp-pin cannot serve both kernels (kernel/patches/*/)" >&2; exit 1; }; done
	@for a in $(KARTS); do for t in $(KSFT); do cmp -s $(KART)/selftests/mm/$$t.c $$a/selftests/mm/$$t.c || \
		{ echo "Error: $$a/selftests/mm/$$t.c differs from $(KART)'s (or is missing: make kernel): one $$t cannot serve both kernels (kernel/patches/*/)" >&2; exit 1; }; done; done
	@$(MAKE) --no-print-directory $(B)/memhp-pin $(KSFT_BINS)

$(B)/memhp-pin: $(PIN_SRC) $(wildcard workloads/*.h lib/*.h) $(GUPH) | $(B)
	@echo "[cc] $@ (static, gup_test.h from linux-source-$(GUP_KVER) + the series)"
	@$(CC) $(WARN) $(CFLAGS) -static -I$(B)/gup -Ilib -Iworkloads -o $@ $(PIN_SRC) -luring $(PIN_RDMA_LIBS)

# The series' kselftests, built statically from the artifact's copy of the
# kernel tree's source (kernel/build.sh); the image carries them in /bin/ksft/
# once their kernel is built (none before: KSFT_BINS is then empty), the
# scenario step `selftest:` runs one of them by name.
KSFT      := gup_longterm_counters
KSFT_BINS  = $(if $(KART),$(addprefix $(B)/ksft/,$(KSFT)))

$(B)/ksft/%: $(KART)/selftests/mm/%.c | $(B)
	@mkdir -p $(B)/ksft
	@echo "[cc] $@ (static, kselftest from $(KART))"
	@$(CC) $(CFLAGS) -Wall -static -I$(KART)/selftests -o $@ $<

# The kernel's own mm selftests (gup_longterm, gup_test) for the exec step,
# built from each built tree's source in the cache: /bin/ksft/<name>-<kver>.
# Only the kernels built so far: `make demo` builds the image before any.
empty :=
space := $(empty) $(empty)
KVERS_BUILT = $(strip $(foreach k,$(KVERS),$(if $(wildcard $(MEMHP_CACHE)/kernel/$(k)/current),$(k))))
KSFT_UP   = $(if $(KVERS_BUILT),$(B)/ksft/.upstream-$(subst $(space),-,$(strip $(KVERS_BUILT))))
KSFT_UP_BINS = $(if $(KVERS_BUILT),$$(ls $(addprefix $(B)/ksft/gup_longterm-,$(KVERS_BUILT)) $(addprefix $(B)/ksft/gup_test-,$(KVERS_BUILT)) 2>/dev/null))

# Rebuilt when a kernel artifact changes: its tree's selftests changed with it.
# Its make headers runs as its own make, outside make check's jobserver.
$(B)/ksft/.upstream-%: workloads/kselftests.sh $(foreach a,$(KARTS),$(a)/identity.json) | $(B)
	@MAKEFLAGS= workloads/kselftests.sh $(B) $(KVERS_BUILT)

# The lab's guest image: an uncompressed cpio (nothing for the guest to
# inflate; the lab kernels' only decompressor is gzip, RD_GZIP), binaries
# stripped, the kselftests in it once their kernel is built
# (workloads/mkinitramfs.sh; docs/workloads.md, "The guest image").
IMG := $(B)/initramfs.cpio
image: workloads
	@$(MAKE) --no-print-directory $(KSFT_UP) $(IMG)

$(IMG): $(B)/memhp-pin $(KSFT_BINS) $(KSFT_UP) workloads/init workloads/shutdown workloads/mkinitramfs.sh
	@echo "[image] $@$(if $(KSFT_BINS),, (no kernel built yet: without the kselftests))"
	@workloads/mkinitramfs.sh $@ $(B)/memhp-pin $(KSFT_BINS) $(KSFT_UP_BINS)

# guest: debian (issue 15): Debian's own userspace, mmdebstrap'ed once into the cache.
image-debian: workloads
	@$(MAKE) --no-print-directory $(B)/initramfs-debian.cpio.gz

$(B)/initramfs-debian.cpio.gz: $(B)/memhp-pin $(KSFT_BINS) $(KSFT_UP) workloads/debian-guest.sh \
		workloads/debian/memhp-modules workloads/debian/memhp-modules.service
	@echo "[image] $@ (Debian 12 userspace)"
	@workloads/debian-guest.sh $@ $(B)/memhp-pin $(KSFT_BINS) $(KSFT_UP_BINS)

# deps, the patched 6.12 kernel alone, the guest image (docs/soak.md's timer).
DEMO_KVERS  := 6.12
demo-setup:
	@$(MAKE) --no-print-directory KVERS="$(DEMO_KVERS)" KERNEL_FLAVOURS= kernel
	@$(MAKE) --no-print-directory KVERS="$(DEMO_KVERS)" image

# tools/demo.sh: deps; the patched 6.12 kernel's build starts in the
# background (nice 19); the guest image (no kernel build) and the
# orchestrator, the demo on Debian's stock 6.12 cloud kernel (apt, no build),
# then, once the kernel is built, the A/B of the series on it; each step says
# what it builds and how long it took last time ($(MEMHP_CACHE)/durations/).
demo:
	@tools/demo.sh

# The first result alone: the stock kernel's demo, no kernel build.
demo-stock:
	@tools/demo.sh --stock-only

# Unit tests link the orchestrator's parsers; no guest needed. One file per
# module under test in tests/unit/ (main.c the runner, unit.h the case tables).
# Compiled one object per source into $(B)/unit-obj/, so that a change to
# one file (make mutants: one mutant at a time) recompiles that file alone.
UNIT_SRC := $(wildcard tests/unit/*.c)
# the workloads' files the unit tests link (memhp-pin's census, scatter layout and retry)
UNIT_WORKLOADS := workloads/census.c workloads/buffer.c workloads/retry.c
UNIT_OBJS := $(patsubst %.c,$(B)/unit-obj/%.o,$(UNIT_SRC) $(ORCH_LIB) $(UNIT_WORKLOADS))

$(B)/unit-obj/%.o: %.c tests/unit/unit.h tests/tap.h $(ORCH_HDR) $(wildcard workloads/*.h) | $(B)
	@mkdir -p $(@D)
	@$(CCACHE) $(CC) $(WARN) $(CFLAGS) $(ORCH_INC) -Iworkloads -Itests $$(pkg-config --cflags $(PKGS)) -c -o $@ $<

$(B)/unit-tests: $(UNIT_OBJS) | $(B)
	@echo "[cc] $@"
	@$(CC) $(CFLAGS) -o $@ $(UNIT_OBJS) $$(pkg-config --libs $(PKGS)) -lpthread -lm

# Every orchestrator file's object, the command line's too: tests/layers.py
# reads their symbols (docs/architecture.md, "Layers").
LAYER_OBJS := $(patsubst %.c,$(B)/unit-obj/%.o,$(ORCH_SRC))
# Kept, but not rebuilt for their own sake: a build folder that holds
# memhp-lab newer than its sources and no objects (tests/trust.sh's make
# install) builds nothing.
.SECONDARY: $(UNIT_OBJS) $(LAYER_OBJS)

unit-tests: $(B)/unit-tests $(LAYER_OBJS)

# Mutation testing (docs/testing.md, "Mutants"): each tests/mutants/NN-name.patch,
# or those named (make mutants MUTANTS="01-size-guard-wraps ..."), applied in
# turn to one scratch copy of the tracked tree under /tmp; build/unit-tests is
# rebuilt there and run with the patch's Catch: filter, which must fail.
MUTANTS ?=
mutants:
	@tools/mutants.sh $(MUTANTS)

.PHONY: mutants

# The fast tier (CI's gate, at most 15 minutes warm) and the full tier
# (everything: soaks, the fleet's host kills, the kmemleak flavour, the second
# kernel's duplicates, long fuzzing). PARTS=... runs some parts alone
# (tests/run.sh --list names them); docs/testing.md.
# check builds what the parts need on every core (the compiles that ccache
# does not answer, the static memhp-pin and kselftests beside the
# orchestrator's objects), after deps and the kernels, which keep their own
# order; the parts run after it, outside that make's jobserver.
PARTS ?=
CHECK_JOBS ?= $(shell nproc)
check: deps kernel
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) image orchestrator unit-tests
	@tests/run.sh $(PARTS)

# The images after the kernels (a recipe, not a prerequisite: with -j a
# prerequisite image could be made before the kernel whose kselftests it carries).
check-full: deps kernel kernel-kmemleak orchestrator unit-tests $(B)/asan/memhp-lab
	@$(MAKE) --no-print-directory image image-debian
	@tests/run.sh --full $(PARTS)

# The orchestrator under AddressSanitizer with LeakSanitizer, built with
# Debian's clang: the full tier's leak checks run a soak and a -j 2 run with
# it (tests/soak.sh; tests/lsan.supp names what libvirt, GLib and json-c keep
# that is not ours). It finds its data as build/memhp-lab does (cli/cli.c).
ASAN_CC    ?= clang
ASAN_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address
$(B)/asan/memhp-lab: $(ORCH_SRC) $(ORCH_HDR) | $(B)
	@mkdir -p $(@D)
	@echo "[cc] $@ (ASan, LSan)"
	@$(ASAN_CC) $(WARN) $(ASAN_FLAGS) -DMHL_VERSION='"$(VERSION)"' $(ORCH_INC) $$(pkg-config --cflags $(PKGS)) \
		-o $@ $(ORCH_SRC) $$(pkg-config --libs $(PKGS)) -lpthread -lm

# The hypervisor stacks the lab builds (docs/stacks.md): a root each in
# $(MEMHP_CACHE)/stacks/NAME, by mmdebstrap, once per machine (a run with
# --stack NAME builds its own on first use); each says what it builds and how
# long it took last time. Nothing goes into the host's packages or apt sources.
STACKS := backports
stacks: deps
	@for s in $(STACKS); do stacks/build.sh "$$s" --say-cached >/dev/null || exit 1; done

bench: deps kernel orchestrator
	@$(MAKE) --no-print-directory image
	@tools/bench.sh

conformance: deps kernel orchestrator
	@$(MAKE) --no-print-directory image
	@tools/conformance.sh

# The conformance report in headless Chromium at 1366 and 1920 px: console,
# plots, labels, the grid; the screenshots into docs/ (docs/reports.md).
report-check: deps orchestrator
	@LAB=$(B)/memhp-lab tools/report-check.sh -o docs

# Debian's kernels come from apt (kernel/package.sh); the guest images need no kernel build.
stock: deps image image-debian orchestrator
	@tools/stock.sh

# Line and branch coverage of orchestrator/ and reports/ under the fast tier:
# memhp-lab and the unit tests built with --coverage into $(B)/cov/, make
# check's parts run with them (MHL_LAB, MHL_UNIT), gcovr (Debian) summarises
# into $(B)/cov/html/index.html and prints the per-file table. A failing part
# does not stop the report (it says so); the figure is in README.md.
COV       := $(B)/cov
# Atomic counters: memhp-lab's threads (the event loop, the guard) and
# processes update the same counters; plain ones can end up negative.
COV_FLAGS := -O0 -g --coverage -fprofile-update=atomic
COV_OBJS  := $(patsubst %.c,$(COV)/obj/%.o,$(ORCH_SRC))
COV_LIB   := $(patsubst %.c,$(COV)/obj/%.o,$(ORCH_LIB))

$(COV)/obj/%.o: %.c $(ORCH_HDR)
	@mkdir -p $(@D)
	@$(CC) $(WARN) $(COV_FLAGS) -DMHL_VERSION='"$(VERSION)"' $(ORCH_INC) -Iworkloads -Itests $$(pkg-config --cflags $(PKGS)) -c -o $@ $<

$(COV)/memhp-lab: $(COV_OBJS)
	@echo "[cc] $@ (coverage)"
	@$(CC) --coverage -fprofile-update=atomic -o $@ $^ $$(pkg-config --libs $(PKGS)) -lpthread -lm

COV_WORKLOADS := $(patsubst %.c,$(COV)/obj/%.o,$(UNIT_WORKLOADS))
$(COV)/unit-tests: $(UNIT_SRC) tests/unit/unit.h tests/tap.h $(COV_LIB) $(COV_WORKLOADS)
	@echo "[cc] $@ (coverage)"
	@$(CC) $(WARN) $(COV_FLAGS) $(ORCH_INC) -Iworkloads -Itests $$(pkg-config --cflags $(PKGS)) \
		-o $@ $(UNIT_SRC) $(COV_LIB) $(COV_WORKLOADS) $$(pkg-config --libs $(PKGS)) -lpthread -lm

# kernel/package.sh's helper too (host/kmod.c is its code).
$(COV)/memhp-kmod: $(COV)/obj/kernel/memhp-kmod.o $(COV)/obj/kernel/kmod-extract.o $(COV)/obj/orchestrator/host/kmod.o $(COV)/obj/lib/util.o
	@echo "[cc] $@ (coverage)"
	@$(CC) --coverage -fprofile-update=atomic -o $@ $^ $$(pkg-config --libs $(PKGS) libarchive)

coverage: deps kernel orchestrator unit-tests $(COV)/memhp-lab $(COV)/unit-tests $(COV)/memhp-kmod
	@$(MAKE) --no-print-directory image
	@find $(COV)/obj -name '*.gcda' -delete
	@MHL_LAB=$(COV)/memhp-lab MHL_UNIT=$(COV)/unit-tests MEMHP_KMOD=$(abspath $(COV)/memhp-kmod) tests/run.sh $(PARTS) || \
		echo "coverage: some checks failed (above); the figures below are of what ran" >&2
	@mkdir -p $(COV)/html
	@gcovr --root . --object-directory $(COV)/obj --filter 'orchestrator/' --filter 'reports/' \
		--exclude-unreachable-branches --gcov-ignore-parse-errors --print-summary \
		--html-details $(COV)/html/index.html --txt $(COV)/coverage.txt $(COV)/obj >$(COV)/summary.txt
	@cat $(COV)/summary.txt
	@echo "coverage: $(COV)/html/index.html, per file: $(COV)/coverage.txt"

.PHONY: coverage

# libFuzzer targets (tests/fuzz/<target>.c, one per parser) with ASan and
# UBSan, built with Debian's clang against the orchestrator's objects compiled
# for coverage into $(B)/fuzz/obj/. `make fuzz FUZZ_SECONDS=600` runs each that
# long (tools/fuzz.sh; FUZZ_TARGETS picks some); make check runs each briefly.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_FLAGS   := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -g -O1 -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/*.c))
FUZZ_OBJS    := $(patsubst %.c,$(B)/fuzz/obj/%.o,$(ORCH_LIB))

$(B)/fuzz/obj/%.o: %.c $(ORCH_HDR)
	@mkdir -p $(@D)
	@$(CCACHE) $(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(ORCH_INC) $$(pkg-config --cflags $(PKGS)) -c -o $@ $<

$(B)/fuzz/liborch.a: $(FUZZ_OBJS)
	@echo "[ar] $@"
	@rm -f $@ && ar rcs $@ $^

# Compiled, then linked: the compile is what ccache keeps.
$(B)/fuzz/target-obj/%.o: tests/fuzz/%.c tests/fuzz/fuzz.h $(ORCH_HDR)
	@mkdir -p $(@D)
	@$(CCACHE) $(FUZZ_CC) $(FUZZ_FLAGS) -Werror -fsanitize=fuzzer $(ORCH_INC) -Itests $$(pkg-config --cflags $(PKGS)) \
		-c -o $@ $<

$(B)/fuzz/%: $(B)/fuzz/target-obj/%.o $(B)/fuzz/liborch.a
	@echo "[fuzz] $@"
	@$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(B)/fuzz/liborch.a $$(pkg-config --libs $(PKGS)) -lpthread -lm

fuzz-build: $(FUZZ_BINS)

fuzz: deps fuzz-build
	@tools/fuzz.sh --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build

# The man page and the bash completion, printed by memhp-lab from the option
# tables that drive its parsing and --help (orchestrator/cli/: registry.c, cmd-*.c, man.c).
$(B)/memhp-lab.1: $(B)/memhp-lab
	@echo "[man] $@"
	@$(B)/memhp-lab --man >$@.tmp && mv $@.tmp $@

$(B)/memhp-lab.bash-completion: $(B)/memhp-lab
	@echo "[completion] $@"
	@$(B)/memhp-lab --bash-completion >$@.tmp && mv $@.tmp $@

# What `all` built, then the data an installed memhp-lab finds from its
# prefix, its man page and its bash completion. Only the orchestrator's own
# C is (re)built here: the guest images are installed as they are, and a
# missing one is an error naming the target that builds it (never a kernel
# build from install). Every path is one shell word ($(call sq,...): a
# DESTDIR or PREFIX with a space or a quote in it stays whole) and file
# names go through find -print0 | xargs -0 (no word splitting).
# kernel/package.sh goes with the data, memhp-kmod (the reader it runs on
# packages) into libexec, where memhp-lab finds it.
LIBEXECDIR   = $(PREFIX)/libexec/memhp-lab
# sq: $(1) as one single-quoted shell word (each ' closed, escaped, reopened).
sq = '$(subst ','\'',$(1))'
INST = $(call sq,$(DESTDIR)$(1))

install: $(B)/memhp-lab $(B)/memhp-kmod $(B)/memhp-lab.1 $(B)/memhp-lab.bash-completion
	@[ -f $(call sq,$(B)/initramfs.cpio) ] || \
		{ echo "Error: no guest image $(B)/initramfs.cpio: make image (or make demo) builds it; install builds no kernel" >&2; exit 1; }
	@echo "[install] "$(call INST,$(PREFIX))
	@install -D -m 0755 $(call sq,$(B)/memhp-lab) $(call INST,$(PREFIX)/bin/memhp-lab)
	@install -D -m 0755 $(call sq,$(B)/memhp-kmod) $(call INST,$(LIBEXECDIR)/memhp-kmod)
	@install -D -m 0644 $(call sq,$(B)/memhp-lab.1) $(call INST,$(MANDIR)/man1/memhp-lab.1)
	@install -D -m 0644 $(call sq,$(B)/memhp-lab.bash-completion) $(call INST,$(BASHCOMPDIR)/memhp-lab)
	@for f in initramfs.cpio initramfs-debian.cpio.gz; do [ ! -f $(call sq,$(B))/"$$f" ] || \
		install -D -m 0644 $(call sq,$(B))/"$$f" $(call INST,$(DATADIR))/"$$f" || exit 1; done
	@install -D -m 0755 kernel/package.sh $(call INST,$(DATADIR)/kernel/package.sh)
	@install -D -m 0755 kernel/apt-download.sh $(call INST,$(DATADIR)/kernel/apt-download.sh)
	@install -D -m 0755 kernel/cache-trust.sh $(call INST,$(DATADIR)/kernel/cache-trust.sh)
	@for f in build.sh host.sh; do install -D -m 0755 stacks/"$$f" $(call INST,$(DATADIR))/stacks/"$$f" || exit 1; done
	@install -D -m 0755 tools/nightly/memhp-nightly $(call INST,$(DATADIR)/nightly/memhp-nightly)
	@for f in memhp-nightly.service memhp-nightly.timer gitlab-ci.yml; do \
		install -D -m 0644 tools/nightly/"$$f" $(call INST,$(DATADIR))/nightly/"$$f" || exit 1; done
	@find domains/*.xml kernel/required.list kernel/patches scenarios docs README.md -type f -print0 | \
		xargs -0 -r -n 1 sh -c 'install -D -m 0644 "$$1" "$$0/$$1"' $(call INST,$(DATADIR))
	@find docs README.md -type f -print0 | \
		xargs -0 -r -n 1 sh -c 'install -D -m 0644 "$$1" "$$0/$$1"' $(call INST,$(DOCDIR))

clean:
	rm -rf $(B)
