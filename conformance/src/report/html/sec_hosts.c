/* sec_hosts.c — one expandable <details> per host: the run (verdict, scope,
 * seed), the trainer under test, the host, op groups with passed/failed
 * counts (vector and fresh cases), every profile's training with the
 * localization of a failure, timings, the failing cases. Hosts that are not
 * simply PASS open by default, so a failure is read without a click.
 *
 * The key/value blocks are tables of (label, field id): a field a newer
 * runner records is one more line in them, and a field a receipt lacks is
 * shown as absent. Every field comes from the typed receipt
 * (trust/receipt_record.h); only the localization, an open object whose
 * members are the localizer's, is read as JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/report.h"

typedef enum { K_TEXT, K_CODE, K_NUM, K_SECONDS, K_BOOL, K_LIST } kkind;
typedef enum { KV_RUN, KV_IUT, KV_HOST } kvpart;
typedef struct {
    kvpart part;
    const char *label;
    rf_id field;
    kkind kind;
} kv;

enum { SELF_REPORT_MAX = 40, WARN_MAX = 20, FAILED_MAX = 25, OBJ_MAX = 32 };

/* The key/value blocks of a host's details, in order: the run, the trainer
 * under test, the host (kv_list writes one part's rows). */
static const kv facts_kv[] = {
    {KV_RUN, "verdict", RF_VERDICT, K_TEXT},
    {KV_RUN, "exit status", RF_EXIT_CODE, K_NUM},
    {KV_RUN, "not a full certification because", RF_SCOPE_REASONS, K_LIST},
    {KV_RUN, "level reached", RF_LEVEL_REACHED, K_TEXT},
    {KV_RUN, "started", RF_STARTED, K_TEXT},
    {KV_RUN, "run seed (fresh cases)", RF_OPTIONS_SEED, K_CODE},
    {KV_RUN, "seed chosen by the caller", RF_OPTIONS_SEED_GIVEN, K_BOOL},
    {KV_RUN, "level", RF_OPTIONS_LEVEL, K_TEXT},
    {KV_RUN, "slowdown", RF_OPTIONS_SLOWDOWN, K_NUM},
    {KV_RUN, "runner", RF_SUITE_VERSION, K_TEXT},
    {KV_RUN, "runner revision", RF_SUITE_GIT_REVISION, K_CODE},
    {KV_RUN, "runner's reference kernels", RF_SUITE_REFERENCE_KERNELS, K_TEXT},
    {KV_RUN, "vector set", RF_VECTORS_VECTOR_VERSION, K_TEXT},
    {KV_RUN, "spec version of the vectors", RF_VECTORS_SPEC_VERSION, K_TEXT},
    {KV_RUN, "manifest digest", RF_VECTORS_MANIFEST_DIGEST, K_CODE},
    /* issue 17 (versions): the certified spec version is one line here;
     * issue 16 (trust): the subject binding and emulator digest too. */
    {KV_IUT, "command", RF_IUT_COMMAND, K_CODE},
    {KV_IUT, "hello", RF_IUT_HELLO, K_CODE},
    {KV_IUT, "name", RF_IUT_NAME, K_TEXT},
    {KV_IUT, "version", RF_IUT_VERSION, K_TEXT},
    {KV_IUT, "spec it implements", RF_IUT_SPEC, K_TEXT},
    {KV_IUT, "binary", RF_IUT_BINARY_PATH, K_CODE},
    {KV_IUT, "binary SHA-256 before the run", RF_IUT_BINARY_SHA256, K_CODE},
    {KV_IUT, "binary SHA-256 after the run", RF_IUT_BINARY_SHA256_AFTER, K_CODE},
    {KV_HOST, "ISA", RF_HOST_ISA, K_TEXT},
    {KV_HOST, "endianness", RF_HOST_ENDIANNESS, K_TEXT},
    {KV_HOST, "CPU model", RF_HOST_CPU_MODEL, K_TEXT},
    {KV_HOST, "OS", RF_HOST_OS, K_TEXT},
    {KV_HOST, "C library", RF_HOST_LIBC, K_TEXT},
    {KV_HOST, "runner's compiler", RF_HOST_RUNNER_COMPILER, K_TEXT},
    {KV_HOST, "runner's flags", RF_HOST_RUNNER_CFLAGS, K_CODE},
    {KV_HOST, "emulator", RF_EMULATOR_NAME, K_CODE},
    {KV_HOST, "emulator -cpu", RF_EMULATOR_CPU, K_CODE},
    {KV_HOST, "emulator named by", RF_EMULATOR_SOURCE, K_TEXT},
};

static void absent(hw *w) { HW(w, "<span class=\"muted\">\xe2\x80\x94 (not in the receipt)</span>"); }

static void number(hw *w, double d, kkind k)
{
    if (k == K_SECONDS)
        HW_F(w, "%.2f s", d);
    else
        HW_F(w, "%.10g", d);
}

/* A receipt field as text, by its kind in the table: strings as they are,
 * numbers, booleans, a list of strings. */
static void value(hw *w, const rv *v, kkind k)
{
    rs_kind kind = v->row >= 0 ? receipt_fields[v->row].kind : RS_OBJ;
    if (!v->present || v->null) {
        if (k == K_LIST)
            HW(w, "<span class=\"muted\">\xe2\x80\x94</span>");
        else
            absent(w);
    } else if (kind == RS_STR) {
        if (k == K_CODE)
            HW(w, "<code>");
        hw_text(w, v->s);
        if (k == K_CODE)
            HW(w, "</code>");
    } else if (kind == RS_INT || kind == RS_NUM)
        number(w, v->num, k);
    else if (kind == RS_BOOL)
        hw_text(w, v->yes ? "yes" : "no");
    else if (kind == RS_ARR) {
        if (!v->n)
            HW(w, "<span class=\"muted\">none</span>");
        for (size_t i = 0; i < v->n; i++) {
            if (i == OBJ_MAX) {
                HW_F(w, "; and %zu more", v->n - OBJ_MAX);
                break;
            }
            if (i)
                HW(w, "; ");
            if (!v->el[i].null && v->el[i].s)
                hw_text(w, v->el[i].s);
            else
                HW(w, "<span class=\"muted\">(not text)</span>");
        }
    } else
        HW(w, "<span class=\"muted\">(an object)</span>");
}

/* A value inside the localization (JSON: the localizer's, not the table's),
 * as value() shows a field of its kind. */
static void open_value(hw *w, const cJSON *v, kkind k)
{
    if (!v || cJSON_IsNull(v))
        absent(w);
    else if (cJSON_IsString(v))
        hw_text(w, v->valuestring);
    else if (cJSON_IsNumber(v))
        number(w, v->valuedouble, k);
    else if (cJSON_IsBool(v))
        hw_text(w, cJSON_IsTrue(v) ? "yes" : "no");
    else
        HW(w, "<span class=\"muted\">(an object)</span>");
}

static void kv_list(hw *w, const rv *root, kvpart part)
{
    const kv *t = facts_kv;
    HW(w, "<dl class=\"facts\">");
    for (size_t i = 0; i < sizeof facts_kv / sizeof *facts_kv; i++) {
        if (t[i].part != part)
            continue;
        HW_WRAP(w, "<dt>", t[i].label, HW_CAP_CELL, "</dt><dd>");
        value(w, rv_at(root, t[i].field), t[i].kind);
        HW(w, "</dd>");
    }
    HW(w, "</dl>");
}

/* Every entry of a map field, as key/value rows (at most max). */
static void map_rows(hw *w, const rv *m, size_t max, kkind k)
{
    for (size_t i = 0; i < m->n; i++) {
        if (i == max) {
            HW_N(w, "<tr><td colspan=\"2\" class=\"muted\">and %zu more</td></tr>", m->n - max);
            break;
        }
        HW_WRAP(w, "<tr><th scope=\"row\">", m->key[i], HW_CAP_NAME, "</th><td>");
        value(w, &m->el[i], k);
        HW(w, "</td></tr>");
    }
}

/* Every member an object field has, in the table's order, as key/value rows. */
static void member_rows(hw *w, const rv *root, rf_id obj, kkind k)
{
    for (int f = obj + 1; f < RF_COUNT; f++)
        if (rf_parent((rf_id)f) == (int)obj && rv_at(root, (rf_id)f)->present) {
            HW_WRAP(w, "<tr><th scope=\"row\">", rf_key((rf_id)f), HW_CAP_NAME, "</th><td>");
            value(w, rv_at(root, (rf_id)f), k);
            HW(w, "</td></tr>");
        }
}

static void pre_block(hw *w, const char *summary_literal_is_text, const char *text)
{
    if (!text || !*text)
        return;
    HW_WRAP(w, "<details class=\"data\"><summary>", summary_literal_is_text, HW_CAP_CELL, "</summary><pre>");
    hw_text_cap(w, text, HW_CAP_PRE);
    HW(w, "</pre></details>");
}

/* The count columns of each half (vector cases, fresh cases) of a group's
 * row: which count (rp_group's vec and fresh) under which word, and whether
 * a non-zero count is a failure. */
static const struct {
    int at;
    const char *word;
    int bad;
} count_cols[4] = {{0, "passed", 0}, {1, "failed", 1}, {3, "errors", 1}, {2, "skipped", 0}};

static void groups_table(hw *w, const rp_receipt *x)
{
    if (!x->n_groups)
        return;
    HW(w, "<h4>Op groups</h4><div class=\"wrap\"><table><thead><tr><th scope=\"col\" rowspan=\"2\">group</th>"
          "<th scope=\"colgroup\" colspan=\"4\">vector cases</th><th scope=\"colgroup\" colspan=\"4\">fresh cases "
          "(drawn from the run seed)</th></tr><tr>");
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 4; j++)
            HW_WRAP(w, "<th scope=\"col\" class=\"num\">", count_cols[j].word, HW_CAP_NAME, "</th>");
    HW(w, "</tr></thead><tbody>");
    for (size_t i = 0; i < x->n_groups; i++) {
        const rp_group *g = &x->groups[i];
        HW_WRAP(w, "<tr><th scope=\"row\">", g->group, HW_CAP_NAME, "</th>");
        const size_t *c[2] = {g->vec, g->fresh};
        for (int k = 0; k < 2; k++) {
            for (int j = 0; j < 4; j++) {
                size_t v = c[k][count_cols[j].at];
                if (v && count_cols[j].bad)
                    HW_N(w, "<td class=\"num\"><span class=\"v fail\">%zu</span></td>", v);
                else
                    HW_N(w, "<td class=\"num\">%zu</td>", v);
            }
        }
        HW(w, "</tr>");
    }
    if (x->groups_more)
        HW_N(w, "<tr><td colspan=\"9\" class=\"muted\">and cases of %zu more groups</td></tr>", x->groups_more);
    HW(w, "</tbody></table></div>");
}

static void bits_cell(hw *w, const char *hex)
{
    if (!hex) {
        absent(w);
        return;
    }
    HW_WRAP(w, "<code>0x", hex, 16, "</code>");
    uint32_t b;
    if (strlen(hex) == 8 && is_lower_hex(hex, 8)) {
        b = (uint32_t)strtoul(hex, NULL, 16);
        HW_F(w, " (%.9g)", (double)rp_f32(b));
    }
}

static void num_cell(hw *w, const cJSON *o, const char *path)
{
    double d;
    if (rj_num(o, path, &d) == 0)
        HW_F(w, "%.0f", d);
    else
        absent(w);
}

/* spec: where a run departs (conformance/README.md "Where a run differs"). */
/* A row of name: count pairs (the localization's per-tensor counts and
 * ULP histogram), at most OBJ_MAX of them; nothing when obj is not an
 * object. */
static void counts_row(hw *w, const char *label, const cJSON *obj)
{
    if (!cJSON_IsObject(obj))
        return;
    HW_WRAP(w, "<tr><th scope=\"row\">", label, HW_CAP_CELL, "</th><td>");
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, obj)
    {
        if (i++ == OBJ_MAX)
            break;
        if (i > 1)
            HW(w, ", ");
        hw_text_cap(w, e->string, HW_CAP_NAME);
        HW(w, ": ");
        open_value(w, e, K_NUM);
    }
    HW(w, "</td></tr>");
}

/* The first differing op the runner named: call, position, output element,
 * the two values and their ULP distance. */
/* The sentence that describes the first differing op after its call: each
 * member of the op, after the plain words that lead to it. */
typedef enum { OP_NUM, OP_NAME, OP_BITS, OP_END } op_kind;
/* A sentence over a localization object: each part's member after the
 * plain words that lead to it, until OP_END. */
typedef struct {
    const char *lead, *key;
    op_kind kind;
} sentence_part;
static const sentence_part op_sentence[] = {
    {"", "position", OP_NUM},
    {", op ", "op_in_position", OP_NUM},
    {" of the position); output ", "output", OP_NAME},
    {"[", "element", OP_NUM},
    {"]: IUT ", "iut", OP_BITS},
    {", reference ", "reference", OP_BITS},
    {", ", "ulp", OP_NUM},
    {" ULP; ", "differing_elements", OP_NUM},
    {" elements of the output differ", NULL, OP_END},
};

static void sentence(hw *w, const cJSON *o, const sentence_part *s)
{
    for (;; s++) {
        hw_text(w, s->lead);
        if (s->kind == OP_NUM)
            num_cell(w, o, s->key);
        else if (s->kind == OP_NAME)
            hw_text_cap(w, rj_str(o, s->key), HW_CAP_NAME);
        else if (s->kind == OP_BITS)
            bits_cell(w, rj_str(o, s->key));
        else
            return;
    }
}

static void first_op_cell(hw *w, const cJSON *op)
{
    if (cJSON_IsObject(op) && rj_str(op, "op")) {
        HW_WRAP(w, "<strong>", rj_str(op, "op"), HW_CAP_NAME, "</strong>, call <code>");
        hw_text_cap(w, rj_str(op, "call"), HW_CAP_NAME);
        HW(w, "</code> (position ");
        sentence(w, op, op_sentence);
    } else if (cJSON_IsObject(op) || cJSON_IsString(op))
        open_value(w, op, K_TEXT);
    else
        HW(w, "<span class=\"muted\">none named (see the runner's words below)</span>");
}

/* The localization's rows: a label and its sentence (absent without the
 * member `needs`). */
static const struct {
    const char *label, *needs;
    sentence_part s[5];
} loc_rows[] = {
    {"first step whose parameters differ", NULL, {{"", "first_step", OP_NUM}, {"", NULL, OP_END}}},
    {"loss bits identical through step", NULL, {{"", "loss_identical_through", OP_NUM}, {"", NULL, OP_END}}},
    {"first differing tensor, element",
     "tensor",
     {{"", "tensor", OP_NAME}, {" (", "row", OP_NUM}, {", ", "col", OP_NUM}, {"), flat index ", "flat_index", OP_NUM},
      {"", NULL, OP_END}}},
    {"IUT / reference", NULL, {{"", "iut", OP_BITS}, {" / ", "reference", OP_BITS}, {"", NULL, OP_END}}},
    {"ULP distance", NULL, {{"", "ulp", OP_NUM}, {"", NULL, OP_END}}},
    {"differing elements at that step",
     NULL,
     {{"", "differing_elements", OP_NUM}, {"; max ", "max_ulp", OP_NUM}, {" ULP", NULL, OP_END}}},
};

static void localization(hw *w, const rp_profile *pf)
{
    const cJSON *L = rv_at(pf->obj, RF_LEVELS_TRAIN_PROFILES_LOCALIZATION)->open;
    if (!cJSON_IsObject(L))
        return;
    HW(w, "<h4>Where it differs</h4><div class=\"wrap\"><table class=\"loc\"><tbody>");
    for (size_t i = 0; i < sizeof loc_rows / sizeof *loc_rows; i++) {
        HW_WRAP(w, "<tr><th scope=\"row\">", loc_rows[i].label, HW_CAP_CELL, "</th><td>");
        if (loc_rows[i].needs && !rj_str(L, loc_rows[i].needs))
            absent(w);
        else
            sentence(w, L, loc_rows[i].s);
        HW(w, "</td></tr>");
    }
    counts_row(w, "differing per tensor", rj_at(L, "differing_per_tensor"));
    counts_row(w, "ULP histogram", rj_at(L, "ulp_histogram"));
    HW(w, "<tr><th scope=\"row\">first differing op</th><td>");
    first_op_cell(w, rj_at(L, "first_op"));
    HW(w, "</td></tr></tbody></table></div>");
    pre_block(w, "the runner's localization, as it printed it", rv_str(pf->obj, RF_LEVELS_TRAIN_PROFILES_LOCALIZATION_TEXT));
    HW(w, "<p class=\"muted\">The localization is the runner's record, covered by the receipt's signature; "
          "<code>verify</code> rechecks every step's digest, not the localization.</p>");
}

/* Resumed runs over step ranges (issue 20): each window and its verdict,
 * as the matrix read them from the case list. */
static void windows(hw *w, const rp_profile *pf)
{
    const mprofile *m = pf->ck.view;
    if (!m || !m->n_win)
        return;
    HW(w, "<h4>Windows</h4><p>Each window is resumed from the vector set's golden training state at its first "
          "step and compared with the vectors at every step to its last (spec \xc2\xa7" "8.4).</p><ul>");
    for (size_t k = 0; k < m->n_win; k++) {
        HW_N(w, "<li>steps %u\xe2\x80\x93%u: ", (unsigned)m->win[k].from, (unsigned)m->win[k].to);
        if (m->win[k].pass)
            HW(w, "<span class=\"v pass\">");
        else
            HW(w, "<span class=\"v fail\">");
        hw_text_cap(w, m->win[k].verdict, HW_CAP_NAME);
        HW(w, "</span></li>");
    }
    HW(w, "</ul>");
}

static void profile_block(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    HW_WRAP(w, "<h4>Training: profile ", pf->name, HW_CAP_NAME, "</h4><p>");
    double s;
    if (rv_num(pf->obj, RF_LEVELS_TRAIN_PROFILES_STEPS, &s) == 0)
        HW_F(w, "%.0f steps run", s);
    if (rv_num(pf->obj, RF_LEVELS_TRAIN_PROFILES_STEPS_IN_VECTORS, &s) == 0)
        HW_F(w, " of %.0f in the vectors", s);
    HW_F(w, "; cases: %zu passed, %zu failed, %zu errors, %zu skipped", pf->count[0], pf->count[1], pf->count[3],
         pf->count[2]);
    if (rv_num(pf->obj, RF_LEVELS_TRAIN_PROFILES_SECONDS, &s) == 0)
        HW_F(w, "; %.1f s", s);
    const char *st = rv_str(pf->obj, RF_LEVELS_TRAIN_PROFILES_STATUS);
    if (st) {
        HW(w, "; process: ");
        hw_text_cap(w, st, HW_CAP_NAME);
    }
    HW(w, ".</p>");
    const char *prob = rv_str(pf->obj, RF_LEVELS_TRAIN_PROFILES_PROBLEM), *fail = rv_str(pf->obj, RF_LEVELS_TRAIN_PROFILES_FAILURE);
    if (prob || fail) {
        HW_WRAP(w, "<p><strong>Problem:</strong> ", prob ? prob : fail, HW_CAP_CELL, "</p>");
    }
    windows(w, pf);
    localization(w, pf);
    rp_plot_loss_gap(w, p, row, pf);
    pre_block(w, "the IUT's stderr (last bytes the runner kept)", rv_str(pf->obj, RF_LEVELS_TRAIN_PROFILES_STDERR_TAIL));
}

static void failed_cases(hw *w, const rv *r)
{
    size_t n = 0, shown = 0;
    for (size_t i = 0; i < rv_len(r, RF_CASES); i++) {
        const rv *c = rv_el(r, RF_CASES, i);
        const char *v = c->null ? NULL : rv_str(c, RF_CASES_VERDICT);
        if (!v || (strcmp(v, "FAIL") && strcmp(v, "ERROR")))
            continue;
        if (!n++)
            HW(w, "<h4>Failed cases</h4><div class=\"wrap\"><table class=\"cases\"><thead><tr><th scope=\"col\">case</th>"
                  "<th scope=\"col\">verdict</th><th scope=\"col\">why</th></tr></thead><tbody>");
        if (shown == FAILED_MAX)
            continue;
        shown++;
        HW_WRAP(w, "<tr><th scope=\"row\"><code>", rv_str(c, RF_CASES_ID), HW_CAP_NAME, "</code></th><td><span class=\"v fail\">");
        hw_text_cap(w, v, 8);
        HW_WRAP(w, "</span></td><td>", rv_str(c, RF_CASES_REASON), HW_CAP_CELL, "</td></tr>");
    }
    if (n > shown)
        HW_N(w, "<tr><td colspan=\"3\" class=\"muted\">and %zu more failed cases (the receipt lists them all)</td></tr>",
             n - shown);
    if (n)
        HW(w, "</tbody></table></div>");
}

/* A subject the receipt does not fully bind, in verify's words
 * (trust/receipt_facts.h): the one derivation of "bound". A bound one adds
 * nothing, so the published pages stay as they were. */
static void subject_note(hw *w, const mrow *row)
{
    if (!row->r || row->r->build_failed)
        return;
    receipt_binding b = receipt_facts_binding(&row->r->facts);
    if (b != BINDING_SHELL && b != BINDING_NOT_FULLY)
        return;
    char *t = receipt_facts_subject_text(&row->r->facts);
    HW_WRAP(w, "<p class=\"subject\"><strong>Subject:</strong> ", t, HW_CAP_CELL, "</p>");
    free(t);
}

/* The summary line and what the matrix says of the host (r: its receipt or NULL). */
static void host_summary(hw *w, const mrow *row, const rv *r, size_t i)
{
    int open = !(mx_row_ok(row) && row->st == ST_PASS);
    if (open)
        HW_N(w, "<details class=\"host\" id=\"host-%zu\" open><summary>", i);
    else
        HW_N(w, "<details class=\"host\" id=\"host-%zu\"><summary>", i);
    HW_WRAP(w, "<span class=\"hn\">", row->h->name, HW_CAP_NAME, "</span>");
    rp_result_badge(w, row);
    if (row->h->xfail)
        HW(w, " <span class=\"ctl\">negative control</span>");
    HW(w, "<span class=\"meta\">");
    char b[256];
    mx_runs_as(row->h, b, sizeof b);
    hw_text_cap(w, b, HW_CAP_NAME);
    double d;
    if (r && rv_num(r, RF_COUNTS_PASSED, &d) == 0) {
        double f = 0, e = 0, s = 0;
        rv_num(r, RF_COUNTS_FAILED, &f);
        rv_num(r, RF_COUNTS_ERRORS, &e);
        rv_num(r, RF_COUNTS_SKIPPED, &s);
        HW_F(w, " \xc2\xb7 %.0f passed, %.0f failed, %.0f errors, %.0f skipped", d, f, e, s);
    }
    if (row->r && !row->r->build_failed && row->r->seconds >= 0)
        HW_F(w, " \xc2\xb7 %.1f s", row->r->seconds);
    HW_WRAP(w, "</span></summary><div>\n<p><strong>", row->h->name, HW_CAP_NAME, "</strong> stands for: ");
    hw_text(w, row->h->stands_for);
    HW(w, "</p>");
    if (row->why.len || row->host_bad.len) {
        HW(w, "<p><strong>The matrix says:</strong> ");
        rp_matrix_says(w, row, 0, " HOST MISMATCH: ");
        HW(w, "</p>");
    }
}

/* The receipt file, its digest and who signed it. */
static void receipt_line(hw *w, const rp_receipt *x)
{
    HW_WRAP(w, "<p class=\"muted\">Receipt <code>", x->file, HW_CAP_CELL, "</code>, SHA-256 <code>");
    hw_text(w, x->sha256);
    HW(w, "</code>; ");
    if (x->signer) {
        HW(w, "signed by ");
        rp_signer_html(w, x->signer, x->n_fp ? x->key_fp[0] : NULL);
        HW_WRAP(w, " (key <code>", x->n_fp ? x->key_fp[0] : "?", HW_CAP_CELL, "</code>), signature checked.");
    } else if (x->n_sigs) {
        HW_WRAP(w, "signed with key <code>", x->n_fp ? x->key_fp[0] : "?", HW_CAP_CELL, "</code>, signature not checked (no --allowed-signers).");
    } else
        HW(w, "unsigned.");
    HW(w, "</p>");
}

/* The run: its facts, each level's verdict and time, the timings. */
static void run_column(hw *w, const rv *r)
{
    double d;
    HW(w, "<h4>The run</h4>");
    kv_list(w, r, KV_RUN);
    HW(w, "<h4>Levels</h4><table><thead><tr><th scope=\"col\">level</th><th scope=\"col\">verdict</th>"
          "<th scope=\"col\" class=\"num\">seconds</th></tr></thead><tbody>");
    /* each level's verdict and seconds */
    static const rf_id levels[3][3] = {{RF_LEVELS_OPS, RF_LEVELS_OPS_VERDICT, RF_LEVELS_OPS_SECONDS},
                                       {RF_LEVELS_TRAIN, RF_LEVELS_TRAIN_VERDICT, RF_LEVELS_TRAIN_SECONDS},
                                       {RF_LEVELS_FRESH, RF_LEVELS_FRESH_VERDICT, RF_LEVELS_FRESH_SECONDS}};
    for (int k = 0; k < 3; k++) {
        HW_WRAP(w, "<tr><th scope=\"row\">", rf_key(levels[k][0]), HW_CAP_CELL, "</th><td>");
        value(w, rv_at(r, levels[k][1]), K_TEXT);
        HW(w, "</td><td class=\"num\">");
        if (rv_num(r, levels[k][2], &d) == 0 && d == d)
            HW_F(w, "%.1f", d);
        else
            absent(w);
        HW(w, "</td></tr>");
    }
    HW(w, "</tbody></table>");
    const rv *tm = rv_at(r, RF_TIMINGS);
    if (tm->present && !tm->null) {
        HW(w, "<h4>Timings</h4><table><tbody>");
        member_rows(w, r, RF_TIMINGS, K_SECONDS);
        HW(w, "</tbody></table>");
    }
}

/* The trainer under test, what it reported, the host as the runner saw it. */
static void iut_column(hw *w, const mrow *row, const rv *r)
{
    HW(w, "<h4>Trainer under test</h4>");
    kv_list(w, r, KV_IUT);
    subject_note(w, row);
    const rv *self = rv_at(r, RF_IUT_SELF_REPORT_VALUES);
    HW(w, "<details class=\"data\"><summary>What the trainer reported from inside (<code>info</code>)</summary>");
    if (self->present && !self->null) {
        HW(w, "<table><tbody>");
        map_rows(w, self, SELF_REPORT_MAX, K_CODE);
        HW(w, "</tbody></table>");
    } else {
        HW(w, "<p>");
        absent(w);
        HW(w, "</p>");
    }
    HW(w, "</details><h4>Host (the runner's view)</h4>");
    kv_list(w, r, KV_HOST);
    if (row->r && row->r->n_warn) {
        HW(w, "<p><strong>Emulator warnings</strong> (recorded):</p><ul>");
        for (size_t k = 0; k < row->r->n_warn && k < WARN_MAX; k++) {
            HW_WRAP(w, "<li><code>", row->r->warn[k], HW_CAP_CELL, "</code></li>");
        }
        if (row->r->n_warn > WARN_MAX)
            HW_N(w, "<li class=\"muted\">and %zu more</li>", row->r->n_warn - WARN_MAX);
        HW(w, "</ul>");
    }
}

/* The fresh cases: op cases drawn from the run seed, the fresh-seed run. */
static void fresh_paragraph(hw *w, const rp_receipt *x, const rv *r)
{
    double d;
    HW(w, "<h4>Fresh cases</h4><p>");
    double oc;
    if (rv_num(r, RF_LEVELS_FRESH_OP_CASES, &oc) == 0)
        HW_F(w, "%.0f fresh op cases drawn from the run seed; ", oc);
    const rv *ft = rv_at(r, RF_LEVELS_FRESH_TRAINING);
    if (ft->present && !ft->null) {
        HW(w, "a fresh-seed training run of ");
        hw_text_cap(w, rv_str(r, RF_LEVELS_FRESH_TRAINING_PROFILE), HW_CAP_NAME);
        if (rv_num(r, RF_LEVELS_FRESH_TRAINING_STEPS, &d) == 0)
            HW_F(w, " over %.0f steps", d);
        HW_WRAP(w, " under seed <code>", rv_str(r, RF_LEVELS_FRESH_TRAINING_SEED), HW_CAP_NAME, "</code>, compared step by step with the reference linked into the runner");
    } else
        HW(w, "no fresh-seed training run recorded");
    HW_F(w, "; its cases: %zu passed, %zu failed, %zu errors, %zu skipped.", x->fresh_train[0], x->fresh_train[1],
         x->fresh_train[3], x->fresh_train[2]);
    HW(w, "</p>");
}

static void host_block(hw *w, const rp_page *p, size_t i)
{
    const mrow *row = &p->rows[i];
    const rp_receipt *x = rp_of_row(p, row);
    const rv *r = x ? x->receipt : NULL;
    host_summary(w, row, r, i);
    if (!r) {
        HW(w, "</div></details>\n");
        return;
    }
    receipt_line(w, x);
    HW(w, "<div class=\"grid2\"><div>");
    run_column(w, r);
    HW(w, "</div><div>");
    iut_column(w, row, r);
    HW(w, "</div></div>");
    groups_table(w, x);
    fresh_paragraph(w, x, r);
    for (size_t k = 0; k < x->n_prof; k++)
        profile_block(w, p, row, &x->prof[k]);
    pre_block(w, "the IUT's stderr during the ops level (last bytes)", rv_str(r, RF_LEVELS_OPS_PROCESS_STDERR_TAIL));
    failed_cases(w, r);
    HW(w, "</div></details>\n");
}

/* One <section> of a block an item, nothing when there is none: the hosts
 * in detail and the refused receipts. */
static void section(hw *w, const rp_page *p, size_t n, void (*head)(hw *), void (*item)(hw *, const rp_page *, size_t))
{
    if (!n)
        return;
    head(w);
    for (size_t i = 0; i < n; i++)
        item(w, p, i);
    HW(w, "</section>\n");
}

static void hosts_head(hw *w)
{
    HW(w, "<section id=\"hosts\"><h2>Hosts in detail</h2>\n<p>Each host's receipt: open one for its op groups, "
          "training, timings and, for a failure, where it differs. Hosts that are not a plain PASS are open.</p>\n");
}

void sec_hosts(hw *w, const rp_page *p)
{
    section(w, p, p->nr ? p->nh : 0, hosts_head, host_block);
}

static void refused_head(hw *w)
{
    HW(w, "<section id=\"refused\"><h2>Refused receipts</h2>\n<p>These files were given but are not shown as "
          "results: the matrix's gate refused them, for the reason it gave.</p>\n");
}

static void refused_item(hw *w, const rp_page *p, size_t i)
{
    HW_WRAP(w, "<h3><code>", p->ref[i].file, HW_CAP_CELL, "</code></h3><pre class=\"refusal\">");
    hw_text_cap(w, p->ref[i].reason, HW_CAP_PRE);
    HW(w, "</pre>\n");
}

void sec_refused(hw *w, const rp_page *p)
{
    section(w, p, p->n_ref, refused_head, refused_item);
}

void sec_inputs(hw *w, const rp_page *p)
{
    HW(w, "<section id=\"inputs\"><h2>Inputs</h2>\n<div class=\"wrap\"><table><thead><tr><th scope=\"col\">file</th>"
          "<th scope=\"col\">SHA-256</th><th scope=\"col\">used as</th></tr></thead><tbody>");
    for (size_t i = 0; i < p->nr; i++) {
        HW_WRAP(w, "<tr><td><code>", p->rx[i].file, HW_CAP_CELL, "</code></td><td><code>");
        hw_text(w, p->rx[i].sha256);
        HW(w, "</code></td><td>");
        if (p->rx[i].receipt)
            HW(w, "receipt, accepted");
        else
            HW(w, "build-failure record");
        HW(w, "</td></tr>");
    }
    for (size_t i = 0; i < p->n_ref; i++) {
        HW_WRAP(w, "<tr><td><code>", p->ref[i].file, HW_CAP_CELL, "</code></td><td class=\"muted\">\xe2\x80\x94</td><td>refused</td></tr>");
    }
    for (size_t i = 0; i < p->n_div; i++) {
        HW_WRAP(w, "<tr><td><code>", p->div[i].file, HW_CAP_CELL, "</code></td><td><code>");
        hw_text(w, p->div[i].sha256);
        HW(w, "</code></td><td>divergence data (--divergence)</td></tr>");
    }
    if (p->hosts_file) {
        HW_WRAP(w, "<tr><td><code>", p->hosts_file, HW_CAP_CELL, "</code></td><td class=\"muted\">\xe2\x80\x94</td><td>hosts file (--hosts)</td></tr>");
    }
    if (p->vectors_dir) {
        HW_WRAP(w, "<tr><td><code>", p->vectors_dir, HW_CAP_CELL, "</code></td><td>");
        if (p->have_vectors) {
            HW_WRAP(w, "<code>", p->vectors_digest, HW_CAP_CELL, "</code> (manifest digest)");
        } else
            HW(w, "<span class=\"muted\">did not load</span>");
        HW(w, "</td><td>vector set</td></tr>");
    }
    HW(w, "</tbody></table></div></section>\n");
}
