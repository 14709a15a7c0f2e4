/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The rules that decide what a report accuses, on synthetic traces whose
 * ground truth is known: a natural long tail with no cause accuses nothing;
 * a 30 % slowdown with one cause is explained; two co-critical functions
 * are both named, ranked by their share of the added latency; a nested
 * chain names its deepest function and shows the chain; tests of one
 * function on a path merge into one interval; more work or a slower CPU.
 * The statistics behind them (analysis/stats/stats_tests.c) are tested against
 * values computed by hand in test_evidence_stats.c.
 */
#include <math.h>
#include <stdint.h>
#include "testlib.h"
#include "stats_tests.h"
#include "json.h"
#include "synth.h"
#include "testds.h"
#include "xlptest.h"

/* ---------- synthetic traces ---------- */

#define BASE_FEAT                                                                                  \
	(XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | XLP_FEAT_SYSCALLS | XLP_FEAT_BLOCK)

struct rng {
	uint64_t s;
};

static double rng_u(struct rng *r)
{
	return tl_rnd01(&r->s);
}

static double rng_n(struct rng *r)
{
	double u = rng_u(r) + 1e-12, v = rng_u(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A call tree node: own usage (exclusive) and nested marked calls. */
struct node {
	uint32_t func;
	struct synth_usage self;
	struct node *kid[4];
	size_t nkids;
};

static void ctr_add(uint64_t *a, const uint64_t *b)
{
	for (int c = 0; c < XLP_NR_CTR; c++)
		a[c] += b[c];
}

/* Writes n's subtree in return order; its own time first, then the calls. */
static int emit(struct synth *s, const struct node *n, uint16_t depth, uint64_t entry,
		uint64_t *incl)
{
	uint64_t self[XLP_NR_CTR], kid[XLP_NR_CTR], t;
	int err = 0;

	synth__counters(&n->self, self);
	memcpy(incl, self, sizeof(self));
	t = entry + self[XLP_C_WALL];
	for (size_t i = 0; i < n->nkids && !err; i++) {
		err = emit(s, n->kid[i], depth + 1, t, kid);
		t += kid[XLP_C_WALL];
		ctr_add(incl, kid);
	}
	return err ? err : synth__call(s, n->func, 1000, 1000, depth, entry, incl, self, 0, NULL);
}

/* One run: the interaction (func 0) around the nodes; returns its end. */
static int emit_run(struct synth *s, struct node *top, uint64_t t0, uint64_t *end)
{
	uint64_t incl[XLP_NR_CTR];
	int err = emit(s, top, 0, t0, incl);

	if (!err)
		err = synth__run(s, 0, 1000, 1000, t0, incl);
	*end = t0 + incl[XLP_C_WALL] + 1000000;
	return err;
}

static struct synth_usage cpu_ms(struct rng *r, double ms, double sd)
{
	double v = ms * (1 + sd * rng_n(r));

	return (struct synth_usage){.cpu_run = (v < 0.01 ? 0.01 : v) * 1e6};
}

/* n runs, slow ones chosen at random with probability frac (never in bursts). */
static void pick(struct rng *r, uint8_t *slow, size_t n, double frac)
{
	for (size_t i = 0; i < n; i++)
		slow[i] = rng_u(r) < frac;
}

static struct json *report_json(const char *trace, char *err, size_t errlen)
{
	const char *out = xt_tmp_path("r.json");
	char jerr[256];
	struct json *j;
	int rc = synth__report(NULL, 0, err, errlen, "--json", "-o", out, trace, NULL);

	CHECK(rc == 0, "report exited %d: %s", rc, err);
	j = json__load(out, jerr, sizeof(jerr));
	CHECK(j, "%s", jerr);
	return j;
}

/* The checks read many paths of the report: the value at each. */
/* The JSON report of the trace tests/data/NAME (a real recording); NULL after a failed check. */
static struct json *fixture_report(const char *name)
{
	char path[512], err[4096];
	struct json *j;

	snprintf(path, sizeof(path), "%s/tests/data/%s", tl_root(), name);
	j = report_json(path, err, sizeof(err));
	CHECK(j, "%s: %s", name, err);
	return j;
}

static const char *str(const struct json *j, const char *path)
{
	const char *s = json__str(json__get(j, path));

	return s ? s : "(null)";
}

static double num(const struct json *j, const char *path)
{
	return json__num(json__get(j, path));
}

static int flag(const struct json *j, const char *path)
{
	return json__bool(json__get(j, path));
}

static size_t len(const struct json *j, const char *path)
{
	return json__len(json__get(j, path));
}

/* Macros, so that a failure names the test's line. */
#define CHECK_STR(j, path, want) CHECK(!strcmp(str(j, path), want), "%s", str(j, path))
#define CHECK_NUM(j, path, op, want) CHECK(num(j, path) op(want), "%s = %g", path, num(j, path))
/* No function accused, and func the first one rejected. */
#define CHECK_NONE_BUT_REJECTED(j, func)                                                           \
	do {                                                                                       \
		CHECK(len(j, "critical_functions") == 0, "%s", str(j, "verdict"));                 \
		CHECK_STR(j, "rejected_functions[0].function", func);                              \
	} while (0)

/*
 * One scenario being written: its trace, generator, writer and clock, so
 * that each test says only what its runs are and what the report finds.
 */
struct scen {
	const char *path;
	struct rng r;
	struct synth *s;
	uint64_t t;
	int e;
	char err[4096];
};

static void scen_open(struct scen *c, const char *name, uint64_t seed,
		      const struct synth_func *funcs, size_t nfuncs)
{
	c->path = xt_tmp_path(name);
	c->r.s = seed;
	c->t = 1000000000;
	c->e = synth__open(c->path, BASE_FEAT, 0, funcs, nfuncs, &c->s);
}

/* The usual scenario: /opt/app's handle(), the interaction, calling a and b. */
static void scen_app(struct scen *c, const char *name, uint64_t seed, const char *a, const char *b)
{
	const struct synth_func funcs[] = {
		{"/opt/app", "handle", true}, {"/opt/app", a, false}, {"/opt/app", b, false}};

	scen_open(c, name, seed, funcs, 3);
}

/* One run around top, unless an earlier one failed. */
static void scen_run(struct scen *c, struct node *top)
{
	if (!c->e)
		c->e = emit_run(c->s, top, c->t, &c->t);
}

/* n computes self and calls up to three others (NULL: fewer), in order. */
static void calls(struct node *n, struct synth_usage self, struct node *a, struct node *b,
		  struct node *d)
{
	n->self = self;
	n->kid[0] = a, n->kid[1] = b, n->kid[2] = d;
	n->nkids = !a ? 0 : !b ? 1 : !d ? 2 : 3;
}

/*
 * One run whose interaction computes ~ms itself (drawn after its calls',
 * the order of the generator the scenarios were tuned with) around up to
 * three calls (NULL: fewer).
 */
static void scen_top(struct scen *c, double ms, double sd, struct node *a, struct node *b,
		     struct node *d)
{
	struct node top = {.func = 0};

	calls(&top, cpu_ms(&c->r, ms, sd), a, b, d);
	scen_run(c, &top);
}

/* Ends the trace and reports it as JSON; NULL (a failed check) on error. */
static struct json *scen_report(struct scen *c)
{
	int e = c->e || synth__close(c->s, NULL, 0);

	CHECK(!e, "synth");
	return e ? NULL : report_json(c->path, c->err, sizeof(c->err));
}

/* The text report of the scenario, in out. */
static int scen_text(struct scen *c, char *out, size_t outlen)
{
	return synth__report(out, outlen, c->err, sizeof(c->err), c->path, NULL);
}

/*
 * A natural tail: one CPU-bound function whose work varies (lognormal, or
 * Pareto with a heavy tail), nothing else changes between runs, no order.
 * Median + 1 sigma marks ~16 % slow; the tree splits them off; nothing in
 * them is a cause.
 */
static struct json *natural_tail(uint64_t seed, bool pareto, double drift, int nruns)
{
	const struct synth_func funcs[] = {{"/usr/bin/db", "handle", true},
					   {"/usr/bin/db", "execute", false},
					   {"/usr/bin/db", "send", false}};
	static struct scen c;
	double z = 0;

	scen_open(&c, "tail.xlp", seed * 7919 + 3, funcs, 3);
	for (int i = 0; i < nruns && !c.e; i++) {
		double u = rng_u(&c.r) * 0.999, w = pareto ? 0.6 * pow(1 - u, -1 / 2.5) : 0;
		struct node ex = {.func = 1}, se = {.func = 2};

		ex.self = cpu_ms(&c.r, 1, 0);
		/* drift: an AR(1) component, the machine's speed wandering over time */
		z = drift * z + sqrt(1 - drift * drift) * rng_n(&c.r);
		ex.self.cpu_run = (pareto ? w : exp(0.4 * z)) * 4e6;
		ex.self.cpu_wait = 20e3 * rng_u(&c.r);
		se.self = cpu_ms(&c.r, 0.3, 0.1);
		se.self.net = 200e3 * (1 + 0.2 * rng_n(&c.r));
		scen_top(&c, 0.2, 0.1, &ex, &se, NULL);
	}
	return scen_report(&c);
}

TEST(natural_long_tail_accuses_nothing)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		/* 1-3 lognormal, 4-6 Pareto, 7-8 lognormal with mild serial
		 * correlation over 800 runs (the runs test sees it; no burst) */
		struct json *j = natural_tail(seed, seed > 3 && seed<7, seed> 6 ? 0.5 : 0,
					      seed > 6 ? 800 : 200);

		REQUIRE(j, "-");
		CHECK(!strcmp(str(j, "status"), "no_precondition"), "seed %llu: %s: %s",
		      (unsigned long long)seed, str(j, "status"), str(j, "verdict"));
		CHECK(len(j, "critical_functions") == 0, "-");
		CHECK(num(j, "runs.slow") >= 10, "the rule marks a tail slow");
		/* the tree found the tail; the evidence rejected it, and says why */
		CHECK(len(j, "rejected_functions") >= 1, "-");
		CHECK_STR(j, "rejected_functions[0].function", "execute");
		CHECK(flag(j, "rejected_functions[0].evidence.resource.holds") == 0,
		      "cpu_run grew in proportion");
		CHECK(strstr(str(j, "note"), "natural tail"), "%s", str(j, "note"));
		json__free(j);
	}
}

/*
 * sqlite_none as one CI run recorded it: 48 scans of ~25 ms of CPU (2 %
 * spread); 5 runs slow because the machine was busy (+6-8 ms outside the
 * marked function). A busy machine also preempts: in two of the slow runs
 * and in one fast one another task took the CPU for one scheduler slice,
 * ~1.4 ms in the runqueue each, within 0.1 us of each other. The
 * preemptions are a distinct mode of cpu_wait (the near-equal slices make
 * the gap enormous against their spacing) and they make the scan's
 * longest runs, but they are not its slow runs: 2 of 3 slow samples and 1
 * of 45 fast (Fisher p = 136 / 17296 = 0.008). The report accused cpu_wait.
 */
TEST(preemptions_in_a_natural_tail_are_not_its_cause)
{
	const struct synth_func funcs[] = {{"/usr/bin/sqlite3", "main", true},
					   {"/usr/lib/libsqlite3.so", "sqlite3_step", false}};
	static struct scen c;
	struct json *j;

	scen_open(&c, "preempt.xlp", 0, funcs, 2);
	for (int i = 0; i < 48 && !c.e; i++) {
		struct node st = {.func = 1}, top = {.func = 0, .kid = {&st}, .nkids = 1};
		bool preempted = i == 7 || i == 23 || i == 36;
		bool slow = i == 7 || i == 23 || i == 30 || i == 12 || i == 41;

		/* quantiles in a scrambled order: a spread, no trend */
		st.self.cpu_run = 25e6 * (1 + 0.02 * tds_qnorm(((i * 29) % 48 + 0.5) / 48));
		st.self.cpu_wait = 20e3 + 12e3 * (((i * 17) % 48) / 48.0);
		if (preempted)
			st.self.cpu_wait = 1.4e6 + 3 * i;
		if (i == 7 || i == 23)
			st.self.cpu_run = 25.6e6 + 3e3 * i;
		if (i == 30)
			st.self.cpu_run = 27e6;
		top.self.cpu_run = 6e6 + (slow ? 6e6 + 2e6 * (i % 3) / 2 : 0);
		scen_run(&c, &top);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	/* the scenario: the tree finds the scan and step 2 the preemptions */
	REQUIRE(len(j, "rejected_functions") == 1, "%s: %s", str(j, "status"), str(j, "verdict"));
	CHECK_STR(j, "rejected_functions[0].evidence.mode.gap_factor", "cpu_wait");
	CHECK(num(j, "rejected_functions[0].evidence.mode.p_factor") <= 0.001,
	      "the preemptions are a mode of cpu_wait: p %g",
	      num(j, "rejected_functions[0].evidence.mode.p_factor"));
	CHECK(num(j, "rejected_functions[0].evidence.mode.factor_slow_past") == 2 &&
		      num(j, "rejected_functions[0].evidence.mode.factor_fast_past") == 1,
	      "-");
	CHECK(fabs(num(j, "rejected_functions[0].evidence.mode.p_association") - 136.0 / 17296) <
		      1e-6,
	      "Fisher p %g", num(j, "rejected_functions[0].evidence.mode.p_association"));
	CHECK(len(j, "critical_functions") == 0, "%s: %s", str(j, "status"), str(j, "verdict"));
	json__free(j);
}

/*
 * Interference that comes and goes: in 5 stretches of 8 consecutive runs
 * out of 200, encode() is slowed by 40 %; its natural spread (8 %) blurs
 * the two modes. When its disk waits grow (it mostly waits for the disk:
 * the same resource, in proportion), only the bursts tell it from a tail,
 * and they accuse it. When the CPU itself ran slower at times, every
 * computation of those runs is 40 % longer, encode's, send's and the
 * handler's own: reported as such, not as a cause in the function. When
 * encode alone computes 40 % more (more work: a feature switched on for a
 * while), its share of the run's CPU time grows and the rest does not:
 * the bursts accuse it (issue 36).
 */
enum burst_kind { BURST_DISK, BURST_SLOWER_CPU, BURST_MORE_WORK };

static struct json *bursts_trace(const char *name, enum burst_kind k)
{
	static struct scen c;

	scen_app(&c, name, 11, "encode", "send");
	for (int i = 0; i < 200 && !c.e; i++) {
		struct node en = {.func = 1}, se = {.func = 2};
		bool hit = i % 40 >= 20 && i % 40 < 28;
		double f = (hit ? 1.4 : 1) * (1 + 0.08 * rng_n(&c.r));
		double cpu = k == BURST_SLOWER_CPU && hit ? 1.4 : 1;

		en.self = cpu_ms(&c.r, k == BURST_DISK ? 0.5 : 10 * f, 0.05);
		en.self.disk = k == BURST_DISK ? 10e6 * f : 0;
		se.self = cpu_ms(&c.r, 0.5 * cpu, 0.1);
		se.self.net = 1e6 * (1 + 0.1 * rng_n(&c.r));
		scen_top(&c, 0.2 * cpu, 0.1, &en, &se, NULL);
	}
	return scen_report(&c);
}

TEST(interference_in_bursts_is_a_cause)
{
	struct json *j = bursts_trace("bursts.xlp", BURST_DISK);

	REQUIRE(j, "-");
	REQUIRE(len(j, "critical_functions") == 1, "%s: %s", str(j, "status"), str(j, "verdict"));
	CHECK_STR(j, "critical_functions[0].function", "encode");
	CHECK_STR(j, "critical_functions[0].factors[0].factor", "disk_block");
	CHECK(flag(j, "critical_functions[0].evidence.bursts.holds") == 1, "-");
	CHECK(flag(j, "critical_functions[0].evidence.mode.holds") == 0 &&
		      flag(j, "critical_functions[0].evidence.resource.holds") == 0,
	      "the bursts alone decide");
	CHECK(num(j, "critical_functions[0].evidence.bursts.bursts") <=
		      num(j, "critical_functions[0].evidence.bursts.bursts_by_chance") / 2,
	      "%g bursts", num(j, "critical_functions[0].evidence.bursts.bursts"));
	json__free(j);
}

TEST(cpu_slower_in_bursts_is_not_the_function)
{
	struct json *j = bursts_trace("cpubursts.xlp", BURST_SLOWER_CPU);

	REQUIRE(j, "-");
	CHECK(len(j, "critical_functions") == 0, "%s", str(j, "verdict"));
	REQUIRE(len(j, "rejected_functions") >= 1, "-");
	CHECK(flag(j, "rejected_functions[0].evidence.work.tested") == 1, "-");
	CHECK(flag(j, "rejected_functions[0].evidence.work.more_work") == 0, "-");
	/* the rest of the run grew with it: 0.7 ms of CPU, 40 % more in the bursts */
	CHECK(num(j, "rejected_functions[0].evidence.work.rest_slow_ns") >
		      num(j, "rejected_functions[0].evidence.work.rest_fast_ns"),
	      "rest %g vs %g", num(j, "rejected_functions[0].evidence.work.rest_slow_ns"),
	      num(j, "rejected_functions[0].evidence.work.rest_fast_ns"));
	CHECK(flag(j, "rejected_functions[0].evidence.bursts.cpu_slower") == 1 ||
		      flag(j, "rejected_functions[0].evidence.work.dismissed") == 1,
	      "-");
	json__free(j);
}

/* The same bursts of CPU time, in encode alone: more work, accused by its bursts. */
TEST(more_work_in_bursts_is_the_function)
{
	struct json *j = bursts_trace("workbursts.xlp", BURST_MORE_WORK);

	REQUIRE(j, "-");
	REQUIRE(len(j, "critical_functions") == 1, "%s", str(j, "verdict"));
	CHECK_STR(j, "critical_functions[0].function", "encode");
	CHECK_STR(j, "critical_functions[0].factors[0].factor", "cpu_run");
	CHECK(flag(j, "critical_functions[0].evidence.work.more_work") == 1, "-");
	CHECK(flag(j, "critical_functions[0].evidence.bursts.holds") == 1, "-");
	CHECK(num(j, "critical_functions[0].evidence.work.slow_share") >
		      num(j, "critical_functions[0].evidence.work.fast_share"),
	      "-");
	json__free(j);
}

/*
 * 30 % slower with one cause: in a quarter of the runs load_config (1 ms
 * of CPU) also waits ~3.3 ms for the disk, on top of ~10 ms of work.
 */
TEST(thirty_percent_slowdown_with_one_cause)
{
	static struct scen c;
	uint8_t slow[120];
	struct json *j;
	double ratio;

	scen_app(&c, "thirty.xlp", 42, "load_config", "compute");
	pick(&c.r, slow, 120, 0.25);
	for (int i = 0; i < 120 && !c.e; i++) {
		struct node lc = {.func = 1}, co = {.func = 2};

		lc.self = cpu_ms(&c.r, 1, 0.1);
		lc.self.disk = slow[i] ? 3.3e6 * (1 + 0.3 * rng_n(&c.r)) : 0;
		co.self = cpu_ms(&c.r, 9, 0.08);
		co.self.cpu_wait = 100e3 * rng_u(&c.r);
		scen_top(&c, 0.2, 0.1, &lc, &co, NULL);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	ratio = num(j, "runs.slow_median_ns") / num(j, "runs.fast_median_ns");
	CHECK(ratio > 1.2 && ratio < 1.45, "the scenario is a ~30 %% slowdown: %g", ratio);
	CHECK(!strcmp(str(j, "status"), "ok"), "%s: %s", str(j, "status"), str(j, "verdict"));
	REQUIRE(len(j, "critical_functions") == 1, "%zu", len(j, "critical_functions"));
	CHECK_STR(j, "critical_functions[0].function", "load_config");
	CHECK_STR(j, "critical_functions[0].factors[0].factor", "disk_block");
	CHECK(flag(j, "critical_functions[0].evidence.resource.holds") == 1,
	      "disk grew out of proportion");
	CHECK(num(j, "critical_functions[0].share") > 0.8, "share %g",
	      num(j, "critical_functions[0].share"));
	json__free(j);
}

/*
 * Two functions separate the slow runs perfectly: update_cache waits
 * ~27 ms for a lock, compute ~7 ms in the runqueue. Both are named, the
 * larger share first, each with its own factor.
 */
TEST(two_co_critical_functions_ranked_by_share)
{
	const struct synth_func funcs[] = {{"/opt/app", "handle", true},
					   {"/opt/app", "compute", false},
					   {"/opt/app", "update_cache", false},
					   {"/opt/app", "render", false}};
	static struct scen c;
	uint8_t slow[80];
	struct json *j;
	double s1, s2;

	scen_open(&c, "two.xlp", 7, funcs, 4);
	pick(&c.r, slow, 80, 0.25);
	for (int i = 0; i < 80 && !c.e; i++) {
		struct node co = {.func = 1}, uc = {.func = 2}, re = {.func = 3};

		co.self = cpu_ms(&c.r, 6, 0.05);
		co.self.cpu_wait = slow[i] ? 7e6 * (1 + 0.1 * rng_n(&c.r)) : 50e3 * rng_u(&c.r);
		uc.self = cpu_ms(&c.r, 1, 0.05);
		uc.self.lock = slow[i] ? 27e6 * (1 + 0.1 * rng_n(&c.r)) : 30e3 * rng_u(&c.r);
		re.self = cpu_ms(&c.r, 8, 0.05);
		scen_top(&c, 0.2, 0.1, &co, &uc, &re);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	CHECK(!strcmp(str(j, "status"), "ok"), "%s", str(j, "status"));
	REQUIRE(len(j, "critical_functions") == 2, "%zu: %s", len(j, "critical_functions"),
		str(j, "verdict"));
	CHECK_STR(j, "critical_functions[0].function", "update_cache");
	CHECK_STR(j, "critical_functions[0].factors[0].factor", "lock_wait");
	CHECK_STR(j, "critical_functions[1].function", "compute");
	CHECK_STR(j, "critical_functions[1].factors[0].factor", "cpu_wait");
	CHECK(num(j, "critical_functions[0].rank") == 1, "-");
	s1 = num(j, "critical_functions[0].share");
	s2 = num(j, "critical_functions[1].share");
	CHECK(s1 > 0.7 && s1 < 0.87 && s2 > 0.13 && s2 < 0.3, "shares %g %g", s1, s2);
	CHECK(strstr(str(j, "verdict"), "update_cache") < strstr(str(j, "verdict"), "compute"),
	      "the verdict leads with the larger share: %s", str(j, "verdict"));
	json__free(j);
}

/*
 * ExecutorRun > index_getnext_slot > smgrread > FileRead, every level with
 * CPU work of its own and siblings; in a quarter of the runs FileRead waits
 * 10 ms for the disk. Inclusive times of all four are correlated; the
 * report names FileRead with the chain.
 */
TEST(nested_chain_names_the_deepest_function)
{
	const char *names[] = {"PortalRun", "ExecutorRun",  "index_getnext_slot", "smgrread",
			       "FileRead",  "ExecEvalExpr", "heap_fetch"};
	struct synth_func funcs[7];
	const char *want[] = {"ExecutorRun", "index_getnext_slot", "smgrread", "FileRead"};
	static struct scen c;
	static char out[1 << 16];
	uint8_t slow[100];
	struct json *j;

	for (int i = 0; i < 7; i++)
		funcs[i] = (struct synth_func){"/usr/lib/postgresql/15/bin/postgres", names[i],
					       i == 0};
	scen_open(&c, "chain.xlp", 99, funcs, 7);
	pick(&c.r, slow, 100, 0.25);
	for (int i = 0; i < 100 && !c.e; i++) {
		struct node ex = {.func = 1}, ig = {.func = 2}, sm = {.func = 3}, fr = {.func = 4},
			    ee = {.func = 5}, hf = {.func = 6};

		fr.self = cpu_ms(&c.r, 0.05, 0.1);
		fr.self.disk = slow[i] ? 10e6 * (1 + 0.2 * rng_n(&c.r)) : 0;
		calls(&sm, cpu_ms(&c.r, 0.1, 0.1), &fr, NULL, NULL);
		hf.self = cpu_ms(&c.r, 0.5, 0.2);
		calls(&ig, cpu_ms(&c.r, 0.3, 0.1), &sm, &hf, NULL);
		ee.self = cpu_ms(&c.r, 2, 0.2);
		calls(&ex, cpu_ms(&c.r, 1, 0.1), &ig, &ee, NULL);
		scen_top(&c, 0.3, 0.1, &ex, NULL, NULL);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	REQUIRE(len(j, "critical_functions") == 1, "%zu: %s", len(j, "critical_functions"),
		str(j, "verdict"));
	CHECK_STR(j, "critical_functions[0].function", "FileRead");
	CHECK_STR(j, "critical_functions[0].factors[0].factor", "disk_block");
	REQUIRE(len(j, "critical_functions[0].chain") == 4, "chain of %zu",
		len(j, "critical_functions[0].chain"));
	for (size_t i = 0; i < 4; i++) {
		const struct json *f = json__at(json__get(j, "critical_functions[0].chain"), i);

		CHECK(!strcmp(str(f, "function"), want[i]), "chain[%zu] = %s", i,
		      str(f, "function"));
	}
	CHECK(strstr(str(j, "verdict"), "FileRead > ") &&
		      strstr(str(j, "verdict"), "ExecutorRun \u2192 index_getnext_slot \u2192 "
						"smgrread \u2192 FileRead"),
	      "%s", str(j, "verdict"));
	json__free(j);
	/* the text report shows the chain too */
	CHECK(!scen_text(&c, out, sizeof(out)), "-");
	CHECK(strstr(out, "  chain: ExecutorRun \u2192 index_getnext_slot"), "%s", out);
}

/*
 * Slow runs are those where band() takes ~5 ms; it takes ~1 ms in most
 * fast runs and ~9 ms in a few: the tree needs two tests of band
 * (> ~3 ms, <= ~7 ms), shown as one interval.
 */
TEST(tests_of_one_function_merge_into_an_interval)
{
	const struct synth_func funcs[] = {{"/opt/app", "handle", true},
					   {"/opt/app", "band", false}};
	static struct scen c;
	static char out[1 << 16];
	struct json *j;
	const struct json *f;

	scen_open(&c, "band.xlp", 5, funcs, 2);
	for (int i = 0; i < 90 && !c.e; i++) {
		struct node b = {.func = 1};
		int kind = i % 9 < 4 ? 0 : i % 9 < 8 ? 1 : 2; /* 1 ms fast, 5 ms slow, 9 ms fast */

		b.self = cpu_ms(&c.r, 1 + 4 * kind, 0.05);
		scen_top(&c, kind == 1 ? 40 : 10, 0.02, &b, NULL, NULL);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	REQUIRE(len(j, "preconditions") >= 1, "%s", str(j, "verdict"));
	REQUIRE(len(j, "preconditions[0].functions") == 1, "one merged test, not %zu",
		len(j, "preconditions[0].functions"));
	f = json__get(j, "preconditions[0].functions[0]");
	CHECK(!strcmp(str(f, "op"), "in"), "%s", str(f, "op"));
	CHECK(num(f, "lo_ns") > 1.1e6 && num(f, "lo_ns") < 4.9e6, "lo %g", num(f, "lo_ns"));
	CHECK(num(f, "hi_ns") > 5.1e6 && num(f, "hi_ns") < 8.9e6, "hi %g", num(f, "hi_ns"));
	json__free(j);
	CHECK(!scen_text(&c, out, sizeof(out)), "-");
	CHECK(strstr(out, " < band <= ") && !strstr(out, "band > 1") && !strstr(out, " AND "), "%s",
	      out);
}

/* ---------- evidence 4: a resource beyond the bulk (issue 21's cases) ---------- */

static double beyond_num(const struct json *j, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), "critical_functions[0].evidence.beyond.%s", key);
	return num(j, path);
}

/*
 * The report accuses func first, beyond the bulk (evidence 4) through
 * factor; false (after a failed check) when it accuses nothing.
 */
static bool accused_beyond(const struct json *j, const char *func, const char *factor)
{
	if (len(j, "critical_functions") < 1) {
		CHECK(0, "%s: %s", str(j, "status"), str(j, "verdict"));
		return false;
	}
	CHECK_STR(j, "critical_functions[0].function", func);
	CHECK(flag(j, "critical_functions[0].evidence.beyond.holds") == 1, "-");
	if (factor)
		CHECK_STR(j, "critical_functions[0].evidence.beyond.factor", factor);
	return true;
}

/* Of the runs where the factor's share is largest (top_runs), top_slow are slow. */
static void check_top(const struct json *j, double top_slow, double slow_runs, double top_runs)
{
	CHECK(beyond_num(j, "top_slow") == top_slow && beyond_num(j, "slow_runs") == slow_runs &&
		      beyond_num(j, "top_runs") == top_runs,
	      "%g of %g slow in the top %g", beyond_num(j, "top_slow"), beyond_num(j, "slow_runs"),
	      beyond_num(j, "top_runs"));
}

/*
 * A query whose table is partly evicted in some runs: ExecutorRun >
 * IndexScan > ReadBuffer, ReadBuffer waiting for the disk in every run
 * (~1 ms, 70 % of its time) and computing ~0.4 ms; in 10 of 170 runs its
 * waits are 2-9x longer, a continuous spread (no gap), at random times (no
 * burst), and the wait held most of its time already (in proportion by
 * evidence 3). Ranked by the wait's share of ReadBuffer's time, the top
 * runs are those 10.
 */
TEST(partly_evicted_table_beyond_the_bulk)
{
	const struct synth_func funcs[] = {
		{"/usr/lib/postgresql/15/bin/postgres", "PortalRun", true},
		{"/usr/lib/postgresql/15/bin/postgres", "ExecutorRun", false},
		{"/usr/lib/postgresql/15/bin/postgres", "IndexScan", false},
		{"/usr/lib/postgresql/15/bin/postgres", "ReadBuffer", false},
		{"/usr/lib/postgresql/15/bin/postgres", "ExecEvalExpr", false}};
	static struct scen c;
	struct json *j;

	scen_open(&c, "evicted.xlp", 2101, funcs, 5);
	for (int i = 0; i < 170 && !c.e; i++) {
		struct node ex = {.func = 1}, is = {.func = 2}, rb = {.func = 3}, ee = {.func = 4};
		bool evicted = i % 17 == 5;
		double f = exp(0.1 * rng_n(&c.r));

		rb.self = cpu_ms(&c.r, 0.4, 0.1);
		rb.self.disk = 1e6 * f * (evicted ? 2 + 7 * rng_u(&c.r) : 1);
		calls(&is, cpu_ms(&c.r, 0.3, 0.1), &rb, NULL, NULL);
		ee.self = cpu_ms(&c.r, 1.5, 0.1);
		calls(&ex, cpu_ms(&c.r, 0.2, 0.1), &is, &ee, NULL);
		scen_top(&c, 0.1, 0.1, &ex, NULL, NULL);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	REQUIRE(accused_beyond(j, "ReadBuffer", "disk_block"), "-");
	CHECK(beyond_num(j, "top_slow") >= 9 && beyond_num(j, "p") <= 0.001, "%g of %g, p %g",
	      beyond_num(j, "top_slow"), beyond_num(j, "top_runs"), beyond_num(j, "p"));
	/* the first three tests refuse it, as the issue saw: no gap, no burst, in proportion */
	CHECK(flag(j, "critical_functions[0].evidence.mode.holds") == 0 &&
		      flag(j, "critical_functions[0].evidence.bursts.holds") == 0 &&
		      flag(j, "critical_functions[0].evidence.resource.holds") == 0,
	      "evidence 4 alone accuses");
	json__free(j);
}

/*
 * A worker thread losing its CPU to another process in a quarter of 60
 * runs: its 10 ms of computing wait 4-9 ms in the runqueue then (+65 %),
 * a spread, no gap; the fast runs wait a few us. Every one of them is a
 * slow run and no fast run waits as long (13 of 13 in the issue).
 */
TEST(worker_losing_its_cpu_beyond_the_bulk)
{
	static struct scen c;
	static char out[1 << 16];
	struct json *j;

	scen_app(&c, "worker.xlp", 2102, "worker", "reply");
	for (int i = 0; i < 60 && !c.e; i++) {
		struct node w = {.func = 1}, re = {.func = 2};
		bool slow = (i * 7) % 4 == 1;

		w.self = cpu_ms(&c.r, 10, 0.04);
		w.self.cpu_wait = slow ? 4e6 + 5e6 * rng_u(&c.r) : 30e3 * rng_u(&c.r);
		re.self = cpu_ms(&c.r, 0.5, 0.1);
		scen_top(&c, 0.1, 0.1, &w, &re, NULL);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	REQUIRE(accused_beyond(j, "worker", "cpu_wait"), "-");
	/* on the grid of w: the 17 runs with the largest share */
	check_top(j, 15, 15, 17);
	json__free(j);
	/* the text report prints the rule with its numbers */
	CHECK(!scen_text(&c, out, sizeof(out)), "-");
	CHECK(strstr(out, "beyond the bulk: YES: the 17 runs where cpu_wait takes the largest "
			  "share"),
	      "%s", out);
}

/*
 * Debian's nginx sending files from a cold disk, recorded by sampling
 * alone (tests/data/nginx-sendfile-cold-sampled.xlp, a CI run of
 * tests/real/test_nginx's nginx_disk_sampled that the disk made 80 ms
 * slow): a sampled time is known to 164 ms (the period times the off-CPU
 * thinning), and the narrowest slow / fast gap in disk_block, 14 ms, falls
 * under the tree's gap rule (5 % of its range). The tree split nothing and
 * the verdict said "(no resource factor found)", though the disk holds
 * 100 % of the added time beyond the bulk (p = 1e-07); the resource beyond
 * the bulk was made the factor. Since samples are bounded by what their
 * run measured (dataset_samples.c calibrate), a sample no longer stands
 * for 164 ms in a 30 ms run, the gap is clear and the tree splits it
 * itself: the factor and the verdict must still be the disk's.
 */
TEST(disk_factor_on_real_nginx_sampled)
{
	struct json *j = fixture_report("nginx-sendfile-cold-sampled.xlp");

	REQUIRE(j, "-");
	REQUIRE(accused_beyond(j, "ngx_linux_sendfile_chain", NULL), "-");
	CHECK_STR(j, "critical_functions[0].factors[0].factor", "disk_block");
	CHECK(strstr(str(j, "verdict"), "because of disk_block"), "%s", str(j, "verdict"));
	/* issue 34: nginx's own function, then libc's wrapper its samples went through */
	CHECK(strstr(str(j, "verdict"),
		     "; its samples (waiting for the disk) reach sendfile (libc.so.6) → [k] "),
	      "%s", str(j, "verdict"));
	CHECK_STR(j, "critical_functions[0].growth.path[1].function", "sendfile");
	CHECK_NUM(j, "critical_functions[0].growth.library", ==, 1);
	json__free(j);
}

/*
 * A real run of tests/e2e's "none" scenario, which perturbs nothing
 * (tests/data/e2e-none-two-cpu-speeds.xlp, 2026-11-28): the VM ran at two
 * speeds in two stretches, so compute_checksum's CPU time is two modes,
 * 10.2-10.9 ms in 20 runs and 11.7-12.4 ms in the other 20, a gap 63x the
 * spacing around it. The 3 slow runs come from the rest of the request and
 * from steal, and fall in the upper mode as 3 draws of 40 do by chance.
 * The mode was the only evidence and accused the function with no factor;
 * a mode speaks for the slow runs only when it holds them beyond chance.
 */
TEST(a_time_mode_that_is_not_the_slow_runs_does_not_accuse)
{
	struct json *j = fixture_report("e2e-none-two-cpu-speeds.xlp");

	REQUIRE(j, "-");
	CHECK_NONE_BUT_REJECTED(j, "compute_checksum");
	/* the gap is there, the slow runs are not its */
	CHECK_NUM(j, "rejected_functions[0].evidence.mode.p_time", <=, 0.001);
	CHECK_NUM(j, "rejected_functions[0].evidence.mode.time_slow_past", ==, 3);
	CHECK_NUM(j, "rejected_functions[0].evidence.mode.time_fast_past", ==, 17);
	CHECK_NUM(j, "rejected_functions[0].evidence.mode.p_time_association", >, 0.001);
	CHECK(!json__bool(json__get(j, "rejected_functions[0].evidence.mode.holds")), "-");
	json__free(j);
}

/*
 * Debian's redis-server, unperturbed, recorded by sampling in a CI run
 * (tests/data/redis-none-queued-4-of-872.xlp, 2026-11-28): 4 of 872
 * requests queued 2 ms for a CPU before the handler, the others never.
 * The pseudo-function "call [queued before it]" is that wait itself: 100 %
 * of the added time and "0 %" of the fast runs' (no time at all) is no
 * growth beyond proportion, and it accused nothing else. Not accused; the
 * whole run's answer states the wait before the handler.
 */
TEST(the_wait_before_the_handler_is_not_out_of_proportion_to_itself)
{
	struct json *j = fixture_report("redis-none-queued-4-of-872.xlp");

	REQUIRE(j, "-");
	CHECK_NONE_BUT_REJECTED(j, "call [queued before it]");
	CHECK(json__bool(json__get(j, "rejected_functions[0].evidence.resource.wait_itself")) == 1,
	      "-");
	CHECK(json__bool(json__get(j, "rejected_functions[0].evidence.resource.holds")) == 0, "-");
	CHECK(json__bool(json__get(j, "whole_run.holds")) == 1, "%s", str(j, "verdict"));
	CHECK_STR(j, "whole_run.factor", "cpu_wait");
	json__free(j);
}

/*
 * A file read through page faults, evicted in some of 60 runs, as the
 * issue saw it: the disk blocks in 9 runs (~1.5 ms on ~10 ms of computing,
 * +15 %), and 7 runs are as slow from computing longer (the natural tail,
 * +13-25 %); the bulk spreads 4 %. The 16 runs past median + 1 sigma are
 * those: the disk in 9 of the 16 slow runs and in none of the 44 fast.
 */
TEST(evicted_page_fault_read_beyond_the_bulk)
{
	static struct scen c;
	struct json *j;
	int nd = 0, nt = 0;

	scen_app(&c, "faults.xlp", 2103, "read_file", "parse");
	for (int i = 0; i < 60 && !c.e; i++) {
		struct node rf = {.func = 1}, pa = {.func = 2};
		bool disk = i % 6 == 2 && i < 54, tail = i % 8 == 5 && i < 56;

		rf.self.cpu_run = 10e6 * (1 + 0.04 * tds_qnorm(((i * 29) % 60 + 0.5) / 60));
		if (disk)
			rf.self.disk = 1.3e6 + 0.1e6 * nd++;
		if (tail)
			rf.self.cpu_run = 10e6 * (1.13 + 0.02 * nt++);
		pa.self = cpu_ms(&c.r, 0.5, 0.05);
		scen_top(&c, 0.1, 0.05, &rf, &pa, NULL);
	}
	j = scen_report(&c);
	REQUIRE(j, "-");
	CHECK(num(j, "runs.slow") == 16, "%g slow", num(j, "runs.slow"));
	REQUIRE(accused_beyond(j, "read_file", "disk_block"), "-");
	/* the cause in some of the slow runs only, and in no fast one */
	check_top(j, 9, 16, 9);
	json__free(j);
}

/*
 * Natural tails with a wait in proportion: the function reads the disk
 * for 30 % of its time in every run, however long the run (lognormal
 * sigma 0.6, or Pareto alpha 1.5); the runs where the disk's share is
 * largest are slow ones no more often than chance.
 */
TEST(a_wait_in_proportion_is_not_beyond_the_bulk)
{

	for (int kind = 0; kind < 2; kind++) {
		static struct scen c;
		struct json *j;

		scen_app(&c, "inprop.xlp", 2104 + (uint64_t)kind, "work", "other");
		for (int i = 0; i < 200 && !c.e; i++) {
			struct node w = {.func = 1}, o = {.func = 2};
			double x = kind ? pow(2, -1 / 1.5) * pow(1 - rng_u(&c.r) * 0.999, -1 / 1.5)
					: exp(0.6 * rng_n(&c.r));

			w.self.cpu_run = 7e6 * x * (1 + 0.05 * rng_n(&c.r));
			w.self.disk = 3e6 * x * (1 + 0.05 * rng_n(&c.r));
			w.self.cpu_wait = 0.1e6 * x * rng_u(&c.r);
			o.self = cpu_ms(&c.r, 2, 0.05);
			scen_top(&c, 0.2, 0.05, &w, &o, NULL);
		}
		j = scen_report(&c);
		REQUIRE(j, "-");
		CHECK(len(j, "critical_functions") == 0, "kind %d: %s", kind, str(j, "verdict"));
		REQUIRE(len(j, "rejected_functions") >= 1, "kind %d: %s", kind, str(j, "verdict"));
		CHECK(flag(j, "rejected_functions[0].evidence.beyond.holds") == 0 &&
			      num(j, "rejected_functions[0].evidence.beyond.p") > 0.001,
		      "kind %d: p %g", kind, num(j, "rejected_functions[0].evidence.beyond.p"));
		json__free(j);
	}
}

TEST_MAIN()
