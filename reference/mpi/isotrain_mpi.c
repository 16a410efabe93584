/* isotrain-mpi: the reference trainer, data-parallel over MPI ranks
 * (spec §15), started by mpirun:
 *
 *   mpirun -np N build/mpi/isotrain-mpi train --profile addmod113 ...
 *
 * It is the reference library (libisotrain.a) and its step code, with the
 * one seam of isotrain_reduce.h filled by reduce_mpi.c: every rank computes
 * its contiguous range of the batch's rows, every order-dependent sum runs
 * through the ranks in batch order, every rank applies the same update.
 * The bits are those of `isotrain train`, for any N. To the conformance
 * runner it is an ordinary IUT (spec/iut-protocol.md): rank 0 answers
 * hello and ops and writes the trace and the checkpoints; the other ranks
 * print nothing.
 *
 * What a rank alone can see (its options, its CPU's kernel sets, its
 * floating-point environment, whether rank 0 could create its files) is
 * agreed by all ranks before anything runs, so every rank ends with the same
 * exit status and no rank waits for one that has gone. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getrusage */
#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <sys/types.h>
#include <time.h>

#include "fpenv_force.h"
#include "isotrain.h"
#include "isotrain_reduce.h"
#include "iut.h"
#include "ops_server.h"
#include "reduce_mpi.h"
#include "stdin_direct.h"
#include "stdin_pipe.h"

#ifndef IT_BUILD_FLAGS
#define IT_BUILD_FLAGS "unknown"
#endif

/* iut-protocol P1, P7 (as the reference CLI) */
enum { EXIT_USAGE = IUT_EXIT_USAGE, EXIT_FPENV = IUT_EXIT_FPENV, EXIT_IO = IUT_EXIT_IO, EXIT_UNSUPPORTED = IUT_EXIT_UNSUPPORTED };

static int rank, nranks;

/* Messages about the whole job come from rank 0 alone. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* Every rank's status, agreed: the largest (statuses are the P7 exit codes,
 * 0 = fine). Integers: the order of a MAX does not matter. */
static int agree(int status)
{
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int finish(int code)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    return code;
}

/* The other ranks wait while rank 0 serves the protocol alone, without
 * spinning on a core (an MPI barrier busy-polls). */
static void barrier_idle(void)
{
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    int done = 0;
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done && rank != 0) {
            struct timespec ts = {0, 2 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

static void usage(FILE *out)
{
    iut_usage(out, "usage: mpirun [mpirun options] -np N isotrain-mpi VERB ...\n", "isotrain-mpi", 1,
          "  isotrain-mpi hello | ops | info | --version | --help\n"
          "  isotrain-mpi --kernels NAME VERB ...\n"
          "\n"
          "The reference trainer with the batch's rows split across the N ranks in\n"
          "batch order (spec 15): every gradient, embedding-gradient and loss sum\n"
          "runs through the ranks as one chain (gptchar's tied wte as two, spec\n"
          "5.20), so every N gives the bits of `isotrain train` (N at most the\n"
          "batch's rows, spec 11.6, 13.5, 14.5).\n"
          "Rank 0 writes the trace and checkpoints and answers hello\n"
          "and ops; the options are the reference CLI's (spec/iut-protocol.md P7).\n"
          "--block-bytes B  the size of one block of a partial gradient passed\n"
          "        between ranks (default 16384, at least 32 output rows; speed\n"
          "        only, never bits).\n"
          "--stats  prints per rank: rows, CPU seconds, seconds waiting in MPI, bytes\n"
          "        sent (make mpi-scaling).\n");
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec);
}

/* --stats: one line per rank on rank 0's stderr (make mpi-scaling reads
 * them). run_cpu: this thread's CPU seconds in the run; less its CPU in MPI
 * waits, what the rank computed (the trainer's own work), which on an idle
 * machine with a core per rank is the rank's share of the wall time. */
static void print_stats(const it_reducer *rd, size_t batch, double wall, double run_cpu, uint32_t steps)
{
    enum { K = 8 };
    const it_mpi_stats *st = it_mpi_reducer_stats(rd);
    size_t lo, hi;
    it_mpi_rows_of(batch, rank, nranks, &lo, &hi);
    double mine[K] = {(double)lo, (double)hi, cpu_seconds(), st->wait_s, (double)st->bytes_sent,
                      (double)st->messages, run_cpu, st->wait_cpu_s};
    double *all = rank == 0 ? malloc(sizeof mine * (size_t)nranks) : NULL;
    MPI_Gather(mine, K, MPI_DOUBLE, all, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0 || !all)
        return;
    double bytes = 0, most = 0, sum = 0;
    for (int r = 0; r < nranks; r++) {
        const double *a = all + K * r;
        double compute = a[6] - a[7];
        fprintf(stderr,
                "mpi-stats rank=%d rows=%.0f..%.0f cpu_s=%.3f run_cpu_s=%.3f compute_cpu_s=%.3f wait_s=%.3f "
                "wait_cpu_s=%.3f bytes_sent=%.0f messages=%.0f\n",
                r, a[0], a[1], a[2], a[6], compute, a[3], a[7], a[4], a[5]);
        bytes += a[4];
        sum += compute;
        most = compute > most ? compute : most;
    }
    fprintf(stderr,
            "mpi-stats ranks=%d steps=%u wall_s=%.3f steps_per_s=%.4f bytes_per_step=%.0f max_compute_cpu_s=%.3f "
            "sum_compute_cpu_s=%.3f\n",
            nranks, (unsigned)steps, wall, steps ? steps / wall : 0.0, steps ? bytes / steps : 0.0, most, sum);
    free(all);
}

/* ---- the train verb: the shared front end (reference/iut/) with the
 * ranks as its processes ---- */

static int front_agree(const iut_front *f, int status)
{
    (void)f;
    return agree(status);
}

/* spec §15: each rank holds at least one row of the batch */
static int front_check(const iut_front *f, const iut_train_request *r, char *err, size_t cap)
{
    (void)f;
    const it_profile *p = r->profile;
    if ((size_t)nranks <= p->batch_rows)
        return 0;
    snprintf(err, cap,
             "%d ranks for a batch of %zu %s (profile %s): each rank needs at least one row of the batch, so at "
             "most %zu ranks (spec 15)",
             nranks, p->batch_rows, p->row_noun, p->name, p->batch_rows);
    return IUT_EXIT_USAGE;
}

/* every step's sums through the ranks (reduce_mpi.c) */
static it_status front_run(const iut_front *f, const iut_train_request *r, it_train_state *s, char *err, size_t cap)
{
    (void)f;
    it_reducer *rd = it_mpi_reducer_new(MPI_COMM_WORLD, r->block_bytes);
    if (!rd) {
        snprintf(err, cap, "out of memory for the reducer");
        return IT_ERR_IO;
    }
    it_mpi_reducer_describe(rd, r->profile->tensors, r->profile->ntensors, s->grads);
    double t0 = MPI_Wtime(), c0 = it_mpi_thread_cpu();
    it_status st = it_train_run_profile(r->profile, &r->cfg, &r->opt, rd, s, err, cap);
    double wall = MPI_Wtime() - t0, run_cpu = it_mpi_thread_cpu() - c0;
    /* every outcome but the writer's I/O is the same on every rank */
    if (r->stats && st == IT_OK)
        print_stats(rd, r->profile->batch_rows, wall, run_cpu, r->steps);
    it_mpi_reducer_free(rd);
    return st;
}

/* rank 0 alone writes, so it alone sees its I/O failure; the others are
 * already in the next step's chain, waiting for it: end the job */
static void front_abort(const iut_front *f, int status)
{
    (void)f;
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
}

/* the command line checked on every rank: a rank that refused it where rank
 * 0 accepted it (a file only its host lacks: --recipe) says why itself,
 * and every rank ends with the worst status, none left in a collective */
static int front_refused(const iut_front *f, int status, const char *err)
{
    (void)f;
    int root = status;
    MPI_Bcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int worst = agree(status);
    if (status != 0 && root == 0)
        fprintf(stderr, "isotrain-mpi train: rank %d: %s\n", rank, err);
    if (worst != 0 && root == 0 && rank == 0)
        fprintf(stderr,
                "isotrain-mpi train: another rank refused the request rank 0 accepted (exit %d; each such rank "
                "names itself): nothing ran\n",
                worst);
    fflush(stderr);
    return worst;
}

/* words[i] for each i in mask (each i when mask is NULL), sep between,
 * cut short with "..." when out (cap bytes) cannot hold them all */
static void join_words(const char *const *words, size_t n, const unsigned *mask, const char *sep, char *out,
                       size_t cap)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        if (mask && !(*mask & (1u << i)))
            continue;
        int w = snprintf(out + k, cap - k, "%s%s", k ? sep : "", words[i]);
        if (w < 0)
            break;
        k += (size_t)w < cap - k ? (size_t)w : cap - k - 1;
    }
    if (k + 1 >= cap && cap > 4)
        memcpy(out + cap - 4, "...", 4);
}

enum { MAX_PARTS = 8 }; /* a job compares at most this many digests at once (a bit each) */

/* This rank's n digests against rank 0's, one collective sequence on every
 * rank: *mine is the mask of this rank's differing digests, *all the OR
 * of every rank's mask and *ranks the number of ranks that differ, alike on
 * every rank (so every rank decides alike). n above MAX_PARTS is a bug
 * of the caller (the same code on every rank): the job ends, never a
 * comparison of fewer parts than asked. */
static void differs_from_root(const unsigned char (*d)[32], size_t n, unsigned *mine, unsigned *all, int *ranks)
{
    unsigned char root[MAX_PARTS][32];
    if (n == 0 || n > MAX_PARTS) {
        fprintf(stderr, "isotrain-mpi: internal error: %zu digests to compare (1 to %d)\n", n, (int)MAX_PARTS);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 70);
    }
    memcpy(root, d, 32 * n);
    MPI_Bcast(root, (int)(32 * n), MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
    *mine = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(root[i], d[i], 32) != 0)
            *mine |= 1u << i;
    int differs = *mine != 0;
    MPI_Allreduce(mine, all, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
    MPI_Allreduce(&differs, ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

/* what each rank read for itself (its profile row, corpus, resumed state)
 * against rank 0's: any difference ends the job before the first step */
static int front_same(const iut_front *f, const unsigned char (*d)[32], const char *const *names, size_t n)
{
    (void)f;
    unsigned mine = 0, all = 0;
    int count = 0;
    differs_from_root(d, n, &mine, &all, &count);
    char list[256];
    if (mine) {
        join_words(names, n, &mine, ", ", list, sizeof list);
        fprintf(stderr, "isotrain-mpi train: rank %d: read other data than rank 0: %s\n", rank, list);
    }
    if (all && rank == 0) {
        join_words(names, n, &all, ", ", list, sizeof list);
        fprintf(stderr,
                "isotrain-mpi train: the ranks read different data (%s) on %d rank(s) besides rank 0 (each names "
                "itself): every rank must read the same files (the recipe, its corpus, the state it resumes from; "
                "spec 15): nothing ran\n",
                list, count);
    }
    fflush(stderr);
    return all ? EXIT_USAGE : 0;
}

static int cmd_train(int argc, char **argv)
{
    const iut_front front = {"isotrain-mpi", rank == 0, 1,           front_agree, front_check, front_run,
                             front_abort,    front_refused, front_same, NULL};
    return iut_train(argc, argv, &front);
}

/* The spec this trainer implements: the library's, every profile of the
 * table data-parallel (gptchar's tied wte as two chains, reduce_mpi.c) and
 * resume through the shared front end (reference/iut/: every rank reads the
 * state, rank 0 writes it), as `isotrain hello` says. */
#define MPI_SPEC_VERSION IT_SPEC_VERSION

static int cmd_hello(int argc)
{
    if (argc > 0) {
        say("isotrain-mpi hello: takes no arguments\n");
        return EXIT_USAGE;
    }
    /* P2; train_resume=1: `train --resume DIR --from-step K` (1.2.0);
     * train_recipe=1: `train --recipe FILE` (1.3.0: the shared front end
     * makes the recipe's profile row, every tensor of which the reducer
     * chains like gptchar's); ranks= is informative (an unknown key to the
     * runner) */
    if (rank == 0) {
        printf("protocol=1 name=isotrain-mpi version=%s spec=%s train_seed=1 train_resume=1 train_recipe=1 isa=%s "
               "kernels=%s ranks=%d\n",
               IT_VERSION, MPI_SPEC_VERSION, it_host_isa(), it_kernels_name(), nranks);
        if (fflush(stdout) != 0)
            return EXIT_IO;
    }
    return 0;
}

/* P3-P6: the op protocol is rank 0's reference library, case by case */
static int cmd_ops(int argc)
{
    if (argc > 0) {
        say("isotrain-mpi ops: takes no arguments (requests come on stdin)\n");
        return EXIT_USAGE;
    }
    int rc = 0;
    if (rank == 0) {
        /* the runner's pipe itself under isotrain-mpirun (stdin_direct.c:
         * why); else what mpirun forwards, through a wider pipe */
        char err[512];
        int direct = it_mpi_take_launcher_stdin(err, sizeof err);
        if (direct < 0) {
            fprintf(stderr, "isotrain-mpi ops: %s\n", err);
            rc = EXIT_IO;
        } else {
            if (!direct)
                (void)it_mpi_widen_stdin_pipe(); /* stdin_pipe.c: why */
            rc = it_ops_serve(stdin, stdout, stderr);
        }
    }
    barrier_idle();
    return rc;
}

/* `isotrain info`'s keys for rank 0, then one line per rank: a job may span
 * hosts of other instruction sets and kernel sets (spec §15) */
static int cmd_info(int argc)
{
    if (argc > 0) {
        say("isotrain-mpi info: takes no arguments\n");
        return EXIT_USAGE;
    }
    char line[512], model[256], features[512], host[MPI_MAX_PROCESSOR_NAME] = "";
    int hl = 0;
    MPI_Get_processor_name(host, &hl);
    it_fpenv_report env;
    int env_ok = it_fpenv_probe(&env) == 0;
    snprintf(line, sizeof line, "host=%s isa=%s kernels=%s fpenv=%s", host, it_host_isa(), it_kernels_name(),
             env_ok ? "ok" : "not-ieee");
    char *lines = rank == 0 ? malloc(sizeof line * (size_t)nranks) : NULL;
    MPI_Gather(line, (int)sizeof line, MPI_CHAR, lines, (int)sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return env_ok ? 0 : EXIT_FPENV;
    it_host_cpu_model(model, sizeof model);
    it_host_cpu_features(features, sizeof features);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int ll = 0;
    MPI_Get_library_version(lib, &ll);
    lib[strcspn(lib, "\n,")] = '\0';
    printf("isotrain_version=%s\nspec_version=%s\nisa=%s\nos=%s\nendianness=%s\ncpu_model=%s\n", IT_VERSION,
           IT_SPEC_VERSION, it_host_isa(), it_host_os(), it_host_endianness(), model);
    printf("cpu_features=%s\n", features);
    iut_print_build(stdout, IT_BUILD_FLAGS);
    printf("kernels=%s\n", it_kernels_name());
    printf("fpenv=%s ftz=%d daz=%d rounding=%d\n", env_ok ? "ok" : "flush", env.ftz, env.daz, env.rounding);
    printf("mpi_library=%s\nmpi_ranks=%d\n", lib, nranks);
    for (int r = 0; lines && r < nranks; r++)
        printf("mpi_rank%d=%s\n", r, lines + (size_t)r * sizeof line);
    free(lines);
    return env_ok ? 0 : EXIT_FPENV;
}

/* each rank picks its own best kernel set (they all give the same bits);
 * a set named by ISOTRAIN_KERNELS or --kernels must exist on every rank */
static int choose_kernels(const char *name, const char *source)
{
    int rc = name ? it_kernels_select(name) : it_kernels_select_env();
    if (!name)
        name = getenv("ISOTRAIN_KERNELS");
    if (rc == -1)
        fprintf(stderr, "isotrain-mpi: rank %d: %s: unknown kernel set '%s' (known: auto %s)\n", rank, source, name,
                it_kernels_known());
    else if (rc == -2)
        fprintf(stderr, "isotrain-mpi: rank %d: %s: kernel set '%s' is not available in this %s build on this CPU\n",
                rank, source, name, it_host_isa());
    return rc == 0 ? 0 : EXIT_USAGE;
}

/* spec §15.4: a partial must arrive with its bit pattern unchanged. An MPI
 * library built without heterogeneous support (Debian's Open MPI: ompi_info
 * says "Heterogeneous support: no") passes MPI_FLOAT and MPI_INT between
 * hosts of different byte orders unconverted, which would change every
 * partial (and agree()'s integers); characters pass unchanged, so the ranks
 * compare byte orders as characters first, and a mixed job is refused. */
static int same_byte_order(void)
{
    char mine = it_host_endianness()[0], *all = malloc((size_t)nranks);
    if (!all)
        return 0;
    MPI_Allgather(&mine, 1, MPI_CHAR, all, 1, MPI_CHAR, MPI_COMM_WORLD);
    int same = 1;
    for (int r = 1; r < nranks; r++)
        same &= all[r] == all[0];
    free(all);
    return same;
}

/* One job, one command line. Every rank parses its own argv: the verb, the
 * profile or recipe, --steps, --seed, --block-bytes... and from them sizes
 * every buffer and counts every step and every message. mpirun gives every
 * rank the same argv, but an MPMD line (`mpirun -np 1 isotrain-mpi ops :
 * -np 1 isotrain-mpi train ...`) or a wrapper per rank does not, and ranks
 * that parsed different lines act on different requests: one serves ops
 * while another waits in train's first collective, or a rank runs a step
 * more than the others and waits forever for a partial, or a rank
 * initialised from another --seed sends partials of other parameters and
 * the trace is wrong with exit 0 (each measured before this check). So
 * before any verb runs, every rank compares a SHA-256 of its arguments
 * (argv[1..], each with its terminating NUL) with rank 0's; any difference
 * ends the job on every rank, exit 2, rank 0 naming the ranks and each
 * differing rank its own line. argv[0] may differ (a path per host). */
static int same_command_line(int argc, char **argv)
{
    unsigned char mine[1][32];
    it_sha256_ctx c;
    it_sha256_init(&c);
    for (int i = 1; i < argc; i++)
        it_sha256_update(&c, argv[i], strlen(argv[i]) + 1);
    it_sha256_final(&c, mine[0]);
    unsigned differs = 0, any = 0;
    int n_diff = 0;
    differs_from_root((const unsigned char(*)[32])mine, 1, &differs, &any, &n_diff);
    char line[320];
    const char *const *args = (const char *const *)argv + 1;
    size_t nargs = argc > 1 ? (size_t)argc - 1 : 0;
    if (differs) {
        join_words(args, nargs, NULL, " ", line, sizeof line);
        fprintf(stderr, "isotrain-mpi: rank %d: started as 'isotrain-mpi %s', not with rank 0's command line\n", rank,
                line);
    }
    if (n_diff && rank == 0) {
        join_words(args, nargs, NULL, " ", line, sizeof line);
        fprintf(stderr,
                "isotrain-mpi: the ranks were not started with one command line: %d of %d rank(s) differ from rank "
                "0's 'isotrain-mpi %s' (each names itself); every rank of a job must run the same verb with the same "
                "options (each sizes its buffers and counts its steps and messages from them, spec 15): nothing "
                "ran\n",
                n_diff, nranks, line);
    }
    fflush(stderr);
    return n_diff ? EXIT_USAGE : 0; /* the same sum on every rank: every rank returns alike */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (!same_byte_order()) {
        say("isotrain-mpi: the ranks run on hosts of different byte orders; the partial sums travel as MPI_FLOAT, "
            "which this MPI library may pass unconverted (spec 15.4): run the ranks of one job on hosts of one "
            "byte order\n");
        return finish(EXIT_USAGE);
    }
    if (same_command_line(argc, argv) != 0)
        return finish(EXIT_USAGE);
    int st = choose_kernels(NULL, "ISOTRAIN_KERNELS");
    if (!st && argc >= 2 && strcmp(argv[1], "--kernels") == 0) {
        if (argc < 3) {
            say("isotrain-mpi: --kernels needs a name (auto %s)\n", it_kernels_known());
            st = EXIT_USAGE;
        } else {
            st = choose_kernels(argv[2], "--kernels");
            argc -= 2;
            argv += 2;
        }
    }
    if ((st = agree(st)) != 0)
        return finish(st);
    if (argc < 2) {
        if (rank == 0)
            usage(stderr);
        return finish(EXIT_USAGE);
    }
    const char *verb = argv[1];
    if (strcmp(verb, "--version") == 0) {
        if (rank == 0)
            printf("isotrain-mpi %s (spec %s)\n", IT_VERSION, IT_SPEC_VERSION);
        return finish(0);
    }
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "help") == 0) {
        if (rank == 0)
            usage(stdout);
        return finish(0);
    }
    if (strcmp(verb, "train") == 0)
        return finish(cmd_train(argc - 2, argv + 2));
    if (strcmp(verb, "hello") == 0)
        return finish(cmd_hello(argc - 2));
    if (strcmp(verb, "ops") == 0)
        return finish(cmd_ops(argc - 2));
    if (strcmp(verb, "info") == 0)
        return finish(cmd_info(argc - 2));
    /* P1: 64 is "not implemented" */
    say("isotrain-mpi: unsupported verb '%s' (known: hello ops train info)\n", verb);
    return finish(EXIT_UNSUPPORTED);
}
