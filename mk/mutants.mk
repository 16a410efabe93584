# The mutation matrix: the reference built with one known source of
# non-determinism at a time (spec/mutants/mutants.tsv), each run through the
# conformance runner, and the table of what killed it (spec/mutants.md).
# Included by the top-level Makefile ($(BUILD), $(CC), $(CONFORM), the deps
# targets). Not to be confused with conformance-mutants (mk/conformance.mk):
# the runner's own two negative controls.
#
#   make mutants          builds and runs every mutant (2 at a time), rewrites spec/mutants.md;
#                         fails if a mutant survives that the list does not record as equivalent
#   make check-mutants    the same into build/mutants/mutants.md, and requires it to equal
#                         spec/mutants.md above the timings marker
#   make check-mutants-fresh
#                         every op mutant of spec/mutants.md (a golden op vector kills it)
#                         against the fresh cases alone (run --fresh-only: no golden vector
#                         runs), reusing the builds of check-mutants; fails if one survives

MUTANTS_DIR   := $(BUILD)/mutants
MUTANTS_TABLE := $(MUTANTS_DIR)/mutants_table
MUTANT_JOBS   ?= 2
MUTANTS_MARK  := <!-- timings:

.PHONY: mutants check-mutants check-mutants-fresh mutants-tools check-mutant-patches

# Every patch of spec/mutants/ applies to this tree with no fuzz (a second;
# make check-mutants would find a stale one only after building them all).
check-mutant-patches:
	@sh ci/check-mutant-patches.sh --self-test
	@sh ci/check-mutant-patches.sh

# Receipts are DSSE envelopes: the table opens them with the runner's own
# reader (conformance/src/trust/), linked from the runner's objects as the
# runner's tests are (every object but cli/main.o): a hand-kept subset of
# sources broke the link once the reader moved (CI, 2026-12-03).
MUTANTS_TABLE_OBJS = $(filter-out $(CONF)/obj/cli/main.o,$(patsubst conformance/src/%.c,$(CONF)/obj/%.o,$(CONF_SRCS)))
$(MUTANTS_TABLE): conformance/tools/mutants_table.c $(MUTANTS_TABLE_OBJS) $(NATIVE)/libisotrain.a | deps-conform
	@mkdir -p $(MUTANTS_DIR)
	$(CC) $(CONF_CFLAGS) -pedantic -O2 $< $(MUTANTS_TABLE_OBJS) $(NATIVE)/libisotrain.a -lcjson -lm -o $@

mutants-tools: deps-cross deps-mpi reference conformance-runner
	@sh ci/ensure-deps.sh ccache
	@$(MAKE) --no-print-directory $(MUTANTS_TABLE)

mutants: mutants-tools
	MUTANTS_OUT=$(MUTANTS_DIR) CONFORM=$(CONFORM) MUTANT_JOBS=$(MUTANT_JOBS) CC=$(CC) MPIRUN_FLAGS="$(MPIRUN_FLAGS)" \
	    sh ci/mutants.sh all spec/mutants.md

check-mutants: mutants-tools
	MUTANTS_OUT=$(MUTANTS_DIR) CONFORM=$(CONFORM) MUTANT_JOBS=$(MUTANT_JOBS) CC=$(CC) MPIRUN_FLAGS="$(MPIRUN_FLAGS)" \
	    sh ci/mutants.sh all $(MUTANTS_DIR)/mutants.md
	@sed '/^$(MUTANTS_MARK)/,$$d' spec/mutants.md > $(MUTANTS_DIR)/committed.part
	@sed '/^$(MUTANTS_MARK)/,$$d' $(MUTANTS_DIR)/mutants.md > $(MUTANTS_DIR)/regenerated.part
	@diff -u $(MUTANTS_DIR)/committed.part $(MUTANTS_DIR)/regenerated.part || \
	    { echo "check-mutants: spec/mutants.md is not what make mutants gives today (diff above)" >&2; exit 1; }
	@echo "check-mutants: spec/mutants.md matches the regenerated table"

check-mutants-fresh: mutants-tools
	MUTANTS_OUT=$(MUTANTS_DIR) CONFORM=$(CONFORM) MUTANT_JOBS=$(MUTANT_JOBS) CC=$(CC) \
	    sh ci/mutants.sh fresh-all

# The GPT family's mutants (spec/mutants/family/README.md): each killed by
# the reference's recipe tests, after the control (ci/family-mutants.sh).
.PHONY: check-family-mutants
check-family-mutants: deps-test
	FAMILY_MUTANTS_OUT=$(BUILD)/family-mutants CC=$(CC) sh ci/family-mutants.sh
