/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The SQL engines' fleet (tests/lib/fleet.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet.h"
#include "synth.h"
#include "xlptest.h"
#include "testlib.h"

char fleet_out[1 << 20];

const char *const fleet_hosts[FLEET_N] = {"host-a", "host-a", "host-b",
					  "host-b", "host-c", "host-c"};
const char *const fleet_builds[FLEET_N] = {"b1", "b2", "b1", "b2", "b2", "b2"};
static const char *traces[FLEET_N];

enum { RENDER = SYNTH_EV_RENDER, LOAD = SYNTH_EV_LOAD };

const char *fleet__xl(void)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/.output/xlprobe", tl_root());
	return p;
}

/*
 * n events of app:on_event -> render (3 ms + jitter on a CPU), load (2 ms);
 * every 5th lags by lag_ms in render (cpu_run) or load (timer).
 */
static int session(const char *path, const struct synth_host *h, int slow, double lag_ms, int n,
		   uint64_t seed)
{
	struct synth *s = NULL;
	int err = synth__open_on(path, 0, 0, synth_event_funcs, SYNTH_EV_NFUNCS, h, &s);

	if (err)
		return err;
	for (int i = 0; i < n; i++) {
		uint64_t t = (i + 1) * 1000000000ull;
		struct synth_usage ur = {.cpu_run =
						 3e6 +
						 (double)((seed * 7919 + i * 104729) % 997) * 1e3},
				   ul = {.cpu_run = 2e6};

		if (i % 5 == 4) {
			if (slow == RENDER)
				ur.cpu_run += lag_ms * 1e6 + i * 1e5;
			else
				ul.timer = lag_ms * 1e6 + i * 1e5;
		}
		err |= synth__event(s, t, &ur, &ul, true);
	}
	return synth__finish(s, err ? -EIO : 0);
}

/* Six sessions: render lags on builds b1 and b2, load on host-c's. */
int fleet__make(void)
{
	static bool made;
	char name[32];

	if (made)
		return 0;
	for (int i = 0; i < FLEET_N; i++) {
		/* a rebuild moves the functions; each session its own offset so
		 * that no two headers (trace_id) are the same */
		struct synth_host h = {fleet_hosts[i], fleet_builds[i],
				       (strcmp(fleet_builds[i], "b1") ? 0x7340u : 0x1000u) +
					       0x100u * i};

		snprintf(name, sizeof(name), "s%d.xlp", i);
		traces[i] = xt_tmp_path(name);
		if (session(traces[i], &h, i >= 4 ? LOAD : RENDER, 150 + 20 * i, 30 + 5 * i,
			    (uint64_t)i))
			return -1;
	}
	made = true;
	return 0;
}

const char *fleet__trace(int i)
{
	return traces[i];
}

const char *fleet__list(const bool *which)
{
	static char b[FLEET_N * 520];

	b[0] = 0;
	for (int i = 0; i < FLEET_N; i++)
		if (!which || which[i])
			snprintf(b + strlen(b), sizeof(b) - strlen(b), "'%s' ", traces[i]);
	return b;
}

double fleet__num(const struct json *o, const char *k)
{
	const struct json *v = json__get(o, k);

	return json__str(v) ? strtod(json__str(v), NULL) : json__num(v);
}

struct json *fleet__issues(const char *lag, const char *lags_csv, const struct json **issues)
{
	const char *js = xt_tmp_path("issues.json");
	char jerr[256];
	struct json *j;

	*issues = NULL;
	if (fleet__make() ||
	    tl_runf(fleet_out, sizeof(fleet_out), "%s issues --lag %s --json -o '%s' %s",
		    fleet__xl(), lag, js, fleet__list(NULL)) ||
	    tl_runf(fleet_out, sizeof(fleet_out),
		    "%s export --csv --table lags --lag %s -o '%s' %s", fleet__xl(), lag, lags_csv,
		    fleet__list(NULL))) {
		fprintf(stderr, "  xlprobe: %.2000s\n", fleet_out);
		return NULL;
	}
	j = json__load(js, jerr, sizeof(jerr));
	if (!j) {
		fprintf(stderr, "  %s: %s\n", js, jerr);
		return NULL;
	}
	*issues = json__get(j, "issues");
	return j;
}

static const char *str(const struct json *o, const char *k)
{
	return json__str(json__get(o, k)) ?: "";
}

void fleet__check_issues(const char *engine, const struct json *issues, const struct json *rows)
{
	CHECK(json__len(rows) == json__len(issues), "%s: %zu rows for %zu issues", engine,
	      json__len(rows), json__len(issues));
	for (size_t i = 0; i < json__len(issues) && i < json__len(rows); i++) {
		const struct json *x = json__at(issues, i), *row = json__at(rows, i);

		CHECK(*str(row, "fingerprint") &&
			      !strcmp(str(row, "fingerprint"), str(x, "fingerprint")),
		      "%s: row %zu: fingerprint %s, want %s", engine, i, str(row, "fingerprint"),
		      str(x, "fingerprint"));
		CHECK(!strcmp(str(row, "function"), str(x, "function")) &&
			      !strcmp(str(row, "factor"), str(x, "factor")) &&
			      !strcmp(str(row, "landmark"), str(x, "landmark")),
		      "%s: row %zu: landmark, function, factor", engine, i);
		CHECK(fleet__num(row, "sessions") == json__num(json__get(x, "sessions")) &&
			      fleet__num(row, "hosts") == json__num(json__get(x, "hosts")) &&
			      fleet__num(row, "builds") == json__num(json__get(x, "builds")) &&
			      fleet__num(row, "runs") == json__num(json__get(x, "runs")),
		      "%s: row %zu: counts %g %g %g %g", engine, i, fleet__num(row, "sessions"),
		      fleet__num(row, "hosts"), fleet__num(row, "builds"), fleet__num(row, "runs"));
		/* ms in the JSON (impact to 10 us, the rest to 1 us), ns in SQL */
		CHECK(fabs(fleet__num(row, "impact_ns") / 1e6 -
			   json__num(json__get(x, "impact_ms"))) < 6e-3,
		      "%s: row %zu: impact %g vs %g ms", engine, i,
		      fleet__num(row, "impact_ns") / 1e6, json__num(json__get(x, "impact_ms")));
		CHECK(fabs(fleet__num(row, "lag_max_ns") / 1e6 -
			   json__num(json__get(json__get(x, "lag_ms"), "max"))) < 1e-3,
		      "%s: row %zu: max", engine, i);
	}
}

void fleet__check_pcts(const char *engine, const struct json *issue, double p50_ns, double p95_ns)
{
	const struct json *l = json__get(issue, "lag_ms");

	CHECK(fabs(p50_ns / 1e6 - json__num(json__get(l, "p50"))) < 1e-3, "%s: %s: p50 %g vs %g ms",
	      engine, str(issue, "fingerprint"), p50_ns / 1e6, json__num(json__get(l, "p50")));
	CHECK(fabs(p95_ns / 1e6 - json__num(json__get(l, "p95"))) < 1e-3, "%s: %s: p95 %g vs %g ms",
	      engine, str(issue, "fingerprint"), p95_ns / 1e6, json__num(json__get(l, "p95")));
}

struct json *fleet__report(const bool *which)
{
	const char *js = xt_tmp_path("report.json");
	char jerr[256];

	if (tl_runf(fleet_out, sizeof(fleet_out), "%s report --json -o '%s' %s", fleet__xl(), js,
		    fleet__list(which)))
		return NULL;
	return json__load(js, jerr, sizeof(jerr));
}

void fleet__check_groups(const char *engine, bool by_build, const struct json *rows)
{
	CHECK(json__len(rows) == (by_build ? 2u : 3u), "%s: %zu groups by %s", engine,
	      json__len(rows), by_build ? "build" : "host");
	for (size_t i = 0; i < json__len(rows); i++) {
		const struct json *r = json__at(rows, i);
		const char *k = str(r, "k");
		bool which[FLEET_N];
		struct json *rep;

		for (int t = 0; t < FLEET_N; t++)
			which[t] = !strcmp(by_build ? fleet_builds[t] : fleet_hosts[t], k);
		rep = fleet__report(which);
		CHECK(rep, "%s: report of %s: %.2000s", engine, k, fleet_out);
		if (!rep)
			continue;
		CHECK(fleet__num(r, "n") == json__num(json__get(rep, "runs.count")),
		      "%s: %s: %g runs vs %g", engine, k, fleet__num(r, "n"),
		      json__num(json__get(rep, "runs.count")));
		CHECK(fabs(fleet__num(r, "median") - json__num(json__get(rep, "runs.median_ns"))) <
			      1,
		      "%s: %s: median %f vs %f", engine, k, fleet__num(r, "median"),
		      json__num(json__get(rep, "runs.median_ns")));
		CHECK(fabs(fleet__num(r, "p90") - json__num(json__get(rep, "runs.p90_ns"))) < 1,
		      "%s: %s: p90 %f vs %f", engine, k, fleet__num(r, "p90"),
		      json__num(json__get(rep, "runs.p90_ns")));
		CHECK(fabs(fleet__num(r, "max") - json__num(json__get(rep, "runs.max_ns"))) < 1,
		      "%s: %s: max %f vs %f", engine, k, fleet__num(r, "max"),
		      json__num(json__get(rep, "runs.max_ns")));
		json__free(rep);
	}
}

char *fleet__doc_block(const char *doc, const char *mark)
{
	char path[PATH_MAX], want[256], *text = NULL, *at, *start, *end, *block = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tl_root(), doc);
	snprintf(want, sizeof(want), "<!-- tested: %s -->", mark);
	f = fopen(path, "r");
	if (!f || getdelim(&text, &cap, '\0', f) < 0) {
		if (f)
			fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	at = strstr(text, want);
	start = at ? strstr(at, "```") : NULL;
	start = start ? strchr(start, '\n') : NULL;
	end = start ? strstr(start + 1, "\n```") : NULL;
	if (end)
		block = strndup(start + 1, (size_t)(end - start));
	free(text);
	return block;
}

void fleet__check_pcts_rows(const char *engine, const struct json *issues, const struct json *rows)
{
	CHECK(json__len(rows) == json__len(issues), "%zu percentile rows", json__len(rows));
	for (size_t i = 0; i < json__len(issues); i++) {
		const struct json *x = json__at(issues, i), *row = NULL;
		const char *fp = json__str(json__get(x, "fingerprint")) ?: "";

		for (size_t k = 0; k < json__len(rows) && !row; k++)
			if (!strcmp(json__str(json__get(json__at(rows, k), "fingerprint")) ?: "",
				    fp))
				row = json__at(rows, k);
		CHECK(row, "no percentiles for %s", fp);
		if (row)
			fleet__check_pcts(engine, x, fleet__num(row, "p50"),
					  fleet__num(row, "p95"));
	}
}
