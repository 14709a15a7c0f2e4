/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --jsonl / --csv, run as a command on synthetic traces,
 * its output loaded back by Python's json and csv modules as a database
 * loader would take it: the rows of each table against the record lines
 * of dump, exact values of known records, strings holding separators,
 * quotes, control bytes and bytes that are not UTF-8, the CSV and JSONL
 * forms of one table against each other, damaged and truncated traces,
 * and the refusals.
 */
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testlib.h"
#include "escape.h"
#include "synth.h"
#include "xlptest.h"

static char out[1 << 16], err[1 << 14];

static const char *xlprobe(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/.output/xlprobe", tl_root());
	return path;
}

/* Debian's python3 when there is one: no virtual environment's. */
static const char *python(void)
{
	return access("/usr/bin/python3", X_OK) ? "python3" : "/usr/bin/python3";
}

/* Appends s to buf in single quotes for sh. */
static void shq(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	for (n += (size_t)snprintf(buf + n, len - n, "'"); *s && n + 5 < len; s++)
		n += (size_t)snprintf(buf + n, len - n, *s == '\'' ? "'\\''" : "%c", *s);
	snprintf(buf + n, len - n, "' ");
}

/*
 * Runs "xlprobe export ARG..." (NULL-terminated): stdout into out, stderr
 * into err. Its exit status.
 */
static int export(const char *arg, ...)
{
	static char cmd[1 << 14];
	const char *errf = xt_tmp_path("stderr.txt");
	uint8_t *e;
	size_t n;
	va_list ap;
	int rc;

	cmd[0] = 0;
	shq(cmd, sizeof(cmd), xlprobe());
	shq(cmd, sizeof(cmd), "export");
	va_start(ap, arg);
	for (const char *a = arg; a; a = va_arg(ap, const char *))
		shq(cmd, sizeof(cmd), a);
	va_end(ap);
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "2>%s", errf);
	rc = tl_run(cmd, out, sizeof(out));
	e = synth__slurp(errf, &n);
	snprintf(err, sizeof(err), "%s", e ? (const char *)e : "");
	free(e);
	return rc;
}

/*
 * The loader: each argument after the expression is FORMAT:TABLE:PATH,
 * "jsonl::f.jsonl" or "csv:calls:f.csv". D[i] = (rows by table, columns
 * by table) of argument i, T and K those of the first. CSV fields become
 * what a type-detecting reader makes of them (empty: None, true/false,
 * integers), so the two formats of a table compare equal. The file must
 * be valid UTF-8 and every CSV row as long as the header.
 */
static const char loader[] =
	"import csv, json, re, sys\n"
	"def conv(v):\n"
	"    if v == '': return None\n"
	"    if v in ('true', 'false'): return v == 'true'\n"
	"    return int(v) if re.fullmatch('-?[0-9]+', v) else v\n"
	"def load(spec):\n"
	"    fmt, table, path = spec.split(':', 2)\n"
	"    T, K = {}, {}\n"
	"    with open(path, encoding='utf-8', newline='') as f:\n"
	"        if fmt == 'jsonl':\n"
	"            for line in f:\n"
	"                assert line.endswith('\\n')\n"
	"                o = json.loads(line)\n"
	"                t = o.pop('table')\n"
	"                assert K.setdefault(t, list(o)) == list(o), 'columns differ'\n"
	"                T.setdefault(t, []).append(o)\n"
	"        else:\n"
	"            r = csv.reader(f, strict=True)\n"
	"            K[table] = next(r)\n"
	"            T[table] = []\n"
	"            for row in r:\n"
	"                assert len(row) == len(K[table]), 'row length'\n"
	"                T[table].append({k: conv(v) for k, v in zip(K[table], row)})\n"
	"    return T, K\n"
	"D = [load(a) for a in sys.argv[2:]]\n"
	"T, K = D[0]\n"
	"print(ascii(eval(sys.argv[1])))\n";

/* What the expression gives (ascii() of it), on the loaded files; "" on failure. */
static const char *py(const char *expr, const char *spec, const char *spec2)
{
	static char cmd[1 << 14], res[1 << 12];
	size_t n;

	cmd[0] = 0;
	shq(cmd, sizeof(cmd), python());
	shq(cmd, sizeof(cmd), "-c");
	shq(cmd, sizeof(cmd), loader);
	shq(cmd, sizeof(cmd), expr);
	shq(cmd, sizeof(cmd), spec);
	if (spec2)
		shq(cmd, sizeof(cmd), spec2);
	if (tl_run(cmd, res, sizeof(res)))
		return "";
	n = strlen(res);
	if (n && res[n - 1] == '\n')
		res[n - 1] = 0;
	return res;
}

#define CHECK_PY(expr, spec, spec2, want)                                                          \
	do {                                                                                       \
		const char *got_ = py(expr, spec, spec2);                                          \
		CHECK(!strcmp(got_, want), "%s on %s: got '%s', want '%s'", expr, spec, got_,      \
		      want);                                                                       \
	} while (0)

static const char *spec(const char *fmt, const char *table, const char *path)
{
	static char buf[8][600];
	static int k;
	char *b = buf[k++ % 8];

	snprintf(b, sizeof(buf[0]), "%s:%s:%s", fmt, table ? table : "", path);
	return b;
}

/* The record lines of dump for type ("call", "run", ...). */
static long dump_count(const char *path, const char *type)
{
	char cmd[2048] = "", res[64];

	shq(cmd, sizeof(cmd), xlprobe());
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 "dump '%s' 2>/dev/null | grep -c '^%s cpu='", path, type);
	tl_run(cmd, res, sizeof(res)); /* grep exits 1 on 0 lines */
	return strtol(res, NULL, 10);
}

static void check_counts(const char *path, const char *jsonl)
{
	static const char *const tables[][2] = {{"calls", "call"}, {"threads", "thread"}};
	const char *sp = spec("jsonl", NULL, jsonl);
	char expr[256], want[32];

	/* every trace here has calls: a dump that failed counts none */
	CHECK(dump_count(path, "call") > 0, "%s: dump shows no call", path);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(expr, sizeof(expr), "len(T.get('%s', []))", tables[i][0]);
		snprintf(want, sizeof(want), "%ld", dump_count(path, tables[i][1]));
		CHECK_PY(expr, sp, NULL, want);
	}
	/* runs: the run records, or the launches of a trace without an interaction */
	snprintf(want, sizeof(want), "%ld", dump_count(path, "run") + dump_count(path, "launch"));
	CHECK_PY("len(T.get('runs', []))", sp, NULL, want);
	CHECK_PY("len(T['traces'])", sp, NULL, "1");
}

/* ---- synthetic traces ---- */

#define APP "/opt/app/bin/app"

/*
 * Two runs of handle_request (pid 100): calls of parse,"x" (one waited on
 * dbserver), four threads whose names hold a comma and a quote, an escape
 * byte, a byte that is not UTF-8, all 16 bytes; rb_full 7, 3 lost.
 */
static const char *known(void)
{
	static const struct synth_func f[] = {{APP, "handle_request", true},
					      {APP, "parse,\"x\"", false}};
	static char path[512];
	uint64_t c[XLP_NR_CTR] = {0}, x[XLP_NR_CTR] = {0}, stat[XLP_NR_STAT] = {0};
	struct synth *s;
	int e;

	if (path[0])
		return path;
	snprintf(path, sizeof(path), "%s", xt_tmp_path("known.xlp"));
	if (synth__open(path, 0, 0, f, 2, &s))
		abort();
	c[XLP_C_WALL] = 1234567, c[XLP_C_CPU_RUN] = 1000000, c[XLP_C_NET] = 234567;
	x[XLP_C_WALL] = 1000000, x[XLP_C_CPU_RUN] = 1000000;
	e = synth__call(s, 1, 100, 101, 1, 2000100000, c, x, 4242, "dbserver");
	e = e ?: synth__call(s, 1, 100, 100, 1, 2000200000, x, NULL, 0, NULL);
	c[XLP_C_WALL] = 5000000, c[XLP_C_DISK] = 1000000, c[XLP_C_SLEEP_D] = 1000000;
	e = e ?: synth__call(s, 0, 100, 100, 0, 2000000000, c, NULL, 0, NULL);
	e = e ?: synth__run(s, 0, 100, 100, 2000000000, c);
	c[XLP_C_WALL] = 7000000;
	e = e ?: synth__run(s, 0, 100, 100, 3000000000, c);
	e = e ?: synth__thread(s, 100, 100, XLP_THREAD_EXITED, "app", c);
	e = e ?: synth__thread(s, 100, 101, XLP_THREAD_AT_STOP, "a,b\"c\033d", c);
	e = e ?: synth__thread(s, 100, 102, 0, "bad\xffutf", c);
	e = e ?: synth__thread(s, 100, 103, 0, "0123456789abcdef", c);
	stat[XLP_S_RB_FULL] = 7;
	e = e ?: synth__stats(s, stat, 3);
	if (e || synth__close(s, stat, 3))
		abort();
	return path;
}

/* --repeat 3, no interaction: pid 501's two process records (the later
 * holds), 502's one, none for 503. */
static const char *launches(void)
{
	static const struct synth_func f[] = {{APP, "work", false}};
	static char path[512];
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s;
	int e;

	if (path[0])
		return path;
	snprintf(path, sizeof(path), "%s", xt_tmp_path("launches.xlp"));
	if (synth__open(path, 0, 3, f, 1, &s))
		abort();
	c[XLP_C_WALL] = 1;
	e = synth__proc(s, 501, c);
	e = e ?: synth__launch(s, 0, 501, 2000000000, 2500000000);
	c[XLP_C_WALL] = 500000000;
	e = e ?: synth__proc(s, 501, c);
	e = e ?: synth__call(s, 0, 501, 501, 0, 2100000000, c, NULL, 0, NULL);
	c[XLP_C_WALL] = 400000000;
	e = e ?: synth__proc(s, 502, c);
	e = e ?: synth__launch(s, 1, 502, 2600000000, 3000000000);
	e = e ?: synth__launch(s, 2, 503, 3100000000, 3200000000);
	if (e || synth__close(s, NULL, 0))
		abort();
	return path;
}

/* 60 runs, one chunk each. */
static const char *scenario(void)
{
	static char path[512];
	struct synth_scenario sc = {.path = path, .slow_func = 2, .factor = SYNTH_DISK, .seed = 3};

	if (path[0])
		return path;
	snprintf(path, sizeof(path), "%s", xt_tmp_path("scenario.xlp"));
	if (synth__scenario(&sc))
		abort();
	return path;
}

/* ---- tests ---- */

TEST(csv_field)
{
	static const char *const cases[][2] = {
		{"plain", "\"plain\""},
		{"a,b", "\"a,b\""},
		{"say \"hi\"", "\"say \"\"hi\"\"\""},
		{"two\nlines\r", "\"two\\nlines\\x0d\""},
		{"\x1b[31mred", "\"\\x1b[31mred\""},
		{"bad\xff", "\"bad\\xff\""},
		{"caf\xc3\xa9", "\"caf\xc3\xa9\""},
		{"c1 \xc2\x9b", "\"c1 \\u009b\""},
		{"", "\"\""},
	};
	char *buf;
	size_t len;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = open_memstream(&buf, &len);

		REQUIRE(f);
		xlp_fput_csv(f, cases[i][0], strlen(cases[i][0]));
		fclose(f);
		CHECK(!strcmp(buf, cases[i][1]), "'%s' -> '%s', want '%s'", cases[i][0], buf,
		      cases[i][1]);
		free(buf);
	}
}

TEST(jsonl_known_trace)
{
	const char *path = known(), *o = xt_tmp_path("known.jsonl"), *sp = spec("jsonl", NULL, o);
	const char *call = "[r for r in T['calls'] if r['tid'] == 101][0]";
	char expr[512];
	int rc;

	rc = export("--jsonl", "-o", o, path, NULL);
	REQUIRE(rc == 0 && !err[0], "rc %d: %s", rc, err);
	check_counts(path, o);
	CHECK_PY("len(T['runs']), len(T['calls']), len(T['threads'])", sp, NULL, "(2, 3, 4)");
	snprintf(expr, sizeof(expr),
		 "[%s[k] for k in ('func', 'binary', 'pid', 'depth', 'entry_ns', 'incl_wall', "
		 "'incl_net', 'excl_wall', 'excl_net', 'ipc_peer_pid', 'ipc_peer_comm')]",
		 call);
	CHECK_PY(expr, sp, NULL,
		 "['parse,\"x\"', '/opt/app/bin/app', 100, 1, 2000100000, 1234567, 234567, "
		 "1000000, 0, 4242, 'dbserver']");
	CHECK_PY("[r['ipc_peer_pid'] for r in T['calls'] if r['tid'] == 100]", sp, NULL,
		 "[None, None]");
	CHECK_PY("[(r['func'], r['interaction']) for r in T['calls']]", sp, NULL,
		 "[('parse,\"x\"', False), ('parse,\"x\"', False), ('handle_request', True)]");
	/* every counter by its name, an integer */
	CHECK_PY("all(type(r[k]) is int for r in T['calls'] for k in K['calls'] "
		 "if k.startswith(('incl_', 'excl_')))",
		 sp, NULL, "True");
	CHECK_PY("[k in K[t] for t, k in (('calls', 'incl_cpu_steal'), ('calls', "
		 "'excl_binder_txn'), ('threads', 'freq_khz_ns'), ('runs', 'disk'), ('traces', "
		 "'rb_full'), ('traces', 'launch_untimed'))]",
		 sp, NULL, "[True, True, True, True, True, True]");
	CHECK_PY("[(r['run_kind'], r['func'], r['tid'], r['start_ns'], r['latency_ns'], "
		 "r['disk'], r['exit_code']) for r in T['runs']]",
		 sp, NULL,
		 "[('interaction', 'handle_request', 100, 2000000000, 5000000, 1000000, None), "
		 "('interaction', 'handle_request', 100, 3000000000, 7000000, 1000000, None)]");
	/* the names' exact bytes; U+FFFD for the one that is not UTF-8 */
	CHECK_PY("[(r['tid'], r['comm'], r['exited'], r['at_stop']) for r in T['threads']]", sp,
		 NULL,
		 "[(100, 'app', True, False), (101, 'a,b\"c\\x1bd', False, True), "
		 "(102, 'bad\\ufffdutf', False, False), (103, '0123456789abcdef', False, False)]");
	CHECK_PY("[T['traces'][0][k] for k in ('status', 'damage', 'interaction', 'records', "
		 "'run_rows', 'call_rows', 'thread_rows', 'rb_full', 'lost_by_reader', 'calls', "
		 "'end_ns', 'stop_reason')]",
		 sp, NULL,
		 "['complete', None, 'handle_request', 10, 2, 3, 4, 7, 3, 3, 9000000000, "
		 "'signal']");
	/* every row of a trace carries its id, host and kernel */
	CHECK_PY("len({(r['trace_id'], r['host'], r['kernel']) for t in T.values() for r in t})",
		 sp, NULL, "1");
	CHECK_PY("T['traces'][0]['trace_id'][:4], len(T['traces'][0]['trace_id'])", sp, NULL,
		 "('xlp-', 20)");
}

TEST(csv_known_trace)
{
	static const char *const tables[] = {"runs", "calls", "threads", "traces"};
	const char *path = known(), *j = xt_tmp_path("known-all.jsonl");
	char o[512], expr[256];
	int rc;

	REQUIRE(export("--jsonl", "-o", j, path, NULL) == 0, "%s", err);
	for (size_t i = 0; i < 4; i++) {
		snprintf(o, sizeof(o), "%s", xt_tmp_path(tables[i]));
		rc = export("--csv", "--table", tables[i], "-o", o, path, NULL);
		REQUIRE(rc == 0 && !err[0], "%s: rc %d: %s", tables[i], rc, err);
		/* the header is the JSON keys; the rows the JSON rows */
		snprintf(expr, sizeof(expr), "K['%s'] == D[1][1]['%s']", tables[i], tables[i]);
		CHECK_PY(expr, spec("csv", tables[i], o), spec("jsonl", NULL, j), "True");
		if (i == 2)
			continue; /* the names with control bytes differ: below */
		snprintf(expr, sizeof(expr), "T['%s'] == D[1][0]['%s']", tables[i], tables[i]);
		CHECK_PY(expr, spec("csv", tables[i], o), spec("jsonl", NULL, j), "True");
	}
	/* quotes, commas round-trip; control bytes and non-UTF-8 in the \xNN text form */
	snprintf(o, sizeof(o), "%s", xt_tmp_path("threads"));
	CHECK_PY("[r['comm'] for r in T['threads']]", spec("csv", "threads", o), NULL,
		 "['app', 'a,b\"c\\\\x1bd', 'bad\\\\xffutf', '0123456789abcdef']");
	snprintf(o, sizeof(o), "%s", xt_tmp_path("calls"));
	CHECK_PY("sorted({r['func'] for r in T['calls']})", spec("csv", "calls", o), NULL,
		 "['handle_request', 'parse,\"x\"']");
}

/*
 * The waits table of a trace recorded with --timeline (synth__timeline:
 * 6 runs, each one sleep of its thread ended by "peer", a thread with no
 * events of its own, then 0.1 ms runnable): two pieces per wait, adding
 * up to it, the same in CSV and JSONL, counted in the traces row (the
 * runs' thread has no name: no thread record).
 */
TEST(waits_table_of_a_timeline)
{
	const char *path = xt_tmp_path("timeline.xlp"), *j = xt_tmp_path("waits.jsonl"),
		   *c = xt_tmp_path("waits.csv");
	const char *sp = spec("jsonl", NULL, j);

	REQUIRE(synth__timeline(path) == 0, "synth__timeline");
	REQUIRE(export("--jsonl", "-o", j, path, NULL) == 0 && !err[0], "%s", err);
	CHECK_PY("len(T['waits']), T['traces'][0]['wait_rows']", sp, NULL, "(12, 12)");
	CHECK_PY("all(sum(p['ns'] for p in T['waits'] if (p['run'], p['wait_start_ns']) == "
		 "(r['run'], r['wait_start_ns'])) == r['wait_ns'] for r in T['waits'])",
		 sp, NULL, "True");
	CHECK_PY("sorted({(r['state'], r['blocker'], r['depth']) for r in T['waits']})", sp, NULL,
		 "[('cpu_wait', None, 0), ('untraced', 'peer', 1)]");
	CHECK_PY("[r['wait_ns'] for r in T['waits'] if r['state'] == 'untraced']", sp, NULL,
		 "[20100000, 20100000, 20100000, 20100000, 20100000, 80100000]");
	REQUIRE(export("--csv", "--table", "waits", "-o", c, path, NULL) == 0 && !err[0], "%s",
		err);
	CHECK_PY("T['waits'] == D[1][0]['waits'] and K['waits'] == D[1][1]['waits']",
		 spec("csv", "waits", c), sp, "True");
	/* a trace without a timeline has no waits: the header alone */
	REQUIRE(export("--csv", "--table", "waits", "-o", c, known(), NULL) == 0, "%s", err);
	CHECK_PY("len(T['waits']), K['waits'][:5]", spec("csv", "waits", c), NULL,
		 "(0, ['trace_id', 'host', 'kernel', 'run', 'pid'])");
}

TEST(launches)
{
	const char *path = launches(), *o = xt_tmp_path("launches.jsonl"),
		   *sp = spec("jsonl", NULL, o);
	char c[512];

	REQUIRE(export("--jsonl", "-o", o, path, NULL) == 0, "%s", err);
	check_counts(path, o);
	CHECK_PY("[(r['run_kind'], r['func'], r['pid'], r['tid'], r['latency_ns'], r['wall'], "
		 "r['exit_code']) for r in T['runs']]",
		 sp, NULL,
		 "[('launch', None, 501, None, 500000000, 500000000, 0), "
		 "('launch', None, 502, None, 400000000, 400000000, 0), "
		 "('launch', None, 503, None, 100000000, None, 0)]");
	CHECK_PY("T['traces'][0]['interaction'], T['traces'][0]['run_rows']", sp, NULL,
		 "(None, 3)");
	/* a table the trace has no row of: the header alone */
	snprintf(c, sizeof(c), "%s", xt_tmp_path("threads.csv"));
	REQUIRE(export("--csv", "--table", "threads", "-o", c, path, NULL) == 0, "%s", err);
	CHECK_PY("len(T['threads']), K['threads'][:6]", spec("csv", "threads", c), NULL,
		 "(0, ['trace_id', 'host', 'kernel', 'pid', 'tid', 'comm'])");
}

TEST(many_traces_append)
{
	const char *o = xt_tmp_path("many.jsonl"), *sp = spec("jsonl", NULL, o),
		   *c = xt_tmp_path("many.csv");
	char want[64];
	int rc;

	rc = export("--jsonl", "-o", o, scenario(), known(), launches(), scenario(), NULL);
	REQUIRE(rc == 0 && !err[0], "rc %d: %s", rc, err);
	snprintf(want, sizeof(want), "%ld",
		 2 * dump_count(scenario(), "call") + dump_count(known(), "call") +
			 dump_count(launches(), "call"));
	CHECK_PY("len(T['calls'])", sp, NULL, want);
	snprintf(want, sizeof(want), "%ld", 2 * dump_count(scenario(), "run") + 2 + 3);
	CHECK_PY("len(T['runs'])", sp, NULL, want);
	/* one id per trace, the same for a copy; each trace's rows are its counts */
	CHECK_PY("len(T['traces']), len({r['trace_id'] for r in T['traces']})", sp, NULL, "(4, 3)");
	CHECK_PY("all(sum(r['trace_id'] == t['trace_id'] for r in T[k]) == "
		 "t[n] * (2 if t['file'].endswith('scenario.xlp') else 1) "
		 "for t in T['traces'] for k, n in (('calls', 'call_rows'), ('runs', 'run_rows')))",
		 sp, NULL, "True");
	rc = export("--csv", "--table", "calls", "-o", c, scenario(), known(), launches(),
		    scenario(), NULL);
	REQUIRE(rc == 0, "rc %d: %s", rc, err);
	CHECK_PY("T['calls'] == D[1][0]['calls']", spec("csv", "calls", c), sp, "True");
}

TEST(stdout_and_output_file)
{
	const char *o = xt_tmp_path("file.csv");
	char *to_stdout;
	uint8_t *f;
	struct stat st;
	size_t n;

	REQUIRE(export("--csv", "--table", "runs", known(), NULL) == 0, "%s", err);
	to_stdout = strdup(out);
	REQUIRE(export("--csv", "--table", "runs", "-o", o, known(), NULL) == 0, "%s", err);
	CHECK(!out[0], "stdout: %s", out);
	f = synth__slurp(o, &n);
	CHECK(f && to_stdout && !strcmp((char *)f, to_stdout), "-o and stdout differ");
	CHECK(!stat(o, &st) && (st.st_mode & 07777) == 0600, "mode %o", st.st_mode & 07777);
	free(f);
	free(to_stdout);
}

TEST(damaged_and_truncated)
{
	static const int cut[] = {0, 1, 2, 3, 6, 7, 8, 9, 10, 11};
	struct synth_scenario sc = {.nruns = 12, .slow_func = 1, .factor = SYNTH_NET};
	const char *dmg = xt_tmp_path("damaged.xlp"), *trunc = xt_tmp_path("truncated.xlp"),
		   *whole = xt_tmp_path("12.xlp");
	const char *o = xt_tmp_path("damaged.jsonl"), *sp = spec("jsonl", NULL, o);
	int rc;

	/* 12 runs, one chunk each: chunks 4 and 5 cut out */
	sc.path = whole;
	REQUIRE(!synth__scenario(&sc));
	REQUIRE(!synth__rechunk(whole, dmg, cut, 10));
	rc = export("--jsonl", "-o", o, dmg, NULL);
	/* as export --folded and report: what was read, a warning, status 0 */
	CHECK(rc == 0, "rc %d", rc);
	XT_CHECK_MESSAGE(err, "damaged.xlp is damaged (chunks 4-5 missing (lost 2 chunks)");
	check_counts(dmg, o);
	CHECK_PY("T['traces'][0]['status'], T['traces'][0]['damage'][:26]", sp, NULL,
		 "('damaged', 'chunks 4-5 missing (lost 2')");
	CHECK_PY("T['traces'][0]['records'] < T['traces'][0]['footer_records']", sp, NULL, "True");

	sc.path = trunc;
	sc.truncate = true;
	REQUIRE(!synth__scenario(&sc));
	o = xt_tmp_path("truncated.jsonl");
	sp = spec("jsonl", NULL, o);
	rc = export("--jsonl", "-o", o, trunc, NULL);
	CHECK(rc == 0, "rc %d", rc);
	XT_CHECK_MESSAGE(err, "truncated.xlp is truncated (recording did not finish)");
	check_counts(trunc, o);
	/* no footer, no stats record: the drops are unknown, not 0 */
	CHECK_PY("[T['traces'][0][k] for k in ('status', 'end_ns', 'stop_reason', "
		 "'footer_records', 'rb_full', 'lost_by_reader')]",
		 sp, NULL, "['truncated', None, None, None, None, None]");
	CHECK_PY("len(T['runs'])", sp, NULL, "12");
}

TEST(refusals)
{
	const char *o = xt_tmp_path("refused.jsonl"), *junk = xt_tmp_path("junk.xlp");
	const char *k = known(), *none = xt_tmp_path("none.xlp");
	struct {
		const char *args[6];
		int rc;
		const char *want;
	} cases[] = {
		{{"--jsonl", "--bogus", k}, 2, "export: unknown option '--bogus'"},
		{{"--jsonl", "-x", k}, 2, "export: unknown option '-x'"},
		{{"--csv", k}, 2, "--csv writes one table: add --table"},
		{{"--csv", "--table", "procs", k}, 2, "unknown table 'procs'"},
		{{"--jsonl", "--csv", "--table", "runs", k}, 2, "exclude each other"},
		{{"--jsonl"}, 2, "no trace file given"},
		{{"--jsonl", k, "--table"}, 2, "--table needs a value"},
		{{k}, 2, "no format given (--folded, --pprof, --perfetto, --jsonl or --csv)"},
		{{"--jsonl", "-o", o, k, none}, 1, "none.xlp: no such file"},
		{{"--csv", "--table", "calls", "-o", o, junk}, 1, "junk.xlp: not an xlprobe trace"},
	};
	FILE *f = fopen(junk, "w");

	REQUIRE(f && fputs("not a trace at all, but long enough to hold a header\n", f) >= 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].args;
		int rc = export(a[0], a[1], a[2], a[3], a[4], a[5], NULL);

		CHECK(rc == cases[i].rc, "case %zu: rc %d", i, rc);
		XT_CHECK_MESSAGE(err, cases[i].want);
		/* nothing written: no rows on stdout, no file */
		CHECK(!out[0], "case %zu: stdout '%s'", i, out);
		CHECK(access(o, F_OK), "case %zu: %s written", i, o);
	}
}

TEST_MAIN()
