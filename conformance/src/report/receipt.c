/* receipt.c — the JSON receipt: bound to the vector set's manifest digest,
 * the IUT (command, binary digest, self-report), the host, every case's
 * verdict, timings and the suite's own version (design brief, "Receipts"). */
#include "report/receipt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hostinfo.h"
#include "core/version.h"

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

/* Design brief, "Receipts": one JSON document per run. */
int receipt_write(const run_ctx *rc, const char *path, const char *overall, const char *reached)
{
    const conform_args *a = rc->a;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "isotrain-receipt-v1");
    cJSON *suite = cJSON_AddObjectToObject(root, "suite");
    cJSON_AddStringToObject(suite, "name", "isotrain-conform");
    cJSON_AddStringToObject(suite, "version", CONFORM_VERSION);
    add_str(suite, "git_revision", conform_git_revision());
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

    cJSON *iut = cJSON_AddObjectToObject(root, "iut");
    add_str(iut, "command", a->iut);
    add_str(iut, "hello", rc->hello_line);
    add_str(iut, "name", rc->iut_name);
    add_str(iut, "version", rc->iut_version);
    add_str(iut, "spec", rc->iut_spec);
    iut_binary b;
    iut_binary_inspect(a->iut, &b);
    cJSON *bin = cJSON_AddObjectToObject(iut, "binary");
    add_str(bin, "word", b.binary);
    add_str(bin, "path", b.path);
    add_str(bin, "sha256", b.sha256[0] ? b.sha256 : NULL);
    if (b.n_scripts) {
        cJSON *sc = cJSON_AddArrayToObject(iut, "files");
        for (size_t i = 0; i < b.n_scripts; i++) {
            cJSON *f = cJSON_CreateObject();
            add_str(f, "path", b.scripts[i]);
            add_str(f, "sha256", b.script_sha256[i]);
            cJSON_AddItemToArray(sc, f);
        }
    }
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
    const char *emu = a->emulator ? a->emulator : b.emulator;
    const char *emu_cpu = a->emulator ? a->emulator_cpu : b.emulator_cpu;
    if (emu) {
        cJSON *e = cJSON_AddObjectToObject(root, "emulator");
        add_str(e, "name", emu);
        add_str(e, "cpu", emu_cpu);
        add_str(e, "source", a->emulator ? "--emulator" : "the IUT command");
    } else
        cJSON_AddNullToObject(root, "emulator");
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
    cJSON_AddNumberToObject(opt, "timeout_case", a->timeout_case);
    cJSON_AddNumberToObject(opt, "timeout_run", a->timeout_run);
    cJSON_AddNumberToObject(opt, "slowdown", a->slowdown);
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
    cJSON_AddStringToObject(root, "verdict", overall);
    cJSON_AddStringToObject(root, "level_reached", reached);
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
        add_str(o, "suite", c->suite);
        cJSON_AddStringToObject(o, "verdict", verdict_name(c->v));
        if (c->reason)
            add_str(o, "reason", c->reason);
        if (c->v == V_SKIP)
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
    cJSON_AddNumberToObject(tm, "total", now_s() - rc->t_start);

    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "isotrain-conform: cannot render the receipt\n");
        return -1;
    }
    sbuf b2;
    sbuf_init(&b2);
    sbuf_adds(&b2, text);
    sbuf_addc(&b2, '\n');
    free(text);
    char err[512];
    int r = write_file(path, b2.p, b2.len, err, sizeof err);
    sbuf_free(&b2);
    if (r != 0)
        fprintf(stderr, "isotrain-conform: receipt: %s\n", err);
    return r;
}
