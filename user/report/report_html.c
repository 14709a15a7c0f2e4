/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One self-contained HTML page (inline CSS and SVG, no script, no network):
 * verdict, the runs (latency histogram, latency per run), preconditions
 * and the function tree, each critical function (resource bars, chain,
 * evidence, resource tree, calling context), baseline, function table,
 * what was not measured or lost. The plots are drawn by report_html_*.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "report_html.h"

const char html_style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}"
	".verdict{background:#f4f7ff;border-left:4px solid #3367d6;padding:.6em 1em}"
	/* long evidence lines and unbroken symbols wrap, a table wider than the
	 * column (the Functions table: a column per resource) scrolls in its own box: the
	 * page itself never scrolls sideways */
	"body{overflow-wrap:break-word}pre{white-space:pre-wrap;overflow-wrap:anywhere}"
	"table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}"
	"td,th{padding:2px 10px;text-align:right}"
	"td:first-child,th:first-child{text-align:left}tr:nth-child(even){background:#f6f6f6}"
	".slow{color:#c0392b}.tree ul{list-style:none;padding-left:1.4em;margin:0}"
	".tree li{margin:2px 0}.leaf{color:#666}.na{color:#999}.warn{color:#b35c00}"
	"figure.plot{margin:.8em 0;overflow-x:auto}figcaption{color:#555;font-size:.9em}"
	"svg.fit{max-width:100%;height:auto}"
	"details{margin:.3em 0}summary{color:#555;cursor:pointer}"
	"svg text{font:11px system-ui,sans-serif;fill:#333}svg .ptitle{font-size:13px;"
	"font-weight:600}svg .alabel{fill:#555}svg .fname{font-weight:600}"
	".axis line{stroke:#777}.axis line.grid{stroke:#e6e6e6}.threshold line{stroke:#333}"
	".threshold text{paint-order:stroke;stroke:#fff;stroke-width:3px}"
	".edge{fill:none;stroke:#aaa;stroke-width:1.5}.edge.slow{stroke:#d9534f;stroke-width:2.5}"
	".elabel{paint-order:stroke;stroke:#fff;stroke-width:3px}"
	".frame rect{stroke:#fff;stroke-width:.5}svg .flabel{fill:#111;paint-order:stroke;"
	"stroke:#fff;stroke-width:3px;stroke-opacity:.7}";

static const char *time_value(const void *ctx, int feature, double v, char *buf, size_t len)
{
	return report__dur(v, buf, len);
}

static void factors(FILE *f, const struct diagnosis_step2 *s, const struct diagnosis_peer *peer)
{
	char t[32], a[32], b[32];

	fputs("<ul>", f);
	for (size_t k = 0; k < s->nfactors; k++) {
		const struct diagnosis_factor *x = &s->factors[k];

		fprintf(f,
			"<li><b>%s %s %s</b>: median %s in slow runs vs %s in fast; holds for %u "
			"of %u slow, %u of %u fast",
			diagnosis__feat_name(x->feat), x->gt ? "&gt;" : "&le;",
			report__value(x->feat, x->threshold, t, sizeof(t)),
			report__value(x->feat, x->slow_median, a, sizeof(a)),
			report__value(x->feat, x->fast_median, b, sizeof(b)), x->slow_hits,
			x->nslow, x->fast_hits, x->nfast);
		if (x->from_freq_check)
			fputs(" (cpu_run grew but not the work done: lower CPU frequency)", f);
		if (x->from_beyond)
			fputs(" (no split of the tree: the resource beyond the bulk)", f);
		if (x->feat == DIAGNOSIS_IPC && peer && peer->found) {
			fprintf(f, "; waiting for pid %u (", peer->pid);
			html_esc(f, peer->comm);
			fputs(")", f);
		}
		fputs("</li>", f);
	}
	if (!s->nfactors)
		fputs("<li>no resource factor found</li>", f);
	fputs("</ul>\n", f);
}

static void breakdown(FILE *f, const struct diagnosis_step2 *s, const char *time_label)
{
	char a[32], b[32];

	fprintf(f,
		"<table><tr><th>median</th><th>slow runs</th><th>fast runs</th></tr>"
		"<tr><td>%s</td><td>%s</td><td>%s</td></tr>",
		time_label, report__dur(s->time_slow_median, a, sizeof(a)),
		report__dur(s->time_fast_median, b, sizeof(b)));
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
		if (!s->avail[k])
			fprintf(f,
				"<tr><td>%s</td><td class=\"na\">unavailable</td>"
				"<td class=\"na\">unavailable</td></tr>",
				diagnosis__feat_name(k));
		else
			fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>",
				diagnosis__feat_name(k),
				report__value(k, s->slow_median[k], a, sizeof(a)),
				report__value(k, s->fast_median[k], b, sizeof(b)));
	}
	fputs("</table>\n", f);
}

static void preconditions(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	const char **names = calloc(r->ncand + 1, sizeof(*names));
	char t[256];

	fputs("<h2>Slowdown preconditions (step 1)</h2>", f);
	if (!r->npre)
		fputs("<p>none</p>", f);
	else
		fputs("<ol>", f);
	for (size_t i = 0; i < r->npre; i++) {
		fputs("<li>runs are slow when ", f);
		for (size_t k = 0; k < r->pre[i].ncond; k++) {
			fputs(k ? " AND <b>" : "<b>", f);
			html_esc(f, report__cond(ds, &r->pre[i].conds[k], t, sizeof(t)));
			fputs("</b>", f);
		}
		fprintf(f, " (%u of %zu slow runs)</li>", r->pre[i].slow_runs, r->lab.nslow);
	}
	if (r->npre)
		fputs("</ol>\n", f);
	if (!names || !r->tree)
		goto cleanup;
	for (size_t i = 0; i < r->ncand; i++)
		names[i] = dataset__func(ds, r->cand[i])->name;
	fputs("<h3>Function tree</h3>", f);
	html_tree(f, "tree-step1", "Step 1: runs split by the time spent in functions", r->tree,
		  names, NULL, time_value, NULL);
	html_tree_list(f, r->tree, names, time_value, NULL);
cleanup:
	free(names);
}

/* The calling-context tree as an indented table (report__cct_order's nodes). */
static void context_tree(FILE *f, const struct dataset *ds, const struct diagnosis *r,
			 const struct diagnosis_critical *c, size_t rank)
{
	uint32_t order[64];
	size_t n = report__cct_order(c->cct, r, order, 64);
	char a[32], b[32], id[32];

	if (!n)
		return;
	fputs("<h3>Calling context (stack samples, per run)</h3>", f);
	snprintf(id, sizeof(id), "flame-%zu", rank);
	html_flame(f, id, ds, r, c);
	fputs("<table><tr><th>function</th>"
	      "<th>slow runs</th><th>fast runs</th></tr>",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct dataset_cct_node *x = dataset_cct__node(c->cct, order[i]);

		fprintf(f, "<tr><td style=\"padding-left:%uem\">", x->depth % 32);
		html_esc(f, dataset__func(ds, x->func)->name);
		fprintf(f, "</td><td>%s</td><td>%s</td></tr>",
			report__dur(report__cct_mean(x, r, true, XLP_C_WALL), a, sizeof(a)),
			report__dur(report__cct_mean(x, r, false, XLP_C_WALL), b, sizeof(b)));
	}
	fputs("</table>", f);
}

/* Why its time grew: calls, block requests, the frames that grew (a differential flame graph). */
static void why(FILE *f, const struct dataset *ds, const struct diagnosis *r,
		const struct diagnosis_critical *c, size_t rank)
{
	char *buf = malloc(8192), id[32];

	if (!buf)
		return;
	fputs("<h3>Why its time grew</h3><pre>", f);
	html_esc(f, report__why(ds, r, c, buf, 8192));
	fputs("</pre>", f);
	snprintf(id, sizeof(id), "diff-flame-%zu", rank);
	html_diff_flame(f, id,
			"Differential flame graph (stack samples of the leading factor's kind): "
			"slow runs, coloured by the change from fast runs",
			ds, &c->why);
	free(buf);
}

/* No function accused: the whole run's resource, and where its samples go. */
static void whole_run(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	char *buf = malloc(8192);

	if (!buf || !r->fallback.tested || r->status != DIAGNOSIS_NO_PRECOND) {
		free(buf);
		return;
	}
	fprintf(f, "<h2>The whole run%s: %s</h2><pre>", r->fallback.own ? " of their thread" : "",
		r->fallback.holds ? "explains the slow runs" : "no answer");
	html_esc(f, report__fallback(r, buf, 8192));
	if (r->fallback.holds) {
		fputs("\n", f);
		html_esc(f, report__why_path(ds, r, &r->fallback.why, false, buf, 8192));
	}
	fputs("</pre>", f);
	if (r->fallback.holds)
		html_diff_flame(f, "diff-flame-whole-run",
				"Differential flame graph of the whole run's resource: slow runs, "
				"coloured by the change from fast runs",
				ds, &r->fallback.why);
	free(buf);
}

/*
 * A text section (the wait chains, the async tasks) as preformatted text:
 * the same words as the text report, escaped for HTML.
 */
static void text_section(FILE *f, const char *title,
			 void (*fn)(FILE *f, const struct dataset *ds, const struct diagnosis *r),
			 const struct dataset *ds, const struct diagnosis *r)
{
	char *buf = NULL, *body;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	fn(m, ds, r);
	if (fclose(m) || !len) {
		free(buf);
		return;
	}
	/* the section's own first line is its title: skip it */
	body = buf + strspn(buf, "\n");
	body = strchr(body, '\n') ? strchr(body, '\n') + 1 : body;
	fprintf(f, "<h2>%s</h2><pre>", title);
	html_esc(f, body);
	fputs("</pre>\n", f);
	free(buf);
}

/* Every critical function's resources side by side, before each one's details. */
static void overview(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct html_group *g = calloc(r->ncrit + 1, sizeof(*g));

	if (!g || !r->ncrit)
		goto cleanup;
	for (size_t i = 0; i < r->ncrit; i++)
		g[i] = (struct html_group){dataset__func(ds, r->crit[i].func)->name,
					   &r->crit[i].s2};
	fputs("<h2>Critical functions: where their time went</h2>", f);
	html_plot_resources(f, "plot-resources", g, r->ncrit);
cleanup:
	free(g);
}

static void criticals(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	char t[32], chain[8192], ev[4096], args[4096], id[32];

	overview(f, ds, r);
	for (size_t i = 0; i < r->ncrit; i++) {
		const struct diagnosis_critical *c = &r->crit[i];

		fputs("<h2>Critical function ", f);
		html_esc(f, dataset__func(ds, c->func)->name);
		fputs(" (", f);
		html_esc(f, dataset__func(ds, c->func)->binary);
		fprintf(f, "%s): slow when %s %s</h2><p>%u runs ran it, %u slow.</p>",
			dataset__func(ds, c->func)->sampled ? "; sampled, never marked" : "",
			c->gt ? "&gt;" : "&le;", report__dur(c->threshold_ns, t, sizeof(t)), c->ran,
			c->s2.nslow);
		if (c->nchain > 1) {
			fputs("<p>Chain: ", f);
			html_esc(f, report__chain(ds, c, chain, sizeof(chain)));
			fputs("</p>", f);
			snprintf(id, sizeof(id), "chain-%zu", i + 1);
			html_chain(f, id, ds, c);
		}
		fputs("<pre>", f);
		html_esc(f, report__evidence(r, c, ev, sizeof(ev)));
		fputs("</pre>", f);
		factors(f, &c->s2, &c->peer);
		breakdown(f, &c->s2, "time");
		fputs("<h3>Resource tree</h3>", f);
		snprintf(id, sizeof(id), "tree-step2-%zu", i + 1);
		html_step2_tree(f, id, "Step 2: the function's runs split by resource", &c->s2);
		context_tree(f, ds, r, c, i + 1);
		why(f, ds, r, c, i + 1);
	}
	if (report__func_args(ds, r, args, sizeof(args))[0]) {
		fputs("<p>Measure the sampled functions exactly in a next recording: "
		      "<code>xlprobe record ",
		      f);
		html_esc(f, args);
		fputs(" ...</code></p>", f);
	}
}

static void baseline(FILE *f, const struct diagnosis *r)
{
	if (!r->has_base)
		return;
	fprintf(f, "<h2>Baseline: whole-run resource usage</h2><p>%u runs.%s</p>", r->base.samples,
		!r->ncrit || !r->base.nfactors ? ""
		: r->agrees		       ? " Agrees with the function-level answer."
			    : " <b class=\"warn\">Differs from the function-level "
			      "answer.</b>");
	factors(f, &r->base, NULL);
	html_plot_resources(
		f, "plot-resources-baseline",
		&(struct html_group){"whole run (all threads of the process)", &r->base}, 1);
	breakdown(f, &r->base, "latency");
	html_step2_tree(f, "tree-baseline", "Baseline: runs split by whole-run resource usage",
			&r->base);
}

/*
 * Rows of the Functions table on the page: --top-k sets how many functions
 * the analysis keeps (hundreds with a large one on a sampled trace), and a
 * page of hundreds of rows buries the rest; the text and JSON list them all.
 */
#define HTML_MAX_FUNC_ROWS 30

static void functions(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	size_t n = r->nrows < HTML_MAX_FUNC_ROWS ? r->nrows : HTML_MAX_FUNC_ROWS;
	char a[32];

	fputs("<h2>Functions</h2><p>Median over the runs where each ran.</p><table><tr><th>function"
	      "</th><th>runs</th><th>time</th>",
	      f);
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		fprintf(f, "<th>%s</th>", diagnosis__feat_name(k));
	fputs("</tr>", f);
	/* the rows come longest median time first: the page keeps the top n */
	for (size_t i = 0; i < n; i++) {
		const struct diagnosis_func_row *row = &r->rows[i];

		fputs("<tr><td>", f);
		html_esc(f, dataset__func(ds, row->func)->name);
		fprintf(f, "</td><td>%u</td><td>%s</td>", row->runs,
			report__dur(row->time_median, a, sizeof(a)));
		for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
			fprintf(f, "<td>%s</td>",
				k == DIAGNOSIS_CPU_FREQ && !(r->features & XLP_FEAT_CPUFREQ)
					? "unavailable"
					: report__value(k, row->median[k], a, sizeof(a)));
		fputs("</tr>", f);
	}
	fputs("</table>\n", f);
	if (n < r->nrows)
		fprintf(f,
			"<p class=\"more\">%zu more functions, with less time, left out here: the "
			"text and JSON reports list all %zu.</p>\n",
			r->nrows - n, r->nrows);
}

static void limits(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	const char *un[8];
	struct report_drop d[REPORT_MAX_DROPS];
	size_t nu = report__unavailable(r->features, un, 8),
	       nd = report__drops(ds, d, REPORT_MAX_DROPS);

	fputs("<h2>Not measured, lost</h2><ul>", f);
	for (size_t i = 0; i < nu; i++)
		fprintf(f, "<li>%s</li>", un[i]);
	for (size_t i = 0; i < nd; i++)
		fprintf(f, "<li class=\"warn\">%s %llu: %s</li>", d[i].name,
			(unsigned long long)d[i].count, d[i].what);
	if (!nd)
		fputs("<li>no events lost</li>", f);
	for (size_t i = 0; i < dataset__nfiles(ds); i++) {
		const struct dataset_file_info *fi = dataset__file(ds, i);

		if (fi->truncated) {
			fputs("<li class=\"warn\">", f);
			html_esc(f, fi->path);
			fputs(" is truncated: analysed what was read</li>", f);
		}
		if (fi->damage) {
			fputs("<li class=\"warn\">", f);
			html_esc(f, fi->path);
			fputs(" is damaged: ", f);
			html_esc(f, fi->damage);
			fputs(": analysed what was read</li>", f);
		}
	}
	fputs("</ul>\n", f);
}

int report__html(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	char a[32], b[32], c[32], d[32], rule[64], cav[256], who[400];
	struct report_verdict v;
	struct report_queued q;
	uint64_t lost, sent;

	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>xlprobe report"
		"</title><style>%s</style></head><body>\n<h1>xlprobe report</h1>\n",
		html_style);
	report__verdict(ds, r, &v);
	fputs("<p class=\"verdict\">", f);
	/* first: what it rests on, when that is a partial sample */
	if (report__caveat(ds, &lost, &sent, cav, sizeof(cav))[0]) {
		fputs("<strong class=\"caveat\">", f);
		html_esc(f, cav);
		fputs(":</strong> ", f);
	}
	html_esc(f, v.text);
	if (v.note[0]) {
		fputs("<br><small>", f);
		html_esc(f, v.note);
		fputs("</small>", f);
	}
	fprintf(f,
		"</p>\n<h2>Runs</h2><p>%zu runs: median %s, p90 %s, max %s; <span "
		"class=\"slow\">%zu slow</span>: latency &gt; %s (",
		r->lab.n, report__dur(r->lab.median_ns, a, sizeof(a)),
		report__dur(r->lab.p90_ns, b, sizeof(b)), report__dur(r->lab.max_ns, c, sizeof(c)),
		r->lab.nslow, report__dur(r->lab.threshold_ns, d, sizeof(d)));
	html_esc(f, report__rule(r, rule, sizeof(rule)));
	fputs(").", f);
	report__queued(ds, r, &q);
	if (q.runs)
		fprintf(f,
			" Queued before the handler: %zu runs waited for a CPU between their "
			"thread's wakeup and the handler; median %s in slow runs, %s in fast (in "
			"their latency and cpu_wait).",
			q.runs, report__dur(q.slow_median, a, sizeof(a)),
			report__dur(q.fast_median, b, sizeof(b)));
	if (q.runs && report__thieves(&r->queued_thieves, who, sizeof(who))[0]) {
		fputs(" In the slow runs, ", f);
		html_esc(f, who);
		fputs(".", f);
	}
	fputs("</p>\n", f);
	html_plot_histogram(f, ds, r);
	html_plot_runs(f, ds, r);
	if (r->status == DIAGNOSIS_OK || r->status == DIAGNOSIS_NO_PRECOND)
		preconditions(f, ds, r);
	if (r->status == DIAGNOSIS_OK)
		criticals(f, ds, r);
	baseline(f, r);
	whole_run(f, ds, r);
	if (r->waits)
		text_section(f,
			     "Wait chains: what ended each wait of a run's thread, and what it did "
			     "meanwhile",
			     report__waits_text, ds, r);
	if (r->tasks)
		text_section(f, "Async tasks: queue time and execution", report__tasks_text, ds, r);
	functions(f, ds, r);
	limits(f, ds, r);
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
