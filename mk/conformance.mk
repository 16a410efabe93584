# The conformance runner isotrain-conform and its tests.
# Included by the top-level Makefile, so $(BUILD), $(NATIVE), $(SAN), $(CC),
# $(REF) and the flag sets are the ones defined there.
#
#   make conformance-runner          builds $(CONF)/isotrain-conform
#   make test-conformance            its Criterion tests (unit tests, the script
#                                    IUTs, the two mutants), natively and then
#                                    again with the ASan+UBSan build
#   make test-conformance-native     the same, native build only
#   make test-conformance-sanitize   the same, sanitizer build only
#
# `make conformance` (top-level Makefile) runs the runner on the reference.

CONF      := $(BUILD)/conform
CONF_SAN  := $(BUILD)/conform-sanitize
MUT_FLIP  := $(BUILD)/mutant-flip
MUT_FMA   := $(BUILD)/mutant-fma
CONFORM   := $(CONF)/isotrain-conform

# conformance/src/ is layered, lowest first: core/ host/ protocol/
# vectorset/ verdict/ fresh/ trust/ levels/ report/ report/matrix/
# report/html/ cli/; a file includes only its own layer and those below
# (ci/check-layers.sh holds the order and checks every #include:
# make check-layers). Objects mirror the tree.
CONF_SRCS  := $(wildcard conformance/src/*/*.c conformance/src/*/*/*.c)
CONF_HDRS  := $(wildcard conformance/src/*/*.h conformance/src/*/*/*.h)
CONF_TESTS := $(wildcard conformance/tests/*.c)
CONF_THDRS := $(wildcard conformance/tests/*.h)

# The brief's flags; POSIX 2008 for fork/poll/waitid/mkdtemp.
CONF_CFLAGS = -std=c11 -Wall -Wextra -Werror $(NUMERIC_CFLAGS) -D_POSIX_C_SOURCE=200809L \
              -Ireference/include -Iconformance/src
CONF_LIBS   := -lcjson -lm
# macOS hides BSD and Darwin declarations (DT_REG, ...) under
# _POSIX_C_SOURCE unless asked for them
ifeq ($(shell uname -s),Darwin)
CONF_CFLAGS += -D_DARWIN_C_SOURCE
endif

# The suite's revision, for --version and receipts: the full commit id (an
# abbreviation or a tag name could later name another commit), "-dirty"
# when tracked files differ from it, "unknown" outside a checkout (or
# ISOTRAIN_REVISION=... from a release tarball). Rebuilt only when it changes.
ISOTRAIN_REVISION ?= $(or $(shell git rev-parse --verify -q HEAD 2>/dev/null),unknown)$(if $(shell git rev-parse --verify -q HEAD 2>/dev/null),$(if $(shell git status --porcelain --untracked-files=no 2>/dev/null),-dirty))
CONF_GIT_REV := $(ISOTRAIN_REVISION)
# where `make install` puts the vector sets; the runner falls back to it
CONF_DATADIR = $(PREFIX)/share/isotrain

.PHONY: conformance-runner conformance-runner-sanitize test-conformance test-conformance-native \
        test-conformance-sanitize test-conformance-sanitize-all deps-conform deps-conform-test conformance-mutants check-layers

# The layer order: every #include under conformance/src resolved to its
# layer, none upward; first the negative controls (an upward include, an
# include of nothing, a folder outside the order, each planted in a scratch
# copy, must be found). With it, the length of functions (issue 29: at most
# 30 over 60 lines, none over 120), its control a planted 125-line one.
check-layers:
	@sh ci/check-layers.sh --self-test
	@sh ci/check-layers.sh
	@sh ci/check-function-length.sh --self-test
	@sh ci/check-function-length.sh

# The runner needs a C compiler and cJSON; its tests need Criterion too.
deps-conform:
	@sh ci/ensure-deps.sh build cjson
deps-conform-test:
	@sh ci/ensure-deps.sh build test cjson

# $(call conform_build,OUT,LIBDIR,OPT,EXTRA): objects, runner and test binary in OUT.
define conform_build
$(1)/obj/%.o: conformance/src/%.c $(CONF_HDRS) reference/include/isotrain.h reference/include/isotrain_profile.h | deps-conform
	@mkdir -p $$(@D)
	$$(CC) $$(CONF_CFLAGS) -pedantic $(3) $(4) -DCONFORM_CFLAGS='"$$(CC) $$(CONF_CFLAGS) $(3) $(4)"' -c $$< -o $$@

$(1)/git-rev.stamp: FORCE_CONF_REV
	@mkdir -p $(1)
	@echo '$$(CONF_GIT_REV) $$(CONF_DATADIR)' | cmp -s - $$@ || echo '$$(CONF_GIT_REV) $$(CONF_DATADIR)' > $$@

$(1)/obj/core/version.o: conformance/src/core/version.c conformance/src/core/version.h $(1)/git-rev.stamp | deps-conform
	@mkdir -p $$(@D)
	$$(CC) $$(CONF_CFLAGS) -pedantic $(3) $(4) -DCONFORM_GIT_REV='"$$(CONF_GIT_REV)"' \
	    -DCONFORM_DATADIR='"$$(CONF_DATADIR)"' -c $$< -o $$@

$(1)/isotrain-conform: $(patsubst conformance/src/%.c,$(1)/obj/%.o,$(CONF_SRCS)) $(2)/libisotrain.a
	$$(CC) $(4) $$(filter %.o,$$^) $(2)/libisotrain.a $$(CONF_LIBS) -o $$@

# Criterion's macros need GNU extensions: the tests drop -pedantic.
$(1)/conform_tests: $(CONF_TESTS) $(CONF_THDRS) $(filter-out $(1)/obj/cli/main.o,$(patsubst conformance/src/%.c,$(1)/obj/%.o,$(CONF_SRCS))) $(2)/libisotrain.a | deps-conform-test
	$$(CC) $$(CONF_CFLAGS) -O1 $(4) -Iconformance/tests $(CONF_TESTS) \
	    $$(filter-out $(1)/obj/cli/main.o,$$(filter %.o,$$^)) $(2)/libisotrain.a -lcriterion $$(CONF_LIBS) -o $$@
endef

$(eval $(call conform_build,$(CONF),$(NATIVE),-O2,))
# GCC's -fsanitize=undefined leaves float-cast-overflow out: the runner's
# sanitized build adds it, since a receipt's numbers are untrusted input
# (issue 16 §9: options.steps 1e300 converted to long).
$(eval $(call conform_build,$(CONF_SAN),$(SAN),-O1,$(SAN_FLAGS) -fsanitize=float-cast-overflow))

.PHONY: FORCE_CONF_REV
FORCE_CONF_REV:

conformance-runner: reference deps-conform
	@$(MAKE) --no-print-directory $(CONFORM)

conformance-runner-sanitize: reference-sanitize
	@$(MAKE) --no-print-directory $(CONF_SAN)/isotrain-conform

# The negative controls: the reference with one clearly marked defect each
# (spec/mutants/flip-step.patch, spec/mutants/fma-linear.patch, applied to a
# copy of the tree by ci/mutant-build.sh), each in its own build directory.
conformance-mutants: deps-build
	@sh ci/mutant-build.sh $(MUT_FLIP) flip-step.patch CC=$(CC) OPT=-O2
	@sh ci/mutant-build.sh $(MUT_FMA) fma-linear.patch CC=$(CC) OPT=-O2 EXTRA_LDFLAGS=-lm

# The tests run the runner binary on script IUTs (conformance/tests/iuts),
# the reference CLI and the mutants; they find them through the environment.
# IT_WINDOWS_RECEIPT: one real certification by windows (vectors/v1.2.0,
# --windows --steps 2: PARTIAL, exit 3), made once for both test builds
# (about 2 min on a loaded 2-core machine: the fresh windows' start states
# are most of it) rather than per test.
CONF_WINDOWS_RECEIPT := $(CONF)/fixture-windows.json
CONF_TEST_ENV = IT_REF_CLI=$(NATIVE)/isotrain IT_MUTANT_FLIP=$(MUT_FLIP)/isotrain \
                IT_MUTANT_FMA=$(MUT_FMA)/isotrain IT_VECTORS=vectors/v1.0.0 IT_VECTORS_1_1=vectors/v1.1.0 \
                IT_IUTS=conformance/tests/iuts IT_WINDOWS_RECEIPT=$(CONF_WINDOWS_RECEIPT)
$(CONF_WINDOWS_RECEIPT): $(CONFORM) $(NATIVE)/isotrain
	$(CONFORM) run --iut-exec $(NATIVE)/isotrain --vectors vectors/v1.2.0 --windows --steps 2 --receipt $@.tmp \
	    > $@.log 2>&1; rc=$$?; [ $$rc = 3 ] || { tail -n 5 $@.log; echo "fixture-windows: exit $$rc, expected 3 (PARTIAL)"; exit 1; }
	mv $@.tmp $@

test-conformance-native: deps-conform-test reference conformance-mutants
	@$(MAKE) --no-print-directory $(CONFORM) $(CONF)/conform_tests $(CONF_WINDOWS_RECEIPT)
	$(CONF_TEST_ENV) IT_CONFORM=$(CONFORM) $(CONF)/conform_tests --jobs 2

# The runner's suite under ASan+UBSan. Per commit (make test) the share of
# suites that run no training: parsers, receipts, the page, the trust model,
# hostile and misbehaving processes (116 tests, 67 s on the 2-core machine);
# the suites that certify whole runs (evidence, code_seen, iuts, matrix,
# mutants, timeouts, trust, versions: ~470 s more sanitized) run natively per
# commit and sanitized in the scheduled tier (test-conformance-sanitize-all).
# The runner's parsers are also fuzzed under both sanitizers per commit (make fuzz).
CONF_SAN_SHARE := @(base64|cli|compare|html_escape|html_writer|key_room|optable|option_table|receipt|receipt_model|report|runner_profiles|scope|sshsig|time_budget|trace|ulp|utf8|util|vectors|wire|hostile|process)/*
CONF_SAN_FILTER ?= $(CONF_SAN_SHARE)
test-conformance-sanitize: deps-conform-test reference reference-sanitize conformance-mutants
	@$(MAKE) --no-print-directory $(CONF_SAN)/isotrain-conform $(CONF_SAN)/conform_tests $(CONF_WINDOWS_RECEIPT)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=suppressions=$(CURDIR)/ci/lsan-criterion.supp \
	    $(CONF_TEST_ENV) IT_CONFORM=$(CONF_SAN)/isotrain-conform $(CONF_SAN)/conform_tests --jobs 2 \
	    $(if $(CONF_SAN_FILTER),--filter '$(CONF_SAN_FILTER)')

test-conformance-sanitize-all:
	+$(MAKE) --no-print-directory test-conformance-sanitize CONF_SAN_FILTER=

test-conformance: test-conformance-native test-conformance-sanitize
