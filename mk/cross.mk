# Static builds of the reference for every ISA of the emulated host matrix
# (qemu/hosts.json names each host's build). Each goes through mk/reference.mk,
# so each carries the numeric flags of spec §2.4; the per-ISA flags below are
# the ones spec §2.4 asks for on that ISA.

CROSS_BUILDS := x86_64 i386 i386-x87 aarch64 s390x ppc64le armhf riscv64 win64

CROSS_CC_x86_64    := $(CC)
CROSS_CC_i386      := i686-linux-gnu-gcc
CROSS_CC_i386-x87  := i686-linux-gnu-gcc
CROSS_CC_aarch64   := aarch64-linux-gnu-gcc
CROSS_CC_s390x     := s390x-linux-gnu-gcc
CROSS_CC_ppc64le   := powerpc64le-linux-gnu-gcc
CROSS_CC_armhf     := arm-linux-gnueabihf-gcc
CROSS_CC_riscv64   := riscv64-linux-gnu-gcc
CROSS_CC_win64     := x86_64-w64-mingw32-gcc

# i386: binary32 in SSE registers, not the x87 stack (spec §2.4).
CROSS_FLAGS_i386     := -msse2 -mfpmath=sse
# The x87 build is the matrix's expected failure: excess precision on
# purpose, built from a copy of the tree without the guard that refuses such
# builds (spec/mutants/x87-excess.patch, through ci/mutant-build.sh).
CROSS_FLAGS_i386-x87 := -mfpmath=387
CROSS_PATCH_i386-x87 := x87-excess.patch
# GCC 12 on s390x evaluates float expressions in double under -std=c11
# (FLT_EVAL_METHOD 1); -fexcess-precision=fast makes it use the machine's own
# binary32 instructions (FLT_EVAL_METHOD 0), which is what the spec needs.
CROSS_FLAGS_s390x    := -fexcess-precision=fast

# Windows x86_64 (MinGW-w64, run under Wine by the matrix): MinGW's own C99
# printf/scanf instead of msvcrt's, which lacks %zu and prints floats its
# own way; the binary is isotrain.exe.
CROSS_FLAGS_win64    := -D__USE_MINGW_ANSI_STDIO=1
CROSS_EXE_win64      := .exe

.PHONY: cross deps-matrix $(addprefix cross-,$(CROSS_BUILDS))

deps-matrix:
	@sh ci/ensure-deps.sh build matrix

cross: $(addprefix cross-,$(CROSS_BUILDS))

$(addprefix cross-,$(CROSS_BUILDS)): cross-%: deps-matrix
	@sh ci/mutant-build.sh $(BUILD)/cross/$* $(or $(CROSS_PATCH_$*),-) CC=$(CROSS_CC_$*) OPT=-O2 \
	    EXTRA_CFLAGS="$(CROSS_FLAGS_$*)" EXTRA_LDFLAGS=-static EXE=$(CROSS_EXE_$*)
