# Conforming PyTorch (adapters/python/: the isotrain.torch package, issue 19).
# Included by the top-level Makefile after mk/cross.mk and mk/pytorch.mk (it
# uses their compilers, per-ISA flags, $(PYTORCH_PY), $(PYTORCH_SYSROOTS) and
# the runner target `conformance-runner`).
#
#   make torch-so                  the reference library as a shared object, native
#                                  and cross: $(BUILD)/shared/<isa>/libisotrain.so
#   make test-pytorch-conforming   unit tests of the package, the no-leak trace (and its
#                                  negative controls), gptchar's step and conform's refusals
#                                  (test_gpt.py), the three profiles certified on every native
#                                  row (gptchar through nanogpt.py + conform), the mutants
#                                  localized by the runner
#   make pytorch-conforming-cross-isa  the same IUT under qemu-aarch64/-s390x/-ppc64le in
#                                  Debian's python3-torch sysroots (a prefix of steps),
#                                  beside plain pinned PyTorch
#   make own-model-cross-isa       a model of no profile, 20 steps natively and under
#                                  qemu-aarch64: the same digest at every step (scheduled)
#   make test-pytorch-recipe       a recipe of the GPT family (spec §16) through nanogpt.py,
#                                  certified against the runner's recipe set natively and by
#                                  windows under qemu-aarch64 (scheduled)
#   make pytorch-conforming-cross-isa-windows  the cross-ISA run with the runner's windows:
#                                  PASS (windows) on aarch64, s390x, ppc64le (scheduled)
#   make bench-torch-conforming    steps/s: conforming path vs plain PyTorch vs the C
#                                  reference, the three profiles, CPU time
#
# The shared object is built from the same objects and rules as every other
# build of the library (mk/reference.mk: the numeric flags of spec §2.4, the
# kernel sets with their own -m flags, never -mfma), with -fPIC added, and
# linked -shared against the C library alone (-z defs: nothing left undefined).
# It is dynamic against glibc: the cross compilers' glibc (2.36) is the one of
# the bookworm sysroots that load it under QEMU. Linked in beside the library:
# adapters/python/isotrain/torch/_rows.c, row loops over isotrain.h's one-row
# LayerNorm and one-sequence causal attention (pointer arithmetic only), so
# isotrain.torch makes one ctypes call per layer, not one per row; _chain.c,
# a chain of row layers forward or backward in one call (conform's fusion);
# _tensors.c, AdamW over a parameter group's tensors in one call and §7.3's
# clipping over the gradients in place.

TORCH_SO_ISAS := x86_64 aarch64 s390x ppc64le
TORCH_SO_CC_x86_64  := $(CC)
TORCH_SO_CC_aarch64 := $(CROSS_CC_aarch64)
TORCH_SO_CC_s390x   := $(CROSS_CC_s390x)
TORCH_SO_CC_ppc64le := $(CROSS_CC_ppc64le)
TORCH_SO_DIR  := $(BUILD)/shared
TORCH_SO      := $(TORCH_SO_DIR)/x86_64/libisotrain.so

# The IUT, in one variable: plain words, run in the argv form (`run ... --
# $(TORCH_CONFORMING_IUT)`, no shell) so the receipt binds python and the script.
# gptchar through nanogpt.py, the ordinary model made conforming by isotrain.torch.conform
TORCH_CONFORMING_IUT ?= $(PYTORCH_PY) adapters/python/examples/iut.py --gptchar-model nanogpt
TORCH_CONFORMING_OUT ?= $(BUILD)/pytorch-conforming
# rows of the native matrix (adapters/python/tools/conforming_matrix.py ROWS):
# per commit the one that exercises most (PyTorch's AVX2 kernels on two
# threads: isotrain.torch's own threads and SIMD set beside them) and the
# negative controls, since .ci/run must stay within 45 minutes (each row
# certifies the three profiles in full, about 110 s); every row (portable
# kernels on one thread, OpenBLAS, AVX-512) is the scheduled tier's,
# test-pytorch-conforming-all
TORCH_CONFORMING_ROWS ?= avx2-t2
# negative controls (conforming_matrix.py CONTROLS): per commit one per kind of
# localization (a layer named by its op, the loss_grad replay, a first
# differing tensor); every one in the scheduled tier
TORCH_CONFORMING_CONTROLS ?= control-tanh,control-linear-addmod113,control-nanogpt-layernorm,control-nanogpt-fanout
TORCH_CONFORMING_QEMU_STEPS ?= 2
TORCH_CONFORMING_CROSS_ARCHES ?= arm64 s390x ppc64el
TORCH_BENCH_STEPS ?= 20
# gptchar's N (bench.py --steps-gptchar): under a shared machine's load the start-up's
# noise over N = 20 steps can swamp the difference; 200 settles it
TORCH_BENCH_GPTCHAR_STEPS ?= 20
TORCH_BENCH_PROFILES ?= mlp13k,addmod113,gptchar
# 1: pytorch-conforming-cross-isa also runs the runner's windows (iut.py resumes) and
# wants `matrix` to say PASS (windows) for every host
TORCH_CONFORMING_WINDOWS ?=

.PHONY: torch-so $(addprefix torch-so-,$(TORCH_SO_ISAS)) test-pytorch-conforming test-pytorch-conforming-all pytorch-conforming-cross-isa \
        bench-torch-conforming own-model-cross-isa test-pytorch-recipe pytorch-conforming-cross-isa-windows

torch-so: $(addprefix torch-so-,$(TORCH_SO_ISAS))

TORCH_SO_SHIM := adapters/python/isotrain/torch/_rows.c adapters/python/isotrain/torch/_chain.c \
                  adapters/python/isotrain/torch/_tensors.c adapters/python/isotrain/torch/_layout.c

$(addprefix torch-so-,$(TORCH_SO_ISAS)): torch-so-%: deps-build
	@$(REF) OUT=$(TORCH_SO_DIR)/$* CC=$(TORCH_SO_CC_$*) OPT=-O2 EXTRA_CFLAGS="-fPIC $(CROSS_FLAGS_$*)" \
	    $(TORCH_SO_DIR)/$*/libisotrain.a
	@if [ ! $(TORCH_SO_DIR)/$*/libisotrain.so -nt $(TORCH_SO_DIR)/$*/libisotrain.a ] || \
	    [ -n "$$(find $(TORCH_SO_SHIM) -newer $(TORCH_SO_DIR)/$*/libisotrain.so)" ]; then \
	    echo "$(TORCH_SO_CC_$*) -shared -o $(TORCH_SO_DIR)/$*/libisotrain.so (whole libisotrain.a, $(TORCH_SO_SHIM))"; \
	    for c in $(TORCH_SO_SHIM); do \
	        $(TORCH_SO_CC_$*) $(WARN_CFLAGS) -O2 -ffp-contract=off -fno-fast-math -fPIC $(CROSS_FLAGS_$*) \
	            -Ireference/include -Ireference/src -c $$c -o $(TORCH_SO_DIR)/$*/torch$$(basename $$c .c).o || exit 1; \
	    done && \
	    $(TORCH_SO_CC_$*) -shared -pthread -Wl,-z,defs -Wl,-soname,libisotrain.so \
	        -o $(TORCH_SO_DIR)/$*/libisotrain.so.tmp $(addprefix $(TORCH_SO_DIR)/$*/torch,$(notdir $(TORCH_SO_SHIM:.c=.o))) \
	        -Wl,--whole-archive $(TORCH_SO_DIR)/$*/libisotrain.a -Wl,--no-whole-archive && \
	    mv $(TORCH_SO_DIR)/$*/libisotrain.so.tmp $(TORCH_SO_DIR)/$*/libisotrain.so; \
	fi

# no __pycache__ in the source tree
test-pytorch-conforming pytorch-conforming-cross-isa bench-torch-conforming: export PYTHONDONTWRITEBYTECODE := 1

test-pytorch-conforming: pytorch-deps conformance-runner torch-so-x86_64
	@mkdir -p $(TORCH_CONFORMING_OUT)
	sh ci/check-no-fma.sh check $(TORCH_SO_DIR)/x86_64
	$(PYTORCH_PY) adapters/python/tests/test_package.py --lib $(TORCH_SO)
	$(PYTORCH_PY) adapters/python/tests/test_no_leak.py --lib $(TORCH_SO)
	$(PYTORCH_PY) adapters/python/tests/test_chain.py --lib $(TORCH_SO)
	$(PYTORCH_PY) adapters/python/tests/test_resume.py --lib $(TORCH_SO)
	$(PYTORCH_PY) adapters/python/tests/test_gpt.py --lib $(TORCH_SO)
	$(PYTORCH_PY) adapters/python/tests/test_own_model.py --lib $(TORCH_SO)
	$(PYTORCH_PY) adapters/python/tools/conforming_matrix.py --conform $(PYTORCH_CONFORM) \
	    --iut '$(TORCH_CONFORMING_IUT)' --lib $(TORCH_SO) --python $(PYTORCH_PY) \
	    --out $(TORCH_CONFORMING_OUT) --rows '$(TORCH_CONFORMING_ROWS)' --controls '$(TORCH_CONFORMING_CONTROLS)'

# a model of no profile (tests/test_own_model.py): 20 steps natively and under
# qemu-aarch64 in Debian's arm64 python3-torch, the same digest at every step
own-model-cross-isa: export PYTHONDONTWRITEBYTECODE := 1
own-model-cross-isa: pytorch-deps torch-so-x86_64 torch-so-aarch64
	+@$(MAKE) --no-print-directory pytorch-sysroots PYTORCH_CROSS_ARCHES=arm64
	@mkdir -p $(TORCH_CONFORMING_OUT)/own-model
	TMPDIR=$(abspath $(TORCH_CONFORMING_OUT))/own-model $(PYTORCH_PY) adapters/python/tests/test_own_model.py \
	    --lib $(TORCH_SO) --qemu qemu-aarch64 --cpu cortex-a72 --sysroot $(PYTORCH_SYSROOTS)/arm64/root \
	    --qemu-lib $(TORCH_SO_DIR)/aarch64/libisotrain.so --pycache $(BUILD)/pycache/arm64

# a recipe of the GPT family through nanogpt.py (iut.py train --recipe, issue 32 item 5):
# the runner's set of $(TORCH_RECIPE) certified natively with --windows (PASS (recipe
# sha256:..., windows)), its negative controls (a §16.3 constant rounded once: FAIL) and
# the usage errors; then by windows under qemu-aarch64 in Debian's arm64 python3-torch
# (matrix: PASS (windows)). Scheduled (test-pytorch-conforming-all): each runner run is
# ops + fresh + the run, minutes natively, and every emulated process imports torch
# (about 35 s CPU under QEMU)
TORCH_RECIPE ?= spec/recipes/tiny.json
test-pytorch-recipe: pytorch-deps conformance-runner torch-so-x86_64 torch-so-aarch64
	+@$(MAKE) --no-print-directory pytorch-sysroots PYTORCH_CROSS_ARCHES=arm64
	@mkdir -p $(TORCH_CONFORMING_OUT)
	PYTHONDONTWRITEBYTECODE=1 $(PYTORCH_PY) adapters/python/tests/test_recipe.py --conform $(PYTORCH_CONFORM) \
	    --lib $(TORCH_SO) --python $(PYTORCH_PY) --recipe $(TORCH_RECIPE) --out $(TORCH_CONFORMING_OUT)/recipe
	PYTHONPYCACHEPREFIX=$(abspath $(BUILD))/pycache/arm64 $(PYTORCH_PY) adapters/python/tests/test_recipe.py \
	    --conform $(PYTORCH_CONFORM) --lib $(TORCH_SO_DIR)/aarch64/libisotrain.so --recipe $(TORCH_RECIPE) \
	    --prefix 'qemu-aarch64 -L $(PYTORCH_SYSROOTS)/arm64/root -cpu cortex-a72' \
	    --python $(PYTORCH_SYSROOTS)/arm64/root/usr/bin/python3 --out $(TORCH_CONFORMING_OUT)/recipe-aarch64

test-pytorch-conforming-all:
	+$(MAKE) --no-print-directory test-pytorch-conforming TORCH_CONFORMING_ROWS=all TORCH_CONFORMING_CONTROLS=all
	+$(MAKE) --no-print-directory own-model-cross-isa
	+$(MAKE) --no-print-directory test-pytorch-recipe

pytorch-conforming-cross-isa: pytorch-deps conformance-runner pytorch-sysroots torch-so
	@mkdir -p $(TORCH_CONFORMING_OUT)
	sh ci/check-no-fma.sh check $(addprefix $(TORCH_SO_DIR)/,$(TORCH_SO_ISAS))
	$(PYTORCH_PY) adapters/python/tools/conforming_cross_isa.py --conform $(PYTORCH_CONFORM) \
	    --python $(PYTORCH_PY) --sysroots $(PYTORCH_SYSROOTS) --shared $(TORCH_SO_DIR) \
	    --out $(TORCH_CONFORMING_OUT)/cross-isa --qemu-steps $(TORCH_CONFORMING_QEMU_STEPS) \
	    --arches $(subst $(eval) ,$(comma),$(strip $(TORCH_CONFORMING_CROSS_ARCHES))) \
	    $(if $(TORCH_CONFORMING_WINDOWS),--windows)

# the scheduled tier's: every emulated host by windows (iut.py resumes), PASS (windows)
# from `matrix` for each; a 1-step prefix, the windows cover the rest of every profile
pytorch-conforming-cross-isa-windows:
	+$(MAKE) --no-print-directory pytorch-conforming-cross-isa TORCH_CONFORMING_WINDOWS=1 TORCH_CONFORMING_QEMU_STEPS=1

bench-torch-conforming: pytorch-deps reference torch-so-x86_64
	@mkdir -p $(TOOLS)
	$(PYTORCH_PY) adapters/python/tools/bench.py --lib $(TORCH_SO) --isotrain $(NATIVE)/isotrain \
	    --steps $(TORCH_BENCH_STEPS) --steps-gptchar $(TORCH_BENCH_GPTCHAR_STEPS) --profiles $(TORCH_BENCH_PROFILES) \
	    | tee $(TOOLS)/bench-torch-conforming.txt
