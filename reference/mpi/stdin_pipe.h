/* stdin_pipe.h — rank 0's end of the pipe mpirun forwards stdin through. */
#ifndef ISOTRAIN_MPI_STDIN_PIPE_H
#define ISOTRAIN_MPI_STDIN_PIPE_H

/* Enlarges the pipe on fd 0, if it is one, so that mpirun's forwarding of
 * the runner's requests rarely finds it full. Returns the pipe's capacity in
 * bytes afterwards, 0 if fd 0 is not a pipe or Linux's F_SETPIPE_SZ is not
 * there (nothing else changes then). */
long it_mpi_widen_stdin_pipe(void);

#endif
