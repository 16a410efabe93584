# Coverage-guided fuzzing with libFuzzer. Included by the top-level Makefile,
# so $(BUILD), $(REF), $(NUMERIC_CFLAGS) and $(TEST_CFLAGS) are the ones
# defined there.
#
#   make fuzz [FUZZ_SECONDS=60]   builds every harness and runs each for
#                                 FUZZ_SECONDS seconds on its committed seed
#                                 corpus; fails on the first crash, leak,
#                                 sanitizer report or time-out; prints each
#                                 harness's executions (libFuzzer's final stats)
#   make fuzz-build               builds the harnesses only
#   make fuzz-<name>              builds and runs one harness
#
# Adding a harness. Every file matching */fuzz/fuzz_*.c is a harness; its
# name is the file name without .c and must be unique in the tree:
#
#   <dir>/fuzz/<name>.c           defines LLVMFuzzerTestOneInput (no main) and
#                                 aborts when the property it checks breaks
#   <dir>/fuzz/corpus/<name>/     its seed corpus, committed (at least one file);
#                                 the run never writes here: new inputs go to
#                                 $(BUILD)/fuzz/corpus/<name>/
#   <dir>/fuzz/<name>.dict        optional libFuzzer dictionary
#   <dir>/fuzz/<name>.mk          optional; may set, all with := and prefixed by
#                                 the harness name:
#       <name>_SRCS    further C sources compiled into the harness, with the
#                      harness's flags (e.g. conformance/src/core/json_checked.c)
#       <name>_CFLAGS  further compiler flags (e.g. -Iconformance/src -D_POSIX_C_SOURCE=200809L)
#       <name>_LIBS    further link inputs (e.g. -lcjson -lm)
#       <name>_DEPS    further prerequisites of the binary (e.g. generated headers)
#       <name>_ARGS    further libFuzzer flags (e.g. -max_len=65536 -timeout=30)
#
# Every harness is compiled with $(FUZZ_CC) -fsanitize=fuzzer,address,undefined,
# the project's warnings and the numeric flags of spec §2.4, and linked with
# $(FUZZ_REFLIB): the reference library built the same way (instrumented for
# coverage, sanitized), so a harness for the runner gets "the reference linked
# into the runner" too. Example for a runner harness, conformance/fuzz/fuzz_trace.mk:
#
#   fuzz_trace_SRCS   := conformance/src/report/trace.c conformance/src/core/util.c
#   fuzz_trace_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
#   fuzz_trace_LIBS   := -lcjson -lm
#
# with conformance/fuzz/fuzz_trace.c and conformance/fuzz/corpus/fuzz_trace/.

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_OUT     := $(BUILD)/fuzz
FUZZ_LIBDIR  := $(FUZZ_OUT)/lib
FUZZ_REFLIB  := $(FUZZ_LIBDIR)/libisotrain.a
# Sanitizer reports abort (libFuzzer then saves the input); -g for the stacks.
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g
FUZZ_CFLAGS  := $(TEST_CFLAGS) -O1 $(NUMERIC_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -Ireference/include

FUZZ_SRCS  := $(sort $(wildcard */fuzz/fuzz_*.c))
FUZZ_NAMES := $(basename $(notdir $(FUZZ_SRCS)))
-include $(FUZZ_SRCS:.c=.mk)

.PHONY: fuzz fuzz-build deps-fuzz $(addprefix fuzz-,$(FUZZ_NAMES))

deps-fuzz:
	@FUZZ_CC=$(FUZZ_CC) sh ci/ensure-deps.sh build fuzz

# The reference library with coverage instrumentation but without
# libFuzzer's main (fuzzer-no-link): the harness brings the entry point.
$(FUZZ_REFLIB): $(wildcard reference/src/*.c reference/src/*.h) reference/include/isotrain.h | deps-fuzz
	@$(REF) OUT=$(FUZZ_LIBDIR) CC=$(FUZZ_CC) OPT=-O1 \
	    EXTRA_CFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_REFLIB)

# $(call fuzz_harness,PATH.c): the binary and the run target of one harness.
define fuzz_harness
$(1)_name := $$(basename $$(notdir $(1)))
$(1)_dir  := $$(dir $(1))

$$(FUZZ_OUT)/$$($(1)_name): $(1) $$($$($(1)_name)_SRCS) $$($$($(1)_name)_DEPS) $$(FUZZ_REFLIB) \
                            $$(wildcard $$($(1)_dir)*.h) | deps-fuzz
	@mkdir -p $$(FUZZ_OUT)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$($$($(1)_name)_CFLAGS) $(1) $$($$($(1)_name)_SRCS) \
	    $$(FUZZ_REFLIB) $$($$($(1)_name)_LIBS) -o $$@

fuzz-$$($(1)_name): $$(FUZZ_OUT)/$$($(1)_name)
	@sh ci/fuzz-run.sh $$(FUZZ_OUT)/$$($(1)_name) $$($(1)_dir)corpus/$$($(1)_name) $$(FUZZ_OUT) \
	    $(FUZZ_SECONDS) $$(wildcard $$($(1)_dir)$$($(1)_name).dict) -- $$($$($(1)_name)_ARGS)
endef
$(foreach h,$(FUZZ_SRCS),$(eval $(call fuzz_harness,$(h))))

fuzz-build: $(addprefix $(FUZZ_OUT)/,$(FUZZ_NAMES))

fuzz: $(addprefix fuzz-,$(FUZZ_NAMES))
	@echo "make fuzz: $(words $(FUZZ_NAMES)) harness(es) ran $(FUZZ_SECONDS) s each without a crash: $(FUZZ_NAMES)"
