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
#include "report_model.h"

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

static const char *val(const struct report_node *n, const char *path, char *buf, size_t len)
{
	return report_node__fmt_at(n, path, buf, len);
}

/* ">" and "<=" as HTML */
static const char *op(const struct report_node *n)
{
	const char *o = report_node__str_at(n, "op");

	return o && !strcmp(o, ">") ? "&gt;" : "&le;";
}

static void factors(FILE *f, const struct report_node *fs, const struct report_node *peer)
{
	char t[32], a[32], b[32];

	fputs("<ul>", f);
	for (size_t k = 0; k < report_node__len(fs); k++) {
		const struct report_node *x = report_node__at(fs, k);

		fprintf(f,
			"<li><b>%s %s %s</b>: median %s in slow runs vs %s in fast; holds for %llu "
			"of %llu slow, %llu of %llu fast",
			report_node__str_at(x, "factor"), op(x), val(x, "threshold", t, sizeof(t)),
			val(x, "slow_median", a, sizeof(a)), val(x, "fast_median", b, sizeof(b)),
			(unsigned long long)report_node__uint_at(x, "slow_hits"),
			(unsigned long long)report_node__uint_at(x, "slow"),
			(unsigned long long)report_node__uint_at(x, "fast_hits"),
			(unsigned long long)report_node__uint_at(x, "fast"));
		if (report_node__bool_at(x, "frequency_check"))
			fputs(" (cpu_run grew but not the work done: lower CPU frequency)", f);
		if (report_node__bool_at(x, "from_beyond"))
			fputs(" (no split of the tree: the resource beyond the bulk)", f);
		if (!strcmp(report_node__str_at(x, "factor"),
			    diagnosis__feat_name(DIAGNOSIS_IPC)) &&
		    !report_node__is_null(peer)) {
			fprintf(f, "; waiting for pid %llu (",
				(unsigned long long)report_node__uint_at(peer, "pid"));
			html_esc(f, report_node__str_at(peer, "comm"));
			fputs(")", f);
		}
		fputs("</li>", f);
	}
	if (!report_node__len(fs))
		fputs("<li>no resource factor found</li>", f);
	fputs("</ul>\n", f);
}

static void breakdown(FILE *f, const struct report_node *bd, const char *time_key)
{
	const struct report_node *t = report_node__get(bd, time_key);
	char a[32], b[32];

	fprintf(f,
		"<table><tr><th>median</th><th>slow runs</th><th>fast runs</th></tr>"
		"<tr><td>%s</td><td>%s</td><td>%s</td></tr>",
		time_key, val(t, "slow_median", a, sizeof(a)), val(t, "fast_median", b, sizeof(b)));
	/* the time first, then one row per resource */
	for (size_t k = 1; k < report_node__len(bd); k++) {
		const struct report_node *x = report_node__at(bd, k);
		const char *name = diagnosis__feat_name((int)k - 1);

		if (report_node__kind(x) == REPORT_STR)
			fprintf(f,
				"<tr><td>%s</td><td class=\"na\">unavailable</td>"
				"<td class=\"na\">unavailable</td></tr>",
				name);
		else
			fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>", name,
				val(x, "slow_median", a, sizeof(a)),
				val(x, "fast_median", b, sizeof(b)));
	}
	fputs("</table>\n", f);
}

static void preconditions(FILE *f, const struct report_node *m, const struct dataset *ds,
			  const struct diagnosis *r)
{
	const struct report_node *pre = report_node__get(m, "preconditions");
	const char **names = calloc(r->ncand + 1, sizeof(*names));
	size_t npre = report_node__len(pre);

	fputs("<h2>Slowdown preconditions (step 1)</h2>", f);
	if (!npre)
		fputs("<p>none</p>", f);
	else
		fputs("<ol>", f);
	for (size_t i = 0; i < npre; i++) {
		const struct report_node *fns =
			report_node__get(report_node__at(pre, i), "functions");

		fputs("<li>runs are slow when ", f);
		for (size_t k = 0; k < report_node__len(fns); k++) {
			fputs(k ? " AND <b>" : "<b>", f);
			html_esc(f, report_node__str_at(report_node__at(fns, k), "text"));
			fputs("</b>", f);
		}
		fprintf(f, " (%llu of %llu slow runs)</li>",
			(unsigned long long)report_node__uint_at(report_node__at(pre, i),
								 "slow_runs"),
			(unsigned long long)report_node__uint_at(m, "runs.slow"));
	}
	if (npre)
		fputs("</ol>\n", f);
	/* the drawing: the tree itself */
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

/* The calling-context tree as an indented table, after its flame graphs. */
static void context_tree(FILE *f, const struct report_node *c, const struct dataset *ds,
			 const struct diagnosis *r, size_t rank)
{
	const struct report_node *t = report_node__get(c, "context_tree");
	char a[32], b[32], id[32];

	if (!report_node__len(t))
		return;
	fputs("<h3>Calling context (stack samples, per run)</h3>", f);
	snprintf(id, sizeof(id), "flame-%zu", rank);
	html_flame(f, id, ds, r, &r->crit[rank - 1]);
	fputs("<table><tr><th>function</th>"
	      "<th>slow runs</th><th>fast runs</th></tr>",
	      f);
	for (size_t i = 0; i < report_node__len(t); i++) {
		const struct report_node *x = report_node__at(t, i);

		fprintf(f, "<tr><td style=\"padding-left:%uem\">",
			(unsigned)(report_node__uint_at(x, "depth") % 32));
		html_esc(f, report_node__str_at(x, "function"));
		fprintf(f, "</td><td>%s</td><td>%s</td></tr>",
			val(x, "slow_per_run_ns.wall", a, sizeof(a)),
			val(x, "fast_per_run_ns.wall", b, sizeof(b)));
	}
	fputs("</table>", f);
}

/* Why its time grew: calls, block requests, the frames that grew (a differential flame graph). */
static void why(FILE *f, const struct report_node *c, const struct dataset *ds,
		const struct diagnosis *r, size_t rank)
{
	char id[32];

	fputs("<h3>Why its time grew</h3><pre>", f);
	html_esc(f, report_node__str_at(c, "growth_text"));
	fputs("</pre>", f);
	snprintf(id, sizeof(id), "diff-flame-%zu", rank);
	html_diff_flame(f, id,
			"Differential flame graph (stack samples of the leading factor's kind): "
			"slow runs, coloured by the change from fast runs",
			ds, &r->crit[rank - 1].why);
}

/* No function accused: the whole run's resource, and where its samples go. */
static void whole_run(FILE *f, const struct report_node *m, const struct dataset *ds,
		      const struct diagnosis *r)
{
	const struct report_node *fb = report_node__get(m, "whole_run");
	bool holds = report_node__bool_at(fb, "holds");

	if (report_node__is_null(fb) || strcmp(report_node__str_at(m, "status"), "no_precondition"))
		return;
	fprintf(f, "<h2>The whole run%s: %s</h2><pre>",
		report_node__bool_at(fb, "run_thread") ? " of their thread" : "",
		holds ? "explains the slow runs" : "no answer");
	html_esc(f, report_node__str_at(fb, "text"));
	if (holds) {
		fputs("\n", f);
		html_esc(f, report_node__str_at(fb, "where_text"));
	}
	fputs("</pre>", f);
	if (holds)
		html_diff_flame(f, "diff-flame-whole-run",
				"Differential flame graph of the whole run's resource: slow runs, "
				"coloured by the change from fast runs",
				ds, &r->fallback.why);
}

/*
 * A text section (the wait chains, the async tasks) as preformatted text:
 * the same words as the text report, escaped for HTML.
 */
static void text_section(FILE *f, const char *title,
			 void (*fn)(FILE *f, const struct report_node *m),
			 const struct report_node *m)
{
	char *buf = NULL, *body;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf)
		return;
	fn(mf, m);
	if (fclose(mf) || !len) {
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

static void critical(FILE *f, const struct report_node *c, const struct dataset *ds,
		     const struct diagnosis *r, size_t rank)
{
	char t[32], id[32];

	fputs("<h2>Critical function ", f);
	html_esc(f, report_node__str_at(c, "function"));
	fputs(" (", f);
	html_esc(f, report_node__str_at(c, "binary"));
	fprintf(f, "%s): slow when %s %s</h2><p>%llu runs ran it, %llu slow.</p>",
		report_node__bool_at(c, "sampled") ? "; sampled, never marked" : "", op(c),
		val(c, "threshold_ns", t, sizeof(t)),
		(unsigned long long)report_node__uint_at(c, "samples"),
		(unsigned long long)report_node__uint_at(c, "slow_samples"));
	if (report_node__len(report_node__get(c, "chain")) > 1) {
		fputs("<p>Chain: ", f);
		html_esc(f, report_node__str_at(c, "chain_text"));
		fputs("</p>", f);
		snprintf(id, sizeof(id), "chain-%zu", rank);
		html_chain(f, id, ds, &r->crit[rank - 1]);
	}
	fputs("<pre>", f);
	html_esc(f, report_node__str_at(c, "evidence_text"));
	fputs("</pre>", f);
	factors(f, report_node__get(c, "factors"), report_node__get(c, "peer"));
	breakdown(f, report_node__get(c, "breakdown"), "time");
	fputs("<h3>Resource tree</h3>", f);
	snprintf(id, sizeof(id), "tree-step2-%zu", rank);
	html_step2_tree(f, id, "Step 2: the function's runs split by resource",
			&r->crit[rank - 1].s2);
	context_tree(f, c, ds, r, rank);
	why(f, c, ds, r, rank);
}

static void criticals(FILE *f, const struct report_node *m, const struct dataset *ds,
		      const struct diagnosis *r)
{
	const struct report_node *cs = report_node__get(m, "critical_functions");
	const char *args = report_node__str_at(m, "sampling.func_args");

	overview(f, ds, r);
	/* the model's critical functions are the result's first ones, in order */
	for (size_t i = 0; i < report_node__len(cs) && i < r->ncrit; i++)
		critical(f, report_node__at(cs, i), ds, r, i + 1);
	if (args) {
		fputs("<p>Measure the sampled functions exactly in a next recording: "
		      "<code>xlprobe record ",
		      f);
		html_esc(f, args);
		fputs(" ...</code></p>", f);
	}
}

static void baseline(FILE *f, const struct report_node *m, const struct diagnosis *r)
{
	const struct report_node *b = report_node__get(m, "baseline");
	const struct report_node *fs = report_node__get(b, "factors");

	if (report_node__is_null(b))
		return;
	fprintf(f, "<h2>Baseline: whole-run resource usage</h2><p>%llu runs.%s</p>",
		(unsigned long long)report_node__uint_at(b, "samples"),
		!report_node__len(report_node__get(m, "critical_functions")) ||
				!report_node__len(fs)
			? ""
		: report_node__bool_at(b, "agrees")
			? " Agrees with the function-level answer."
			: " <b class=\"warn\">Differs from the function-level answer.</b>");
	factors(f, fs, NULL);
	html_plot_resources(
		f, "plot-resources-baseline",
		&(struct html_group){"whole run (all threads of the process)", &r->base}, 1);
	breakdown(f, report_node__get(b, "breakdown"), "latency");
	html_step2_tree(f, "tree-baseline", "Baseline: runs split by whole-run resource usage",
			&r->base);
}

/*
 * Rows of the Functions table on the page: --top-k sets how many functions
 * the analysis keeps (hundreds with a large one on a sampled trace), and a
 * page of hundreds of rows buries the rest; the text and JSON list them all.
 */
#define HTML_MAX_FUNC_ROWS 30

static void functions(FILE *f, const struct report_node *m)
{
	const struct report_node *rows = report_node__get(m, "functions");
	size_t nrows = report_node__len(rows);
	size_t n = nrows < HTML_MAX_FUNC_ROWS ? nrows : HTML_MAX_FUNC_ROWS;
	char a[32];

	fputs("<h2>Functions</h2><p>Median over the runs where each ran.</p><table><tr><th>function"
	      "</th><th>runs</th><th>time</th>",
	      f);
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++)
		fprintf(f, "<th>%s</th>", diagnosis__feat_name(k));
	fputs("</tr>", f);
	/* the rows come longest median time first: the page keeps the top n */
	for (size_t i = 0; i < n; i++) {
		const struct report_node *row = report_node__at(rows, i);
		const struct report_node *med = report_node__get(row, "median");

		fputs("<tr><td>", f);
		html_esc(f, report_node__str_at(row, "function"));
		fprintf(f, "</td><td>%llu</td><td>%s</td>",
			(unsigned long long)report_node__uint_at(row, "runs"),
			val(row, "time_median_ns", a, sizeof(a)));
		for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
			const struct report_node *x =
				report_node__get(med, diagnosis__feat_name(k));

			fprintf(f, "<td>%s</td>",
				report_node__kind(x) == REPORT_STR
					? "unavailable"
					: report__value(k, report_node__num(x), a, sizeof(a)));
		}
		fputs("</tr>", f);
	}
	fputs("</table>\n", f);
	if (n < nrows)
		fprintf(f,
			"<p class=\"more\">%zu more functions, with less time, left out here: the "
			"text and JSON reports list all %zu.</p>\n",
			nrows - n, nrows);
}

static void limits(FILE *f, const struct report_node *m)
{
	const struct report_node *un = report_node__get(m, "unavailable");
	const struct report_node *d = report_node__get(m, "lost");
	const struct report_node *tr = report_node__get(m, "traces");

	fputs("<h2>Not measured, lost</h2><ul>", f);
	for (size_t i = 0; i < report_node__len(un); i++)
		fprintf(f, "<li>%s</li>", report_node__str(report_node__at(un, i)));
	for (size_t i = 0; i < report_node__len(d); i++) {
		const struct report_node *x = report_node__at(d, i);

		fprintf(f, "<li class=\"warn\">%s %llu: %s</li>", report_node__str_at(x, "name"),
			(unsigned long long)report_node__uint_at(x, "count"),
			report_node__str_at(x, "what"));
	}
	if (!report_node__len(d))
		fputs("<li>no events lost</li>", f);
	for (size_t i = 0; i < report_node__len(tr); i++) {
		const struct report_node *fi = report_node__at(tr, i);

		if (report_node__bool_at(fi, "truncated")) {
			fputs("<li class=\"warn\">", f);
			html_esc(f, report_node__str_at(fi, "path"));
			fputs(" is truncated: analysed what was read</li>", f);
		}
		if (report_node__str_at(fi, "damage")) {
			fputs("<li class=\"warn\">", f);
			html_esc(f, report_node__str_at(fi, "path"));
			fputs(" is damaged: ", f);
			html_esc(f, report_node__str_at(fi, "damage"));
			fputs(": analysed what was read</li>", f);
		}
	}
	fputs("</ul>\n", f);
}

/* The verdict first, then the runs in a sentence. */
static void verdict_and_runs(FILE *f, const struct report_node *m)
{
	const struct report_node *runs = report_node__get(m, "runs");
	const char *cav = report_node__str_at(m, "caveat"), *note = report_node__str_at(m, "note");
	const char *who = report_node__str_at(runs, "queued_cpu_thieves_text");
	uint64_t queued = report_node__uint_at(runs, "queued_runs");
	char a[32], b[32], c[32], d[32];

	fputs("<p class=\"verdict\">", f);
	/* first: what it rests on, when that is a partial sample */
	if (cav) {
		fputs("<strong class=\"caveat\">", f);
		html_esc(f, cav);
		fputs(":</strong> ", f);
	}
	html_esc(f, report_node__str_at(m, "verdict"));
	if (note) {
		fputs("<br><small>", f);
		html_esc(f, note);
		fputs("</small>", f);
	}
	fprintf(f,
		"</p>\n<h2>Runs</h2><p>%llu runs: median %s, p90 %s, max %s; <span "
		"class=\"slow\">%llu slow</span>: latency &gt; %s (",
		(unsigned long long)report_node__uint_at(runs, "count"),
		val(runs, "median_ns", a, sizeof(a)), val(runs, "p90_ns", b, sizeof(b)),
		val(runs, "max_ns", c, sizeof(c)),
		(unsigned long long)report_node__uint_at(runs, "slow"),
		val(runs, "threshold_ns", d, sizeof(d)));
	html_esc(f, report_node__str_at(runs, "rule"));
	fputs(").", f);
	if (queued)
		fprintf(f,
			" Queued before the handler: %llu runs waited for a CPU between their "
			"thread's wakeup and the handler; median %s in slow runs, %s in fast (in "
			"their latency and cpu_wait).",
			(unsigned long long)queued,
			val(runs, "queued_slow_median_ns", a, sizeof(a)),
			val(runs, "queued_fast_median_ns", b, sizeof(b)));
	if (queued && who && who[0]) {
		fputs(" In the slow runs, ", f);
		html_esc(f, who);
		fputs(".", f);
	}
	fputs("</p>\n", f);
}

int report__html(FILE *f, const struct dataset *ds, const struct diagnosis *r)
{
	struct report_model *model = report_model__build(ds, r);
	const struct report_node *m = report_model__root(model);
	const char *status;

	if (!model)
		return -ENOMEM;
	status = report_node__str_at(m, "status");
	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>xlprobe report"
		"</title><style>%s</style></head><body>\n<h1>xlprobe report</h1>\n",
		html_style);
	verdict_and_runs(f, m);
	html_plot_histogram(f, ds, r);
	html_plot_runs(f, ds, r);
	if (!strcmp(status, "ok") || !strcmp(status, "no_precondition"))
		preconditions(f, m, ds, r);
	if (!strcmp(status, "ok"))
		criticals(f, m, ds, r);
	baseline(f, m, r);
	whole_run(f, m, ds, r);
	/* the text report's sections, present when the model has them */
	text_section(f,
		     "Wait chains: what ended each wait of a run's thread, and what it did "
		     "meanwhile",
		     report__waits_text, m);
	text_section(f, "Async tasks: queue time and execution", report__tasks_text, m);
	functions(f, m);
	limits(f, m);
	fputs("</body></html>\n", f);
	report_model__free(model);
	return ferror(f) ? -EIO : 0;
}
