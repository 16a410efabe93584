/* sec_matrix.c — the host matrix: one table per profile, hosts as rows,
 * the profile's checkpoint steps as columns, the "all agree" row, and each
 * host's result in the words `matrix` prints (rp_result_text), from the
 * same judgement (mx_judge) and the same agreement rule (mx_column_agrees).
 *
 * A row is data-driven: the columns are the table below, each a header and
 * a cell writer. A new receipt field (an emulator digest, a certified spec
 * version, a window list) is one more entry, not a new layout. */
#include <stdlib.h>
#include <string.h>

#include "report/html/report.h"

typedef void (*head_fn)(hw *w);
typedef void (*cell_fn)(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf);
typedef struct {
    head_fn head;
    cell_fn cell;
} column;

static void h_host(hw *w) { HW(w, "<th scope=\"col\">host</th>"); }
static void h_runs(hw *w) { HW(w, "<th scope=\"col\">runs as <span class=\"muted\">/ CPU model it reported</span></th>"); }
static void h_kern(hw *w) { HW(w, "<th scope=\"col\">kernels</th>"); }
static void h_exp(hw *w) { HW(w, "<th scope=\"col\">expected</th>"); }
static void h_res(hw *w) { HW(w, "<th scope=\"col\">result</th>"); }
static void h_train(hw *w) { HW(w, "<th scope=\"col\">training</th>"); }
static void h_time(hw *w) { HW(w, "<th scope=\"col\" class=\"num\">time</th>"); }

static size_t row_index(const rp_page *p, const mrow *row)
{
    for (size_t i = 0; i < p->nh; i++)
        if (p->rows[i].h == row->h)
            return i;
    return 0;
}

static void c_host(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)pf;
    HW_N(w, "<th scope=\"row\"><a href=\"#host-%zu\">", row_index(p, row));
    hw_text_cap(w, row->h->name, HW_CAP_NAME);
    HW(w, "</a></th>");
}

/* How the host runs, and beneath it the CPU model the trainer's `info`
 * reported from inside (the emulated CPU under QEMU). */
/* A name the receipt gives, or a dash where it gives none (muted where the
 * cell around it is not muted already). */
static void name_or_dash(hw *w, const char *name, int muted)
{
    if (name)
        hw_text_cap(w, name, HW_CAP_NAME);
    else if (muted)
        HW(w, "<span class=\"muted\">\xe2\x80\x94</span>");
    else
        HW(w, "\xe2\x80\x94");
}

static void c_runs(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)p, (void)pf;
    char b[256];
    mx_runs_as(row->h, b, sizeof b);
    HW_WRAP(w, "<td class=\"runs\"><code>", b, HW_CAP_NAME, "</code><br><span class=\"small muted\">");
    name_or_dash(w, row->r ? row->r->info_model : NULL, 0);
    HW(w, "</span></td>");
}

static void c_kern(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)p, (void)pf;
    HW(w, "<td>");
    name_or_dash(w, row->r ? row->r->kernels : NULL, 1);
    HW(w, "</td>");
}

static void c_exp(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)p, (void)pf;
    HW(w, "<td>");
    hw_text_cap(w, row->h->expected, HW_CAP_NAME);
    if (row->h->xfail)
        HW(w, "<br><span class=\"ctl\">negative control</span>");
    HW(w, "</td>");
}

/* The verdict badge: the words are matrix's, the colour follows them. */
void rp_result_badge(hw *w, const mrow *row)
{
    char b[96];
    rp_result_text(row, b, sizeof b);
    if (mx_row_ok(row) && row->st == ST_PASS)
        HW(w, "<span class=\"v pass\">");
    else if (mx_row_ok(row) && row->st == ST_XFAIL)
        HW(w, "<span class=\"v xfail\">");
    else if (row->st == ST_MISSING || (mx_row_ok(row) && (row->st == ST_PREFIX || row->st == ST_RECIPE)))
        HW(w, "<span class=\"v other\">");
    else
        HW(w, "<span class=\"v fail\">");
    hw_text(w, b);
    HW(w, "</span>");
}

/* What the matrix says of a row: its reason (after the row's status when
 * with_status) and a host mismatch after mismatch_lead. The notes under the
 * matrix and each host's details say it alike. */
void rp_matrix_says(hw *w, const mrow *row, int with_status, const char *mismatch_lead)
{
    if (row->why.len) {
        if (with_status) {
            hw_text(w, mx_row_ok(row) ? "ok" : mx_status_text(row->st));
            HW(w, ": ");
        }
        hw_text(w, row->why.p);
    }
    if (row->host_bad.len) {
        hw_text(w, mismatch_lead);
        hw_text(w, row->host_bad.p);
    }
}

static void c_res(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)p, (void)pf;
    HW(w, "<td class=\"res\">");
    rp_result_badge(w, row);
    HW(w, "</td>");
}

/* The profile's own training: its steps, every one equal to the vectors',
 * or the first that is not; a prefix with windows (issue 20) as such. */
static void c_train(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)p, (void)row;
    HW(w, "<td class=\"nowrap\">");
    const mprofile *m = pf ? pf->ck.view : NULL;
    size_t eq = 0;
    for (size_t s = 0; pf && s < pf->n_steps; s++)
        eq += pf->step[s].state == RS_PASS;
    if (!pf)
        HW(w, "<span class=\"muted\">not run</span>");
    else if (pf->count[1] || pf->count[3]) {
        HW(w, "<span class=\"v fail\">FAIL</span>");
        if (pf->first_diff >= 0)
            HW_F(w, " from step %d", pf->first_diff);
    } else if (m && m->steps_run >= 0 && m->steps_in_vectors >= 0 && m->steps_run < m->steps_in_vectors) {
        /* a prefix (--steps), with the windows that certify the rest, if any */
        HW_F(w, "prefix 0\xe2\x80\x93%ld of %ld", m->steps_run, m->steps_in_vectors);
        if (m->n_win)
            HW_F(w, ", %zu window%s", m->n_win, m->n_win == 1 ? "" : "s");
    }
    else if (eq && eq == pf->n_steps)
        HW_F(w, "0\xe2\x80\x93%zu equal", pf->n_steps - 1);
    else if (pf->n_steps)
        HW_F(w, "%zu of %zu steps equal", eq, pf->n_steps);
    else
        HW(w, "<span class=\"muted\">no step</span>");
    HW(w, "</td>");
}

static void c_time(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    (void)p, (void)pf;
    if (row->r && !row->r->build_failed && row->r->seconds >= 0)
        HW_N(w, "<td class=\"num\">%.1f s</td>", row->r->seconds);
    else
        HW(w, "<td class=\"num\"><span class=\"muted\">\xe2\x80\x94</span></td>");
}

static const column before_steps[] = {{h_host, c_host}, {h_runs, c_runs}, {h_kern, c_kern},
                                      {h_exp, c_exp},   {h_res, c_res},   {h_train, c_train}};
static const column after_steps[] = {{h_time, c_time}};
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* The profiles of the accepted receipts, in the order they first appear. */
size_t rp_profile_names(const rp_page *p, const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nr; i++)
        for (size_t k = 0; k < p->rx[i].n_prof; k++) {
            const char *nm = p->rx[i].prof[k].name;
            size_t j = 0;
            while (j < n && strcmp(names[j], nm) != 0)
                j++;
            if (j == n && n < cap)
                names[n++] = nm;
        }
    return n;
}

const rp_profile *rp_profile_of(const rp_page *p, const mrow *row, const char *name)
{
    const rp_receipt *x = rp_of_row(p, row);
    for (size_t k = 0; x && k < x->n_prof; k++)
        if (!strcmp(x->prof[k].name, name))
            return &x->prof[k];
    return NULL;
}

static void digest_cell(hw *w, const mrow *row, uint32_t s)
{
    int k = mx_ck_index(row->r, s);
    if (k < 0 || !row->r->ck_sha[k][0]) {
        HW(w, "<td class=\"dg none\">-</td>");
        return;
    }
    if (row->r->ck_same[k])
        HW(w, "<td class=\"dg same\" title=\"");
    else
        HW(w, "<td class=\"dg diff\" title=\"differs from the vectors' digest: ");
    hw_attr(w, row->r->ck_sha[k], 64);
    HW(w, "\">");
    hw_text_n(w, row->r->ck_sha[k], 8, 8);
    if (!row->r->ck_same[k])
        HW(w, "*");
    HW(w, "</td>");
}

/* A window's cell: its verdict, "full" when the whole run certifies it. */
static void window_cell(hw *w, const mrow *row, uint32_t from, uint32_t to)
{
    const mwindow *x = row->r ? mx_window_of(row->r, from, to) : NULL;
    const mprofile *m = row->r ? row->r->view : NULL;
    if (x && x->pass)
        HW(w, "<td class=\"dg same\">ok</td>");
    else if (x) {
        HW_WRAP(w, "<td class=\"dg diff\">", x->verdict, HW_CAP_NAME, "</td>");
    } else if (m && !row->r->by_windows && m->first_diff < 0 && m->steps_run >= 0 && m->steps_run == m->steps_in_vectors)
        HW(w, "<td class=\"dg same\" title=\"the whole run certifies every step of this window\">full</td>");
    else
        HW(w, "<td class=\"dg none\">-</td>");
}

static void profile_table(hw *w, const rp_page *p, const char *name, size_t nprof)
{
    /* this profile's checkpoints in place of the matrix's first profile */
    mrow *rows = xcalloc(p->nh + 1, sizeof *rows);
    const rp_profile **pf = xcalloc(p->nh + 1, sizeof *pf);
    for (size_t i = 0; i < p->nh; i++) {
        rows[i] = p->rows[i];
        pf[i] = rp_profile_of(p, &p->rows[i], name);
        rows[i].r = pf[i] ? &pf[i]->ck : NULL;
    }
    columns c;
    mx_columns_of(rows, p->nh, &c);
    (void)nprof;
    HW_WRAP(w, "<h3>Profile ", name, HW_CAP_NAME, "</h3>\n<div class=\"wrap\"><table class=\"matrix\"><caption>Hosts \xc3\x97 checkpoints of ");
    hw_text_cap(w, name, HW_CAP_NAME);
    HW(w, ": each cell is the first 8 hex digits of the SHA-256 of the checkpoint's bytes (spec \xc2\xa7" "8); "
          "* and red: differs from the vectors' digest; -: no checkpoint; a window is resumed from the golden state "
          "at its first step (ok, its verdict, or full: the whole run certifies it). \"result\" is the host's "
          "verdict as <code>isotrain-conform matrix</code> gives it.</caption>\n<thead><tr>");
    for (size_t k = 0; k < NCOLS(before_steps); k++)
        before_steps[k].head(w);
    for (size_t j = 0; j < c.n; j++)
        HW_N(w, "<th scope=\"col\" class=\"num\">step %u</th>", (unsigned)c.step[j]);
    for (size_t j = 0; j < c.n_win; j++)
        HW_N(w, "<th scope=\"col\" class=\"num\">window %u\xe2\x80\x93%u</th>", (unsigned)c.win[j].from,
             (unsigned)c.win[j].to);
    for (size_t k = 0; k < NCOLS(after_steps); k++)
        after_steps[k].head(w);
    HW(w, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < p->nh; i++) {
        if (p->rows[i].h->xfail)
            HW(w, "<tr class=\"xfail\">");
        else
            HW(w, "<tr>");
        for (size_t k = 0; k < NCOLS(before_steps); k++)
            before_steps[k].cell(w, p, &p->rows[i], pf[i]);
        for (size_t j = 0; j < c.n; j++)
            digest_cell(w, &rows[i], c.step[j]);
        for (size_t j = 0; j < c.n_win; j++)
            window_cell(w, &rows[i], c.win[j].from, c.win[j].to);
        for (size_t k = 0; k < NCOLS(after_steps); k++)
            after_steps[k].cell(w, p, &p->rows[i], pf[i]);
        HW(w, "</tr>\n");
    }
    HW_N(w, "<tr class=\"agree\"><th scope=\"row\">all agree</th><td colspan=\"%zu\">hosts expected to pass "
            "(negative controls excluded)</td>",
         NCOLS(before_steps) - 1);
    for (size_t j = 0; j < c.n + c.n_win; j++) {
        size_t cnt;
        int ag = j < c.n ? mx_column_agrees(rows, p->nh, c.step[j], &cnt)
                         : mx_window_agrees(rows, p->nh, c.win[j - c.n].from, c.win[j - c.n].to, &cnt);
        if (ag && cnt)
            HW_N(w, "<td class=\"dg agree-yes\">yes (%zu)</td>", cnt);
        else if (ag)
            HW(w, "<td class=\"dg none\" title=\"no host's run reached this checkpoint: its windows certify the "
                  "run\">-</td>");
        else
            HW(w, "<td class=\"dg diff agree-no\">NO</td>");
    }
    HW(w, "<td></td></tr>\n</tbody></table></div>\n");
    free(rows);
    free(pf);
}

void sec_matrix(hw *w, const rp_page *p)
{
    HW(w, "<section id=\"matrix\"><h2>Host matrix</h2>\n");
    if (!p->nr) {
        HW(w, "<p>No receipt for this vector set has been accepted");
        if (p->n_ref)
            HW(w, " (the ones given were refused: see <a href=\"#refused\">Refused receipts</a>)");
        HW(w, ". The matrix is published with the vector set's receipts (<code>make publish-matrix</code>); "
              "until then there is nothing to show, and nothing here should be read as a result.</p></section>\n");
        return;
    }
    const char *names[RP_MAX_PROFILES * 4];
    size_t n = rp_profile_names(p, names, sizeof names / sizeof names[0]);
    for (size_t k = 0; k < n; k++)
        profile_table(w, p, names[k], n);
    if (!n)
        HW(w, "<p class=\"muted\">The accepted receipts have no training profile.</p>\n");
    /* what matrix prints below its table: every host that is not simply as expected */
    int any = 0;
    for (size_t i = 0; i < p->nh; i++) {
        const mrow *r = &p->rows[i];
        if (!r->why.len && !r->host_bad.len)
            continue;
        if (!any++)
            HW(w, "<h3>Notes</h3><ul class=\"notes\">");
        HW_WRAP(w, "<li><strong>", r->h->name, HW_CAP_NAME, "</strong>: ");
        rp_matrix_says(w, r, 1, " HOST MISMATCH: the host is not what the hosts file says: ");
        HW(w, "</li>");
    }
    if (any)
        HW(w, "</ul>\n");
    HW(w, "</section>\n");
}
