# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# xlprobe build. Outputs live under .output/; `make V=1` shows commands.
#
#   make            build .output/xlprobe
#   make demo       install missing Debian packages, build, run the demo
#   make test       install missing Debian packages, build, run every test
#   make check-layers  each user-space layer uses only the layers it lists, each BPF
#                   header compiles alone (make test runs it)
#   make bench      overhead benchmarks (not part of make test), <= 15 minutes
#   make bench-quick  the summary's rows 1-4 only, <= 5 minutes
#   make scorecard  perturbation and real-software suites, one line per scenario
#   make fuzz       libFuzzer harnesses, FUZZ_SECONDS each (default 300), or
#                   FUZZ_RUNS executions in FUZZ_JOBS processes (FUZZ_ONLY=NAME)

OUTPUT := .output
ARCH ?= $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
# the build inside make test, demo and bench: one job per CPU (139 s -> 68 s
# on this 2-CPU VM from a clean clone)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SUFFIXES:

VMLINUX := vmlinux/$(ARCH)/vmlinux.h
# state.bpf.c defines the maps the others declare extern; libbpf 1.1's
# linker needs the definition before the first reference, so it goes first.
# selftest.bpf.c is test-only: it goes into a second object and skeleton
# (the product's programs plus it), never into the product's.
BPF_TEST_SRCS := bpf/selftest.bpf.c
BPF_SRCS := bpf/state.bpf.c \
	$(sort $(filter-out bpf/state.bpf.c $(BPF_TEST_SRCS),$(wildcard bpf/*.bpf.c)))
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_TEST_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_TEST_SRCS))
SKEL := $(OUTPUT)/xlprobe.skel.h
TEST_SKEL := $(OUTPUT)/xlprobe_test.skel.h

# ---- layers ----
# User space is built in layers, each a folder; a layer may use the layers
# it lists in L_USES and, through them, what those use (README.md,
# "Architecture"). The graph branches: the recorder never needs the
# analysis, the analysis never needs ELF symbols.
#
#   layer      folder               may use        what
#   lib        user/lib/            -              logging, util, escaping, JSON writer, output files
#   trace      user/trace/          lib            the trace file: format, reader, writer (+ bpf/xlprobe.h)
#   symbols    user/symbols/        trace          ELF symbols (--func), stack unwinding, frame names
#   stats      analysis/stats/      lib            statistics, statistical tests, labels, decision trees
#   dataset    analysis/dataset/    trace          a trace's runs, functions, samples, resources
#   waits      analysis/waits/      dataset        wait chains (--timeline), async tasks
#   growth     analysis/growth/     dataset        how functions grow with the workload size (--growth)
#   diagnosis  analysis/diagnosis/  stats dataset waits  the pipeline: steps 1 and 2, evidence, answers
#   issues     analysis/issues/     diagnosis      lags of many traces grouped into issues
#   report     user/report/         diagnosis issues growth  every sentence of a report
#   export     user/export/         issues         export: folded stacks, Perfetto, pprof, fleet tables
#   record     user/record/         symbols        record: options, BPF session, sampler, launches
#   cli        user/cli/            report export record  main and the analysing commands
#
# LAYERS lists them so that a layer comes after every layer it uses (the
# archives link in the reverse order). One archive and one include path per
# layer: a layer compiles with the -I of itself and of the layers it may use
# only, so an include of any other layer's header does not build. A
# layer's private/ folder (headers its files share and no other layer
# sees) is on its own -I alone. `make check-layers` (run by make test)
# proves it with probes that must fail, and rejects "../" includes, include
# cycles, and symbols a layer takes from a layer it may not use.
LAYERS := lib trace symbols stats dataset waits growth diagnosis issues report export record cli
# each layer's folder: user/LAYER, or analysis/LAYER for the analysis's
ANALYSIS_LAYERS := stats dataset waits growth diagnosis issues
$(foreach L,$(LAYERS),$(eval $(L)_DIR := $(if $(filter $(L),$(ANALYSIS_LAYERS)),analysis,user)/$(L)))
lib_USES :=
trace_USES := lib
symbols_USES := trace
stats_USES := lib
dataset_USES := trace
waits_USES := dataset
growth_USES := dataset
diagnosis_USES := stats dataset waits
issues_USES := diagnosis
report_USES := diagnosis issues growth
export_USES := issues
record_USES := symbols
cli_USES := report export record
# a layer's own directory and its headers' other homes: the trace layer's
# bpf/xlprobe.h (the record layouts), the recorder's skeleton
trace_XINC := -Ibpf
record_XINC := -I$(OUTPUT)
# every layer L may use, directly or through another (L_ALL)
uses_all = $(sort $(foreach U,$($(1)_USES),$(U) $(call uses_all,$(U))))
$(foreach L,$(LAYERS),$(eval $(L)_ALL := $(filter $(call uses_all,$(L)),$(LAYERS))))
$(foreach L,$(LAYERS),$(eval $(L)_INC := $(foreach U,$($(L)_ALL) $(L),-I$($(U)_DIR) $($(U)_XINC))))
$(foreach L,$(LAYERS),$(eval $(L)_PRIV := $(wildcard $($(L)_DIR)/private)))
# what the layer's own files compile with: its include path and its private/
$(foreach L,$(LAYERS),$(eval $(L)_OWN_INC := $($(L)_INC) $(addprefix -I,$($(L)_PRIV))))
$(foreach L,$(LAYERS),$(eval $(L)_SRCS := $(sort $(wildcard $($(L)_DIR)/*.c))))
$(foreach L,$(LAYERS),$(eval $(L)_HDRS := $(sort $(wildcard $($(L)_DIR)/*.h))))
$(foreach L,$(LAYERS),$(eval $(L)_PRIV_HDRS := $(sort $(wildcard $($(L)_DIR)/private/*.h))))
cli_SRCS := $(filter-out user/cli/main.c,$(cli_SRCS))
# the BPF <-> user-space contract belongs to the trace layer, the skeleton to the recorder
trace_HDRS += bpf/xlprobe.h bpf/xlprobe_format.h bpf/xlprobe_stack.h
record_HDRS += $(SKEL)
$(foreach L,$(LAYERS),$(eval $(L)_AR := $(OUTPUT)/libxlprobe-$(L).a))
reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
# archives in link order: a layer before the layers it uses
LAYER_ARS := $(foreach L,$(call reverse,$(LAYERS)),$($(L)_AR))

LIB_SRCS := $(foreach L,$(LAYERS),$($(L)_SRCS))
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(LIB_SRCS))
BIN := $(OUTPUT)/xlprobe
# The test build: the same program with the test hooks of user/lib/testhooks.h
# (environment variables that simulate a kernel without BTF and the like).
# Only the files that use a hook are compiled twice; the product binary
# has none.
TEST_BIN := $(OUTPUT)/xlprobe-test
HOOK_SRCS := $(shell grep -lw xlp_test_hook $(LIB_SRCS))
HOOK_OBJS := $(patsubst %.c,$(OUTPUT)/obj-hooks/%.o,$(HOOK_SRCS))

CFLAGS ?= -O2 -g
# no -I here: every layer adds its own ($(L)_OWN_INC); tests see every layer,
# private headers too (white-box unit tests)
XCFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
	-MMD -MP -D_GNU_SOURCE
TEST_INC := $(cli_INC) $(foreach L,$(LAYERS),$(addprefix -I,$($(L)_PRIV))) -Itests/lib
# liblzma: MiniDebugInfo, the xz-compressed symbols of .gnu_debugdata (user/symbols/minidebug.c)
# -liberty: libiberty's demangler (user/lib/demangle.c), a static archive built PIC
BASE_LDLIBS := -lbpf -lelf -llzma -lz -lm -liberty
# CFI unwinding of sampled stacks (user/unwind.c) with elfutils' libdw;
# NO_LIBDW=1 builds without it (frame pointers only): the static builds,
# whose libdw.a would pull in more archives than Debian's static list holds
ifeq ($(NO_LIBDW),1)
LDLIBS := $(BASE_LDLIBS)
else
XCFLAGS += -DXLP_HAVE_LIBDW
LDLIBS := -ldw $(BASE_LDLIBS)
endif

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(dir $(VMLINUX)) -Ibpf \
	-Wall -Werror -Wno-unused-function -Wno-compare-distinct-pointer-types -MMD -MP
# libbpf's usdt.bpf.h includes <linux/errno.h>, whose <asm/errno.h> is in
# the multiarch directory (the same numbers on every architecture)
$(OUTPUT)/bpf/usdt.bpf.o: BPF_CFLAGS += -idirafter /usr/include/$(shell gcc -dumpmachine)

# Test programs and workloads: ordinary prologues (push %rbp) so uprobes are
# emulated, not single-stepped (see README, "Overhead").
WL_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -fcf-protection=none \
	-fno-inline -fno-optimize-sibling-calls -Wall -Wextra -Werror -Wno-unused-parameter -pthread

WL_CXXFLAGS := -std=gnu++17 $(filter-out -std=gnu11,$(WL_CFLAGS))

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
ROOT_SRCS := $(sort $(wildcard tests/root/test_*.c))
E2E_SRCS := $(sort $(wildcard tests/e2e/*.c))
WL_SRCS := $(sort $(wildcard tests/workloads/*.c) $(wildcard tests/e2e/workloads/*.c))
# C++ workloads (demangled names): g++, the same code-generation flags
WL_CXX_SRCS := $(sort $(wildcard tests/workloads/*.cc))
BENCH_SRCS := $(sort $(filter-out %.bpf.c,$(wildcard tests/bench/*.c)))
TEST_BINS := $(patsubst %.c,$(OUTPUT)/%,$(UNIT_SRCS) $(ROOT_SRCS) $(E2E_SRCS) $(BENCH_SRCS))
WL_BINS := $(patsubst %.c,$(OUTPUT)/%,$(WL_SRCS)) $(OUTPUT)/tests/workloads/build2/lagwl \
	$(patsubst %.cc,$(OUTPUT)/%,$(WL_CXX_SRCS))
TESTLIB_SRCS := $(sort $(wildcard tests/lib/*.c))
TESTLIB_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(TESTLIB_SRCS))
# keep the objects of test programs: intermediate files of pattern rules
# (only those: a missing archive must be rebuilt, not skipped)
.SECONDARY: $(patsubst %.c,$(OUTPUT)/obj/%.o,$(UNIT_SRCS) $(ROOT_SRCS) $(E2E_SRCS) \
	$(BENCH_SRCS) $(TESTLIB_SRCS) $(wildcard tests/fuzz/test_*.c))

.PHONY: all deps demo test unit-test bench bench-quick scorecard servers-test clean format format-check install
all: $(BIN)

deps:
	$(Q)tools/install-deps.sh

$(OUTPUT) $(OUTPUT)/bpf:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# the Makefile too: which files go into which object is decided here
$(OUTPUT)/xlprobe.bpf.o: $(BPF_OBJS) Makefile
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $(BPF_OBJS)

$(SKEL): $(OUTPUT)/xlprobe.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xlprobe_bpf > $@

$(OUTPUT)/xlprobe_test.bpf.o: $(BPF_OBJS) $(BPF_TEST_OBJS) Makefile
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $(BPF_OBJS) $(BPF_TEST_OBJS)

$(TEST_SKEL): $(OUTPUT)/xlprobe_test.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xlprobe_test_bpf > $@

# Objects of layer $(1), compiled with its include path only; the CLI's
# need the skeleton first. Pattern rules of a subdirectory (user/lib/%)
# win over user/% (shorter stem).
define layer_rules
$(OUTPUT)/obj/$($(1)_DIR)/%.o: $($(1)_DIR)/%.c $(if $(filter record cli,$(1)),| $(SKEL))
	$$(call msg,CC,$$@)
	$$(Q)mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(CFLAGS) $$(XCFLAGS) $$($(1)_OWN_INC) -c $$< -o $$@

$(OUTPUT)/obj-hooks/$($(1)_DIR)/%.o: $($(1)_DIR)/%.c $(if $(filter record cli,$(1)),| $(SKEL))
	$$(call msg,CC,$$@)
	$$(Q)mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(CFLAGS) $$(XCFLAGS) $$($(1)_OWN_INC) -DXLP_TEST_HOOKS -c $$< -o $$@

$($(1)_AR): $(patsubst %.c,$(OUTPUT)/obj/%.o,$($(1)_SRCS))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach L,$(LAYERS),$(eval $(call layer_rules,$(L))))

$(BIN): $(OUTPUT)/obj/user/cli/main.o $(LAYER_ARS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(TEST_BIN): $(OUTPUT)/obj/user/cli/main.o $(HOOK_OBJS) $(filter-out $(patsubst %.c,$(OUTPUT)/obj/%.o,$(HOOK_SRCS)),$(LIB_OBJS))
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# test programs sit above every layer: all include paths, all archives
$(OUTPUT)/tests/%: $(OUTPUT)/obj/tests/%.o $(TESTLIB_OBJS) $(LAYER_ARS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/obj/tests/%.o: tests/%.c | $(SKEL) $(TEST_SKEL)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) $(TEST_INC) -c $< -o $@

$(OUTPUT)/tests/workloads/%: tests/workloads/%.c tests/workloads/wl.h
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(WL_CFLAGS) $< -o $@ -lm

$(OUTPUT)/tests/workloads/%: tests/workloads/%.cc tests/workloads/wl.h
	$(call msg,CXX-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CXX) $(WL_CXXFLAGS) $< -o $@ -lm

# nofp is built as Debian builds glibc, nginx and redis: -O2, no frame
# pointers (tests/root/test_unwind.c unwinds it with its CFI)
$(OUTPUT)/tests/workloads/nofp: tests/workloads/nofp.c tests/workloads/wl.h
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -fomit-frame-pointer -fno-optimize-sibling-calls -Wall -Wextra \
		-Werror -Wno-unused-parameter $< -o $@

# timed clocks its life from its first instruction: linked static (no
# dynamic loader runs before it) with its own entry point (see the file)
$(OUTPUT)/tests/workloads/timed: tests/workloads/timed.c tests/workloads/wl.h
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(WL_CFLAGS) -static -Wl,-e,timed_entry $< -o $@

# lagwl rebuilt with other code before its functions: the same program in
# another build (other addresses, another build-id; tests/root/test_issues.c)
$(OUTPUT)/tests/workloads/build2/lagwl: tests/workloads/lagwl.c tests/workloads/wl.h
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(WL_CFLAGS) -DLAGWL_BUILD2 $< -o $@ -lm

# app, the one workload in several files: app.c and what it sets up (app/*.c)
$(OUTPUT)/tests/e2e/workloads/app: tests/e2e/workloads/app.c $(wildcard tests/e2e/workloads/app/*.c) \
		tests/e2e/workloads/app/app.h tests/workloads/wl.h
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(WL_CFLAGS) $(filter %.c,$^) -o $@ -lm

$(OUTPUT)/tests/e2e/workloads/%: tests/e2e/workloads/%.c tests/workloads/wl.h
	$(call msg,CC-WL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(WL_CFLAGS) $< -o $@ -lm

# The micro-benchmarks of BPF building blocks (tools/bench.sh section 4):
# an object and skeleton of their own, no libxlprobe.
MICRO := $(OUTPUT)/tests/bench/micro/bpf_micro
$(OUTPUT)/tests/bench/micro/bpf_micro.bpf.o: tests/bench/micro/bpf_micro.bpf.c $(VMLINUX)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/tests/bench/micro/bpf_micro.skel.h: $(OUTPUT)/tests/bench/micro/bpf_micro.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name bpf_micro_bpf > $@

$(MICRO): tests/bench/micro/bpf_micro.c $(OUTPUT)/tests/bench/micro/bpf_micro.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) -I$(OUTPUT)/tests/bench/micro $< -lbpf -lelf -lz -o $@

build-tests: $(BIN) $(TEST_BIN) $(TEST_BINS) $(WL_BINS) $(MICRO)
.PHONY: build-tests

# The layers' direction (tests/check-layers.sh), from the variables above;
# make test runs it first.
check-layers: $(LAYER_ARS) $(SKEL) $(VMLINUX)
	$(call msg,CHECK,layers)
	$(Q)CC='$(CC)' PROBE_CFLAGS='$(filter-out -MMD -MP,$(XCFLAGS))' LAYERS='$(LAYERS)' \
		CLANG='$(CLANG)' BPF_PROBE_CFLAGS='$(filter-out -MMD -MP,$(BPF_CFLAGS))' \
		$(foreach L,$(LAYERS),$(L)_DIR='$($(L)_DIR)' $(L)_INC='$($(L)_INC)' \
		$(L)_OWN_INC='$($(L)_OWN_INC)' $(L)_USES='$($(L)_USES)' $(L)_ALL='$($(L)_ALL)' \
		$(L)_HDRS='$($(L)_HDRS)' $(L)_PRIV_HDRS='$($(L)_PRIV_HDRS)' \
		$(L)_AR='$($(L)_AR)') tests/check-layers.sh
.PHONY: check-layers

# ---- fuzzing: libFuzzer + ASan + UBSan (clang), harnesses in tests/fuzz/ ----
# The library is built again with clang and the sanitizers under
# .output/fuzz/; tests/fuzz/test_fuzz (part of make test) replays the
# corpus and fuzzes the harnesses for 20 s in all; make fuzz for longer.
FUZZ_SECONDS ?= 300
FUZZ_CFLAGS := -g -O2 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_ARS := $(foreach L,$(call reverse,$(LAYERS)),$(OUTPUT)/fuzz/libxlprobe-$(L).a)
FUZZ_TEST_BINS := $(patsubst %.c,$(OUTPUT)/%,$(sort $(wildcard tests/fuzz/test_*.c)))
build-tests: build-fuzz $(FUZZ_TEST_BINS)

# the layers again, one archive each, with the same include paths
define fuzz_layer_rules
$(OUTPUT)/fuzz/obj/$($(1)_DIR)/%.o: $($(1)_DIR)/%.c $(if $(filter record cli,$(1)),| $(SKEL))
	$$(call msg,CC-FUZZ,$$@)
	$$(Q)mkdir -p $$(dir $$@)
	$$(Q)$$(CLANG) $$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $$(XCFLAGS) $$($(1)_OWN_INC) -c $$< -o $$@

$(OUTPUT)/fuzz/libxlprobe-$(1).a: $(patsubst %.c,$(OUTPUT)/fuzz/obj/%.o,$($(1)_SRCS))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach L,$(LAYERS),$(eval $(call fuzz_layer_rules,$(L))))

$(OUTPUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_ARS)
	$(call msg,FUZZER,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(XCFLAGS) $(TEST_INC) $< $(FUZZ_ARS) $(LDLIBS) -o $@

build-fuzz: $(FUZZ_BINS)
fuzz: deps
	$(Q)$(MAKE) --no-print-directory build-fuzz
	$(Q)tools/fuzz.sh $(FUZZ_SECONDS)
.PHONY: build-fuzz fuzz

# The README's two commands. Both install what is missing first.
demo: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) build-tests
	$(Q)tools/demo.sh

test: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) build-tests
	$(Q)$(MAKE) --no-print-directory check-layers
	$(Q)tests/run-tests.sh

unit-test: build-tests check-layers
	$(Q)tests/run-tests.sh --unit-only

bench: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) build-tests
	$(Q)tools/bench.sh

bench-quick: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) build-tests
	$(Q)XLP_BENCH_QUICK=1 tools/bench.sh

scorecard: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) build-tests
	$(Q)status=0; tests/e2e/scorecard || status=1; tests/real/scorecard || status=1; exit $$status

# Debian's nginx and redis-server under xlprobe alone (also in make test)
servers-test: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) build-tests
	$(Q)status=0; for t in tests/real/test_nginx tests/real/test_redis; do \
		XLP_ROOT=$$PWD $$t || status=1; done; exit $$status

format:
	$(Q)clang-format -i $$(git ls-files '*.c' '*.h' | grep -v '^vmlinux/')

format-check:
	$(Q)clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h' | grep -v '^vmlinux/')

install: $(BIN)
	install -d $(DESTDIR)/usr/local/bin $(DESTDIR)/usr/local/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)/usr/local/bin/xlprobe
	install -m 0644 user/xlprobe.1 $(DESTDIR)/usr/local/share/man/man1/xlprobe.1

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

-include $(wildcard $(OUTPUT)/bpf/*.d $(OUTPUT)/tests/bench/micro/*.d) \
	$(shell find $(OUTPUT)/obj $(OUTPUT)/obj-hooks $(OUTPUT)/fuzz/obj -name '*.d' 2>/dev/null)

# ---- static builds: make static, make ARCH=arm64 static ----
# One self-contained binary to copy to a device (adb push) or into a test
# guest: the rules above run again in a sub-make with OUTPUT moved to
# .output/static/$(ARCH), the compiler of that architecture, and -static
# against Debian's libbpf.a, libelf.a, liblzma.a and libz.a (arm64: Debian's cross
# compiler and the arm64 libraries through multiarch; the BPF object is
# built with -D__TARGET_ARCH_arm64 against vmlinux/arm64/vmlinux.h).
STATIC_DIR := $(OUTPUT)/static/$(ARCH)
STATIC_BIN := $(STATIC_DIR)/xlprobe
STATIC_CC_x86 := $(CC)
STATIC_CC_arm64 := aarch64-linux-gnu-gcc
STATIC_CC = $(STATIC_CC_$(ARCH))
STATIC_FILE_x86 := x86-64
STATIC_FILE_arm64 := ARM aarch64
STATIC_MAKE = $(MAKE) --no-print-directory OUTPUT=$(STATIC_DIR) ARCH=$(ARCH) CC=$(STATIC_CC) \
	NO_LIBDW=1 LDLIBS="-static $(BASE_LDLIBS)"

.PHONY: static static-deps
static-deps:
	$(Q)$(if $(STATIC_CC),,echo "make static: ARCH=$(ARCH) not supported (x86 or arm64)" >&2; exit 1)
	$(Q)tools/install-deps.sh --static $(ARCH)

static: static-deps
	$(Q)$(STATIC_MAKE) all
	$(Q)file -L $(STATIC_BIN) | grep -q '$(STATIC_FILE_$(ARCH)).*statically linked' || \
		{ echo "make static: $(STATIC_BIN) is not a static $(ARCH) binary: $$(file -L $(STATIC_BIN))" >&2; exit 1; }
	$(Q)file -L $(STATIC_BIN)

# The static binary of ARCH reports the checked-in traces exactly as the
# static x86 one does (arm64 runs under qemu-aarch64): tools/static-check.sh.
.PHONY: static-check
static-check:
	$(Q)$(MAKE) --no-print-directory ARCH=x86 static
	$(Q)$(if $(filter x86,$(ARCH)),,$(MAKE) --no-print-directory ARCH=$(ARCH) static)
	$(Q)tools/static-check.sh $(ARCH)

# ---- make guest-test: binder and other kernels, in a QEMU guest ----
# x86: a guest (TCG, no KVM here) on Debian's linux-source-6.1 with binder
# and binderfs built in (tools/guest-kernel.sh, cached under .output/guest/).
# ARCH=arm64: Debian 12's own arm64 kernel, binder as a module
# (tools/guest-kernel-arm64.sh, .output/guest-arm64/). Both boot an
# initramfs with the static xlprobe, a static init and the static test
# programs of tests/guest/ (tools/guest-test.sh boots it and counts the
# results). GUEST_TESTS="name ..." runs some of the tests only.
GUEST_DIR_x86 := $(OUTPUT)/guest
GUEST_DIR_arm64 := $(OUTPUT)/guest-arm64
GUEST_DIR := $(GUEST_DIR_$(ARCH))
GUEST_KERNEL_x86 := tools/guest-kernel.sh
GUEST_KERNEL_arm64 := tools/guest-kernel-arm64.sh
GUEST_PROGS := $(GUEST_DIR)/init $(GUEST_DIR)/binder_service $(GUEST_DIR)/binder_client \
	$(GUEST_DIR)/sched_mix

$(GUEST_DIR)/%: tests/guest/%.c tests/guest/binder_io.h
	$(call msg,CC-GUEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(STATIC_CC) $(WL_CFLAGS) -static $< -o $@

$(GUEST_DIR)/sched_mix: tests/workloads/sched_mix.c
	$(call msg,CC-GUEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(STATIC_CC) $(WL_CFLAGS) -static $< -o $@ -lm

.PHONY: guest-test guest-build
guest-build: $(GUEST_PROGS)
	$(Q)$(STATIC_MAKE) all $(STATIC_DIR)/xlprobe-test $(STATIC_DIR)/tests/guest/test_guest
	$(Q)$(GUEST_KERNEL_$(ARCH)) $(GUEST_DIR)

guest-test:
	$(Q)$(if $(GUEST_DIR),,echo "make guest-test: no guest for ARCH=$(ARCH) (x86 or arm64)" >&2; exit 1)
	$(Q)tools/install-deps.sh --guest $(ARCH)
	$(Q)$(MAKE) --no-print-directory guest-build
	$(Q)GUEST_ARCH=$(ARCH) tools/guest-test.sh $(GUEST_TESTS)
