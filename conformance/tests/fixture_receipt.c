/* fixture_receipt.c — full, verifiable receipts for the matrix tests
 * (testutil.h tu_full_receipt): built from the real vector set and the
 * linked reference, the way `run` builds them, so the matrix's verification
 * gate has something true to check. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/results.h"
#include "core/util.h"
#include "fresh/fresh.h"
#include "isotrain.h"
#include "trust/dsse.h"
#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"
#include "verdict/scope.h"

enum { FRESH_STEPS = 20 };

static void add_case(cJSON *cases, results *res, const char *level, const char *suite, const char *id, verdict v,
                     const char *reason)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "level", level);
    cJSON_AddStringToObject(o, "suite", suite);
    cJSON_AddStringToObject(o, "verdict", verdict_name(v));
    if (reason)
        cJSON_AddStringToObject(o, "reason", reason);
    cJSON_AddBoolToObject(o, "required", 1);
    cJSON_AddNumberToObject(o, "seconds", 0);
    cJSON_AddItemToArray(cases, o);
    results_add(res, level, suite, id, v, reason, 1, 0);
}

static cJSON *step(uint32_t s, int has_loss, uint32_t loss, const char *sha)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", s);
    cJSON_AddBoolToObject(o, "reached", 1);
    if (has_loss) {
        char lb[16];
        snprintf(lb, sizeof lb, "0x%08x", (unsigned)loss);
        cJSON_AddStringToObject(o, "loss", lb);
    } else
        cJSON_AddNullToObject(o, "loss");
    cJSON_AddStringToObject(o, "sha256", sha);
    return o;
}

/* The argv form's subject as `run --iut-exec` records it (report/receipt.c):
 * the executable (an emulator, whose guest is the IUT's program, or the
 * program itself) and what ran in its tree. */
void tu_receipt_subject(cJSON *r, const char *emu, const char *cpu, const char *isa)
{
    static const char *const ex = "2222222222222222222222222222222222222222222222222222222222222222";
    static const char *const prog = "1111111111111111111111111111111111111111111111111111111111111111";
    cJSON *iut = cJSON_GetObjectItem(r, "iut");
    cJSON_DeleteItemFromObject(iut, "subject");
    cJSON_DeleteItemFromObject(iut, "processes_seen");
    cJSON *sj = cJSON_AddObjectToObject(iut, "subject");
    cJSON_AddStringToObject(sj, "form", "argv");
    cJSON_AddBoolToObject(sj, "bound", 1);
    cJSON *files = cJSON_AddArrayToObject(sj, "files");
    cJSON *ps = cJSON_AddArrayToObject(iut, "processes_seen");
    typedef struct {
        const char *role, *path, *sha, *isa;
        int executed;
    } fx_file;
    fx_file fs[2] = {{"executable", "/work/build/isotrain", prog, isa, 1}, {NULL, NULL, NULL, NULL, 0}};
    if (emu) {
        fs[0] = (fx_file){"executable", "/usr/bin/qemu", ex, "x86_64", 1};
        fs[1] = (fx_file){"guest", "/work/build/isotrain", prog, isa, 0};
    }
    for (int i = 0; i < 2 && fs[i].role; i++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "role", fs[i].role);
        cJSON_AddStringToObject(f, "path", fs[i].path);
        cJSON_AddStringToObject(f, "sha256", fs[i].sha);
        cJSON_AddStringToObject(f, "sha256_after", fs[i].sha);
        cJSON_AddStringToObject(f, "format", "ELF");
        cJSON_AddStringToObject(f, "isa", fs[i].isa);
        cJSON_AddBoolToObject(f, "executed", fs[i].executed);
        cJSON_AddItemToArray(files, f);
    }
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "path", fs[0].path);
    cJSON_AddStringToObject(p, "sha256", fs[0].sha);
    cJSON_AddStringToObject(p, "format", "ELF");
    cJSON_AddStringToObject(p, "isa", fs[0].isa);
    cJSON_AddBoolToObject(p, "is_subject", 1);
    cJSON_AddItemToArray(ps, p);
    cJSON *bin = cJSON_GetObjectItem(iut, "binary");
    cJSON_ReplaceItemInObject(bin, "sha256", cJSON_CreateString(prog));
    cJSON_ReplaceItemInObject(bin, "sha256_after", cJSON_CreateString(prog));
    if (emu) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", emu);
        cJSON_AddStringToObject(e, "cpu", cpu);
        cJSON_AddStringToObject(e, "source", "the IUT's executable");
        cJSON_AddStringToObject(e, "path", "/usr/bin/qemu");
        cJSON_AddStringToObject(e, "sha256", ex);
        cJSON_AddStringToObject(e, "version", "qemu version 7.2");
        cJSON_AddBoolToObject(e, "is_executable", 1);
        cJSON_ReplaceItemInObject(r, "emulator", e);
    } else
        cJSON_ReplaceItemInObject(r, "emulator", cJSON_CreateNull());
    /* the runner runs on the program's ISA unless an emulator stands between */
    cJSON *host = cJSON_GetObjectItem(r, "host");
    if (host)
        cJSON_ReplaceItemInObject(host, "isa", cJSON_CreateString(emu ? "x86_64" : isa));
}

cJSON *tu_full_receipt(const char *host, int pass, int first_diff, const char *dx)
{
    const char *vdir = tu_env("IT_VECTORS");
    problems pr;
    problems_init(&pr);
    manifest_info m;
    vector_set vs;
    cr_assert(manifest_verify(vdir, &m, &pr) == 0 && vectors_load(vdir, &m, &vs, &pr) == 0, "%s",
              pr.n ? pr.items[0] : "?");
    const train_vec *tv = vectors_train(&vs, "mlp13k");
    cr_assert(tv);
    results res;
    results_init(&res);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "schema", "isotrain-receipt-v1");
    cJSON_AddNumberToObject(r, "trust_rules", 2);
    cJSON_AddStringToObject(r, "matrix_host", host);
    cJSON *vec = cJSON_AddObjectToObject(r, "vectors");
    cJSON_AddStringToObject(vec, "vector_version", vs.vector_version);
    cJSON_AddStringToObject(vec, "manifest_digest", m.digest);
    cJSON_AddBoolToObject(vec, "official", 1);
    cJSON *vp = cJSON_AddArrayToObject(vec, "profiles");
    cJSON *po = cJSON_CreateObject();
    cJSON_AddStringToObject(po, "profile", "mlp13k");
    cJSON_AddNumberToObject(po, "steps", tv->steps);
    cJSON_AddItemToArray(vp, po);
    cJSON *iut = cJSON_AddObjectToObject(r, "iut");
    cJSON_AddStringToObject(iut, "command", "x");
    cJSON *bin = cJSON_AddObjectToObject(iut, "binary");
    cJSON_AddStringToObject(bin, "sha256", "1111111111111111111111111111111111111111111111111111111111111111");
    cJSON_AddStringToObject(bin, "sha256_after", "1111111111111111111111111111111111111111111111111111111111111111");
    cJSON *self = cJSON_AddObjectToObject(iut, "self_report");
    cJSON_AddStringToObject(self, "command", "info");
    cJSON_AddStringToObject(self, "status", "ok");
    cJSON_AddObjectToObject(self, "values");
    cJSON_AddStringToObject(iut, "containment", "pid-namespace");
    cJSON_AddNullToObject(r, "emulator");
    cJSON_AddArrayToObject(r, "emulator_warnings");
    cJSON *hs = cJSON_AddObjectToObject(r, "host");
    cJSON_AddStringToObject(hs, "isa", "x86_64");
    tu_receipt_subject(r, NULL, NULL, "x86_64");
    cJSON_AddNullToObject(r, "interrupted_by_signal");
    cJSON *opt = cJSON_AddObjectToObject(r, "options");
    cJSON_AddStringToObject(opt, "level", "all");
    cJSON_AddNullToObject(opt, "profile");
    cJSON_AddArrayToObject(opt, "filters");
    cJSON_AddStringToObject(opt, "seed", "1");
    cJSON_AddBoolToObject(opt, "seed_given", 0);
    cJSON_AddBoolToObject(opt, "fresh_only", 0);

    cJSON *cases = cJSON_CreateArray();
    add_case(cases, &res, "protocol", "protocol", "hello", V_PASS, NULL);
    for (size_t g = 0; g < vs.n_groups; g++) {
        char suite[96];
        snprintf(suite, sizeof suite, "ops/%s", vs.groups[g].group);
        for (size_t i = 0; i < vs.groups[g].n_cases; i++)
            add_case(cases, &res, "ops", suite, vs.groups[g].cases[i].id, V_PASS, NULL);
    }
    add_case(cases, &res, "protocol", "protocol", OPS_SESSION_CASE, V_PASS, NULL);
    cJSON *levels = cJSON_AddObjectToObject(r, "levels");
    cJSON *lo = cJSON_AddObjectToObject(levels, "ops");
    cJSON_AddStringToObject(lo, "verdict", "PASS");
    cJSON *lt = cJSON_AddObjectToObject(levels, "train");
    cJSON_AddStringToObject(lt, "verdict", pass ? "PASS" : "FAIL");
    cJSON *profs = cJSON_AddArrayToObject(lt, "profiles");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(profs, p);
    cJSON_AddStringToObject(p, "profile", "mlp13k");
    cJSON_AddNullToObject(p, "problem");
    if (first_diff >= 0)
        cJSON_AddNumberToObject(p, "first_differing_step", first_diff);
    add_case(cases, &res, "train", "train/mlp13k", "mlp13k/run", V_PASS, NULL);
    cJSON *trace = cJSON_AddArrayToObject(p, "trace");
    for (uint32_t s = 0; s <= tv->steps; s++) {
        int bad = first_diff >= 0 && s >= (uint32_t)first_diff;
        char id[32];
        snprintf(id, sizeof id, "mlp13k/%u", (unsigned)s);
        add_case(cases, &res, "train", "train/mlp13k", id, bad ? V_FAIL : V_PASS, bad ? "parameters differ" : NULL);
        cJSON_AddItemToArray(trace, step(s, s > 0, tv->trace[s].loss, bad ? dx : tv->trace[s].digest));
    }
    cJSON *cks = cJSON_AddArrayToObject(p, "checkpoints");
    for (size_t i = 0; i < tv->n_ck; i++) {
        uint32_t s = tv->ck_steps[i];
        int bad = first_diff >= 0 && s >= (uint32_t)first_diff;
        cJSON *c = step(s, s > 0, tv->trace[s].loss, bad ? dx : tv->trace[s].digest);
        cJSON_AddBoolToObject(c, "matches_vectors", !bad);
        cJSON_AddItemToArray(cks, c);
    }
    /* fresh: what seed 1 draws, and the reference's run under seed 1 */
    fresh_list l;
    memset(&l, 0, sizeof l);
    for (size_t g = 0; g < vs.n_groups; g++) {
        const char *why;
        fresh_ops_generate(&l, vs.groups[g].group, 1, &why);
    }
    for (size_t i = 0; i < l.n; i++) {
        char suite[96];
        snprintf(suite, sizeof suite, "fresh/ops/%.*s", (int)strcspn(l.c[i].id + 6, "/"), l.c[i].id + 6);
        add_case(cases, &res, "fresh", suite, l.c[i].id, V_PASS, NULL);
    }
    fresh_list_free(&l);
    add_case(cases, &res, "protocol", "protocol", FRESH_OPS_SESSION_CASE, V_PASS, NULL);
    cJSON *lf = cJSON_AddObjectToObject(levels, "fresh");
    cJSON_AddStringToObject(lf, "verdict", "PASS");
    cJSON *ft = cJSON_AddObjectToObject(lf, "training");
    cJSON_AddStringToObject(ft, "profile", "mlp13k");
    cJSON_AddStringToObject(ft, "seed", "1");
    cJSON_AddNumberToObject(ft, "steps", FRESH_STEPS);
    cJSON *ftr = cJSON_AddArrayToObject(ft, "trace");
    add_case(cases, &res, "fresh", "fresh/train/mlp13k", "fresh/mlp13k/run", V_PASS, NULL);
    it_mlp13k_recipe rec = it_mlp13k_default_recipe();
    rec.seed = 1;
    it_mlp13k_state *st = malloc(sizeof *st);
    it_mlp13k_start(&rec, st);
    for (uint32_t s = 0; s <= FRESH_STEPS; s++) {
        if (s > 0)
            cr_assert(it_mlp13k_step(&rec, st) == IT_OK);
        char hex[65], id[32];
        it_params_digest(st->params, IT_MLP13K_NPARAMS, hex);
        snprintf(id, sizeof id, "fresh/mlp13k/%u", (unsigned)s);
        add_case(cases, &res, "fresh", "fresh/train/mlp13k", id, V_PASS, NULL);
        cJSON_AddItemToArray(ftr, step(s, s > 0, it_f32_bits(st->last_loss), hex));
    }
    free(st);

    scope_facts f;
    memset(&f, 0, sizeof f);
    f.hello_ok = 1;
    f.level = "all";
    f.steps = -1;
    f.set_steps = tv->steps;
    f.official = 1;
    f.manifest_digest = m.digest;
    scope_facts_from_results(&f, &res);
    run_verdict v;
    scope_verdict(&f, &v);
    cJSON_AddStringToObject(r, "verdict", v.word);
    cJSON_AddNumberToObject(r, "exit_code", v.exit_code);
    cJSON *sc = cJSON_AddObjectToObject(r, "scope");
    cJSON_AddBoolToObject(sc, "full_certification", !strcmp(v.word, "PASS"));
    cJSON *rs = cJSON_AddArrayToObject(sc, "reasons");
    for (size_t i = 0; i < v.n_reasons; i++)
        cJSON_AddItemToArray(rs, cJSON_CreateString(v.reasons[i]));
    run_verdict_free(&v);
    cJSON_AddStringToObject(r, "level_reached", pass ? "train" : "ops");
    tally t = results_tally(&res, NULL);
    cJSON *cnt = cJSON_AddObjectToObject(r, "counts");
    cJSON_AddNumberToObject(cnt, "passed", (double)t.passed);
    cJSON_AddNumberToObject(cnt, "failed", (double)t.failed);
    cJSON_AddNumberToObject(cnt, "errors", (double)t.errors);
    cJSON_AddNumberToObject(cnt, "skipped", (double)t.skipped);
    cJSON_AddItemToObject(r, "cases", cases);
    cJSON *tm = cJSON_AddObjectToObject(r, "timings");
    cJSON_AddNumberToObject(tm, "total", 12.5);
    results_free(&res);
    vectors_free(&vs);
    manifest_free(&m);
    problems_free(&pr);
    return r;
}

void tu_write_envelope(const char *path, const char *receipt_text)
{
    cJSON *r = cJSON_Parse(receipt_text);
    cr_assert(r, "the receipt text is not JSON");
    cJSON *st = intoto_statement(r);
    char err[256];
    char *env = dsse_envelope(st, NULL, err, sizeof err);
    cr_assert(env, "%s", err);
    cr_assert(write_file(path, env, strlen(env), err, sizeof err) == 0, "%s", err);
    free(env);
    cJSON_Delete(st);
    cJSON_Delete(r);
}

void tu_write_receipt(const char *path, const cJSON *receipt)
{
    char *text = cJSON_PrintUnformatted(receipt);
    cr_assert(text);
    tu_write_envelope(path, text);
    free(text);
}

cJSON *tu_host_receipt(const char *host, int pass, int first_diff, const char *dx, const char *emu, const char *cpu,
                       const char *isa, const char *features)
{
    cJSON *r = tu_full_receipt(host, pass, first_diff, dx);
    cJSON *vals = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "iut"), "self_report"), "values");
    cJSON_AddStringToObject(vals, "isa", isa);
    cJSON_AddStringToObject(vals, "endianness", "little");
    cJSON_AddStringToObject(vals, "cpu_model", "Some CPU");
    cJSON_AddStringToObject(vals, "cpu_features", features);
    tu_receipt_subject(r, emu, cpu, isa);
    return r;
}

void tu_put_receipt(const char *dir, const char *name, const cJSON *receipt)
{
    char *p = tu_at(dir, name);
    make_parent_dirs(p);
    tu_write_receipt(p, receipt);
    free(p);
}
