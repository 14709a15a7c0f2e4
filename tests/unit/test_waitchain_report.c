/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wait chains in the reports, on hand-written timelines
 * (tests/lib/wcsynth.h): the wait_chains section, an accused function's
 * blocker, blockers grouped by name, a task queued behind busy workers,
 * keyed runs across threads, the whole run's wait answer, a wait for
 * another thread's CPU work, and a blocker waiting for a CPU named with
 * who took it. The rules themselves are in test_waitchain.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "dataset.h"
#include "json.h"
#include "synth.h"
#include "xlptest.h"
#include "testds.h"
#include "waitchain.h"
#include "wcsynth.h"

/*
 * The reports: 20 runs of A handing work to B (pool-1), which answers
 * after 3 ms on a CPU; in every 4th run it first reads the disk for 40 ms.
 * The JSON's wait_chains names the disk through pool-1 first, 40 ms per
 * slow run and none in fast runs, and the typical slow run's pieces add
 * up to its waits; the text shows the section. The same trace without
 * the timeline feature has no wait_chains and the same verdict: the key
 * is additive.
 */
TEST(report_wait_chains_synthetic)
{
	enum { NRUNS = 20 };
	struct ev ev[16 * NRUNS];
	struct run runs[NRUNS];
	uint64_t ctr[NRUNS * XLP_NR_CTR];
	static const struct name nm[] = {{10, A, "app", false}, {10, B, "pool-1", false}};
	const char *tl = xt_tmp_path("report-tl.xlp"), *notl = xt_tmp_path("report-notl.xlp");
	const char *js = xt_tmp_path("report-tl.json"), *js2 = xt_tmp_path("report-notl.json");
	static char text[1 << 16];
	char err[4096];
	struct json *j = NULL, *j2 = NULL;
	const struct json *wc, *b0, *typ;
	size_t n = 0;

	for (int i = 0; i < NRUNS; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0; /* B's disk read */
		struct synth_usage u = {.cpu_run = MS(1) + MS(6), .ipc = MS(3 + d)};

		runs[i] = (struct run){MS(t), MS(10 + d)};
		synth__counters(&u, ctr + i * XLP_NR_CTR);
		n = wcs_handoff(ev, n, t, 2, d, t + 4 + d, t + 5 + d);
	}
	REQUIRE(!wcs_write_trace_ctr(tl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev,
				     n, nm, 2, runs, NRUNS, ctr),
		"write");
	REQUIRE(!wcs_write_trace_ctr(notl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS, ev, n, nm, 2, runs,
				     NRUNS, ctr),
		"write");
	REQUIRE(!synth__report(NULL, 0, err, sizeof(err), "--json", "-o", js, tl, NULL),
		"report: %s", err);
	REQUIRE(!synth__report(NULL, 0, err, sizeof(err), "--json", "-o", js2, notl, NULL),
		"report: %s", err);
	j = json__load(js, err, sizeof(err));
	j2 = json__load(js2, err, sizeof(err));
	REQUIRE(j && j2, "json: %s", err);
	CHECK(!json__get(j2, "wait_chains"), "wait_chains without a timeline");
	/*
	 * The same verdict, and with the timeline who held the runs up:
	 * on_click waited (ipc) for pool-1, which waited for the disk in the
	 * slow runs (40 ms each, none in the fast ones).
	 */
	{
		const char *v = json__str(json__get(j, "verdict")),
			   *v2 = json__str(json__get(j2, "verdict"));

		REQUIRE(v && v2, "no verdict");
		CHECK(!strncmp(v, v2, strlen(v2)), "verdicts differ: %s / %s", v, v2);
		CHECK(strstr(v, "; it waited for the disk, through pool-1 (tid 11) (40.0 ms "),
		      "verdict: %s", v);
		CHECK(!strstr(v2, "waited for"), "without a timeline: %s", v2);
		/* 20 runs, 5 slow: the whole run of their thread (ipc_wait) answers */
		CHECK(json__num(json__get(j, "whole_run.blocked_by.added_ns_per_slow_run")) ==
			      MS(40),
		      "blocked_by: %g",
		      json__num(json__get(j, "whole_run.blocked_by.added_ns_per_slow_run")));
		CHECK(json__is_null(json__get(j2, "whole_run.blocked_by")),
		      "blocked_by without a timeline");
	}
	CHECK(json__num(json__get(j, "runs.slow")) == 5, "%g slow runs",
	      json__num(json__get(j, "runs.slow")));
	wc = json__get(j, "wait_chains");
	REQUIRE(wc, "no wait_chains");
	b0 = json__get(wc, "blockers[0]");
	REQUIRE(b0, "no blocker");
	CHECK(!strcmp(json__str(json__key(b0, "state")), "device") &&
		      !strcmp(json__str(json__key(b0, "reason")), "disk"),
	      "first blocker: %s %s", json__str(json__key(b0, "state")),
	      json__str(json__key(b0, "reason")));
	CHECK(json__num(json__key(b0, "via_tid")) == B &&
		      !strcmp(json__str(json__key(b0, "via")), "pool-1"),
	      "through %g %s", json__num(json__key(b0, "via_tid")),
	      json__str(json__key(b0, "via")));
	CHECK(json__num(json__key(b0, "slow_ns_per_run")) == MS(40) &&
		      json__num(json__key(b0, "fast_ns_per_run")) == 0,
	      "%g %g", json__num(json__key(b0, "slow_ns_per_run")),
	      json__num(json__key(b0, "fast_ns_per_run")));
	CHECK(json__num(json__key(b0, "slow_runs")) == 5 &&
		      json__num(json__key(b0, "fast_runs")) == 0,
	      "runs %g %g", json__num(json__key(b0, "slow_runs")),
	      json__num(json__key(b0, "fast_runs")));
	typ = json__get(wc, "typical_slow_run");
	REQUIRE(typ && json__len(json__key(typ, "waits")) == 1, "typical slow run");
	{
		const struct json *w0 = json__get(typ, "waits[0]"), *p = json__key(w0, "pieces");
		double sum = 0;

		for (size_t i = 0; i < json__len(p); i++)
			sum += json__num(json__key(json__at(p, i), "ns"));
		CHECK(sum == json__num(json__key(w0, "ns")) && sum == MS(43), "pieces %g, wait %g",
		      sum, json__num(json__key(w0, "ns")));
	}
	CHECK(!json__is_null(json__get(wc, "typical_fast_run")), "no typical fast run");
	CHECK(!synth__report(text, sizeof(text), err, sizeof(err), tl, NULL), "text: %s", err);
	CHECK(strstr(text, "Wait chains") && strstr(text, "the disk, through pool-1 (tid 11)") &&
		      strstr(text, "A typical slow run"),
	      "text:\n%s", text);
	json__free(j);
	json__free(j2);
}

/* the JSON report of a trace, loaded; NULL with err on failure */
static struct json *report_json_of(const char *trace, char *err, size_t errlen)
{
	const char *js = xt_tmp_path("report-of.json");

	if (synth__report(NULL, 0, err, errlen, "--json", "-o", js, trace, NULL))
		return NULL;
	return json__load(js, err, errlen);
}

/*
 * A function accused of waiting names who held it up: on_click calls
 * load_index, which hands work to pool-1 and waits for it (ipc_wait); in a
 * quarter of 60 runs pool-1 reads the disk for 40 ms first. load_index is
 * explained by ipc_wait, and with the timeline the verdict follows the
 * wait into pool-1 and on to the disk.
 */
TEST(accused_function_names_its_blocker_synthetic)
{
	enum { NRUNS = 60 };
	static struct ev ev[16 * NRUNS];
	static const struct name nm[] = {{10, A, "app", false}, {10, B, "pool-1", false}};
	const char *path = xt_tmp_path("blocker-fn.xlp");
	struct synth *s = NULL;
	char err[4096];
	struct json *j;
	size_t n = 0;
	int e;

	for (int i = 0; i < NRUNS; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;

		n = wcs_handoff(ev, n, t, 2, d, t + 4 + d, t + 5 + d);
	}
	e = wcs_open_timeline(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n,
			      nm, 2, &s);
	for (int i = 0; i < NRUNS && !e; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;
		/* load_index: 0.5 ms of its own, then the wait (ipc) */
		struct synth_usage li = {.cpu_run = MS(0.5), .ipc = MS(3 + d)},
				   run = {.cpu_run = MS(1) + MS(6) + MS(0.5), .ipc = MS(3 + d)};

		e = wcs_click_load(s, t, t + 0.5, &li, 3.5 + d, &run, 10.5 + d);
	}
	REQUIRE(!e && !synth__close(s, NULL, 0), "write");
	j = report_json_of(path, err, sizeof(err));
	REQUIRE(j, "report: %s", err);
	CHECK(!strcmp(json__str(json__get(j, "status")), "ok"), "%s: %s",
	      json__str(json__get(j, "status")), json__str(json__get(j, "verdict")));
	CHECK(json__str(json__get(j, "critical_functions[0].function")) &&
		      !strcmp(json__str(json__get(j, "critical_functions[0].function")),
			      "load_index"),
	      "%s", json__str(json__get(j, "verdict")));
	CHECK(json__num(json__get(j, "critical_functions[0].blocked_by.added_ns_per_slow_run")) ==
		      MS(40),
	      "%s", json__str(json__get(j, "verdict")));
	CHECK(strstr(json__str(json__get(j, "verdict")),
		     "; it waited for the disk, through pool-1 (tid 11) (40.0 ms of the"),
	      "%s", json__str(json__get(j, "verdict")));
	json__free(j);
}

/*
 * A row lock held by another client's session, a new process each time
 * (tids 100 + i, all named "postgres", untraced: task records): in a
 * quarter of 40 runs the holder sleeps 40 ms on a timer before it commits
 * and wakes the run's thread, its sleep known from the events it kept
 * before it joined the timeline (bpf/tlhist.bpf.h: earlier timestamps
 * than its first wakeup of a traced thread). No single holder adds much
 * per slow run; grouped by name they add the 40 ms, and the verdict names
 * the holders' timer.
 */
TEST(holders_grouped_by_name_synthetic)
{
	enum { NRUNS = 40 };
	static struct ev ev[16 * NRUNS];
	static struct name nm[1 + NRUNS];
	const char *path = xt_tmp_path("holders.xlp");
	struct synth *s = NULL;
	char err[4096], key[64];
	const struct json *b;
	struct json *j;
	size_t n = 0;
	int e;

	nm[0] = (struct name){10, A, "app", false};
	for (int i = 0; i < NRUNS; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;
		uint32_t h = 100 + (uint32_t)i;

		nm[1 + i] = (struct name){h, h, "postgres", true};
		ev[n++] = (struct ev)IN(A, t);
		ev[n++] = (struct ev)OUT_S(A, t + 1);
		/* the holder: on a CPU from before the wait, asleep on its timer when slow */
		ev[n++] = (struct ev)IN(h, t + 0.5);
		if (d) {
			ev[n++] = (struct ev)OUT_S(h, t + 1.5);
			ev[n++] = (struct ev)WAKE(h, 0, XLP_C_TIMER, t + 1.5 + d);
			ev[n++] = (struct ev)IN(h, t + 1.5 + d);
		}
		ev[n++] = (struct ev)WAKE(A, h, XLP_C_IPC, t + 2 + d);
		ev[n++] = (struct ev)IN(A, t + 2 + d);
		ev[n++] = (struct ev)OUT_S(h, t + 2.5 + d);
	}
	e = wcs_open_timeline(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n,
			      nm, 1 + NRUNS, &s);
	for (int i = 0; i < NRUNS && !e; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;
		struct synth_usage li = {.cpu_run = MS(0.2), .ipc = MS(1 + d)},
				   run = {.cpu_run = MS(1) + MS(0.5), .ipc = MS(1 + d)};

		e = wcs_click_load(s, t, t + 0.8, &li, 1.2 + d, &run, 2.5 + d);
	}
	REQUIRE(!e && !synth__close(s, NULL, 0), "write");
	j = report_json_of(path, err, sizeof(err));
	REQUIRE(j, "report: %s", err);
	CHECK(json__str(json__get(j, "critical_functions[0].function")) &&
		      !strcmp(json__str(json__get(j, "critical_functions[0].function")),
			      "load_index"),
	      "%s", json__str(json__get(j, "verdict")));
	snprintf(key, sizeof(key), "wait_chains.blockers[%.0f]",
		 json__num(json__get(j, "critical_functions[0].blocked_by.blocker")));
	b = json__get(j, key);
	REQUIRE(b, "no blocker: %s", json__str(json__get(j, "verdict")));
	CHECK(json__num(json__get(b, "threads")) == NRUNS / 4 &&
		      !strcmp(json__str(json__get(b, "state")), "device") &&
		      !strcmp(json__str(json__get(b, "reason")), "timer") &&
		      json__num(json__get(b, "blocker_tid")) == 0,
	      "%s", json__str(json__get(b, "text")));
	CHECK(json__num(json__get(j, "critical_functions[0].blocked_by.added_ns_per_slow_run")) ==
		      MS(40),
	      "%g",
	      json__num(json__get(j, "critical_functions[0].blocked_by.added_ns_per_slow_run")));
	CHECK(strstr(json__str(json__get(j, "verdict")),
		     "; it waited for a timer, through postgres (10 threads) (40.0 ms of the"),
	      "%s", json__str(json__get(j, "verdict")));
	/* each holder alone is a blocker too, in the JSON report */
	CHECK(json__num(json__get(j, "wait_chains.blockers[1].threads")) == 1 ||
		      json__num(json__get(j, "wait_chains.blockers[2].threads")) == 1,
	      "no thread's own blocker");
	json__free(j);
}

/*
 * Async tasks (record --task-post / --task-run): every run of thread A
 * posts one task (key 0x1000 + i) and waits for it; worker W (tid 11)
 * runs it, load_index, 3 ms. Before a quarter of the 40 runs, outside
 * them, the app posts three warm_cache tasks of 4 ms each: the run's task
 * waits in the queue 12 ms behind them, and no wakeup says why (W is on a
 * CPU all along). The queue's answer names the runs' tasks' queue time and
 * warm_cache as what held it.
 */
TEST(task_queued_behind_busy_workers_synthetic)
{
	enum { NRUNS = 40, F_ON, F_POST, F_RUN, F_LI, F_WARM };
	static const struct synth_func tf[] = {
		{"/usr/bin/app", "on_click", true},    {"/usr/bin/app", "post_task", false},
		{"/usr/bin/app", "run_task", false},   {"/usr/bin/app", "load_index", false},
		{"/usr/bin/app", "warm_cache", false},
	};
	const char *path = xt_tmp_path("tasks.xlp");
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s = NULL;
	char err[4096];
	struct json *j;
	const char *v;
	int e = synth__open(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS, 0, tf, 5, &s);

	for (int i = 0; i < NRUNS && !e; i++) {
		double t = 100.0 * i, w = 0.6;
		uint64_t key = 0x1000 + (uint64_t)i;

		if (i % 4 == 3)
			for (int k = 0; k < 3; k++) {
				uint64_t bk = 0x9000 + 3 * (uint64_t)i + (uint64_t)k;
				double st = t + 0.2 + 4 * k;

				e |= synth__taskev(s, XLP_TASKEV_POST, 10, A,
						   T0 + MS(t - 0.1 + 0.01 * k), bk, F_POST - F_ON);
				c[XLP_C_WALL] = MS(0.005);
				e |= synth__call(s, F_POST - F_ON, 10, A, 0,
						 T0 + MS(t - 0.1 + 0.01 * k), c, NULL, 0, NULL);
				e |= synth__taskev(s, XLP_TASKEV_RUN, 10, B, T0 + MS(st), bk,
						   F_RUN - F_ON);
				c[XLP_C_WALL] = MS(3.9);
				e |= synth__call(s, F_WARM - F_ON, 10, B, 1, T0 + MS(st + 0.05), c,
						 NULL, 0, NULL);
				c[XLP_C_WALL] = MS(4);
				e |= synth__call(s, F_RUN - F_ON, 10, B, 0, T0 + MS(st), c, NULL, 0,
						 NULL);
				w = st + 4 - t;
			}
		e |= synth__taskev(s, XLP_TASKEV_POST, 10, A, T0 + MS(t + 0.5), key, F_POST - F_ON);
		c[XLP_C_WALL] = MS(0.005);
		e |= synth__call(s, F_POST - F_ON, 10, A, 1, T0 + MS(t + 0.5), c, NULL, 0, NULL);
		e |= synth__taskev(s, XLP_TASKEV_RUN, 10, B, T0 + MS(t + w), key, F_RUN - F_ON);
		c[XLP_C_WALL] = MS(2.9);
		e |= synth__call(s, F_LI - F_ON, 10, B, 1, T0 + MS(t + w + 0.05), c, NULL, 0, NULL);
		c[XLP_C_WALL] = MS(3);
		e |= synth__call(s, F_RUN - F_ON, 10, B, 0, T0 + MS(t + w), c, NULL, 0, NULL);
		c[XLP_C_WALL] = MS(w + 3.5);
		c[XLP_C_LOCK] = MS(w + 2.9);
		e |= synth__call(s, 0, 10, A, 0, T0 + MS(t), c, NULL, 0, NULL);
		c[XLP_C_LOCK] = 0;
	}
	REQUIRE(!e && !synth__close(s, NULL, 0), "write");
	j = report_json_of(path, err, sizeof(err));
	REQUIRE(j, "report: %s", err);
	v = json__str(json__get(j, "verdict"));
	CHECK(json__num(json__get(j, "tasks.posted")) == NRUNS + 3 * NRUNS / 4 &&
		      json__num(json__get(j, "tasks.matched")) == NRUNS + 3 * NRUNS / 4 &&
		      json__num(json__get(j, "tasks.no_call")) == 0,
	      "posted %g, matched %g", json__num(json__get(j, "tasks.posted")),
	      json__num(json__get(j, "tasks.matched")));
	CHECK(json__bool(json__get(j, "tasks.answer.holds")) == 1 &&
		      !strcmp(json__str(json__get(j, "tasks.answer.function")), "load_index") &&
		      !strcmp(json__str(json__get(j, "tasks.answer.held_by")), "warm_cache"),
	      "%s", v);
	/* queued 12.2 ms in slow runs, 0.1 ms in fast: 12.1 ms more, all warm_cache's */
	CHECK(fabs(json__num(json__get(j, "tasks.answer.slow_queue_ns_per_run")) - MS(11.7)) < 1 &&
		      fabs(json__num(json__get(j, "tasks.answer.fast_queue_ns_per_run")) -
			   MS(0.1)) < 1 &&
		      fabs(json__num(json__get(j, "tasks.answer.held_ns_per_slow_run")) -
			   MS(11.7)) < 1,
	      "queue %g / %g, held %g",
	      json__num(json__get(j, "tasks.answer.slow_queue_ns_per_run")),
	      json__num(json__get(j, "tasks.answer.fast_queue_ns_per_run")),
	      json__num(json__get(j, "tasks.answer.held_ns_per_slow_run")));
	CHECK(v && strstr(v, "its tasks (load_index) waited in the queue 11.7 ms per slow run") &&
		      strstr(v, "behind warm_cache tasks"),
	      "%s", v);
	json__free(j);
}

/*
 * record --until: runs from the interaction's call on thread A to the
 * --until function's call with the same key on thread B (an event loop
 * handing a request over). 20 runs, two keys alternating, run i ending
 * at its end call's return, 1 + i ms after its begin; a begin no end
 * closes and an end no begin opened are counted, not runs.
 */
TEST(keyed_runs_span_threads_synthetic)
{
	static const struct synth_func kf[] = {
		{"/usr/bin/app", "begin_request", true, XLP_FUNC_RUN_BEGIN},
		{"/usr/bin/app", "end_request", false, XLP_FUNC_RUN_END},
	};
	const char *path = xt_tmp_path("keyed.xlp");
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s = NULL;
	struct dataset *ds;
	int e = synth__open(path, XLP_FEAT_SCHED, 0, kf, 2, &s);

	for (int i = 0; i < 20 && !e; i++) {
		double t = 10.0 * i, d = 0.5 + i;
		uint64_t key = 0x100 + (uint64_t)(i % 2);

		e |= synth__taskev(s, XLP_TASKEV_BEGIN, 10, A, T0 + MS(t), key, 0);
		c[XLP_C_WALL] = MS(0.01);
		e |= synth__call(s, 0, 10, A, 0, T0 + MS(t), c, NULL, 0, NULL);
		e |= synth__taskev(s, XLP_TASKEV_END, 10, B, T0 + MS(t + d), key, 1);
		c[XLP_C_WALL] = MS(0.5);
		e |= synth__call(s, 1, 10, B, 0, T0 + MS(t + d), c, NULL, 0, NULL);
	}
	e |= synth__taskev(s, XLP_TASKEV_END, 10, B, T0 + MS(300), 0x998, 1);
	e |= synth__taskev(s, XLP_TASKEV_BEGIN, 10, A, T0 + MS(301), 0x999, 0);
	REQUIRE(!e && !synth__close(s, NULL, 0), "write");
	ds = tds_load(path);
	REQUIRE(ds, "-");
	CHECK(dataset__nruns(ds) == 20, "%zu runs", dataset__nruns(ds));
	for (size_t i = 0; i < dataset__nruns(ds) && i < 20; i++) {
		const struct dataset_run *r = dataset__run(ds, i);

		CHECK(r->tid == B && r->start_ns == T0 + MS(10.0 * (double)i) &&
			      r->latency_ns == (double)(MS(0.5 + (double)i) + MS(0.5)) &&
			      !r->has_base,
		      "run %zu: tid %u, start %llu, %.0f ns", i, r->tid,
		      (unsigned long long)(r->start_ns - T0), r->latency_ns);
	}
	CHECK(dataset__drops(ds)->unmatched_begins == 1 && dataset__drops(ds)->unmatched_ends == 1,
	      "unmatched: %llu begins, %llu ends",
	      (unsigned long long)dataset__drops(ds)->unmatched_begins,
	      (unsigned long long)dataset__drops(ds)->unmatched_ends);
	dataset__free(ds);
}

/*
 * The run's thread waits for pool-1 the whole run: pool-1 computes
 * 40 +- 5 ms in every run, and in a quarter of 40 runs reads the disk for
 * 10 ms first. The run's ipc_wait tracks its latency (in proportion: the
 * whole run's test refuses it), but ranked by the disk-through-pool-1
 * part of their latency the top runs are the slow ones: the verdict
 * follows the wait.
 */
TEST(wait_answer_when_the_whole_run_waits_in_proportion_synthetic)
{
	enum { NRUNS = 40 };
	static struct ev ev[16 * NRUNS];
	static struct run runs[NRUNS];
	static uint64_t ctr[NRUNS * XLP_NR_CTR];
	static const struct name nm[] = {{10, A, "app", false}, {10, B, "pool-1", false}};
	const char *tl = xt_tmp_path("wait-answer.xlp");
	uint64_t rs = 4242;
	char err[4096];
	struct json *j;
	size_t n = 0;
	const char *v;

	for (int i = 0; i < NRUNS; i++) {
		double t = 200.0 * i, d = i % 4 == 3 ? 10 : 0, c = 40 + 10 * (tl_rnd01(&rs) - 0.5);
		struct synth_usage u = {.cpu_run = MS(1), .ipc = MS(c + d)};

		runs[i] = (struct run){MS(t), MS(1 + c + d)};
		synth__counters(&u, ctr + i * XLP_NR_CTR);
		n = wcs_handoff(ev, n, t, 1.5, d, t + 1 + c + d, t + 1.1 + c + d);
	}
	REQUIRE(!wcs_write_trace_ctr(tl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev,
				     n, nm, 2, runs, NRUNS, ctr),
		"write");
	j = report_json_of(tl, err, sizeof(err));
	REQUIRE(j, "report: %s", err);
	v = json__str(json__get(j, "verdict"));
	CHECK(!json__bool(json__get(j, "whole_run.holds")), "the whole run answered: %s", v);
	/* every slow run is a perturbed one, some perturbed runs stay under the cut */
	CHECK(json__bool(json__get(j, "wait_answer.holds")) == 1 &&
		      json__num(json__get(j, "wait_answer.top_slow")) ==
			      json__num(json__get(j, "wait_answer.slow_runs")),
	      "%s", v);
	CHECK(v && strstr(v, "their thread's waits do: it waited for the disk, through pool-1 "
			     "(tid 11), 10.0 ms per slow run against "),
	      "%s", v);
	json__free(j);
}

/*
 * The run's thread (A) and pool-1 (B) on one CPU, as tests/workloads/pool.c
 * pins them: A posts a task and B preempts it, A waits on the runqueue
 * (q ms), gets the CPU back, blocks on the condition variable (lock_wait)
 * while B finishes its b ms of work. Which part of B's work A spends on
 * the runqueue and which in lock_wait is the scheduler's race. The runs'
 * shapes: b 4 +- 0.5 ms with q = 2; `slower` runs b 1.4x, with q = 1.6 (A
 * blocks sooner): their added time is all in lock_wait, 1.25x the added
 * latency, against half of the fast runs' latency: out of proportion by
 * the wait alone. The run's CPU work (cpu_work.c) grew in proportion.
 */
static struct json *cpu_work_report(const char *name, bool (*slower)(int i), double extra)
{
	enum { NRUNS = 64 };
	static struct ev ev[16 * NRUNS];
	static struct run runs[NRUNS];
	static uint64_t ctr[NRUNS * XLP_NR_CTR];
	static const struct name nm[] = {{10, A, "app", false}, {10, B, "pool-1", false}};
	const char *tl = xt_tmp_path(name);
	uint64_t rs = 777;
	char err[4096];
	struct json *j;
	size_t n = 0;

	for (int i = 0; i < NRUNS; i++) {
		bool sl = slower(i);
		double t = 100.0 * i, noise = tl_rnd01(&rs) - 0.5;
		double b = (sl ? 4 * extra : 4) + noise, q = sl ? 1.6 : 2;
		struct synth_usage u = {
			.cpu_run = MS(0.35), .cpu_wait = MS(q + 0.05), .lock = MS(b - q)};

		runs[i] = (struct run){MS(t), MS(0.4 + b)};
		synth__counters(&u, ctr + i * XLP_NR_CTR);
		ev[n++] = (struct ev)IN(A, t);
		ev[n++] = (struct ev)WAKE(B, A, XLP_C_LOCK, t + 0.1);
		ev[n++] = (struct ev)OUT_R(A, t + 0.2);
		ev[n++] = (struct ev)IN(B, t + 0.2);
		ev[n++] = (struct ev)OUT_R(B, t + 0.2 + q);
		ev[n++] = (struct ev)IN(A, t + 0.2 + q);
		ev[n++] = (struct ev)OUT_S(A, t + 0.25 + q);
		ev[n++] = (struct ev)IN(B, t + 0.25 + q);
		ev[n++] = (struct ev)WAKE(A, B, XLP_C_LOCK, t + 0.25 + b);
		ev[n++] = (struct ev)OUT_S(B, t + 0.3 + b);
		ev[n++] = (struct ev)IN(A, t + 0.3 + b);
		ev[n++] = (struct ev)OUT_S(A, t + 0.4 + b);
	}
	if (wcs_write_trace_ctr(tl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n,
				nm, 2, runs, NRUNS, ctr)) {
		CHECK(0, "cannot write %s", tl);
		return NULL;
	}
	j = report_json_of(tl, err, sizeof(err));
	CHECK(j, "report: %s", err);
	return j;
}

/* three stretches of 8 runs: a slower CPU at times */
static bool in_bursts(int i)
{
	return (i >= 10 && i < 18) || (i >= 30 && i < 38) || (i >= 50 && i < 58);
}

/* every fourth run: a code path the worker takes now and then */
static bool every_fourth(int i)
{
	return i % 4 == 3;
}

TEST(wait_for_cpu_work_in_bursts_is_a_slower_cpu_synthetic)
{
	struct json *j = cpu_work_report("cpu-work-bursts.xlp", in_bursts, 1.4);
	const char *v, *note;

	REQUIRE(j, "-");
	v = json__str(json__get(j, "verdict"));
	note = json__str(json__get(j, "note"));
	/* the wait alone is out of proportion: what the answer rested on before */
	CHECK(json__bool(json__get(j, "whole_run.out_of_proportion")) == 1 &&
		      !strcmp(json__str(json__get(j, "whole_run.factor")), "lock_wait"),
	      "%s", v);
	CHECK(json__bool(json__get(j, "whole_run.cpu_work.dismissed")) == 1 &&
		      json__bool(json__get(j, "whole_run.cpu_work.bursty")) == 1 &&
		      !json__bool(json__get(j, "whole_run.cpu_work.out_of_proportion")),
	      "%s", v);
	CHECK(json__num(json__get(j, "whole_run.cpu_work.proxy")) >= 0.9, "proxy %g",
	      json__num(json__get(j, "whole_run.cpu_work.proxy")));
	CHECK(!json__bool(json__get(j, "whole_run.holds")) &&
		      json__bool(json__get(j, "wait_answer.holds")) != 1 &&
		      !strcmp(json__str(json__get(j, "status")), "no_precondition"),
	      "%s", v);
	CHECK(v && !strcmp(v, "no slowdown precondition found"), "%s", v);
	CHECK(note && strstr(note, "other threads' CPU work") && strstr(note, "ran slower"), "%s",
	      note ? note : "(no note)");
	json__free(j);
}

TEST(wait_for_cpu_work_in_a_mode_over_the_recording_accuses_synthetic)
{
	struct json *j = cpu_work_report("cpu-work-mode.xlp", every_fourth, 2.5);
	const char *v;

	REQUIRE(j, "-");
	v = json__str(json__get(j, "verdict"));
	CHECK(json__bool(json__get(j, "whole_run.holds")) == 1 ||
		      json__bool(json__get(j, "wait_answer.holds")) == 1,
	      "%s", v);
	CHECK(json__bool(json__get(j, "whole_run.cpu_work.dismissed")) != 1 &&
		      json__bool(json__get(j, "wait_answer.cpu_work.dismissed")) != 1,
	      "%s", v);
	CHECK(v && strstr(v, "pool-1 (tid 11) on a CPU"), "%s", v);
	json__free(j);
}

/*
 * A blocker waiting for a CPU names who took it (issue 36). 20 runs: A
 * sleeps until B wakes it; B, preempted half a ms before A slept, waits
 * for its CPU 30 ms in every fourth run (slow), 2 ms in the others, and
 * each of its waits has a thief record: "hog" (pid 50, a child the app
 * forked) 80 % of it, kworker/0:1 10 %, the rest idle. A record of B in
 * no run's window and one of another thread are charged to nothing. The
 * blocker's thieves are the pieces' parts of each record (the piece over
 * the wait: 30 of 30.5 ms), summed over the slow runs; the text and the
 * JSON name the hog, as a child of the server.
 */
TEST(blocker_waiting_for_a_cpu_names_its_thief_synthetic)
{
	enum { NRUNS = 20 };
	static struct ev ev[8 * NRUNS];
	static const struct name nm[] = {{10, A, "app", false}, {10, B, "pool-1", false}};
	const char *path = xt_tmp_path("blocker-thief.xlp");
	uint8_t slow[NRUNS];
	struct {
		struct xlp_thief_rec r;
		struct xlp_thief t[XLP_THIEF_MAX];
	} w;
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	struct dataset *ds = NULL;
	struct waitchain *wc = NULL;
	struct waitchain_blocker *b = NULL;
	size_t n = 0, nb = 0;
	static char text[1 << 16];
	char err[4096];
	struct json *j = NULL;
	double want_hog = 0, want_known = 0;
	int e;

	for (int i = 0; i < NRUNS; i++) {
		double t = 100.0 * i, q = i % 4 == 3 ? 30 : 2;

		slow[i] = i % 4 == 3;
		n = wcs_runnable(ev, n, t, q);
		if (slow[i]) {
			want_hog += 0.8 * MS(q + 0.5) * (q / (q + 0.5));
			want_known += MS(q);
		}
	}
	e = wcs_open_timeline(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n,
			      nm, 2, &s);
	REQUIRE(s, "open %s: %d", path, e);
	e |= synth__fork(s, 50, 10, T0 - MS(1), 0);
	for (int i = 0; i <= NRUNS; i++) {
		double t = 100.0 * i, q = i % 4 == 3 ? 30 : 2;

		memset(&w, 0, sizeof(w));
		w.r.pid = 10;
		w.r.tid = i < NRUNS ? B : C; /* past the runs: another thread's */
		w.r.end_ns = T0 + MS(t + 1 + q);
		w.r.wait_ns = w.r.here_ns = MS(q + 0.5);
		w.r.idle_ns = w.r.wait_ns / 10;
		w.r.nthieves = 2;
		w.t[0] = (struct xlp_thief){.pid = 50, .tid = 50, .ns = w.r.wait_ns * 8 / 10};
		memcpy(w.t[0].comm, "hog", 4);
		w.t[1] = (struct xlp_thief){
			.pid = 0, .tid = 7, .ns = w.r.wait_ns / 10, .flags = XLP_THIEF_KTHREAD};
		memcpy(w.t[1].comm, "kworker/0:1", 12);
		e |= synth__thief(s, &w.r);
	}
	/* a wait of B between the runs, when nothing waited for it */
	w.r.tid = B;
	w.r.end_ns = T0 + MS(50);
	e |= synth__thief(s, &w.r);
	for (int i = 0; i < NRUNS; i++) {
		double t = 100.0 * i, q = i % 4 == 3 ? 30 : 2;
		struct synth_usage u = {.cpu_run = MS(1), .ipc = MS(2 + q)};

		synth__counters(&u, c);
		c[XLP_C_WALL] = MS(3 + q);
		e |= synth__call(s, F_CLICK, 10, A, 0, T0 + MS(t), c, NULL, 0, NULL);
	}
	e |= synth__close(s, NULL, 0);
	REQUIRE(!e, "write %s", path);
	ds = tds_load(path);
	REQUIRE(ds, "load");
	REQUIRE(!waitchain__build(ds, NULL, &wc, err, sizeof(err)), "%s", err);
	REQUIRE(!waitchain__blockers(wc, slow, &b, &nb) && nb, "waitchain__blockers");
	CHECK(b[0].blocker_tid == B && b[0].state == WAITCHAIN_CPU_WAIT, "top blocker: tid %u %s",
	      b[0].blocker_tid, waitchain__state_name(b[0].state));
	CHECK(fabs(b[0].thief_known_ns - want_known) < 1, "known %.0f, want %.0f",
	      b[0].thief_known_ns, want_known);
	CHECK(b[0].nthieves == 2 && !strcmp(b[0].thieves[0].comm, "hog") && b[0].thieves[0].child &&
		      fabs(b[0].thieves[0].ns - want_hog) < 10,
	      "%u thieves, first %s %.0f ns (want hog %.0f)", b[0].nthieves, b[0].thieves[0].comm,
	      b[0].thieves[0].ns, want_hog);
	CHECK(b[0].nthieves < 2 || (b[0].thieves[1].flags & XLP_THIEF_KTHREAD), "second thief");
	/* the report: the blocker's clause and its JSON */
	CHECK(!synth__report(text, sizeof(text), err, sizeof(err), path, NULL), "text: %s", err);
	CHECK(strstr(text, "pool-1 (tid 11) waiting for a CPU: the CPU was taken by hog (pid 50, "
			   "a child of the server) 80 %"),
	      "text:\n%s", text);
	j = report_json_of(path, err, sizeof(err));
	REQUIRE(j, "json: %s", err);
	CHECK(json__str_is(j, "wait_chains.blockers[0].cpu_thieves.thieves[0].comm", "hog") &&
		      json__bool(json__get(
			      j, "wait_chains.blockers[0].cpu_thieves.thieves[0].child")) == 1,
	      "JSON blockers[0]: %s",
	      json__str(json__get(j, "wait_chains.blockers[0].text")) ?: "");
	CHECK(fabs(json__num(json__get(j, "wait_chains.blockers[0].cpu_thieves.known_ns")) -
		   want_known / (NRUNS / 4)) < 1,
	      "known_ns per slow run %g",
	      json__num(json__get(j, "wait_chains.blockers[0].cpu_thieves.known_ns")));
	/* a blocker on a CPU has none */
	CHECK(json__is_null(json__get(j, "wait_chains.blockers[1].cpu_thieves")), "-");
	json__free(j);
	free(b);
	waitchain__free(wc);
	dataset__free(ds);
}

TEST_MAIN()
