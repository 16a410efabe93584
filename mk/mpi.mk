# The data-parallel reference trainer on Open MPI (spec §15; reference/mpi/).
# Included by the top-level Makefile ($(BUILD), $(NATIVE), $(CONFORM)).
#
#   make mpi               build/mpi/isotrain-mpi (mk/mpi-build.mk: the native
#                          libisotrain.a with the MPI reducer and main)
#   make conformance-mpi   isotrain-conform certifies it as an ordinary IUT,
#                          `mpirun -np N ... isotrain-mpi`, for N in MPI_NPS
#                          (1 2 3 4): every one must be PASS (full certification,
#                          vectors/v1.2.0: mlp13k, addmod113 and gptchar);
#                          receipts build/conformance/mpi-N.json (the
#                          scheduled tier: make ci-scheduled)
#   make test-mpi          what make test runs: N = 1..4 on the train level
#                          (mlp13k's 200 steps, addmod113's first MPI_TEST_STEPS),
#                          gptchar's first MPI_TEST_GPTCHAR_STEPS on N = 1, 3,
#                          and the ops level MPI_TEST_OPS_RUNS times on 2 ranks
#                          (Open MPI's stdin forwarding crashed mpirun in about
#                          1 such session in 10); each PARTIAL (the narrower
#                          scope) with every case passed; test-mpi-stdin and
#                          test-mpi-desync
#   make test-mpi-desync   ranks started with different command lines (an MPMD
#                          line: ops against train, --steps, --seed) or reading
#                          different files (-wdir: a recipe, a resumed state) are
#                          refused before anything runs, exit 2, each named, never
#                          a hang
#                          (ci/mpi-desync.sh; its negative control in its header)
#   make test-mpi-stdin    the op requests reach rank 0 on the caller's pipe,
#                          never through mpirun (ci/mpi-stdin-direct.sh, with
#                          plain mpirun as the control)
#   make test-iut-front-ends  isotrain and isotrain-mpi (-np 1) refuse one table
#                          of bad train command lines alike (ci/check-iut-front-ends.sh)
#   make test-mpi-recipe   the tiny recipe (MPI_RECIPE) certified on 1-4 ranks, one
#                          runner session per rank count (ops, the run, fresh,
#                          windows), each PASS (recipe sha256:...): every step's
#                          digest the set's (ci/mpi-recipe.sh, with its control:
#                          a 3-rank run whose bits diverge must FAIL)
#   make test-mpi-faults   a rank killed, a rank hung (addmod113 and gptchar), the
#                          runner SIGKILLed and mpirun SIGTERMed leaving nothing
#                          (against plain mpirun as the control), too many ranks
#                          (ci/mpi-faults.sh)
#   make test-mpi-sanitize (scheduled) the MPI trainer under ASan+UBSan: the
#                          desync cases and test-mpi's prefix (149 s wall, 111 s CPU)
#   make mpi-scaling       steps/s and CPU time for 1-4 ranks against the
#                          reference on 1 and 2 threads; build/mpi/scaling.{md,csv,svg}
#
# Every mpirun runs with a TMPDIR of its own (ci/mpi-private-tmp.sh), where
# the check that nothing is left happens; through isotrain-mpirun Open MPI's
# session directory and segments are on the job's own tmpfs, so nothing is
# left even after a SIGKILL.

MPI_OUT        := $(BUILD)/mpi
MPI_NPS        ?= 1 2 3 4
MPI_TEST_STEPS ?= 2
# gptchar in make test: 1 and 3 ranks (3 does not divide its 16 sequences),
# the first MPI_TEST_GPTCHAR_STEPS steps; 1-4 ranks in full is
# conformance-mpi's (the scheduled tier, make ci-scheduled)
MPI_TEST_GPTCHAR_NPS   ?= 1 3
MPI_TEST_GPTCHAR_STEPS ?= 20
# the ops level on 2 ranks, this many sessions (about 10 s each)
MPI_TEST_OPS_RUNS ?= 3
# mpirun on one shared machine in a container: ranks may outnumber cores
# (--oversubscribe) and are not pinned (--bind-to none: other work shares the
# cores); only shared memory and self, never a network (--mca btl self,vader,
# the ob1 messaging layer, no UCX/OFI probing); a rank waiting for a partial
# yields its core (mpi_yield_when_idle: without it a waiting rank spins and,
# on a loaded machine, starves the rank it waits for: mlp13k on 2 ranks ran
# 12x slower); as root (CI), --allow-run-as-root.
MPIRUN_FLAGS ?= $(if $(filter 0,$(shell id -u)),--allow-run-as-root) --oversubscribe --bind-to none \
                --mca btl self,vader --mca pml ob1 --mca mpi_yield_when_idle 1
# The IUT with N ranks, as the runner is given it: $(call MPI_IUT,N). The
# one place the command is spelled (spec/iut-protocol.md P1). mpirun through
# isotrain-mpirun (reference/mpi/launcher/): Open MPI's session directory and
# shared-memory segments on a tmpfs of the job's own mount namespace, which
# the kernel frees however the job ends (SIGKILL included: issue 27 item 8).
# $(call MPI_IUT_IN,DIR,N,MORE-MPIRUN-FLAGS): the same for the build in DIR.
MPI_IUT_IN = $(1)/isotrain-mpirun $(MPIRUN_FLAGS) $(3) -np $(2) $(1)/isotrain-mpi
MPI_IUT = $(call MPI_IUT_IN,$(MPI_OUT),$(1))

.PHONY: mpi deps-mpi conformance-mpi test-mpi test-mpi-recipe test-mpi-faults mpi-scaling test-iut-front-ends test-mpi-stdin \
        test-mpi-desync test-mpi-sanitize

deps-mpi:
	@sh ci/ensure-deps.sh build mpi

mpi: reference deps-mpi
	@$(MAKE) --no-print-directory -f mk/mpi-build.mk OUT=$(MPI_OUT) LIB=$(NATIVE)/libisotrain.a OPT=-O2

# Full certification per rank count; a rank count that does not divide the
# batch (3: 21/21/22 positions, 1277 pairs each, 5/5/6 sequences) is the interesting one.
conformance-mpi: mpi conformance-runner
	@mkdir -p $(BUILD)/conformance
	@for n in $(MPI_NPS); do \
	    echo "conformance-mpi: $$n rank(s): $(call MPI_IUT,$$n)"; \
	    sh ci/mpi-private-tmp.sh $(CONFORM) run --level all --vectors vectors/v1.2.0 \
	        --timeout-run $${TIMEOUT_RUN:-3600} --receipt $(BUILD)/conformance/mpi-$$n.json \
	        --junit $(BUILD)/conformance/mpi-$$n.junit.xml -- $(call MPI_IUT,$$n) || \
	        { echo "conformance-mpi: $$n rank(s): not PASS (exit $$?)" >&2; exit 1; }; \
	done; echo "conformance-mpi: PASS for $(MPI_NPS) rank(s)"

# make test's share: every rank count on the prefix that fits the CI budget
# (README: its measured cost). Exit 3 = PARTIAL: nothing failed, the scope is
# narrower than a certification (one level, one profile, --steps).
test-mpi: mpi conformance-runner test-iut-front-ends test-mpi-stdin test-mpi-desync
	MPI_TEST_OPS_RUNS=$(MPI_TEST_OPS_RUNS) sh ci/mpi-test.sh "$(CONFORM)" "$(call MPI_IUT,NP)" "$(MPI_NPS)" $(MPI_TEST_STEPS) "$(MPI_TEST_GPTCHAR_NPS)" \
	    $(MPI_TEST_GPTCHAR_STEPS)

# one front end (reference/iut/): both binaries refuse the same lines alike
test-iut-front-ends: mpi
	sh ci/mpi-private-tmp.sh sh ci/check-iut-front-ends.sh $(NATIVE)/isotrain $(call MPI_IUT,1)

# rank 0 reads the runner's pipe itself (reference/mpi/stdin_direct.c: why)
test-mpi-stdin: mpi
	sh ci/mpi-stdin-direct.sh "$(call MPI_IUT,NP)"

# every rank runs rank 0's command line, or nothing runs (isotrain_mpi.c: why)
test-mpi-desync: mpi
	sh ci/mpi-desync.sh "$(call MPI_IUT,NP)"

MPI_RECIPE ?= spec/recipes/tiny.json
test-mpi-recipe: mpi conformance-runner
	sh ci/mpi-recipe.sh "$(CONFORM)" "$(call MPI_IUT,NP)" "$(MPI_NPS)" $(MPI_RECIPE) $(MPI_OUT)/recipe

test-mpi-faults: mpi conformance-runner
	sh ci/mpi-faults.sh "$(CONFORM)" "$(call MPI_IUT,NP)" $(NATIVE)/isotrain $${MPI_HANG_DEADLINE:-20}

mpi-scaling: mpi
	sh ci/mpi-scaling.sh "$(call MPI_IUT,NP)" $(NATIVE)/isotrain $(MPI_OUT)

# The MPI trainer and its library under ASan+UBSan (the scheduled tier;
# make test-sanitize covers the CLI): test-mpi's prefix on 1-4 ranks and the
# desync cases, every rank instrumented (mpirun -x passes the options on).
# First the control that the binary is the instrumented one: ASan's flag
# list, which an uninstrumented build never prints. Leaks are not reported:
# Open MPI's own allocations outlive MPI_Finalize.
MPI_SAN_OUT := $(BUILD)/mpi-sanitize
MPI_SAN_ENV := ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
MPI_SAN_IUT = $(call MPI_IUT_IN,$(MPI_SAN_OUT),NP,-x ASAN_OPTIONS -x UBSAN_OPTIONS)
test-mpi-sanitize: deps-mpi conformance-runner
	@$(MAKE) --no-print-directory -f mk/mpi-build.mk OUT=$(MPI_SAN_OUT) OPT=-O1 EXTRA_CFLAGS="$(SAN_FLAGS)" \
	    EXTRA_LDFLAGS="$(SAN_FLAGS)"
	@ASAN_OPTIONS=help=1 $(MPI_SAN_OUT)/isotrain-mpi hello 2>&1 | grep -c 'Available flags for AddressSanitizer' >/dev/null || \
	    { echo "test-mpi-sanitize: $(MPI_SAN_OUT)/isotrain-mpi is not instrumented (no ASan flag list)" >&2; exit 1; }
	$(MPI_SAN_ENV) sh ci/mpi-desync.sh "$(MPI_SAN_IUT)"
	$(MPI_SAN_ENV) MPI_TEST_OPS_RUNS=1 sh ci/mpi-test.sh "$(CONFORM)" "$(MPI_SAN_IUT)" "$(MPI_NPS)" $(MPI_TEST_STEPS) \
	    "$(MPI_TEST_GPTCHAR_NPS)" 2
