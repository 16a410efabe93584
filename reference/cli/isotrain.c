/* isotrain: the reference trainer's command line (spec §9 trace, §9.3
 * checkpoints). It is also an implementation under test like any other: the
 * verbs hello, ops and train follow spec/iut-protocol.md (P1, P2, P3-P6, P7). */
#define _POSIX_C_SOURCE 200809L /* mkdir, stat: --checkpoint-dir is created (P7) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef _WIN32
#include <direct.h>
#include <fcntl.h>
#include <io.h>
/* Windows has no permission bits for mkdir */
#define it_mkdir(path) _mkdir(path)
#else
#define it_mkdir(path) mkdir((path), 0777)
#endif

#include "export.h"
#include "fpenv_force.h"
#include "isotrain.h"
#include "ops_server.h"
#include "wire.h"

#ifndef IT_BUILD_FLAGS
#define IT_BUILD_FLAGS "unknown"
#endif

/* iut-protocol P1, P7 */
enum { EXIT_TRAIN_FAILED = 1, EXIT_USAGE = 2, EXIT_FPENV = 3, EXIT_IO = 4, EXIT_UNSUPPORTED = 64 };

static void usage(FILE *out)
{
    fputs("usage:\n"
          "  isotrain train --profile mlp13k|addmod113|gptchar [--steps N] [--trace FILE|-] [--seed S]\n"
          "                 [--checkpoint-dir DIR] [--checkpoint-steps S,S,...|all]\n"
          "                 [--state-steps S,S,...] [--resume DIR --from-step K]\n"
          "                 [--threads N] [--force-ftz]\n"
          "  isotrain info [--force-ftz]\n"
          "  isotrain hello\n"
          "  isotrain ops\n"
          "  isotrain export --profile P --format npy|npz|safetensors --out PATH CHECKPOINT\n"
          "  isotrain --version | --help\n"
          "  isotrain --kernels NAME VERB ...   (before any verb)\n"
          "\n"
          "--kernels forces a kernel set (also ISOTRAIN_KERNELS=NAME): portable, or\n"
          "        the instruction-set ones this CPU runs (isotrain info lists them);\n"
          "        auto (the default) takes the best. Every set gives the same bits.\n"
          "train   runs the profile and writes the trace (default: stdout) and raw\n"
          "        checkpoints (default steps for mlp13k: 50,100,150,200, for addmod113:\n"
          "        100,200,300, for gptchar: 100,...,500; 0 = init;\n"
          "        all = every step 0..N; DIR is created with its parents). --seed S\n"
          "        (decimal, 0..18446744073709551615) replaces the profile's seed for\n"
          "        init and sampling. A failed run prints failure=NAME step=T on\n"
          "        stderr. --state-steps writes the complete state (spec 8.3: the\n"
          "        checkpoint and, for AdamW profiles, adam-m-/adam-v-NNNNNN.bin) into DIR;\n"
          "        --resume DIR --from-step K continues from the state of step K in DIR and\n"
          "        runs to step N, bit-identical to the uninterrupted run (spec 8.4).\n"
          "        --threads N (addmod113, 1..64; default ISOTRAIN_THREADS or 1)\n"
          "        splits independent outputs over N threads: the same bits for every N.\n"
          "        --force-ftz turns flushing on first (a negative control:\n"
          "        the run must fail with failure=fpenv-flush).\n"
          "info    prints version, ISA, CPU features and the FTZ/DAZ probe; with\n"
          "        --force-ftz it first turns flushing on, to show the probe firing.\n"
          "hello   prints the one line of spec/iut-protocol.md P2.\n"
          "ops     answers op requests on stdin, one line each (iut-protocol P3-P6).\n"
          "export  writes a checkpoint's tensors, named and shaped as the profile says,\n"
          "        as numpy .npy files (one per tensor), one .npz, or one safetensors file.\n",
          out);
}

static int parse_u32(const char *flag, const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > 0xffffffffUL) {
        fprintf(stderr, "isotrain: %s expects a non-negative integer, got '%s'\n", flag, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* iut-protocol P7 (1.1.1): N and the elements of LIST are P4 ints, LIST a
 * P4 int array (at least one element, single commas, no empty element) or
 * "all"; any other spelling is a usage error, as for --seed. */
static int parse_p4_int(const char *flag, const char *v, uint32_t *out)
{
    char why[160];
    uint64_t x;
    if (wire_parse_int(v, strlen(v), UINT32_MAX, &x, why, sizeof why) != 0) {
        fprintf(stderr, "isotrain train: %s expects a decimal integer 0..4294967295 (P4 int: no sign, no leading "
                        "zeros), got '%s': %s\n", flag, v, why);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

static int parse_steps_list(const char *flag, const char *v, uint32_t **list, size_t *n)
{
    char why[200];
    if (wire_parse_ints(v, strlen(v), UINT32_MAX, list, n, why, sizeof why) != 0) {
        fprintf(stderr, "isotrain train: %s expects %sstep numbers separated by single "
                        "commas (P4 int[n]), got '%s': %s\n", flag,
                strcmp(flag, "--checkpoint-steps") == 0 ? "'all' or " : "", v, why);
        return -1;
    }
    return 0;
}

static int cmd_info(int argc, char **argv)
{
    int force = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--force-ftz") == 0)
            force = 1;
        else {
            fprintf(stderr, "isotrain info: unknown option '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (force && it_fpenv_force_flush() != 0) {
        fprintf(stderr, "isotrain info: --force-ftz: no flush mode known on %s\n", it_host_isa());
        return EXIT_USAGE;
    }
    char features[512], model[256];
    it_host_cpu_features(features, sizeof features);
    it_host_cpu_model(model, sizeof model);
    it_fpenv_report env;
    int env_ok = it_fpenv_probe(&env) == 0;
    printf("isotrain_version=%s\n", IT_VERSION);
    printf("spec_version=%s\n", IT_SPEC_VERSION);
    printf("isa=%s\n", it_host_isa());
    printf("os=%s\n", it_host_os());
    printf("endianness=%s\n", it_host_endianness());
    printf("cpu_model=%s\n", model);
    /* QEMU user mode emulates CPUID but passes the host's /proc/cpuinfo
     * through, so a model read from the file may be the host's */
#if defined(__x86_64__) || defined(__i386__)
    printf("cpu_model_source=cpuid\n");
#elif defined(__APPLE__)
    printf("cpu_model_source=sysctl\n");
#else
    printf("cpu_model_source=/proc/cpuinfo\n");
#endif
    printf("cpu_features=%s\n", features);
#if defined(__GNUC__) && !defined(__clang__)
    printf("compiler=gcc %d.%d.%d\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#elif defined(__clang__)
    printf("compiler=clang %d.%d.%d\n", __clang_major__, __clang_minor__, __clang_patchlevel__);
#else
    printf("compiler=unknown\n");
#endif
    printf("build_flags=%s\n", IT_BUILD_FLAGS);
    const char *sets[16];
    size_t nsets = it_kernels_available(sets, 16);
    printf("kernels=%s\n", it_kernels_name());
    printf("kernels_available=");
    for (size_t i = 0; i < nsets && i < 16; i++)
        printf("%s%s", i ? "," : "", sets[i]);
    printf("\n");
    printf("sha256=%s\n", it_sha256_name()); /* the checkpoint digest's compression (same bits) */
    printf("fpenv=%s ftz=%d daz=%d rounding=%d\n", env_ok ? "ok" : (env.ftz || env.daz) ? "flush" : "rounding",
           env.ftz, env.daz, env.rounding);
    return env_ok ? 0 : EXIT_FPENV;
}

/* iut-protocol P7: a failed run names its failure and the step it failed
 * in, on a line of its own. The step comes from the state the library left:
 * a non-finite loss is found before step+1's update, a non-finite parameter
 * after step's. FTZ/DAZ (spec 2.2) fails before step 0 is written. */
static void report_failure(it_status st, uint32_t s_step)
{
    unsigned long step;
    switch (st) {
    case IT_ERR_NONFINITE_LOSS: step = (unsigned long)s_step + 1; break;
    case IT_ERR_NONFINITE_PARAM: step = s_step; break;
    case IT_ERR_FPENV: step = 0; break;
    default: return; /* I/O and usage errors are not run failures */
    }
    fprintf(stderr, "failure=%s step=%lu\n", it_status_name(st), step);
}

/* iut-protocol P7 (1.1.0): DIR and its missing parents are created, as
 * mkdir -p does, each with mode 0777 less the umask; an existing directory
 * is used as it is. Users and runners alike expect a path they name to be
 * made, and a run that fails at its first checkpoint after minutes of
 * training because nobody made the directory helps no one. */
static int make_checkpoint_dir(const char *dir)
{
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (!p) {
        fprintf(stderr, "isotrain train: out of memory\n");
        return -1;
    }
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (it_mkdir(p) != 0 && errno != EEXIST) {
            fprintf(stderr, "isotrain train: cannot create checkpoint directory %s: %s\n", p, strerror(errno));
            free(p);
            return -1;
        }
        p[i] = c;
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "isotrain train: cannot create checkpoint directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "isotrain train: --checkpoint-dir %s exists and is not a directory\n", dir);
        return -1;
    }
    return 0;
}

/* ck_given and sk_given receive the malloc'd --checkpoint-steps and
 * --state-steps lists; the caller frees them */
static int run_train(int argc, char **argv, uint32_t **ck_given, uint32_t **sk_given)
{
    const char *profile = NULL, *trace_path = "-", *dir = NULL;
    uint32_t steps = IT_MLP13K_STEPS;
    static const uint32_t ck_mlp13k[] = {50, 100, 150, 200}, ck_am[] = {100, 200, 300},
                          ck_gc[] = {100, 200, 300, 400, 500};
    const uint32_t *ck = ck_mlp13k, *sk = NULL;
    size_t n_ck = 4, n_sk = 0;
    const char *resume_dir = NULL;
    uint32_t from_step = 0;
    int from_given = 0;
    int all_steps = 0, force_ftz = 0, steps_given = 0, steps_set = 0;
    /* ISOTRAIN_THREADS sets the default so a runner that knows nothing of
     * --threads (spec/iut-protocol.md P7 has no such option) still gets a
     * fast run; bad values are refused like a bad option */
    uint32_t threads = 1;
    const char *env_threads = getenv("ISOTRAIN_THREADS");
    if (env_threads && *env_threads &&
        (parse_u32("ISOTRAIN_THREADS", env_threads, &threads) != 0 || threads < 1 || threads > 64)) {
        fprintf(stderr, "isotrain train: ISOTRAIN_THREADS expects 1..64, got '%s'\n", env_threads);
        return EXIT_USAGE;
    }
    it_mlp13k_recipe recipe = it_mlp13k_default_recipe();
    /* ISOTRAIN_EVAL=0 leaves out spec §13.7's optional evaluation keys: under
     * QEMU each evaluation costs as much as three training steps, and the
     * digest already pins what they would show */
    const char *env_eval = getenv("ISOTRAIN_EVAL");
    it_addmod113_recipe am = {IT_AM_SEED, 1, !(env_eval && strcmp(env_eval, "0") == 0)};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--force-ftz") == 0) {
            force_ftz = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "isotrain train: option '%s' needs a value (or is unknown)\n", a);
            return EXIT_USAGE;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--profile") == 0)
            profile = v;
        else if (strcmp(a, "--steps") == 0) {
            if (parse_p4_int(a, v, &steps) != 0)
                return EXIT_USAGE;
            steps_set = 1;
        } else if (strcmp(a, "--threads") == 0) {
            /* threads split independent outputs only (spec §13.5): any count
             * gives the same bits, so it is a speed knob, not a recipe change */
            if (parse_u32(a, v, &threads) != 0 || threads < 1 || threads > 64) {
                fprintf(stderr, "isotrain train: --threads expects 1..64, got '%s'\n", v);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--trace") == 0)
            trace_path = v;
        else if (strcmp(a, "--checkpoint-dir") == 0)
            dir = v;
        else if (strcmp(a, "--seed") == 0) {
            /* iut-protocol P7 (1.1.0): spec 6.2's u64 seed in P4's int syntax */
            char why[160];
            uint64_t seed;
            if (wire_parse_int(v, strlen(v), UINT64_MAX, &seed, why, sizeof why) != 0) {
                fprintf(stderr,
                        "isotrain train: --seed expects a decimal integer 0..18446744073709551615 (no sign, no "
                        "leading zeros), got '%s': %s\n",
                        v, why);
                return EXIT_USAGE;
            }
            recipe.seed = seed;
            am.seed = seed;
        } else if (strcmp(a, "--state-steps") == 0) {
            /* spec 8.3 (1.2.0): the complete state at these steps; given
             * twice, the last one wins, as --checkpoint-steps */
            free(*sk_given);
            *sk_given = NULL;
            if (parse_steps_list("--state-steps", v, sk_given, &n_sk) != 0)
                return EXIT_USAGE;
            sk = *sk_given;
        } else if (strcmp(a, "--resume") == 0)
            resume_dir = v;
        else if (strcmp(a, "--from-step") == 0) {
            if (parse_u32(a, v, &from_step) != 0)
                return EXIT_USAGE;
            from_given = 1;
        } else if (strcmp(a, "--checkpoint-steps") == 0) {
            /* given twice, the last one wins (P7 1.1.1: a runner gives each option once) */
            steps_given = 1;
            all_steps = strcmp(v, "all") == 0;
            free(*ck_given);
            *ck_given = NULL;
            if (!all_steps && parse_steps_list("--checkpoint-steps", v, ck_given, &n_ck) != 0)
                return EXIT_USAGE;
            if (*ck_given)
                ck = *ck_given;
        } else {
            fprintf(stderr, "isotrain train: unknown option '%s'\n", a);
            return EXIT_USAGE;
        }
    }
    if (!profile) {
        fprintf(stderr, "isotrain train: --profile is required (known: mlp13k, addmod113, gptchar)\n");
        return EXIT_USAGE;
    }
    int is_am = strcmp(profile, "addmod113") == 0, is_gc = strcmp(profile, "gptchar") == 0;
    if (!is_am && !is_gc && strcmp(profile, "mlp13k") != 0) {
        /* iut-protocol P7 (1.1.0): like a verb it lacks (P1), so the runner
         * skips what it cannot run instead of failing it */
        fprintf(stderr, "isotrain train: unsupported profile '%s' (known: mlp13k, addmod113, gptchar)\n", profile);
        return EXIT_UNSUPPORTED;
    }
    if (is_gc) { /* spec §14.1: 500 steps, checkpoints every 100 */
        if (!steps_set)
            steps = IT_GC_STEPS;
        if (steps > IT_GC_STEPS) {
            fprintf(stderr, "isotrain train: gptchar has %u steps (spec 14.1), --steps %u is beyond them\n",
                    (unsigned)IT_GC_STEPS, (unsigned)steps);
            return EXIT_USAGE;
        }
        if (!steps_given) {
            ck = ck_gc;
            n_ck = 5;
        }
    }
    /* spec 8.4, iut-protocol P7 (1.2.0): --resume and --from-step come together */
    if (!resume_dir != !from_given) {
        fprintf(stderr, "isotrain train: --resume DIR and --from-step K go together\n");
        return EXIT_USAGE;
    }
    if (resume_dir && from_step > steps) {
        fprintf(stderr, "isotrain train: --from-step %u is beyond --steps %u\n", (unsigned)from_step,
                (unsigned)steps);
        return EXIT_USAGE;
    }
    if (n_sk && !dir) {
        fprintf(stderr, "isotrain train: --state-steps needs --checkpoint-dir\n");
        return EXIT_USAGE;
    }
    for (size_t k = 0; k < n_sk; k++)
        if (sk[k] > steps) {
            fprintf(stderr, "isotrain train: state step %u is beyond --steps %u\n", (unsigned)sk[k],
                    (unsigned)steps);
            return EXIT_USAGE;
        }
    if (is_am) { /* spec §13.1: 300 steps, checkpoints 100, 200, 300 */
        am.threads = threads;
        if (!steps_set)
            steps = IT_AM_STEPS;
        if (!steps_given) {
            ck = ck_am;
            n_ck = 3;
        }
    }
    /* a request that cannot be honoured is an error, not a silent no-op */
    if (steps_given && !dir) {
        fprintf(stderr, "isotrain train: --checkpoint-steps needs --checkpoint-dir\n");
        return EXIT_USAGE;
    }
    for (size_t k = 0; steps_given && !all_steps && k < n_ck; k++)
        if (ck[k] > steps) {
            fprintf(stderr, "isotrain train: checkpoint step %u is beyond --steps %u\n", (unsigned)ck[k],
                    (unsigned)steps);
            return EXIT_USAGE;
        }
    /* iut-protocol P7: "all" is every step 0..N, whatever order the options came in */
    uint32_t *all = NULL;
    const uint32_t *ck_list = ck;
    if (all_steps && dir) {
        if ((uint64_t)steps + 1 > SIZE_MAX / sizeof *all || !(all = malloc(((size_t)steps + 1) * sizeof *all))) {
            fprintf(stderr, "isotrain train: --checkpoint-steps all: cannot hold %llu steps\n",
                    (unsigned long long)steps + 1);
            return EXIT_USAGE;
        }
        for (uint64_t t = 0; t <= steps; t++)
            all[t] = (uint32_t)t;
        ck_list = all;
        n_ck = (size_t)steps + 1;
    }
    if (force_ftz && it_fpenv_force_flush() != 0) {
        fprintf(stderr, "isotrain train: --force-ftz: no flush mode known on %s\n", it_host_isa());
        free(all);
        return EXIT_USAGE;
    }
    /* before the trace is opened: a run that cannot write its checkpoints
     * leaves nothing behind */
    if (dir && make_checkpoint_dir(dir) != 0) {
        free(all);
        return EXIT_IO;
    }
    FILE *trace = stdout;
    if (strcmp(trace_path, "-") != 0 && !(trace = fopen(trace_path, "wb"))) {
        fprintf(stderr, "isotrain train: cannot create trace %s: %s\n", trace_path, strerror(errno));
        free(all);
        return EXIT_IO;
    }
    static it_mlp13k_state state; /* 100 KiB: keep it off the stack */
    static it_addmod113_state am_state; /* 3.6 MiB */
    static it_gptchar_state gc_state;   /* 1.7 MiB */
    it_gptchar_recipe gc = {recipe.seed};
    it_run_options opt = {steps, trace, dir, ck_list, n_ck, sk, n_sk, resume_dir, from_step};
    char err[512];
    it_status st = is_am   ? it_addmod113_run(&am, &opt, &am_state, err, sizeof err)
                   : is_gc ? it_gptchar_run(&gc, &opt, &gc_state, err, sizeof err)
                           : it_mlp13k_run(&recipe, &opt, &state, err, sizeof err);
    free(all);
    /* the trace lines of the completed steps are out before any failure is reported */
    if (trace == stdout)
        fflush(stdout);
    else if (fclose(trace) != 0 && st == IT_OK) {
        snprintf(err, sizeof err, "cannot close trace %s: %s", trace_path, strerror(errno));
        st = IT_ERR_IO;
    }
    if (st != IT_OK) {
        fprintf(stderr, "isotrain train: FAILED (%s): %s\n", it_status_name(st), err);
        report_failure(st, is_am ? am_state.step : is_gc ? gc_state.step : state.step);
        return st == IT_ERR_FPENV ? EXIT_FPENV : st == IT_ERR_IO ? EXIT_IO : EXIT_TRAIN_FAILED;
    }
    return 0;
}

static int cmd_train(int argc, char **argv)
{
    uint32_t *ck_given = NULL, *sk_given = NULL; /* --checkpoint-steps, --state-steps LISTs, malloc'd */
    int rc = run_train(argc, argv, &ck_given, &sk_given);
    free(ck_given);
    free(sk_given);
    return rc;
}

static int cmd_hello(int argc, char **argv)
{
    (void)argv;
    if (argc > 0) {
        fprintf(stderr, "isotrain hello: takes no arguments\n");
        return EXIT_USAGE;
    }
    /* train_seed=1: `train --seed S` is supported (P2, P7); train_resume=1:
     * `train --resume DIR --from-step K` (1.2.0); kernels=: the set in use */
    printf("protocol=1 name=isotrain-reference version=%s spec=%s train_seed=1 train_resume=1 isa=%s kernels=%s\n",
           IT_VERSION,
           IT_SPEC_VERSION, it_host_isa(), it_kernels_name());
    return fflush(stdout) == 0 ? 0 : EXIT_IO;
}

static int cmd_ops(int argc, char **argv)
{
    (void)argv;
    if (argc > 0) {
        fprintf(stderr, "isotrain ops: takes no arguments (requests come on stdin)\n");
        return EXIT_USAGE;
    }
    return it_ops_serve(stdin, stdout, stderr);
}

/* ISOTRAIN_KERNELS, then --kernels: a set that is unknown or that this CPU
 * cannot run is an error, never a silent fallback to another set. */
static int choose_kernels(const char *name, const char *source)
{
    int rc = name ? it_kernels_select(name) : it_kernels_select_env();
    if (!name)
        name = getenv("ISOTRAIN_KERNELS");
    if (rc == -1)
        fprintf(stderr, "isotrain: %s: unknown kernel set '%s' (known: auto %s)\n", source, name,
                it_kernels_known());
    else if (rc == -2)
        fprintf(stderr, "isotrain: %s: kernel set '%s' is not available in this %s build on this CPU (isotrain "
                        "info lists kernels_available)\n", source, name, it_host_isa());
    return rc == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
#ifdef _WIN32
    /* The protocol, traces and checkpoints are bytes with \n line ends
     * (spec §9.2, iut-protocol P3); Windows' text mode would write \r\n. */
    if (_setmode(_fileno(stdout), _O_BINARY) == -1 || _setmode(_fileno(stdin), _O_BINARY) == -1)
        return EXIT_IO;
#endif
    if (choose_kernels(NULL, "ISOTRAIN_KERNELS") != 0)
        return EXIT_USAGE;
    if (argc >= 2 && strcmp(argv[1], "--kernels") == 0) {
        if (argc < 3) {
            fprintf(stderr, "isotrain: --kernels needs a name (auto %s)\n", it_kernels_known());
            return EXIT_USAGE;
        }
        if (choose_kernels(argv[2], "--kernels") != 0)
            return EXIT_USAGE;
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("isotrain %s (spec %s)\n", IT_VERSION, IT_SPEC_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "train") == 0)
        return cmd_train(argc - 2, argv + 2);
    if (strcmp(argv[1], "info") == 0)
        return cmd_info(argc - 2, argv + 2);
    if (strcmp(argv[1], "hello") == 0)
        return cmd_hello(argc - 2, argv + 2);
    if (strcmp(argv[1], "ops") == 0)
        return cmd_ops(argc - 2, argv + 2);
    if (strcmp(argv[1], "export") == 0)
        return it_export_main(argc - 2, argv + 2);
    /* iut-protocol P1: the runner reads 64 as "verb not implemented" */
    fprintf(stderr, "isotrain: unsupported verb '%s' (known: hello ops train info export)\n", argv[1]);
    return EXIT_UNSUPPORTED;
}
