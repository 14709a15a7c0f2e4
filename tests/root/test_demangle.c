/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * C++ names as users write them, on real eBPF: a C++ program of our own
 * (tests/workloads/cxxwl.cc) marked by a demangled glob, and node's own
 * C++ frames under its HTTP parser (llhttp_execute) in a node server of
 * the test's writing, driven by a node client. Every output (report
 * text, JSON, HTML, export --folded) names them demangled and no mangled
 * name is left but JSON's "symbol" fields, which keep the raw one.
 * Expected names come from nm (which object holds llhttp_execute, the
 * mangled names). Root; node from Debian's nodejs (tools/install-deps.sh).
 */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"
#include "demangle.h"
#include "json.h"
#include "xlptest.h"

static char out[1 << 16], err[1 << 16], buf[1 << 20];

/*
 * Whether the token at p (a symbol's characters) is a mangling the
 * demangler reads: some of node's are not (c++filt leaves
 * _ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCast...
 * as it is), and those are shown raw, as perf and c++filt show them.
 */
static bool demangleable(const char *p)
{
	static char tok[DEMANGLE_MAX_IN], out[DEMANGLE_MAX_OUT];
	size_t n = 0;

	while (p[n] && n + 1 < sizeof(tok) &&
	       (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '$'))
		n++;
	memcpy(tok, p, n);
	tok[n] = 0;
	return demangle__name(tok, out, sizeof(out));
}

/*
 * A mangled C++ name in s that could have been demangled: "_Z" then N, L,
 * K, Z or a digit, not inside a word.
 */
static const char *mangled_in(const char *s)
{
	for (const char *p = strstr(s, "_Z"); p; p = strstr(p + 1, "_Z"))
		if ((p == s || !isalnum((unsigned char)p[-1])) &&
		    (strchr("NLKZ", p[2]) || isdigit((unsigned char)p[2])) && p[2] &&
		    demangleable(p))
			return p;
	return NULL;
}

static bool raw_key(const char *key)
{
	size_t n = key ? strlen(key) : 0;

	return (n >= 6 && !strcmp(key + n - 6, "symbol")) ||
	       (n >= 7 && !strcmp(key + n - 7, "symbols"));
}

struct walk {
	size_t bad, pairs;
	const char *fn, *sym; /* a function's demangled name and its symbol */
	char first_bad[256];  /* the first mangled string outside a symbol field */
};

/* Every string of a report's JSON: mangled only under a *symbol(s) key. */
static void walk(const struct json *j, const char *key, struct walk *w)
{
	const struct json *sym;

	if (j->type == JSON_STR && !raw_key(key) && mangled_in(j->str)) {
		if (!w->bad++)
			snprintf(w->first_bad, sizeof(w->first_bad), "%s: %.200s", key ? key : "",
				 j->str);
	}
	if (j->type == JSON_OBJ && json__str(json__key(j, "function")) &&
	    !strcmp(json__str(json__key(j, "function")), w->fn)) {
		sym = json__key(j, "symbol");
		w->pairs += json__str(sym) && !strcmp(json__str(sym), w->sym);
	}
	for (size_t i = 0; (j->type == JSON_ARR || j->type == JSON_OBJ) && i < j->n; i++)
		walk(j->items[i], j->type == JSON_OBJ ? j->keys[i] : key, w);
}

/*
 * The report of trace as text, JSON, HTML and folded stacks: no mangled
 * name in any but JSON's symbol fields; the text holds want_text (NULL:
 * nothing in particular), the JSON the function fn with its symbol sym
 * beside, the HTML prefix, the folded stacks want_folded. (Which functions
 * the text's analysis names depends on the machine's noise; the JSON lists
 * them all.)
 */
static void check_outputs(const char *trace, const char *prefix, const char *want_text,
			  const char *fn, const char *sym, const char *want_folded)
{
	const char *js = xt_tmp_path("r.json"), *html = xt_tmp_path("r.html");
	char *text[] = {xt_xl, "report", (char *)trace, NULL};
	char *json[] = {xt_xl, "report", "--json", "-o", (char *)js, (char *)trace, NULL};
	char *hargv[] = {xt_xl, "report", "--html", (char *)html, (char *)trace, NULL};
	char *folded[] = {xt_xl, "export", "--folded", (char *)trace, NULL};
	struct walk w = {.fn = fn, .sym = sym};
	struct json *j;
	int rc;

	rc = xt_run(text, 120000, buf, sizeof(buf), err, sizeof(err));
	CHECK(rc == 0, "report exit %d: %s", rc, err);
	CHECK(!want_text || strstr(buf, want_text), "text report lacks '%s':\n%.3000s",
	      want_text ? want_text : "", buf);
	CHECK(!mangled_in(buf), "text report: %.200s", mangled_in(buf));

	j = xt_report_file(json, js, 120000);
	if (j) {
		walk(j, NULL, &w);
		CHECK(!w.bad, "%zu mangled JSON strings, the first %s", w.bad, w.first_bad);
		CHECK(w.pairs, "no JSON function '%s' with symbol '%s'", fn, sym);
		json__free(j);
	}

	rc = xt_run(hargv, 120000, out, sizeof(out), err, sizeof(err));
	CHECK(rc == 0, "report --html exit %d: %s", rc, err);
	REQUIRE(!xt_read_file(html, buf, sizeof(buf)), "%s", html);
	CHECK(strstr(buf, prefix), "HTML lacks '%s'", prefix);
	CHECK(!mangled_in(buf), "HTML: %.200s", mangled_in(buf));

	rc = xt_run(folded, 120000, buf, sizeof(buf), err, sizeof(err));
	CHECK(rc == 0, "export --folded exit %d: %s", rc, err);
	CHECK(strstr(buf, want_folded), "folded stacks lack '%s':\n%.2000s", want_folded, buf);
	CHECK(!mangled_in(buf), "folded: %.200s", mangled_in(buf));
}

/*
 * cxxwl's runs are calls of shop::Checkout::handle(int), marked by a
 * demangled glob; every 4th spends 20 ms of CPU in shop::crunch<long>().
 */
TEST(cxx_program_demangled)
{
	const char *trace = xt_tmp_path("cxx.xlp");
	char *dump[] = {xt_xl, "dump", (char *)trace, NULL};
	int rc;

	rc = xt_record_cxxwl(trace, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	CHECK(strstr(out, "CALLS handle=40 slow=10"), "%s", out);
	/* dump is the raw view: the mangled symbol, and its demangled form */
	rc = xt_run(dump, 60000, buf, sizeof(buf), err, sizeof(err));
	CHECK(rc == 0 && strstr(buf, "symbol=\"_ZN4shop8Checkout6handleEi\" "
				     "demangled=\"shop::Checkout::handle(int)\""),
	      "dump exit %d: %.2000s", rc, buf);
	check_outputs(trace, "shop::", "runs of shop::Checkout::handle(double)",
		      "long shop::crunch<long>(long)", "_ZN4shop6crunchIlEET_S1_",
		      ";shop::Checkout::handle(int);long shop::crunch<long>(long);");
}

/* ---- node ---- */

static const char server_js[] =
	"const http = require('http');\n"
	"function work(ms) { const end = Date.now() + ms; let x = 0;\n"
	"  while (Date.now() < end) x += Math.sqrt(x + 1); return x; }\n"
	"let n = 0;\n"
	"const srv = http.createServer((req, res) => {\n"
	"  n++; work(n % 4 === 0 ? 20 : 2); res.end('ok\\n'); });\n"
	"srv.listen(0, '127.0.0.1', () => console.log('PORT ' + srv.address().port));\n";

/* GETs one at a time, 5 ms apart, for argv[3] seconds; then prints REQUESTS n. */
static const char client_js[] =
	"const http = require('http');\n"
	"const port = +process.argv[2], end = Date.now() + 1000 * +process.argv[3];\n"
	"let done = 0;\n"
	"function one() {\n"
	"  if (Date.now() > end) { console.log('REQUESTS ' + done); return; }\n"
	"  http.get({host: '127.0.0.1', port, path: '/', agent: false}, (res) => {\n"
	"    res.resume(); res.on('end', () => { done++; setTimeout(one, 5); });\n"
	"  }).on('error', (e) => { console.error(e.message); process.exit(1); });\n"
	"}\n"
	"one();\n";

/*
 * The object of pid's mappings that defines llhttp_execute (node itself,
 * or libnode.so when node is built shared, as Debian 12's is), by nm.
 */
static int llhttp_object(int pid, char *path, size_t len)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "for f in $(awk '$6 ~ /^\\// { print $6 }' /proc/%d/maps | sort -u); do "
		 "nm -D --defined-only \"$f\" 2>/dev/null | grep -qw llhttp_execute && "
		 "{ echo \"$f\"; exit 0; }; done; exit 1",
		 pid);
	if (tl_run(cmd, path, len))
		return -1;
	path[strcspn(path, "\n")] = 0;
	return path[0] ? 0 : -1;
}

struct node_run {
	struct xt_proc srv, cli;
	char obj[512], pid[16];
};

/* The server, its port, the client for secs; the object holding llhttp_execute. */
static int node_start(struct node_run *n, int secs)
{
	const char *sjs = xt_tmp_path("server.js"), *cjs = xt_tmp_path("client.js");
	char node[256] = "", line[128], port[16], s[16];
	char *sargv[] = {node, (char *)sjs, NULL};
	char *cargv[] = {node, (char *)cjs, port, s, NULL};

	n->srv.pid = n->cli.pid = -1;
	if (tl_run("command -v node", node, sizeof(node)) || !node[0]) {
		CHECK(0, "node not installed: run tools/install-deps.sh (Debian's nodejs)");
		return -1;
	}
	node[strcspn(node, "\n")] = 0;
	if (xt_write_file(sjs, server_js) || xt_write_file(cjs, client_js) ||
	    xt_spawn(sargv, &n->srv)) {
		CHECK(0, "cannot write %s or start %s", sjs, node);
		n->srv.pid = -1;
		return -1;
	}
	if (xt_read_line(n->srv.out_fd, line, sizeof(line), 20000) ||
	    sscanf(line, "PORT %15s", port) != 1) {
		CHECK(0, "node server did not say its port: '%s'", line);
		return -1;
	}
	snprintf(s, sizeof(s), "%d", secs);
	snprintf(n->pid, sizeof(n->pid), "%d", (int)n->srv.pid);
	if (llhttp_object(n->srv.pid, n->obj, sizeof(n->obj))) {
		CHECK(0, "no object of node's mappings defines llhttp_execute (nm -D)");
		return -1;
	}
	if (xt_spawn(cargv, &n->cli)) {
		CHECK(0, "cannot start the client");
		n->cli.pid = -1;
		return -1;
	}
	return 0;
}

static void node_stop(struct node_run *n)
{
	int rc;

	if (n->cli.pid > 0) {
		rc = xt_wait(&n->cli, 60000, out, sizeof(out), err, sizeof(err));
		CHECK(rc == 0 && strstr(out, "REQUESTS "), "client exit %d: %s %s", rc, out, err);
	}
	if (n->srv.pid > 0) {
		kill(n->srv.pid, SIGTERM);
		xt_wait(&n->srv, 10000, NULL, 0, NULL, 0);
	}
}

/*
 * record -p PID -i OBJ:llhttp_execute --sample: each request's handler
 * runs inside the parser's callbacks, so its samples pass through
 * node::(anonymous namespace)::Parser::on_headers_complete(), which every
 * output names demangled.
 */
TEST(node_frames_demangled)
{
	const char *trace = xt_tmp_path("node.xlp");
	struct node_run n;
	char spec[600];
	char *argv[] = {xt_xl,	    "record",	  "-q", "-p", n.pid,	     "-i", spec,
			"--sample", "--duration", "5s", "-o", (char *)trace, NULL};
	int rc;

	xt_paths("cxxwl");
	if (node_start(&n, 12)) {
		node_stop(&n);
		return;
	}
	snprintf(spec, sizeof(spec), "%s:llhttp_execute", n.obj);
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	node_stop(&n);
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	/*
	 * No name the text must hold: its analysis names what the slow runs
	 * show, node:: functions or, on a loaded machine, V8's clock reads
	 * (a clean clone's run, beside the unit suites, 2026-11-29). The
	 * JSON and the folded stacks hold node's names whatever the verdict.
	 */
	check_outputs(trace, "node::", NULL,
		      "node::(anonymous namespace)::Parser::on_headers_complete()",
		      "_ZN4node12_GLOBAL__N_16Parser19on_headers_completeEv",
		      ";node::(anonymous namespace)::Parser::on_headers_complete();");
}

/*
 * -i by a demangled glob over node's C++ names: both overloads of
 * node::(anonymous namespace)::Parser::Execute, the mangled names nm
 * gives, recorded in the trace's function table.
 */
TEST(node_interaction_by_demangled_glob)
{
	const char *trace = xt_tmp_path("glob.xlp");
	struct node_run n;
	char spec[600], cmd[700], want[4096];
	char *argv[] = {xt_xl, "record",     "-q", "-p", n.pid,		"-i",
			spec,  "--duration", "2s", "-o", (char *)trace, NULL};
	char *dump[] = {xt_xl, "dump", (char *)trace, NULL};
	int rc;

	xt_paths("cxxwl");
	if (node_start(&n, 6)) {
		node_stop(&n);
		return;
	}
	/* bare BINARY (the basename, found in the maps), then a C++ glob */
	snprintf(spec, sizeof(spec), "%s:node::*Parser::Execute*", strrchr(n.obj, '/') + 1);
	rc = xt_run(argv, 60000, out, sizeof(out), err, sizeof(err));
	node_stop(&n);
	REQUIRE(rc == 0, "record -i '%s' exit %d: %s", spec, rc, err);
	snprintf(cmd, sizeof(cmd),
		 "nm '%s' | awk '$3 ~ /Parser7Execute/ && $2 ~ /[tTwW]/ {print $3}'", n.obj);
	REQUIRE(!tl_run(cmd, want, sizeof(want)) && want[0], "nm %s: no Parser::Execute", n.obj);
	rc = xt_run(dump, 60000, buf, sizeof(buf), err, sizeof(err));
	REQUIRE(rc == 0, "dump exit %d: %s", rc, err);
	for (char *s = strtok(want, "\n"); s; s = strtok(NULL, "\n")) {
		char field[512];

		snprintf(field, sizeof(field),
			 "symbol=\"%s\" demangled=\"node::(anonymous "
			 "namespace)::Parser::Execute(",
			 s);
		CHECK(strstr(buf, field), "dump lacks %s:\n%.2000s", field, buf);
	}
}

TEST_MAIN()
