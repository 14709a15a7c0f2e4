/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe issues: the lags of many sessions as issues (analysis/issues/issues.h),
 * ranked by their total perceptible lag. Text, JSON, HTML.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include "escape.h"
#include "jsonw.h"
#include "report.h"
#include "report_html.h"
#include "issues.h"

/* "2026-11-28T01:02:03.456Z": a wall-clock instant, UTC. */
const char *report__utc(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns < 0 || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ns / 1000000 % 1000));
	return buf;
}

static const char *who(const struct issues_issue *i, char *buf, size_t len)
{
	char a[160], b[160];

	if (!i->binary[0])
		snprintf(buf, len, "%s", xlp_text(i->function, a, sizeof(a)));
	else
		snprintf(buf, len, "%s (%s)", xlp_text(i->function, a, sizeof(a)),
			 xlp_text(i->binary, b, sizeof(b)));
	return buf;
}

/* "60.0 ms", or "each trace's own (recorded with different --lag)" when they differ */
static const char *lag_words(const struct issues *s, char *buf, size_t len)
{
	double lag = issues__lag_ns(s);

	if (isnan(lag))
		snprintf(buf, len, "each trace's own --lag");
	else
		report__dur(lag, buf, len);
	return buf;
}

int report__issues_text(FILE *f, const struct issues *s)
{
	char d[4][32], w[400], l[160], lb[160], t1[40], t2[40];
	size_t lags = 0, runs = 0;

	for (size_t k = 0; k < issues__nsessions(s); k++) {
		lags += issues__session(s, k)->lags;
		runs += issues__session(s, k)->runs;
	}
	fprintf(f,
		"xlprobe issues: %zu session%s, %zu run%s, %zu lag%s (at or past %s), %zu "
		"issue%s (%s)\n",
		issues__nsessions(s), issues__nsessions(s) == 1 ? "" : "s", runs,
		runs == 1 ? "" : "s", lags, lags == 1 ? "" : "s",
		lag_words(s, d[0], sizeof(d[0])), issues__n(s), issues__n(s) == 1 ? "" : "s",
		XLP_ISSUE_SCHEME);
	for (size_t k = 0; k < issues__n(s); k++) {
		const struct issues_issue *i = issues__get(s, k);

		fprintf(f,
			"\n#%zu %s  impact %s (%zu lag%s)\n  landmark %s (%s); culprit %s; factor "
			"%s\n",
			k + 1, i->fingerprint, report__dur(i->impact_ns, d[0], sizeof(d[0])),
			i->runs, i->runs == 1 ? "" : "s", xlp_text(i->landmark, l, sizeof(l)),
			xlp_text(i->landmark_binary, lb, sizeof(lb)), who(i, w, sizeof(w)),
			i->factor);
		fprintf(f,
			"  sessions %zu, hosts %zu, builds %zu; lag p50 %s, p95 %s, max %s; first "
			"%s, last %s\n",
			i->sessions, i->hosts, i->builds,
			report__dur(i->p50_ns, d[1], sizeof(d[1])),
			report__dur(i->p95_ns, d[2], sizeof(d[2])),
			report__dur(i->max_ns, d[3], sizeof(d[3])),
			report__utc(i->first_ns, t1, sizeof(t1)),
			report__utc(i->last_ns, t2, sizeof(t2)));
		for (size_t e = 0; e < i->nexamples; e++)
			fprintf(f, "  example: %s run %u\n",
				xlp_text(issues__session(s, i->examples[e].session)->path, w,
					 sizeof(w)),
				i->examples[e].run);
	}
	if (!issues__n(s))
		fputs("\nNo run lagged.\n", f);
	return ferror(f) ? -EIO : 0;
}

static const struct jsonw_field issue_f[] = {
	JSONW_F_STR(struct issues_issue, landmark, "landmark"),
	JSONW_F_STR(struct issues_issue, landmark_symbol, "landmark_symbol"),
	JSONW_F_STR(struct issues_issue, landmark_binary, "landmark_binary"),
	JSONW_F_STR(struct issues_issue, function, "function"),
	JSONW_F_STR(struct issues_issue, symbol, "symbol"),
	JSONW_F_STR(struct issues_issue, binary, "binary"),
	JSONW_F_STR(struct issues_issue, factor, "factor"),
	JSONW_F(struct issues_issue, sessions, "sessions"),
	JSONW_F(struct issues_issue, hosts, "hosts"),
	JSONW_F(struct issues_issue, builds, "builds"),
	JSONW_F(struct issues_issue, runs, "runs"),
};

static void issue_json(struct jsonw *w, const struct issues *s, const struct issues_issue *i)
{
	char t[40];

	jsonw__begin_obj(w, NULL);
	jsonw__str(w, "fingerprint", i->fingerprint);
	jsonw__fields_of(w, i, issue_f);
	jsonw__begin_obj(w, "lag_ms");
	jsonw__num(w, "p50", i->p50_ns / 1e6);
	jsonw__num(w, "p95", i->p95_ns / 1e6);
	jsonw__num(w, "max", i->max_ns / 1e6);
	jsonw__end_obj(w);
	jsonw__str(w, "first_seen", report__utc(i->first_ns, t, sizeof(t)));
	jsonw__str(w, "last_seen", report__utc(i->last_ns, t, sizeof(t)));
	jsonw__num(w, "impact_ms", i->impact_ns / 1e6);
	jsonw__begin_arr(w, "examples");
	for (size_t e = 0; e < i->nexamples; e++) {
		jsonw__begin_obj(w, NULL);
		jsonw__str(w, "trace", issues__session(s, i->examples[e].session)->path);
		jsonw__uint(w, "run", i->examples[e].run);
		jsonw__end_obj(w);
	}
	jsonw__end_arr(w);
	jsonw__end_obj(w);
}

int report__issues_json(FILE *f, const struct issues *s)
{
	struct jsonw w;

	jsonw__init(&w, f);
	jsonw__begin_obj(&w, NULL);
	jsonw__str(&w, "schema", "xlprobe-issues/1");
	jsonw__str(&w, "fingerprint_scheme", XLP_ISSUE_SCHEME);
	jsonw__num(&w, "lag_ms", issues__lag_ns(s) / 1e6);
	jsonw__begin_arr(&w, "sessions");
	for (size_t k = 0; k < issues__nsessions(s); k++) {
		const struct issues_session *x = issues__session(s, k);

		jsonw__begin_obj(&w, NULL);
		jsonw__str(&w, "trace", x->path);
		jsonw__str(&w, "host", x->host);
		jsonw__str(&w, "build_id", x->build_id);
		jsonw__uint(&w, "runs", x->runs);
		jsonw__uint(&w, "lags", x->lags);
		jsonw__num(&w, "lag_ms", x->lag_ns / 1e6);
		jsonw__end_obj(&w);
	}
	jsonw__end_arr(&w);
	jsonw__begin_arr(&w, "issues");
	for (size_t k = 0; k < issues__n(s); k++)
		issue_json(&w, s, issues__get(s, k));
	jsonw__end_arr(&w);
	jsonw__end_obj(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

int report__issues_html(FILE *f, const struct issues *s)
{
	char d[4][32], t1[40], t2[40];

	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>xlprobe issues</title>"
		"<style>%s</style></head><body>\n<h1>xlprobe issues</h1>\n<p class=\"verdict\">"
		"%zu issue%s in %zu session%s; lag: at or past %s. Ranked by total perceptible "
		"lag.</p>\n<table><tr><th>#</th><th>landmark</th><th>culprit</th><th>factor</th>"
		"<th>sessions</th><th>hosts</th><th>builds</th><th>lags</th><th>p50</th>"
		"<th>p95</th><th>max</th><th>impact</th><th>first seen</th><th>last seen</th>"
		"<th>fingerprint</th></tr>\n",
		html_style, issues__n(s), issues__n(s) == 1 ? "" : "s", issues__nsessions(s),
		issues__nsessions(s) == 1 ? "" : "s",
		lag_words(s, d[0], sizeof(d[0])));
	for (size_t k = 0; k < issues__n(s); k++) {
		const struct issues_issue *i = issues__get(s, k);

		fprintf(f, "<tr><td>%zu</td><td>", k + 1);
		html_esc(f, i->landmark);
		fputs("</td><td>", f);
		html_esc(f, i->function);
		fputs("</td><td>", f);
		html_esc(f, i->factor);
		fprintf(f,
			"</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%s</td><td>%s</"
			"td>"
			"<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			i->sessions, i->hosts, i->builds, i->runs,
			report__dur(i->p50_ns, d[0], sizeof(d[0])),
			report__dur(i->p95_ns, d[1], sizeof(d[1])),
			report__dur(i->max_ns, d[2], sizeof(d[2])),
			report__dur(i->impact_ns, d[3], sizeof(d[3])),
			report__utc(i->first_ns, t1, sizeof(t1)),
			report__utc(i->last_ns, t2, sizeof(t2)), i->fingerprint);
	}
	fputs("</table>\n</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
