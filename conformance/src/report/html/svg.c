/* svg.c — see svg.h. Coordinates are written with one decimal, so the same
 * data gives the same bytes on every machine. */
#include "report/html/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A plot draws at most MAX_POINTS points per series and a strip at most
 * MAX_CELLS cells per row, whatever a receipt holds: longer data is drawn
 * every k-th point, or a cell per k steps showing the worst state among
 * them, so the page's size does not grow with the data's. */
enum { W = 760, ML = 70, MR = 16, MT = 12, MB = 40, MAX_POINTS = 1200, MAX_CELLS = 600 };

static void open_figure(hw *w, const char *title, const char *desc, unsigned id, int width, int height)
{
    HW_N(w, "<figure class=\"plot\"><svg role=\"img\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" aria-labelledby=\"fig%ut fig%ud\"><title id=\"fig%ut\">",
         width, height, width, height, id, id, id);
    hw_text(w, title);
    HW_N(w, "</title><desc id=\"fig%ud\">", id);
    hw_text_cap(w, desc, HW_CAP_PRE);
    HW(w, "</desc>");
}

/* Ticks at 1, 2 or 5 times a power of ten, about five of them. */
static double tick_step(double range)
{
    if (!(range > 0))
        return 1;
    double p = pow(10, floor(log10(range / 5)));
    double m = range / 5 / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

/* A line plot's data ranges and its scale: what the axes and the series
 * are drawn by. */
typedef struct {
    int ph, pw, H, zeros;
    double xmin, xmax, ymin, ymax, sx, sy;
} plot_frame;

/* The ranges of every finite point (on a log axis, the zeros apart: they
 * are drawn on a "0" line a decade below the smallest value), padded. */
static plot_frame plot_ranges(const svg_plot *pl, const svg_series *s, size_t n)
{
    plot_frame f = {pl->height ? pl->height : 220, W - ML - MR, 0, 0, INFINITY, -INFINITY, INFINITY, -INFINITY, 0, 0};
    f.H = f.ph + MT + MB;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            double x = s[k].x[i], y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y))
                continue;
            f.xmin = fmin(f.xmin, x), f.xmax = fmax(f.xmax, x);
            if (pl->logy && y <= 0) {
                f.zeros = 1;
                continue;
            }
            double v = pl->logy ? log10(y) : y;
            f.ymin = fmin(f.ymin, v), f.ymax = fmax(f.ymax, v);
        }
    if (!(f.xmax >= f.xmin))
        f.xmin = 0, f.xmax = 1;
    if (f.xmax == f.xmin)
        f.xmax = f.xmin + 1;
    if (!(f.ymax >= f.ymin))
        f.ymin = 0, f.ymax = 1;
    if (pl->logy) {
        f.ymin = floor(f.ymin), f.ymax = ceil(f.ymax);
        if (f.zeros)
            f.ymin -= 1; /* the "0" line, a decade below the smallest gap */
    } else {
        double pad = (f.ymax - f.ymin) * 0.05;
        if (pad == 0)
            pad = fabs(f.ymax) * 0.05 + 1e-6;
        f.ymin -= pad, f.ymax += pad;
    }
    if (f.ymax == f.ymin)
        f.ymax = f.ymin + 1;
    f.sx = f.pw / (f.xmax - f.xmin), f.sy = f.ph / (f.ymax - f.ymin);
    return f;
}

/* Frame, grid, ticks and the axis labels. */
static void plot_axes(hw *w, const svg_plot *pl, const plot_frame *f)
{
    int ph = f->ph, pw = f->pw;
    HW_N(w, "<g class=\"axis\"><rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", ML, MT, pw, ph);
    double xs = tick_step(f->xmax - f->xmin);
    for (double t = ceil(f->xmin / xs) * xs; t <= f->xmax + 1e-9; t += xs) {
        double px = ML + (t - f->xmin) * f->sx;
        HW_N(w, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", px, MT, px, MT + ph);
        HW_N(w, "<text class=\"tick\" text-anchor=\"middle\" x=\"%.1f\" y=\"%d\">%g</text>", px, MT + ph + 14, t);
    }
    double ys = pl->logy ? (f->ymax - f->ymin > 8 ? 2 : 1) : tick_step(f->ymax - f->ymin);
    for (double t = ceil(f->ymin / ys) * ys; t <= f->ymax + 1e-9; t += ys) {
        double py = MT + ph - (t - f->ymin) * f->sy;
        HW_N(w, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", ML, py, ML + pw, py);
        HW_N(w, "<text class=\"tick\" text-anchor=\"end\" x=\"%d\" y=\"%.1f\">", ML - 4, py + 4);
        if (pl->logy && f->zeros && t == f->ymin)
            HW(w, "0");
        else if (pl->logy)
            HW_N(w, "1e%d", (int)t);
        else
            HW_N(w, "%g", fabs(t) < ys * 1e-6 ? 0.0 : t);
        HW(w, "</text>");
    }
    HW_N(w, "<text class=\"label\" text-anchor=\"middle\" x=\"%d\" y=\"%d\">", ML + pw / 2, f->H - 6);
    hw_text(w, pl->xlabel);
    HW_N(w, "</text><text class=\"label\" text-anchor=\"middle\" transform=\"rotate(-90)\" x=\"%d\" y=\"%d\">",
         -(MT + ph / 2), 14);
    hw_text(w, pl->ylabel);
    HW(w, "</text></g>");
}

/* The series: one path each, broken where a point is missing. */
static void plot_series(hw *w, const svg_plot *pl, const plot_frame *f, const svg_series *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        HW_N(w, "<path class=\"series s%d", s[k].color & 7);
        if (s[k].dashed)
            HW(w, " dashed");
        HW(w, "\" d=\"");
        int pen = 0;
        size_t stride = (s[k].n + MAX_POINTS - 1) / MAX_POINTS;
        for (size_t i = 0; i < s[k].n; i += stride ? stride : 1) {
            double x = s[k].x[i], y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y)) {
                pen = 0;
                continue;
            }
            double v = pl->logy ? (y <= 0 ? f->ymin : log10(y)) : y;
            if (pen)
                HW(w, "L");
            else
                HW(w, "M");
            HW_N(w, "%.1f %.1f", ML + (x - f->xmin) * f->sx, MT + f->ph - (v - f->ymin) * f->sy);
            pen = 1;
        }
        HW(w, "\"/>");
    }
}

void svg_line_plot(hw *w, const svg_plot *pl, const svg_series *s, size_t n)
{
    plot_frame f = plot_ranges(pl, s, n);
    open_figure(w, pl->title, pl->desc, w->fig++, W, f.H);
    plot_axes(w, pl, &f);
    plot_series(w, pl, &f, s, n);
    HW(w, "</svg><figcaption><ul class=\"legend\">");
    for (size_t k = 0; k < n; k++) {
        HW_N(w, "<li><span class=\"swatch s%d", s[k].color & 7);
        if (s[k].dashed)
            HW(w, " dashed");
        HW(w, "\" aria-hidden=\"true\"></span>");
        hw_text(w, s[k].label);
        HW(w, "</li>");
    }
    HW(w, "</ul></figcaption></figure>\n");
}

static void state_class(hw *w, unsigned char st)
{
    switch (st) {
    case 1: HW(w, "st-pass"); break;
    case 2: HW(w, "st-fail"); break;
    case 3: HW(w, "st-skip"); break;
    case 4: HW(w, "st-error"); break;
    default: HW(w, "st-none"); break;
    }
}

/* Of the states of steps [a, b): the one a reader must not miss (a
 * difference, then an error, a skip, a step not reached, then equal). */
static unsigned char worst(const svg_strip *r, size_t a, size_t b)
{
    static const int rank[5] = {2, 0, 4, 1, 3}; /* by rp_state: none, pass, fail, skip, error */
    unsigned char w = 1;
    for (size_t i = a; i < b; i++) {
        unsigned char st = i < r->n && r->state[i] < 5 ? r->state[i] : 0;
        if (rank[st] > rank[w])
            w = st;
    }
    return w;
}

void svg_strips(hw *w, const char *title, const char *desc, const svg_strip *rows, size_t n, size_t steps)
{
    enum { LABEL = 190, ROW = 16, GAP = 4, TOP = 4, AXIS = 36 };
    int pw = W - LABEL - MR, H = TOP + (int)n * (ROW + GAP) + AXIS;
    double cw = steps ? (double)pw / (double)steps : pw;
    open_figure(w, title, desc, w->fig++, W, H);
    for (size_t r = 0; r < n; r++) {
        int y = TOP + (int)r * (ROW + GAP);
        HW_N(w, "<text class=\"rowlabel\" text-anchor=\"end\" x=\"%d\" y=\"%d\">", LABEL - 6, y + ROW - 4);
        hw_text_cap(w, rows[r].label, 28);
        HW(w, "</text>");
        size_t per = (steps + MAX_CELLS - 1) / MAX_CELLS; /* steps per cell */
        per = per ? per : 1;
        for (size_t i = 0; i < steps;) {
            unsigned char st = worst(&rows[r], i, i + per < steps ? i + per : steps);
            size_t j = i + per;
            while (j < steps && worst(&rows[r], j, j + per < steps ? j + per : steps) == st)
                j += per;
            j = j < steps ? j : steps;
            HW(w, "<rect class=\"");
            state_class(w, st);
            HW_N(w, "\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>", LABEL + i * cw, y, (j - i) * cw, ROW);
            i = j;
        }
    }
    int ya = TOP + (int)n * (ROW + GAP);
    double xs = tick_step((double)(steps ? steps - 1 : 1));
    for (double t = 0; steps && t <= (double)(steps - 1) + 1e-9; t += xs) {
        double px = LABEL + (t + 0.5) * cw;
        HW_N(w, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", px, ya - GAP, px, ya + 2);
        HW_N(w, "<text class=\"tick\" text-anchor=\"middle\" x=\"%.1f\" y=\"%d\">%g</text>", px, ya + 14, t);
    }
    HW_N(w, "<text class=\"label\" text-anchor=\"middle\" x=\"%d\" y=\"%d\">", LABEL + pw / 2, H - 2);
    HW(w, "step</text></svg><figcaption><ul class=\"legend\">"
          "<li><span class=\"swatch st-pass\" aria-hidden=\"true\"></span>digest equals the vectors'</li>"
          "<li><span class=\"swatch st-fail\" aria-hidden=\"true\"></span>differs</li>"
          "<li><span class=\"swatch st-error\" aria-hidden=\"true\"></span>error</li>"
          "<li><span class=\"swatch st-skip\" aria-hidden=\"true\"></span>skipped</li>"
          "<li><span class=\"swatch st-none\" aria-hidden=\"true\"></span>not reached / not run</li>"
          "</ul></figcaption></figure>\n");
}
