/* The one receipt model (issue 29 item 1): the field table
 * (trust/receipt_fields.c) read strictly by receipt_open, the published
 * JSON Schema generated from it, every published receipt read through it,
 * and each refusal class of the strict reader with its negative control. */
#include <cjson/cJSON.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "core/util.h"
#include "trust/receipt_open.h"
#include "trust/receipt_record.h"
#include "trust/receipt_schema.h"

TU_DIR_SUITE(receipt_model, 0, .timeout = 120);

#define PUBLISHED "vectors/v1.2.0/receipts/x86_64-native.json"

/* The published receipt as bare, compact JSON text (read strictly). */
static char *published_text(void)
{
    problems pr;
    problems_init(&pr);
    cJSON *r = receipt_open(PUBLISHED, NULL, &pr);
    cr_assert(r, "%s: %s", PUBLISHED, pr.n ? pr.items[0] : "?");
    char *t = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    problems_free(&pr);
    return t;
}

/* Writes text to dir/name and reads it with the strict reader; returns the
 * problems joined (empty when it reads). */
static char *read_back(const char *name, const char *text)
{
    char *p = xasprintf("%s/%s", dir, name), err[256];
    cr_assert(write_file(p, text, strlen(text), err, sizeof err) == 0, "%s", err);
    problems pr;
    problems_init(&pr);
    cJSON *r = receipt_open(p, NULL, &pr);
    sbuf b;
    sbuf_init(&b);
    for (size_t i = 0; i < pr.n; i++)
        sbuf_printf(&b, "%s\n", pr.items[i]);
    cr_assert_eq(r == NULL, pr.n > 0, "%s: read %s with %zu problems", name, r ? "" : "nothing", pr.n);
    cJSON_Delete(r);
    problems_free(&pr);
    free(p);
    sbuf_addc(&b, '\0');
    return sbuf_take(&b);
}

/* text with the first `from` replaced by `to` */
static char *edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert(at, "no %s in the receipt", from);
    return xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

Test(receipt_model, every_published_receipt_reads_strictly)
{
    glob_t g;
    cr_assert(glob("vectors/*/receipts/*.json", 0, NULL, &g) == 0);
    cr_assert_geq(g.gl_pathc, 39u);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        problems pr;
        problems_init(&pr);
        int enveloped = 0;
        cJSON *r = receipt_open(g.gl_pathv[i], &enveloped, &pr);
        cr_assert(r, "%s: %s", g.gl_pathv[i], pr.n ? pr.items[0] : "?");
        cr_assert(enveloped, "%s: not read as an envelope", g.gl_pathv[i]);
        cJSON_Delete(r);
        problems_free(&pr);
    }
    globfree(&g);
}

Test(receipt_model, the_published_schema_is_the_tables)
{
    cJSON *s = receipt_schema_json();
    char *now = cJSON_Print(s), *file = tu_read("spec/receipt.schema.json");
    char *want = xasprintf("%s\n", now);
    cr_assert_str_eq(file, want, "spec/receipt.schema.json is not `isotrain-conform receipt --schema` (regenerate it)");
    /* closed at the root and where the table says so; steps whole */
    tu_assert_has(now, "\"additionalProperties\":\tfalse");
    cJSON *steps = cJSON_GetObjectItemCaseSensitive(s, "properties");
    cr_assert(cJSON_GetObjectItemCaseSensitive(steps, "cases"));
    cJSON_Delete(s);
    free(now), free(file), free(want);
    tu_result x = tu_conform("receipt", "--schema", NULL);
    cr_assert_eq(x.code, 0);
    tu_result_free(&x);
}

Test(receipt_model, the_control_reads)
{
    char *t = published_text(), *why = read_back("control.json", t);
    cr_assert_str_eq(why, "", "the unmodified receipt is refused:\n%s", why);
    free(why), free(t);
}

Test(receipt_model, a_duplicate_key_is_refused)
{
    char *t = published_text(), *bad = edited(t, "{\"schema\":", "{\"verdict\":\"PASS\",\"schema\":");
    /* the published verdict is PASS too: only the repetition is wrong */
    char *why = read_back("dup.json", bad);
    tu_assert_has(why, "key \"verdict\" appears more than once");
    free(why), free(bad), free(t);
}

Test(receipt_model, an_unknown_field_is_refused)
{
    char *t = published_text(), *bad = edited(t, "\"iut\":{", "\"iut\":{\"extra\":1,");
    char *why = read_back("unknown.json", bad);
    tu_assert_has(why, "iut.extra: unknown field");
    free(why), free(bad), free(t);
}

Test(receipt_model, the_open_object_takes_any_member)
{
    char *t = published_text();
    char *open = edited(t, "\"localization_text\":", "\"localization\":{\"anything\":1},\"localization_text\":");
    char *why = read_back("open.json", open);
    cr_assert_str_eq(why, "", "%s", why);
    free(why), free(open), free(t);
}

Test(receipt_model, a_nul_escape_is_refused)
{
    char *t = published_text(), *bad = edited(t, "\"verdict\":\"PASS\"", "\"verdict\":\"PASS\\u0000x\"");
    char *why = read_back("nul.json", bad);
    tu_assert_has(why, "\\u0000");
    free(why), free(bad), free(t);
}

Test(receipt_model, trailing_data_is_refused)
{
    char *t = published_text(), *bad = xasprintf("%s {}", t);
    char *why = read_back("trailing.json", bad);
    cr_assert_neq(why[0], '\0', "trailing data read");
    free(why), free(bad), free(t);
}

Test(receipt_model, steps_must_be_whole_and_in_range)
{
    static const char *const values[] = {"0.5", "9223372036854775808", "-1e300", "4294967296"};
    char *t = published_text();
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char *to = xasprintf("\"steps_in_vectors\":300,\"status\"");
        char *from = xasprintf("\"steps\":300,\"steps_in_vectors\":300,\"status\"");
        char *to2 = xasprintf("\"steps\":%s,%s", values[i], to);
        char *bad = edited(t, from, to2), *why = read_back("steps.json", bad);
        tu_assert_has(why, "levels.train.profiles[0].steps: expected a whole number in [0, 4294967295]");
        free(why), free(bad), free(to), free(from), free(to2);
    }
    /* the control: a whole number in range reads */
    char *ok = edited(t, "\"steps\":300,\"steps_in_vectors\"", "\"steps\":299,\"steps_in_vectors\""),
         *why = read_back("steps-ok.json", ok);
    cr_assert_str_eq(why, "", "%s", why);
    free(why), free(ok), free(t);
}

Test(receipt_model, the_writer_check_names_a_missing_field)
{
    char *t = published_text();
    cJSON *r = cJSON_Parse(t);
    cJSON_DeleteItemFromObject(r, "counts");
    problems pr;
    problems_init(&pr);
    cr_assert_eq(receipt_schema_check("w", r, RS_CHECK_PRESENCE, &pr, 40), -1);
    cr_assert_eq(pr.n, 1);
    tu_assert_has(pr.items[0], "counts: missing");
    problems_free(&pr);
    /* verify's reading leaves presence to the check that needs the field */
    cr_assert_eq(receipt_schema_check("w", r, 0, &pr, 40), 0);
    cJSON_Delete(r);
    free(t);
}

Test(receipt_model, receipt_json_prints_what_the_reader_read)
{
    tu_result x = tu_conform("receipt", "--json", PUBLISHED, NULL);
    cr_assert_eq(x.code, 0, "%s", x.err);
    cJSON *r = cJSON_Parse(x.out);
    cr_assert(r);
    char *a = cJSON_PrintUnformatted(r), *b = published_text();
    cr_assert_str_eq(a, b);
    free(a), free(b);
    cJSON_Delete(r);
    tu_result_free(&x);
    /* and refuses, exit 1, what the reader refuses */
    char *p = xasprintf("%s/t.json", dir), err[128];
    cr_assert(write_file(p, "{\"schema\":\"isotrain-receipt-v1\"} x", 34, err, sizeof err) == 0);
    x = tu_conform("receipt", "--json", p, NULL);
    cr_assert_eq(x.code, 1);
    tu_result_free(&x);
    free(p);
}

/* One derivation of "bound" (trust/receipt_facts.h receipt_facts_binding):
 * the published Wine receipts ran wine64, wineserver64 and dash beside the
 * subject, which verify calls NOT FULLY BOUND; the matrix's subject column
 * and the page say the same. The control: the native receipt is bound in
 * all three, and the page adds no subject line for it. */
/* receipt: a published one, vectors/SET/receipts/HOST.json, read against SET */
static void three_views(const char *receipt, char **verify, char **matrix, char **page)
{
    char *md = xasprintf("%s/m.md", dir), *html = xasprintf("%s/p.html", dir);
    char *set = xstrdup(receipt);
    char *cut = strstr(set, "/receipts/");
    cr_assert(cut, "%s is not a published receipt", receipt);
    *cut = '\0';
    tu_result v = tu_conform("verify", "--allowed-signers", "vectors/KEYS/allowed_signers", "--vectors", set, receipt,
                             NULL);
    cr_assert_eq(v.code, 0, "%s", v.out);
    tu_result m = tu_conform("matrix", "--allowed-signers", "vectors/KEYS/allowed_signers", "--vectors", set,
                             "--markdown", md, receipt, NULL);
    tu_result p = tu_conform("report", "--allowed-signers", "vectors/KEYS/allowed_signers", "--vectors", set, "-o",
                             html, receipt, NULL);
    free(set);
    cr_assert_eq(p.code, 0, "%s", p.err);
    *verify = xstrdup(v.out), *matrix = tu_read(md), *page = tu_read(html);
    tu_result_free(&v), tu_result_free(&m), tu_result_free(&p);
    free(md), free(html);
}

Test(receipt_model, verify_matrix_and_page_say_bound_the_same_way, .timeout = 240)
{
    char *v, *m, *p;
    three_views("vectors/v1.2.0/receipts/windows-x86_64-wine.json", &v, &m, &p);
    tu_assert_has(v, "subject: NOT FULLY BOUND");
    tu_assert_has(m, "| NOT FULLY BOUND |");
    tu_assert_has(p, "<strong>Subject:</strong> NOT FULLY BOUND: the program");
    tu_assert_has(p, "/usr/lib/wine/wine64 ran but the subject does not name it");
    free(v), free(m), free(p);
    static const struct {
        const char *receipt, *verify_says;
    } bound[] = {
        /* made before the receipts named every executable mapping (trust round 3) */
        {"vectors/v1.1.0/receipts/x86_64-native.json", "subject: PARTLY RECORDED, the program bound"},
        /* re-made under trust round 3: every file mapped executable is named */
        {"vectors/v1.2.0/receipts/x86_64-native.json", "subject: bound: the program"},
    };
    for (size_t i = 0; i < sizeof bound / sizeof bound[0]; i++) {
        three_views(bound[i].receipt, &v, &m, &p);
        tu_assert_has(v, bound[i].verify_says);
        tu_assert_has(m, "| bound |");
        tu_assert_lacks(m, "NOT FULLY BOUND");
        tu_assert_lacks(p, "<strong>Subject:</strong>");
        free(v), free(m), free(p);
    }
}

/* One strict reader behind verify, matrix and the page: a receipt with a
 * key twice, an unknown field, or data after the document is refused by
 * all three, each naming the fault in the reader's own words (the line
 * verify prints is in the matrix's and the page's refusal). The control:
 * the same receipt unedited is accepted by all three. */
typedef struct {
    tu_result v, m, p;
    char *page; /* the page written, or NULL */
} three_runs;

static three_runs run_three(const char *file)
{
    char *md = xasprintf("%s/m.md", dir), *html = xasprintf("%s/p.html", dir);
    const char *vec = tu_env("IT_VECTORS");
    three_runs t = {
        tu_conform("verify", "--allow-unsigned", "--vectors", vec, file, NULL),
        tu_conform("matrix", "--allow-unsigned", "--vectors", vec, "--markdown", md, file, NULL),
        tu_conform("report", "--allow-unsigned", "--vectors", vec, "-o", html, file, NULL),
        NULL,
    };
    t.page = access(html, F_OK) == 0 ? tu_read(html) : NULL;
    unlink(html);
    free(md), free(html);
    return t;
}

static void free_three(three_runs *t)
{
    tu_result_free(&t->v), tu_result_free(&t->m), tu_result_free(&t->p);
    free(t->page);
}

/* s as the page writes text (core/utf8.h markup_entity: & < > " ') */
static char *as_html(const char *s)
{
    sbuf b;
    sbuf_init(&b);
    for (; *s; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : *s == '\'' ? "&#39;" : NULL;
        if (e)
            sbuf_adds(&b, e);
        else
            sbuf_addc(&b, *s);
    }
    sbuf_addc(&b, '\0');
    return sbuf_take(&b);
}

/* The problem line of verify's output that holds says, trimmed. */
static char *verify_line(const tu_result *v, const char *says)
{
    const char *out = strstr(v->out, says) ? v->out : v->err, *at = strstr(out, says);
    cr_assert(at, "verify does not say \"%s\":\n%s%s", says, v->out, v->err);
    const char *b = at, *e = at + strcspn(at, "\n");
    while (b > out && b[-1] != '\n')
        b--;
    b += strspn(b, " ");
    return xstrndup(b, (size_t)(e - b));
}

static void refused_alike(const char *name, const char *text, const char *says)
{
    char *file = xasprintf("%s/%s", dir, name);
    if (!strcmp(name, "trailing.json")) { /* data after the envelope itself */
        char *env = xasprintf("%s/env.json", dir), *body;
        tu_write_envelope(env, text);
        body = tu_read(env);
        char *bad = xasprintf("%s {}", body), err[128];
        cr_assert(write_file(file, bad, strlen(bad), err, sizeof err) == 0, "%s", err);
        free(bad), free(body), free(env);
    } else
        tu_write_envelope(file, text);
    three_runs t = run_three(file);
    cr_assert_neq(t.v.code, 0, "%s: verify accepted it", name);
    cr_assert_neq(t.m.code, 0, "%s: matrix accepted it", name);
    cr_assert_neq(t.p.code, 0, "%s: the page accepted it", name);
    char *line = verify_line(&t.v, says);
    /* the words after the file name: the reader's own, in the matrix's
     * refusal and in the page's list of refused receipts */
    const char *words = strstr(line, says);
    char *in_html = as_html(words);
    tu_assert_has(t.m.err, words);
    tu_assert_has(t.p.err, "refused");
    cr_assert(t.page, "%s: the page was not written", name);
    tu_assert_has(t.page, in_html);
    free(in_html), free(line);
    free_three(&t);
    free(file);
}

Test(receipt_model, verify_matrix_and_page_refuse_alike, .timeout = 600)
{
    cJSON *r = tu_full_receipt("h", 1, -1, NULL);
    char *t = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    /* the control: unedited, all three accept it */
    char *ok = xasprintf("%s/ok.json", dir);
    tu_write_envelope(ok, t);
    three_runs c = run_three(ok);
    cr_assert_eq(c.v.code, 0, "verify refused the control:\n%s%s", c.v.out, c.v.err);
    cr_assert_eq(c.m.code, 0, "matrix refused the control:\n%s", c.m.err);
    cr_assert_eq(c.p.code, 0, "the page refused the control:\n%s", c.p.err);
    free_three(&c);
    free(ok);
    char *dup = edited(t, "{\"schema\":", "{\"verdict\":\"PASS\",\"schema\":");
    refused_alike("dup.json", dup, "key \"verdict\" appears more than once");
    char *unknown = edited(t, "\"iut\":{", "\"iut\":{\"extra\":1,");
    refused_alike("unknown.json", unknown, "iut.extra: unknown field");
    refused_alike("trailing.json", t, "after the JSON document");
    free(dup), free(unknown), free(t);
}

/* The typed receipt (trust/receipt_record.h) of every published receipt
 * holds what the JSON holds: the schema, every case, each profile's trace
 * digests one look-up from their element, the self-report's map in order;
 * a field the receipt lacks is absent. The control: a value of another
 * kind than its row's is refused, naming the field. */
Test(receipt_model, the_typed_receipt_holds_what_the_json_holds)
{
    glob_t g;
    cr_assert(glob("vectors/*/receipts/*.json", 0, NULL, &g) == 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        problems pr;
        problems_init(&pr);
        cJSON *j = receipt_open(g.gl_pathv[i], NULL, &pr);
        cr_assert(j, "%s", g.gl_pathv[i]);
        receipt_record rec;
        cr_assert_eq(receipt_record_take(&rec, g.gl_pathv[i], cJSON_Duplicate(j, 1), &pr), 0, "%s: %s", g.gl_pathv[i],
                     pr.n ? pr.items[0] : "");
        const rv *top = &rec.top;
        cr_assert_str_eq(rv_str(top, RF_SCHEMA), RECEIPT_SCHEMA_NAME);
        cr_assert_eq(rv_len(top, RF_CASES), (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(j, "cases")));
        const cJSON *profs = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "levels"), "train"), "profiles");
        cr_assert_eq(rv_len(top, RF_LEVELS_TRAIN_PROFILES), (size_t)cJSON_GetArraySize(profs));
        for (size_t k = 0; k < rv_len(top, RF_LEVELS_TRAIN_PROFILES); k++) {
            const rv *p = rv_el(top, RF_LEVELS_TRAIN_PROFILES, k);
            const cJSON *tr = cJSON_GetObjectItem(cJSON_GetArrayItem(profs, (int)k), "trace");
            cr_assert_eq(rv_len(p, RF_LEVELS_TRAIN_PROFILES_TRACE), (size_t)cJSON_GetArraySize(tr));
            for (size_t s = 0; s < rv_len(p, RF_LEVELS_TRAIN_PROFILES_TRACE); s++) {
                const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(tr, (int)s), "sha256"));
                const char *got = rv_str(rv_el(p, RF_LEVELS_TRAIN_PROFILES_TRACE, s), RF_LEVELS_TRAIN_PROFILES_TRACE_SHA256);
                cr_assert((!want && !got) || (want && got && !strcmp(want, got)), "%s: trace %zu/%zu", g.gl_pathv[i], k, s);
            }
        }
        const rv *vals = rv_at(top, RF_IUT_SELF_REPORT_VALUES);
        const cJSON *jv = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "iut"), "self_report"), "values");
        cr_assert_eq(vals->n, (size_t)cJSON_GetArraySize(jv));
        if (vals->n)
            cr_assert_str_eq(vals->key[0], jv->child->string);
        receipt_record_free(&rec);
        cJSON_Delete(j);
        problems_free(&pr);
    }
    globfree(&g);
    /* absent, and the control: another kind is refused by name */
    cJSON *r = cJSON_Parse("{\"schema\": \"isotrain-receipt-v1\", \"counts\": {\"passed\": \"7\"}}");
    receipt_record rec;
    problems pr;
    problems_init(&pr);
    cr_assert_eq(receipt_record_take(&rec, "k.json", r, &pr), -1);
    tu_assert_has(pr.items[0], "k.json: counts.passed: not of the field table's kind");
    receipt_record_free(&rec);
    problems_free(&pr);
    problems_init(&pr);
    cr_assert_eq(receipt_record_take(&rec, "a.json", cJSON_Parse("{\"counts\": {\"passed\": 7}}"), &pr), 0);
    double d = 0;
    cr_assert(rv_num(&rec.top, RF_COUNTS_PASSED, &d) == 0 && d == 7);
    cr_assert(!rv_at(&rec.top, RF_VERDICT)->present && !rv_str(&rec.top, RF_VERDICT));
    cr_assert_eq(rv_len(&rec.top, RF_CASES), 0u);
    receipt_record_free(&rec);
    problems_free(&pr);
}

/* `n` strings "r" as a JSON array. */
static char *strings(size_t n)
{
    sbuf b;
    sbuf_init(&b);
    sbuf_addc(&b, '[');
    for (size_t i = 0; i < n; i++)
        sbuf_printf(&b, "%s\"r\"", i ? "," : "");
    sbuf_addc(&b, ']');
    sbuf_addc(&b, '\0');
    return sbuf_take(&b);
}

/* Each array field has its most elements in the table (RF_CAP_*): one more
 * is refused, by the strict reader and by the typed record, naming the field
 * and the cap; an array at the cap is the control and reads. */
Test(receipt_model, an_array_over_its_cap_is_refused)
{
    char *t = published_text();
    char *at_cap = strings(RF_CAP_REASONS), *over = strings(RF_CAP_REASONS + 1);
    char *a = xasprintf("\"reasons\":%s", at_cap), *o = xasprintf("\"reasons\":%s", over);
    char *ok = edited(t, "\"reasons\":[]", a), *bad = edited(t, "\"reasons\":[]", o);
    char *why = read_back("at_cap.json", ok);
    cr_assert_str_eq(why, "", "an array at its cap is refused:\n%s", why);
    free(why);
    why = read_back("over_cap.json", bad);
    tu_assert_has(why, "scope.reasons: 25 elements, over the cap of 24 the field table sets");
    free(why);
    /* the typed record refuses it too (a document no strict reader checked) */
    receipt_record rec;
    problems pr;
    problems_init(&pr);
    cr_assert_eq(receipt_record_take(&rec, "o.json", cJSON_Parse(bad), &pr), -1);
    tu_assert_has(pr.items[0], "o.json: scope.reasons: more than the cap of 24 elements the field table sets");
    receipt_record_free(&rec);
    problems_free(&pr);
    problems_init(&pr);
    cr_assert_eq(receipt_record_take(&rec, "a.json", cJSON_Parse(ok), &pr), 0, "%s", pr.n ? pr.items[0] : "");
    cr_assert_eq(rv_len(&rec.top, RF_SCOPE_REASONS), (size_t)RF_CAP_REASONS);
    receipt_record_free(&rec);
    problems_free(&pr);
    free(t), free(at_cap), free(over), free(a), free(o), free(ok), free(bad);
}

/* iut.subject.files as n empty objects. */
static cJSON *subject_files(size_t n)
{
    cJSON *r = cJSON_Parse("{\"iut\": {\"subject\": {\"files\": []}}}");
    cJSON *fs = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "iut"), "subject"), "files");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(fs, cJSON_CreateObject());
    return r;
}

/* An array of objects (each element a scope of slots, the costly kind): at
 * its cap it reads, one more is refused naming it. */
Test(receipt_model, an_array_of_objects_over_its_cap_is_refused)
{
    receipt_record rec;
    problems pr;
    problems_init(&pr);
    cr_assert_eq(receipt_record_take(&rec, "f.json", subject_files(RF_CAP_FILES), &pr), 0);
    cr_assert_eq(rv_len(&rec.top, RF_IUT_SUBJECT_FILES), (size_t)RF_CAP_FILES);
    receipt_record_free(&rec);
    cr_assert_eq(receipt_record_take(&rec, "f.json", subject_files(RF_CAP_FILES + 1), &pr), -1);
    tu_assert_has(pr.items[0], "f.json: iut.subject.files: more than the cap of 12 elements");
    receipt_record_free(&rec);
    problems_free(&pr);
}

/* verify's view of a receipt (receipt_record_view): a value of another kind
 * or an array over its cap is present and reads as absent, an element that
 * is not an object is a scope with no field, so each check of verify names
 * what it finds; the control, a field of its kind, reads. */
Test(receipt_model, the_view_reads_what_is_of_its_kind)
{
    cJSON *r = cJSON_Parse("{\"counts\": {\"passed\": \"7\", \"failed\": 2}, \"cases\": [3, {\"id\": \"a\"}],"
                           " \"options\": {\"filters\": " "[\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\","
                           "\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\","
                           "\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]}}");
    receipt_record rec;
    receipt_record_view(&rec, r);
    double d = 0;
    cr_assert(rv_at(&rec.top, RF_COUNTS_PASSED)->present && rv_at(&rec.top, RF_COUNTS_PASSED)->bad);
    cr_assert_eq(rv_num(&rec.top, RF_COUNTS_PASSED, &d), -1);
    cr_assert(rv_num(&rec.top, RF_COUNTS_FAILED, &d) == 0 && d == 2);
    cr_assert_eq(rv_len(&rec.top, RF_CASES), 2u);
    cr_assert(!rv_str(rv_el(&rec.top, RF_CASES, 0), RF_CASES_ID));
    cr_assert_str_eq(rv_str(rv_el(&rec.top, RF_CASES, 1), RF_CASES_ID), "a");
    cr_assert(rv_at(&rec.top, RF_OPTIONS_FILTERS)->bad && !rv_has(&rec.top, RF_OPTIONS_FILTERS));
    receipt_record_free(&rec);
    cJSON_Delete(r);
}
