/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fleet in ClickHouse, through chDB (ClickHouse's in-process engine:
 * npm's chdb under Debian's Node.js, its engine from npm's
 * @chdb/lib-linux-*, installed into .output/npm by tools/install-deps.sh):
 * the ClickHouse statements docs/issues.md and docs/fleet-tables.md show,
 * read from the docs as they are (the blocks after "<!-- tested: ... -->"),
 * over the fleet tables of tests/lib/fleet.h's six recordings. Their load
 * and docs/issues.sql give the rows of xlprobe issues with the same --lag,
 * the percentiles those of issues; the per-host, per-build query the
 * medians and p90s of report over the same traces.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet.h"
#include "testlib.h"
#include "xlptest.h"

/*
 * node SCRIPT SQL...: runs each statement in one chDB session ("@PATH":
 * the statement in that file) and prints the last's rows as a JSON array
 * (64-bit integers as strings, as ClickHouse's JSON formats write them).
 */
static const char chdb_js[] =
	"const { Session } = require('chdb');\n"
	"const fs = require('fs');\n"
	"const s = new Session();\n"
	"let r = '';\n"
	"try {\n"
	"  for (const a of process.argv.slice(2))\n"
	"    r = s.query(a[0] === '@' ? fs.readFileSync(a.slice(1), 'utf8') : a, 'JSONEachRow');\n"
	"} catch (e) { console.error('chdb: ' + e.message); process.exit(1); }\n"
	"finally { s.cleanup(); }\n"
	"console.log('[' + r.split('\\n').filter((l) => l.trim()).join(',') + ']');\n";

/* The rows of the last of the statements (NULL-terminated), in chDB. */
static struct json *chdb(const char *sql, ...)
{
	static char cmd[1 << 16];
	const char *js = xt_tmp_path("chdb.js");
	char jerr[256];
	FILE *f = fopen(js, "w");
	struct json *j;
	va_list ap;
	int rc;

	if (!f || fputs(chdb_js, f) < 0 || fclose(f))
		return NULL;
	snprintf(cmd, sizeof(cmd), "NODE_PATH='%s/.output/npm/node_modules' node '%s'", tl_root(),
		 js);
	va_start(ap, sql);
	for (const char *a = sql; a; a = va_arg(ap, const char *)) {
		/* single-quoted for the shell: the statements quote strings with ' */
		strncat(cmd, " '", sizeof(cmd) - strlen(cmd) - 1);
		for (const char *c = a; *c; c++)
			strncat(cmd, *c == '\'' ? "'\\''" : (char[]){*c, 0},
				sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, "'", sizeof(cmd) - strlen(cmd) - 1);
	}
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	rc = tl_run(cmd, fleet_out, sizeof(fleet_out));
	if (rc) {
		fprintf(stderr,
			"  chdb: exit %d: %.2000s\n  (tools/install-deps.sh installs chdb into "
			".output/npm)\n",
			rc, fleet_out);
		return NULL;
	}
	j = json__parse(fleet_out, jerr, sizeof(jerr));
	if (!j)
		fprintf(stderr, "  chdb's JSON: %s: %.2000s\n", jerr, fleet_out);
	return j;
}

/* The block's statements, its "--" comment lines left out; how many (at most max). */
static int statements(char *block, char **st, int max)
{
	int n = 0;
	char *p = block;

	for (char *l = block; *l;) {
		char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l + 1) : strlen(l);

		if (!strncmp(l, "--", 2))
			memset(l, ' ', len - (nl ? 1 : 0));
		l += len;
	}
	for (char *semi = strchr(p, ';'); semi && n < max; semi = strchr(p, ';')) {
		*semi = 0;
		while (*p == ' ' || *p == '\n')
			p++;
		st[n++] = p;
		p = semi + 1;
	}
	return n;
}

TEST(clickhouse_statements_of_issues_md_give_xlprobe_issues)
{
	const char *lags = xt_tmp_path("lags.csv");
	char *raw = fleet__doc_block("docs/issues.md", "chdb-issues"), *block, *st[4],
	     sql[PATH_MAX];
	char quoted[PATH_MAX + 2];
	const struct json *issues;
	struct json *j, *q;
	int n;

	REQUIRE(raw, "docs/issues.md has no block after <!-- tested: chdb-issues -->");
	snprintf(quoted, sizeof(quoted), "'%s'", lags);
	block = tl_replace(raw, "'lags.csv'", quoted);
	free(raw);
	n = statements(block, st, 4);
	REQUIRE(n == 2 && strstr(st[0], "CREATE TABLE lags"),
		"the block: %d statements, want the load and the percentiles", n);
	j = fleet__issues("120ms", lags, &issues);
	REQUIRE(j);
	REQUIRE(json__len(issues) == 2, "%zu issues", json__len(issues));
	snprintf(sql, sizeof(sql), "@%s/docs/issues.sql", tl_root());
	q = chdb(st[0], sql, NULL);
	REQUIRE(q, "chdb");
	fleet__check_issues("clickhouse", issues, q);
	json__free(q);
	q = chdb(st[0], st[1], NULL);
	REQUIRE(q, "chdb");
	fleet__check_pcts_rows("clickhouse", issues, q);
	json__free(q);
	json__free(j);
	free(block);
}

TEST(clickhouse_fleet_query_of_fleet_tables_md_agrees_with_report)
{
	const char *runs = xt_tmp_path("runs.csv"), *calls = xt_tmp_path("calls.csv");
	char *raw = fleet__doc_block("docs/fleet-tables.md", "chdb-fleet"), *a, *block, *st[2];
	char qr[PATH_MAX + 2], qc[PATH_MAX + 2];
	struct json *rows;
	size_t groups = 0;

	REQUIRE(raw, "docs/fleet-tables.md has no block after <!-- tested: chdb-fleet -->");
	REQUIRE(fleet__make() == 0);
	REQUIRE(tl_runf(fleet_out, sizeof(fleet_out), "%s export --csv --table runs -o '%s' %s",
			fleet__xl(), runs, fleet__list(NULL)) == 0,
		"%s", fleet_out);
	REQUIRE(tl_runf(fleet_out, sizeof(fleet_out), "%s export --csv --table calls -o '%s' %s",
			fleet__xl(), calls, fleet__list(NULL)) == 0,
		"%s", fleet_out);
	snprintf(qr, sizeof(qr), "'%s'", runs);
	snprintf(qc, sizeof(qc), "'%s'", calls);
	a = tl_replace(raw, "'runs.csv'", qr);
	block = tl_replace(a, "'calls.csv'", qc);
	free(raw);
	free(a);
	REQUIRE(statements(block, st, 2) == 1, "the block: one statement expected");
	rows = chdb(st[0], NULL);
	REQUIRE(rows, "chdb");
	for (int h = 0; h < FLEET_N; h++)
		for (int b = 0; b < FLEET_N; b++) {
			bool which[FLEET_N], any = false, first = true;
			const struct json *row = NULL;
			struct json *rep;

			/* each host and build once: at its first trace */
			for (int t = 0; t < h; t++)
				first = first && strcmp(fleet_hosts[t], fleet_hosts[h]) != 0;
			for (int t = 0; t < b; t++)
				first = first && strcmp(fleet_builds[t], fleet_builds[b]) != 0;
			if (!first)
				continue;
			for (int t = 0; t < FLEET_N; t++) {
				which[t] = !strcmp(fleet_hosts[t], fleet_hosts[h]) &&
					   !strcmp(fleet_builds[t], fleet_builds[b]);
				any |= which[t];
			}
			if (!any)
				continue;
			groups++;
			for (size_t k = 0; k < json__len(rows) && !row; k++) {
				const struct json *r = json__at(rows, k);

				if (!strcmp(json__str(json__get(r, "host")) ?: "",
					    fleet_hosts[h]) &&
				    !strcmp(json__str(json__get(r, "build_id")) ?: "",
					    fleet_builds[b]))
					row = r;
			}
			CHECK(row, "no row for %s %s", fleet_hosts[h], fleet_builds[b]);
			rep = row ? fleet__report(which) : NULL;
			if (!row || !rep)
				continue;
			CHECK(fleet__num(row, "runs") == json__num(json__get(rep, "runs.count")) &&
				      fabs(fleet__num(row, "median_ns") -
					   json__num(json__get(rep, "runs.median_ns"))) < 1 &&
				      fabs(fleet__num(row, "p90_ns") -
					   json__num(json__get(rep, "runs.p90_ns"))) < 1,
			      "%s %s: %g runs, median %f, p90 %f; report: %g, %f, %f",
			      fleet_hosts[h], fleet_builds[b], fleet__num(row, "runs"),
			      fleet__num(row, "median_ns"), fleet__num(row, "p90_ns"),
			      json__num(json__get(rep, "runs.count")),
			      json__num(json__get(rep, "runs.median_ns")),
			      json__num(json__get(rep, "runs.p90_ns")));
			json__free(rep);
		}
	CHECK(groups == 5 && json__len(rows) == groups, "%zu groups, %zu rows", groups,
	      json__len(rows));
	json__free(rows);
	free(block);
}

TEST_MAIN()
