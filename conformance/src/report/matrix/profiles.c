/* profiles.c — a vector set of several profiles is several tables: one per
 * profile, hosts as rows. The judging, the cells and the agreement rule
 * read one profile at a time through a view: the receipt as it is, with
 * the checkpoint fields (first_diff, train_problem, ck_*) of that profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/matrix/matrix.h"

size_t mx_profile_names(const mrow *rows, size_t n, const char **names, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const mreceipt *r = rows[i].r;
        for (size_t p = 0; r && p < r->n_prof; p++) {
            size_t j = 0;
            while (j < k && strcmp(names[j], r->prof[p].name) != 0)
                j++;
            if (j == k && k < cap)
                names[k++] = r->prof[p].name;
        }
    }
    return k;
}

const mprofile *mx_profile_of(const mreceipt *r, const char *name)
{
    for (size_t p = 0; r && name && p < r->n_prof; p++)
        if (!strcmp(r->prof[p].name, name))
            return &r->prof[p];
    return NULL;
}

void mx_profile_view(const mreceipt *r, const char *name, mreceipt *view)
{
    const mprofile *m = mx_profile_of(r, name);
    if (view != r)
        *view = *r;
    view->view = m;
    view->first_diff = m ? m->first_diff : -1;
    view->train_problem = m ? m->problem : NULL;
    view->n_ck = m ? m->n_ck : 0;
    if (m) {
        memcpy(view->ck_step, m->ck_step, m->n_ck * sizeof m->ck_step[0]);
        memcpy(view->ck_sha, m->ck_sha, m->n_ck * sizeof m->ck_sha[0]);
        memcpy(view->ck_same, m->ck_same, m->n_ck * sizeof m->ck_same[0]);
    }
}

void mx_rows_view(const mrow *rows, size_t n, const char *name, mrow *out, mreceipt *views)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = rows[i];
        if (rows[i].r && !rows[i].r->build_failed) {
            mx_profile_view(rows[i].r, name, &views[i]);
            out[i].r = &views[i];
        }
    }
}

const mwindow *mx_window_of(const mreceipt *r, uint32_t from, uint32_t to)
{
    const mprofile *m = r ? r->view : NULL; /* only a view has windows (mx_profile_view) */
    for (size_t k = 0; m && k < m->n_win; k++)
        if (m->win[k].from == from && m->win[k].to == to)
            return &m->win[k];
    return NULL;
}

const char *mx_pass_text(const mreceipt *r)
{
    if (r && r->recipe[0])
        return r->recipe_pass;
    return r && r->by_windows ? "PASS (windows)" : "PASS";
}

int mx_all_agree(const mrow *rows, size_t n)
{
    const char *names[MX_MAX_PROFILES * 4];
    size_t np = mx_profile_names(rows, n, names, sizeof names / sizeof names[0]);
    mrow *v = xcalloc(n + 1, sizeof *v);
    mreceipt *views = xcalloc(n + 1, sizeof *views);
    int ok = 1;
    for (size_t k = 0; k < (np ? np : 1); k++) {
        columns c;
        mx_rows_view(rows, n, np ? names[k] : NULL, v, views);
        mx_columns_of(v, n, &c);
        ok &= mx_table_agrees(v, n, &c);
    }
    free(v);
    free(views);
    return ok;
}

mx_tally mx_judge_rows(mrow *rows, mhost *hs, size_t nh, const mreceipt *rs, size_t nr)
{
    mx_tally t = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < nh; i++) {
        mrow *w = &rows[i];
        w->h = &hs[i];
        sbuf_init(&w->why);
        sbuf_init(&w->host_bad);
        w->r = mx_find_receipt(rs, nr, hs[i].name);
        mx_judge(w);
        int ok = mx_row_ok(w);
        t.ok += ok;
        t.pass += ok && w->st == ST_PASS;
        t.xfail += ok && w->st == ST_XFAIL;
        t.prefix += ok && w->st == ST_PREFIX;
        t.windows += ok && w->st == ST_PASS && w->r->by_windows;
        t.recipe += ok && w->st == ST_RECIPE;
    }
    return t;
}

void mx_summary_text(char *buf, size_t cap, int ok, size_t nh, const mx_tally *t, int all_agree, const char *tail)
{
    char prefix[96] = "", recipe[96] = "";
    if (t->windows && t->prefix)
        snprintf(prefix, sizeof prefix, " (%zu by windows), %zu certified to a prefix only", t->windows, t->prefix);
    else if (t->windows)
        snprintf(prefix, sizeof prefix, " (%zu by windows)", t->windows);
    else if (t->prefix)
        snprintf(prefix, sizeof prefix, ", %zu certified to a prefix only", t->prefix);
    /* a recipe's certification is not the official one: counted apart, and
     * only when there is one, so the official matrices read as before */
    if (t->recipe)
        snprintf(recipe, sizeof recipe, ", %zu certified against a recipe (not the official vectors)", t->recipe);
    snprintf(buf, cap, "matrix: %s: %zu of %zu hosts as expected (%zu passed%s%s, %zu expected failure%s failed as expected)%s%s",
             ok ? "OK" : "FAIL", t->ok, nh, t->pass, prefix, recipe, t->xfail, t->xfail == 1 ? "" : "s",
             all_agree ? "; every host expected to pass agrees with the vectors at every checkpoint and window"
                       : "; the hosts expected to pass do NOT all agree with the vectors",
             tail ? tail : "");
}
