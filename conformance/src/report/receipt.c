/* receipt.c — the JSON receipt: bound to the vector set's manifest digest,
 * the IUT (command, binary digest, self-report), the host, every case's
 * verdict, timings and the suite's own version (design brief, "Receipts"). */
#include "report/receipt.h"
#include "levels/time_budget.h"

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

static void add_str_item(cJSON *arr, const char *v)
{
    char *s = sanitized(v, strlen(v), 1 << 20);
    cJSON_AddItemToArray(arr, cJSON_CreateString(s));
    free(s);
}

static cJSON *level_json(level_verdict v, double secs, const char *note)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "verdict", level_verdict_name(v));
    cJSON_AddNumberToObject(o, "seconds", secs);
    add_str(o, "note", note);
    return o;
}

/* One step as the run produced it: loss bits and the runner's SHA-256. */
static cJSON *step_json(uint32_t step, int reached, int has_loss, uint32_t loss, const char *sha)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", step);
    cJSON_AddBoolToObject(o, "reached", reached);
    if (has_loss) {
        char lb[16];
        snprintf(lb, sizeof lb, "0x%08x", (unsigned)loss);
        cJSON_AddStringToObject(o, "loss", lb);
    } else
        cJSON_AddNullToObject(o, "loss");
    add_str(o, "sha256", sha && sha[0] ? sha : NULL);
    return o;
}

/* One bound file of the subject (protocol/iut_target.h). */
static cJSON *file_json(const target_file *f, int with_after)
{
    cJSON *o = cJSON_CreateObject();
    add_str(o, "role", f->role);
    add_str(o, "given", f->given);
    add_str(o, "path", f->path);
    add_str(o, "sha256", f->sha256);
    if (with_after)
        add_str(o, "sha256_after", f->sha256_after[0] ? f->sha256_after : NULL);
    cJSON_AddNumberToObject(o, "size", (double)f->size);
    add_str(o, "format", exe_kind_name(f->fmt.kind));
    add_str(o, "isa", f->fmt.isa[0] ? f->fmt.isa : NULL);
    cJSON_AddBoolToObject(o, "executed", f->executed);
    if (f->executed)
        add_str(o, "executed_through", f->by_path ? "path" : "descriptor");
    return o;
}

/* What the receipt binds (conformance/README.md "What a receipt proves"):
 * the argv form's files, each hashed before the first verb (the executable
 * through the descriptor that is executed) and after the run; or, for the
 * shell form, that nothing is bound and why. */
static void subject_json(cJSON *iut, const run_ctx *rc)
{
    cJSON *sj = cJSON_AddObjectToObject(iut, "subject");
    const iut_target *t = rc->target;
    if (!t) {
        add_str(sj, "form", "shell");
        cJSON_AddBoolToObject(sj, "bound", 0);
        add_str(sj, "reason", SCOPE_SUBJECT_UNBOUND);
        return;
    }
    add_str(sj, "form", "argv");
    cJSON_AddBoolToObject(sj, "bound", 1);
    cJSON *av = cJSON_AddArrayToObject(sj, "argv");
    for (size_t i = 0; i < t->argc; i++)
        add_str_item(av, t->argv[i]);
    cJSON *fs = cJSON_AddArrayToObject(sj, "files");
    for (size_t i = 0; i < t->nf; i++)
        cJSON_AddItemToArray(fs, file_json(&t->f[i], 1));
    add_str(sj, "executed", t->f[t->exec_file].path);
    add_str(sj, "not_bound", "what the program loads or runs after it starts: shared libraries, modules an "
                             "interpreter imports, files it reads, programs it executes (see processes_seen), and the "
                             "environment");
}

/* The executables seen running in the IUT's tree (protocol/proc_seen.h). */
static void processes_json(cJSON *iut, const run_ctx *rc)
{
    cJSON *ps = cJSON_AddArrayToObject(iut, "processes_seen");
    for (size_t i = 0; i < proc_seen_count(); i++) {
        const seen_exe *e = proc_seen_get(i);
        cJSON *o = cJSON_CreateObject();
        add_str(o, "path", e->path);
        add_str(o, "sha256", e->sha256);
        add_str(o, "format", exe_kind_name(e->fmt.kind));
        add_str(o, "isa", e->fmt.isa[0] ? e->fmt.isa : NULL);
        cJSON_AddNumberToObject(o, "processes", e->processes);
        add_str(o, "verbs", e->verbs);
        cJSON_AddBoolToObject(o, "is_subject", iut_target_has_digest(rc->target, e->sha256));
        cJSON_AddItemToArray(ps, o);
    }
    cJSON_AddNumberToObject(iut, "processes_seen_not_listed", (double)proc_seen_dropped());
    /* every file mapped executable and the environment that chose code
     * (proc_seen.h); a receipt without them is read as "not recorded" */
    cJSON *cm = cJSON_AddArrayToObject(iut, "code_mapped");
    for (size_t i = 0; i < proc_seen_code_count(); i++) {
        const seen_code *c = proc_seen_code_get(i);
        cJSON *o = cJSON_CreateObject();
        add_str(o, "path", c->path);
        add_str(o, "sha256", c->sha256[0] ? c->sha256 : NULL);
        add_str(o, "verbs", c->verbs);
        cJSON_AddBoolToObject(o, "is_subject", c->sha256[0] && iut_target_has_digest(rc->target, c->sha256));
        cJSON_AddItemToArray(cm, o);
    }
    cJSON_AddNumberToObject(iut, "code_mapped_not_listed", (double)proc_seen_code_dropped());
    cJSON *le = cJSON_AddArrayToObject(iut, "loader_environment");
    for (size_t i = 0; i < proc_seen_env_count(); i++)
        add_str_item(le, proc_seen_env_get(i));
    add_str(iut, "containment", contain_mode());
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
        cJSON_AddNullToObject(root, "emulator");
        return;
    }
    cJSON *e = cJSON_AddObjectToObject(root, "emulator");
    add_str(e, "name", name);
    if (t && t->emulated) {
        add_str(e, "cpu", t->emu_cpu);
        add_str(e, "source", "the IUT's executable");
        add_str(e, "path", t->f[0].path);
        add_str(e, "sha256", t->f[0].sha256);
        add_str(e, "version", t->emu_version);
        cJSON_AddBoolToObject(e, "is_executable", 1);
        if (a->emulator && (strcmp(a->emulator, t->emu_name) != 0 ||
                            (a->emulator_cpu && (!t->emu_cpu || strcmp(a->emulator_cpu, t->emu_cpu) != 0)))) {
            cJSON *c = cJSON_AddObjectToObject(e, "claimed_by_option");
            add_str(c, "name", a->emulator);
            add_str(c, "cpu", a->emulator_cpu);
        }
        return;
    }
    add_str(e, "cpu", a->emulator ? a->emulator_cpu : shell_cpu);
    add_str(e, "source", a->emulator ? "--emulator" : "the IUT command");
    /* named, not run by the runner: measured where PATH resolves the name */
    iut_target m;
    char err[256];
    char *av[1] = {(char *)name};
    if (iut_target_open(&m, av, 1, err, sizeof err) == 0) {
        add_str(e, "path", m.f[0].path);
        add_str(e, "sha256", m.f[0].sha256);
        add_str(e, "version", m.emu_version);
    } else {
        cJSON_AddNullToObject(e, "path");
        cJSON_AddNullToObject(e, "sha256");
        add_str(e, "version", err);
    }
    iut_target_free(&m);
    cJSON_AddBoolToObject(e, "is_executable", 0);
}

/* Design brief, "Receipts": one JSON document per run. */
int receipt_write(const run_ctx *rc, const char *path, const char *overall, const char *reached)
{
    const conform_args *a = rc->a;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "isotrain-receipt-v1");
    /* the rules this receipt is made and checked under (trust/verify_receipt.h):
     * 2 = a bound or declared-unbound subject, the ops sessions as cases,
     * the measured host fields */
    cJSON_AddNumberToObject(root, "trust_rules", RECEIPT_TRUST_RULES);
    cJSON *suite = cJSON_AddObjectToObject(root, "suite");
    cJSON_AddStringToObject(suite, "name", "isotrain-conform");
    cJSON_AddStringToObject(suite, "version", CONFORM_VERSION);
    add_str(suite, "git_revision", conform_git_revision());
    /* the kernel set of the runner's linked reference (cli/main.c: portable) */
    add_str(suite, "reference_kernels", it_kernels_name());
    cJSON_AddStringToObject(root, "started", rc->started_utc);
    /* the host-matrix host this run certifies (--host NAME, qemu/hosts.json) */
    add_str(root, "matrix_host", a->host);

    cJSON *vec = cJSON_AddObjectToObject(root, "vectors");
    add_str(vec, "dir", a->vectors);
    add_str(vec, "spec_version", rc->vs.spec_version);
    add_str(vec, "vector_version", rc->vs.vector_version);
    add_str(vec, "generator", rc->man.generator);
    add_str(vec, "manifest_digest", rc->man.digest);
    cJSON_AddNumberToObject(vec, "files", (double)rc->man.n_files);
    /* pinned in the runner (vectorset/official.c), or UNOFFICIAL */
    cJSON_AddBoolToObject(vec, "official", rc->official != NULL);
    cJSON *vp = cJSON_AddArrayToObject(vec, "profiles");
    for (size_t i = 0; i < rc->vs.n_trains; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, "profile", rc->vs.trains[i].profile);
        cJSON_AddNumberToObject(o, "steps", rc->vs.trains[i].steps);
        cJSON_AddItemToArray(vp, o);
    }

    cJSON *iut = cJSON_AddObjectToObject(root, "iut");
    add_str(iut, "command", a->iut);
    add_str(iut, "hello", rc->hello_line);
    add_str(iut, "name", rc->iut_name);
    add_str(iut, "version", rc->iut_version);
    add_str(iut, "spec", rc->iut_spec);
    /* the kernel set the IUT says ran (its hello line's kernels=, P2), or null */
    const char *kk = rc->hello_line ? strstr(rc->hello_line, " kernels=") : NULL;
    if (kk) {
        char *k = xstrndup(kk + 9, strcspn(kk + 9, " "));
        add_str(iut, "kernels", k);
        free(k);
    } else
        cJSON_AddNullToObject(iut, "kernels");
    /* hashed before the run (rc->bin_before) and again now: a binary swapped
     * while it ran shows as two digests, and verify refuses the receipt */
    iut_binary b;
    iut_binary_inspect(a->iut, &b);
    const iut_binary *b0 = &rc->bin_before;
    cJSON *bin = cJSON_AddObjectToObject(iut, "binary");
    if (rc->target) { /* the argv form: the guest under an emulator, else the program as given */
        const iut_target *t = rc->target;
        const target_file *pf = &t->f[t->guest >= 0 ? (size_t)t->guest : 0];
        add_str(bin, "word", pf->given);
        add_str(bin, "path", pf->path);
        add_str(bin, "sha256", pf->sha256);
        add_str(bin, "sha256_after", pf->sha256_after[0] ? pf->sha256_after : NULL);
    } else {
        add_str(bin, "word", b0->binary);
        add_str(bin, "path", b0->path);
        add_str(bin, "sha256", b0->sha256[0] ? b0->sha256 : NULL);
        add_str(bin, "sha256_after", b.sha256[0] ? b.sha256 : NULL);
        if (b.n_scripts) {
            cJSON *sc = cJSON_AddArrayToObject(iut, "files");
            for (size_t i = 0; i < b.n_scripts; i++) {
                cJSON *f = cJSON_CreateObject();
                add_str(f, "path", b.scripts[i]);
                add_str(f, "sha256", b.script_sha256[i]);
                cJSON_AddItemToArray(sc, f);
            }
        }
    }
    subject_json(iut, rc);
    processes_json(iut, rc);
    cJSON *self = cJSON_AddObjectToObject(iut, "self_report");
    add_str(self, "command", "info");
    add_str(self, "status", rc->info_status);
    cJSON *vals = cJSON_AddObjectToObject(self, "values");
    for (size_t i = 0; i < rc->n_info; i++)
        add_str(vals, rc->info[i].key, rc->info[i].val);

    hostinfo h;
    hostinfo_collect(&h);
    cJSON *host = cJSON_AddObjectToObject(root, "host");
    add_str(host, "isa", h.isa);
    add_str(host, "endianness", h.endianness);
    add_str(host, "cpu_model", h.cpu_model);
    add_str(host, "cpu_flags", h.cpu_flags);
    add_str(host, "os", h.os);
    add_str(host, "libc", h.libc);
    add_str(host, "runner_compiler", h.compiler);
    add_str(host, "runner_cflags", h.cflags);
    hostinfo_free(&h);
    emulator_json(root, rc, b.emulator, b.emulator_cpu);
    /* stderr warnings of hello/info: an emulator's, such as QEMU's
     * "TCG doesn't support requested feature" */
    cJSON *ew = cJSON_AddArrayToObject(root, "emulator_warnings");
    for (size_t i = 0; i < rc->n_emu_warnings; i++)
        add_str_item(ew, rc->emu_warnings[i]);
    iut_binary_free(&b);

    cJSON *opt = cJSON_AddObjectToObject(root, "options");
    add_str(opt, "level", a->level);
    add_str(opt, "profile", a->profile);
    cJSON *fl = cJSON_AddArrayToObject(opt, "filters");
    for (size_t i = 0; i < a->n_filters; i++)
        cJSON_AddItemToArray(fl, cJSON_CreateString(a->filters[i]));
    cJSON_AddBoolToObject(opt, "exhaustive", a->exhaustive);
    /* the run seed as a decimal string: a JSON number cannot hold every u64 */
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)rc->run_seed);
    cJSON_AddStringToObject(opt, "seed", seed);
    cJSON_AddBoolToObject(opt, "seed_given", a->seed_given);
    cJSON_AddBoolToObject(opt, "fresh_only", a->fresh_only);
    cJSON_AddNumberToObject(opt, "timeout_case", a->timeout_case);
    cJSON_AddNumberToObject(opt, "timeout_run", a->timeout_run);
    cJSON_AddNumberToObject(opt, "slowdown", a->slowdown);
    /* the training runs' deadlines (levels/time_budget.h): --timeout-run as
     * given, or calibrated on the linked reference's step time measured here */
    cJSON_AddBoolToObject(opt, "timeout_run_given", a->timeout_run_given);
    cJSON *cal = cJSON_AddObjectToObject(opt, "timeout_calibration");
    cJSON_AddNumberToObject(cal, "factor", TB_FACTOR);
    cJSON *steps_s = cJSON_AddObjectToObject(cal, "reference_step_seconds");
    for (size_t i = 0; i < rc->n_costs; i++)
        if (rc->costs[i].step_s >= 0)
            cJSON_AddNumberToObject(steps_s, rc->costs[i].profile, rc->costs[i].step_s);
    if (a->steps >= 0)
        cJSON_AddNumberToObject(opt, "steps", (double)a->steps);

    cJSON *levels = cJSON_AddObjectToObject(root, "levels");
    cJSON *lo = level_json(rc->lv_ops, rc->t_ops, rc->ops_note);
    if (rc->ops_ran) {
        cJSON *pr = cJSON_AddObjectToObject(lo, "process");
        add_str(pr, "status", rc->ops_sum.status);
        add_str(pr, "stderr_tail", rc->ops_sum.stderr_tail);
    }
    cJSON_AddItemToObject(levels, "ops", lo);
    cJSON *lt = level_json(rc->lv_train, rc->t_train, rc->train_note);
    cJSON *profs = cJSON_AddArrayToObject(lt, "profiles");
    for (size_t i = 0; i < rc->n_trains; i++) {
        const train_report *t = &rc->trains[i];
        cJSON *p = cJSON_CreateObject();
        add_str(p, "profile", t->profile);
        cJSON_AddNumberToObject(p, "steps", t->steps_requested);
        cJSON_AddNumberToObject(p, "steps_in_vectors", t->steps_in_vectors);
        add_str(p, "status", t->status);
        add_str(p, "failure", t->failure);
        add_str(p, "problem", t->problem);
        cJSON_AddNumberToObject(p, "seconds", t->seconds);
        add_str(p, "stderr_tail", t->stderr_tail);
        add_str(p, "stdout_tail", t->stdout_tail);
        if (t->first_bad_step >= 0)
            cJSON_AddNumberToObject(p, "first_differing_step", t->first_bad_step);
        if (t->loc_json)
            cJSON_AddItemToObject(p, "localization", cJSON_Duplicate(t->loc_json, 1));
        add_str(p, "localization_text", t->loc_text.len ? t->loc_text.p : NULL);
        cJSON *st = cJSON_AddArrayToObject(p, "trace");
        for (size_t k = 0; k < t->n_steps_seen; k++)
            cJSON_AddItemToArray(st, step_json((uint32_t)k, t->steps_seen[k].reached, t->steps_seen[k].has_loss,
                                               t->steps_seen[k].loss, t->steps_seen[k].sha256));
        /* the vectors' checkpoint steps as this run produced them */
        cJSON *cks = cJSON_AddArrayToObject(p, "checkpoints");
        for (size_t k = 0; k < t->n_ck; k++) {
            const struct ck_seen *cs = &t->ck[k];
            cJSON *c = cJSON_CreateObject();
            cJSON_AddNumberToObject(c, "step", cs->step);
            cJSON_AddBoolToObject(c, "reached", cs->reached);
            if (cs->has_loss) {
                char lb[16];
                snprintf(lb, sizeof lb, "0x%08x", (unsigned)cs->loss);
                cJSON_AddStringToObject(c, "loss", lb);
            } else
                cJSON_AddNullToObject(c, "loss");
            add_str(c, "sha256", cs->sha256[0] ? cs->sha256 : NULL);
            cJSON_AddBoolToObject(c, "matches_vectors", cs->same);
            cJSON_AddItemToArray(cks, c);
        }
        cJSON_AddItemToArray(profs, p);
    }
    cJSON_AddItemToObject(levels, "train", lt);
    cJSON *lf = level_json(rc->lv_fresh, rc->t_fresh, rc->fresh_note);
    cJSON_AddNumberToObject(lf, "op_cases", (double)rc->n_fresh_ops);
    cJSON_AddBoolToObject(lf, "train_seed_advertised", rc->train_seed);
    if (rc->fresh_train_ran) {
        cJSON *ft = cJSON_AddObjectToObject(lf, "training");
        cJSON_AddStringToObject(ft, "profile", "mlp13k");
        cJSON_AddStringToObject(ft, "seed", seed);
        cJSON_AddNumberToObject(ft, "steps", (double)(rc->n_fresh_steps - 1));
        cJSON *tr = cJSON_AddArrayToObject(ft, "trace");
        for (size_t k = 0; k < rc->n_fresh_steps; k++) {
            const struct fresh_step *f = &rc->fresh_steps[k];
            cJSON_AddItemToArray(tr, step_json(f->step, f->reached, f->has_loss, f->loss, f->sha256));
        }
    }
    cJSON_AddItemToObject(levels, "fresh", lf);
    if (contain_interrupted())
        cJSON_AddNumberToObject(root, "interrupted_by_signal", contain_interrupted());
    else
        cJSON_AddNullToObject(root, "interrupted_by_signal");
    cJSON_AddStringToObject(root, "verdict", overall);
    cJSON_AddNumberToObject(root, "exit_code", rc->verdict.exit_code);
    cJSON *sc = cJSON_AddObjectToObject(root, "scope");
    cJSON_AddBoolToObject(sc, "full_certification", !strcmp(overall, "PASS"));
    cJSON *rs = cJSON_AddArrayToObject(sc, "reasons");
    for (size_t i = 0; i < rc->verdict.n_reasons; i++)
        add_str_item(rs, rc->verdict.reasons[i]);
    cJSON_AddStringToObject(root, "level_reached", reached);
    cJSON *lr = cJSON_AddObjectToObject(root, "levels_reached"); /* per profile */
    for (size_t i = 0; i < rc->n_reached; i++)
        add_str(lr, rc->reached[i].profile, rc->reached[i].level);
    /* spec §12.1: judged by (and, for a PASS, certified against) the lower
     * of the IUT's claim and the vector set's version, as MAJOR.MINOR */
    cJSON *sp = cJSON_AddObjectToObject(root, "spec");
    add_str(sp, "certified", rc->req.iut_known ? rc->req.certified_text : NULL);
    add_str(sp, "iut", rc->iut_spec);
    add_str(sp, "vectors", rc->vs.spec_version);
    tally t = results_tally(&rc->res, NULL);
    cJSON *cnt = cJSON_AddObjectToObject(root, "counts");
    cJSON_AddNumberToObject(cnt, "passed", (double)t.passed);
    cJSON_AddNumberToObject(cnt, "failed", (double)t.failed);
    cJSON_AddNumberToObject(cnt, "errors", (double)t.errors);
    cJSON_AddNumberToObject(cnt, "skipped", (double)t.skipped);
    cJSON *cases = cJSON_AddArrayToObject(root, "cases");
    for (size_t i = 0; i < rc->res.n; i++) {
        const case_result *c = &rc->res.c[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "id", c->id);
        add_str(o, "level", c->level);
        add_str(o, "suite", c->suite);
        cJSON_AddStringToObject(o, "verdict", verdict_name(c->v));
        if (c->reason)
            add_str(o, "reason", c->reason);
        cJSON_AddBoolToObject(o, "required", c->required);
        cJSON_AddNumberToObject(o, "seconds", c->seconds);
        cJSON_AddItemToArray(cases, o);
    }
    cJSON *w = cJSON_AddArrayToObject(root, "warnings");
    for (size_t i = 0; i < rc->n_warnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(rc->warnings[i]));
    cJSON *tm = cJSON_AddObjectToObject(root, "timings");
    cJSON_AddNumberToObject(tm, "manifest", rc->t_manifest);
    cJSON_AddNumberToObject(tm, "load", rc->t_load);
    cJSON_AddNumberToObject(tm, "hello", rc->t_hello);
    cJSON_AddNumberToObject(tm, "ops", rc->t_ops);
    cJSON_AddNumberToObject(tm, "train", rc->t_train);
    cJSON_AddNumberToObject(tm, "fresh", rc->t_fresh);
    cJSON_AddNumberToObject(tm, "total", now_s() - rc->t_start);

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
    char *text = dsse_envelope(st, a->sign_key, err, sizeof err);
    cJSON_Delete(st);
    if (!text) {
        fprintf(stderr, "isotrain-conform: cannot write the receipt: %s\n", err);
        return -1;
    }
    sbuf b2;
    sbuf_init(&b2);
    sbuf_adds(&b2, text);
    sbuf_addc(&b2, '\n');
    free(text);
    int r = write_file(path, b2.p, b2.len, err, sizeof err);
    sbuf_free(&b2);
    if (r != 0)
        fprintf(stderr, "isotrain-conform: receipt: %s\n", err);
    return r;
}
