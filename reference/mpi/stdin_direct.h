/* stdin_direct.h — the IUT's stdin pipe handed to rank 0 past mpirun. */
#ifndef ISOTRAIN_MPI_STDIN_DIRECT_H
#define ISOTRAIN_MPI_STDIN_DIRECT_H

#include <stddef.h>

/* Set by isotrain-mpirun (launcher/isotrain_mpirun.c) when its stdin is a
 * pipe: "FD:DEV:INO", the descriptor mpirun inherits that pipe on and the
 * pipe's identity (st_dev, st_ino), so that rank 0 can check it opened that
 * very pipe. mpirun itself is then started with --stdin none. */
#define IT_MPI_STDIN_ENV "ISOTRAIN_MPI_STDIN"

/* Rank 0's half: makes fd 0 the pipe IT_MPI_STDIN_ENV names, opened anew
 * through /proc/PPID/fd/FD of its parent, mpirun. Returns 1 when fd 0 is
 * now that pipe, 0 when the variable is not set (plain mpirun: stdin is
 * whatever mpirun forwards), -1 with a message in err otherwise (a
 * malformed value, a rank 0 not started by that mpirun on its host, another
 * pipe). */
int it_mpi_take_launcher_stdin(char *err, size_t cap);

#endif
