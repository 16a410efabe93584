# Builds the reference library and CLI into $(OUT) with $(CC).
# Called by the top-level Makefile once per configuration (native -O2, -O0,
# sanitizers, each cross ISA), so every build uses the same rules and the
# numeric flags of spec §2.4 cannot be forgotten by one of them.
#
#   make -f mk/reference.mk OUT=build/native CC=cc OPT=-O2 EXTRA_CFLAGS= EXTRA_LDFLAGS=

OUT ?= build/native
OPT ?= -O2
CC ?= cc
include mk/c-flags.mk
ALL_CFLAGS = $(WARN_CFLAGS) $(OPT) $(NUMERIC_CFLAGS) $(EXTRA_CFLAGS) \
             -Ireference/include -Ireference/src

LIB_SRCS := $(wildcard reference/src/*.c)
KERNEL_SRCS := $(wildcard reference/src/kernels/*.c)
LIB_OBJS := $(patsubst reference/src/%.c,$(OUT)/obj/%.o,$(LIB_SRCS)) \
            $(patsubst reference/src/kernels/%.c,$(OUT)/obj/kernels/%.o,$(KERNEL_SRCS)) \
            $(OUT)/obj/corpus_mlp13k.o $(OUT)/obj/corpus_gptchar.o

# The kernel sets (reference/src/kernels/): each x86_64 file with its own
# instruction set's flag and never an FMA one (ci/check-no-fma.sh checks the
# objects); on any other target the x86 files compile to nothing.
TARGET := $(shell $(CC) -dumpmachine)
# GCC 12's -O2 vectorizes only loops whose trip count it knows; the kernel
# loops run over a batch size known at run time. Order is fixed by the
# source, so -O3 changes speed only (never bits: still no contraction).
KERNEL_OPT := $(if $(filter -O2,$(OPT)),-O3)
ifneq ($(filter x86_64-%,$(TARGET)),)
KERNEL_FLAGS_x86_sse2   := -msse2
KERNEL_FLAGS_x86_avx    := -mavx
KERNEL_FLAGS_x86_avx2   := -mavx2
KERNEL_FLAGS_x86_avx512 := -mavx512f
KERNEL_FLAGS_x86_sha    := -msha -msse4.1
endif
# The Armv8 SHA2 instructions (kernels/arm_sha2.c); dispatch.c uses them only
# when AT_HWCAP says the CPU has them.
ifneq ($(filter aarch64-%,$(TARGET)),)
KERNEL_FLAGS_arm_sha2   := -march=armv8-a+crypto
endif

# EXE=.exe for Windows builds (MinGW's gcc appends it to -o names anyway)
EXE ?=

all: $(OUT)/libisotrain.a $(OUT)/isotrain$(EXE)

$(OUT)/obj/%.o: reference/src/%.c $(wildcard reference/include/*.h) $(wildcard reference/src/*.h) \
                 reference/src/kernels/kernels.h | $(OUT)/obj
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/obj/kernels/%.o: reference/src/kernels/%.c reference/src/kernels/kernels.h reference/src/kernels/simd_body.h reference/src/kernels/gemm_body.h reference/src/kernels/gpt_body.h \
                        reference/include/isotrain.h | $(OUT)/obj/kernels
	$(CC) $(ALL_CFLAGS) $(KERNEL_OPT) $(KERNEL_FLAGS_$*) -c $< -o $@

$(OUT)/gen/corpus_mlp13k.c: spec/corpus/mlp13k.txt reference/tools/bin2c.sh | $(OUT)/gen
	sh reference/tools/bin2c.sh it_mlp13k_corpus $< > $@.tmp && mv $@.tmp $@

$(OUT)/obj/corpus_mlp13k.o: $(OUT)/gen/corpus_mlp13k.c | $(OUT)/obj
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/gen/corpus_gptchar.c: spec/corpus/gptchar.txt reference/tools/bin2c.sh | $(OUT)/gen
	sh reference/tools/bin2c.sh it_gptchar_corpus $< > $@.tmp && mv $@.tmp $@

$(OUT)/obj/corpus_gptchar.o: $(OUT)/gen/corpus_gptchar.c | $(OUT)/obj
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/libisotrain.a: $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

# The CLI: every reference/cli/*.c (main in isotrain.c; the line protocol in
# wire.c and ops_server.c), libc and the library only, so it links statically.
# The IUT front end (reference/iut/: the wire format, the ops server, the
# train verb) is shared with the MPI trainer.
CLI_SRCS := $(wildcard reference/cli/*.c) $(wildcard reference/iut/*.c)
CLI_HDRS := $(wildcard reference/cli/*.h) $(wildcard reference/iut/*.h) $(wildcard reference/include/*.h)

$(OUT)/isotrain$(EXE): $(CLI_SRCS) $(CLI_HDRS) $(OUT)/libisotrain.a
	$(CC) $(ALL_CFLAGS) -Ireference/iut -DIT_BUILD_FLAGS='"$(CC) $(OPT) $(NUMERIC_CFLAGS) $(EXTRA_CFLAGS) $(EXTRA_LDFLAGS)"' \
	    $(CLI_SRCS) $(OUT)/libisotrain.a $(EXTRA_LDFLAGS) -o $@

$(OUT)/obj $(OUT)/obj/kernels $(OUT)/gen:
	mkdir -p $@

.PHONY: all
