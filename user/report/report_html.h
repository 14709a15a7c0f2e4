/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The parts of the HTML report; report_html.c assembles the page.
 *   report_svg.c         escaping, SVG primitives (frame, scales, axes,
 *                        legend) and the colour of each resource
 *   report_html_plots.c  latency histogram, latency per run, resource bars
 *   report_html_trees.c  decision trees, drill-down chains, flame graphs
 * Every plot is an <svg> with a stable id and a data-plot kind, and data-*
 * attributes with its element counts: tests (tests/unit/test_html_chromium.c)
 * find and count them in the DOM a browser built.
 */
#ifndef XLP_REPORT_HTML_H
#define XLP_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>
#include "diagnosis.h"

/* The page's style sheet (report_html.c), for every HTML report. */
extern const char html_style[];

/* ---- escaping (every string from a trace goes through these) ---- */

void html_esc(FILE *f, const char *s);
/* At most max characters of s, then "…" if there were more. */
void html_esc_cut(FILE *f, const char *s, size_t max);

/* ---- colours: one per resource, the same in every plot ---- */

#define HTML_SLOW_COLOR "#d9534f"
#define HTML_FAST_COLOR "#8fb3e0"
const char *html_feat_color(enum diagnosis_feat k);
/* The feature a time counter (XLP_C_*) is measured by, DIAGNOSIS_NFEAT if none. */
enum diagnosis_feat html_ctr_feat(int ctr);

/* ---- SVG primitives ---- */

/* Linear map of [lo, hi] onto [a, b] (pixels). */
struct svg_scale {
	double lo, hi, a, b;
};

double svg_map(const struct svg_scale *s, double v);
/* hi raised to a round number (1, 2 or 5 times a power of ten) above 0. */
double svg_nice_max(double hi);

enum svg_unit {
	SVG_COUNT, /* integers */
	SVG_DUR,   /* ns, written "41.2 ms" */
};

/*
 * Opens <figure><svg id=ID data-plot=KIND DATA ...> with a visible title
 * and a <title> for screen readers; DATA: further attributes (numbers
 * only) or "".
 */
void svg_begin(FILE *f, const char *id, const char *kind, const char *data, int w, int h,
	       const char *title);
/* Closes the svg and the figure, with caption cap under it (NULL: none). */
void svg_end(FILE *f, const char *cap);
/* Escaped text at (x, y); anchor "start", "middle" or "end"; cls may be NULL. */
void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s);
/* The same, cut to max characters. */
void svg_text_cut(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s,
		  size_t max);
/* Bottom axis of x at y: line, ticks, tick labels and the axis label. */
void svg_xaxis(FILE *f, const struct svg_scale *x, double y, enum svg_unit u, const char *label);
/* Left axis of y at x, grid lines to x2, tick labels and the axis label. */
void svg_yaxis(FILE *f, const struct svg_scale *y, double x, double x2, enum svg_unit u,
	       const char *label);
/* A horizontal dashed line at y from x1 to x2 with a label at its right end. */
void svg_hline(FILE *f, double y, double x1, double x2, const char *label);

struct svg_key {
	const char *name, *color;
};

/* One row of swatches and names from (x, y); returns the x after the last one. */
double svg_legend(FILE *f, double x, double y, const struct svg_key *k, size_t n);

/* ---- plots (report_html_plots.c) ---- */

void html_plot_histogram(FILE *f, const struct dataset *ds, const struct diagnosis *r);
void html_plot_runs(FILE *f, const struct dataset *ds, const struct diagnosis *r);

/* One function's (or the whole run's) step 2, drawn as a group of bars. */
struct html_group {
	const char *name; /* from the trace: escaped when written */
	const struct diagnosis_step2 *s;
};

void html_plot_resources(FILE *f, const char *id, const struct html_group *g, size_t n);

/* ---- trees (report_html_trees.c) ---- */

/* A split's threshold in words: a duration, or a frequency for cpu_freq. */
typedef const char *(*html_value_fn)(const void *ctx, int feature, double v, char *buf, size_t len);

/* Node-link drawing of t; colors: per tree feature (NULL: none). */
void html_tree(FILE *f, const char *id, const char *title, const struct dtree *t,
	       const char *const *names, const char *const *colors, html_value_fn val,
	       const void *ctx);
/* The same tree as nested lists, for reading and copying. */
void html_tree_list(FILE *f, const struct dtree *t, const char *const *names, html_value_fn val,
		    const void *ctx);
/* A step 2 tree (resource features) in both forms. */
void html_step2_tree(FILE *f, const char *id, const char *title, const struct diagnosis_step2 *s);
/* The drill-down chain: each level's added time (nothing for a chain of one). */
void html_chain(FILE *f, const char *id, const struct dataset *ds,
		const struct diagnosis_critical *c);
/* The calling-context tree as flame graphs, slow runs over fast (nothing without one). */
void html_flame(FILE *f, const char *id, const struct dataset *ds, const struct diagnosis *r,
		const struct diagnosis_critical *c);

/*
 * The differential flame graph of a growth (struct diagnosis_why): the slow
 * runs' frames, each coloured by how its share of the samples changed from
 * the fast runs' (nothing without samples in slow runs).
 */
void html_diff_flame(FILE *f, const char *id, const char *title, const struct dataset *ds,
		     const struct diagnosis_why *g);

#endif
