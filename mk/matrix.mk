# The emulated host matrix (DESIGN.md, "The host matrix"; qemu/hosts.json).
# Included by the top-level Makefile, so $(BUILD), $(CONFORM) and the cross
# builds of mk/cross.mk are the ones defined there.
#
#   make matrix          builds every cross build the hosts file names, runs
#                        isotrain-conform at level all on every host (2 at a
#                        time; --slowdown for emulated hosts), one receipt per
#                        host in build/matrix/<host>.json, then prints the
#                        table and writes build/matrix/MATRIX.md. Exit 0 only
#                        if every host is as the hosts file expects.
#   make check-matrix    make matrix, then compares it with the published
#                        receipts of the vectors (vectors/v1.0.0/receipts):
#                        same per-host verdicts, first differing steps and
#                        checkpoint digests (timings, dates, host CPU details
#                        are not compared). Part of `make test`. Both then
#                        check that every host ran the kernel set hosts.json
#                        names for it (ci/check-matrix-kernels.sh).
#   make publish-matrix  copies build/matrix's receipts and MATRIX.md into
#                        vectors/v1.0.0/receipts (review the diff, then commit).

HOSTS_FILE   ?= qemu/hosts.json
MATRIX_DIR   := $(BUILD)/matrix
MATRIX_JOBS  ?= 2
MATRIX_PUB   := vectors/v1.0.0/receipts
# The hosts' receipts of the last `make matrix` (not the build logs).
MATRIX_RECEIPTS = $(foreach h,$(shell $(CONFORM) matrix --hosts $(HOSTS_FILE) --list | cut -f1),$(wildcard $(MATRIX_DIR)/$(h).json))

.PHONY: matrix matrix-run check-matrix publish-matrix

# The runs themselves; their verdict is the table's (matrix / check-matrix).
matrix-run: conformance-runner deps-matrix
	MAKE="$(MAKE)" sh ci/matrix.sh $(CONFORM) $(HOSTS_FILE) $(MATRIX_DIR) $(MATRIX_JOBS)

matrix: matrix-run
	$(CONFORM) matrix --hosts $(HOSTS_FILE) --markdown $(MATRIX_DIR)/MATRIX.md $(MATRIX_RECEIPTS)
	sh ci/check-matrix-kernels.sh $(HOSTS_FILE) $(MATRIX_DIR)

check-matrix: matrix-run
	$(CONFORM) matrix --hosts $(HOSTS_FILE) --markdown $(MATRIX_DIR)/MATRIX.md \
	    --against $(MATRIX_PUB) $(MATRIX_RECEIPTS)
	sh ci/check-matrix-kernels.sh $(HOSTS_FILE) $(MATRIX_DIR)

publish-matrix: conformance-runner
	@mkdir -p $(MATRIX_PUB)
	rm -f $(MATRIX_PUB)/*.json $(MATRIX_PUB)/MATRIX.md
	cp $(MATRIX_RECEIPTS) $(MATRIX_PUB)/
	$(CONFORM) matrix --hosts $(HOSTS_FILE) --markdown $(MATRIX_PUB)/MATRIX.md $(MATRIX_PUB)/*.json || true
