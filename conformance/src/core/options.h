/* options.h — the options of one isotrain-conform command line (parsed by
 * cli/cli_args.c through its option table, cli/option_table.h; read by the
 * levels and reports through run_ctx). */
#ifndef CONFORM_CORE_OPTIONS_H
#define CONFORM_CORE_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    CMD_NONE, CMD_RUN, CMD_COMPARE, CMD_REPEAT, CMD_LINT, CMD_MATRIX, CMD_VERIFY, CMD_SIGN, CMD_REPORT,
    CMD_RECEIPT, CMD_HELP, CMD_VERSION, CMD_VECTORS
} conform_cmd;

enum { CONFORM_MAX_OPERANDS = 256, CONFORM_MAX_DIVERGENCE = 4 };

typedef struct {
    conform_cmd cmd;
    conform_cmd help_for; /* CMD_HELP: the command whose help was asked for (CMD_NONE: all) */
    const char *iut;
    const char *vectors;  /* default vectors/v1.2.0 */
    int vectors_given;    /* --vectors was on the command line */
    const char *ops_vectors; /* run: --ops-vectors DIR, a recipe set's op vectors (vectorset/ops_base.h) */
    const char *level;    /* ops, train or all */
    const char *profile;  /* NULL: every profile of the vectors */
    const char *receipt, *junit;
    const char *filters[32]; /* --filter GROUP (repeatable, or comma-separated) */
    size_t n_filters;
    const char *emulator, *emulator_cpu;
    const char *host;     /* run: --host NAME (qemu/hosts.json), recorded in the receipt */
    const char *hosts;    /* matrix: --hosts FILE */
    const char *markdown; /* matrix: --markdown FILE */
    const char *against;  /* matrix: --against DIR (published receipts) */
    int exhaustive, keep_work, verbose;
    int windows;          /* run --windows: also the golden-state windows (spec 8.4, FORMAT.md 6) */
    int list;             /* matrix --list: one line per host for scripts */
    double timeout_case, timeout_run, slowdown;
    int timeout_run_given; /* --timeout-run S given: training runs get S, not a calibrated budget */
    long steps; /* run: train only steps 0..N; repeat: steps per run; -1: default */
    long runs;  /* repeat */
    int seed_given;         /* run: --seed S (the run seed of the fresh cases) */
    unsigned long long seed;
    const char *sign_key;   /* run: --sign-key KEY (ssh-keygen -Y sign) */
    const char *allowed_signers; /* verify, matrix: --allowed-signers FILE (default: the checkout's or installation's) */
    int allow_unsigned;     /* verify, matrix: --allow-unsigned (an unsigned receipt is accepted, and said to be) */
    /* run, repeat: the argv form of the IUT (protocol/iut_target.h):
     * --iut-exec PROGRAM [--iut-arg ARG]..., or -- PROGRAM ARG...; iut is
     * then its display string */
    const char *iut_argv[65];
    size_t n_iut_argv;
    int fresh_only;         /* run --fresh-only: the fresh cases alone (never a PASS) */
    const char *ckpt_a, *ckpt_b; /* compare --checkpoints-a/-b DIR: step-NNNNNN.bin of each trace */
    /* the words that are not options (argv pointers): compare TRACE_A
     * TRACE_B, lint DIR, sign RECEIPT [OUT], matrix/verify/report RECEIPT... */
    const char *operands[CONFORM_MAX_OPERANDS];
    size_t n_operands;
    const char *output;  /* report -o PAGE.html */
    const char *divergence[CONFORM_MAX_DIVERGENCE]; /* report --divergence CSV... */
    size_t n_divergence;
    const char *date, *readme_href; /* report --date TEXT, --readme-href HREF */
    int json, schema; /* receipt --json (print one receipt as read), --schema (the JSON Schema) */
    const char *recipe, *out; /* vectors --recipe R.json --out DIR */
} conform_args;

/* Parses argv; returns 0, or -1 with a message naming the option and what it
 * expected (usage error, exit 2). --help sets cmd CMD_HELP and help_for. */
int cli_parse(int argc, char **argv, conform_args *a, char *err, size_t cap);
/* The help for cmd (CMD_NONE: every command), or its usage line alone. */
void cli_help(FILE *out, conform_cmd cmd);
void cli_usage_line(FILE *out, conform_cmd cmd);
/* 1 if GROUP passes the --filter list (no filter: everything passes). */
int cli_filter_match(const conform_args *a, const char *group);
/* 1 if the level is selected by --level. */
int cli_level_on(const conform_args *a, const char *level);

#endif
