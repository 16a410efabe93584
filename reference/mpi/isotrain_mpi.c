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
#define _POSIX_C_SOURCE 200809L /* mkdir, nanosleep, getrusage */
#include <mpi.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "fpenv_force.h"
#include "isotrain.h"
#include "isotrain_reduce.h"
#include "ops_server.h"
#include "reduce_mpi.h"
#include "stdin_pipe.h"
#include "wire.h"

#ifndef IT_BUILD_FLAGS
#define IT_BUILD_FLAGS "unknown"
#endif

/* iut-protocol P1, P7 (as the reference CLI) */
enum { EXIT_TRAIN_FAILED = 1, EXIT_USAGE = 2, EXIT_FPENV = 3, EXIT_IO = 4, EXIT_UNSUPPORTED = 64 };
/* a block of a partial gradient passed between ranks: small enough that the
 * pipeline fills quickly, large enough that a message costs little; the
 * reducer makes a block at least 32 output rows (reduce_mpi.c) */
enum { DEFAULT_BLOCK_BYTES = 16384 };

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
    fputs("usage: mpirun [mpirun options] -np N isotrain-mpi VERB ...\n"
          "  isotrain-mpi train --profile mlp13k|addmod113 [--steps N] [--trace FILE|-] [--seed S]\n"
          "                     [--checkpoint-dir DIR] [--checkpoint-steps S,S,...|all] [--threads N]\n"
          "                     [--block-bytes B] [--stats] [--force-ftz]\n"
          "  isotrain-mpi hello | ops | info | --version | --help\n"
          "  isotrain-mpi --kernels NAME VERB ...\n"
          "\n"
          "The reference trainer with the batch's rows split across the N ranks in\n"
          "batch order (spec 15): every gradient, embedding-gradient and loss sum\n"
          "runs through the ranks as one chain, so every N gives the bits of\n"
          "`isotrain train` (N at most the batch's rows: 64 for mlp13k, 3831 for\n"
          "addmod113). Rank 0 writes the trace and checkpoints and answers hello\n"
          "and ops; the options are the reference CLI's (spec/iut-protocol.md P7).\n"
          "--block-bytes B  the size of one block of a partial gradient passed\n"
          "        between ranks (default 16384, at least 32 output rows; speed\n"
          "        only, never bits).\n"
          "--stats  prints per rank: rows, CPU seconds, seconds waiting in MPI, bytes\n"
          "        sent (make mpi-scaling).\n",
          out);
}

static int parse_u32(const char *flag, const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > 0xffffffffUL) {
        say("isotrain-mpi: %s expects a non-negative integer, got '%s'\n", flag, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* iut-protocol P7: DIR and its missing parents, as mkdir -p (rank 0) */
static int make_dir(const char *dir)
{
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (!p)
        return -1;
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "isotrain-mpi train: cannot create checkpoint directory %s: %s\n", p, strerror(errno));
            free(p);
            return -1;
        }
        p[i] = c;
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "isotrain-mpi train: --checkpoint-dir %s is not a directory\n", dir);
        return -1;
    }
    return 0;
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

static int cmd_train(int argc, char **argv)
{
    const char *profile = NULL, *trace_path = "-", *dir = NULL;
    uint32_t steps = IT_MLP13K_STEPS, block = DEFAULT_BLOCK_BYTES, threads = 1;
    uint32_t ck[64] = {50, 100, 150, 200};
    size_t n_ck = 4;
    int all_steps = 0, force_ftz = 0, steps_given = 0, steps_set = 0, stats = 0;
    const char *env_threads = getenv("ISOTRAIN_THREADS");
    if (env_threads && *env_threads &&
        (parse_u32("ISOTRAIN_THREADS", env_threads, &threads) != 0 || threads < 1 || threads > 64)) {
        say("isotrain-mpi train: ISOTRAIN_THREADS expects 1..64, got '%s'\n", env_threads);
        return EXIT_USAGE;
    }
    it_mlp13k_recipe recipe = it_mlp13k_default_recipe();
    const char *env_eval = getenv("ISOTRAIN_EVAL");
    it_addmod113_recipe am = {IT_AM_SEED, 1, !(env_eval && strcmp(env_eval, "0") == 0)};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--force-ftz") == 0 || strcmp(a, "--stats") == 0) {
            force_ftz |= a[2] == 'f';
            stats |= a[2] == 's';
            continue;
        }
        if (i + 1 >= argc) {
            say("isotrain-mpi train: option '%s' needs a value (or is unknown)\n", a);
            return EXIT_USAGE;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--profile") == 0)
            profile = v;
        else if (strcmp(a, "--steps") == 0) {
            if (parse_u32(a, v, &steps) != 0)
                return EXIT_USAGE;
            steps_set = 1;
        } else if (strcmp(a, "--threads") == 0) {
            if (parse_u32(a, v, &threads) != 0 || threads < 1 || threads > 64) {
                say("isotrain-mpi train: --threads expects 1..64, got '%s'\n", v);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--block-bytes") == 0) {
            if (parse_u32(a, v, &block) != 0 || block < 4) {
                say("isotrain-mpi train: --block-bytes expects 4 or more, got '%s'\n", v);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--trace") == 0)
            trace_path = v;
        else if (strcmp(a, "--checkpoint-dir") == 0)
            dir = v;
        else if (strcmp(a, "--seed") == 0) {
            char why[160];
            uint64_t seed;
            if (wire_parse_int(v, strlen(v), UINT64_MAX, &seed, why, sizeof why) != 0) {
                say("isotrain-mpi train: --seed expects a decimal integer 0..18446744073709551615 (no sign, no "
                    "leading zeros), got '%s': %s\n",
                    v, why);
                return EXIT_USAGE;
            }
            recipe.seed = seed;
            am.seed = seed;
        } else if (strcmp(a, "--checkpoint-steps") == 0) {
            steps_given = 1;
            all_steps = strcmp(v, "all") == 0;
            if (!all_steps) {
                char buf[1024];
                if (strlen(v) >= sizeof buf) {
                    say("isotrain-mpi train: --checkpoint-steps list too long\n");
                    return EXIT_USAGE;
                }
                strcpy(buf, v);
                n_ck = 0;
                for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                    if (n_ck == sizeof ck / sizeof ck[0]) {
                        say("isotrain-mpi train: --checkpoint-steps takes at most %zu steps\n", n_ck);
                        return EXIT_USAGE;
                    }
                    if (parse_u32("--checkpoint-steps", tok, &ck[n_ck]) != 0)
                        return EXIT_USAGE;
                    n_ck++;
                }
            }
        } else {
            say("isotrain-mpi train: unknown option '%s'\n", a);
            return EXIT_USAGE;
        }
    }
    if (!profile) {
        say("isotrain-mpi train: --profile is required (known: mlp13k, addmod113)\n");
        return EXIT_USAGE;
    }
    int is_am = strcmp(profile, "addmod113") == 0;
    if (!is_am && strcmp(profile, "mlp13k") != 0) {
        say("isotrain-mpi train: unsupported profile '%s' (known: mlp13k, addmod113)\n", profile);
        return EXIT_UNSUPPORTED;
    }
    if (is_am) { /* spec §13.1 */
        am.threads = threads;
        if (!steps_set)
            steps = IT_AM_STEPS;
        if (!steps_given) {
            ck[0] = 100, ck[1] = 200, ck[2] = 300;
            n_ck = 3;
        }
    }
    /* spec §15: each rank holds at least one row of the batch */
    const size_t batch = is_am ? IT_AM_NTRAIN : IT_MLP13K_BATCH;
    if ((size_t)nranks > batch) {
        say("isotrain-mpi train: %d ranks for a batch of %zu %s (profile %s): each rank needs at least one row of "
            "the batch, so at most %zu ranks (spec 15)\n",
            nranks, batch, is_am ? "pairs" : "positions", profile, batch);
        return EXIT_USAGE;
    }
    if (steps_given && !dir) {
        say("isotrain-mpi train: --checkpoint-steps needs --checkpoint-dir\n");
        return EXIT_USAGE;
    }
    for (size_t k = 0; steps_given && !all_steps && k < n_ck; k++)
        if (ck[k] > steps) {
            say("isotrain-mpi train: checkpoint step %u is beyond --steps %u\n", (unsigned)ck[k], (unsigned)steps);
            return EXIT_USAGE;
        }
    uint32_t *all = NULL;
    const uint32_t *ck_list = ck;
    if (all_steps && dir) {
        if (!(all = malloc(((size_t)steps + 1) * sizeof *all))) {
            say("isotrain-mpi train: --checkpoint-steps all: cannot hold %llu steps\n", (unsigned long long)steps + 1);
            return EXIT_USAGE;
        }
        for (uint64_t t = 0; t <= steps; t++)
            all[t] = (uint32_t)t;
        ck_list = all;
        n_ck = (size_t)steps + 1;
    }

    /* spec §2.2: every rank probes its own floating-point environment (a
     * host of the job that flushes subnormals would change the bits) */
    int st = 0;
    if (force_ftz && it_fpenv_force_flush() != 0) {
        fprintf(stderr, "isotrain-mpi train: rank %d: --force-ftz: no flush mode known on %s\n", rank, it_host_isa());
        st = EXIT_USAGE;
    }
    it_fpenv_report env;
    if (!st && it_fpenv_probe(&env) != 0) {
        fprintf(stderr,
                "isotrain-mpi train: rank %d: floating-point environment is not IEEE default (ftz=%d daz=%d "
                "rounding=%d); spec 2.1-2.2 require round-to-nearest-even with subnormals kept\n",
                rank, env.ftz, env.daz, env.rounding);
        st = EXIT_FPENV;
    }
    if ((st = agree(st)) != 0) {
        if (st == EXIT_FPENV)
            say("failure=fpenv-flush step=0\n");
        free(all);
        return st;
    }

    /* rank 0's files, before anything runs (P7: a run that cannot write
     * its checkpoints leaves nothing behind) */
    FILE *trace = NULL;
    if (rank == 0) {
        if (dir && make_dir(dir) != 0)
            st = EXIT_IO;
        else if (strcmp(trace_path, "-") == 0)
            trace = stdout;
        else if (!(trace = fopen(trace_path, "wb"))) {
            fprintf(stderr, "isotrain-mpi train: cannot create trace %s: %s\n", trace_path, strerror(errno));
            st = EXIT_IO;
        }
    }
    if ((st = agree(st)) != 0) {
        if (trace && trace != stdout)
            fclose(trace);
        free(all);
        return st;
    }

    it_reducer *rd = it_mpi_reducer_new(MPI_COMM_WORLD, block);
    if (!rd) {
        say("isotrain-mpi train: out of memory\n");
        free(all);
        if (trace && trace != stdout)
            fclose(trace);
        return EXIT_IO;
    }
    static it_mlp13k_state state;
    static it_addmod113_state am_state;
    it_run_options opt = {.steps = steps,
                          .trace = trace,
                          .checkpoint_dir = rank == 0 ? dir : NULL,
                          .checkpoint_steps = ck_list,
                          .n_checkpoint_steps = n_ck};
    char err[512];
    double t0 = MPI_Wtime(), c0 = it_mpi_thread_cpu();
    it_status rs = is_am ? it_addmod113_run_reduced(&am, &opt, rd, &am_state, err, sizeof err)
                         : it_mlp13k_run_reduced(&recipe, &opt, rd, &state, err, sizeof err);
    double wall = MPI_Wtime() - t0, run_cpu = it_mpi_thread_cpu() - c0;
    free(all);
    if (rank == 0 && trace) {
        if (trace == stdout)
            fflush(stdout);
        else if (fclose(trace) != 0 && rs == IT_OK) {
            snprintf(err, sizeof err, "cannot close trace %s: %s", trace_path, strerror(errno));
            rs = IT_ERR_IO;
        }
    }
    if (rs == IT_ERR_IO) {
        /* rank 0 alone writes, so it alone sees this; the others are
         * already in the next step's chain, waiting for it: end the job */
        fprintf(stderr, "isotrain-mpi train: FAILED (%s): %s\n", it_status_name(rs), err);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, EXIT_IO);
    }
    /* every other outcome is the same on every rank: they hold the same bits */
    if (stats && rs == IT_OK)
        print_stats(rd, batch, wall, run_cpu, steps);
    it_mpi_reducer_free(rd);
    if (rs != IT_OK) {
        uint32_t done = is_am ? am_state.step : state.step;
        say("isotrain-mpi train: FAILED (%s): %s\n", it_status_name(rs), err);
        if (rs == IT_ERR_NONFINITE_LOSS || rs == IT_ERR_NONFINITE_PARAM)
            say("failure=%s step=%lu\n", it_status_name(rs),
                (unsigned long)done + (rs == IT_ERR_NONFINITE_LOSS ? 1 : 0));
        return rs == IT_ERR_FPENV ? EXIT_FPENV : EXIT_TRAIN_FAILED;
    }
    return 0;
}

/* The spec this trainer implements: the profiles of 1.1 (mlp13k, addmod113)
 * with the 1.1.1 errata. gptchar and the resumable windows (1.2.0) are not
 * data-parallel here yet, so claiming the library's IT_SPEC_VERSION would
 * make a 1.2.0 vector set require what this program cannot do. */
#define MPI_SPEC_VERSION "1.1.1"

static int cmd_hello(int argc)
{
    if (argc > 0) {
        say("isotrain-mpi hello: takes no arguments\n");
        return EXIT_USAGE;
    }
    /* P2; ranks= is informative (an unknown key to the runner) */
    if (rank == 0) {
        printf("protocol=1 name=isotrain-mpi version=%s spec=%s train_seed=1 isa=%s kernels=%s ranks=%d\n",
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
    if (rank == 0)
        (void)it_mpi_widen_stdin_pipe(); /* stdin_pipe.c: why */
    int rc = rank == 0 ? it_ops_serve(stdin, stdout, stderr) : 0;
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
#if defined(__GNUC__) && !defined(__clang__)
    printf("compiler=gcc %d.%d.%d\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#elif defined(__clang__)
    printf("compiler=clang %d.%d.%d\n", __clang_major__, __clang_minor__, __clang_patchlevel__);
#endif
    printf("build_flags=%s\n", IT_BUILD_FLAGS);
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
