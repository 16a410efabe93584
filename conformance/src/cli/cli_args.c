/* cli_args.c — the command line of isotrain-conform as one table: every
 * command and every option (cli/option_table.h reads argv through it and
 * writes --help from it), then what a command needs beyond its options'
 * own forms (an IUT for run, two traces for compare, ...). */
#include "core/options.h"
#include "core/version.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/option_table.h"
#include "isotrain.h"
#include "protocol/iut_target.h"

/* ---- the options whose value means more than one field ---- */

static int set_vectors(conform_args *a, const char *v, char *err, size_t cap)
{
    (void)err, (void)cap;
    a->vectors = v;
    a->vectors_given = 1;
    return 0;
}

static int set_iut_exec(conform_args *a, const char *v, char *err, size_t cap)
{
    (void)err, (void)cap;
    if (!a->n_iut_argv)
        a->n_iut_argv = 1;
    a->iut_argv[0] = v;
    return 0;
}

static int add_iut_arg(conform_args *a, const char *v, char *err, size_t cap)
{
    (void)err, (void)cap; /* the row's max keeps it inside iut_argv */
    if (!a->n_iut_argv)
        a->n_iut_argv = 1; /* the program slot, filled by --iut-exec */
    a->iut_argv[a->n_iut_argv++] = v;
    return 0;
}

/* --filter GROUP[,GROUP]...: the groups are cut out of a copy kept for the
 * process's lifetime (the levels hold the pointers). */
static int add_filter(conform_args *a, const char *v, char *err, size_t cap)
{
    static char split[4096];
    static size_t used;
    size_t l = strlen(v);
    if (used + l + 1 > sizeof split)
        return snprintf(err, cap, "lists are too long (%zu bytes in all at most)", sizeof split - 1), -1;
    char *copy = memcpy(split + used, v, l + 1);
    used += l + 1;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (a->n_filters == sizeof a->filters / sizeof a->filters[0])
            return snprintf(err, cap, "expects at most %zu groups", sizeof a->filters / sizeof a->filters[0]), -1;
        a->filters[a->n_filters++] = tok;
    }
    return 0;
}

/* --seed S: the u64 run seed of spec §6.2, in decimal */
static int set_seed(conform_args *a, const char *v, char *err, size_t cap)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (errno || end == v || *end || v[0] < '0' || v[0] > '9' || (v[0] == '0' && v[1]))
        return snprintf(err, cap, "expects a decimal integer 0..18446744073709551615 (no leading zero), got '%.64s'", v),
               -1;
    if ((uint64_t)s == it_mlp13k_default_recipe().seed) /* P7: a fresh run's seed is never a published one */
        return snprintf(err, cap, "%s is the mlp13k profile's own, published seed; fresh cases need another", v), -1;
    a->seed = s;
    a->seed_given = 1;
    return 0;
}

static int add_divergence(conform_args *a, const char *v, char *err, size_t cap)
{
    (void)err, (void)cap; /* the row's max keeps it inside divergence[] */
    a->divergence[a->n_divergence++] = v;
    return 0;
}

/* ---- the table ---- */

#define RUN OPT_IN(CMD_RUN)
#define REPEAT OPT_IN(CMD_REPEAT)
#define COMPARE OPT_IN(CMD_COMPARE)
#define MATRIX OPT_IN(CMD_MATRIX)
#define VERIFY OPT_IN(CMD_VERIFY)
#define SIGN OPT_IN(CMD_SIGN)
#define REPORT OPT_IN(CMD_REPORT)
#define RECEIPT OPT_IN(CMD_RECEIPT)
#define VECTORS OPT_IN(CMD_VECTORS)
#define AT(field) offsetof(conform_args, field)
#define IUT_ARGS (sizeof((conform_args *)0)->iut_argv / sizeof(const char *) - 1)
#define FILTERS (sizeof((conform_args *)0)->filters / sizeof(const char *))

static const opt_row ROWS[] = {
    {"--iut-exec", NULL, OPT_TEXT, "PROGRAM", 0, 0, NULL, RUN | REPEAT, 0, 0, set_iut_exec,
     "the IUT's program, run without a shell and bound (its digest, through the file executed)", 0},
    {"--iut-arg", NULL, OPT_TEXT, "ARG", 0, 0, NULL, RUN | REPEAT, IUT_ARGS - 1, 0, add_iut_arg,
     "an argument of --iut-exec's program, in order", 0},
    {"--iut", NULL, OPT_TEXT, "'CMD'", 0, 0, NULL, RUN | REPEAT, 0, AT(iut), NULL,
     "the shell form: /bin/sh -c 'CMD \"$@\"', bound to nothing (never a PASS)", 0},
    {"--vectors", NULL, OPT_TEXT, "DIR", 0, 0, NULL, RUN | MATRIX | VERIFY | REPORT, 0, 0, set_vectors,
     "the vector set (default: vectors/" CONFORM_DEFAULT_VECTOR_SET " here, else the installed set; verify: the receipt's)", 0},
    {"--ops-vectors", NULL, OPT_TEXT, "DIR", 0, 0, NULL, RUN | VERIFY, 0, AT(ops_vectors), NULL,
     "a recipe set's op vectors: the pinned set v" "1.2.0" " (default: found as --vectors' default is; verify: "
     "its digest must be the receipt's vectors.ops_manifest_digest)", 0},
    {"--level", NULL, OPT_CHOICE, "ops|train|all", 0, 0, "all", RUN, 0, AT(level), NULL, "the levels to run", 0},
    {"--profile", NULL, OPT_TEXT, "P", 0, 0, NULL, RUN | REPEAT, 0, AT(profile), NULL,
     "one training profile (run: default every profile of the set)", 0},
    {"--steps", NULL, OPT_UINT, "N", 0, 1e9, NULL, RUN | REPEAT | VECTORS, 0, AT(steps), NULL,
     "train steps 0..N only (a narrower run); repeat: steps per run; vectors: the set's steps", 0},
    {"--runs", NULL, OPT_UINT, "N", 2, 1e9, NULL, REPEAT, 0, AT(runs), NULL, "how many times to train", 0},
    {"--receipt", NULL, OPT_TEXT, "FILE", 0, 0, NULL, RUN, 0, AT(receipt), NULL, "where to write the receipt", 0},
    {"--junit", NULL, OPT_TEXT, "FILE", 0, 0, NULL, RUN, 0, AT(junit), NULL, "where to write the JUnit XML", 0},
    {"--exhaustive", NULL, OPT_FLAG, NULL, 0, 0, NULL, RUN, 0, AT(exhaustive), NULL,
     "also the 2^24/2^32-input sweeps", 0},
    {"--windows", NULL, OPT_FLAG, NULL, 0, 0, NULL, RUN, 0, AT(windows), NULL,
     "also the windows resumed from golden states (spec 8.4)", 0},
    {"--fresh-only", NULL, OPT_FLAG, NULL, 0, 0, NULL, RUN, 0, AT(fresh_only), NULL,
     "the fresh cases alone, golden vectors left out (never a PASS)", 0},
    {"--filter", NULL, OPT_TEXT, "GROUP[,GROUP]", 0, 0, NULL, RUN, FILTERS, 0, add_filter,
     "only these op groups", 0},
    {"--timeout-case", NULL, OPT_REAL, "S", 0.001, 1e9, "60", RUN, 0, AT(timeout_case), NULL,
     "seconds per op case (a sweep: 5x)", 0},
    {"--timeout-run", NULL, OPT_REAL, "S", 0.001, 1e9, "600", RUN | REPEAT, 0, AT(timeout_run), NULL,
     "seconds per ops session, and per training run as given (not given: calibrated, at least the default)",
     OPT_GIVEN(timeout_run_given)},
    {"--slowdown", NULL, OPT_REAL, "F", 0.001, 1e9, "1", RUN | REPEAT, 0, AT(slowdown), NULL,
     "multiplies both time-outs (an emulated host)", 0},
    {"--emulator", NULL, OPT_TEXT, "NAME", 0, 0, NULL, RUN, 0, AT(emulator), NULL,
     "the emulator the IUT runs under, recorded in the receipt", 0},
    {"--emulator-cpu", NULL, OPT_TEXT, "MODEL", 0, 0, NULL, RUN, 0, AT(emulator_cpu), NULL,
     "the emulated CPU model (with --emulator)", 0},
    {"--host", NULL, OPT_TEXT, "NAME", 0, 0, NULL, RUN, 0, AT(host), NULL,
     "the host's name in the hosts file, recorded in the receipt", 0},
    {"--keep-work", NULL, OPT_FLAG, NULL, 0, 0, NULL, RUN | REPEAT, 0, AT(keep_work), NULL,
     "keep the IUT's work directory", 0},
    {"--verbose", NULL, OPT_FLAG, NULL, 0, 0, NULL, RUN, 0, AT(verbose), NULL, "say more", 0},
    {"--seed", NULL, OPT_TEXT, "S", 0, 0, NULL, RUN, 0, 0, set_seed,
     "the run seed of the fresh cases (default: drawn from /dev/urandom; given: a REPRODUCTION)", 0},
    {"--sign-key", NULL, OPT_TEXT, "KEY", 0, 0, NULL, RUN | SIGN | VECTORS, 0, AT(sign_key), NULL,
     "sign the receipt with this ssh key (run: only where the IUT cannot reach it); vectors: the manifest", 0},
    {"--recipe", NULL, OPT_TEXT, "R.json", 0, 0, NULL, VECTORS, 0, AT(recipe), NULL,
     "the recipe (spec 16.1, spec/recipe.schema.json) to make the set of", 0},
    {"--out", NULL, OPT_TEXT, "DIR", 0, 0, NULL, VECTORS, 0, AT(out), NULL,
     "where to write the set (a new or empty directory)", 0},
    {"--checkpoints-a", NULL, OPT_TEXT, "DIR", 0, 0, NULL, COMPARE, 0, AT(ckpt_a), NULL,
     "trace A's step-NNNNNN.bin checkpoints", 0},
    {"--checkpoints-b", NULL, OPT_TEXT, "DIR", 0, 0, NULL, COMPARE, 0, AT(ckpt_b), NULL,
     "trace B's step-NNNNNN.bin checkpoints", 0},
    {"--output", "-o", OPT_TEXT, "PAGE.html", 0, 0, NULL, REPORT, 0, AT(output), NULL, "the page to write (required)", 0},
    {"--hosts", NULL, OPT_TEXT, "FILE", 0, 0, NULL, MATRIX | REPORT, 0, AT(hosts), NULL,
     "the hosts file (e.g. qemu/hosts.json)", 0},
    {"--list", NULL, OPT_FLAG, NULL, 0, 0, NULL, MATRIX, 0, AT(list), NULL,
     "print each host: NAME TAB BUILD TAB EXPECTED TAB SLOWDOWN TAB IUT-COMMAND", 0},
    {"--markdown", NULL, OPT_TEXT, "FILE", 0, 0, NULL, MATRIX, 0, AT(markdown), NULL, "also write the table as Markdown", 0},
    {"--against", NULL, OPT_TEXT, "DIR", 0, 0, NULL, MATRIX, 0, AT(against), NULL,
     "compare verdicts and digests with the published receipts in DIR", 0},
    {"--allowed-signers", NULL, OPT_TEXT, "FILE", 0, 0, NULL, MATRIX | VERIFY | REPORT, 0, AT(allowed_signers), NULL,
     "who may sign receipts (ssh-keygen format; default vectors/KEYS/allowed_signers, else the installed one)", 0},
    {"--allow-unsigned", NULL, OPT_FLAG, NULL, 0, 0, NULL, MATRIX | VERIFY | REPORT, 0, AT(allow_unsigned), NULL,
     "accept unsigned receipts (this machine's own runs)", 0},
    {"--divergence", NULL, OPT_TEXT, "CSV", 0, 0, NULL, REPORT, CONFORM_MAX_DIVERGENCE, 0, add_divergence,
     "a divergence CSV to plot (make pytorch-divergence)", 0},
    {"--date", NULL, OPT_TEXT, "TEXT", 0, 0, NULL, REPORT, 0, AT(date), NULL,
     "a date to show on the page (it names none by itself)", 0},
    {"--readme-href", NULL, OPT_TEXT, "HREF", 0, 0, NULL, REPORT, 0, AT(readme_href), NULL,
     "where the page links README.md", 0},
    {"--json", NULL, OPT_FLAG, NULL, 0, 0, NULL, RECEIPT, 0, AT(json), NULL,
     "print the receipt (one RECEIPT) as JSON, read strictly", 0},
    {"--schema", NULL, OPT_FLAG, NULL, 0, 0, NULL, RECEIPT, 0, AT(schema), NULL,
     "print the receipt's JSON Schema (no RECEIPT)", 0},
};

static const opt_command COMMANDS[] = {
    {CMD_RUN, "run", NULL, 0, 1,
     "certifies the IUT against a vector set: manifest, hello, the ops level\n"
     "(every op vector bit-exact) and the train level (every step's loss bits\n"
     "and parameter digest), plus fresh cases drawn from a run seed; on a\n"
     "mismatch it says where. Exit 0 PASS (a full certification), 1 FAIL,\n"
     "3 PARTIAL (a narrower run, or the shell form: subject unbound),\n"
     "4 UNOFFICIAL (an unpinned vector set), 5 REPRODUCTION (--seed S given:\n"
     "a reproduction of seed S, not a certification), 6 PASS (recipe\n"
     "sha256:HEX): a recipe set's run certified (`vectors`; the recipe's\n"
     "steps, never an official PASS), 2 on bad usage,\n"
     "refused vectors or an unwritable receipt. The IUT: --iut-exec PROGRAM\n"
     "[--iut-arg ARG]... or -- PROGRAM [ARG]... (bound), or --iut 'CMD'.\n"},
    {CMD_COMPARE, "compare", "TRACE_A TRACE_B", 2, 0,
     "the first differing step of two traces and the loss gap from there; with\n"
     "both runs' checkpoint directories, the first differing tensor and element\n"
     "(exit 0 identical, 1 different, 2 bad input).\n"},
    {CMD_REPEAT, "repeat", NULL, 0, 1,
     "trains N times and checks the runs are bit-identical step by step\n"
     "(needs --runs N, the IUT and --profile P).\n"},
    {CMD_LINT, "lint", "DIR", 1, 0, "checks a vector set (manifest and every file) and lists every problem.\n"},
    {CMD_MATRIX, "matrix", "RECEIPT...", CONFORM_MAX_OPERANDS, 0,
     "the host matrix: one receipt per host of the hosts file, a table of the\n"
     "checkpoint digests per host, each host's verdict against its expected one\n"
     "(pass / expected-fail); a receipt whose host the file does not list (or any\n"
     "receipt, without --hosts) is a machine of its own, described by its receipt\n"
     "and expected to pass; --against DIR also compares verdicts and digests\n"
     "with published receipts (exit 0 all as expected, 1 not, 2 bad input).\n"},
    {CMD_VERIFY, "verify", "RECEIPT...", CONFORM_MAX_OPERANDS, 0,
     "recomputes every verdict of a receipt from its own case list, checks its\n"
     "cross-references and its signature against the allowed signers and names\n"
     "the signer by fingerprint; an unsigned receipt is UNSIGNED (exit 1) unless\n"
     "--allow-unsigned; a REPRODUCTION is not certification evidence (exit 1)\n"
     "(exit 0 all verify, 1 a receipt does not, 2 bad input).\n"},
    {CMD_SIGN, "sign", "RECEIPT [OUT]", 2, 0,
     "signs an unsigned receipt (the envelope's payload as it is) with KEY,\n"
     "into OUT or in place: the key is never on the machine while an IUT\n"
     "runs. run --sign-key signs only after every IUT process is gone, and\n"
     "only where the IUT runs in PID and mount namespaces that hide the key\n"
     "(as root: under uid 65534); elsewhere it is refused: use sign.\n"},
    {CMD_REPORT, "report", "RECEIPT...", CONFORM_MAX_OPERANDS, 0,
     "the receipts as one self-contained HTML page: the matrix's verdicts, each\n"
     "host's details, plots; refused receipts listed, never shown as results\n"
     "(exit 0 written, 1 written with a receipt refused, 2 not written).\n"},
    {CMD_RECEIPT, "receipt", "RECEIPT...", CONFORM_MAX_OPERANDS, 0,
     "reads receipts through the one strict reader (the field table of\n"
     "trust/receipt_fields.c) and says whether each reads; --json prints one as\n"
     "read, for scripts; --schema prints spec/receipt.schema.json. No signature\n"
     "is checked and no verdict recomputed: that is verify (exit 0 every\n"
     "receipt reads, 1 one does not, 2 bad usage).\n"},
    {CMD_VECTORS, "vectors", NULL, 0, 0,
     "makes a recipe vector set: the linked reference (portable kernels: the\n"
     "same bits on every host) trains the recipe; the set holds the recipe and\n"
     "its corpus, every step's loss and digest, checkpoints, window start\n"
     "states, and a manifest naming the recipe's SHA-256 and the generator;\n"
     "--sign-key signs the manifest (MANIFEST.json.sig). run --vectors DIR\n"
     "certifies an IUT against it. Exit 0 written, 2 bad input (the recipe's\n"
     "error names its file and field) or not written.\n"},
};

static const opt_spec SPEC = {
    "isotrain-conform", COMMANDS, sizeof COMMANDS / sizeof COMMANDS[0], ROWS, sizeof ROWS / sizeof ROWS[0],
    "--vectors defaults to vectors/" CONFORM_DEFAULT_VECTOR_SET " (the newest set) when the current directory\n"
    "has it, else to the installed set (--version names it); verify and matrix read\n"
    "the set each receipt names, found the same way. A training run's deadline is\n"
    "max(600, 10 x the linked reference's step time measured here x (steps + 1))\n"
    "x --slowdown unless --timeout-run S is given (then S x --slowdown).\n"};

const opt_spec *cli_spec(void)
{
    return &SPEC;
}

static const opt_command *command_of(conform_cmd cmd)
{
    for (size_t i = 0; i < SPEC.n_cmds; i++)
        if (COMMANDS[i].cmd == cmd)
            return &COMMANDS[i];
    return NULL;
}

void cli_help(FILE *out, conform_cmd cmd)
{
    const opt_command *c = command_of(cmd);
    if (c)
        opt_command_help(out, &SPEC, c);
    else
        opt_help(out, &SPEC);
}

void cli_usage_line(FILE *out, conform_cmd cmd)
{
    const opt_command *c = command_of(cmd);
    if (c)
        opt_usage_line(out, &SPEC, c);
    else
        fprintf(out, "usage: isotrain-conform COMMAND [OPTION]... (isotrain-conform --help lists them)\n");
}

/* ---- what each command needs beyond its options' forms ---- */

/* The IUT of run and repeat, either form, once; iut then names it. */
static int iut_given_once(conform_args *a, char *err, size_t cap)
{
    if (!a->n_iut_argv)
        return 0;
    if (!a->iut_argv[0])
        return snprintf(err, cap, "--iut-arg needs --iut-exec PROGRAM"), -1;
    if (a->iut)
        return snprintf(err, cap, "give the IUT once: --iut-exec (argv form) or --iut (shell form)"), -1;
    /* the display is how spawns recognise the registered target
     * (iut_target.h): never cut, kept for the process's lifetime */
    static char *display;
    free(display);
    display = argv_display((char *const *)a->iut_argv, a->n_iut_argv);
    a->iut = display;
    return 0;
}

static int needs_receipts(const conform_args *a, char *err, size_t cap)
{
    if (a->cmd == CMD_VERIFY && !a->n_operands)
        return snprintf(err, cap, "verify needs at least one receipt"), -1;
    if (a->cmd != CMD_MATRIX)
        return 0;
    if (!a->hosts && (a->list || a->against || !a->n_operands))
        return snprintf(err, cap, "matrix needs --hosts FILE (e.g. qemu/hosts.json), or receipts alone (machines "
                                  "described by their receipts)"),
               -1;
    if (!a->n_operands && !a->against && !a->list)
        return snprintf(err, cap, "matrix needs receipts (RECEIPT... or --against DIR)"), -1;
    return 0;
}

static int needs(const conform_args *a, char *err, size_t cap)
{
    switch (a->cmd) {
    case CMD_RUN:
        if (!a->iut)
            return snprintf(err, cap, "run needs the IUT: --iut-exec PROGRAM [--iut-arg ARG]... (or -- PROGRAM "
                                      "ARG...), or --iut 'CMD' (the shell form: subject unbound)"),
                   -1;
        if (a->emulator_cpu && !a->emulator)
            return snprintf(err, cap, "--emulator-cpu needs --emulator"), -1;
        return 0;
    case CMD_COMPARE:
        if (a->n_operands != 2)
            return snprintf(err, cap, "compare needs two trace files"), -1;
        if (!a->ckpt_a != !a->ckpt_b)
            return snprintf(err, cap, "compare: --checkpoints-a and --checkpoints-b go together"), -1;
        return 0;
    case CMD_REPEAT:
        if (!a->iut || a->runs < 2 || !a->profile)
            return snprintf(err, cap, "repeat needs --runs N (N >= 2), --iut-exec PROGRAM (or --iut 'CMD') and "
                                      "--profile P"),
                   -1;
        return 0;
    case CMD_SIGN:
        if (!a->sign_key || a->n_operands < 1)
            return snprintf(err, cap, "sign needs --sign-key KEY and the RECEIPT (and OUT, else RECEIPT is signed "
                                      "in place)"),
                   -1;
        return 0;
    case CMD_LINT:
        if (a->n_operands != 1)
            return snprintf(err, cap, "lint needs one directory"), -1;
        return 0;
    case CMD_RECEIPT:
        if (a->schema ? a->n_operands != 0 || a->json : a->n_operands == 0 || (a->json && a->n_operands != 1))
            return snprintf(err, cap, "receipt: give --schema alone, --json and one RECEIPT, or RECEIPT..."), -1;
        return 0;
    case CMD_VECTORS:
        if (!a->recipe || !a->out)
            return snprintf(err, cap, "vectors needs --recipe R.json and --out DIR"), -1;
        return 0;
    case CMD_REPORT:
        if (!a->output)
            return snprintf(err, cap, "give the page to write: -o PAGE.html"), -1;
        return 0;
    default:
        return needs_receipts(a, err, cap);
    }
}

int cli_parse(int argc, char **argv, conform_args *a, char *err, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->vectors = conform_default_vectors();
    a->steps = -1;
    a->runs = -1;
    if (argc < 2)
        return snprintf(err, cap, "no command given"), -1;
    const char *w = argv[1];
    if (!strcmp(w, "--help") || !strcmp(w, "-h") || !strcmp(w, "help")) {
        a->cmd = CMD_HELP;
        return 0;
    }
    if (!strcmp(w, "--version")) {
        a->cmd = CMD_VERSION;
        return 0;
    }
    const opt_command *c = opt_find_command(&SPEC, w);
    if (!c)
        return snprintf(err, cap, "unknown command '%.64s'", w), -1;
    a->cmd = c->cmd;
    int rc = opt_parse(&SPEC, c, argc, argv, 2, a, err, cap);
    if (rc == 1) { /* `run --help` is a request for run's help, not a flag without a value */
        a->cmd = CMD_HELP;
        a->help_for = c->cmd;
        return 0;
    }
    if (rc != 0 || iut_given_once(a, err, cap) != 0)
        return -1;
    return needs(a, err, cap);
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
