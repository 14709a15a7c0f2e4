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
#include <string.h>
#include "escape.h"
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

/*
 * Text from traces (symbols, comm) in HTML: markup characters as entities,
 * control characters as visible "\xNN" (a page shown with cat must not
 * drive the terminal either), bytes that are not UTF-8 as U+FFFD (the page
 * is UTF-8).
 */
static void esc(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = str ? strlen(str) : 0;

	for (size_t i = 0; i < n;) {
		size_t u = xlp_utf8_len(s + i, n - i);

		if (s[i] == '<')
			fputs("&lt;", f);
		else if (s[i] == '>')
			fputs("&gt;", f);
		else if (s[i] == '&')
			fputs("&amp;", f);
		else if (s[i] == '"')
			fputs("&quot;", f);
		else if (s[i] == '\n' || s[i] == '\t')
			fputc(s[i], f);
		else if (s[i] < 0x20 || s[i] == 0x7f || (u == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0))
			xlp_fput_text(f, (const char *)s + i, u, false);
		else if (!u)
			fputs("&#xfffd;", f);
		else
			fwrite(s + i, 1, u, f);
		i += u ? u : 1;
	}
}

/* Latency histogram; slow runs in red, the threshold as a dashed line. */
static void histogram(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	double lo = INFINITY, hi = 0, w, x;
	unsigned fast[NBINS] = {0}, slow[NBINS] = {0}, top = 1;
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

		fprintf(f,
			"<rect x=\"%d\" y=\"%.1f\" width=\"18\" height=\"%.1f\" fill=\"#7aa6e8\"/>",
			10 + 20 * k, 160 - hf, hf);
		fprintf(f,
			"<rect x=\"%d\" y=\"%.1f\" width=\"18\" height=\"%.1f\" fill=\"#e07a6a\"/>",
			10 + 20 * k, 160 - hf - hs, hs);
	}
	x = 10 + 20 * (r->lab.threshold_ns - lo) / w;
	if (x >= 10 && x <= 810)
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"5\" x2=\"%.1f\" y2=\"160\" stroke=\"#333\" "
			"stroke-dasharray=\"4\"/>",
			x, x);
	fprintf(f,
		"<text x=\"10\" y=\"180\">%s</text><text x=\"810\" y=\"180\" "
		"text-anchor=\"end\">%s</text></svg>\n",
		report__dur(lo, a, sizeof(a)), report__dur(hi, b, sizeof(b)));
}

/* value of feature f of a tree: step 1 features are times, step 2 ones resources */
typedef const char *(*value_fn)(const void *ctx, int feature, double v, char *buf, size_t len);

static void tree_node(FILE *f, const struct dtree *t, int i, const char *const *names, value_fn val,
		      const void *ctx)
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

static void factors(FILE *f, const struct xa_step2 *s, const struct xa_peer *peer)
{
	char t[32], a[32], b[32];

	fputs("<ul>", f);
	for (size_t k = 0; k < s->nfactors; k++) {
		const struct xa_factor *x = &s->factors[k];

		fprintf(f,
			"<li><b>%s %s %s</b>: median %s in slow runs vs %s in fast; holds for %u "
			"of %u slow, %u of %u fast",
			xa_feat_name(x->feat), x->gt ? "&gt;" : "&le;",
			report__value(x->feat, x->threshold, t, sizeof(t)),
			report__value(x->feat, x->slow_median, a, sizeof(a)),
			report__value(x->feat, x->fast_median, b, sizeof(b)), x->slow_hits,
			x->nslow, x->fast_hits, x->nfast);
		if (x->from_freq_check)
			fputs(" (cpu_run grew but not the work done: lower CPU frequency)", f);
		if (x->feat == XA_IPC && peer && peer->found) {
			fprintf(f, "; waiting for pid %u (", peer->pid);
			esc(f, peer->comm);
			fputs(")", f);
		}
		fputs("</li>", f);
	}
	if (!s->nfactors)
		fputs("<li>no resource factor found</li>", f);
	fputs("</ul>\n", f);
}

static void breakdown(FILE *f, const struct xa_step2 *s, const char *time_label)
{
	char a[32], b[32];

	fprintf(f,
		"<table><tr><th>median</th><th>slow runs</th><th>fast runs</th></tr>"
		"<tr><td>%s</td><td>%s</td><td>%s</td></tr>",
		time_label, report__dur(s->time_slow_median, a, sizeof(a)),
		report__dur(s->time_fast_median, b, sizeof(b)));
	for (int k = 0; k < XA_NFEAT; k++) {
		if (!s->avail[k])
			fprintf(f,
				"<tr><td>%s</td><td class=\"na\">unavailable</td>"
				"<td class=\"na\">unavailable</td></tr>",
				xa_feat_name(k));
		else
			fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>", xa_feat_name(k),
				report__value(k, s->slow_median[k], a, sizeof(a)),
				report__value(k, s->fast_median[k], b, sizeof(b)));
	}
	fputs("</table>\n", f);
}

static void preconditions(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	const char **names = calloc(r->ncand + 1, sizeof(*names));
	char t[256];

	fputs("<h2>Slowdown preconditions (step 1)</h2><ol>", f);
	for (size_t i = 0; i < r->npre; i++) {
		fputs("<li>runs are slow when ", f);
		for (size_t k = 0; k < r->pre[i].ncond; k++) {
			fputs(k ? " AND <b>" : "<b>", f);
			esc(f, report__cond(ds, &r->pre[i].conds[k], t, sizeof(t)));
			fputs("</b>", f);
		}
		fprintf(f, " (%u of %zu slow runs)</li>", r->pre[i].slow_runs, r->lab.nslow);
	}
	fputs("</ol>\n", f);
	if (!names || !r->tree)
		goto cleanup;
	for (size_t i = 0; i < r->ncand; i++)
		names[i] = dataset__func(ds, r->cand[i])->symbol;
	fputs("<h3>Function tree</h3>", f);
	tree(f, r->tree, names, time_value, NULL);
cleanup:
	free(names);
}

/* The calling-context tree as an indented table (report__cct_order's nodes). */
static void context_tree(FILE *f, const struct dataset *ds, const struct xa_result *r,
			 const struct xa_critical *c)
{
	uint32_t order[64];
	size_t n = report__cct_order(c->cct, r, order, 64);
	char a[32], b[32];

	if (!n)
		return;
	fputs("<h3>Calling context (stack samples, per run)</h3><table><tr><th>function</th>"
	      "<th>slow runs</th><th>fast runs</th></tr>",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct ds_cct_node *x = cct__node(c->cct, order[i]);

		fprintf(f, "<tr><td style=\"padding-left:%uem\">", x->depth % 32);
		esc(f, dataset__func(ds, x->func)->symbol);
		fprintf(f, "</td><td>%s</td><td>%s</td></tr>",
			report__dur(report__cct_mean(x, r, true, XLP_C_WALL), a, sizeof(a)),
			report__dur(report__cct_mean(x, r, false, XLP_C_WALL), b, sizeof(b)));
	}
	fputs("</table>", f);
}

static void criticals(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	char t[32], chain[512], ev[1024], args[4096];

	for (size_t i = 0; i < r->ncrit; i++) {
		const struct xa_critical *c = &r->crit[i];

		fputs("<h2>Critical function ", f);
		esc(f, dataset__func(ds, c->func)->symbol);
		fputs(" (", f);
		esc(f, dataset__func(ds, c->func)->binary);
		fprintf(f, "%s): slow when %s %s</h2><p>%u runs ran it, %u slow.</p>",
			dataset__func(ds, c->func)->sampled ? "; sampled, never marked" : "",
			c->gt ? "&gt;" : "&le;", report__dur(c->threshold_ns, t, sizeof(t)), c->ran,
			c->s2.nslow);
		if (c->nchain > 1) {
			fputs("<p>Chain: ", f);
			esc(f, report__chain(ds, c, chain, sizeof(chain)));
			fputs("</p>", f);
		}
		fputs("<pre>", f);
		esc(f, report__evidence(r, c, ev, sizeof(ev)));
		fputs("</pre>", f);
		factors(f, &c->s2, &c->peer);
		breakdown(f, &c->s2, "time");
		fputs("<h3>Resource tree</h3>", f);
		step2_tree(f, &c->s2);
		context_tree(f, ds, r, c);
	}
	if (report__func_args(ds, r, args, sizeof(args))[0]) {
		fputs("<p>Measure the sampled functions exactly in a next recording: "
		      "<code>xlprobe record ",
		      f);
		esc(f, args);
		fputs(" ...</code></p>", f);
	}
}

static void baseline(FILE *f, const struct xa_result *r)
{
	if (!r->has_base)
		return;
	fprintf(f, "<h2>Baseline: whole-run resource usage</h2><p>%u runs.%s</p>", r->base.samples,
		!r->ncrit || !r->base.nfactors ? ""
		: r->agrees		       ? " Agrees with the function-level answer."
			    : " <b class=\"warn\">Differs from the function-level "
			      "answer.</b>");
	factors(f, &r->base, NULL);
	breakdown(f, &r->base, "latency");
	step2_tree(f, &r->base);
}

static void functions(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	char a[32];

	fputs("<h2>Functions</h2><p>Median over the runs where each ran.</p><table><tr><th>function"
	      "</th><th>runs</th><th>time</th>",
	      f);
	for (int k = 0; k < XA_NFEAT; k++)
		fprintf(f, "<th>%s</th>", xa_feat_name(k));
	fputs("</tr>", f);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct xa_func_row *row = &r->rows[i];

		fputs("<tr><td>", f);
		esc(f, dataset__func(ds, row->func)->symbol);
		fprintf(f, "</td><td>%u</td><td>%s</td>", row->runs,
			report__dur(row->time_median, a, sizeof(a)));
		for (int k = 0; k < XA_NFEAT; k++)
			fprintf(f, "<td>%s</td>",
				k == XA_CPU_FREQ && !(r->features & XLP_FEAT_CPUFREQ)
					? "unavailable"
					: report__value(k, row->median[k], a, sizeof(a)));
		fputs("</tr>", f);
	}
	fputs("</table>\n", f);
}

static void limits(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	const char *un[8];
	struct report_drop d[24];
	size_t nu = report__unavailable(r->features, un, 8), nd = report__drops(ds, d, 24);

	fputs("<h2>Not measured, lost</h2><ul>", f);
	for (size_t i = 0; i < nu; i++)
		fprintf(f, "<li>%s</li>", un[i]);
	for (size_t i = 0; i < nd; i++)
		fprintf(f, "<li class=\"warn\">%s %llu: %s</li>", d[i].name,
			(unsigned long long)d[i].count, d[i].what);
	if (!nd)
		fputs("<li>no events lost</li>", f);
	for (size_t i = 0; i < dataset__nfiles(ds); i++) {
		const struct ds_file_info *fi = dataset__file(ds, i);

		if (fi->truncated) {
			fputs("<li class=\"warn\">", f);
			esc(f, fi->path);
			fputs(" is truncated: analysed what was read</li>", f);
		}
		if (fi->damage) {
			fputs("<li class=\"warn\">", f);
			esc(f, fi->path);
			fputs(" is damaged: ", f);
			esc(f, fi->damage);
			fputs(": analysed what was read</li>", f);
		}
	}
	fputs("</ul>\n", f);
}

int report__html(FILE *f, const struct dataset *ds, const struct xa_result *r)
{
	char a[32], b[32], c[32], d[32], rule[64];
	struct report_verdict v;

	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>xlprobe report"
		"</title><style>%s</style></head><body>\n<h1>xlprobe report</h1>\n",
		style);
	report__verdict(ds, r, &v);
	fputs("<p class=\"verdict\">", f);
	esc(f, v.text);
	if (v.note[0]) {
		fputs("<br><small>", f);
		esc(f, v.note);
		fputs("</small>", f);
	}
	fprintf(f,
		"</p>\n<h2>Runs</h2><p>%zu runs: median %s, p90 %s, max %s; <span "
		"class=\"slow\">%zu slow</span>: latency &gt; %s (",
		r->lab.n, report__dur(r->lab.median_ns, a, sizeof(a)),
		report__dur(r->lab.p90_ns, b, sizeof(b)), report__dur(r->lab.max_ns, c, sizeof(c)),
		r->lab.nslow, report__dur(r->lab.threshold_ns, d, sizeof(d)));
	esc(f, report__rule(r, rule, sizeof(rule)));
	fputs(").</p>\n", f);
	histogram(f, ds, r);
	if (r->status == XA_OK) {
		preconditions(f, ds, r);
		criticals(f, ds, r);
	}
	baseline(f, r);
	functions(f, ds, r);
	limits(f, ds, r);
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
