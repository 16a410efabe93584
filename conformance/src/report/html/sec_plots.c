/* sec_plots.c — what people would rather look at than read, each with the
 * words and numbers behind it: per profile the loss at every step (hosts
 * whose loss bits are identical at every step share one line, beside the
 * vectors' own losses) and the per-step strip "does this step's checkpoint
 * digest equal the vectors'?"; per failing host (sec_hosts.c) the loss gap
 * to the vectors in ULPs; and `--divergence` data (sec_divergence). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ulp.h"
#include "report/html/report.h"
#include "report/html/svg.h"
#include "vectorset/vectors_load.h"

enum { MAX_LINES = 7, TABLE_ROWS = 12, MAX_RANGES = 24 };

static const train_vec *golden(const rp_page *p, const char *profile)
{
    return p->have_vectors ? vectors_train((const vector_set *)p->vectors, profile) : NULL;
}

void rp_ranges(sbuf *out, const rp_step *st, size_t n, unsigned char want)
{
    size_t ranges = 0, left = 0;
    for (size_t i = 0; i < n;) {
        if (st[i].state != want) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < n && st[j + 1].state == want)
            j++;
        if (ranges == MAX_RANGES)
            left++;
        else {
            if (ranges++)
                sbuf_adds(out, ", ");
            if (i == j)
                sbuf_printf(out, "%zu", i);
            else
                sbuf_printf(out, "%zu\xe2\x80\x93%zu", i, j);
        }
        i = j + 1;
    }
    if (left)
        sbuf_printf(out, " and %zu more range%s", left, left == 1 ? "" : "s");
    if (!ranges)
        sbuf_adds(out, "none");
}

/* Hosts whose loss bits are identical at every step form one line. */
typedef struct {
    const rp_profile *pf;
    size_t hosts, first_host;
    sbuf names;
} loss_line;

static int same_losses(const rp_profile *a, const rp_profile *b)
{
    if (a->n_steps != b->n_steps)
        return 0;
    for (size_t i = 0; i < a->n_steps; i++)
        if (a->step[i].has_loss != b->step[i].has_loss || (a->step[i].has_loss && a->step[i].loss != b->step[i].loss))
            return 0;
    return 1;
}

/* Steps for the text table: evenly spread, plus the first step whose loss
 * differs from the vectors'. */
static size_t table_steps(size_t n, long extra, size_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < TABLE_ROWS && n; i++) {
        size_t s = (n - 1) * i / (TABLE_ROWS - 1);
        if (!k || out[k - 1] != s)
            out[k++] = s;
    }
    if (extra >= 0 && (size_t)extra < n) {
        size_t at = 0;
        while (at < k && out[at] < (size_t)extra)
            at++;
        if (at == k || out[at] != (size_t)extra) {
            memmove(out + at + 1, out + at, (k - at) * sizeof *out);
            out[at] = (size_t)extra;
            k++;
        }
    }
    return k;
}

static void loss_value(hw *w, const rp_step *st)
{
    if (!st || !st->has_loss) {
        HW(w, "<td class=\"num muted\">\xe2\x80\x94</td>");
        return;
    }
    HW_N(w, "<td class=\"num\"><code>0x%08x</code> ", (unsigned)st->loss);
    HW_F(w, "%.9g", (double)rp_f32(st->loss));
    HW(w, "</td>");
}

/* The hosts grouped by their loss sequence (one line per group, at most
 * MAX_LINES; *more counts the hosts left out); *steps the longest run. */
static size_t group_lines(const rp_page *p, const char *name, loss_line *lines, size_t *steps, size_t *more)
{
    size_t nl = 0;
    *more = *steps = 0;
    for (size_t i = 0; i < p->nh; i++) {
        const rp_profile *pf = rp_profile_of(p, &p->rows[i], name);
        if (!pf || !pf->n_steps)
            continue;
        *steps = pf->n_steps > *steps ? pf->n_steps : *steps;
        size_t k = 0;
        while (k < nl && !same_losses(lines[k].pf, pf))
            k++;
        if (k == nl) {
            if (nl == MAX_LINES) {
                (*more)++;
                continue;
            }
            lines[nl].pf = pf, lines[nl].hosts = 0, lines[nl].first_host = i;
            sbuf_init(&lines[nl].names);
            nl++;
        }
        if (lines[k].hosts++ < 4)
            sbuf_printf(&lines[k].names, "%s%.40s", lines[k].hosts > 1 ? ", " : "", p->rows[i].h->name);
        else if (lines[k].hosts == 5)
            sbuf_adds(&lines[k].names, ", \xe2\x80\xa6");
    }
    return nl;
}

/* One line's losses as plot values (NaN where none) and the first step
 * whose loss differs from the vectors' (-1: none, or no vectors). */
static long line_values(const rp_profile *pf, const train_vec *tv, size_t steps, double *y)
{
    long first = -1;
    for (size_t s = 0; s < steps; s++) {
        const rp_step *st = s < pf->n_steps ? &pf->step[s] : NULL;
        y[s] = st && st->has_loss ? (double)rp_f32(st->loss) : NAN;
        if (tv && first < 0 && s <= tv->steps && st && st->has_loss != tv->trace[s].has_loss)
            first = (long)s;
        if (tv && first < 0 && s <= tv->steps && st && st->has_loss && st->loss != tv->trace[s].loss)
            first = (long)s;
    }
    return first;
}

/* The text table behind the plot: loss bits and value at selected steps
 * (around the first step any line differs from the vectors). */
static void loss_table(hw *w, const loss_line *lines, size_t nl, const train_vec *tv, const svg_series *ser,
                       size_t ns, size_t steps)
{
    size_t rows[TABLE_ROWS + 1];
    long firstd = -1;
    for (size_t k = 0; k < nl && tv; k++)
        for (size_t s = 0; s < lines[k].pf->n_steps && s <= tv->steps; s++)
            if (lines[k].pf->step[s].has_loss && lines[k].pf->step[s].loss != tv->trace[s].loss) {
                if (firstd < 0 || (long)s < firstd)
                    firstd = (long)s;
                break;
            }
    size_t nr = table_steps(steps, firstd, rows);
    HW(w, "<details class=\"data\"><summary>The numbers (loss bits and value at selected steps)</summary>"
          "<div class=\"wrap\"><table><thead><tr><th scope=\"col\">step</th>");
    for (size_t k = 0; k < ns; k++) {
        HW_WRAP(w, "<th scope=\"col\">", ser[k].label, HW_CAP_CELL, "</th>");
    }
    HW(w, "</tr></thead><tbody>");
    for (size_t r = 0; r < nr; r++) {
        size_t s = rows[r];
        HW_N(w, "<tr><th scope=\"row\" class=\"num\">%zu</th>", s);
        for (size_t k = 0; k < nl; k++)
            loss_value(w, s < lines[k].pf->n_steps ? &lines[k].pf->step[s] : NULL);
        if (tv) {
            rp_step g = {0, 0, 0, 0};
            if (s <= tv->steps)
                g.has_loss = (unsigned char)tv->trace[s].has_loss, g.loss = tv->trace[s].loss;
            loss_value(w, &g);
        }
        HW(w, "</tr>");
    }
    HW(w, "</tbody></table></div></details>\n");
}

static void loss_plot(hw *w, const rp_page *p, const char *name)
{
    loss_line lines[MAX_LINES];
    size_t more, steps;
    size_t nl = group_lines(p, name, lines, &steps, &more);
    if (!nl)
        return;
    const train_vec *tv = golden(p, name);
    if (tv && (size_t)tv->steps + 1 > steps)
        steps = (size_t)tv->steps + 1;
    double *x = xcalloc(steps, sizeof *x), *ys = xcalloc(steps * (nl + 1), sizeof *ys);
    for (size_t s = 0; s < steps; s++)
        x[s] = (double)s;
    svg_series ser[MAX_LINES + 1];
    char *labels[MAX_LINES + 1];
    size_t ns = 0;
    /* what the picture says, in words */
    sbuf d;
    sbuf_init(&d);
    sbuf_printf(&d, "Training loss at every step of profile %.60s, steps 0 to %zu. ", name, steps - 1);
    for (size_t k = 0; k < nl; k++) {
        double *y = ys + (k + 1) * steps;
        long first = line_values(lines[k].pf, tv, steps, y);
        labels[ns] = lines[k].hosts == 1 ? xasprintf("%s", lines[k].names.p)
                                         : xasprintf("%zu hosts: %s", lines[k].hosts, lines[k].names.p);
        ser[ns] = (svg_series){labels[ns], steps, x, y, 0, (int)k};
        ns++;
        sbuf_printf(&d, "%s%s: ", k ? " " : "", labels[ns - 1]);
        if (!tv)
            sbuf_adds(&d, "(the vectors' losses are not at hand to compare).");
        else if (first < 0)
            sbuf_adds(&d, "loss bits identical to the vectors' at every recorded step.");
        else
            sbuf_printf(&d, "loss first differs from the vectors' at step %ld.", first);
    }
    if (more)
        sbuf_printf(&d, " %zu further hosts have loss sequences of their own, not drawn.", more);
    if (tv) { /* drawn last, dashed, so it shows over the hosts that equal it */
        double *y = ys;
        for (size_t s = 0; s < steps; s++)
            y[s] = s <= tv->steps && tv->trace[s].has_loss ? (double)rp_f32(tv->trace[s].loss) : NAN;
        labels[ns] = xstrdup("the vectors' loss (golden)");
        ser[ns] = (svg_series){labels[ns], steps, x, y, 1, 6};
        ns++;
    }
    char *title = xasprintf("Loss per step, profile %.60s", name);
    svg_plot pl = {title, d.p, "step", "loss", 0, 220};
    HW(w, "<h3>Loss per step, profile ");
    hw_text_cap(w, name, HW_CAP_NAME);
    HW(w, "</h3>\n<p>Hosts whose loss bits are identical at every step share one line; the dashed line is the "
          "vectors' loss. Identical losses do not mean identical parameters: the strip below compares digests.</p>\n");
    svg_line_plot(w, &pl, ser, ns);
    loss_table(w, lines, nl, tv, ser, ns, steps);
    for (size_t k = 0; k < ns; k++)
        free(labels[k]);
    for (size_t k = 0; k < nl; k++)
        sbuf_free(&lines[k].names);
    free(title);
    sbuf_free(&d);
    free(x);
    free(ys);
}

/* Every step of a profile in the state digest_strip counts as equal. */
static int equal_throughout(const rp_profile *pf, size_t steps)
{
    int whole = pf->n_steps == steps;
    for (size_t s = 0; whole && s < steps; s++)
        whole = pf->step[s].state == RS_PASS;
    return whole;
}

/* What the strips say, in words: how many hosts are equal at every step,
 * and where each other host is equal and where it differs. */
static void strip_words(sbuf *d, const char *name, const svg_strip *rows, const rp_profile *const *pfs, size_t n,
                        size_t steps)
{
    sbuf eq;
    sbuf_init(&eq);
    sbuf_printf(d, "For each host, each step of profile %.60s from 0 to %zu: whether its checkpoint's SHA-256 "
                   "equals the vectors' digest (the case verdict verify checked). ", name, steps - 1);
    size_t all_equal = 0;
    for (size_t r = 0; r < n; r++)
        all_equal += equal_throughout(pfs[r], steps);
    sbuf_printf(d, "%zu of %zu hosts are equal at every step.", all_equal, n);
    for (size_t r = 0; r < n; r++) {
        if (equal_throughout(pfs[r], steps))
            continue;
        sbuf_reset(&eq);
        rp_ranges(&eq, pfs[r]->step, pfs[r]->n_steps, RS_PASS);
        sbuf_printf(d, " %.40s: equal at %s; ", rows[r].label, eq.p);
        sbuf_reset(&eq);
        rp_ranges(&eq, pfs[r]->step, pfs[r]->n_steps, RS_FAIL);
        sbuf_printf(d, "differs at %s.", eq.p);
    }
    sbuf_free(&eq);
}

/* The table behind the strips: each host's steps per state, as ranges. */
static void strip_table(hw *w, const svg_strip *rows, const rp_profile *const *pfs, size_t n)
{
    sbuf eq;
    sbuf_init(&eq);
    HW(w, "<details class=\"data\"><summary>The steps, as ranges</summary><div class=\"wrap\"><table><thead><tr>"
          "<th scope=\"col\">host</th><th scope=\"col\">digest equal</th><th scope=\"col\">differs</th>"
          "<th scope=\"col\">error</th><th scope=\"col\">skipped</th></tr></thead><tbody>");
    for (size_t r = 0; r < n; r++) {
        HW_WRAP(w, "<tr><th scope=\"row\">", rows[r].label, HW_CAP_NAME, "</th>");
        static const unsigned char st[4] = {RS_PASS, RS_FAIL, RS_ERROR, RS_SKIP};
        for (int k = 0; k < 4; k++) {
            sbuf_reset(&eq);
            rp_ranges(&eq, pfs[r]->step, pfs[r]->n_steps, st[k]);
            HW_WRAP(w, "<td>", eq.p, HW_CAP_CELL, "</td>");
        }
        HW(w, "</tr>");
    }
    HW(w, "</tbody></table></div></details>\n");
    sbuf_free(&eq);
}

static void digest_strip(hw *w, const rp_page *p, const char *name)
{
    svg_strip *rows = xcalloc(p->nh + 1, sizeof *rows);
    unsigned char **bufs = xcalloc(p->nh + 1, sizeof *bufs);
    const rp_profile **pfs = xcalloc(p->nh + 1, sizeof *pfs);
    size_t n = 0, steps = 0;
    for (size_t i = 0; i < p->nh; i++) {
        const rp_profile *pf = rp_profile_of(p, &p->rows[i], name);
        if (!pf)
            continue;
        bufs[n] = xcalloc(pf->n_steps + 1, 1);
        for (size_t s = 0; s < pf->n_steps; s++)
            bufs[n][s] = pf->step[s].state;
        rows[n] = (svg_strip){p->rows[i].h->name, bufs[n], pf->n_steps};
        pfs[n] = pf;
        steps = pf->n_steps > steps ? pf->n_steps : steps;
        n++;
    }
    if (n && steps) {
        sbuf d;
        sbuf_init(&d);
        strip_words(&d, name, rows, pfs, n, steps);
        char *title = xasprintf("Checkpoint digest equals the vectors', per step, profile %.60s", name);
        HW_WRAP(w, "<h3>Digest equals the vectors', per step, profile ", name, HW_CAP_NAME, "</h3>\n");
        svg_strips(w, title, d.p, rows, n, steps);
        strip_table(w, rows, pfs, n);
        free(title);
        sbuf_free(&d);
    }
    for (size_t r = 0; r < n; r++)
        free(bufs[r]);
    free(bufs);
    free(rows);
    free(pfs);
}

void sec_plots(hw *w, const rp_page *p)
{
    if (!p->nr)
        return;
    const char *names[RP_MAX_PROFILES * 4];
    size_t n = rp_profile_names(p, names, sizeof names / sizeof names[0]);
    if (!n)
        return;
    HW(w, "<section id=\"plots\"><h2>Per step</h2>\n");
    for (size_t k = 0; k < n; k++) {
        HW(w, "<div class=\"grid2\"><div>");
        loss_plot(w, p, names[k]);
        HW(w, "</div><div>");
        digest_strip(w, p, names[k]);
        HW(w, "</div></div>\n");
    }
    HW(w, "</section>\n");
}

/* One host's loss against the vectors', in ULPs (log scale, 0 drawn below
 * the smallest gap): how a failing run drifts away. */
void rp_plot_loss_gap(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf)
{
    const train_vec *tv = golden(p, pf->name);
    if (!tv || !pf->n_steps)
        return;
    size_t steps = pf->n_steps < (size_t)tv->steps + 1 ? pf->n_steps : (size_t)tv->steps + 1;
    double *x = xcalloc(steps + 1, sizeof *x), *y = xcalloc(steps + 1, sizeof *y);
    long first = -1, last_zero = -1;
    uint64_t maxu = 0;
    size_t maxs = 0;
    for (size_t s = 0; s < steps; s++) {
        x[s] = (double)s;
        const rp_step *st = &pf->step[s];
        if (!st->has_loss || !tv->trace[s].has_loss) {
            y[s] = NAN;
            continue;
        }
        uint64_t u = ulp_distance(st->loss, tv->trace[s].loss);
        y[s] = (double)u;
        if (u && first < 0)
            first = (long)s;
        if (!u && first < 0)
            last_zero = (long)s;
        if (u > maxu)
            maxu = u, maxs = s;
    }
    if (first >= 0) {
        sbuf d;
        sbuf_init(&d);
        sbuf_printf(&d, "Distance in ULPs between %.40s's loss and the vectors' loss at each step of profile %.60s. ",
                    row->h->name, pf->name);
        if (last_zero >= 0)
            sbuf_printf(&d, "Identical through step %ld; ", last_zero);
        sbuf_printf(&d, "first differs at step %ld; the largest gap is %llu ULP at step %zu; at step %zu it is ",
                    first, (unsigned long long)maxu, maxs, steps - 1);
        if (isnan(y[steps - 1]))
            sbuf_adds(&d, "not recorded.");
        else
            sbuf_printf(&d, "%.0f ULP.", y[steps - 1]);
        char *title = xasprintf("Loss gap to the vectors (ULP), %.40s, %.60s", row->h->name, pf->name);
        char *label = xasprintf("|loss \xe2\x88\x92 vectors' loss|, %.40s", row->h->name);
        svg_series s = {label, steps, x, y, 0, 1};
        svg_plot pl = {title, d.p, "step", "ULP (log scale)", 1, 160};
        svg_line_plot(w, &pl, &s, 1);
        free(title);
        free(label);
        sbuf_free(&d);
    }
    free(x);
    free(y);
}

/* ---- --divergence -------------------------------------------------------- */

static void divergence_panel(hw *w, const rp_divergence *dv, int param, const char *title)
{
    svg_series ser[8];
    double *xs[8], *ys[8];
    sbuf d;
    sbuf_init(&d);
    sbuf_printf(&d, "%s, per step, log scale (0 drawn below the smallest gap), from %.200s. ", title, dv->file);
    for (size_t k = 0; k < dv->n_pairs && k < 8; k++) {
        size_t n = 0;
        for (size_t i = 0; i < dv->n; i++)
            n += dv->row[i].pair == k;
        xs[k] = xcalloc(n + 1, sizeof **xs);
        ys[k] = xcalloc(n + 1, sizeof **ys);
        size_t j = 0;
        long first = -1;
        double last = NAN;
        uint32_t last_step = 0;
        for (size_t i = 0; i < dv->n; i++) {
            if (dv->row[i].pair != k)
                continue;
            xs[k][j] = dv->row[i].step;
            ys[k][j] = param ? dv->row[i].param_gap : dv->row[i].loss_gap;
            if (first < 0 && ys[k][j] > 0)
                first = (long)dv->row[i].step;
            last = ys[k][j], last_step = dv->row[i].step;
            j++;
        }
        ser[k] = (svg_series){dv->pair[k], j, xs[k], ys[k], 0, (int)k};
        sbuf_printf(&d, "%.80s: ", dv->pair[k]);
        if (first < 0)
            sbuf_adds(&d, "zero at every step. ");
        else
            sbuf_printf(&d, "first non-zero at step %ld, %.3g at step %u. ", first, last, (unsigned)last_step);
    }
    svg_plot pl = {title, d.p, "step", param ? "max |param A \xe2\x88\x92 param B|" : "|loss A \xe2\x88\x92 loss B|",
                   1, 180};
    HW_WRAP(w, "<div><h4>", title, HW_CAP_CELL, "</h4>");
    svg_line_plot(w, &pl, ser, dv->n_pairs < 8 ? dv->n_pairs : 8);
    HW(w, "</div>");
    for (size_t k = 0; k < dv->n_pairs && k < 8; k++) {
        free(xs[k]);
        free(ys[k]);
    }
    sbuf_free(&d);
}

void sec_divergence(hw *w, const rp_page *p)
{
    if (!p->n_div)
        return;
    HW(w, "<section id=\"divergence\"><h2>Divergence of two runs (supplementary data)</h2>\n"
          "<p>Not part of any receipt: how far apart two runs of one training job drift, as "
          "<code>adapters/pytorch/divergence.py</code> measured it (<code>make pytorch-divergence</code>). "
          "Whether two runs are identical is the runner's verdict (<code>isotrain-conform compare</code>); these "
          "are the sizes of their differences.</p>\n");
    for (size_t i = 0; i < p->n_div; i++) {
        const rp_divergence *dv = &p->div[i];
        HW_WRAP(w, "<h3>", dv->file, HW_CAP_NAME, "</h3><p class=\"muted\">SHA-256 <code>");
        hw_text(w, dv->sha256);
        HW(w, "</code>");
        HW_F(w, "; %zu rows, %zu pair%s.", dv->n, dv->n_pairs, dv->n_pairs == 1 ? "" : "s");
        HW(w, "</p>\n<div class=\"grid2\">");
        divergence_panel(w, dv, 0, "Loss gap per step");
        divergence_panel(w, dv, 1, "Largest parameter gap per step");
        HW(w, "</div>\n<details class=\"data\"><summary>The numbers at selected steps</summary><div class=\"wrap\">"
              "<table><thead><tr><th scope=\"col\">pair</th><th scope=\"col\" class=\"num\">step</th>"
              "<th scope=\"col\" class=\"num\">loss gap</th><th scope=\"col\" class=\"num\">max parameter gap</th>"
              "</tr></thead><tbody>");
        for (size_t k = 0; k < dv->n_pairs; k++) {
            size_t *idx = xcalloc(dv->n + 1, sizeof *idx), n = 0;
            for (size_t r = 0; r < dv->n; r++)
                if (dv->row[r].pair == k)
                    idx[n++] = r;
            size_t sel[TABLE_ROWS + 1];
            size_t ns = table_steps(n, -1, sel);
            for (size_t j = 0; j < ns; j++) {
                const struct rp_div_row *r = &dv->row[idx[sel[j]]];
                HW(w, "<tr><td>");
                hw_text_cap(w, dv->pair[k], HW_CAP_NAME);
                HW_N(w, "</td><td class=\"num\">%u</td><td class=\"num\">", (unsigned)r->step);
                if (isnan(r->loss_gap))
                    HW(w, "\xe2\x80\x94");
                else
                    HW_F(w, "%.6g", r->loss_gap);
                HW(w, "</td><td class=\"num\">");
                HW_F(w, "%.6g", r->param_gap);
                HW(w, "</td></tr>");
            }
            free(idx);
        }
        HW(w, "</tbody></table></div></details>\n");
    }
    HW(w, "</section>\n");
}
