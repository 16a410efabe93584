/* isotrain: the reference trainer's command line (spec §9 trace, §9.3
 * checkpoints). It is also an implementation under test like any other: the
 * verbs hello, ops and train follow spec/iut-protocol.md (P1, P2, P3-P6, P7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif

#include "export.h"
#include "fpenv_force.h"
#include "isotrain.h"
#include "iut.h"
#include "ops_server.h"
#include "wire.h"

#ifndef IT_BUILD_FLAGS
#define IT_BUILD_FLAGS "unknown"
#endif

/* iut-protocol P1, P7 */
enum { EXIT_USAGE = IUT_EXIT_USAGE, EXIT_FPENV = IUT_EXIT_FPENV, EXIT_IO = IUT_EXIT_IO, EXIT_UNSUPPORTED = IUT_EXIT_UNSUPPORTED };

static void usage(FILE *out)
{
    iut_usage(out, "usage:\n", "isotrain", 0,
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
          "        checkpoints (default: the profile's steps and checkpoints, spec 11.8,\n"
          "        13.8, 14.8; 0 = init;\n"
          "        all = every step 0..N; DIR is created with its parents). --seed S\n"
          "        (decimal, 0..18446744073709551615) replaces the profile's seed for\n"
          "        init and sampling. A failed run prints failure=NAME step=T on\n"
          "        stderr. --state-steps writes the complete state (spec 8.3: the\n"
          "        checkpoint and, for AdamW profiles, adam-m-/adam-v-NNNNNN.bin) into DIR;\n"
          "        --resume DIR --from-step K continues from the state of step K in DIR and\n"
          "        runs to step N, bit-identical to the uninterrupted run (spec 8.4).\n"
          "        --threads N (1..64; default ISOTRAIN_THREADS or 1; profiles whose\n"
          "        outputs split over threads, spec 13.5)\n"
          "        splits independent outputs over N threads: the same bits for every N.\n"
          "        Each option at most once. --force-ftz turns flushing on first (a negative control:\n"
          "        the run must fail with failure=fpenv-flush).\n"
          "info    prints version, ISA, CPU features and the FTZ/DAZ probe; with\n"
          "        --force-ftz it first turns flushing on, to show the probe firing.\n"
          "hello   prints the one line of spec/iut-protocol.md P2.\n"
          "ops     answers op requests on stdin, one line each (iut-protocol P3-P6).\n"
          "export  writes a checkpoint's tensors, named and shaped as the profile says,\n"
          "        as numpy .npy files (one per tensor), one .npz, or one safetensors file.\n");
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
    iut_print_build(stdout, IT_BUILD_FLAGS);
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

/* iut-protocol P7: the train verb of the shared front end (reference/iut/),
 * in this one process */
static int cmd_train(int argc, char **argv)
{
    const iut_front front = {"isotrain", 1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    return iut_train(argc, argv, &front);
}

static int cmd_hello(int argc, char **argv)
{
    (void)argv;
    if (argc > 0) {
        fprintf(stderr, "isotrain hello: takes no arguments\n");
        return EXIT_USAGE;
    }
    /* train_seed=1: `train --seed S` is supported (P2, P7); train_resume=1:
     * `train --resume DIR --from-step K` (1.2.0); train_recipe=1: `train
     * --recipe FILE` (1.3.0); kernels=: the set in use */
    printf("protocol=1 name=isotrain-reference version=%s spec=%s train_seed=1 train_resume=1 train_recipe=1 isa=%s "
           "kernels=%s\n",
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
