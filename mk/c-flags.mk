# The C flags every build of the project states once (the top-level
# Makefile, mk/reference.mk and mk/mpi-build.mk, each of which may run alone).
# spec §2.4: the numeric flags every C build of the reference must carry.
NUMERIC_CFLAGS := -ffp-contract=off -fno-fast-math
WARN_CFLAGS    := -std=c11 -Wall -Wextra -Werror -pedantic
