# Vector generation and the regeneration check (vectors/FORMAT.md; spec §12).
# Included by the top-level Makefile, so $(BUILD), $(NATIVE), $(TOOLS), $(CC)
# and the flag sets are the ones defined there.
#
#   make vectors        regenerates vectors/v1.0.0/, v1.1.0/ and v1.2.0/ (keeps receipts/)
#   make check-vectors  regenerates all three into a temporary directory and requires
#                       byte-identical files to the committed sets
#
# Both run the exp/log sweep over all 2^32 inputs (several minutes natively),
# the 300-step addmod113 run (a few minutes on 2 cores) and the 500-step
# gptchar run (about 40 s), once for all sets: each set holds the previous
# one's files byte for byte plus its own.

VECTOR_VERSION := 1.2.0
VECTORS_DIR    := vectors/v$(VECTOR_VERSION)
VECTORS_DIR_10 := vectors/v1.0.0
VECTORS_DIR_11 := vectors/v1.1.0
MAKE_VECTORS   := $(TOOLS)/make_vectors

.PHONY: vectors check-vectors deps-vectors

deps-vectors:
	@sh ci/ensure-deps.sh build cjson

# The generator (reference/tools/make_vectors/: one file per op group or
# profile, one case emitter) links the native library and the CLI's P4
# encoder (wire.c), so the vectors spell values exactly as the reference IUT does.
MAKE_VECTORS_SRCS := $(sort $(wildcard reference/tools/make_vectors/*.c))
# The training and windows files' builder is the runner's vectorset/set_docs.c,
# the one writer of FORMAT.md §3 and §6 (recipe sets use it too).
SET_DOCS := conformance/src/vectorset/set_docs.c
$(MAKE_VECTORS): $(MAKE_VECTORS_SRCS) reference/tools/make_vectors/mv.h reference/iut/wire.c reference/iut/wire.h \
                 $(SET_DOCS) conformance/src/vectorset/set_docs.h \
                 reference/include/isotrain.h $(NATIVE)/libisotrain.a | deps-vectors
	@mkdir -p $(TOOLS)
	$(CC) $(WARN_CFLAGS) -O2 $(NUMERIC_CFLAGS) -pthread -Ireference/include -Ireference/iut \
	    -Ireference/tools/make_vectors -Iconformance/src $(MAKE_VECTORS_SRCS) $(SET_DOCS) reference/iut/wire.c \
	    $(NATIVE)/libisotrain.a \
	    -lcjson -o $@

# Generates into a scratch directory first, so a failed generation leaves
# the committed set alone; then replaces everything but receipts/.
vectors: reference $(MAKE_VECTORS)
	rm -rf $(BUILD)/vectors-new && mkdir -p $(BUILD)/vectors-new
	$(MAKE_VECTORS) $(BUILD)/vectors-new/v10 $(BUILD)/vectors-new/v11 $(BUILD)/vectors-new/v12
	for pair in v10:$(VECTORS_DIR_10) v11:$(VECTORS_DIR_11) v12:$(VECTORS_DIR); do \
	    src=$(BUILD)/vectors-new/$${pair%%:*}; dst=$${pair#*:}; \
	    mkdir -p $$dst && find $$dst -mindepth 1 -maxdepth 1 ! -name receipts -exec rm -rf {} + && \
	    cp -R $$src/. $$dst/ || exit 1; \
	done
	rm -rf $(BUILD)/vectors-new
	@echo "vectors: $(VECTORS_DIR_10), $(VECTORS_DIR_11) and $(VECTORS_DIR) regenerated; review 'git status vectors'"

check-vectors: reference $(MAKE_VECTORS)
	sh ci/check-vectors.sh $(MAKE_VECTORS) $(VECTORS_DIR_10) $(VECTORS_DIR_11) $(VECTORS_DIR)
