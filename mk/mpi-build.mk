# The data-parallel reference trainer on MPI (spec §15; reference/mpi/):
# build/mpi/isotrain-mpi, the reference library and its step code with the
# reduction seam (isotrain_reduce.h) filled by reference/mpi/reduce_mpi.c,
# compiled with mpicc and started with mpirun.
#
#   make -f mk/mpi-build.mk OUT=build/mpi [LIB=build/native/libisotrain.a] [MPICC=mpicc] [OPT=-O2]
#
# LIB: link a library built already (the top-level Makefile passes the
# native one: the same objects `isotrain` runs); unset, the library is built
# into OUT through mk/reference.mk (a mutant's patched tree, ci/mutant-build.sh).
# CC is accepted and ignored (ci/mutant-build.sh passes it): MPI code is
# compiled by MPICC, which wraps the system compiler.

OUT   ?= build/mpi
OPT   ?= -O2
MPICC ?= mpicc
include mk/c-flags.mk
MPI_CFLAGS = $(WARN_CFLAGS) $(OPT) $(NUMERIC_CFLAGS) $(EXTRA_CFLAGS) \
             -Ireference/include -Ireference/src -Ireference/iut -Ireference/mpi
MPI_SRCS := $(wildcard reference/mpi/*.c)
MPI_HDRS := $(wildcard reference/mpi/*.h) $(wildcard reference/include/*.h)
# the IUT front end the reference CLI shares (reference/iut/: the train verb,
# the op protocol rank 0 serves)
MPI_CLI_SRCS := $(wildcard reference/iut/*.c)
MPI_HDRS += $(wildcard reference/iut/*.h)

all: $(OUT)/isotrain-mpi $(OUT)/isotrain-mpirun

ifeq ($(LIB),)
LIB := $(OUT)/libisotrain.a
$(LIB): FORCE_MPI_LIB
	@$(MAKE) --no-print-directory -f mk/reference.mk OUT=$(OUT) OPT=$(OPT) EXTRA_CFLAGS="$(EXTRA_CFLAGS)" \
	    $(OUT)/libisotrain.a
.PHONY: FORCE_MPI_LIB
FORCE_MPI_LIB:
endif

$(OUT)/isotrain-mpi: $(MPI_SRCS) $(MPI_HDRS) $(MPI_CLI_SRCS) $(LIB)
	@mkdir -p $(OUT)
	$(MPICC) $(MPI_CFLAGS) -DIT_BUILD_FLAGS='"$(MPICC) $(OPT) $(NUMERIC_CFLAGS) $(EXTRA_CFLAGS)"' \
	    $(MPI_SRCS) $(MPI_CLI_SRCS) $(LIB) -pthread $(EXTRA_LDFLAGS) -o $@

.PHONY: all

# the launcher the IUT command starts with (a private tmpfs for Open MPI's
# files: reference/mpi/launcher/isotrain_mpirun.c); no MPI in it
$(OUT)/isotrain-mpirun: reference/mpi/launcher/isotrain_mpirun.c reference/mpi/stdin_direct.h
	@mkdir -p $(OUT)
	$(MPICC) $(WARN_CFLAGS) $(OPT) $< -o $@
