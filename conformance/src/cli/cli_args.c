/* cli_args.c — the command line of isotrain-conform (see cli_usage). */
#include "core/options.h"
#include "core/version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "protocol/iut_target.h"

void cli_usage(FILE *out)
{
    fputs("usage:\n"
          "  isotrain-conform run (--iut-exec PROGRAM [--iut-arg ARG]... | --iut 'CMD') [--vectors DIR]\n"
          "        [--level ops|train|all]\n"
          "        [--profile P] [--receipt FILE] [--junit FILE] [--exhaustive] [--windows]\n"
          "        [--timeout-case S] [--timeout-run S] [--slowdown F] [--steps N]\n"
          "        [--emulator NAME --emulator-cpu MODEL] [--host NAME] [--filter GROUP]...\n"
          "        [--keep-work] [--verbose] [--seed S] [--sign-key KEY] [--fresh-only]\n"
          "  isotrain-conform run [OPTIONS] -- PROGRAM [ARG]...     (the same as --iut-exec/--iut-arg)\n"
          "  isotrain-conform compare TRACE_A TRACE_B [--checkpoints-a DIR --checkpoints-b DIR]\n"
          "  isotrain-conform repeat --runs N (--iut-exec PROGRAM [--iut-arg ARG]... | --iut 'CMD')\n"
          "        --profile P [--steps S]\n"
          "        [--timeout-run S] [--slowdown F] [--keep-work]\n"
          "  isotrain-conform lint DIR\n"
          "  isotrain-conform verify [--allowed-signers FILE] [--allow-unsigned] [--vectors DIR] RECEIPT...\n"
          "  isotrain-conform sign --sign-key KEY RECEIPT [OUT]\n"
          "  isotrain-conform matrix [--hosts FILE] [--markdown FILE] [--against DIR]\n"
          "        [--allowed-signers FILE] [--allow-unsigned] [--vectors DIR] RECEIPT...\n"
          "  isotrain-conform matrix --hosts FILE --list\n"
          "  isotrain-conform report [--hosts FILE] [--vectors DIR] [--allowed-signers FILE]\n"
          "        [--divergence CSV]... [--date TEXT] [--readme-href HREF] -o PAGE.html RECEIPT...\n"
          "  isotrain-conform --version | --help\n"
          "\n"
          "run      certifies the IUT against a vector set: manifest, hello, the ops level\n"
          "         (every op vector bit-exact) and the train level (every step's loss bits\n"
          "         and parameter digest), plus fresh cases drawn from a run seed; on a\n"
          "         mismatch it says where. Exit 0 PASS (a full certification), 1 FAIL,\n"
          "         3 PARTIAL (a narrower run, or the shell form: subject unbound),\n"
          "         4 UNOFFICIAL (an unpinned vector set), 5 REPRODUCTION (--seed S given:\n"
          "         a reproduction of seed S, not a certification), 2 on bad usage,\n"
          "         refused vectors or an unwritable receipt. --iut-exec runs PROGRAM\n"
          "         without a shell and binds it (its digest, through the file executed);\n"
          "         --iut 'CMD' runs /bin/sh -c 'CMD \"$@\"' and binds nothing.\n",
          out);
    fputs("compare  the first differing step of two traces and the loss gap from there; with\n"
          "         both runs' checkpoint directories, the first differing tensor and element\n"
          "         (exit 0 identical, 1 different, 2 bad input).\n"
          "repeat   trains N times and checks the runs are bit-identical step by step.\n"
          "lint     checks a vector set (manifest and every file) and lists every problem.\n"
          "matrix   the host matrix: one receipt per host of the hosts file, a table of the\n"
          "         checkpoint digests per host, each host's verdict against its expected one\n"
          "         (pass / expected-fail); a receipt whose host the file does not list (or any\n"
          "         receipt, without --hosts) is a machine of its own, described by its receipt\n"
          "         and expected to pass; --against DIR also compares verdicts and digests\n"
          "         with published receipts (exit 0 all as expected, 1 not, 2 bad input).\n"
          "report   the receipts as one self-contained HTML page: the matrix's verdicts, each\n"
          "         host's details, plots; refused receipts listed, never shown as results\n"
          "         (exit 0 written, 1 written with a receipt refused, 2 not written).\n"
          "verify   recomputes every verdict of a receipt from its own case list, checks its\n"
          "         cross-references and its signature against the allowed signers (default:\n"
          "         vectors/KEYS/allowed_signers, else the installed one) and names the signer\n"
          "         by fingerprint; an unsigned receipt is UNSIGNED (exit 1) unless\n"
          "         --allow-unsigned; a REPRODUCTION is not certification evidence (exit 1)\n"
          "         (exit 0 all verify, 1 a receipt does not, 2 bad input).\n"
          "sign     signs an unsigned receipt (the envelope's payload as it is) with KEY,\n"
          "         into OUT or in place: the key is never on the machine while an IUT\n"
          "         runs. run --sign-key signs only after every IUT process is gone, and\n"
          "         only where the IUT runs in PID and mount namespaces that hide the key\n"
          "         (as root: under uid 65534); elsewhere it is refused: use sign.\n"
          "\n"
          "Defaults: --vectors vectors/v1.2.0 (the newest set) when the current directory has\n"
          "it, else the installed set (--version names it; verify: the set each receipt names,\n"
          "found the same way), --level all, --timeout-case 60 (sweep: 5x),\n"
          "--timeout-run 600, --slowdown 1 (multiplies both time-outs), --seed: drawn from\n"
          "/dev/urandom. A training run's deadline is max(600, 10 x the linked reference's\n"
          "step time measured here x steps) unless --timeout-run S is given (then S).\n",
          out);
}

static int num(const char *flag, const char *v, double lo, double *out, char *err, size_t cap)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d >= lo) || d > 1e9) {
        snprintf(err, cap, "%s expects a number >= %g, got '%s'", flag, lo, v);
        return -1;
    }
    *out = d;
    return 0;
}

static int count(const char *flag, const char *v, long lo, long *out, char *err, size_t cap)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > 1000000000L) {
        snprintf(err, cap, "%s expects an integer >= %ld, got '%s'", flag, lo, v);
        return -1;
    }
    *out = n;
    return 0;
}

int cli_parse(int argc, char **argv, conform_args *a, char *err, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->vectors = conform_default_vectors();
    a->level = "all";
    a->timeout_case = 60;
    a->timeout_run = 600;
    a->slowdown = 1;
    a->steps = -1;
    a->runs = -1;
    if (argc < 2) {
        snprintf(err, cap, "no command given");
        return -1;
    }
    const char *c = argv[1];
    if (!strcmp(c, "run"))
        a->cmd = CMD_RUN;
    else if (!strcmp(c, "compare"))
        a->cmd = CMD_COMPARE;
    else if (!strcmp(c, "repeat"))
        a->cmd = CMD_REPEAT;
    else if (!strcmp(c, "lint"))
        a->cmd = CMD_LINT;
    else if (!strcmp(c, "matrix"))
        a->cmd = CMD_MATRIX;
    else if (!strcmp(c, "verify"))
        a->cmd = CMD_VERIFY;
    else if (!strcmp(c, "sign"))
        a->cmd = CMD_SIGN;
    else if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
        a->cmd = CMD_HELP;
        return 0;
    } else if (!strcmp(c, "--version")) {
        a->cmd = CMD_VERSION;
        return 0;
    } else {
        snprintf(err, cap, "unknown command '%s'", c);
        return -1;
    }
    static char split_buf[4096];
    size_t split_used = 0;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if ((a->cmd == CMD_MATRIX || a->cmd == CMD_VERIFY) && (strncmp(arg, "--", 2) != 0 || !strcmp(arg, "--"))) {
            static const char *receipts[256];
            if (a->n_receipts == sizeof receipts / sizeof receipts[0]) {
                snprintf(err, cap, "too many receipts (at most 256)");
                return -1;
            }
            receipts[a->n_receipts++] = arg;
            a->receipts = receipts;
            continue;
        }
        if ((a->cmd == CMD_RUN || a->cmd == CMD_REPEAT) && !strcmp(arg, "--")) {
            /* the argv form: everything after -- is PROGRAM ARG... */
            if (a->n_iut_argv) {
                snprintf(err, cap, "the IUT is given twice (--iut-exec and --)");
                return -1;
            }
            for (i++; i < argc; i++) {
                if (a->n_iut_argv == sizeof a->iut_argv / sizeof a->iut_argv[0] - 1) {
                    snprintf(err, cap, "too many IUT arguments (at most 64)");
                    return -1;
                }
                a->iut_argv[a->n_iut_argv++] = argv[i];
            }
            if (!a->n_iut_argv) {
                snprintf(err, cap, "-- needs the IUT's PROGRAM [ARG]...");
                return -1;
            }
            break;
        }
        if (strncmp(arg, "--", 2) != 0 || !strcmp(arg, "--")) {
            if (a->n_pos == 2) {
                snprintf(err, cap, "unexpected argument '%s'", arg);
                return -1;
            }
            a->pos[a->n_pos++] = arg;
            continue;
        }
        if (!strcmp(arg, "--help")) { /* `run --help` is a request for the usage, not a flag without a value */
            a->cmd = CMD_HELP;
            return 0;
        }
        /* --flag value or --flag=value */
        char flag[64];
        const char *val = NULL;
        const char *eq = strchr(arg, '=');
        if (eq) {
            snprintf(flag, sizeof flag, "%.*s", (int)(eq - arg), arg);
            val = eq + 1;
        } else
            snprintf(flag, sizeof flag, "%s", arg);
        static const char *const bools[] = {"--exhaustive", "--keep-work",      "--verbose", "--list",
                                            "--windows",    "--allow-unsigned", "--fresh-only"};
        int is_bool = 0;
        for (size_t k = 0; k < sizeof bools / sizeof bools[0]; k++)
            is_bool |= !strcmp(flag, bools[k]);
        if (is_bool) {
            if (val) {
                snprintf(err, cap, "%s takes no value", flag);
                return -1;
            }
            if (!strcmp(flag, "--exhaustive"))
                a->exhaustive = 1;
            else if (!strcmp(flag, "--keep-work"))
                a->keep_work = 1;
            else if (!strcmp(flag, "--list"))
                a->list = 1;
            else if (!strcmp(flag, "--windows"))
                a->windows = 1;
            else if (!strcmp(flag, "--allow-unsigned"))
                a->allow_unsigned = 1;
            else if (!strcmp(flag, "--fresh-only"))
                a->fresh_only = 1;
            else
                a->verbose = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc) {
                snprintf(err, cap, "%s needs a value", flag);
                return -1;
            }
            val = argv[++i];
        }
        if (!strcmp(flag, "--iut"))
            a->iut = val;
        else if (!strcmp(flag, "--iut-exec")) {
            if (a->n_iut_argv && a->iut_argv[0]) {
                snprintf(err, cap, "--iut-exec is given twice");
                return -1;
            }
            if (!a->n_iut_argv)
                a->n_iut_argv = 1;
            a->iut_argv[0] = val;
        } else if (!strcmp(flag, "--iut-arg")) {
            if (a->n_iut_argv == sizeof a->iut_argv / sizeof a->iut_argv[0] - 1) {
                snprintf(err, cap, "too many --iut-arg (at most 64)");
                return -1;
            }
            if (!a->n_iut_argv)
                a->n_iut_argv = 1; /* the program slot, filled by --iut-exec */
            a->iut_argv[a->n_iut_argv++] = val;
        }
        else if (!strcmp(flag, "--vectors")) {
            a->vectors = val;
            a->vectors_given = 1;
        }
        else if (!strcmp(flag, "--level")) {
            if (strcmp(val, "ops") && strcmp(val, "train") && strcmp(val, "all")) {
                snprintf(err, cap, "--level is ops, train or all, not '%s'", val);
                return -1;
            }
            a->level = val;
        } else if (!strcmp(flag, "--profile"))
            a->profile = val;
        else if (!strcmp(flag, "--receipt"))
            a->receipt = val;
        else if (!strcmp(flag, "--junit"))
            a->junit = val;
        else if (!strcmp(flag, "--emulator"))
            a->emulator = val;
        else if (!strcmp(flag, "--emulator-cpu"))
            a->emulator_cpu = val;
        else if (!strcmp(flag, "--host"))
            a->host = val;
        else if (!strcmp(flag, "--hosts"))
            a->hosts = val;
        else if (!strcmp(flag, "--markdown"))
            a->markdown = val;
        else if (!strcmp(flag, "--against"))
            a->against = val;
        else if (!strcmp(flag, "--sign-key"))
            a->sign_key = val;
        else if (!strcmp(flag, "--allowed-signers"))
            a->allowed_signers = val;
        else if (!strcmp(flag, "--seed")) {
            /* the u64 seed of spec §6.2, in decimal */
            char *end;
            errno = 0;
            unsigned long long v = strtoull(val, &end, 10);
            if (errno || end == val || *end || val[0] < '0' || val[0] > '9') {
                snprintf(err, cap, "--seed expects a decimal integer 0..18446744073709551615, got '%s'", val);
                return -1;
            }
            /* P7: a fresh run's seed is never a published one */
            if ((uint64_t)v == it_mlp13k_default_recipe().seed) {
                snprintf(err, cap, "--seed %s is the mlp13k profile's own, published seed; fresh cases need another", val);
                return -1;
            }
            a->seed = v;
            a->seed_given = 1;
        }
        else if (!strcmp(flag, "--checkpoints-a"))
            a->ckpt_a = val;
        else if (!strcmp(flag, "--checkpoints-b"))
            a->ckpt_b = val;
        else if (!strcmp(flag, "--filter")) {
            size_t l = strlen(val);
            if (split_used + l + 1 > sizeof split_buf) {
                snprintf(err, cap, "--filter lists are too long");
                return -1;
            }
            char *copy = split_buf + split_used;
            memcpy(copy, val, l + 1);
            split_used += l + 1;
            for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
                if (a->n_filters == sizeof a->filters / sizeof a->filters[0]) {
                    snprintf(err, cap, "too many --filter groups");
                    return -1;
                }
                a->filters[a->n_filters++] = tok;
            }
        } else if (!strcmp(flag, "--timeout-case")) {
            if (num(flag, val, 0.001, &a->timeout_case, err, cap))
                return -1;
        } else if (!strcmp(flag, "--timeout-run")) {
            if (num(flag, val, 0.001, &a->timeout_run, err, cap))
                return -1;
            a->timeout_run_given = 1;
        } else if (!strcmp(flag, "--slowdown")) {
            if (num(flag, val, 0.001, &a->slowdown, err, cap))
                return -1;
        } else if (!strcmp(flag, "--steps")) {
            if (count(flag, val, 0, &a->steps, err, cap))
                return -1;
        } else if (!strcmp(flag, "--runs")) {
            if (count(flag, val, 2, &a->runs, err, cap))
                return -1;
        } else {
            snprintf(err, cap, "unknown option '%s'", flag);
            return -1;
        }
    }
    if (a->n_iut_argv) {
        if (!a->iut_argv[0]) {
            snprintf(err, cap, "--iut-arg needs --iut-exec PROGRAM");
            return -1;
        }
        if (a->iut) {
            snprintf(err, cap, "give the IUT once: --iut-exec (argv form) or --iut (shell form)");
            return -1;
        }
        if (a->cmd != CMD_RUN && a->cmd != CMD_REPEAT) {
            snprintf(err, cap, "--iut-exec is an option of run and repeat");
            return -1;
        }
        /* the display is how spawns recognise the registered target
         * (iut_target.h): never cut, kept for the process's lifetime */
        static char *display;
        free(display);
        display = argv_display((char *const *)a->iut_argv, a->n_iut_argv);
        a->iut = display;
    }
    switch (a->cmd) {
    case CMD_RUN:
        if (!a->iut) {
            snprintf(err, cap, "run needs the IUT: --iut-exec PROGRAM [--iut-arg ARG]... (or -- PROGRAM ARG...), "
                               "or --iut 'CMD' (the shell form: subject unbound)");
            return -1;
        }
        if (a->n_pos) {
            snprintf(err, cap, "run takes no positional argument ('%s')", a->pos[0]);
            return -1;
        }
        if (!a->emulator != !a->emulator_cpu && a->emulator_cpu) {
            snprintf(err, cap, "--emulator-cpu needs --emulator");
            return -1;
        }
        break;
    case CMD_COMPARE:
        if (a->n_pos != 2) {
            snprintf(err, cap, "compare needs two trace files");
            return -1;
        }
        if (!a->ckpt_a != !a->ckpt_b) {
            snprintf(err, cap, "compare: --checkpoints-a and --checkpoints-b go together");
            return -1;
        }
        break;
    case CMD_REPEAT:
        if (!a->iut || a->runs < 2 || !a->profile) {
            snprintf(err, cap, "repeat needs --runs N (N >= 2), --iut-exec PROGRAM (or --iut 'CMD') and --profile P");
            return -1;
        }
        break;
    case CMD_MATRIX:
        if (!a->hosts && (a->list || a->against || !a->n_receipts)) {
            snprintf(err, cap, "matrix needs --hosts FILE (e.g. qemu/hosts.json), or receipts alone (machines described by their receipts)");
            return -1;
        }
        if (!a->n_receipts && !a->against && !a->list) {
            snprintf(err, cap, "matrix needs receipts (RECEIPT... or --against DIR)");
            return -1;
        }
        break;
    case CMD_VERIFY:
        if (!a->n_receipts) {
            snprintf(err, cap, "verify needs at least one receipt");
            return -1;
        }
        break;
    case CMD_SIGN:
        if (!a->sign_key || a->n_pos < 1) {
            snprintf(err, cap, "sign needs --sign-key KEY and the RECEIPT (and OUT, else RECEIPT is signed in place)");
            return -1;
        }
        break;
    case CMD_LINT:
        if (a->n_pos != 1) {
            snprintf(err, cap, "lint needs one directory");
            return -1;
        }
        break;
    default:
        break;
    }
    return 0;
}

int cli_filter_match(const conform_args *a, const char *group)
{
    if (a->n_filters == 0)
        return 1;
    for (size_t i = 0; i < a->n_filters; i++)
        if (!strcmp(a->filters[i], group))
            return 1;
    return 0;
}

int cli_level_on(const conform_args *a, const char *level)
{
    return !strcmp(a->level, "all") || !strcmp(a->level, level);
}
