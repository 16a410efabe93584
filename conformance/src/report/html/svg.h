/* svg.h — inline SVG figures for the report: line plots (linear or log y)
 * and per-step strips. Each figure is an <svg role="img"> with a <title>
 * and a <desc> (its text alternative, which the caller writes: what a
 * reader would take from the picture), a legend in HTML beside it, and no
 * external reference of any kind. Colours come from CSS classes (s0..s7,
 * the Okabe-Ito palette; st-pass/st-fail/...), so print and contrast rules
 * live in one stylesheet. */
#ifndef CONFORM_REPORT_HTML_SVG_H
#define CONFORM_REPORT_HTML_SVG_H

#include <stddef.h>

#include "report/html/html_writer.h"

typedef struct {
    const char *label;  /* legend text (escaped) */
    size_t n;
    const double *x, *y; /* NaN y: no point */
    int dashed;
    int color;          /* 0..7 */
} svg_series;

typedef struct {
    const char *title;  /* the figure's title (escaped) */
    const char *desc;   /* its text alternative (escaped) */
    const char *xlabel, *ylabel;
    int logy;           /* log10 y axis; y <= 0 drawn on a "0" line below the data */
    int height;         /* of the plotting area, px (0: 220) */
} svg_plot;

/* A figure; its ids come from w->fig (page order, so deterministic). */
void svg_line_plot(hw *w, const svg_plot *pl, const svg_series *s, size_t n);

/* One row per label, one cell per step coloured by its state (0..4: the
 * rp_state values), runs of one state drawn as one rectangle. */
typedef struct {
    const char *label;
    const unsigned char *state;
    size_t n;
} svg_strip;
void svg_strips(hw *w, const char *title, const char *desc, const svg_strip *rows, size_t n, size_t steps);

#endif
