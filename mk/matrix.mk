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
#   make check-matrix    checks that every published receipt of the vectors
#                        (vectors/v1.0.0/receipts) verifies and is signed by
#                        the project key (vectors/KEYS/allowed_signers), then
#                        make matrix and compares it with them: same per-host
#                        verdicts, first differing steps and checkpoint
#                        digests (timings, dates, host CPU details are not
#                        compared). Part of `make test`. Both then
#                        check that every host ran the kernel set hosts.json
#                        names for it (ci/check-matrix-kernels.sh).
#   make publish-matrix SIGN_KEY=FILE
#                        from a clean git tree only: runs the matrix with
#                        every receipt signed by FILE (the project's private
#                        key, never in the repository), verifies them against
#                        vectors/KEYS/allowed_signers and copies them and
#                        MATRIX.md into vectors/v1.0.0/receipts, with the
#                        conformance page index.html (isotrain-conform report)
#                        beside them (review the diff, then commit).

HOSTS_FILE   ?= qemu/hosts.json
MATRIX_DIR   := $(BUILD)/matrix
MATRIX_JOBS  ?= 2
MATRIX_PUB   ?= vectors/v1.0.0/receipts
# Who may sign published receipts (ssh-keygen ALLOWED SIGNERS format).
ALLOWED_SIGNERS ?= vectors/KEYS/allowed_signers
# The hosts' receipts of the last `make matrix` (not the build logs).
MATRIX_RECEIPTS = $(foreach h,$(shell $(CONFORM) matrix --hosts $(HOSTS_FILE) --list | cut -f1),$(wildcard $(MATRIX_DIR)/$(h).json))

.PHONY: matrix matrix-run check-matrix check-matrix-published check-published publish-matrix publish-matrix-copy deps-sign

# ssh-keygen -Y (OpenSSH 8.1 or later) signs and verifies receipts.
deps-sign:
	@sh ci/ensure-deps.sh sign

# The runs themselves; their verdict is the table's (matrix / check-matrix).
matrix-run: conformance-runner deps-matrix
	MAKE="$(MAKE)" sh ci/matrix.sh $(CONFORM) $(HOSTS_FILE) $(MATRIX_DIR) $(MATRIX_JOBS)

# --allow-unsigned: the receipts are this machine's own fresh runs (signed
# only by publish-matrix); the matrix says UNSIGNED in their rows.
matrix: matrix-run
	$(CONFORM) matrix --allow-unsigned --hosts $(HOSTS_FILE) --markdown $(MATRIX_DIR)/MATRIX.md $(MATRIX_RECEIPTS)
	sh ci/check-matrix-kernels.sh $(HOSTS_FILE) $(MATRIX_DIR)

# The published receipts first: signed by an allowed signer and verifying
# (every verdict recomputed; the signer named by its key's fingerprint);
# then this machine's run against them (its own receipts unsigned: they are
# accepted with --allow-unsigned, the published ones must be signed).
check-matrix-published: conformance-runner deps-sign
	$(CONFORM) verify --allowed-signers $(ALLOWED_SIGNERS) $(wildcard $(MATRIX_PUB)/*.json)

check-matrix: check-matrix-published matrix-run
	$(CONFORM) matrix --allow-unsigned --hosts $(HOSTS_FILE) --markdown $(MATRIX_DIR)/MATRIX.md \
	    --against $(MATRIX_PUB) $(MATRIX_RECEIPTS)
	sh ci/check-matrix-kernels.sh $(HOSTS_FILE) $(MATRIX_DIR)

# Receipts are published from a clean revision (the receipts name it) and
# signed there; the signature is checked before anything is copied.
# SET=v1.0.0 (the default) is the host matrix of ci/matrix.sh (mlp13k in
# full on every host); SET=v1.1.0 or v1.2.0 the windows matrix of
# ci/matrix-windows.sh on that set (every profile in full natively; under
# emulation every op vector, the hosts file's prefix and every window the
# set ships), into vectors/SET/receipts/ with its table as MATRIX.md.
SET ?= v1.0.0
PUBLISH_DIR = $(BUILD)/publish-$(SET)
publish-matrix: conformance-runner deps-sign
	@test -n "$(SIGN_KEY)" || { echo "publish-matrix: give SIGN_KEY=FILE, the project's private key (public half: vectors/KEYS/isotrain-project-2026-12-03.pub)" >&2; exit 2; }
	@test -d "vectors/$(SET)" || { echo "publish-matrix: SET=$(SET): no vector set vectors/$(SET)" >&2; exit 2; }
	@test -z "$$(git status --porcelain)" || { echo "publish-matrix: the git tree is not clean; receipts are published from a committed revision:" >&2; git status --short >&2; exit 2; }
ifeq ($(SET),v1.0.0)
	MATRIX_SIGN_KEY="$(SIGN_KEY)" $(MAKE) --no-print-directory matrix-run
	@$(MAKE) --no-print-directory publish-matrix-copy
else
	$(MAKE) --no-print-directory deps-matrix
	MATRIX_SIGN_KEY="$(SIGN_KEY)" MATRIX_VECTORS=vectors/$(SET) MAKE="$(MAKE)" \
	    sh ci/matrix-windows.sh $(CONFORM) $(HOSTS_FILE) $(PUBLISH_DIR) $(MATRIX_JOBS)
	$(CONFORM) verify --allowed-signers $(ALLOWED_SIGNERS) $$(cut -f1 $(PUBLISH_DIR)/plan.tsv | sed 's|^|$(PUBLISH_DIR)/|; s|$$|.json|')
	@mkdir -p vectors/$(SET)/receipts
	rm -f vectors/$(SET)/receipts/*.json vectors/$(SET)/receipts/MATRIX.md vectors/$(SET)/receipts/index.html
	cp $$(cut -f1 $(PUBLISH_DIR)/plan.tsv | sed 's|^|$(PUBLISH_DIR)/|; s|$$|.json|') vectors/$(SET)/receipts/
	$(CONFORM) matrix --allowed-signers $(ALLOWED_SIGNERS) --hosts $(HOSTS_FILE) --vectors vectors/$(SET) \
	    --markdown vectors/$(SET)/receipts/MATRIX.md vectors/$(SET)/receipts/*.json
	$(CONFORM) report --hosts $(HOSTS_FILE) --vectors vectors/$(SET) --allowed-signers $(ALLOWED_SIGNERS) \
	    -o vectors/$(SET)/receipts/index.html vectors/$(SET)/receipts/*.json
endif

# Every set's published receipts (vectors/v*/receipts/, part of make test),
# through matrix's gate, which is verify's (no --allow-unsigned: each one
# signed by an allowed signer, every verdict recomputed, the signer named by
# fingerprint; any other receipt is refused, exit 2): the set's table is as
# the hosts file expects (exit 0: v1.0.0 full certifications, v1.1.0 to a
# prefix on emulated hosts, v1.2.0 by windows), and it is byte for byte the
# committed MATRIX.md. A fresh run of the v1.0.0 matrix against its
# receipts is check-matrix's.
PUBLISHED_SETS = $(patsubst vectors/%/receipts,%,$(wildcard vectors/v*/receipts))
check-published: conformance-runner deps-sign
	@for v in $(PUBLISHED_SETS); do \
	    d=vectors/$$v/receipts; o=$(BUILD)/published/$$v; mkdir -p $$o; \
	    $(CONFORM) matrix --allowed-signers $(ALLOWED_SIGNERS) --hosts $(HOSTS_FILE) --vectors vectors/$$v \
	        --markdown $$o/MATRIX.md $$d/*.json > $$o/matrix.log 2>&1 || \
	        { tail -n 30 $$o/matrix.log; echo "check-published: $$v: the published matrix is not as the hosts file expects"; exit 1; }; \
	    cmp -s $$o/MATRIX.md $$d/MATRIX.md || \
	        { diff $$d/MATRIX.md $$o/MATRIX.md | head -n 20; echo "check-published: $$v: $$d/MATRIX.md is not the table of its receipts (make publish-report)"; exit 1; }; \
	    $(CONFORM) report --hosts $(HOSTS_FILE) --vectors vectors/$$v --allowed-signers $(ALLOWED_SIGNERS) \
	        -o $$o/index.html $$d/*.json > $$o/report.log 2>&1 || \
	        { tail -n 20 $$o/report.log; echo "check-published: $$v: the page of the published receipts could not be made"; exit 1; }; \
	    : the page names the revision that wrote it, the one thing left out of the comparison; \
	    sed 's|(revision <code>[0-9a-f]*\(-dirty\)\{0,1\}</code>|(revision)|g' $$o/index.html > $$o/index.cmp; \
	    sed 's|(revision <code>[0-9a-f]*\(-dirty\)\{0,1\}</code>|(revision)|g' $$d/index.html > $$o/index.pub; \
	    cmp -s $$o/index.cmp $$o/index.pub || \
	        { diff $$o/index.pub $$o/index.cmp | cut -c1-300 | head -n 8; echo "check-published: $$v: $$d/index.html is not the page of its receipts (make publish-report)"; exit 1; }; \
	    echo "check-published: $$v: $$(ls $$d/*.json | wc -l) receipts verify, each signed by an allowed signer; MATRIX.md and index.html are theirs; $$(tail -n 1 $$o/matrix.log)"; \
	done
	@# the negative control: one published receipt with one byte changed is refused
	@o=$(BUILD)/published/control; rm -rf $$o; mkdir -p $$o; first=$$(ls vectors/v1.0.0/receipts/*.json | head -n 1); \
	    cp vectors/v1.0.0/receipts/*.json $$o/; f=$$o/$$(basename $$first); \
	    python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); k=b.index(b"\"payload\""); i=b.index(b"\"", k + 10) + 40; b[i]^=1; open(p,"wb").write(b)' $$f && \
	    ! cmp -s $$f $$first || { echo "check-published: control: could not change a byte of $$f"; exit 1; }; \
	    $(CONFORM) matrix --allowed-signers $(ALLOWED_SIGNERS) --hosts $(HOSTS_FILE) $$o/*.json > $$o/matrix.log 2>&1; rc=$$?; \
	    [ $$rc = 2 ] || { tail -n 5 $$o/matrix.log; echo "check-published: control: a receipt with a flipped byte was not refused (exit $$rc)"; exit 1; }; \
	    echo "check-published: control: a published receipt with one byte flipped is refused (exit 2): $$(grep -m1 refused $$o/matrix.log | cut -c1-120)"
	@# the published schema is the field table's, and every published receipt validates against it
	@sh ci/ensure-deps.sh jsonschema
	/usr/bin/python3 ci/check-receipt-schema.py $(CONFORM) $(foreach v,$(PUBLISHED_SETS),vectors/$(v)/receipts/*.json)

# A separate make so the receipt list is the one the run just wrote.
publish-matrix-copy:
	$(CONFORM) verify --allowed-signers $(ALLOWED_SIGNERS) $(MATRIX_RECEIPTS)
	sh ci/check-matrix-kernels.sh $(HOSTS_FILE) $(MATRIX_DIR)
	@mkdir -p $(MATRIX_PUB)
	rm -f $(MATRIX_PUB)/*.json $(MATRIX_PUB)/MATRIX.md $(MATRIX_PUB)/index.html
	cp $(MATRIX_RECEIPTS) $(MATRIX_PUB)/
	$(CONFORM) matrix --allowed-signers $(ALLOWED_SIGNERS) --hosts $(HOSTS_FILE) --markdown $(MATRIX_PUB)/MATRIX.md $(MATRIX_PUB)/*.json || true
	$(CONFORM) report --hosts $(HOSTS_FILE) --allowed-signers $(ALLOWED_SIGNERS) -o $(MATRIX_PUB)/index.html \
	    $(MATRIX_PUB)/*.json

# The windows matrix (issue 20; ci/matrix-windows.sh): every host once
# against vectors/v1.2.0 with --windows. Unemulated hosts run the full runs
# of all three profiles plus every window; emulated hosts (QEMU, Wine) a
# prefix of qemu/hosts.json's prefix_steps (--steps bounds the golden and
# fresh-seed runs, never a window) plus every window of addmod113 and
# gptchar (start, middle, end), every op vector, PARTIAL by design; the
# expected-fail host the ops level. Receipts and MATRIX-windows.md in
# build/matrix-windows/. matrix-addmod113 is its old name, kept as an alias.
#   make matrix-gptchar-full   (scheduled tier, hours under QEMU) gptchar's
#                        500 steps and windows on every emulated host
#                        expected to pass; GPTCHAR_FULL_STEPS=N cuts the
#                        runs to N steps (a plumbing check, the table says
#                        so). Receipts and MATRIX-gptchar-full.md in
#                        build/matrix-gptchar-full/.
#   make matrix-gptchar-windows  the same with --profile gptchar: gptchar's op
#                        vectors and windows on every host, in full unemulated;
#                        build/matrix-gptchar-windows/.
#   make matrix-gptchar-windows-share  (per commit, part of make test) that on
#                        GPTCHAR_SHARE_HOSTS: the unemulated host, the other ISA
#                        with SIMD kernels, the big-endian one, x86_64 without
#                        AVX; every host's windows are the scheduled tier's
#                        (matrix-windows runs gptchar's too).
GPTCHAR_SHARE_HOSTS ?= x86_64-native aarch64-cortex-a72 s390x x86_64-nehalem
.PHONY: matrix-windows matrix-addmod113 matrix-gptchar-full matrix-gptchar-windows matrix-gptchar-windows-share
matrix-gptchar-windows: conformance-runner deps-matrix
	MAKE="$(MAKE)" sh ci/matrix-windows.sh --gptchar-windows $(CONFORM) $(HOSTS_FILE) $(BUILD)/matrix-gptchar-windows $(MATRIX_JOBS)
matrix-gptchar-windows-share: conformance-runner deps-matrix
	MATRIX_HOSTS="$(GPTCHAR_SHARE_HOSTS)" MAKE="$(MAKE)" sh ci/matrix-windows.sh --gptchar-windows $(CONFORM) $(HOSTS_FILE) \
	    $(BUILD)/matrix-gptchar-windows-share $(MATRIX_JOBS)
matrix-windows: conformance-runner deps-matrix
	MAKE="$(MAKE)" sh ci/matrix-windows.sh $(CONFORM) $(HOSTS_FILE) $(BUILD)/matrix-windows $(MATRIX_JOBS)
matrix-addmod113: matrix-windows
matrix-gptchar-full: conformance-runner deps-matrix
	MAKE="$(MAKE)" sh ci/matrix-windows.sh --gptchar-full $(CONFORM) $(HOSTS_FILE) $(BUILD)/matrix-gptchar-full $(MATRIX_JOBS)

# A recipe across the hosts (issue 32 item 4; spec §16):
#   make recipe-matrix RECIPE=FILE [STEPS=N | RECIPE_SET=DIR] [RECIPE_IUT='CMD'] [MATRIX_HOSTS='a b']
#                        the recipe's set made by the runner's linked
#                        reference (isotrain-conform vectors --recipe, --steps
#                        N if given; RECIPE_SET=DIR: that set of RECIPE, e.g.
#                        a published one, instead), then every host of the hosts file
#                        certified against it by ci/matrix-windows.sh --recipe
#                        (the windows matrix's one run loop, the set its
#                        parameter): in full unemulated (PASS (recipe
#                        sha256:...)), a prefix and every window under
#                        emulation; RECIPE_IUT adds the caller's IUT as a row
#                        of its own (host RECIPE_IUT_NAME, default "iut"), in
#                        full. MATRIX_HOSTS='a b' keeps those hosts of the
#                        hosts file ("none": the caller's IUT alone) (ci/hosts_subset.py writes them to
#                        hosts.json beside the receipts, so the table is of
#                        the hosts that ran). Then `matrix` on the receipts
#                        (exit 1 unless every host is as the hosts file
#                        expects) and the page (`report`). Everything in
#                        build/recipe-matrix/<recipe name>/: set/, one receipt
#                        per host, MATRIX-recipe.md (the windows table),
#                        MATRIX.md, index.html.
#   make recipe-matrix-tiny  (per commit, part of make test) spec/recipes/tiny.json
#                        on RECIPE_TINY_HOSTS (native, aarch64), then its control: recipe_wrong.sh
#                        (checkpoints flipped from step 2 on) as RECIPE_IUT must
#                        make its row FAIL and the matrix exit 1
#   make recipe-matrix-shakespeare  (scheduled) the example recipe on every host
RECIPE_NAME = $(basename $(notdir $(RECIPE)))
RECIPE_MATRIX_DIR ?= $(BUILD)/recipe-matrix/$(RECIPE_NAME)
RECIPE_IUT_NAME ?= iut
# the hosts that ran, for matrix and the page; with none (MATRIX_HOSTS=none)
# the IUT's receipt is a machine of its own, described by itself
RECIPE_HOSTS_ARG = $(if $(filter none,$(MATRIX_HOSTS)),,--hosts $(RECIPE_MATRIX_DIR)/hosts.json)
# the receipts of the hosts the run planned, the caller's IUT among them
RECIPE_RECEIPTS = $$(cut -f1 $(RECIPE_MATRIX_DIR)/plan.tsv | sed 's|^|$(RECIPE_MATRIX_DIR)/|; s|$$|.json|')
.PHONY: recipe-matrix recipe-matrix-tiny recipe-matrix-shakespeare
recipe-matrix: conformance-runner deps-matrix
	@test -n "$(RECIPE)" || { echo "recipe-matrix: give RECIPE=FILE, a recipe of the GPT family (spec/recipe.schema.json; spec/recipes/ has tiny.json, shakespeare.json, gptchar.json)" >&2; exit 2; }
	@test -f "$(RECIPE)" || { echo "recipe-matrix: RECIPE=$(RECIPE): no such file" >&2; exit 2; }
	@case "$(STEPS)" in *[!0-9]*) echo "recipe-matrix: STEPS=$(STEPS): a step count, or leave it out for the recipe's steps" >&2; exit 2 ;; esac
	@rm -rf $(RECIPE_MATRIX_DIR) && mkdir -p $(RECIPE_MATRIX_DIR)
	@if [ -n "$(RECIPE_SET)" ]; then \
	    [ -z "$(STEPS)" ] || { echo "recipe-matrix: STEPS= makes a set; RECIPE_SET=$(RECIPE_SET) is one already" >&2; exit 2; }; \
	    cmp -s $(RECIPE) $(RECIPE_SET)/recipe/$(notdir $(RECIPE)) || \
	        { echo "recipe-matrix: RECIPE_SET=$(RECIPE_SET) is not a set of $(RECIPE) (no byte-identical recipe/$(notdir $(RECIPE)))" >&2; exit 2; }; \
	    $(CONFORM) lint $(RECIPE_SET) && cp -R $(RECIPE_SET) $(RECIPE_MATRIX_DIR)/set; \
	else \
	    $(CONFORM) vectors --recipe $(RECIPE) --out $(RECIPE_MATRIX_DIR)/set $(if $(STEPS),--steps $(STEPS)); \
	fi
	/usr/bin/python3 ci/hosts_subset.py $(HOSTS_FILE) "$(MATRIX_HOSTS)" $(RECIPE_MATRIX_DIR)/hosts.json
	MATRIX_VECTORS=$(RECIPE_MATRIX_DIR)/set MATRIX_IUT="$(RECIPE_IUT)" MATRIX_IUT_NAME=$(RECIPE_IUT_NAME) MAKE="$(MAKE)" \
	    sh ci/matrix-windows.sh --recipe $(CONFORM) $(HOSTS_FILE) $(RECIPE_MATRIX_DIR) $(MATRIX_JOBS); \
	    rc=$$?; \
	    $(CONFORM) matrix --allow-unsigned $(RECIPE_HOSTS_ARG) --vectors $(RECIPE_MATRIX_DIR)/set \
	        --markdown $(RECIPE_MATRIX_DIR)/MATRIX.md $(RECIPE_RECEIPTS) || rc=1; \
	    $(CONFORM) report --allow-unsigned $(RECIPE_HOSTS_ARG) --vectors $(RECIPE_MATRIX_DIR)/set \
	        -o $(RECIPE_MATRIX_DIR)/index.html $(RECIPE_RECEIPTS) > $(RECIPE_MATRIX_DIR)/report.log 2>&1 || \
	        { tail -n 5 $(RECIPE_MATRIX_DIR)/report.log; echo "recipe-matrix: the page could not be made"; rc=1; }; \
	    echo "recipe-matrix: $(RECIPE) (recipe $(RECIPE_NAME)): the page is $(RECIPE_MATRIX_DIR)/index.html"; \
	    exit $$rc

# make test's share: the tiny recipe on the unemulated host (in full) and
# the other ISA with SIMD kernels (windows; s390x's portable kernels under
# QEMU took 466 s wall at load 16, so the big-endian host is the scheduled
# tier's, where the example recipe runs on every host); then the
# control, the caller's-IUT row alone: recipe_wrong.sh (the reference with
# every checkpoint from step 2 on flipped) must make the matrix exit non-zero
# with its row FAIL at step 2, or this target fails.
RECIPE_TINY_HOSTS ?= x86_64-native aarch64-cortex-a72
recipe-matrix-tiny: reference
	+$(MAKE) --no-print-directory recipe-matrix RECIPE=spec/recipes/tiny.json MATRIX_HOSTS="$(RECIPE_TINY_HOSTS)"
	@d=$(BUILD)/recipe-matrix/tiny-control; \
	    if IT_REF_CLI=$(abspath $(NATIVE))/isotrain $(MAKE) --no-print-directory recipe-matrix RECIPE=spec/recipes/tiny.json \
	        MATRIX_HOSTS=none RECIPE_IUT='sh conformance/tests/iuts/recipe_wrong.sh' RECIPE_IUT_NAME=recipe-wrong \
	        RECIPE_MATRIX_DIR=$$d > $(BUILD)/recipe-matrix/tiny-control.log 2>&1; then \
	        tail -n 20 $(BUILD)/recipe-matrix/tiny-control.log; \
	        echo "recipe-matrix-tiny: control: a recipe-matrix with recipe_wrong.sh's row passed"; exit 1; fi; \
	    grep -q '^| recipe-wrong .*FAIL' $$d/MATRIX.md && grep -q 'recipe-wrong: FAIL: .*first differing step 2' \
	        $(BUILD)/recipe-matrix/tiny-control.log || \
	        { tail -n 20 $(BUILD)/recipe-matrix/tiny-control.log; \
	          echo "recipe-matrix-tiny: control: recipe_wrong.sh's row is not FAIL at step 2"; exit 1; }; \
	    echo "recipe-matrix-tiny: control: $$(grep -m1 'recipe-wrong: FAIL' $(BUILD)/recipe-matrix/tiny-control.log)"

# the scheduled tier's: the example recipe, 300 steps, on every host,
# against its published set (vectors/v1.3.0/recipes/shakespeare)
recipe-matrix-shakespeare:
	+$(MAKE) --no-print-directory recipe-matrix RECIPE=spec/recipes/shakespeare.json RECIPE_SET=$(EXAMPLE_RECIPE_SET)
