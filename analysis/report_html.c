/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One self-contained HTML page (inline CSS and SVG, no script, no network):
 * latency histogram, verdict, preconditions, both kinds of trees, the
 * slow-vs-fast breakdown of every critical function, baseline, function
 * table, what was not measured or lost.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "report.h"

#define NBINS 40

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}"
	".verdict{background:#f4f7ff;border-left:4px solid #3367d6;padding:.6em 1em}"
	"table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}"
	"td:first-child,th:first-child{text-align:left}tr:nth-child(even){background:#f6f6f6}"
	".slow{color:#c0392b}.tree ul{list-style:none;padding-left:1.4em;margin:0}"
	".tree li{margin:2px 0}.leaf{color:#666}.na{color:#999}.warn{color:#b35c00}";

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* Latency histogram; slow runs in red, the threshold as a dashed line. */
static void histogram(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	double lo = INFINITY, hi = 0, w, x;
	unsigned fast[NBINS] = { 0 }, slow[NBINS] = { 0 }, top = 1;
	size_t n = dataset__nruns(ds);
	char a[32], b[32];

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, dataset__run(ds, i)->latency_ns);
		hi = fmax(hi, dataset__run(ds, i)->latency_ns);
	}
	w = hi > lo ? (hi - lo) / NBINS : 1;
	for (size_t i = 0; i < n; i++) {
		int k = (int)((dataset__run(ds, i)->latency_ns - lo) / w);

		k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
		(r->slow[i] ? slow : fast)[k]++;
		if (fast[k] + slow[k] > top)
			top = fast[k] + slow[k];
	}
	fprintf(f, "<svg width=\"820\" height=\"190\" role=\"img\">");
	for (int k = 0; k < NBINS; k++) {
		double hf = 150.0 * fast[k] / top, hs = 150.0 * slow[k] / top;

		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"18\" height=\"%.1f\" fill=\"#7aa6e8\"/>",
			10 + 20 * k, 160 - hf, hf);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"18\" height=\"%.1f\" fill=\"#e07a6a\"/>",
			10 + 20 * k, 160 - hf - hs, hs);
	}
	x = 10 + 20 * (r->lab.threshold_ns - lo) / w;
	if (x >= 10 && x <= 810)
		fprintf(f, "<line x1=\"%.1f\" y1=\"5\" x2=\"%.1f\" y2=\"160\" stroke=\"#333\" "
			   "stroke-dasharray=\"4\"/>",
			x, x);
	fprintf(f, "<text x=\"10\" y=\"180\">%s</text><text x=\"810\" y=\"180\" "
		   "text-anchor=\"end\">%s</text></svg>\n",
		report__dur(lo, a, sizeof(a)), report__dur(hi, b, sizeof(b)));
}

/* value of feature f of a tree: step 1 features are times, step 2 ones resources */
typedef const char *(*value_fn)(const void *ctx, int feature, double v, char *buf, size_t len);

static void tree_node(FILE *f, const struct dtree *t, int i, const char *const *names,
		      value_fn val, const void *ctx)
{
	const struct dtree_node *nd = dtree__node(t, (size_t)i);
	char v[32];

	if (nd->feature < 0) {
		fprintf(f, "<span class=\"%s\">%u runs, %u slow</span>",
			2 * nd->nslow > nd->n ? "slow" : "leaf", nd->n, nd->nslow);
		return;
	}
	val(ctx, nd->feature, nd->threshold, v, sizeof(v));
	fprintf(f, "%u runs, %u slow<ul><li>", nd->n, nd->nslow);
	esc(f, names[nd->feature]);
	fprintf(f, " &le; %s: ", v);
	tree_node(f, t, nd->left, names, val, ctx);
	fputs("</li><li>", f);
	esc(f, names[nd->feature]);
	fprintf(f, " &gt; %s: ", v);
	tree_node(f, t, nd->right, names, val, ctx);
	fputs("</li></ul>", f);
}

static void tree(FILE *f, const struct dtree *t, const char *const *names, value_fn val,
		 const void *ctx)
{
	if (!t)
		return;
	fputs("<div class=\"tree\">", f);
	tree_node(f, t, 0, names, val, ctx);
	fputs("</div>\n", f);
}

static const char *time_value(const void *ctx, int feature, double v, char *buf, size_t len)
{
	return report__dur(v, buf, len);
}

static const char *res_value(const void *ctx, int feature, double v, char *buf, size_t len)
{
	const struct xa_step2 *s = ctx;

	return report__value(s->featmap[feature], v, buf, len);
}

static void step2_tree(FILE *f, const struct xa_step2 *s)
{
	const char *names[XA_NFEAT];

	for (size_t i = 0; i < s->nused; i++)
		names[i] = xa_feat_name(s->featmap[i]);
	tree(f, s->tree, names, res_value, s);
}
