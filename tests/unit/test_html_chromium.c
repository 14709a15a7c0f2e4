/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HTML report as a browser builds it: headless Chromium (Debian's
 * chromium, installed by tools/install-deps.sh) loads the page and dumps
 * its DOM, where each plot must be found by its id with as many elements
 * as the analysis has: a bar per run, a stacked group per critical
 * function, the trees' nodes, the chain's links, the flame graph's
 * frames. The JSON report of the same trace gives the expected numbers.
 * A copy of each page with a measuring script shows that nothing runs past
 * the page's column (long lines wrap, wide tables scroll in their box).
 * Screenshots are left in .output/ (report-screenshot*.png) for people to
 * look at.
 */
#include <math.h>
#include <sys/stat.h>
#include "testlib.h"
#include "json.h"
#include "synth.h"
#include "xlptest.h"

static char err[1 << 14];

static long attr(const char *s, const char *name);

struct page {
	char *dom;
	struct json *j;
};

/* chromium's HOME and profile: a fresh directory under xt_tmpdir(), removed at exit */
static const char *chrome_home(void)
{
	static char home[512];

	if (!home[0]) {
		snprintf(home, sizeof(home), "%s", xt_tmp_path("chrome"));
		mkdir(home, 0700);
	}
	return home;
}

/*
 * Runs chromium on file html with args; stdout to out. Chromium's stderr
 * (dbus and GPU noise) is ignored; its exit status is not.
 */
static int chromium(const char *args, const char *html, const char *out)
{
	const char *home = chrome_home();
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "HOME='%s' timeout 60 chromium --headless --no-sandbox --disable-gpu "
		 "--hide-scrollbars --no-first-run --user-data-dir='%s/profile' %s 'file://%s' "
		 ">'%s' 2>'%s/stderr'",
		 home, home, args, html, out, home);
	return tl_run(cmd, NULL, 0);
}

/*
 * A script appended to a copy of the page (the report has none): every
 * element outside a scrolling box that reaches past the body's column, or
 * whose content (a long line of a <pre>) sticks out of its own box, listed
 * in <pre id="xlp-overflow" data-n="N">, with the page's scroll width.
 */
static const char overflow_probe[] =
	"<script>(function(){"
	"var b=document.body.getBoundingClientRect(),out=[];"
	"function scrolls(e){for(var a=e.parentElement;a&&a!==document.body;a=a.parentElement)"
	"if(getComputedStyle(a).overflowX!=='visible')return true;return false}"
	"document.body.querySelectorAll('*').forEach(function(e){"
	"var r=e.getBoundingClientRect(),own=getComputedStyle(e).overflowX==='visible'&&"
	"e.clientWidth>0&&e.scrollWidth>e.clientWidth+1;"
	"if((r.right>b.right+1||own)&&!scrolls(e))out.push(e.tagName+' '+Math.round("
	"Math.max(r.right-b.right,e.scrollWidth-e.clientWidth))+'px: '+"
	"(e.textContent||'').replace(/\\s+/g,' ').slice(0,80))});"
	"var p=document.createElement('pre');p.id='xlp-overflow';"
	"p.setAttribute('data-n',out.length);"
	"p.setAttribute('data-page',document.documentElement.scrollWidth+'/'+innerWidth);"
	"p.textContent=out.slice(0,8).join('\\n');document.body.appendChild(p)})()</script>";

/*
 * Nothing on the page runs past its column at width px: long evidence
 * lines wrap, wide tables scroll in their own box (a page that scrolls
 * sideways hides the right half of every paragraph).
 */
static void no_overflow_at(const char *html, int width)
{
	const char *probe = xt_tmp_path("probe.html"), *dom = xt_tmp_path("probe-dom.html");
	char args[64], *page, *d, *res;
	size_t n = 0;
	FILE *f;
	int rc;

	page = (char *)synth__slurp(html, &n);
	REQUIRE(page && strstr(page, "</body>"), "no page");
	f = fopen(probe, "w");
	REQUIRE(f, "%s", probe);
	fwrite(page, 1, (size_t)(strstr(page, "</body>") - page), f);
	fprintf(f, "%s</body></html>\n", overflow_probe);
	fclose(f);
	free(page);
	snprintf(args, sizeof(args), "--window-size=%d,3000 --dump-dom", width);
	rc = chromium(args, probe, dom);
	CHECK(rc == 0, "chromium --dump-dom exited %d", rc);
	d = (char *)synth__slurp(dom, &n);
	res = d ? strstr(d, "<pre id=\"xlp-overflow\"") : NULL;
	CHECK(res && attr(res, "data-n") == 0, "at %d px, %ld element(s) past the column: %.1200s",
	      width, attr(res, "data-n"), res ? res : "(no probe result)");
	free(d);
}

/* at the screenshots' width, and at one narrower than the column */
static void check_no_overflow(void)
{
	no_overflow_at(xt_tmp_path("r.html"), 1200);
	no_overflow_at(xt_tmp_path("r.html"), 800);
}

/*
 * Writes the HTML and JSON reports of trace, loads the page in chromium,
 * and takes a screenshot into .output/NAME when shot is not NULL.
 */
static bool load_opt(const char *trace, const char *shot, struct page *p, const char *opt,
		     const char *val)
{
	const char *html = xt_tmp_path("r.html"), *js = xt_tmp_path("r.json");
	const char *dom = xt_tmp_path("dom.html");
	char jerr[256], args[1200], png[1024];
	struct stat st = {0};
	size_t n = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	if (opt)
		rc = synth__report(NULL, 0, err, sizeof(err), "--json", "-o", js, "--html", html,
				   opt, val, trace, NULL);
	else
		rc = synth__report(NULL, 0, err, sizeof(err), "--json", "-o", js, "--html", html,
				   trace, NULL);
	CHECK(rc == 0, "report exited %d: %s", rc, err);
	p->j = json__load(js, jerr, sizeof(jerr));
	CHECK(p->j, "%s", jerr);
	rc = chromium("--dump-dom", html, dom);
	CHECK(rc == 0, "chromium --dump-dom exited %d (127: not installed: make deps)", rc);
	p->dom = (char *)synth__slurp(dom, &n);
	CHECK(p->dom && n > 1000 && strstr(p->dom, "</html>"), "DOM of %zu bytes", n);
	if (shot) {
		snprintf(png, sizeof(png), "%s/.output/%s", tl_root(), shot);
		remove(png);
		snprintf(args, sizeof(args), "--screenshot='%s' --window-size=1200,3000", png);
		rc = chromium(args, html, "/dev/null");
		CHECK(rc == 0, "chromium --screenshot exited %d", rc);
		/* a blank 1200x3000 page compresses to a few kB */
		CHECK(!stat(png, &st) && st.st_size > 50000, "%s: %lld bytes", png,
		      (long long)st.st_size);
	}
	return p->j && p->dom;
}

static bool load(const char *trace, const char *shot, struct page *p)
{
	return load_opt(trace, shot, p, NULL, NULL);
}

static void unload(struct page *p)
{
	free(p->dom);
	json__free(p->j);
}

/* The <svg id="ID"> element of the DOM (malloc'd), NULL if absent. */
static char *svg(const char *dom, const char *id)
{
	char key[128];
	const char *s, *e;

	snprintf(key, sizeof(key), "<svg id=\"%s\"", id);
	s = strstr(dom, key);
	e = s ? strstr(s, "</svg>") : NULL;
	return e ? strndup(s, (size_t)(e + 6 - s)) : NULL;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = s ? strstr(s, needle) : NULL; p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Attribute name of the element s starts with, as a number (-1 if absent). */
static long attr(const char *s, const char *name)
{
	char key[64];
	const char *end = s ? strchr(s, '>') : NULL, *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = s ? strstr(s, key) : NULL;
	return p && p < end ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Nodes of a JSON tree (xlprobe-report/3: "root", each split with "le" and "gt"). */
static size_t json_nodes(const struct json *n)
{
	if (!n)
		return 0;
	return 1 + json_nodes(json__key(n, "le")) + json_nodes(json__key(n, "gt"));
}

/* Plot id holds want elements of a class starting cls, and says so in its data attribute. */
static void check_plot(const char *dom, const char *id, const char *cls, const char *data,
		       size_t want)
{
	char *s = svg(dom, id), c[64];

	/* a prefix: "node" counts "node leaf slow" too */
	snprintf(c, sizeof(c), "class=\"%s", cls);
	CHECK(s, "no <svg id=\"%s\"> in the DOM", id);
	CHECK(count(s, c) == want, "%s: %zu elements of class %s, want %zu", id, count(s, c), cls,
	      want);
	CHECK(!data || attr(s, data) == (long)want, "%s: %s=%ld, want %zu", id, data, attr(s, data),
	      want);
	/* a visible title and a <title> (the run plot's axis labels: check_page) */
	CHECK(s && strstr(s, "<title>") && strstr(s, "class=\"ptitle\""), "%s: no title", id);
	free(s);
}

/* The trees of the page, node for node those of the analysis. */
static void check_trees(const struct page *p)
{
	const struct json *crit = json__get(p->j, "critical_functions");
	size_t n1 = json_nodes(json__get(p->j, "tree.root"));
	char id[64];

	CHECK(n1 >= 3, "step 1 tree of %zu nodes: the scenario has a split", n1);
	check_plot(p->dom, "tree-step1", "node", "data-nodes", n1);
	check_plot(p->dom, "tree-step1", "node leaf", "data-leaves", (n1 + 1) / 2);
	for (size_t i = 0; i < json__len(crit); i++) {
		const struct json *c = json__at(crit, i);
		size_t n2 = json_nodes(json__get(c, "tree.root"));

		snprintf(id, sizeof(id), "tree-step2-%zu", i + 1);
		CHECK(n2 >= 3, "%s of %zu nodes", id, n2);
		check_plot(p->dom, id, "node", "data-nodes", n2);
	}
	check_plot(p->dom, "tree-baseline", "node", "data-nodes",
		   json_nodes(json__get(p->j, "baseline.tree.root")));
}

/* Chain and flame graph of each critical function: present exactly when it has them. */
static void check_chains(const struct page *p)
{
	const struct json *crit = json__get(p->j, "critical_functions");
	char id[64], *s;

	for (size_t i = 0; i < json__len(crit); i++) {
		size_t links = json__len(json__get(json__at(crit, i), "chain"));
		size_t frames = json__len(json__get(json__at(crit, i), "context_tree")), dframes;

		snprintf(id, sizeof(id), "chain-%zu", i + 1);
		if (links > 1) {
			check_plot(p->dom, id, "link", "data-links", links);
		} else {
			s = svg(p->dom, id);
			CHECK(!s, "%s drawn for a chain of %zu", id, links);
			free(s);
		}
		/* the differential flame graph: as many frames as the JSON counts */
		snprintf(id, sizeof(id), "diff-flame-%zu", i + 1);
		dframes = 0; /* growth is null without samples */
		if (!isnan(json__num(json__get(json__at(crit, i), "growth.flame_frames"))))
			dframes = (size_t)json__num(
				json__get(json__at(crit, i), "growth.flame_frames"));
		if (dframes) {
			check_plot(p->dom, id, "dframe", "data-frames", dframes);
			s = svg(p->dom, id);
			CHECK(attr(s, "data-slow-samples") ==
				      (long)json__num(json__get(json__at(crit, i),
								"growth.path[0].slow_samples")),
			      "%s: data-slow-samples %ld", id, attr(s, "data-slow-samples"));
			free(s);
		} else {
			s = svg(p->dom, id);
			CHECK(!s, "%s drawn without samples in slow runs", id);
			free(s);
		}
		snprintf(id, sizeof(id), "flame-%zu", i + 1);
		if (frames) {
			/* each node of the context tree, once over slow runs and once over fast */
			check_plot(p->dom, id, "frame", NULL, 2 * frames);
			s = svg(p->dom, id);
			CHECK(attr(s, "data-frames") == (long)frames, "%s: data-frames %ld", id,
			      attr(s, "data-frames"));
			free(s);
		} else {
			s = svg(p->dom, id);
			CHECK(!s, "%s drawn without a context tree", id);
			free(s);
		}
	}
}

/* What every report with a diagnosis holds. */
static void check_page(const struct page *p)
{
	size_t runs = (size_t)json__num(json__get(p->j, "runs.count"));
	size_t ncrit = json__len(json__get(p->j, "critical_functions"));
	char *s;

	CHECK(ncrit >= 1, "no critical function: %s", json__str(json__get(p->j, "verdict")));
	check_plot(p->dom, "plot-latency-hist", "bin", "data-bins", 40);
	check_plot(p->dom, "plot-latency-runs", "bar", "data-bars", runs);
	s = svg(p->dom, "plot-latency-runs");
	CHECK(attr(s, "data-runs") == (long)runs && attr(s, "data-per-bar") == 1, "-");
	/* the slow runs are the red bars */
	CHECK(count(s, "fill=\"#d9534f\"><title>") ==
		      (size_t)json__num(json__get(p->j, "runs.slow")),
	      "%zu red bars, %g slow runs", count(s, "fill=\"#d9534f\"><title>"),
	      json__num(json__get(p->j, "runs.slow")));
	CHECK(strstr(s, ")\">latency</text>") && strstr(s, "\">runs in start order</text>"),
	      "axis labels");
	free(s);
	check_plot(p->dom, "plot-resources", "func", "data-groups", ncrit);
	check_plot(p->dom, "plot-resources", "stack", NULL, 2 * ncrit);
	s = svg(p->dom, "plot-resources");
	CHECK(count(s, "class=\"seg\"") >= 2 * ncrit, "%zu segments", count(s, "class=\"seg\""));
	free(s);
	check_plot(p->dom, "plot-resources-baseline", "func", "data-groups", 1);
	check_trees(p);
	check_chains(p);
	CHECK(!strstr(p->dom, "<script"), "self-contained: no script");
}

/* ipc_wait slows query_db */
TEST(plots_in_dom)
{
	struct synth_scenario sc = {
		.path = xt_tmp_path("ipc.xlp"), .factor = SYNTH_IPC, .slow_func = 2, .seed = 8};
	struct page p;

	REQUIRE(!synth__scenario(&sc), "synth");
	REQUIRE(load(sc.path, "report-screenshot.png", &p), "-");
	check_no_overflow();
	check_page(&p);
	CHECK(!strcmp(json__str(json__get(p.j, "critical_functions[0].function")), "query_db"),
	      "%s", json__str(json__get(p.j, "critical_functions[0].function")));
	unload(&p);
}

/*
 * ExecutorRun > index_getnext_slot > smgrread > FileRead; FileRead waits
 * for the disk. smgrread's symbol has markup in it, which must stay text.
 */
static int write_chain(const char *path)
{
	static const struct synth_func f[] = {{"/usr/bin/pg", "PortalRun", true},
					      {"/usr/bin/pg", "ExecutorRun", false},
					      {"/usr/bin/pg", "index_getnext_slot", false},
					      {"/usr/bin/pg", "smgrread<i>x</i>&\"q\"", false},
					      {"/usr/bin/pg", "FileRead", false}};
	uint64_t seed = 5, t = 1000000000, self[XLP_NR_CTR], incl[XLP_NR_CTR];
	struct synth *s;
	int err = synth__open(path,
			      XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | XLP_FEAT_SYSCALLS |
				      XLP_FEAT_BLOCK,
			      0, f, 5, &s);

	if (err)
		return err;
	for (int i = 0; i < 80 && !err; i++) {
		bool slow = tl_rnd01(&seed) < 0.25;

		memset(incl, 0, sizeof(incl));
		/* innermost first, as calls return; each level adds CPU time of its own */
		for (int k = 4; k >= 0 && !err; k--) {
			struct synth_usage u = {.cpu_run = (0.2 + 0.1 * k) * 1e6 *
							   (1 + 0.1 * tl_rnd01(&seed))};

			if (k == 4 && slow)
				u.disk = 10e6 * (1 + 0.2 * tl_rnd01(&seed));
			synth__counters(&u, self);
			for (int x = 0; x < XLP_NR_CTR; x++)
				incl[x] += self[x];
			/* function k at depth k, entered 1 us after its caller */
			err = synth__call(s, (uint32_t)k, 1000, 1000, (uint16_t)k,
					  t + 1000 * (uint64_t)k, incl, self, 0, NULL);
		}
		err = err ? err : synth__run(s, 0, 1000, 1000, t, incl);
		t += incl[XLP_C_WALL] + 1000000;
	}
	return synth__finish(s, err);
}

TEST(chain_in_dom)
{
	const char *path = xt_tmp_path("chain.xlp");
	struct page p;

	REQUIRE(!write_chain(path), "synth");
	REQUIRE(load(path, NULL, &p), "-");
	check_no_overflow();
	check_page(&p);
	CHECK(json__len(json__get(p.j, "critical_functions[0].chain")) == 4, "chain: %s",
	      json__str(json__get(p.j, "verdict")));
	CHECK(!strstr(p.dom, "<i>x</i>"), "markup from a symbol became an element");
	CHECK(strstr(p.dom, "smgrread&lt;i&gt;x&lt;/i&gt;&amp;\"q\""), "symbol text lost");
	unload(&p);
}

/* Stack samples: the calling-context tree as a flame graph. */
TEST(flame_in_dom)
{
	const char *path = xt_tmp_path("sampled.xlp");
	struct page p;

	REQUIRE(!synth__sampled(path), "synth");
	REQUIRE(load(path, "report-screenshot-sampled.png", &p), "-");
	check_no_overflow();
	check_chains(&p);
	CHECK(json__len(json__get(p.j, "critical_functions[0].context_tree")) > 1, "%s",
	      json__str(json__get(p.j, "verdict")));
	/* the disk samples of load go through pread: a differential flame graph */
	CHECK(json__num(json__get(p.j, "critical_functions[0].growth.flame_frames")) >= 2, "%g",
	      json__num(json__get(p.j, "critical_functions[0].growth.flame_frames")));
	unload(&p);
}

/* Thousands of runs: the per-run plot draws bars of several runs, and says so. */
TEST(many_runs_aggregated)
{
	struct synth_scenario sc = {.path = xt_tmp_path("many.xlp"),
				    .factor = SYNTH_DISK,
				    .slow_func = 1,
				    .seed = 11,
				    .nruns = 3000,
				    .slow_frac = 0.1};
	struct page p;
	char *s;
	long bars, per, nslow = 0;

	REQUIRE(!synth__scenario(&sc), "synth");
	REQUIRE(load(sc.path, NULL, &p), "-");
	check_no_overflow();
	s = svg(p.dom, "plot-latency-runs");
	bars = attr(s, "data-bars");
	per = attr(s, "data-per-bar");
	CHECK(attr(s, "data-runs") == 3000, "%ld", attr(s, "data-runs"));
	CHECK(bars > 0 && bars <= 600 && per > 1 && (bars - 1) * per < 3000 && bars * per >= 3000,
	      "%ld bars of %ld", bars, per);
	CHECK(count(s, "class=\"bar\"") == (size_t)bars, "%zu bars", count(s, "class=\"bar\""));
	/* every slow run counted in its bar */
	for (const char *q = strstr(s, " data-slow=\""); q; q = strstr(q + 1, " data-slow=\""))
		nslow += strtol(q + 12, NULL, 10);
	CHECK(nslow == (long)json__num(json__get(p.j, "runs.slow")), "%ld slow in the bars, %g",
	      nslow, json__num(json__get(p.j, "runs.slow")));
	free(s);
	CHECK(strstr(p.dom, "3000 runs in ") && strstr(p.dom, " consecutive runs"),
	      "the caption gives the count");
	CHECK(strlen(p.dom) < 400000, "DOM of %zu bytes", strlen(p.dom));
	unload(&p);
}

/*
 * handle_request calls NF - 1 functions once per run, each on the CPU a
 * little longer than the one before; the first, whose symbol is 300
 * characters without a space, waits for the disk in a quarter of the runs.
 */
#define NF 46

static int write_many(const char *path)
{
	static struct synth_func f[NF];
	static char names[NF][320];
	uint64_t seed = 3, t = 1000000000, self[XLP_NR_CTR], incl[XLP_NR_CTR];
	struct synth *s;
	int err;

	f[0] = (struct synth_func){"/opt/app/bin/app", "handle_request", true};
	for (int k = 1; k < NF; k++) {
		if (k == 1) {
			memset(names[k], 0, sizeof(names[k]));
			strcpy(names[k], "ns::Cache<ns::Key,ns::Value>::");
			while (strlen(names[k]) < 290)
				strcat(names[k], "load_");
			strcat(names[k], "blocks");
		} else {
			snprintf(names[k], sizeof(names[k]), "step_%02d", k);
		}
		f[k] = (struct synth_func){"/opt/app/bin/app", names[k], false};
	}
	err = synth__open(path,
			  XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | XLP_FEAT_SYSCALLS |
				  XLP_FEAT_BLOCK,
			  0, f, NF, &s);
	if (err)
		return err;
	for (int i = 0; i < 80 && !err; i++) {
		bool slow = tl_rnd01(&seed) < 0.25;
		struct synth_usage own = {.cpu_run = 0.1e6};
		uint64_t entry = t;

		memset(incl, 0, sizeof(incl));
		for (int k = 1; k < NF && !err; k++) {
			struct synth_usage u = {.cpu_run = (0.05 + 0.002 * k) * 1e6 *
							   (1 + 0.1 * tl_rnd01(&seed))};

			if (k == 1 && slow)
				u.disk = 10e6 * (1 + 0.2 * tl_rnd01(&seed));
			synth__counters(&u, self);
			err = synth__call(s, (uint32_t)k, 1000, 1000, 1, entry, self, self, 0,
					  NULL);
			entry += self[XLP_C_WALL];
			for (int x = 0; x < XLP_NR_CTR; x++)
				incl[x] += self[x];
		}
		synth__counters(&own, self);
		for (int x = 0; x < XLP_NR_CTR; x++)
			incl[x] += self[x];
		err = err ? err : synth__call(s, 0, 1000, 1000, 0, t, incl, self, 0, NULL);
		err = err ? err : synth__run(s, 0, 1000, 1000, t, incl);
		t += incl[XLP_C_WALL] + 1000000;
	}
	return synth__finish(s, err);
}

/*
 * --top-k 100 keeps every function in the analysis: the page's Functions
 * table shows the 30 longest and says how many the text and JSON add; the
 * long symbol wraps in the headings and the evidence.
 */
TEST(functions_capped_long_names_wrap)
{
	const char *path = xt_tmp_path("many-funcs.xlp");
	size_t rows, nj;
	const char *tab, *end;
	char want[128];
	struct page p;

	REQUIRE(!write_many(path), "synth");
	REQUIRE(load_opt(path, "report-screenshot-functions.png", &p, "--top-k", "100"), "-");
	check_no_overflow();
	nj = json__len(json__get(p.j, "functions"));
	CHECK(nj > 30, "%zu functions in the JSON report", nj);
	CHECK(strstr(json__str(json__get(p.j, "critical_functions[0].function")) ?: "",
		     "load_load_"),
	      "%s", json__str(json__get(p.j, "verdict")));
	tab = strstr(p.dom, "<h2>Functions</h2>");
	end = tab ? strstr(tab, "</table>") : NULL;
	REQUIRE(end, "no Functions table");
	rows = 0;
	for (const char *q = strstr(tab, "<tr>"); q && q < end; q = strstr(q + 1, "<tr>"))
		rows++;
	CHECK(rows == 1 + 30, "%zu rows with the header", rows);
	snprintf(want, sizeof(want), "%zu more functions, with less time, left out here", nj - 30);
	CHECK(strstr(end, want), "no \"%s\"", want);
	snprintf(want, sizeof(want), "the text and JSON reports list all %zu.", nj);
	CHECK(strstr(end, want), "no \"%s\"", want);
	unload(&p);
}

TEST_MAIN()
