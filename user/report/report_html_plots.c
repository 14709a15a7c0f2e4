/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTML report's data plots: the latency distribution, the latency of
 * each run in start order, and the resources of each critical function in
 * slow and fast runs as stacked bars.
 */
#include <math.h>
#include <stdlib.h>
#include "report.h"
#include "report_html.h"
#include "util.h"

#define NBINS 40
/*
 * More runs than this are drawn as bars of several consecutive runs each:
 * a bar per run of a 50 000-run trace would be megabytes of markup and
 * thinner than a pixel.
 */
#define MAX_RUN_BARS 600

/* The run plots: canvas, and the plot area inside the axes. */
enum { PW = 912, PH = 282, PL = 70, PR = 880, PT = 44, PB = 222 };

static const struct svg_key class_keys[] = {
	{"fast runs", HTML_FAST_COLOR},
	{"slow runs", HTML_SLOW_COLOR},
};

void html_plot_histogram(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	size_t n = dataset__nruns(ds);
	unsigned fast[NBINS] = {0}, slow[NBINS] = {0}, top = 1;
	double lo = INFINITY, hi = 0, w, thr = r->lab.threshold_ns;
	struct svg_scale x, y;
	char data[128], a[32], b[32], lbl[48];

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, dataset__run(ds, i)->latency_ns);
		hi = fmax(hi, dataset__run(ds, i)->latency_ns);
	}
	/* lo + 1 is lo itself past 2^53 ns (a forged trace): the bins need a width */
	if (!(hi > lo))
		hi = lo + fmax(1, lo * 1e-6);
	w = (hi - lo) / NBINS;
	for (size_t i = 0; i < n; i++) {
		double q = (dataset__run(ds, i)->latency_ns - lo) / w;
		int k = q >= NBINS ? NBINS - 1 : q > 0 ? (int)q : 0;

		(r->slow[i] ? slow : fast)[k]++;
		if (fast[k] + slow[k] > top)
			top = fast[k] + slow[k];
	}
	x = (struct svg_scale){lo, hi, PL, PR};
	y = (struct svg_scale){0, svg_nice_max(top), PB, PT};
	snprintf(data, sizeof(data), "data-bins=\"%d\" data-runs=\"%zu\" data-slow=\"%zu\"", NBINS,
		 n, r->lab.nslow);
	svg_begin(f, "plot-latency-hist", "histogram", data, PW, PH, "Latency distribution");
	svg_legend(f, PR - 180, 18, class_keys, 2);
	svg_yaxis(f, &y, PL, PR, SVG_COUNT, "runs");
	for (int k = 0; k < NBINS; k++) {
		double x0 = svg_map(&x, lo + k * w), x1 = svg_map(&x, lo + (k + 1) * w);
		double yf = svg_map(&y, fast[k]), ys = svg_map(&y, fast[k] + slow[k]);

		/* a few slow runs among thousands must still show */
		yf = fast[k] && yf > PB - 2 ? PB - 2 : yf;
		ys = slow[k] && ys > yf - 2 ? yf - 2 : ys;

		fprintf(f, "<g class=\"bin\"><title>%s to %s: %u fast, %u slow</title>",
			report__dur(lo + k * w, a, sizeof(a)),
			report__dur(lo + (k + 1) * w, b, sizeof(b)), fast[k], slow[k]);
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
			"</g>",
			x0, yf, x1 - x0 - 1, PB - yf, HTML_FAST_COLOR, x0, ys, x1 - x0 - 1, yf - ys,
			HTML_SLOW_COLOR);
	}
	if (thr >= lo && thr <= hi) {
		double tx = svg_map(&x, thr);

		fprintf(f,
			"<g class=\"threshold\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke-dasharray=\"5 3\"/>",
			tx, PT - 6, tx, PB);
		snprintf(lbl, sizeof(lbl), "slow > %s", report__dur(thr, a, sizeof(a)));
		svg_text(f, tx + 4, PT + 4, "start", NULL, lbl);
		fputs("</g>", f);
	}
	svg_xaxis(f, &x, PB, SVG_DUR, "latency of a run");
	svg_end(f, NULL);
}

struct run_ord {
	uint32_t file;
	uint64_t start;
	size_t i;
};

/* The order of the evidence's runs test: trace by trace, by start time. */
static int cmp_run(const void *a, const void *b)
{
	const struct run_ord *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static double bar_width(double x0, double x1)
{
	return x1 - x0 > 3 ? x1 - x0 - 1 : x1 - x0;
}

/* One run, red when slow. */
static void run_bar(FILE *f, const struct dataset *ds, const struct diagnosis *r, size_t pos,
		    size_t run, const struct svg_scale *x, const struct svg_scale *y)
{
	double v = dataset__run(ds, run)->latency_ns, py = svg_map(y, v);
	char a[32];

	fprintf(f,
		"<rect class=\"bar\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		"fill=\"%s\"><title>run %zu (pid %u): %s%s</title></rect>",
		svg_map(x, (double)pos), py,
		bar_width(svg_map(x, (double)pos), svg_map(x, (double)pos + 1)), PB - py,
		r->slow[run] ? HTML_SLOW_COLOR : HTML_FAST_COLOR, pos + 1,
		dataset__run(ds, run)->pid, report__dur(v, a, sizeof(a)),
		r->slow[run] ? ", slow" : "");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Runs [from, to) of the order as one bar: blue up to their median, on up
 * to the slowest in red as deep as the share of slow runs among them
 * (pale for one slow run in many, full in a burst), blue if none is slow.
 * lat: room for to - from values.
 */
static void run_group(FILE *f, const struct dataset *ds, const struct diagnosis *r,
		      const struct run_ord *o, size_t from, size_t to, const struct svg_scale *x,
		      const struct svg_scale *y, double *lat)
{
	double x0 = svg_map(x, (double)from), w = bar_width(x0, svg_map(x, (double)to));
	double med, top, ym, yt, share;
	size_t n = to - from, nslow = 0;
	char a[32], b[32];

	for (size_t k = from; k < to; k++) {
		lat[k - from] = dataset__run(ds, o[k].i)->latency_ns;
		nslow += r->slow[o[k].i] != 0;
	}
	xlp_sort(lat, n, sizeof(*lat), cmp_double);
	med = n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2;
	top = lat[n - 1];
	ym = svg_map(y, med);
	yt = svg_map(y, top);
	share = (double)nslow / (double)n;
	fprintf(f,
		"<g class=\"bar\" data-slow=\"%zu\"><title>runs %zu to %zu: median %s, the "
		"slowest %s, %zu slow</title>",
		nslow, from + 1, to, report__dur(med, a, sizeof(a)), report__dur(top, b, sizeof(b)),
		nslow);
	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>"
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
		"fill-opacity=\"%.2f\"/></g>",
		x0, ym, w, PB - ym, HTML_FAST_COLOR, x0, yt, w, ym - yt,
		nslow ? HTML_SLOW_COLOR : HTML_FAST_COLOR, nslow ? 0.2 + 0.8 * share : 0.5);
}

void html_plot_runs(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	size_t n = dataset__nruns(ds), per, nb;
	struct run_ord *o;
	double top = 0, *lat;
	struct svg_scale x, y;
	char data[128], cap[256], a[32], lbl[48];

	if (!n)
		return;
	o = malloc(n * sizeof(*o));
	lat = malloc(n * sizeof(*lat));
	if (!o || !lat) {
		free(o);
		free(lat);
		fputs("<p class=\"warn\">latency per run: not drawn (out of memory)</p>", f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dataset_run *run = dataset__run(ds, i);

		o[i] = (struct run_ord){run->file, run->start_ns, i};
		top = fmax(top, run->latency_ns);
	}
	xlp_sort(o, n, sizeof(*o), cmp_run);
	per = n <= MAX_RUN_BARS ? 1 : (n + MAX_RUN_BARS - 1) / MAX_RUN_BARS;
	nb = (n + per - 1) / per;
	x = (struct svg_scale){0, (double)n, PL, PR};
	y = (struct svg_scale){0, svg_nice_max(top), PB, PT};
	snprintf(data, sizeof(data), "data-runs=\"%zu\" data-bars=\"%zu\" data-per-bar=\"%zu\"", n,
		 nb, per);
	svg_begin(f, "plot-latency-runs", "runs", data, PW, PH, "Latency per run, in start order");
	svg_legend(f, PR - 180, 18, class_keys, 2);
	svg_yaxis(f, &y, PL, PR, SVG_DUR, "latency");
	for (size_t b = 0; b < nb && per == 1; b++)
		run_bar(f, ds, r, b, o[b].i, &x, &y);
	for (size_t b = 0; b < nb && per > 1; b++)
		run_group(f, ds, r, o, b * per, b * per + per < n ? b * per + per : n, &x, &y, lat);
	snprintf(lbl, sizeof(lbl), "slow > %s", report__dur(r->lab.threshold_ns, a, sizeof(a)));
	if (r->lab.threshold_ns <= y.hi)
		svg_hline(f, svg_map(&y, r->lab.threshold_ns), PL, PR, lbl);
	svg_xaxis(f, &x, PB, SVG_COUNT,
		  dataset__nfiles(ds) > 1 ? "runs in start order, trace after trace"
					  : "runs in start order");
	if (per > 1)
		snprintf(cap, sizeof(cap),
			 "%zu runs in %zu bars of %zu consecutive runs: a bar is blue up to the "
			 "median of its runs, and goes on to the slowest, red as deep as the share "
			 "of "
			 "slow runs among them.",
			 n, nb, per);
	else
		snprintf(cap, sizeof(cap),
			 "%zu runs, one bar each, red when slow: slow runs that come in bursts "
			 "stand side by side.",
			 n);
	svg_end(f, cap);
	free(o);
	free(lat);
}

/* Mean time per run of each time resource, slow and fast runs: the step 2 tree's feature
 * statistics (means add up where medians do not, so they stack). */
static bool means(const struct diagnosis_step2 *s, double *slow, double *fast)
{
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		slow[k] = fast[k] = NAN;
	if (!s || !s->tree)
		return false;
	for (size_t j = 0; j < s->nused && j < dtree__nfeatures(s->tree); j++) {
		const struct dtree_feat_stats *st = dtree__feat_stats(s->tree, j);

		if (diagnosis__feat_is_time(s->featmap[j])) {
			slow[s->featmap[j]] = st->m_slow;
			fast[s->featmap[j]] = st->m_fast;
		}
	}
	return true;
}

/* The resource bars: canvas, bar area, height of one group. */
enum { RW = 900, RL = 120, RR = 790, RT = 50, RG = 68 };

static void stack(FILE *f, const double *m, bool slow, uint32_t runs, double scale, double y)
{
	double total = 0, x = RL;
	char a[32], b[32];

	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		total += m[k] > 0 ? m[k] : 0;
	fprintf(f, "<g class=\"stack\" data-runs=\"%s\" data-total-ns=\"%.0f\">",
		slow ? "slow" : "fast", total);
	snprintf(b, sizeof(b), "%s runs (%u)", slow ? "slow" : "fast", runs);
	svg_text(f, RL - 6, y + 12, "end", NULL, b);
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
		double w = m[k] > 0 ? m[k] * scale : 0;

		if (w <= 0)
			continue;
		fprintf(f,
			"<rect class=\"seg\" data-res=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			"height=\"16\" fill=\"%s\"><title>%s: %s per %s run (%.0f "
			"%%)</title></rect>",
			diagnosis__feat_name(k), x, y, w, html_feat_color(k),
			diagnosis__feat_name(k), report__dur(m[k], a, sizeof(a)),
			slow ? "slow" : "fast", 100 * m[k] / total);
		x += w;
	}
	svg_text(f, x + 5, y + 12, "start", NULL, report__dur(total, a, sizeof(a)));
	fputs("</g>", f);
}

void html_plot_resources(FILE *f, const char *id, const struct html_group *g, size_t n)
{
	bool shown[DIAGNOSIS_NFEAT] = {0};
	struct svg_key keys[DIAGNOSIS_NFEAT];
	size_t nk = 0;
	char data[64];

	if (!n)
		return;
	/* the legend names the resources drawn, not every one the tables list */
	for (size_t i = 0; i < n; i++) {
		double slow[DIAGNOSIS_NFEAT], fast[DIAGNOSIS_NFEAT];

		means(g[i].s, slow, fast);
		for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
			shown[k] |= slow[k] > 0 || fast[k] > 0;
	}
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		if (shown[k])
			keys[nk++] = (struct svg_key){diagnosis__feat_name(k), html_feat_color(k)};
	snprintf(data, sizeof(data), "data-groups=\"%zu\"", n);
	svg_begin(f, id, "resources", data, RW, RT + (int)n * RG + 30,
		  "Mean time per run by resource, slow vs fast runs");
	svg_legend(f, 8, 38, keys, nk);
	for (size_t i = 0; i < n; i++) {
		double slow[DIAGNOSIS_NFEAT], fast[DIAGNOSIS_NFEAT], ts = 0, tf = 0,
								     y = RT + (double)i * RG;

		fprintf(f, "<g class=\"func\" data-func=\"%zu\">", i);
		svg_text_cut(f, 8, y + 12, "start", "fname", g[i].name, 110);
		if (!means(g[i].s, slow, fast)) {
			svg_text(f, RL, y + 32, "start", NULL, "no resource data");
			fputs("</g>", f);
			continue;
		}
		for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
			ts += slow[k] > 0 ? slow[k] : 0;
			tf += fast[k] > 0 ? fast[k] : 0;
		}
		stack(f, slow, true, g[i].s->nslow, ts > 0 || tf > 0 ? (RR - RL) / fmax(ts, tf) : 0,
		      y + 18);
		stack(f, fast, false, g[i].s->nfast,
		      ts > 0 || tf > 0 ? (RR - RL) / fmax(ts, tf) : 0, y + 40);
		fputs("</g>", f);
	}
	svg_text(f, (RL + RR) / 2.0, RT + (double)n * RG + 14, "middle", "alabel",
		 "mean time per run, stacked by resource (each group on its own scale; the number: "
		 "the total)");
	svg_end(f, "Means over the runs, a run that did not call the function counting 0 (the "
		   "step 2 tree's statistics: means add up, the medians of the tables do not).");
}
