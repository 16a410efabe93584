/* The IUT front end both reference trainers share (spec/iut-protocol.md
 * P1, P7): the `train` verb with its one option table, its checks in one
 * order and its exit statuses, for one process (reference/cli/isotrain.c)
 * and for an MPI job (reference/mpi/isotrain_mpi.c). What differs between
 * the two is an iut_front: who speaks, how the processes agree, where a
 * step's sums run. */
#ifndef IT_IUT_H
#define IT_IUT_H

#include <stdint.h>
#include <stdio.h>

#include "isotrain_gpt.h"
#include "isotrain_profile.h"

/* iut-protocol P1, P7 */
enum { IUT_EXIT_TRAIN_FAILED = 1, IUT_EXIT_USAGE = 2, IUT_EXIT_FPENV = 3, IUT_EXIT_IO = 4, IUT_EXIT_UNSUPPORTED = 64 };

/* A train command line, parsed and checked. */
typedef struct {
    const char *profile_name;
    const it_profile *profile;
    it_train_config cfg;
    it_run_options opt; /* trace and checkpoint_dir: the writer's only */
    const char *trace_path, *dir;
    uint32_t steps, from_step, threads, block_bytes;
    uint64_t seed;
    uint32_t *ck, *sk, *all; /* malloc'd lists (--checkpoint-steps, --state-steps, "all") */
    size_t n_ck, n_sk;
    int all_steps, force_ftz, stats;
    unsigned long given; /* one bit per option of the table */
    const char *recipe_path; /* --recipe (spec §16, P7 1.3.0) */
    it_gpt_recipe *recipe;   /* read from it, and its profile row */
    it_gpt_profile *recipe_row;
} iut_train_request;

typedef struct iut_front iut_front;
struct iut_front {
    const char *prog;  /* "isotrain", "isotrain-mpi": the prefix of every message */
    int writer;        /* this process prints the job's messages, the trace and the checkpoints */
    int data_parallel; /* accepts --block-bytes and --stats */
    /* the worst status of every process (NULL: this one's) */
    int (*agree)(const iut_front *f, int status);
    /* the front's own usage check after the common ones (NULL: none): an
     * exit status, the message in err */
    int (*check)(const iut_front *f, const iut_train_request *r, char *err, size_t cap);
    /* runs the request (NULL: it_train_run_profile in this process) */
    it_status (*run)(const iut_front *f, const iut_train_request *r, it_train_state *s, char *err, size_t cap);
    /* a failure only the writer saw (its files): ends every process (NULL: return) */
    void (*abort_job)(const iut_front *f, int status);
    /* After the command line is parsed and checked, on every process whatever
     * its own status (NULL: one process): the worst status of all; a process
     * that refused where the writer did not says err itself (the writer has
     * said its own). */
    int (*refused)(const iut_front *f, int status, const char *err);
    /* Before the run, on every process: digests[i] (32 bytes) of what this
     * process read or parsed for itself (names[i]: what it is); 0 when every
     * process holds the same, else a usage status on every process, each
     * difference named (NULL: one process). */
    int (*same)(const iut_front *f, const unsigned char (*digests)[32], const char *const *names, size_t n);
    void *ctx;
};

/* `PROG train ARGS...` (argv without the verb): the exit status of P7. */
int iut_train(int argc, char **argv, const iut_front *f);

/* info's compiler= and build_flags= keys (iut-protocol P2's info). */
void iut_print_build(FILE *out, const char *build_flags);

/* A front end's usage: head, the train verb's lines (the profiles from the
 * table), then the rest. */
void iut_usage(FILE *out, const char *head, const char *prog, int data_parallel, const char *rest);

#endif
