/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a function's time grew, and the whole run's answer when no function
 * can be named (analysis/diagnosis/why.c), on synthetic traces whose cause is
 * known: 60 runs of handle_request, every 4th slow, with parse and work
 * marked, stack samples with user and kernel frames.
 *   - a network wait in no marked function (under a libc call): the whole
 *     run explains it, with the frames its samples reach;
 *   - no perturbation: nothing accused, by the functions or the whole run;
 *   - more calls and longer calls: the split adds up exactly;
 *   - on-CPU growth with block requests only in slow runs: disk on CPU;
 *     the same growth without them: not;
 *   - on-CPU growth in the page-fault path: "page faults"; the same growth
 *     with faults in proportion: no frame named.
 */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "testlib.h"
#include "json.h"
#include "report.h"
#include "synth.h"
#include "xlptest.h"

enum kind {
	G_NET,
	G_NONE,
	G_CALLS,
	G_DISK_CPU,
	G_CPU_ONLY,
	G_FAULT,
	G_FAULT_PROP,
	G_WHOLE_DISK,
	G_WHOLE_SPREAD,
	G_WAIT_HALF,
	G_WAIT_PROP
};

enum {
	Y_MAIN,
	Y_HANDLE,
	Y_WORK,
	Y_RECV,
	Y_ENTRY,
	Y_DOSYS,
	Y_SYS_RECV,
	Y_TCP,
	Y_SKWAIT,
	Y_SCHED_TO,
	Y_SCHED,
	Y___SCHED,
	Y_ASM_PF,
	Y_EXC_PF,
	Y_USER_FAULT,
	Y_HANDLE_MM,
	Y_CLEAR_PAGE,
};
enum { S_WORK, S_RECV, S_KNET, S_KFAULT };

#define PID 100
#define SAMPLE_NS 50000ull

static int symbols(struct synth *s)
{
	static const char *const user[][2] = {
		{"app", "main"}, {"app", "handle_request"}, {"app", "work"}, {"libc.so.6", "recv"}};
	static const char *const kern[] = {
		"entry_SYSCALL_64",   "do_syscall_64",	  "__x64_sys_recvfrom", "tcp_recvmsg",
		"sk_wait_data",	      "schedule_timeout", "schedule",		"__schedule",
		"asm_exc_page_fault", "exc_page_fault",	  "do_user_addr_fault", "handle_mm_fault",
		"clear_page_erms"};
	const uint32_t work[] = {Y_WORK, Y_HANDLE, Y_MAIN}, recv[] = {Y_RECV, Y_HANDLE, Y_MAIN};
	const uint32_t knet[] = {Y___SCHED, Y_SCHED,	Y_SCHED_TO, Y_SKWAIT,
				 Y_TCP,	    Y_SYS_RECV, Y_DOSYS,    Y_ENTRY};
	const uint32_t kfault[] = {Y_CLEAR_PAGE, Y_HANDLE_MM, Y_USER_FAULT, Y_EXC_PF, Y_ASM_PF};
	int err = 0;

	for (uint32_t i = 0; i < 4; i++)
		err |= synth__sym(s, i, XLP_SYM_FUNCTION, user[i][0], user[i][1]);
	for (uint32_t i = 0; i < sizeof(kern) / sizeof(kern[0]); i++)
		err |= synth__sym(s, Y_ENTRY + i, XLP_SYM_FUNCTION, "[kernel]", kern[i]);
	err |= synth__stack(s, S_WORK, work, 3);
	err |= synth__stack(s, S_RECV, recv, 3);
	err |= synth__kstack(s, S_KNET, knet, 8);
	err |= synth__kstack(s, S_KFAULT, kfault, 5);
	return err;
}

/* Is on-CPU sample c (counted over the run) of work in the fault path? */
static bool faults(enum kind k, bool slow, unsigned c)
{
	if (slow && k == G_FAULT)
		return c % 3 != 0; /* two thirds of the slow runs' samples */
	return c % 10 == 0;	   /* a tenth elsewhere: in proportion */
}

static int one_run(struct synth *s, enum kind k, bool slow, uint64_t t0, uint64_t *rng)
{
	uint64_t t = t0 + 100000, c[XLP_NR_CTR], incl[XLP_NR_CTR] = {0}, proc[XLP_NR_CTR];
	unsigned calls = k == G_CALLS && slow ? 12 : 10, smp = 0;
	double mult = slow && k != G_NET && k != G_NONE && k != G_WHOLE_DISK &&
				      k != G_WHOLE_SPREAD && k != G_WAIT_HALF && k != G_WAIT_PROP
			      ? 3
			      : 1;
	struct synth_usage own = {.cpu_run = 200000};
	int err = 0;

	/* parse: the same in every run */
	synth__counters(&(struct synth_usage){.cpu_run = 1e6 * (1 + 0.1 * (tl_rnd01(rng) - 0.5))},
			c);
	err |= synth__call(s, 2, PID, PID, 1, t, c, NULL, 0, NULL);
	for (int x = 0; x < XLP_NR_CTR; x++)
		incl[x] += c[x];
	t += c[XLP_C_WALL];
	for (unsigned i = 0; i < calls; i++) {
		double pc = 1e5 * mult * (1 + 0.1 * (tl_rnd01(rng) - 0.5));

		synth__counters(&(struct synth_usage){.cpu_run = pc}, c);
		if (k == G_DISK_CPU && slow) {
			c[XLP_C_DISK_RQ] = 2;
			c[XLP_C_DISK_BYTES] = 8192;
		}
		for (uint64_t j = 0; j < (uint64_t)(pc / SAMPLE_NS); j++, smp++)
			err |= synth__ksample(s, PID, PID, t + j * SAMPLE_NS + 1, SAMPLE_NS,
					      S_WORK + 1, faults(k, slow, smp) ? S_KFAULT + 1 : 0,
					      XLP_C_CPU_RUN);
		err |= synth__call(s, 1, PID, PID, 1, t, c, NULL, 0, NULL);
		for (int x = 0; x < XLP_NR_CTR; x++)
			incl[x] += c[x];
		t += c[XLP_C_WALL];
	}
	/* a network wait in the interaction's own code, under libc's recv */
	if (k == G_NET && slow) {
		own.net = 20e6 * (1 + 0.1 * (tl_rnd01(rng) - 0.5));
		for (uint64_t j = 0; j < (uint64_t)(own.net / 1e6); j++)
			err |= synth__ksample(s, PID, PID, t + j * 1000000 + 1, 1000000, S_RECV + 1,
					      S_KNET + 1, XLP_C_NET);
	}
	own.cpu_run *= 1 + 0.1 * (tl_rnd01(rng) - 0.5);
	/* the run's own code: a broad natural spread, and in the perturbed
	 * runs more of it with cold reads (no gap, all of it CPU time) */
	if (k == G_WHOLE_DISK || k == G_WHOLE_SPREAD)
		own.cpu_run =
			slow ? 1e6 * (2 + 4 * tl_rnd01(rng)) : 1e6 * (0.2 + 3.8 * tl_rnd01(rng));
	/* a wait that is half of every fast run (a woken thread's runqueue
	 * time), and in the perturbed runs up to 20 ms more of it, spread
	 * continuously (no gap); in G_WAIT_PROP the rest grows alongside */
	if (k == G_WAIT_HALF || k == G_WAIT_PROP) {
		double more = slow ? 20e6 * tl_rnd01(rng) : 0;

		own.cpu_wait = 2.6e6 * (0.6 + 0.8 * tl_rnd01(rng)) + more;
		if (k == G_WAIT_PROP)
			own.cpu_run += more * 2 / 3;
	}
	synth__counters(&own, c);
	if (k == G_WHOLE_DISK && slow) {
		c[XLP_C_DISK_RQ] = 1 + (uint64_t)(4 * tl_rnd01(rng));
		c[XLP_C_DISK_BYTES] = 4096 * c[XLP_C_DISK_RQ];
	}
	for (int x = 0; x < XLP_NR_CTR; x++)
		incl[x] += c[x];
	incl[XLP_C_WALL] = t + c[XLP_C_WALL] + 100000 - t0;
	memcpy(proc, incl, sizeof(proc));
	err |= synth__call(s, 0, PID, PID, 0, t0, incl, NULL, 0, NULL);
	err |= synth__run(s, 0, PID, PID, t0, proc);
	return err;
}

static const char *gen(enum kind k, uint64_t seed)
{
	static const struct synth_func f[] = {{"/opt/app/app", "handle_request", true},
					      {"/opt/app/app", "work", false},
					      {"/opt/app/app", "parse", false}};
	const char *path = xt_tmp_path("growth.xlp");
	uint64_t rng = seed;
	struct synth *s = NULL;
	int err = synth__open(path,
			      XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | XLP_FEAT_SYSCALLS |
				      XLP_FEAT_BLOCK | XLP_FEAT_SAMPLE,
			      0, f, 3, &s);

	if (err)
		return NULL;
	err |= symbols(s);
	for (uint64_t i = 0; i < 60; i++) {
		err |= one_run(s, k, i % 4 == 1, 1000000000ull + i * 200000000ull, &rng);
		err |= synth__flush(s);
	}
	err |= synth__close(s, NULL, 0);
	return err ? NULL : path;
}

static struct json *report(enum kind k, uint64_t seed, char *text, size_t len)
{
	const char *path = gen(k, seed);
	char err[4096];
	int rc;

	CHECK(path, "synthetic trace");
	if (!path)
		return NULL;
	if (text) {
		rc = synth__report(text, len, err, sizeof(err), path, NULL);
		CHECK(rc == 0, "text report exited %d: %s", rc, err);
	}
	return synth__report_json(path, NULL, NULL);
}

static char text[1 << 17];

/*
 * The HTML report of the last trace: the differential flame graph id has
 * as many frames (data-frames and class="dframe" elements) as the JSON
 * counts (test_html_chromium checks the critical functions' in a browser).
 */
static void html_flame_matches(const struct json *j, const char *key, const char *id)
{
	const char *html = xt_tmp_path("growth.html");
	char err[4096], want[128], *page, *svg, *end;
	double frames = json__num(json__get(j, key));
	size_t len, n = 0;
	int rc;

	rc = synth__report(NULL, 0, err, sizeof(err), "--html", html, xt_tmp_path("growth.xlp"),
			   NULL);
	REQUIRE(rc == 0, "html report exited %d: %s", rc, err);
	page = (char *)synth__slurp(html, &len);
	REQUIRE(page, "-");
	snprintf(want, sizeof(want), "<svg id=\"%s\"", id);
	svg = strstr(page, want);
	CHECK(frames >= 2 && svg, "%s: %g frames, svg %s", key, frames, svg ? "found" : "missing");
	if (svg) {
		end = strstr(svg, "</svg>");
		if (end)
			*end = 0;
		for (const char *q = strstr(svg, "class=\"dframe\""); q;
		     q = strstr(q + 1, "class=\"dframe\""))
			n++;
		snprintf(want, sizeof(want), "data-frames=\"%.0f\"", frames);
		CHECK(n == (size_t)frames && strstr(svg, want), "%zu frames drawn, %g in JSON", n,
		      frames);
	}
	free(page);
}

/* A slowdown in no marked function: the whole run names the resource and where it waits. */
TEST(whole_run_fallback_synthetic)
{
	struct json *j = report(G_NET, 7, text, sizeof(text));
	const char *v;

	REQUIRE(j, "-");
	v = json__str(json__get(j, "verdict"));
	CHECK(json__str_is(j, "status", "no_precondition"), "%s",
	      json__str(json__get(j, "status")));
	CHECK(json__len(json__get(j, "critical_functions")) == 0, "no function accused");
	CHECK(json__bool(json__get(j, "whole_run.holds")) == 1, "-");
	CHECK(json__str_is(j, "whole_run.factor", "net_block"), "%s",
	      json__str(json__get(j, "whole_run.factor")));
	CHECK(json__num(json__get(j, "whole_run.slow_hits")) == 15 &&
		      json__num(json__get(j, "whole_run.slow")) == 15 &&
		      json__num(json__get(j, "whole_run.fast_hits")) == 0 &&
		      json__num(json__get(j, "whole_run.fast")) == 45,
	      "15 of 15 slow, 0 of 45 fast");
	/* C(60, 15) ~ 5e13: all 15 past the threshold is that rare by chance */
	CHECK(json__num(json__get(j, "whole_run.p")) < 1e-12, "%g",
	      json__num(json__get(j, "whole_run.p")));
	CHECK(json__num(json__get(j, "whole_run.excess")) > 0.9, "-");
	/* the deepest frame the net samples reach, the scheduler's left out */
	CHECK(json__str_is(j, "whole_run.deepest_frame.function", "sk_wait_data"), "%s",
	      json__str(json__get(j, "whole_run.deepest_frame.function")));
	CHECK(json__str_is(j, "whole_run.growth.path[1].function", "recv"), "%s",
	      json__str(json__get(j, "whole_run.growth.path[1].function")));
	/* the interaction calls libc's recv itself: no application frame
	 * below it, the library's frame is named, then the kernel's */
	CHECK(json__is_null(json__get(j, "whole_run.app_frame")), "-");
	CHECK(json__str_is(j, "whole_run.library_frame.binary", "libc.so.6"), "%s",
	      json__str(json__get(j, "whole_run.library_frame.function")));
	CHECK(strstr(text, "reach recv (libc.so.6) → [k] sk_wait_data"), "%s", text);
	CHECK(v &&
		      strstr(v, "no function explains the slow runs, but the whole run of their "
				"thread does: net_block > ") &&
		      strstr(v, "in 15 of 15 slow runs, 0 of 45 fast (Fisher p = ") &&
		      strstr(v, "sk_wait_data"),
	      "verdict: %s", v);
	CHECK(!strstr(text, "no slowdown precondition found"), "%s", text);
	html_flame_matches(j, "whole_run.growth.flame_frames", "diff-flame-whole-run");
	CHECK(strstr(text, "whole run of their thread: EXPLAINS the slow runs: net_block > ") &&
		      strstr(text, "[k] sk_wait_data"),
	      "%s", text);
	json__free(j);
}

/* Nothing perturbed: neither a function nor the whole run is accused. */
TEST(whole_run_accuses_nothing_unperturbed_synthetic)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct json *j = report(G_NONE, seed, NULL, 0);

		REQUIRE(j, "-");
		CHECK(json__len(json__get(j, "critical_functions")) == 0, "seed %llu",
		      (unsigned long long)seed);
		CHECK(json__is_null(json__get(j, "whole_run")) ||
			      json__bool(json__get(j, "whole_run.holds")) == 0,
		      "seed %llu: %s", (unsigned long long)seed,
		      json__str(json__get(j, "verdict")));
		CHECK(!strncmp(json__str(json__get(j, "verdict")) ?: "", "no slowdown", 11) ||
			      strstr(json__str(json__get(j, "verdict")) ?: "", "none slow"),
		      "%s", json__str(json__get(j, "verdict")));
		json__free(j);
	}
}

/*
 * More CPU in the run's own code, spread continuously (no mode), all of it
 * CPU time (in proportion), with block requests in the perturbed runs:
 * the whole run's answer is disk on CPU. The same spread without the
 * requests: no answer.
 */
TEST(whole_run_disk_on_cpu_synthetic)
{
	struct json *j = report(G_WHOLE_DISK, 11, NULL, 0);
	const char *v;

	REQUIRE(j, "-");
	v = json__str(json__get(j, "verdict"));
	CHECK(json__len(json__get(j, "critical_functions")) == 0, "%s", v);
	CHECK(json__str_is(j, "whole_run.factor", "cpu_run"), "%s",
	      json__str(json__get(j, "whole_run.factor")));
	CHECK(json__bool(json__get(j, "whole_run.out_of_proportion")) == 0 &&
		      json__bool(json__get(j, "whole_run.mode.holds")) == 0,
	      "neither test of the factor holds: %s", v);
	CHECK(json__bool(json__get(j, "whole_run.disk_on_cpu.holds")) == 1, "%s", v);
	CHECK(json__num(json__get(j, "whole_run.disk_on_cpu.slow_with_requests")) >
		      json__num(json__get(j, "whole_run.disk_on_cpu.fast_with_requests")) *
			      json__num(json__get(j, "whole_run.disk_on_cpu.slow")) /
			      json__num(json__get(j, "whole_run.disk_on_cpu.fast")),
	      "more slow runs with requests, in proportion");
	CHECK(json__bool(json__get(j, "whole_run.holds")) == 1, "-");
	CHECK(v && strstr(v, "the whole run of their thread does: cpu_run > ") &&
		      strstr(v, "(disk on CPU: the VM's synchronous I/O: block requests in "),
	      "%s", v);
	json__free(j);
	j = report(G_WHOLE_SPREAD, 11, NULL, 0);
	REQUIRE(j, "-");
	CHECK(json__bool(json__get(j, "whole_run.holds")) == 0, "%s",
	      json__str(json__get(j, "verdict")));
	CHECK(json__bool(json__get(j, "whole_run.disk_on_cpu.holds")) == 0, "-");
	json__free(j);
}

/*
 * A wait that holds half of the fast runs' time (redis-server's thread
 * queued from its wakeup) and all of the added time, spread with no gap:
 * the whole run's answer, though 50 points above its fast share is out of
 * reach. The same wait with the rest of the run grown alongside (40 % of
 * the added time): no answer.
 */
TEST(whole_run_wait_half_of_fast_runs_synthetic)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct json *j = report(G_WAIT_HALF, seed, NULL, 0);
		const char *v;

		REQUIRE(j, "-");
		v = json__str(json__get(j, "verdict"));
		CHECK(json__str_is(j, "whole_run.factor", "cpu_wait"), "seed %llu: %s",
		      (unsigned long long)seed, v);
		CHECK(json__num(json__get(j, "whole_run.share_of_fast")) > 0.5 &&
			      json__num(json__get(j, "whole_run.share_of_added")) > 0.95,
		      "seed %llu: fast %g added %g", (unsigned long long)seed,
		      json__num(json__get(j, "whole_run.share_of_fast")),
		      json__num(json__get(j, "whole_run.share_of_added")));
		CHECK(json__bool(json__get(j, "whole_run.out_of_proportion")) == 1 &&
			      json__bool(json__get(j, "whole_run.holds")) == 1,
		      "seed %llu: %s", (unsigned long long)seed, v);
		json__free(j);
		j = report(G_WAIT_PROP, seed, NULL, 0);
		REQUIRE(j, "-");
		CHECK(json__bool(json__get(j, "whole_run.out_of_proportion")) == 0, "seed %llu: %s",
		      (unsigned long long)seed, json__str(json__get(j, "verdict")));
		json__free(j);
	}
}

static const struct json *crit(const struct json *j, const char *name)
{
	const struct json *a = json__get(j, "critical_functions");

	for (size_t i = 0; i < json__len(a); i++)
		if (json__str_is(json__at(a, i), "function", name))
			return json__at(a, i);
	return NULL;
}

/* The report of kind k (seed) that accuses work (*w); NULL after a failed check. */
static struct json *work_report(enum kind k, uint64_t seed, const struct json **w)
{
	struct json *j = report(k, seed, NULL, 0);

	*w = j ? crit(j, "work") : NULL;
	CHECK(*w, "work accused");
	if (!*w)
		json__free(j);
	return *w ? j : NULL;
}

/* 10 calls of 100 us in fast runs, 12 of 300 us in slow: 0.2 ms + 2.4 ms. */
TEST(calls_vs_per_call_split_synthetic)
{
	struct json *j = report(G_CALLS, 3, text, sizeof(text));
	const struct json *w, *k;
	double added, from_calls, from_per, pf, ps, cs, cf;

	REQUIRE(j, "-");
	w = crit(j, "work");
	REQUIRE(w, "work accused: %s", json__str(json__get(j, "verdict")));
	k = json__get(w, "calls");
	REQUIRE(k && !json__is_null(k), "-");
	cs = json__num(json__get(k, "slow_per_run"));
	cf = json__num(json__get(k, "fast_per_run"));
	ps = json__num(json__get(k, "slow_per_call_ns"));
	pf = json__num(json__get(k, "fast_per_call_ns"));
	from_calls = json__num(json__get(k, "from_calls_ns"));
	from_per = json__num(json__get(k, "from_per_call_ns"));
	added = json__num(json__get(w, "added_ns"));
	/* the slow runs are the 15 with 12 calls (work decides the latency) */
	CHECK(cs == 12 && cf == 10, "calls %g vs %g", cs, cf);
	CHECK(fabs(ps / pf - 3) < 0.1, "per call %g vs %g", ps, pf);
	/* exact: the parts add up to the added time (to the JSON's rounding) */
	CHECK(fabs(from_calls + from_per - added) <= 1.5, "%g + %g vs %g", from_calls, from_per,
	      added);
	CHECK(fabs(from_calls - (cs - cf) * pf) < 1e-6 * added, "%g", from_calls);
	CHECK(fabs(from_per - cs * (ps - pf)) < 1e-3 * added, "%g", from_per);
	CHECK(from_per > 10 * from_calls, "longer calls hold most of it");
	CHECK(strstr(text, "why it grew: calls: 12.00 per run in slow runs, 10.00 in fast; "), "%s",
	      text);
	CHECK(strstr(text, " from more calls + ") && strstr(text, " from longer calls = "), "-");
	json__free(j);
}

/* On-CPU growth with block requests only in the slow runs: disk on CPU. */
TEST(disk_on_cpu_factor_synthetic)
{
	struct json *j = report(G_DISK_CPU, 5, text, sizeof(text));
	const struct json *w;
	const char *v;

	REQUIRE(j, "-");
	w = crit(j, "work");
	REQUIRE(w, "work accused: %s", json__str(json__get(j, "verdict")));
	v = json__str(json__get(j, "verdict"));
	CHECK(json__str_is(w, "factors[0].factor", "cpu_run"), "%s",
	      json__str(json__get(w, "factors[0].factor")));
	CHECK(json__bool(json__get(w, "disk_on_cpu.holds")) == 1, "-");
	CHECK(json__num(json__get(w, "disk_on_cpu.slow_with_requests")) ==
			      json__num(json__get(w, "disk_on_cpu.slow")) &&
		      json__num(json__get(w, "disk_on_cpu.fast_with_requests")) == 0,
	      "every slow sample with requests, no fast one");
	CHECK(json__num(json__get(w, "disk_on_cpu.slow_requests_per_run")) == 20, "%g",
	      json__num(json__get(w, "disk_on_cpu.slow_requests_per_run")));
	CHECK(json__num(json__get(w, "disk_on_cpu.p")) <= 0.001, "-");
	CHECK(v && strstr(v, "because of cpu_run > ") &&
		      strstr(v, "(disk on CPU: the VM's synchronous I/O)"),
	      "%s", v);
	CHECK(strstr(text, "=> disk (on CPU: the VM's synchronous I/O)"), "%s", text);
	json__free(j);
	/* the same growth without a block request: only CPU */
	j = work_report(G_CPU_ONLY, 5, &w);
	REQUIRE(j, "-");
	CHECK(json__bool(json__get(w, "disk_on_cpu.holds")) == 0, "-");
	CHECK(!strstr(json__str(json__get(j, "verdict")) ?: "", "disk on CPU"), "%s",
	      json__str(json__get(j, "verdict")));
	json__free(j);
}

/* On-CPU growth in the fault path is named; the same growth in proportion is not. */
TEST(page_faults_named_by_why_synthetic)
{
	struct json *j = report(G_FAULT, 9, text, sizeof(text));
	const struct json *w, *path;
	const char *v;

	REQUIRE(j, "-");
	w = crit(j, "work");
	REQUIRE(w, "work accused: %s", json__str(json__get(j, "verdict")));
	v = json__str(json__get(j, "verdict"));
	CHECK(json__str_is(w, "growth.samples_of", "cpu_run"), "-");
	CHECK(json__bool(json__get(w, "growth.clear")) == 1, "-");
	CHECK(json__str_is(w, "growth.cause", "page_faults"), "%s",
	      json__str(json__get(w, "growth.cause")));
	path = json__get(w, "growth.path");
	CHECK(json__len(path) == 6, "work, then the 5 frames of the fault path: %zu",
	      json__len(path));
	CHECK(json__str_is(path, "[1].function", "asm_exc_page_fault") &&
		      json__str_is(path, "[5].function", "clear_page_erms"),
	      "-");
	/* two thirds of the slow samples, a tenth of the fast ones */
	CHECK(fabs(json__num(json__get(path, "[1].slow_samples")) /
			   json__num(json__get(path, "[0].slow_samples")) -
		   2.0 / 3) < 0.02,
	      "-");
	CHECK(json__num(json__get(w, "growth.p")) <= 0.001, "-");
	CHECK(v && strstr(v, ", grown in page faults (asm_exc_page_fault)"), "%s", v);
	html_flame_matches(j, "critical_functions[0].growth.flame_frames", "diff-flame-1");
	CHECK(strstr(text, "[k] asm_exc_page_fault: ") &&
		      strstr(text, "=> grew in page faults (asm_exc_page_fault)"),
	      "%s", text);
	json__free(j);
	/* faults in the same proportion in slow and fast runs: more of the same */
	j = work_report(G_FAULT_PROP, 9, &w);
	REQUIRE(j, "-");
	CHECK(json__bool(json__get(w, "growth.clear")) == 0, "-");
	CHECK(json__is_null(json__get(w, "growth.cause")), "-");
	CHECK(!strstr(json__str(json__get(j, "verdict")) ?: "", "grown in"), "%s",
	      json__str(json__get(j, "verdict")));
	json__free(j);
}

/* A share above 100 % of the added latency is never printed as such. */
TEST(share_above_100_is_capped)
{
	char buf[256];

	CHECK(!strcmp(report__share(0.87, buf, sizeof(buf)), "87 % of the added latency"), "%s",
	      buf);
	/* the rest of the run a little faster: capped */
	CHECK(!strcmp(report__share(1.04, buf, sizeof(buf)), "100 % of the added latency"), "%s",
	      buf);
	/* work on other threads overlapping the run: said, not "204 %" */
	report__share(2.04, buf, sizeof(buf));
	CHECK(!strstr(buf, "204") && strstr(buf, "all of the added latency") &&
		      strstr(buf, "2.04x") && strstr(buf, "other threads"),
	      "%s", buf);
}

TEST_MAIN()
