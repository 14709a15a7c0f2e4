/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A fleet in DuckDB: the fleet tables (export --csv) of six synthetic
 * recordings from three hosts and two builds of the same program, loaded
 * into DuckDB (npm's @duckdb/node-api under Debian's Node.js, installed
 * into .output/npm by tools/install-deps.sh) as docs/fleet-tables.md
 * shows: docs/issues.sql over `lags` gives the rows of xlprobe issues with
 * the same --lag, its lag percentiles by DuckDB's quantile_cont those of
 * issues; per host and per build, the run latency median, p90 and max by
 * SQL over `runs` equal report's over the same traces.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "testlib.h"
#include "json.h"
#include "synth.h"
#include "xlptest.h"

static char out[1 << 20];

enum { RENDER = SYNTH_EV_RENDER, LOAD = SYNTH_EV_LOAD };

static const char *xl(void)
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

/*
 * node SCRIPT SQL...: runs each statement in one in-memory DuckDB ("@PATH":
 * the statement in that file) and prints the last's rows as JSON (BIGINTs
 * as strings, doubles as numbers).
 */
static const char duck_js[] =
	"const { DuckDBInstance } = require('@duckdb/node-api');\n"
	"const fs = require('fs');\n"
	"(async () => {\n"
	"  const db = await DuckDBInstance.create(':memory:');\n"
	"  const con = await db.connect();\n"
	"  let r = null;\n"
	"  for (const a of process.argv.slice(2))\n"
	"    r = await con.runAndReadAll(a[0] === '@' ? fs.readFileSync(a.slice(1), 'utf8') : a);\n"
	"  console.log(JSON.stringify(r.getRowObjectsJson()));\n"
	"})().catch((e) => { console.error('duckdb: ' + e.message); process.exit(1); });\n";

/* The rows of the last of the statements (NULL-terminated), in DuckDB. */
static struct json *duck(const char *sql, ...)
{
	static char cmd[1 << 15];
	const char *js = xt_tmp_path("duck.js");
	char jerr[256];
	FILE *f = fopen(js, "w");
	struct json *j;
	va_list ap;
	int rc;

	if (!f || fputs(duck_js, f) < 0 || fclose(f))
		return NULL;
	snprintf(cmd, sizeof(cmd), "NODE_PATH='%s/.output/npm/node_modules' node '%s'", tl_root(),
		 js);
	va_start(ap, sql);
	for (const char *a = sql; a; a = va_arg(ap, const char *))
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " \"%s\"", a);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	rc = tl_run(cmd, out, sizeof(out));
	if (rc) {
		fprintf(stderr,
			"  duckdb: exit %d: %.2000s\n  (tools/install-deps.sh installs "
			"@duckdb/node-api into .output/npm)\n",
			rc, out);
		return NULL;
	}
	j = json__parse(out, jerr, sizeof(jerr));
	if (!j)
		fprintf(stderr, "  duckdb's JSON: %s: %.2000s\n", jerr, out);
	return j;
}

/* A number DuckDB gave: a BIGINT comes as a string. */
static double num(const struct json *o, const char *k)
{
	const struct json *v = json__get(o, k);

	return json__str(v) ? strtod(json__str(v), NULL) : json__num(v);
}

#define NTR 6
static const char *traces[NTR];
static const char *const hosts[NTR] = {"host-a", "host-a", "host-b", "host-b", "host-c", "host-c"};
static const char *const builds[NTR] = {"b1", "b2", "b1", "b2", "b2", "b2"};

/* Six sessions: render lags on builds b1 and b2, load on host-c's. */
static int fleet(void)
{
	static bool made;
	char name[32];

	if (made)
		return 0;
	for (int i = 0; i < NTR; i++) {
		/* a rebuild moves the functions; each session its own offset so
		 * that no two headers (trace_id) are the same */
		struct synth_host h = {hosts[i], builds[i],
				       (strcmp(builds[i], "b1") ? 0x7340u : 0x1000u) + 0x100u * i};

		snprintf(name, sizeof(name), "s%d.xlp", i);
		traces[i] = xt_tmp_path(name);
		if (session(traces[i], &h, i >= 4 ? LOAD : RENDER, 150 + 20 * i, 30 + 5 * i,
			    (uint64_t)i))
			return -1;
	}
	made = true;
	return 0;
}

static const char *all_traces(void)
{
	static char b[NTR * 520];

	b[0] = 0;
	for (int i = 0; i < NTR; i++)
		snprintf(b + strlen(b), sizeof(b) - strlen(b), "'%s' ", traces[i]);
	return b;
}

TEST(issues_sql_in_duckdb_gives_xlprobe_issues)
{
	const char *lags = xt_tmp_path("lags.csv"), *js = xt_tmp_path("issues.json");
	char load[1024], sql[PATH_MAX + 2], pct[1024], jerr[256];
	const struct json *issues;
	struct json *j, *q, *p;

	REQUIRE(fleet() == 0);
	REQUIRE(tl_runf(out, sizeof(out), "%s issues --lag 120ms --json -o '%s' %s", xl(), js,
			all_traces()) == 0,
		"%s", out);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --csv --table lags --lag 120ms -o '%s' %s",
			xl(), lags, all_traces()) == 0,
		"%s", out);
	j = json__load(js, jerr, sizeof(jerr));
	REQUIRE(j, "%s", jerr);
	issues = json__get(j, "issues");
	REQUIRE(json__len(issues) == 2, "%zu issues", json__len(issues));
	snprintf(load, sizeof(load), "CREATE TABLE lags AS FROM read_csv('%s', header = true)",
		 lags);
	snprintf(sql, sizeof(sql), "@%s/docs/issues.sql", tl_root());
	q = duck(load, sql, NULL);
	REQUIRE(q, "duckdb");
	CHECK(json__len(q) == json__len(issues), "%zu rows", json__len(q));
	for (size_t i = 0; i < json__len(issues) && i < json__len(q); i++) {
		const struct json *x = json__at(issues, i), *row = json__at(q, i);

		CHECK(json__str(json__get(row, "fingerprint")) &&
			      !strcmp(json__str(json__get(row, "fingerprint")),
				      json__str(json__get(x, "fingerprint")) ?: "-"),
		      "row %zu: fingerprint", i);
		CHECK(!strcmp(json__str(json__get(row, "function")) ?: "",
			      json__str(json__get(x, "function")) ?: "-") &&
			      !strcmp(json__str(json__get(row, "factor")) ?: "",
				      json__str(json__get(x, "factor")) ?: "-") &&
			      !strcmp(json__str(json__get(row, "landmark")) ?: "",
				      json__str(json__get(x, "landmark")) ?: "-"),
		      "row %zu: landmark, function, factor", i);
		CHECK(num(row, "sessions") == json__num(json__get(x, "sessions")) &&
			      num(row, "hosts") == json__num(json__get(x, "hosts")) &&
			      num(row, "builds") == json__num(json__get(x, "builds")) &&
			      num(row, "runs") == json__num(json__get(x, "runs")),
		      "row %zu: counts %g %g %g %g", i, num(row, "sessions"), num(row, "hosts"),
		      num(row, "builds"), num(row, "runs"));
		/* ms in the JSON (impact to 10 us, the rest to 1 us), ns in SQL */
		CHECK(fabs(num(row, "impact_ns") / 1e6 - json__num(json__get(x, "impact_ms"))) <
			      6e-3,
		      "row %zu: impact %g vs %g ms", i, num(row, "impact_ns") / 1e6,
		      json__num(json__get(x, "impact_ms")));
		CHECK(fabs(num(row, "lag_max_ns") / 1e6 -
			   json__num(json__get(json__get(x, "lag_ms"), "max"))) < 1e-3,
		      "row %zu: max", i);
		/* the percentiles docs/issues.sql leaves to the engine: quantile_cont */
		snprintf(
			pct, sizeof(pct),
			"SELECT quantile_cont(latency_ns, 0.5) AS p50, "
			"quantile_cont(latency_ns, 0.95) AS p95 FROM lags WHERE fingerprint = '%s'",
			json__str(json__get(row, "fingerprint")) ?: "");
		p = duck(load, pct, NULL);
		CHECK(p && fabs(num(json__at(p, 0), "p50") / 1e6 -
				json__num(json__get(json__get(x, "lag_ms"), "p50"))) < 1e-3,
		      "row %zu: p50 %g vs %g ms", i, p ? num(json__at(p, 0), "p50") / 1e6 : -1,
		      json__num(json__get(json__get(x, "lag_ms"), "p50")));
		CHECK(p && fabs(num(json__at(p, 0), "p95") / 1e6 -
				json__num(json__get(json__get(x, "lag_ms"), "p95"))) < 1e-3,
		      "row %zu: p95", i);
		json__free(p);
	}
	json__free(q);
	json__free(j);
}

/* report --json's runs.{median,p90,max}_ns over the traces of which[] set. */
static struct json *report_of(const bool *which)
{
	const char *js = xt_tmp_path("report.json");
	char list[NTR * 520] = "", jerr[256];

	for (int i = 0; i < NTR; i++)
		if (which[i])
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "'%s' ",
				 traces[i]);
	if (tl_runf(out, sizeof(out), "%s report --json -o '%s' %s", xl(), js, list))
		return NULL;
	return json__load(js, jerr, sizeof(jerr));
}

TEST(percentiles_per_host_and_build_agree_with_report)
{
	const char *runs = xt_tmp_path("runs.csv"), *tr = xt_tmp_path("traces.csv");
	static const char *const groups[] = {"host", "build_id"};
	char load_runs[1024], load_builds[1024], q[1024];

	REQUIRE(fleet() == 0);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --csv --table runs -o '%s' %s", xl(), runs,
			all_traces()) == 0,
		"%s", out);
	REQUIRE(tl_runf(out, sizeof(out), "%s export --csv --table calls -o '%s' %s", xl(), tr,
			all_traces()) == 0,
		"%s", out);
	snprintf(load_runs, sizeof(load_runs),
		 "CREATE TABLE runs AS FROM read_csv('%s', header = true)", runs);
	/* a run's build: its interaction binary's build-id, from the calls table */
	snprintf(load_builds, sizeof(load_builds),
		 "CREATE TABLE builds AS SELECT DISTINCT trace_id, build_id FROM read_csv('%s', "
		 "header = true) WHERE interaction",
		 tr);
	for (size_t g = 0; g < 2; g++) {
		struct json *rows;

		snprintf(q, sizeof(q),
			 "SELECT %s AS k, count(*) AS n, quantile_cont(latency_ns, 0.5) AS median, "
			 "quantile_cont(latency_ns, 0.9) AS p90, max(latency_ns) AS max "
			 "FROM runs JOIN builds USING (trace_id) GROUP BY k ORDER BY k",
			 groups[g]);
		rows = duck(load_runs, load_builds, q, NULL);
		REQUIRE(rows, "duckdb");
		CHECK(json__len(rows) == (g ? 2u : 3u), "%s: %zu groups", groups[g],
		      json__len(rows));
		for (size_t i = 0; i < json__len(rows); i++) {
			const struct json *r = json__at(rows, i);
			const char *k = json__str(json__get(r, "k")) ?: "";
			bool which[NTR];
			struct json *rep;

			for (int t = 0; t < NTR; t++)
				which[t] = !strcmp(g ? builds[t] : hosts[t], k);
			rep = report_of(which);
			CHECK(rep, "report of %s %s: %.2000s", groups[g], k, out);
			if (!rep)
				continue;
			CHECK(num(r, "n") == json__num(json__get(rep, "runs.count")),
			      "%s: %g runs vs %g", k, num(r, "n"),
			      json__num(json__get(rep, "runs.count")));
			CHECK(fabs(num(r, "median") - json__num(json__get(rep, "runs.median_ns"))) <
				      1,
			      "%s: median %f vs %f", k, num(r, "median"),
			      json__num(json__get(rep, "runs.median_ns")));
			CHECK(fabs(num(r, "p90") - json__num(json__get(rep, "runs.p90_ns"))) < 1,
			      "%s: p90 %f vs %f", k, num(r, "p90"),
			      json__num(json__get(rep, "runs.p90_ns")));
			CHECK(fabs(num(r, "max") - json__num(json__get(rep, "runs.max_ns"))) < 1,
			      "%s: max %f vs %f", k, num(r, "max"),
			      json__num(json__get(rep, "runs.max_ns")));
			json__free(rep);
		}
		json__free(rows);
	}
}

TEST_MAIN()
