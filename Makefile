# isotrain — top-level build. README.md documents the targets; ARCHITECTURE
# in README.md maps the folders. Every C build of the reference goes through
# mk/reference.mk so it carries the numeric flags of spec §2.4.

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
AARCH64_CC ?= aarch64-linux-gnu-gcc

NATIVE  := $(BUILD)/native
O0      := $(BUILD)/O0
SAN     := $(BUILD)/sanitize
AARCH64 := $(BUILD)/aarch64
TOOLS   := $(BUILD)/tools

include mk/c-flags.mk
# Criterion's macros use GNU variadic extensions, so tests drop -pedantic.
TEST_CFLAGS    := -std=c11 -Wall -Wextra -Werror
SAN_FLAGS      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g

REF = $(MAKE) --no-print-directory -f mk/reference.mk

.PHONY: suite-tmp test-prebuild
.PHONY: all reference reference-O0 reference-sanitize reference-aarch64 \
        test test-unit test-sanitize test-cross test-python-minimal check-export conformance conformance-kernels conformance-kernels-full \
        check-no-fma lint-vectors bench \
        prove-math install uninstall test-install check-workflow clean deps-build deps-test deps-cross

all: reference

deps-build:
	@sh ci/ensure-deps.sh build
deps-test:
	@sh ci/ensure-deps.sh build test
deps-cross:
	@sh ci/ensure-deps.sh build cross

reference: deps-build
	@$(REF) OUT=$(NATIVE) CC=$(CC) OPT=-O2
reference-O0: deps-build
	@$(REF) OUT=$(O0) CC=$(CC) OPT=-O0
reference-sanitize: deps-build
	@$(REF) OUT=$(SAN) CC=$(CC) OPT=-O1 EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)"
reference-aarch64: deps-cross
	@$(REF) OUT=$(AARCH64) CC=$(AARCH64_CC) OPT=-O2 EXTRA_LDFLAGS=-static

# ---- tests -----------------------------------------------------------------

TEST_SRCS := $(wildcard reference/tests/*.c)
# The CLI's protocol encoder/decoder and export writers are tested as units too.
TEST_CLI_SRCS := reference/iut/wire.c reference/iut/wire.h reference/cli/export.c reference/cli/export.h
# and rank 0's taking of the launcher's stdin pipe (MPI-free: no mpicc needed)
TEST_CLI_SRCS += reference/mpi/stdin_direct.c reference/mpi/stdin_direct.h

# $(call test_binary,OUT,EXTRA_FLAGS): Criterion suite linked against OUT's library.
define test_binary
$(1)/reference_tests: $(TEST_SRCS) $(TEST_CLI_SRCS) reference/tests/testutil.h $(1)/libisotrain.a
	$$(CC) $(TEST_CFLAGS) -O1 $(NUMERIC_CFLAGS) $(2) -Ireference/include -Ireference/src -Ireference/cli -Ireference/iut -Ireference/mpi \
	    $(TEST_SRCS) $(filter %.c,$(TEST_CLI_SRCS)) $(1)/libisotrain.a -lcriterion -lm $(2) -o $$@
endef
$(eval $(call test_binary,$(NATIVE),))
$(eval $(call test_binary,$(SAN),$(SAN_FLAGS)))

# The sub-make builds the library; the empty recipe makes this make look at
# its time again afterwards, so the suite relinks in the same run (with no
# recipe at all it kept the old time and the suite ran the old library).
$(NATIVE)/libisotrain.a: reference ; @:
$(SAN)/libisotrain.a: reference-sanitize ; @:

# The CLI tests run other builds as subprocesses; they are named by
# environment so the suite itself stays one binary.
TEST_ENV = IT_CLI=$(NATIVE)/isotrain IT_CLI_O0=$(O0)/isotrain

test-unit: deps-test reference reference-O0 $(NATIVE)/reference_tests
	$(TEST_ENV) $(NATIVE)/reference_tests --jobs 2

test-sanitize: deps-test reference reference-O0 reference-sanitize $(SAN)/reference_tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=suppressions=$(CURDIR)/ci/lsan-criterion.supp \
	    IT_CLI=$(SAN)/isotrain IT_CLI_O0=$(O0)/isotrain $(SAN)/reference_tests --jobs 2

# spec §2: the same step-200 digest natively and on aarch64 under QEMU; and
# SHA-256 through every kernel set's compression (the CPU's SHA instructions:
# x86 SHA-NI natively, Armv8 SHA2 under qemu-aarch64 -cpu cortex-a72) equal to
# the known answers and to the portable definition on every prefix of 2 MiB.
test-cross: reference reference-aarch64 check-sha256
	sh ci/cross-check.sh $(NATIVE)/isotrain "qemu-aarch64 -cpu cortex-a57 $(AARCH64)/isotrain"

$(TOOLS)/sha256_check: reference/tools/sha256_check.c reference/tools/sha256_kats.h $(NATIVE)/libisotrain.a
	@mkdir -p $(TOOLS)
	$(CC) $(WARN_CFLAGS) -O2 $(NUMERIC_CFLAGS) -Ireference/include $< $(NATIVE)/libisotrain.a -o $@
$(AARCH64)/sha256_check: reference/tools/sha256_check.c reference/tools/sha256_kats.h reference-aarch64
	$(AARCH64_CC) $(WARN_CFLAGS) -O2 $(NUMERIC_CFLAGS) -Ireference/include $< $(AARCH64)/libisotrain.a -static -o $@

# Identical bits on 1, 2, 3 and 4 threads: isotrain-conform repeat trains
# addmod113, then gptchar, four times, run N on N threads; a build whose sums are split
# across threads and added must be found different (ci/check-threads.sh;
# about 30 s CPU). Part of make test.
.PHONY: check-threads
check-threads: reference conformance-runner
	sh ci/check-threads.sh $(CONFORM) $(NATIVE)/isotrain $(BUILD)/check-threads

.PHONY: check-sha256
check-sha256: $(TOOLS)/sha256_check $(AARCH64)/sha256_check
	sh ci/check-sha256.sh $(TOOLS)/sha256_check "qemu-aarch64 -cpu cortex-a72 $(AARCH64)/sha256_check"

# spec/iut-protocol.md P9: the standard-library Python IUT passes the op
# groups it implements, and the same run over every group must not pass
# (its unsupported ops are skipped, never counted as passed).
test-python-minimal: conformance-runner
	@sh ci/ensure-deps.sh python
	sh ci/check-python-minimal.sh $(CONFORM)

# `isotrain export` read back by numpy and zipfile (safetensors by its
# layout), byte for byte against the checkpoint, natively and from a
# big-endian host (the s390x build under QEMU must write the same bytes).
check-export: reference cross-s390x
	@sh ci/ensure-deps.sh numpy
	/usr/bin/python3 ci/check-export.py $(NATIVE)/isotrain $(BUILD)/check-export \
	    "qemu-s390x -cpu qemu $(BUILD)/cross/s390x/isotrain"

# The vector set must be well-formed (lint) and exactly what the reference
# generates today (check-vectors; spec §12).
lint-vectors: conformance-runner
	$(CONFORM) lint vectors/v1.0.0
	$(CONFORM) lint vectors/v1.1.0
	$(CONFORM) lint vectors/v1.2.0
	$(CONFORM) lint vectors/v1.3.0
	$(CONFORM) lint vectors/v1.3.0/recipes/shakespeare

# make test runs with a TMPDIR of its own and a mark in the environment of
# every process it starts, so that at the end ci/check-leftovers.sh can show
# that nothing it started still runs and no work directory was left behind
# (its --self-test first shows that the check fires on a planted leftover).
SUITE_TMP  := $(abspath $(BUILD))/suite-tmp
SUITE_MARK := $(shell date +%s)-$(shell echo $$$$)
test: export TMPDIR = $(SUITE_TMP)
test: export ISOTRAIN_SUITE_RUN = $(SUITE_MARK)

suite-tmp:
	@rm -rf $(SUITE_TMP) && mkdir -p $(SUITE_TMP)

# TEST_MATRIX= leaves the host matrix out (the GitHub workflow runs it as
# one job per host and gathers the receipts; .github/workflows/isotrain.yml).
TEST_MATRIX ?= check-matrix
# The groups run by ci/run-stages.sh, which prints each one's wall and CPU
# time and a table at the end (README.md "Checks, tiers and their cost"
# quotes it); the first group that fails stops the run. `A,B+C,D` is two
# lanes side by side (A then B beside C then D): each lane keeps about one
# core busy (a runner waiting on its IUT, a browser, MPI's deadlines), so
# the pair ends in the time of the longer lane. test-prebuild first builds
# and installs what the lanes share, so no two lanes build one file or run
# apt-get at once (each lane's own builds are its own: cross/, fma-gate/,
# mpi/, install-test/).
TEST_LANES_1 = test-conformance+check-no-fma,check-export,test-install,test-mpi,test-mpi-faults,test-python-minimal
TEST_LANES_2 = conformance-kernels+conformance,check-threads,test-report,lint-vectors,check-workflow,recipe-matrix-tiny,test-mpi-recipe
# The last stretch: the mutation matrix beside the vectors and the host
# matrices. Each of these keeps about 1.6 cores busy alone (a clean clone:
# 1,207 s in a row for 1,931 s of CPU), so side by side they end in about
# the time their CPU takes on two cores; they build in separate directories
# (build/mutants/, build/cross/, the matrices' own).
TEST_LANES_3 = check-mutants,check-mutants-fresh+check-vectors,prove-math-share,$(TEST_MATRIX),check-published,matrix-gptchar-windows-share
TEST_STAGES = check-layers check-mutant-patches test-unit test-sanitize test-cross test-prebuild $(TEST_LANES_1) $(TEST_LANES_2) \
      $(TEST_LANES_3)
# What the lanes share, built (and its packages installed) before they start.
# (mpi: test-mpi and test-mpi-recipe; cross-x86_64 and cross-aarch64: lane 1's
# check-no-fma builds every cross target while lane 2's recipe-matrix-tiny
# runs on those two hosts; a build whose key matches is reused, never redone.)
# Its packages first, one stage after another; then its builds two at a time
# (each its own directory; ensure-deps.sh installs one at a time): they were
# 189 s of one core in a row on a clean clone.
TEST_PREBUILDS = reference reference-sanitize conformance-runner conformance-mutants mpi cross-x86_64 cross-aarch64
test-prebuild: deps-build deps-conform deps-mpi deps-matrix deps-browser
	@sh ci/ensure-deps.sh numpy sign
	+@$(MAKE) --no-print-directory -j2 $(TEST_PREBUILDS)
	@$(MAKE) --no-print-directory $(CONFORM) $(CONF)/conform_tests $(CONF_SAN)/isotrain-conform \
	    $(CONF_SAN)/conform_tests $(CONF_WINDOWS_RECEIPT)

test: suite-tmp
	+@bash ci/run-stages.sh test "$(MAKE)" $(TEST_STAGES)
	@sh ci/check-leftovers.sh --self-test
	@sh ci/check-leftovers.sh $(SUITE_TMP) $(SUITE_MARK)
	@echo "make test: all test groups passed"

# The tiers (README.md "Checks, tiers and their cost"). Per commit: .ci/run
# (make test, make fuzz, the PyTorch stage below), at most 45 minutes on a
# clean clone. Scheduled (the GitHub workflow's nightly job, and by hand):
# the exhaustive proof of exp/log/sqrt (prove-math), every kernel set on
# vectors/v1.2.0 in full (conformance-kernels-full), PyTorch's divergence
# study and every row of conforming PyTorch, the heavy runs under QEMU of
# pinned and conforming PyTorch, the MPI trainer's full certification on 1-4 ranks,
# every window of addmod113 and gptchar on every host (matrix-windows: about
# an hour here), gptchar's 500 steps on every emulated host
# (matrix-gptchar-full), the example recipe (spec/recipes/shakespeare.json)
# on every host (recipe-matrix-shakespeare), and longer fuzzing. Nothing is
# only scheduled that a commit could break unseen: each has a per-commit
# share (prove-math-share, conformance-kernels, pytorch-matrix,
# test-pytorch-conforming's rows, test-mpi, matrix-gptchar-windows-share,
# recipe-matrix-tiny, make fuzz).
# test-pytorch installs python3-torch first; then the two lanes (about 1.4
# cores together: a Python process driving a runner each) build nothing in
# common: the matrix its private OpenBLAS, the conforming rows their
# libisotrain.so.
CI_PYTORCH_STAGES = test-pytorch pytorch-matrix+test-pytorch-conforming
CI_SCHEDULED_STAGES = prove-math conformance-kernels-full test-conformance-sanitize-all pytorch-divergence test-pytorch-conforming-all \
      pytorch-cross-isa pytorch-conforming-cross-isa-windows conformance-mpi matrix-windows matrix-gptchar-full recipe-matrix-shakespeare \
      check-vectors-recipe test-mpi-sanitize
.PHONY: ci-pytorch ci-scheduled
ci-pytorch:
	+@bash ci/run-stages.sh pytorch "$(MAKE)" $(CI_PYTORCH_STAGES)
ci-scheduled:
	+@bash ci/run-stages.sh scheduled "$(MAKE)" $(CI_SCHEDULED_STAGES)
	+$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$${FUZZ_SECONDS:-600}

# The GitHub workflow (.github/workflows/isotrain.yml) parses as YAML and has the
# fleet's shape: a job per emulated host from the hosts file, the real
# runners, and a gather job that needs both and runs `matrix`; its
# --self-test first shows the check rejecting broken copies.
check-workflow:
	@sh ci/ensure-deps.sh yaml
	/usr/bin/python3 ci/check-workflow.py --self-test .github/workflows/isotrain.yml
	/usr/bin/python3 ci/check-workflow.py .github/workflows/isotrain.yml

# ---- the main job ------------------------------------------------------------

# The main job: the conformance runner certifies the reference CLI (the argv
# form: --iut-exec binds the executable that runs) against vectors/v1.2.0, all
# three profiles (every op vector bit-exact, every training step's loss bits
# and checkpoint digest of mlp13k, addmod113 and gptchar, fresh-seed runs of
# each), writes a receipt and JUnit, and prints the summary.
# ISOTRAIN_THREADS: the reference trains addmod113 on 2 threads (same bits).
# Then the receipt must verify (every verdict recomputed); it is this
# machine's own fresh run, unsigned, so --allow-unsigned says so.
# --timeout-run: 300 full-batch steps take 2-3 minutes on 2 idle cores; the
# runner's 600 s default is too tight on a shared, busy machine.
conformance: reference conformance-runner
	ISOTRAIN_THREADS=$${ISOTRAIN_THREADS:-2} $(CONFORM) run --iut-exec $(NATIVE)/isotrain --level all \
	    --vectors vectors/v1.2.0 --timeout-run $${TIMEOUT_RUN:-3600} \
	    --receipt $(BUILD)/conformance/receipt.json --junit $(BUILD)/conformance/junit.xml
	$(CONFORM) verify --allow-unsigned $(BUILD)/conformance/receipt.json

# Every kernel set this CPU runs (reference/src/kernels/), certified one by one
# with ISOTRAIN_KERNELS forced (ci/conformance-kernels.sh): vectors/v1.0.0 in
# full, then vectors/v1.2.0's op vectors and windows with KERNELS_STEPS-step
# runs (per commit: 20); conformance-kernels-full (the scheduled tier) runs
# v1.2.0 in full on every set. Receipts in build/conformance/kernels-*.
KERNELS_STEPS ?= 20
conformance-kernels: reference conformance-runner
	sh ci/conformance-kernels.sh $(CONFORM) $(NATIVE)/isotrain $(BUILD)/conformance $(KERNELS_STEPS)
conformance-kernels-full: reference conformance-runner
	sh ci/conformance-kernels.sh $(CONFORM) $(NATIVE)/isotrain $(BUILD)/conformance-full all

# spec §2.1: no fused multiply-add in the library or any kernel object, for
# every ISA of the matrix (ci/check-no-fma.sh disassembles them); the
# negative control builds the FMA mutants (fma-haswell, fma-aarch64 of
# spec/mutants/mutants.tsv, and the runner's fma-linear) and requires the gate
# to catch each.
FMA_GATE := $(BUILD)/fma-gate
check-no-fma: reference
	+@$(MAKE) --no-print-directory -j2 cross # nine independent builds, two at a time
	@$(REF) OUT=$(FMA_GATE)/fma-haswell CC=$(CC) OPT=-O2 EXTRA_CFLAGS="-march=haswell -ffp-contract=fast" \
	    $(FMA_GATE)/fma-haswell/libisotrain.a > /dev/null
	@$(REF) OUT=$(FMA_GATE)/fma-aarch64 CC=$(AARCH64_CC) OPT=-O2 EXTRA_CFLAGS=-ffp-contract=fast \
	    $(FMA_GATE)/fma-aarch64/libisotrain.a > /dev/null
	@$(MAKE) --no-print-directory conformance-mutants > /dev/null
	sh ci/check-no-fma.sh check $(NATIVE) $(addprefix $(BUILD)/cross/,$(CROSS_BUILDS))
	sh ci/check-no-fma.sh expect-fma $(FMA_GATE)/fma-haswell $(FMA_GATE)/fma-aarch64 $(MUT_FMA)

# ---- exp/log proof over all 2^32 inputs (spec §3.2, §3.3) ---------------------

$(TOOLS)/prove_math: reference/tools/prove_math.c $(NATIVE)/libisotrain.a | deps-test
	@mkdir -p $(TOOLS)
	$(CC) $(WARN_CFLAGS) -O2 $(NUMERIC_CFLAGS) -pthread -Ireference/src -Ireference/include \
	    reference/tools/prove_math.c $(NATIVE)/libisotrain.a -lmpfr -lgmp -lm -o $@

# Every kernel set's exp and log on all 2^32 inputs (one MPFR-backed decision
# per input, every set compared with it), then the negative control of the
# SIMD sets' exact fallback (ci/prove-math-fallback.sh).
prove-math: $(TOOLS)/prove_math reference
	$(TOOLS)/prove_math all
	sh ci/prove-math-fallback.sh $(TOOLS)/prove_math $(NATIVE)/isotrain

# The per-commit share (make test): the same proof on 24 ranges of 2^22 inputs
# chosen where these functions fail first, its own negative control, and the
# fallback controls (ci/prove-math-share.sh).
prove-math-share: $(TOOLS)/prove_math reference
	sh ci/prove-math-share.sh $(TOOLS)/prove_math $(NATIVE)/isotrain

# ---- benchmark ---------------------------------------------------------------

$(TOOLS)/bench: reference/tools/bench.c $(NATIVE)/libisotrain.a
	@mkdir -p $(TOOLS)
	$(CC) $(WARN_CFLAGS) -O2 $(NUMERIC_CFLAGS) -Ireference/include $< $(NATIVE)/libisotrain.a -o $@

# A benchmark, not a test (issue 18): in one run, this core's measured
# non-FMA peak; both profiles for every kernel set this CPU runs, the library
# and the CLI with a digest at every step, % of peak, addmod113 on 1, 2 (and
# the CPU count's) threads; then (python3-torch) the same models in PyTorch
# with OpenBLAS from a private extraction (ci/openblas-private.sh: never
# installed; the loaded library shown from /proc/self/maps), OpenBLAS's
# threads = torch's, and the ratios; gptchar likewise (issue 30: every set,
# 1 and 2 threads, the CLI with digests, PyTorch on its shapes). BENCH_RUNS,
# BENCH_MLP_STEPS, BENCH_AM_STEPS, BENCH_AM_RUNS, BENCH_GC_STEPS, BENCH_GC_RUNS
# set the sizes.
BENCH_RUNS      ?= 5
BENCH_MLP_STEPS ?= 2000
bench: reference $(TOOLS)/bench
	$(TOOLS)/bench $(NATIVE)/isotrain $(BENCH_RUNS) $(BENCH_MLP_STEPS) | tee $(TOOLS)/bench.txt
	@blas=$$(sh ci/openblas-private.sh $(BUILD)/openblas) || blas=; \
	LD_LIBRARY_PATH=$$blas$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} $(PYTORCH_PY) reference/tools/bench_torch.py \
	    --profiles "$$(grep '^bench-profiles' $(TOOLS)/bench.txt)" \
	    --summary "$$(grep '^bench-summary' $(TOOLS)/bench.txt)" --expect-blas "$$blas" \
	    --mlp-steps $(BENCH_MLP_STEPS) --runs $(BENCH_RUNS) | tee -a $(TOOLS)/bench.txt

# ---- install -----------------------------------------------------------------

# Everything an installed runner needs to certify a trainer from any
# directory: the two commands, the library with its header and a pkg-config
# file, the published vector sets (the runner's fallback default, baked
# in as $(PREFIX)/share/isotrain by mk/conformance.mk) and the project's
# keys with its allowed-signers file (verify's and matrix's default signers).
IT_LIB_VERSION = $(shell sed -n 's/^\#define IT_VERSION "\([^"]*\)".*/\1/p' reference/include/isotrain.h)
VECTOR_SETS    = $(patsubst vectors/%/MANIFEST.json,%,$(wildcard vectors/v*/MANIFEST.json))
I_BIN   = $(DESTDIR)$(PREFIX)/bin
I_LIB   = $(DESTDIR)$(PREFIX)/lib
I_INC   = $(DESTDIR)$(PREFIX)/include
I_SHARE = $(DESTDIR)$(PREFIX)/share/isotrain
I_DOC   = $(DESTDIR)$(PREFIX)/share/doc/isotrain

install: reference conformance-runner
	install -d $(I_BIN) $(I_LIB)/pkgconfig $(I_INC) $(I_DOC) $(I_SHARE)/vectors
	install -m 755 $(NATIVE)/isotrain $(I_BIN)/isotrain
	install -m 755 $(CONFORM) $(I_BIN)/isotrain-conform
	install -m 644 $(NATIVE)/libisotrain.a $(I_LIB)/libisotrain.a
	install -m 644 reference/include/isotrain.h $(I_INC)/isotrain.h
	install -m 644 reference/include/isotrain_reduce.h $(I_INC)/isotrain_reduce.h
	printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' 'libdir=$${exec_prefix}/lib' \
	    'includedir=$${prefix}/include' '' 'Name: isotrain' \
	    'Description: isotrain reference trainer (spec-exact binary32 training, libc only)' \
	    'Version: $(IT_LIB_VERSION)' 'Libs: -L$${libdir} -lisotrain -pthread' 'Cflags: -I$${includedir}' \
	    > $(I_LIB)/pkgconfig/isotrain.pc
	chmod 644 $(I_LIB)/pkgconfig/isotrain.pc
	install -m 644 spec/*.md $(I_DOC)/
	for v in $(VECTOR_SETS); do \
	    rm -rf $(I_SHARE)/vectors/$$v && cp -R vectors/$$v $(I_SHARE)/vectors/$$v && \
	    chmod -R u=rwX,go=rX $(I_SHARE)/vectors/$$v || exit 1; \
	done
	install -m 644 vectors/FORMAT.md $(I_SHARE)/vectors/FORMAT.md
	install -d $(I_SHARE)/KEYS
	install -m 644 vectors/KEYS/allowed_signers $(wildcard vectors/KEYS/*.pub) $(I_SHARE)/KEYS/

# Removes exactly what install put there, then the directories it made if
# they are empty (never a directory that holds something else).
uninstall:
	rm -f $(I_BIN)/isotrain $(I_BIN)/isotrain-conform $(I_LIB)/libisotrain.a \
	    $(I_LIB)/pkgconfig/isotrain.pc $(I_INC)/isotrain.h $(I_INC)/isotrain_reduce.h $(I_SHARE)/vectors/FORMAT.md
	rm -f $(addprefix $(I_DOC)/,$(notdir $(wildcard spec/*.md)))
	rm -f $(I_SHARE)/KEYS/allowed_signers $(addprefix $(I_SHARE)/KEYS/,$(notdir $(wildcard vectors/KEYS/*.pub)))
	for v in $(VECTOR_SETS); do rm -rf $(I_SHARE)/vectors/$$v; done
	-rmdir $(I_SHARE)/vectors $(I_SHARE)/KEYS $(I_SHARE) $(I_DOC) 2>/dev/null

# make install into a scratch prefix (a build of its own, so the baked-in
# data directory is that prefix), then: the installed runner certifies the
# installed CLI from another directory with the installed vectors, a
# program builds against libisotrain through pkg-config, and uninstall
# leaves no file behind.
test-install: deps-build
	sh ci/check-install.sh "$(MAKE)" $(abspath $(BUILD))/install-test

clean:
	rm -rf $(BUILD)

include mk/cross.mk
include mk/vectors.mk
include mk/conformance.mk
include mk/matrix.mk
include mk/report.mk
include mk/mutants.mk
include mk/pytorch.mk
include mk/torch-conforming.mk
include mk/fuzz.mk
include mk/mpi.mk
