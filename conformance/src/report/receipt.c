/* receipt.c — the JSON receipt: bound to the vector set's manifest digest,
 * the IUT (command, binary digest, self-report), the host, every case's
 * verdict, timings and the suite's own version (design brief, "Receipts"). */
#include "report/receipt.h"
#include "levels/time_budget.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "host/hostinfo.h"
#include "core/version.h"
#include "trust/dsse.h"
#include "protocol/iut_keeper.h"
#include "trust/receipt_open.h"
#include "trust/receipt_schema.h"
#include "protocol/proc_seen.h"

/* Every array the writer writes fits the reader's cap on it (the field
 * table's RF_CAP_*): a receipt this runner writes is never refused for its
 * length. */
_Static_assert(TARGET_MAX_ARGS <= RF_CAP_ARGS && TARGET_MAX_FILES <= RF_CAP_FILES, "iut.subject fits its caps");
_Static_assert(PROC_SEEN_MAX <= RF_CAP_PROCS && PROC_SEEN_CODE_MAX <= RF_CAP_CODE && PROC_SEEN_ENV_MAX <= RF_CAP_ENV,
               "iut.processes_seen, code_mapped, loader_environment fit their caps");
_Static_assert(sizeof((iut_binary *)0)->scripts / sizeof(char *) <= RF_CAP_SCRIPTS, "iut.files fits its cap");
_Static_assert(sizeof((conform_args *)0)->filters / sizeof(char *) <= RF_CAP_FILTERS, "options.filters fits its cap");
_Static_assert(SCOPE_MAX_REASONS <= RF_CAP_REASONS, "scope.reasons fits its cap");
_Static_assert(sizeof((run_ctx *)0)->warnings / sizeof(char *) <= RF_CAP_WARNINGS, "warnings fits its cap");

/* A member's name, from THE field table (trust/receipt_fields.h). */
#define K(id) rf_key(RF_##id)

static void add_str(cJSON *o, const char *k, const char *v)
{
    if (!v) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    char *s = sanitized(v, strlen(v), 1 << 20);
    cJSON_AddStringToObject(o, k, s);
    free(s);
}

/* A member copied from a C struct: the field it is (its key, and by THE
 * field table whether an int is a number or a boolean), the C type it has
 * there and where. Objects that mirror a struct are written from a list of
 * these, not a line each. */
typedef enum { C_CHARS, C_PTR, C_U32, C_DOUBLE, C_INT } ctype;
typedef enum { W_HOST, W_OPTIONS_HEAD, W_OPTIONS_TAIL, W_TRAIN, W_IUT, W_TIMINGS } wpart;
typedef struct {
    wpart part;
    rf_id id;
    ctype c;
    size_t at;
} member;
#define M(part, id, c, type, name) {part, RF_##id, c, offsetof(type, name)}

/* Every member the writer copies from a C struct, in the order each object
 * has them: the runner's host (hostinfo), the options around the filters
 * and the seed (conform_args), the head of a profile's golden run
 * (train_report), what the IUT said of itself and the levels' times
 * (run_ctx). */
static const member members[] = {
    M(W_HOST, HOST_ISA, C_CHARS, hostinfo, isa),
    M(W_HOST, HOST_ENDIANNESS, C_CHARS, hostinfo, endianness),
    M(W_HOST, HOST_CPU_MODEL, C_CHARS, hostinfo, cpu_model),
    M(W_HOST, HOST_CPU_FLAGS, C_PTR, hostinfo, cpu_flags),
    M(W_HOST, HOST_OS, C_CHARS, hostinfo, os),
    M(W_HOST, HOST_LIBC, C_CHARS, hostinfo, libc),
    M(W_HOST, HOST_RUNNER_COMPILER, C_PTR, hostinfo, compiler),
    M(W_HOST, HOST_RUNNER_CFLAGS, C_PTR, hostinfo, cflags),
    M(W_OPTIONS_HEAD, OPTIONS_LEVEL, C_PTR, conform_args, level),
    M(W_OPTIONS_HEAD, OPTIONS_PROFILE, C_PTR, conform_args, profile),
    M(W_OPTIONS_TAIL, OPTIONS_SEED_GIVEN, C_INT, conform_args, seed_given),
    M(W_OPTIONS_TAIL, OPTIONS_FRESH_ONLY, C_INT, conform_args, fresh_only),
    M(W_OPTIONS_TAIL, OPTIONS_TIMEOUT_CASE, C_DOUBLE, conform_args, timeout_case),
    M(W_OPTIONS_TAIL, OPTIONS_TIMEOUT_RUN, C_DOUBLE, conform_args, timeout_run),
    M(W_OPTIONS_TAIL, OPTIONS_SLOWDOWN, C_DOUBLE, conform_args, slowdown),
    M(W_OPTIONS_TAIL, OPTIONS_TIMEOUT_RUN_GIVEN, C_INT, conform_args, timeout_run_given),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_PROFILE, C_PTR, train_report, profile),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_STEPS, C_U32, train_report, steps_requested),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_STEPS_IN_VECTORS, C_U32, train_report, steps_in_vectors),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_STATUS, C_CHARS, train_report, status),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_FAILURE, C_PTR, train_report, failure),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_PROBLEM, C_PTR, train_report, problem),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_SECONDS, C_DOUBLE, train_report, seconds),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_STDERR_TAIL, C_PTR, train_report, stderr_tail),
    M(W_TRAIN, LEVELS_TRAIN_PROFILES_STDOUT_TAIL, C_PTR, train_report, stdout_tail),
    M(W_IUT, IUT_HELLO, C_PTR, run_ctx, hello_line),
    M(W_IUT, IUT_NAME, C_PTR, run_ctx, iut_name),
    M(W_IUT, IUT_VERSION, C_PTR, run_ctx, iut_version),
    M(W_IUT, IUT_SPEC, C_PTR, run_ctx, iut_spec),
    M(W_TIMINGS, TIMINGS_MANIFEST, C_DOUBLE, run_ctx, t_manifest),
    M(W_TIMINGS, TIMINGS_LOAD, C_DOUBLE, run_ctx, t_load),
    M(W_TIMINGS, TIMINGS_HELLO, C_DOUBLE, run_ctx, t_hello),
    M(W_TIMINGS, TIMINGS_OPS, C_DOUBLE, run_ctx, t_ops),
    M(W_TIMINGS, TIMINGS_TRAIN, C_DOUBLE, run_ctx, t_train),
    M(W_TIMINGS, TIMINGS_FRESH, C_DOUBLE, run_ctx, t_fresh),
};

/* The members of one part (its rows of the table above) from base. */
static void put_members(cJSON *o, const void *base, wpart part)
{
    const char *b = base;
    const member *m = members;
    for (size_t i = 0; i < sizeof members / sizeof *members; i++) {
        if (m[i].part != part)
            continue;
        const char *k = rf_key(m[i].id), *v = b + m[i].at;
        switch (m[i].c) {
        case C_CHARS: add_str(o, k, v); break;
        case C_PTR: add_str(o, k, *(const char *const *)(const void *)v); break;
        case C_U32: cJSON_AddNumberToObject(o, k, *(const uint32_t *)(const void *)v); break;
        case C_DOUBLE: cJSON_AddNumberToObject(o, k, *(const double *)(const void *)v); break;
        case C_INT:
            if (receipt_fields[m[i].id].kind == RS_BOOL)
                cJSON_AddBoolToObject(o, k, *(const int *)(const void *)v);
            else
                cJSON_AddNumberToObject(o, k, *(const int *)(const void *)v);
            break;
        }
    }
}

static void add_str_item(cJSON *arr, const char *v)
{
    char *s = sanitized(v, strlen(v), 1 << 20);
    cJSON_AddItemToArray(arr, cJSON_CreateString(s));
    free(s);
}

/* levels.ops, .train and .fresh share these members (named by ops's rows). */
static cJSON *level_json(level_verdict v, double secs, const char *note)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, K(LEVELS_OPS_VERDICT), level_verdict_name(v));
    cJSON_AddNumberToObject(o, K(LEVELS_OPS_SECONDS), secs);
    add_str(o, K(LEVELS_OPS_NOTE), note);
    return o;
}

/* One step as the run produced it: loss bits and the runner's SHA-256 (a
 * profile's trace and the fresh-seed run's share these members). */
static cJSON *step_json(uint32_t step, int reached, int has_loss, uint32_t loss, const char *sha)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, K(LEVELS_TRAIN_PROFILES_TRACE_STEP), step);
    cJSON_AddBoolToObject(o, K(LEVELS_TRAIN_PROFILES_TRACE_REACHED), reached);
    if (has_loss) {
        char lb[16];
        snprintf(lb, sizeof lb, "0x%08x", (unsigned)loss);
        cJSON_AddStringToObject(o, K(LEVELS_TRAIN_PROFILES_TRACE_LOSS), lb);
    } else
        cJSON_AddNullToObject(o, K(LEVELS_TRAIN_PROFILES_TRACE_LOSS));
    add_str(o, K(LEVELS_TRAIN_PROFILES_TRACE_SHA256), sha && sha[0] ? sha : NULL);
    return o;
}

/* One bound file of the subject (protocol/iut_target.h). */
static cJSON *file_json(const target_file *f, int with_after)
{
    cJSON *o = cJSON_CreateObject();
    add_str(o, K(IUT_SUBJECT_FILES_ROLE), f->role);
    add_str(o, K(IUT_SUBJECT_FILES_GIVEN), f->given);
    add_str(o, K(IUT_SUBJECT_FILES_PATH), f->path);
    add_str(o, K(IUT_SUBJECT_FILES_SHA256), f->sha256);
    if (with_after)
        add_str(o, K(IUT_SUBJECT_FILES_SHA256_AFTER), f->sha256_after[0] ? f->sha256_after : NULL);
    cJSON_AddNumberToObject(o, K(IUT_SUBJECT_FILES_SIZE), (double)f->size);
    add_str(o, K(IUT_SUBJECT_FILES_FORMAT), exe_kind_name(f->fmt.kind));
    add_str(o, K(IUT_SUBJECT_FILES_ISA), f->fmt.isa[0] ? f->fmt.isa : NULL);
    cJSON_AddBoolToObject(o, K(IUT_SUBJECT_FILES_EXECUTED), f->executed);
    if (f->executed)
        add_str(o, K(IUT_SUBJECT_FILES_EXECUTED_THROUGH), f->by_path ? "path" : "descriptor");
    return o;
}

/* What the receipt binds (conformance/README.md "What a receipt proves"):
 * the argv form's files, each hashed before the first verb (the executable
 * through the descriptor that is executed) and after the run; or, for the
 * shell form, that nothing is bound and why. */
static void subject_json(cJSON *iut, const run_ctx *rc)
{
    cJSON *sj = cJSON_AddObjectToObject(iut, K(IUT_SUBJECT));
    const iut_target *t = rc->target;
    if (!t) {
        add_str(sj, K(IUT_SUBJECT_FORM), "shell");
        cJSON_AddBoolToObject(sj, K(IUT_SUBJECT_BOUND), 0);
        add_str(sj, K(IUT_SUBJECT_REASON), SCOPE_SUBJECT_UNBOUND);
        return;
    }
    add_str(sj, K(IUT_SUBJECT_FORM), "argv");
    cJSON_AddBoolToObject(sj, K(IUT_SUBJECT_BOUND), 1);
    cJSON *av = cJSON_AddArrayToObject(sj, K(IUT_SUBJECT_ARGV));
    for (size_t i = 0; i < t->argc; i++)
        add_str_item(av, t->argv[i]);
    cJSON *fs = cJSON_AddArrayToObject(sj, K(IUT_SUBJECT_FILES));
    for (size_t i = 0; i < t->nf; i++)
        cJSON_AddItemToArray(fs, file_json(&t->f[i], 1));
    add_str(sj, K(IUT_SUBJECT_EXECUTED), t->f[t->exec_file].path);
    add_str(sj, K(IUT_SUBJECT_NOT_BOUND), "what the program loads or runs after it starts: shared libraries, modules an "
                             "interpreter imports, files it reads, programs it executes (see processes_seen), and the "
                             "environment");
}

/* The executables seen running in the IUT's tree (protocol/proc_seen.h). */
static void processes_json(cJSON *iut, const run_ctx *rc)
{
    cJSON *ps = cJSON_AddArrayToObject(iut, K(IUT_PROCESSES_SEEN));
    for (size_t i = 0; i < proc_seen_count(); i++) {
        const seen_exe *e = proc_seen_get(i);
        cJSON *o = cJSON_CreateObject();
        add_str(o, K(IUT_PROCESSES_SEEN_PATH), e->path);
        add_str(o, K(IUT_PROCESSES_SEEN_SHA256), e->sha256);
        add_str(o, K(IUT_PROCESSES_SEEN_FORMAT), exe_kind_name(e->fmt.kind));
        add_str(o, K(IUT_PROCESSES_SEEN_ISA), e->fmt.isa[0] ? e->fmt.isa : NULL);
        cJSON_AddNumberToObject(o, K(IUT_PROCESSES_SEEN_PROCESSES), e->processes);
        add_str(o, K(IUT_PROCESSES_SEEN_VERBS), e->verbs);
        cJSON_AddBoolToObject(o, K(IUT_PROCESSES_SEEN_IS_SUBJECT), iut_target_has_digest(rc->target, e->sha256));
        cJSON_AddItemToArray(ps, o);
    }
    cJSON_AddNumberToObject(iut, K(IUT_PROCESSES_SEEN_NOT_LISTED), (double)proc_seen_dropped());
    /* every file mapped executable and the environment that chose code
     * (proc_seen.h); a receipt without them is read as "not recorded" */
    cJSON *cm = cJSON_AddArrayToObject(iut, K(IUT_CODE_MAPPED));
    for (size_t i = 0; i < proc_seen_code_count(); i++) {
        const seen_code *c = proc_seen_code_get(i);
        cJSON *o = cJSON_CreateObject();
        add_str(o, K(IUT_CODE_MAPPED_PATH), c->path);
        add_str(o, K(IUT_CODE_MAPPED_SHA256), c->sha256[0] ? c->sha256 : NULL);
        add_str(o, K(IUT_CODE_MAPPED_VERBS), c->verbs);
        cJSON_AddBoolToObject(o, K(IUT_CODE_MAPPED_IS_SUBJECT), c->sha256[0] && iut_target_has_digest(rc->target, c->sha256));
        cJSON_AddItemToArray(cm, o);
    }
    cJSON_AddNumberToObject(iut, K(IUT_CODE_MAPPED_NOT_LISTED), (double)proc_seen_code_dropped());
    cJSON *le = cJSON_AddArrayToObject(iut, K(IUT_LOADER_ENVIRONMENT));
    for (size_t i = 0; i < proc_seen_env_count(); i++)
        add_str_item(le, proc_seen_env_get(i));
    add_str(iut, K(IUT_CONTAINMENT), contain_mode());
}

/* The emulator as measured: resolved path, digest and --version, and
 * whether it is the executable the runner started (the argv form) or only
 * named (--emulator, or the first word of a shell command). */
static void emulator_json(cJSON *root, const run_ctx *rc, const char *shell_emu, const char *shell_cpu)
{
    const conform_args *a = rc->a;
    const iut_target *t = rc->target;
    const char *name = t && t->emulated ? t->emu_name : a->emulator ? a->emulator : shell_emu;
    if (!name) {
        cJSON_AddNullToObject(root, K(EMULATOR));
        return;
    }
    cJSON *e = cJSON_AddObjectToObject(root, K(EMULATOR));
    add_str(e, K(EMULATOR_NAME), name);
    if (t && t->emulated) {
        add_str(e, K(EMULATOR_CPU), t->emu_cpu);
        add_str(e, K(EMULATOR_SOURCE), "the IUT's executable");
        add_str(e, K(EMULATOR_PATH), t->f[0].path);
        add_str(e, K(EMULATOR_SHA256), t->f[0].sha256);
        add_str(e, K(EMULATOR_VERSION), t->emu_version);
        cJSON_AddBoolToObject(e, K(EMULATOR_IS_EXECUTABLE), 1);
        if (a->emulator && (strcmp(a->emulator, t->emu_name) != 0 ||
                            (a->emulator_cpu && (!t->emu_cpu || strcmp(a->emulator_cpu, t->emu_cpu) != 0)))) {
            cJSON *c = cJSON_AddObjectToObject(e, K(EMULATOR_CLAIMED_BY_OPTION));
            add_str(c, K(EMULATOR_CLAIMED_BY_OPTION_NAME), a->emulator);
            add_str(c, K(EMULATOR_CLAIMED_BY_OPTION_CPU), a->emulator_cpu);
        }
        return;
    }
    add_str(e, K(EMULATOR_CPU), a->emulator ? a->emulator_cpu : shell_cpu);
    add_str(e, K(EMULATOR_SOURCE), a->emulator ? "--emulator" : "the IUT command");
    /* named, not run by the runner: measured where PATH resolves the name */
    iut_target m;
    char err[256];
    char *av[1] = {(char *)name};
    if (iut_target_open(&m, av, 1, err, sizeof err) == 0) {
        add_str(e, K(EMULATOR_PATH), m.f[0].path);
        add_str(e, K(EMULATOR_SHA256), m.f[0].sha256);
        add_str(e, K(EMULATOR_VERSION), m.emu_version);
    } else {
        cJSON_AddNullToObject(e, K(EMULATOR_PATH));
        cJSON_AddNullToObject(e, K(EMULATOR_SHA256));
        add_str(e, K(EMULATOR_VERSION), err);
    }
    iut_target_free(&m);
    cJSON_AddBoolToObject(e, K(EMULATOR_IS_EXECUTABLE), 0);
}

/* Who made the receipt, when, and the vector set it judged by. */
static void head_json(cJSON *root, const run_ctx *rc)
{
    const conform_args *a = rc->a;
    cJSON_AddStringToObject(root, K(SCHEMA), RECEIPT_SCHEMA_NAME);
    /* the rules this receipt is made and checked under (trust/verify_receipt.h):
     * 2 = a bound or declared-unbound subject, the ops sessions as cases,
     * the measured host fields */
    cJSON_AddNumberToObject(root, K(TRUST_RULES), RECEIPT_TRUST_RULES);
    cJSON *suite = cJSON_AddObjectToObject(root, K(SUITE));
    cJSON_AddStringToObject(suite, K(SUITE_NAME), "isotrain-conform");
    cJSON_AddStringToObject(suite, K(SUITE_VERSION), CONFORM_VERSION);
    add_str(suite, K(SUITE_GIT_REVISION), conform_git_revision());
    /* the kernel set of the runner's linked reference (cli/main.c: portable) */
    add_str(suite, K(SUITE_REFERENCE_KERNELS), it_kernels_name());
    cJSON_AddStringToObject(root, K(STARTED), rc->started_utc);
    /* the host-matrix host this run certifies (--host NAME, qemu/hosts.json) */
    add_str(root, K(MATRIX_HOST), a->host);

    cJSON *vec = cJSON_AddObjectToObject(root, K(VECTORS));
    add_str(vec, K(VECTORS_DIR), a->vectors);
    add_str(vec, K(VECTORS_SPEC_VERSION), rc->vs.spec_version);
    add_str(vec, K(VECTORS_VECTOR_VERSION), rc->vs.vector_version);
    add_str(vec, K(VECTORS_GENERATOR), rc->man.generator);
    add_str(vec, K(VECTORS_MANIFEST_DIGEST), rc->man.digest);
    cJSON_AddNumberToObject(vec, K(VECTORS_FILES), (double)rc->man.n_files);
    /* pinned in the runner (vectorset/official.c), or UNOFFICIAL */
    cJSON_AddBoolToObject(vec, K(VECTORS_OFFICIAL), rc->official != NULL);
    if (rc->recipe_name) { /* a recipe set: the recipe certified, by digest; who made and signed it; its ops */
        add_str(vec, K(VECTORS_RECIPE_SHA256), rc->man.recipe_sha256);
        add_str(vec, K(VECTORS_RECIPE_SIGNER), rc->recipe_signer[0] ? rc->recipe_signer : NULL);
        add_str(vec, K(VECTORS_OPS_MANIFEST_DIGEST), rc->ops_digest);
    }
    cJSON *vp = cJSON_AddArrayToObject(vec, K(VECTORS_PROFILES));
    for (size_t i = 0; i < rc->vs.n_trains; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, K(VECTORS_PROFILES_PROFILE), rc->vs.trains[i].profile);
        cJSON_AddNumberToObject(o, K(VECTORS_PROFILES_STEPS), rc->vs.trains[i].steps);
        cJSON_AddItemToArray(vp, o);
    }
}

/* The IUT binary, hashed before the run (rc->bin_before) and again now
 * (b): a binary swapped while it ran shows as two digests, and verify
 * refuses the receipt. */
static void binary_json(cJSON *iut, const run_ctx *rc, const iut_binary *b)
{
    const iut_binary *b0 = &rc->bin_before;
    cJSON *bin = cJSON_AddObjectToObject(iut, K(IUT_BINARY));
    if (rc->target) { /* the argv form: the guest under an emulator, else the program as given */
        const iut_target *t = rc->target;
        const target_file *pf = &t->f[t->guest >= 0 ? (size_t)t->guest : 0];
        add_str(bin, K(IUT_BINARY_WORD), pf->given);
        add_str(bin, K(IUT_BINARY_PATH), pf->path);
        add_str(bin, K(IUT_BINARY_SHA256), pf->sha256);
        add_str(bin, K(IUT_BINARY_SHA256_AFTER), pf->sha256_after[0] ? pf->sha256_after : NULL);
    } else {
        add_str(bin, K(IUT_BINARY_WORD), b0->binary);
        add_str(bin, K(IUT_BINARY_PATH), b0->path);
        add_str(bin, K(IUT_BINARY_SHA256), b0->sha256[0] ? b0->sha256 : NULL);
        add_str(bin, K(IUT_BINARY_SHA256_AFTER), b->sha256[0] ? b->sha256 : NULL);
        if (b->n_scripts) {
            cJSON *sc = cJSON_AddArrayToObject(iut, K(IUT_FILES));
            for (size_t i = 0; i < b->n_scripts; i++) {
                cJSON *f = cJSON_CreateObject();
                add_str(f, K(IUT_FILES_PATH), b->scripts[i]);
                add_str(f, K(IUT_FILES_SHA256), b->script_sha256[i]);
                cJSON_AddItemToArray(sc, f);
            }
        }
    }
}

/* The IUT: its command, what it said of itself, what ran (b: its binary
 * as hashed now). */
static void iut_json(cJSON *root, const run_ctx *rc, const iut_binary *b)
{
    const conform_args *a = rc->a;
    cJSON *iut = cJSON_AddObjectToObject(root, K(IUT));
    add_str(iut, K(IUT_COMMAND), a->iut);
    put_members(iut, rc, W_IUT);
    /* the kernel set the IUT says ran (its hello line's kernels=, P2), or null */
    const char *kk = rc->hello_line ? strstr(rc->hello_line, " kernels=") : NULL;
    if (kk) {
        char *k = xstrndup(kk + 9, strcspn(kk + 9, " "));
        add_str(iut, K(IUT_KERNELS), k);
        free(k);
    } else
        cJSON_AddNullToObject(iut, K(IUT_KERNELS));
    binary_json(iut, rc, b);
    subject_json(iut, rc);
    processes_json(iut, rc);
    cJSON *self = cJSON_AddObjectToObject(iut, K(IUT_SELF_REPORT));
    add_str(self, K(IUT_SELF_REPORT_COMMAND), "info");
    add_str(self, K(IUT_SELF_REPORT_STATUS), rc->info_status);
    cJSON *vals = cJSON_AddObjectToObject(self, K(IUT_SELF_REPORT_VALUES));
    for (size_t i = 0; i < rc->n_info; i++)
        add_str(vals, rc->info[i].key, rc->info[i].val);
}

/* The runner's host as measured here. */
static void host_json(cJSON *root)
{
    hostinfo h;
    hostinfo_collect(&h);
    put_members(cJSON_AddObjectToObject(root, K(HOST)), &h, W_HOST);
    hostinfo_free(&h);
}

/* The options the run was given, the seed it ran with; the training runs'
 * deadlines (levels/time_budget.h): --timeout-run as given, or calibrated
 * on the linked reference's step time measured here. */
static void options_json(cJSON *root, const run_ctx *rc, const char *seed)
{
    const conform_args *a = rc->a;
    cJSON *opt = cJSON_AddObjectToObject(root, K(OPTIONS));
    put_members(opt, a, W_OPTIONS_HEAD);
    cJSON *fl = cJSON_AddArrayToObject(opt, K(OPTIONS_FILTERS));
    for (size_t i = 0; i < a->n_filters; i++)
        cJSON_AddItemToArray(fl, cJSON_CreateString(a->filters[i]));
    cJSON_AddBoolToObject(opt, K(OPTIONS_EXHAUSTIVE), a->exhaustive);
    cJSON_AddStringToObject(opt, K(OPTIONS_SEED), seed);
    put_members(opt, a, W_OPTIONS_TAIL);
    cJSON *cal = cJSON_AddObjectToObject(opt, K(OPTIONS_TIMEOUT_CALIBRATION));
    cJSON_AddNumberToObject(cal, K(OPTIONS_TIMEOUT_CALIBRATION_FACTOR), TB_FACTOR);
    cJSON *steps_s = cJSON_AddObjectToObject(cal, K(OPTIONS_TIMEOUT_CALIBRATION_REFERENCE_STEP_SECONDS));
    for (size_t i = 0; i < rc->n_costs; i++)
        if (rc->costs[i].step_s >= 0)
            cJSON_AddNumberToObject(steps_s, rc->costs[i].profile, rc->costs[i].step_s);
    if (a->steps >= 0)
        cJSON_AddNumberToObject(opt, K(OPTIONS_STEPS), (double)a->steps);
}

/* One profile's golden run: how it ended, where it first differed, every
 * step and checkpoint as it produced them. */
static cJSON *train_profile_json(const train_report *t)
{
    cJSON *p = cJSON_CreateObject();
    put_members(p, t, W_TRAIN);
    if (t->first_bad_step >= 0)
        cJSON_AddNumberToObject(p, K(LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP), t->first_bad_step);
    if (t->loc_json)
        cJSON_AddItemToObject(p, K(LEVELS_TRAIN_PROFILES_LOCALIZATION), cJSON_Duplicate(t->loc_json, 1));
    add_str(p, K(LEVELS_TRAIN_PROFILES_LOCALIZATION_TEXT), t->loc_text.len ? t->loc_text.p : NULL);
    cJSON *st = cJSON_AddArrayToObject(p, K(LEVELS_TRAIN_PROFILES_TRACE));
    for (size_t k = 0; k < t->n_steps_seen; k++)
        cJSON_AddItemToArray(st, step_json((uint32_t)k, t->steps_seen[k].reached, t->steps_seen[k].has_loss,
                                           t->steps_seen[k].loss, t->steps_seen[k].sha256));
    /* the vectors' checkpoint steps as this run produced them */
    cJSON *cks = cJSON_AddArrayToObject(p, K(LEVELS_TRAIN_PROFILES_CHECKPOINTS));
    for (size_t k = 0; k < t->n_ck; k++) {
        const struct ck_seen *cs = &t->ck[k];
        cJSON *c = step_json(cs->step, cs->reached, cs->has_loss, cs->loss, cs->sha256);
        cJSON_AddBoolToObject(c, K(LEVELS_TRAIN_PROFILES_CHECKPOINTS_MATCHES_VECTORS), cs->same);
        cJSON_AddItemToArray(cks, c);
    }
    return p;
}

/* The three levels: verdicts, times, the train level's profiles, the
 * fresh-seed run. */
static void levels_json(cJSON *root, const run_ctx *rc, const char *seed)
{
    cJSON *levels = cJSON_AddObjectToObject(root, K(LEVELS));
    cJSON *lo = level_json(rc->lv_ops, rc->t_ops, rc->ops_note);
    if (rc->ops_ran) {
        cJSON *pr = cJSON_AddObjectToObject(lo, K(LEVELS_OPS_PROCESS));
        add_str(pr, K(LEVELS_OPS_PROCESS_STATUS), rc->ops_sum.status);
        add_str(pr, K(LEVELS_OPS_PROCESS_STDERR_TAIL), rc->ops_sum.stderr_tail);
    }
    cJSON_AddItemToObject(levels, K(LEVELS_OPS), lo);
    cJSON *lt = level_json(rc->lv_train, rc->t_train, rc->train_note);
    cJSON *profs = cJSON_AddArrayToObject(lt, K(LEVELS_TRAIN_PROFILES));
    for (size_t i = 0; i < rc->n_trains; i++)
        cJSON_AddItemToArray(profs, train_profile_json(&rc->trains[i]));
    cJSON_AddItemToObject(levels, K(LEVELS_TRAIN), lt);
    cJSON *lf = level_json(rc->lv_fresh, rc->t_fresh, rc->fresh_note);
    cJSON_AddNumberToObject(lf, K(LEVELS_FRESH_OP_CASES), (double)rc->n_fresh_ops);
    cJSON_AddBoolToObject(lf, K(LEVELS_FRESH_TRAIN_SEED_ADVERTISED), rc->train_seed);
    if (rc->fresh_train_ran) {
        cJSON *ft = cJSON_AddObjectToObject(lf, K(LEVELS_FRESH_TRAINING));
        cJSON_AddStringToObject(ft, K(LEVELS_FRESH_TRAINING_PROFILE), "mlp13k");
        cJSON_AddStringToObject(ft, K(LEVELS_FRESH_TRAINING_SEED), seed);
        cJSON_AddNumberToObject(ft, K(LEVELS_FRESH_TRAINING_STEPS), (double)(rc->n_fresh_steps - 1));
        cJSON *tr = cJSON_AddArrayToObject(ft, K(LEVELS_FRESH_TRAINING_TRACE));
        for (size_t k = 0; k < rc->n_fresh_steps; k++) {
            const struct fresh_step *f = &rc->fresh_steps[k];
            cJSON_AddItemToArray(tr, step_json(f->step, f->reached, f->has_loss, f->loss, f->sha256));
        }
    }
    cJSON_AddItemToObject(levels, K(LEVELS_FRESH), lf);
}

/* The verdict, its scope, the levels reached and the cases. */
static void outcome_json(cJSON *root, const run_ctx *rc, const char *overall, const char *reached)
{
    if (contain_interrupted())
        cJSON_AddNumberToObject(root, K(INTERRUPTED_BY_SIGNAL), contain_interrupted());
    else
        cJSON_AddNullToObject(root, K(INTERRUPTED_BY_SIGNAL));
    cJSON_AddStringToObject(root, K(VERDICT), overall);
    cJSON_AddNumberToObject(root, K(EXIT_CODE), rc->verdict.exit_code);
    cJSON *sc = cJSON_AddObjectToObject(root, K(SCOPE));
    cJSON_AddBoolToObject(sc, K(SCOPE_FULL_CERTIFICATION), !strcmp(overall, "PASS"));
    cJSON *rs = cJSON_AddArrayToObject(sc, K(SCOPE_REASONS));
    for (size_t i = 0; i < rc->verdict.n_reasons; i++)
        add_str_item(rs, rc->verdict.reasons[i]);
    cJSON_AddStringToObject(root, K(LEVEL_REACHED), reached);
    cJSON *lr = cJSON_AddObjectToObject(root, K(LEVELS_REACHED)); /* per profile */
    for (size_t i = 0; i < rc->n_reached; i++)
        add_str(lr, rc->reached[i].profile, rc->reached[i].level);
    /* spec §12.1: judged by (and, for a PASS, certified against) the lower
     * of the IUT's claim and the vector set's version, as MAJOR.MINOR */
    cJSON *sp = cJSON_AddObjectToObject(root, K(SPEC));
    add_str(sp, K(SPEC_CERTIFIED), rc->req.iut_known ? rc->req.certified_text : NULL);
    add_str(sp, K(SPEC_IUT), rc->iut_spec);
    add_str(sp, K(SPEC_VECTORS), rc->vs.spec_version);
    tally t = results_tally(&rc->res, NULL);
    cJSON *cnt = cJSON_AddObjectToObject(root, K(COUNTS));
    cJSON_AddNumberToObject(cnt, K(COUNTS_PASSED), (double)t.passed);
    cJSON_AddNumberToObject(cnt, K(COUNTS_FAILED), (double)t.failed);
    cJSON_AddNumberToObject(cnt, K(COUNTS_ERRORS), (double)t.errors);
    cJSON_AddNumberToObject(cnt, K(COUNTS_SKIPPED), (double)t.skipped);
    cJSON *cases = cJSON_AddArrayToObject(root, K(CASES));
    for (size_t i = 0; i < rc->res.n; i++) {
        const case_result *c = &rc->res.c[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, K(CASES_ID), c->id);
        add_str(o, K(CASES_LEVEL), c->level);
        add_str(o, K(CASES_SUITE), c->suite);
        cJSON_AddStringToObject(o, K(CASES_VERDICT), verdict_name(c->v));
        if (c->reason)
            add_str(o, K(CASES_REASON), c->reason);
        cJSON_AddBoolToObject(o, K(CASES_REQUIRED), c->required);
        cJSON_AddNumberToObject(o, K(CASES_SECONDS), c->seconds);
        cJSON_AddItemToArray(cases, o);
    }
    cJSON *w = cJSON_AddArrayToObject(root, K(WARNINGS));
    for (size_t i = 0; i < rc->n_warnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(rc->warnings[i]));
    cJSON *tm = cJSON_AddObjectToObject(root, K(TIMINGS));
    put_members(tm, rc, W_TIMINGS);
    cJSON_AddNumberToObject(tm, K(TIMINGS_TOTAL), now_s() - rc->t_start);
}

/* Checks root against THE field table, wraps it in a signed envelope
 * and writes it to path. Takes root. 0, or -1 after saying why. */
static int seal(cJSON *root, const char *path, const char *sign_key)
{
    /* what is written is what every reader accepts: the one field table
     * (trust/receipt_schema.h) checks the writer too */
    problems own;
    problems_init(&own);
    if (receipt_schema_check("the receipt being written", root, RS_CHECK_PRESENCE, &own, RECEIPT_SCHEMA_PROBLEMS) != 0) {
        fprintf(stderr, "isotrain-conform: the receipt is not as %s says (trust/receipt_fields.c):\n",
                RECEIPT_SCHEMA_NAME);
        problems_print(&own, stderr, "  ");
        problems_free(&own);
        cJSON_Delete(root);
        return -1;
    }
    problems_free(&own);
    /* the receipt travels as an in-toto Statement in a DSSE envelope,
     * signed with --sign-key (trust/dsse.h) */
    char err[512];
    cJSON *st = intoto_statement(root);
    cJSON_Delete(root);
    char *text = dsse_envelope(st, sign_key, err, sizeof err);
    cJSON_Delete(st);
    if (!text) {
        fprintf(stderr, "isotrain-conform: cannot write the receipt: %s\n", err);
        return -1;
    }
    int r = dsse_write_file(path, text, err, sizeof err);
    if (r != 0)
        fprintf(stderr, "isotrain-conform: receipt: %s\n", err);
    return r;
}

/* Design brief, "Receipts": one JSON document per run. */
int receipt_write(const run_ctx *rc, const char *path, const char *overall, const char *reached)
{
    const conform_args *a = rc->a;
    cJSON *root = cJSON_CreateObject();
    head_json(root, rc);
    iut_binary b;
    iut_binary_inspect(a->iut, &b);
    iut_json(root, rc, &b);
    host_json(root);
    emulator_json(root, rc, b.emulator, b.emulator_cpu);
    /* stderr warnings of hello/info: an emulator's, such as QEMU's
     * "TCG doesn't support requested feature" */
    cJSON *ew = cJSON_AddArrayToObject(root, K(EMULATOR_WARNINGS));
    for (size_t i = 0; i < rc->n_emu_warnings; i++)
        add_str_item(ew, rc->emu_warnings[i]);
    iut_binary_free(&b);
    /* the run seed as a decimal string: a JSON number cannot hold every u64 */
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)rc->run_seed);
    options_json(root, rc, seed);
    levels_json(root, rc, seed);
    outcome_json(root, rc, overall, reached);
    return seal(root, path, a->sign_key);
}
