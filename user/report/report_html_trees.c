/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTML report's trees: both decision trees as node-link diagrams
 * (and as nested lists), the drill-down chain of a critical function, and
 * its calling-context tree as flame graphs of slow and fast runs.
 */
#include <math.h>
#include <stdlib.h>
#include "report.h"
#include "report_html.h"

/* Decision trees: node box, the slot of a leaf, the height of a level, margins. */
enum { NW = 126, NH = 40, SW = 136, LH = 86, TM = 10, TT = 66 };
/* A tree up to this wide shrinks to the page; a wider one would be unreadable so: it scrolls. */
#define FIT_WIDTH 1500
/* Deeper than any tree --max-depth allows: a bound for the recursion only. */
#define MAX_TREE_DEPTH 64

#define SLOW_FILL "#f6d3cf"
#define FAST_FILL "#eaf1fa"

struct layout {
	const struct dtree *t;
	double *slot; /* leaves 0, 1, 2... left to right; a split between its children */
	int *depth;   /* -1: not reached from the root */
	size_t nleaves, nodes;
	int maxd;
};

static double place(struct layout *l, int i, int d)
{
	const struct dtree_node *nd;
	double a, b;

	if (i < 0 || (size_t)i >= dtree__nnodes(l->t) || l->depth[i] >= 0 || d > MAX_TREE_DEPTH)
		return (double)l->nleaves;
	nd = dtree__node(l->t, (size_t)i);
	l->depth[i] = d;
	l->maxd = d > l->maxd ? d : l->maxd;
	l->nodes++;
	if (nd->feature < 0)
		return l->slot[i] = (double)l->nleaves++;
	a = place(l, nd->left, d + 1);
	b = place(l, nd->right, d + 1);
	return l->slot[i] = (a + b) / 2;
}

static double node_x(const struct layout *l, int i)
{
	return TM + l->slot[i] * SW + SW / 2.0;
}

static double node_y(const struct layout *l, int i)
{
	return TT + l->depth[i] * LH + NH / 2.0;
}

static void edge(FILE *f, const struct layout *l, int from, int to, bool slow, const char *op,
		 const char *v)
{
	double x1 = node_x(l, from), y1 = node_y(l, from) + NH / 2.0;
	double x2 = node_x(l, to), y2 = node_y(l, to) - NH / 2.0, ym = (y1 + y2) / 2;

	fprintf(f,
		"<path class=\"edge%s\" d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\"/>"
		"<text class=\"elabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s %s</text>",
		slow ? " slow" : "", x1, y1, x1, ym, x2, ym, x2, y2, x2, y2 - 6, op, v);
}

static void node(FILE *f, const struct layout *l, int i, const char *const *names,
		 const char *const *colors, const char *v)
{
	const struct dtree_node *nd = dtree__node(l->t, (size_t)i);
	double x = node_x(l, i) - NW / 2.0, y = node_y(l, i) - NH / 2.0;
	bool leaf = nd->feature<0, slow = 2 * nd->nslow> nd->n;
	char line[64];

	fprintf(f, "<g class=\"node%s%s\" data-node=\"%d\"><title>", leaf ? " leaf" : "",
		leaf && slow ? " slow" : "", i);
	if (leaf) {
		fprintf(f, "leaf: %u runs, %u slow", nd->n, nd->nslow);
	} else {
		html_esc(f, names[nd->feature]);
		fprintf(f, ": %u runs, %u slow; split at %s, the slow side %s", nd->n, nd->nslow, v,
			nd->slow_right ? "&gt;" : "&le;");
	}
	fprintf(f,
		"</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" rx=\"4\" "
		"fill=\"%s\" stroke=\"%s\"/>",
		x, y, NW, NH, leaf ? (slow ? SLOW_FILL : FAST_FILL) : "#fff",
		leaf && slow ? HTML_SLOW_COLOR : "#888");
	if (!leaf && colors)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"%d\" fill=\"%s\"/>", x,
			y, NH, colors[nd->feature]);
	if (leaf) {
		snprintf(line, sizeof(line), "%u runs", nd->n);
		svg_text(f, x + NW / 2.0, y + 16, "middle", NULL, line);
		snprintf(line, sizeof(line), "%u slow (%.0f %%)", nd->nslow,
			 nd->n ? 100.0 * nd->nslow / nd->n : 0);
		svg_text(f, x + NW / 2.0, y + 32, "middle", NULL, line);
	} else {
		svg_text_cut(f, x + NW / 2.0 + 3, y + 16, "middle", "fname", names[nd->feature],
			     17);
		snprintf(line, sizeof(line), "%u runs, %u slow", nd->n, nd->nslow);
		svg_text(f, x + NW / 2.0 + 3, y + 32, "middle", NULL, line);
	}
	fputs("</g>", f);
}

static const struct svg_key tree_keys[] = {
	{"leaf: mostly slow runs", SLOW_FILL},
	{"leaf: mostly fast runs", FAST_FILL},
};

void html_tree(FILE *f, const char *id, const char *title, const struct dtree *t,
	       const char *const *names, const char *const *colors, html_value_fn val,
	       const void *ctx)
{
	size_t nn = t ? dtree__nnodes(t) : 0;
	struct layout l = {.t = t, .maxd = 0};
	char data[96], v[32];
	int w, h;

	if (!nn)
		return;
	l.slot = calloc(nn, sizeof(*l.slot));
	l.depth = malloc(nn * sizeof(*l.depth));
	if (!l.slot || !l.depth)
		goto cleanup;
	for (size_t i = 0; i < nn; i++)
		l.depth[i] = -1;
	place(&l, 0, 0);
	w = TM * 2 + (int)l.nleaves * SW;
	w = w < 640 ? 640 : w;
	h = TT + l.maxd * LH + NH + 12;
	snprintf(data, sizeof(data), "data-nodes=\"%zu\" data-leaves=\"%zu\"%s", l.nodes, l.nleaves,
		 w <= FIT_WIDTH ? " class=\"fit\"" : "");
	svg_begin(f, id, "tree", data, w, h, title);
	svg_text(f, svg_legend(f, 8, 38, tree_keys, 2) + 6, 38, "start", NULL,
		 "red line: the slow side of a split");
	for (size_t i = 0; i < nn; i++) {
		const struct dtree_node *nd = dtree__node(t, i);

		if (l.depth[i] < 0 || nd->feature < 0)
			continue;
		val(ctx, nd->feature, nd->threshold, v, sizeof(v));
		if (nd->left >= 0 && (size_t)nd->left < nn && l.depth[nd->left] > l.depth[i])
			edge(f, &l, (int)i, nd->left, !nd->slow_right, "&le;", v);
		if (nd->right >= 0 && (size_t)nd->right < nn && l.depth[nd->right] > l.depth[i])
			edge(f, &l, (int)i, nd->right, nd->slow_right, "&gt;", v);
	}
	for (size_t i = 0; i < nn; i++) {
		const struct dtree_node *nd = dtree__node(t, i);

		if (l.depth[i] < 0)
			continue;
		v[0] = 0;
		if (nd->feature >= 0)
			val(ctx, nd->feature, nd->threshold, v, sizeof(v));
		node(f, &l, (int)i, names, colors, v);
	}
	svg_end(f, NULL);
cleanup:
	free(l.slot);
	free(l.depth);
}

static void list_node(FILE *f, const struct dtree *t, int i, const char *const *names,
		      html_value_fn val, const void *ctx, int d)
{
	const struct dtree_node *nd;
	char v[32];

	if (i < 0 || (size_t)i >= dtree__nnodes(t) || d > MAX_TREE_DEPTH)
		return;
	nd = dtree__node(t, (size_t)i);
	if (nd->feature < 0) {
		fprintf(f, "<span class=\"%s\">%u runs, %u slow</span>",
			2 * nd->nslow > nd->n ? "slow" : "leaf", nd->n, nd->nslow);
		return;
	}
	val(ctx, nd->feature, nd->threshold, v, sizeof(v));
	fprintf(f, "%u runs, %u slow<ul><li>", nd->n, nd->nslow);
	html_esc(f, names[nd->feature]);
	fprintf(f, " &le; %s: ", v);
	list_node(f, t, nd->left, names, val, ctx, d + 1);
	fputs("</li><li>", f);
	html_esc(f, names[nd->feature]);
	fprintf(f, " &gt; %s: ", v);
	list_node(f, t, nd->right, names, val, ctx, d + 1);
	fputs("</li></ul>", f);
}

void html_tree_list(FILE *f, const struct dtree *t, const char *const *names, html_value_fn val,
		    const void *ctx)
{
	if (!t)
		return;
	fputs("<details><summary>the tree as a list</summary><div class=\"tree\">", f);
	list_node(f, t, 0, names, val, ctx, 0);
	fputs("</div></details>\n", f);
}

static const char *res_value(const void *ctx, int feature, double v, char *buf, size_t len)
{
	const struct diagnosis_step2 *s = ctx;

	return report__value(s->featmap[feature], v, buf, len);
}

void html_step2_tree(FILE *f, const char *id, const char *title, const struct diagnosis_step2 *s)
{
	const char *names[DIAGNOSIS_NFEAT], *colors[DIAGNOSIS_NFEAT];

	if (!s->tree)
		return;
	for (size_t i = 0; i < s->nused; i++) {
		names[i] = diagnosis__feat_name(s->featmap[i]);
		colors[i] = html_feat_color(s->featmap[i]);
	}
	html_tree(f, id, title, s->tree, names, colors, res_value, s);
	html_tree_list(f, s->tree, names, res_value, s);
}

/* Drill-down chain: one row per level, canvas and bar area. */
enum { CW = 900, CL = 20, CR = 780, CT = 34, CH = 36 };

void html_chain(FILE *f, const char *id, const struct dataset *ds,
		const struct diagnosis_critical *c)
{
	double top = 0;
	struct svg_scale x;
	char data[64], a[32];

	if (c->nchain < 2)
		return;
	for (size_t k = 0; k < c->nchain; k++)
		top = fmax(top, c->chain_added[k]);
	x = (struct svg_scale){0, svg_nice_max(top), CL, CR};
	snprintf(data, sizeof(data), "data-links=\"%zu\"", c->nchain);
	svg_begin(f, id, "chain", data, CW, CT + (int)c->nchain * CH + 44,
		  "Drill-down chain: time added in slow runs at each level");
	for (size_t k = 0; k < c->nchain; k++) {
		const struct dataset_func *fn = dataset__func(ds, c->chain[k]);
		double y = CT + (double)k * CH, add = c->chain_added[k] > 0 ? c->chain_added[k] : 0;
		double w = svg_map(&x, add) - CL;

		fprintf(f, "<g class=\"link\" data-link=\"%zu\"><title>", k);
		html_esc(f, fn->name);
		fprintf(f, " (");
		html_esc(f, fn->binary);
		fprintf(f, "): %s more per slow run than per fast run</title>",
			report__dur(c->chain_added[k], a, sizeof(a)));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"fname\">%s", CL + 12.0 * (double)k,
			y + 10, k ? "\u21b3 " : "");
		html_esc_cut(f, fn->name, 90);
		fprintf(f,
			"</text><rect x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"14\" "
			"fill=\"%s\"/>",
			CL, y + 15, w, HTML_SLOW_COLOR);
		svg_text(f, CL + w + 5, y + 26, "start", NULL, report__dur(add, a, sizeof(a)));
		fputs("</g>", f);
	}
	svg_xaxis(f, &x, CT + (double)c->nchain * CH, SVG_DUR,
		  "time added per run (mean in slow runs minus mean in fast runs)");
	svg_end(f, NULL);
}

/* Flame graphs: canvas, bar area, height of a frame. */
enum { FW = 912, FL = 90, FR = 880, FT = 54, FH = 18 };
#define MAX_FLAME 64

/* The counter most of a frame's time went to in slow (or fast) runs, -1 if none. */
static int frame_top(const struct dataset_cct_node *x, bool slow)
{
	const double *v = slow ? x->slow : x->fast;
	int best = -1;

	for (int c = XLP_C_CPU_RUN; c < XLP_NR_CTR; c++) {
		/* sleep_s and sleep_d are the sum of the reasons: count each wait once */
		if (c == XLP_C_SLEEP_S || c == XLP_C_SLEEP_D || html_ctr_feat(c) == DIAGNOSIS_NFEAT)
			continue;
		if (v[c] > 0 && (best < 0 || v[c] > v[best]))
			best = c;
	}
	return best;
}

static void frame(FILE *f, const struct dataset *ds, const struct diagnosis *r,
		  const struct dataset_cct_node *x, size_t i, bool slow, double x0, double w,
		  double y)
{
	const struct dataset_func *fn = dataset__func(ds, x->func);
	int top = frame_top(x, slow);
	char a[32], b[32], d[32];

	fprintf(f, "<g class=\"frame\" data-node=\"%zu\"><title>", i);
	html_esc(f, fn->name);
	fputs(" (", f);
	html_esc(f, fn->binary);
	fprintf(f, "): %s per slow run, %s per fast run",
		report__dur(report__cct_mean(x, r, true, XLP_C_WALL), a, sizeof(a)),
		report__dur(report__cct_mean(x, r, false, XLP_C_WALL), b, sizeof(b)));
	if (top >= 0)
		fprintf(f, "; most of it in %s runs %s (%s)", slow ? "slow" : "fast",
			diagnosis__feat_name(html_ctr_feat(top)),
			report__dur(report__cct_mean(x, r, slow, top), d, sizeof(d)));
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>",
		x0, y, w, FH - 1, top >= 0 ? html_feat_color(html_ctr_feat(top)) : "#cccccc");
	if (w > 40)
		svg_text_cut(f, x0 + 3, y + 13, "start", "flabel", fn->name,
			     (size_t)((w - 6) / 6.5));
	fputs("</g>", f);
}

/*
 * Places the i-th node of a flame graph (order: depth first, each node
 * after its parent), of width m, after its parent's children placed so
 * far: start[i] is where it begins, next[i] where its first child will.
 */
static void flame_place(const uint32_t *order, size_t i, uint32_t parent, double m, double *start,
			double *next)
{
	start[i] = 0;
	for (size_t j = i; i && j-- > 0;)
		if (order[j] == parent) {
			start[i] = next[j];
			next[j] += m;
			break;
		}
	next[i] = start[i];
}

/*
 * One panel: order[] is depth first, each node after its parent, so a
 * node's place is its parent's start plus what its elder siblings took.
 */
static void panel(FILE *f, const struct dataset *ds, const struct diagnosis *r,
		  const struct dataset_cct *t, const uint32_t *order, size_t n, bool slow,
		  const struct svg_scale *x, double y0)
{
	double start[MAX_FLAME], next[MAX_FLAME];
	uint32_t d0 = dataset_cct__node(t, order[0])->depth;

	svg_text(f, FL - 8, y0 + 13, "end", "fname", slow ? "slow runs" : "fast runs");
	for (size_t i = 0; i < n; i++) {
		const struct dataset_cct_node *nd = dataset_cct__node(t, order[i]);
		double m = report__cct_mean(nd, r, slow, XLP_C_WALL);
		uint32_t d = nd->depth > d0 ? nd->depth - d0 : 0;

		flame_place(order, i, nd->parent, m, start, next);
		frame(f, ds, r, nd, i, slow, svg_map(x, start[i]), svg_map(x, start[i] + m) - x->a,
		      y0 + (d < 31 ? d : 31) * FH);
	}
}

void html_flame(FILE *f, const char *id, const struct dataset *ds, const struct diagnosis *r,
		const struct diagnosis_critical *c)
{
	uint32_t order[MAX_FLAME], d0, maxd = 0;
	size_t n = report__cct_order(c->cct, r, order, MAX_FLAME), nk = 0;
	bool shown[DIAGNOSIS_NFEAT] = {0};
	struct svg_key keys[DIAGNOSIS_NFEAT];
	double top, ph, yf;
	struct svg_scale x;
	char data[64];

	if (!n)
		return;
	d0 = dataset_cct__node(c->cct, order[0])->depth;
	for (size_t i = 0; i < n; i++) {
		const struct dataset_cct_node *nd = dataset_cct__node(c->cct, order[i]);
		uint32_t d = nd->depth > d0 ? nd->depth - d0 : 0;

		maxd = d > maxd ? d : maxd;
		for (int s = 0; s < 2; s++)
			if (frame_top(nd, s) >= 0)
				shown[html_ctr_feat(frame_top(nd, s))] = true;
	}
	maxd = maxd < 31 ? maxd : 31;
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		if (shown[k])
			keys[nk++] = (struct svg_key){diagnosis__feat_name(k), html_feat_color(k)};
	top = fmax(report__cct_mean(dataset_cct__node(c->cct, order[0]), r, true, XLP_C_WALL),
		   report__cct_mean(dataset_cct__node(c->cct, order[0]), r, false, XLP_C_WALL));
	x = (struct svg_scale){0, svg_nice_max(top), FL, FR};
	ph = (maxd + 1) * FH;
	yf = FT + ph + 16;
	snprintf(data, sizeof(data), "data-frames=\"%zu\"", n);
	svg_begin(f, id, "flame", data, FW, (int)(yf + ph + 48),
		  "Calling context (stack samples): time per run, slow runs above fast runs");
	svg_legend(f, 8, 38, keys, nk);
	panel(f, ds, r, c->cct, order, n, true, &x, FT);
	panel(f, ds, r, c->cct, order, n, false, &x, yf);
	svg_xaxis(f, &x, yf + ph + 2, SVG_DUR,
		  "time per run under each frame (a frame's colour: where most of it went)");
	svg_end(f, NULL);
}

/* Differential flame graph: one panel, the slow runs' shape, coloured by growth. */
#define MAX_DIFF REPORT_MAX_DIFF

static void dframe(FILE *f, const struct dataset *ds, const struct diagnosis_why *g, size_t i,
		   const struct dataset_diff_node *x, const struct dataset_diff_node *x0, double x_,
		   double w, double y)
{
	double ss = x0->wslow > 0 ? x->wslow / x0->wslow : 0;
	double fs = x0->wfast > 0 ? x->wfast / x0->wfast : 0, d = ss - fs;
	/* the change of the frame's share of the samples: red grew, blue shrank */
	double a = fmin(1, fabs(d) * 2);
	char name[512], s[32], q[32], ad[32];

	report__frame(ds, x, name, sizeof(name));
	fprintf(f,
		"<g class=\"dframe\" data-node=\"%zu\" data-slow=\"%u\" data-fast=\"%u\"><title>",
		i, x->nslow, x->nfast);
	html_esc(f, name);
	fprintf(f,
		": %u samples in slow runs (%.0f %%), %u in fast (%.0f %%); %s per slow run, %s "
		"per fast run, %s%s added",
		x->nslow, 100 * ss, x->nfast, 100 * fs,
		report__dur(g->nslow_runs ? x->wslow / g->nslow_runs : 0, s, sizeof(s)),
		report__dur(g->nfast_runs ? x->wfast / g->nfast_runs : 0, q, sizeof(q)),
		diagnosis__why_added(g, x) < 0 ? "-" : "",
		report__dur(fabs(diagnosis__why_added(g, x)), ad, sizeof(ad)));
	fprintf(f,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"hsl(%d,80%%,%.0f%%)\"/>",
		x_, y, w > 1 ? w : 1, FH - 1, d >= 0 ? 0 : 215, 92 - 40 * a);
	if (w > 40)
		svg_text_cut(f, x_ + 3, y + 13, "start", "flabel", name, (size_t)((w - 6) / 6.5));
	fputs("</g>", f);
}

void html_diff_flame(FILE *f, const char *id, const char *title, const struct dataset *ds,
		     const struct diagnosis_why *g)
{
	uint32_t order[MAX_DIFF], maxd = 0;
	size_t n = report__diff_order(g, order, MAX_DIFF);
	double start[MAX_DIFF], next[MAX_DIFF], per, ph;
	const struct dataset_diff_node *x0;
	struct svg_scale x;
	char data[128];

	if (!n)
		return;
	x0 = dataset_diff__node(g->diff, 0);
	per = g->nslow_runs ? x0->wslow / g->nslow_runs : 0;
	if (per <= 0)
		return; /* no sample in slow runs: no shape to draw */
	for (size_t i = 0; i < n; i++) {
		uint32_t d = dataset_diff__node(g->diff, order[i])->depth;

		maxd = d > maxd ? d : maxd;
	}
	maxd = maxd < 47 ? maxd : 47;
	x = (struct svg_scale){0, svg_nice_max(per), FL, FR};
	ph = (maxd + 1) * FH;
	snprintf(data, sizeof(data),
		 "data-frames=\"%zu\" data-slow-samples=\"%u\" data-fast-samples=\"%u\"", n,
		 x0->nslow, x0->nfast);
	svg_begin(f, id, "diff-flame", data, FW, (int)(FT + ph + 48), title);
	svg_legend(f, 8, 38,
		   (const struct svg_key[]){{"share of the samples grew", "hsl(0,80%,55%)"},
					    {"shrank", "hsl(215,80%,55%)"}},
		   2);
	svg_text(f, FL - 8, FT + 13, "end", "fname", "slow runs");
	for (size_t i = 0; i < n; i++) {
		const struct dataset_diff_node *nd = dataset_diff__node(g->diff, order[i]);
		double m = nd->wslow / g->nslow_runs;
		uint32_t d = nd->depth < 47 ? nd->depth : 47;

		flame_place(order, i, nd->parent, m, start, next);
		dframe(f, ds, g, i, nd, x0, svg_map(&x, start[i]), svg_map(&x, start[i] + m) - x.a,
		       FT + d * FH);
	}
	svg_xaxis(f, &x, FT + ph + 2, SVG_DUR,
		  "time per slow run under each frame (colour: how its share of the samples "
		  "changed from the fast runs)");
	svg_end(f, NULL);
}
