# The conformance page: `isotrain-conform report` (issue 22; README
# "The conformance page"). Included by the top-level Makefile, so $(BUILD),
# $(CONFORM), $(HOSTS_FILE) and $(ALLOWED_SIGNERS) are the ones defined there.
#
#   make report        the page of each published vector set from its receipts
#                      (vectors/vX.Y.Z/receipts/*.json, signed by an allowed
#                      signer): $(REPORT_DIR)/vX.Y.Z/index.html. A set without
#                      receipts yet gets a page that says so. Fails only when
#                      a page cannot be written or a receipt is refused.
#   make test-report   the page opened from disk in headless chromium
#                      (ci/check-report-browser.py): the DOM against `matrix`,
#                      no request leaving the file (with its negative
#                      controls), a screenshot ($(REPORT_TEST)/v1.0.0.png), a
#                      hostile receipt rendered as inert text, the
#                      divergence CSV of adapters/pytorch/divergence.py drawn.
#                      Part of make test.
#
#   make publish-report  the page and the table beside each published set's
#                      receipts, vectors/vX.Y.Z/receipts/index.html and
#                      MATRIX.md, from the receipts already there (after a
#                      runner change, or re-signing them); sets without
#                      receipts are left alone. Review, then commit.
#
# `make publish-matrix` (mk/matrix.mk) writes the published set's page beside
# its receipts too, right after it has copied them there.

REPORT_DIR  := $(BUILD)/report
REPORT_TEST := $(BUILD)/report-test
REPORT_SETS ?= v1.0.0 v1.1.0 v1.2.0

.PHONY: report publish-report test-report deps-browser

deps-browser:
	@sh ci/ensure-deps.sh browser

report: conformance-runner
	@for v in $(REPORT_SETS); do \
	    $(CONFORM) report --hosts $(HOSTS_FILE) --vectors vectors/$$v --allowed-signers $(ALLOWED_SIGNERS) \
	        -o $(REPORT_DIR)/$$v/index.html $$(ls vectors/$$v/receipts/*.json 2>/dev/null) || exit 1; \
	done

publish-report: conformance-runner
	@for v in $(REPORT_SETS); do \
	    [ -n "$$(ls vectors/$$v/receipts/*.json 2>/dev/null)" ] || { echo "publish-report: $$v has no receipts: no page"; continue; }; \
	    $(CONFORM) matrix --allowed-signers $(ALLOWED_SIGNERS) --hosts $(HOSTS_FILE) --vectors vectors/$$v \
	        --markdown vectors/$$v/receipts/MATRIX.md vectors/$$v/receipts/*.json > /dev/null || exit 1; \
	    $(CONFORM) report --hosts $(HOSTS_FILE) --vectors vectors/$$v --allowed-signers $(ALLOWED_SIGNERS) \
	        -o vectors/$$v/receipts/index.html vectors/$$v/receipts/*.json || exit 1; \
	done

# The divergence step draws adapters/pytorch/divergence.py's CSV of the
# reference against the two mutants of conformance-mutants (numpy needed).
test-report: conformance-runner reference conformance-mutants deps-browser
	@sh ci/ensure-deps.sh numpy
	/usr/bin/python3 ci/check-report-browser.py --conform $(CONFORM) --out $(REPORT_TEST) \
	    --reference $(NATIVE)/isotrain --mutant fma-linear=$(MUT_FMA)/isotrain --mutant flip-step=$(MUT_FLIP)/isotrain
