# PyTorch as an implementation under test (adapters/pytorch/README.md).
# Included by the top-level Makefile (`include mk/pytorch.mk`); uses $(BUILD)
# and the runner target `conformance-runner` of mk/conformance.mk.
#
#   make pytorch-deps        python3-torch (and numpy) for $(PYTORCH_PY); installs as root
#   make test-pytorch        quick adapter tests (spec vectors, protocol, runner parses traces,
#                            repeat on addmod113 with 3 steps)                    ~30 s
#   make pytorch-matrix      R1/R2 of the design brief, natively and under qemu-x86_64, and R2
#                            with OpenBLAS as libblas.so.3 (private copy, OPENBLAS_CORETYPE
#                            unset vs pinned), verdicts by the runner -> $(PYTORCH_MATRIX_OUT)
#   make pytorch-divergence  addmod113: repeat, default-vs-avx2 compare, divergence curve
#                            -> $(PYTORCH_OUT)/divergence.csv, divergence.svg        ~5-8 min
#   make pytorch-sysroots    Debian's python3-torch for arm64, s390x, ppc64el in
#                            $(PYTORCH_SYSROOTS)/<arch>/root (private apt; cached)
#   make pytorch-cross-isa   pinned PyTorch (default kernels, 1 thread) natively and under
#                            qemu-aarch64/-s390x/-ppc64le, verdicts by the runner, single-op
#                            probes, disassembly, compile probe -> $(PYTORCH_CROSS_OUT)/evidence.txt,
#                            which must equal $(PYTORCH_CROSS_EXPECT) (fails with a diff otherwise)
#
# Debian's python3-torch is built for /usr/bin/python3; a python3 earlier in
# PATH (pyenv, venv) does not see it, so /usr/bin/python3 is preferred.

PYTORCH_PY        ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PYTORCH_CONFORM   ?= $(BUILD)/conform/isotrain-conform
PYTORCH_OUT       ?= $(BUILD)/pytorch
PYTORCH_MATRIX_OUT ?= $(BUILD)/pytorch-matrix
PYTORCH_MATRIX_STEPS ?= 200
PYTORCH_MATRIX_OPENBLAS_STEPS ?= 20
PYTORCH_OPENBLAS  ?= $(BUILD)/openblas
PYTORCH_DIVERGENCE_STEPS ?= 300
PYTORCH_QEMU      ?= qemu-x86_64
comma := ,
PYTORCH_SYSROOTS  ?= $(BUILD)/pytorch-sysroot
PYTORCH_CROSS_OUT ?= $(BUILD)/pytorch-cross-isa
PYTORCH_CROSS_ARCHES ?= arm64 s390x ppc64el
PYTORCH_CROSS_STEPS ?= 200
# QEMU runs the whole Python + libtorch process: fewer steps there (the
# first difference, if any, is in the first few)
PYTORCH_CROSS_QEMU_STEPS ?= 30
# the committed expectation the evidence must equal; PYTORCH_CROSS_UPDATE=1
# re-records it from the run (then commit it with the reason)
PYTORCH_CROSS_EXPECT ?= adapters/pytorch/expected/cross-isa.txt
PYTORCH_CROSS_UPDATE ?=

.PHONY: pytorch-deps pytorch-deps-qemu test-pytorch pytorch-matrix pytorch-divergence pytorch-sysroots pytorch-cross-isa

# no __pycache__ in the source tree
test-pytorch pytorch-matrix pytorch-divergence pytorch-cross-isa: export PYTHONDONTWRITEBYTECODE := 1

pytorch-deps:
	@PYTORCH_PY=$(PYTORCH_PY) sh ci/ensure-deps.sh torch

pytorch-deps-qemu:
	@PYTORCH_PY=$(PYTORCH_PY) sh ci/ensure-deps.sh torch qemu

test-pytorch: pytorch-deps conformance-runner
	$(PYTORCH_PY) adapters/pytorch/tests/test_adapter.py --conform $(PYTORCH_CONFORM) --python $(PYTORCH_PY) \
	    --isotrain $(BUILD)/native/isotrain

# OpenBLAS for the R2 + OpenBLAS rows comes from a private extraction
# (ci/openblas-private.sh; never installed: that would switch libblas.so.3 for
# every process and break the reference-BLAS rows)
pytorch-matrix: pytorch-deps-qemu conformance-runner reference
	@mkdir -p $(PYTORCH_MATRIX_OUT)
	ob=$$(sh ci/openblas-private.sh $(PYTORCH_OPENBLAS)) && \
	$(PYTORCH_PY) adapters/pytorch/matrix.py --conform $(PYTORCH_CONFORM) --python $(PYTORCH_PY) \
	    --out $(PYTORCH_MATRIX_OUT) --steps $(PYTORCH_MATRIX_STEPS) --qemu $(PYTORCH_QEMU) \
	    --openblas "$$ob" --openblas-steps $(PYTORCH_MATRIX_OPENBLAS_STEPS) --isotrain $(NATIVE)/isotrain

# With the reference (native and aarch64 under QEMU) on spec profile
# addmod113 beside PyTorch's drift, in the same figure.
pytorch-divergence: pytorch-deps conformance-runner reference cross-aarch64
	@mkdir -p $(PYTORCH_OUT)
	$(PYTORCH_PY) adapters/pytorch/addmod113_study.py --conform $(PYTORCH_CONFORM) --python $(PYTORCH_PY) \
	    --out $(PYTORCH_OUT) --steps $(PYTORCH_DIVERGENCE_STEPS) \
	    --reference $(NATIVE)/isotrain --reference-aarch64 $(BUILD)/cross/aarch64/isotrain


pytorch-sysroots:
	@sh ci/ensure-deps.sh sysroot
	@for arch in $(PYTORCH_CROSS_ARCHES); do \
	    sh ci/pytorch-sysroot.sh $$arch $(PYTORCH_SYSROOTS)/$$arch || exit 1; \
	done

pytorch-cross-isa: pytorch-deps conformance-runner pytorch-sysroots
	@mkdir -p $(PYTORCH_CROSS_OUT)
	$(PYTORCH_PY) adapters/pytorch/cross_isa.py --conform $(PYTORCH_CONFORM) --python $(PYTORCH_PY) \
	    --sysroots $(PYTORCH_SYSROOTS) --out $(PYTORCH_CROSS_OUT) --steps $(PYTORCH_CROSS_STEPS) \
	    --qemu-steps $(PYTORCH_CROSS_QEMU_STEPS) --arches $(subst $(eval) ,$(comma),$(strip $(PYTORCH_CROSS_ARCHES))) \
	    --expect $(PYTORCH_CROSS_EXPECT) $(if $(PYTORCH_CROSS_UPDATE),--update-expected)
