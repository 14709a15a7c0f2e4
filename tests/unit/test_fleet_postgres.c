/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * docs/issues.sql in PostgreSQL: the psql block docs/issues.md shows (after
 * "<!-- tested: postgres-issues -->"), as it is but for its file paths, in
 * a private PostgreSQL 15 cluster (Debian's postgresql-15, which
 * tools/install-deps.sh installs) started in a temporary directory for
 * this test and removed after it, over the lags table of tests/lib/fleet.h's
 * six recordings: its rows are those of xlprobe issues with the same
 * --lag, its percentile_cont percentiles those of issues. PostgreSQL
 * refuses to run as root: as root the cluster and psql run as the user
 * postgres (runuser), otherwise as the caller.
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fleet.h"
#include "testlib.h"

#define PG_BIN "/usr/lib/postgresql/15/bin"

static char dir[64]; /* the cluster's directory: data, socket, log, inputs */
static char as[64];  /* "runuser -u postgres --" as root, else "" */

static void pg_stop(void)
{
	char cmd[512];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "%s %s/pg_ctl -D %s/data -m immediate -w stop >/dev/null 2>&1",
		 as, PG_BIN, dir);
	if (system(cmd)) {
		/* not started, or already stopped: nothing to stop */
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", dir);
	dir[0] = 0;
}

/* initdb and start a cluster listening on a socket in dir only; 0 or -1. */
static int pg_start(void)
{
	struct passwd *pw = getuid() ? NULL : getpwnam("postgres");

	if (!getuid() && !pw) {
		fprintf(stderr,
			"  no user postgres: tools/install-deps.sh installs postgresql-15\n");
		return -1;
	}
	snprintf(dir, sizeof(dir), "/tmp/xlp-pg.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		return -1;
	}
	atexit(pg_stop);
	if (pw) {
		snprintf(as, sizeof(as), "runuser -u postgres --");
		if (chown(dir, pw->pw_uid, pw->pw_gid))
			return -1;
	}
	if (tl_runf(fleet_out, sizeof(fleet_out),
		    "%s %s/initdb -D %s/data -A trust -U postgres >%s/initdb.log 2>&1 && "
		    "%s %s/pg_ctl -D %s/data -l %s/log -w -o \"-p 5432 -k %s -c "
		    "listen_addresses=''\" start 2>&1",
		    as, PG_BIN, dir, dir, as, PG_BIN, dir, dir, dir)) {
		fprintf(stderr, "  cannot start PostgreSQL in %s: %.2000s\n", dir, fleet_out);
		return -1;
	}
	return 0;
}

/* A path in the cluster's directory. */
static const char *pg_path(const char *name)
{
	static char path[8][128];
	static int k;
	char *p = path[k++ % 8];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

/* A file in the cluster's directory, readable by its user. */
static const char *pg_file(const char *name, const char *text)
{
	const char *p = pg_path(name);
	FILE *f = fopen(p, "w");
	if (!f || (text && fputs(text, f) < 0) || fclose(f))
		return NULL;
	chmod(p, 0644);
	return p;
}

/*
 * psql's CSV output of the block's two queries, as two JSON arrays of
 * objects (every value a string), split at the second header (python3's
 * csv module reads the quoting).
 */
static const char to_json_py[] = "import csv, json, sys\n"
				 "out, cur, hdr = [], None, None\n"
				 "for row in csv.reader(sys.stdin):\n"
				 "    if row and row[0] == 'fingerprint':\n"
				 "        hdr, cur = row, []\n"
				 "        out.append(cur)\n"
				 "    elif hdr:\n"
				 "        cur.append(dict(zip(hdr, row)))\n"
				 "print(json.dumps(out))\n";

TEST(issues_sql_in_postgresql_gives_xlprobe_issues)
{
	const char *lags, *script, *py;
	char *raw = fleet__doc_block("docs/issues.md", "postgres-issues"), *a, *block;
	char quoted[160], sql[PATH_MAX], jerr[256];
	const struct json *issues, *rows, *pcts;
	struct json *j, *q;

	REQUIRE(raw, "docs/issues.md has no block after <!-- tested: postgres-issues -->");
	REQUIRE(pg_start() == 0);
	lags = pg_path("lags.csv");
	j = fleet__issues("120ms", lags, &issues);
	REQUIRE(j);
	REQUIRE(chmod(lags, 0644) == 0);
	REQUIRE(json__len(issues) == 2, "%zu issues", json__len(issues));
	/* the block as it is, but for where its files are */
	snprintf(quoted, sizeof(quoted), "'%s'", lags);
	a = tl_replace(raw, "'lags.csv'", quoted);
	snprintf(sql, sizeof(sql), "%s/docs/issues.sql", tl_root());
	REQUIRE(tl_runf(fleet_out, sizeof(fleet_out),
			"cp '%s' '%s/issues.sql' && chmod 644 '%s/issues.sql'", sql, dir,
			dir) == 0);
	snprintf(sql, sizeof(sql), "%s/issues.sql", dir);
	block = tl_replace(a, "docs/issues.sql", sql);
	free(a);
	free(raw);
	script = pg_file("block.sql", block);
	py = pg_file("to_json.py", to_json_py);
	free(block);
	REQUIRE(script && py);
	REQUIRE(tl_runf(fleet_out, sizeof(fleet_out),
			"%s %s/psql -X -q -v ON_ERROR_STOP=1 --csv -h %s -p 5432 -U postgres -d "
			"postgres -f %s 2>&1 | python3 %s",
			as, PG_BIN, dir, script, py) == 0,
		"psql: %.2000s", fleet_out);
	q = json__parse(fleet_out, jerr, sizeof(jerr));
	REQUIRE(q, "%s: %.2000s", jerr, fleet_out);
	REQUIRE(json__len(q) == 2, "%zu result sets from psql: %.2000s", json__len(q), fleet_out);
	rows = json__at(q, 0);
	pcts = json__at(q, 1);
	fleet__check_issues("postgresql", issues, rows);
	fleet__check_pcts_rows("postgresql", issues, pcts);
	json__free(q);
	json__free(j);
	pg_stop();
}

TEST_MAIN()
