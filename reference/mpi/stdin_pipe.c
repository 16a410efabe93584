/* Open MPI 4's mpirun forwards its stdin to rank 0 in 4 KiB chunks through
 * a non-blocking pipe, and its handling of a full pipe (EAGAIN) is where its
 * known stdin defects are: lost chunks (open-mpi/ompi#4744) and a
 * segmentation fault of mpirun itself in orte_iof_hnp_read_local_handler
 * (open-mpi/ompi#7483; seen here once in about 20 ops sessions of vectors
 * v1.2.0 on 2 ranks, the runner reporting it as the ERROR it is). The op
 * requests run up to 2 MB a line; a pipe of 64 KiB (Linux's default) fills
 * whenever rank 0 is off its core. Rank 0 widens it before reading, which
 * makes that path rare; it cannot make mpirun correct. Under isotrain-mpirun
 * (the IUT command of make) rank 0 reads the runner's pipe itself and
 * mpirun forwards nothing (stdin_direct.c): this is for a plain mpirun. */
#define _GNU_SOURCE /* F_SETPIPE_SZ, F_GETPIPE_SZ */
#include "stdin_pipe.h"

#include <fcntl.h>
#include <sys/stat.h>

long it_mpi_widen_stdin_pipe(void)
{
    struct stat st;
    if (fstat(0, &st) != 0 || !S_ISFIFO(st.st_mode))
        return 0;
#if defined(F_SETPIPE_SZ) && defined(F_GETPIPE_SZ)
    /* the largest a process may ask for without privilege is
     * /proc/sys/fs/pipe-max-size (1 MiB by default); root may ask for more */
    static const int sizes[] = {8 << 20, 4 << 20, 1 << 20, 256 << 10};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (fcntl(0, F_SETPIPE_SZ, sizes[i]) >= 0)
            break;
    int cap = fcntl(0, F_GETPIPE_SZ);
    return cap > 0 ? cap : 0;
#else
    return 0;
#endif
}
