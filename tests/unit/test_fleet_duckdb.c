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
#include "fleet.h"
#include "synth.h"
#include "xlptest.h"

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
	rc = tl_run(cmd, fleet_out, sizeof(fleet_out));
	if (rc) {
		fprintf(stderr,
			"  duckdb: exit %d: %.2000s\n  (tools/install-deps.sh installs "
			"@duckdb/node-api into .output/npm)\n",
			rc, fleet_out);
		return NULL;
	}
	j = json__parse(fleet_out, jerr, sizeof(jerr));
	if (!j)
		fprintf(stderr, "  duckdb's JSON: %s: %.2000s\n", jerr, fleet_out);
	return j;
}

TEST(issues_sql_in_duckdb_gives_xlprobe_issues)
{
	const char *lags = xt_tmp_path("lags.csv");
	char load[1024], sql[PATH_MAX + 2], pct[1024];
	const struct json *issues;
	struct json *j, *q, *p;

	j = fleet__issues("120ms", lags, &issues);
	REQUIRE(j);
	REQUIRE(json__len(issues) == 2, "%zu issues", json__len(issues));
	snprintf(load, sizeof(load), "CREATE TABLE lags AS FROM read_csv('%s', header = true)",
		 lags);
	snprintf(sql, sizeof(sql), "@%s/docs/issues.sql", tl_root());
	q = duck(load, sql, NULL);
	REQUIRE(q, "duckdb");
	fleet__check_issues("duckdb", issues, q);
	for (size_t i = 0; i < json__len(issues); i++) {
		const struct json *x = json__at(issues, i);

		/* the percentiles docs/issues.sql leaves to the engine: quantile_cont */
		snprintf(
			pct, sizeof(pct),
			"SELECT quantile_cont(latency_ns, 0.5) AS p50, "
			"quantile_cont(latency_ns, 0.95) AS p95 FROM lags WHERE fingerprint = '%s'",
			json__str(json__get(x, "fingerprint")) ?: "");
		p = duck(load, pct, NULL);
		CHECK(p, "duckdb");
		if (p)
			fleet__check_pcts("duckdb", x, fleet__num(json__at(p, 0), "p50"),
					  fleet__num(json__at(p, 0), "p95"));
		json__free(p);
	}
	json__free(q);
	json__free(j);
}

TEST(percentiles_per_host_and_build_agree_with_report)
{
	const char *runs = xt_tmp_path("runs.csv"), *tr = xt_tmp_path("traces.csv");
	static const char *const groups[] = {"host", "build_id"};
	char load_runs[1024], load_builds[1024], q[1024];

	REQUIRE(fleet__make() == 0);
	REQUIRE(tl_runf(fleet_out, sizeof(fleet_out), "%s export --csv --table runs -o '%s' %s",
			fleet__xl(), runs, fleet__list(NULL)) == 0,
		"%s", fleet_out);
	REQUIRE(tl_runf(fleet_out, sizeof(fleet_out), "%s export --csv --table calls -o '%s' %s",
			fleet__xl(), tr, fleet__list(NULL)) == 0,
		"%s", fleet_out);
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
		fleet__check_groups("duckdb", g == 1, rows);
		json__free(rows);
	}
}

TEST_MAIN()
