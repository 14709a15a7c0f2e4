/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --repeat: each launch's latency is the command's own life, taken
 * by the kernel (exec, exit of its last thread), not by the recorder's poll
 * loop; real eBPF (root). Workload: tests/workloads/timed.c, which clocks
 * itself on CLOCK_MONOTONIC from its first instruction to just before exit;
 * xlprobe's timestamps are on the same clock, so they compare directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "xlptest.h"

/* the recorder's poll timeout (user/record.c run_loop) */
#define POLL_PERIOD_NS 100000000ull

/* What one launch of timed printed. */
struct own {
	int pid;
	unsigned long long entry, main, end, elapsed;
};

static int parse_own(const char *out, struct own *o, int max)
{
	int n = 0;

	for (const char *p = out; (p = strstr(p, "timed pid=")) && n < max; p++)
		if (sscanf(p, "timed pid=%d entry_ns=%llu main_ns=%llu end_ns=%llu elapsed_ns=%llu",
			   &o[n].pid, &o[n].entry, &o[n].main, &o[n].end, &o[n].elapsed) == 5)
			n++;
	return n;
}

static const struct own *own_of(const struct own *o, int n, uint32_t pid)
{
	for (int i = 0; i < n; i++)
		if ((uint32_t)o[i].pid == pid)
			return &o[i];
	return NULL;
}

struct rec_result {
	int rc;
	unsigned long long wall_ms; /* xlprobe record, start to exit */
	char out[16384], err[8192];
	struct own own[64];
	int nown;
	struct xt_trace t;
	bool loaded;
};

/* the program record() runs: xlprobe, or its test build for the hooks */
static const char *record_bin = "xlprobe";

/* xlprobe record -q --repeat N -o FILE -- timed [--sleep] DUR */
static void record(const char *name, int repeat, bool sleep_mode, const char *dur,
		   struct rec_result *res)
{
	char xl[256], wl[256], trace[256], n[16];
	char *argv[16] = {xt_out(record_bin, xl, sizeof(xl)),
			  "record",
			  "-q",
			  "--repeat",
			  n,
			  "-o",
			  trace,
			  "--",
			  xt_out("tests/workloads/timed", wl, sizeof(wl))};
	int a = 9;
	unsigned long long t0;

	if (sleep_mode)
		argv[a++] = "--sleep";
	argv[a++] = (char *)dur;
	argv[a] = NULL;
	snprintf(n, sizeof(n), "%d", repeat);
	snprintf(trace, sizeof(trace), "%s/%s", xt_tmpdir(), name);
	memset(res, 0, sizeof(*res));
	t0 = tl_now_ns();
	res->rc = xt_run(argv, 60000, res->out, sizeof(res->out), res->err, sizeof(res->err));
	res->wall_ms = (tl_now_ns() - t0) / 1000000;
	res->nown = parse_own(res->out, res->own, 64);
	res->loaded = !xt_trace_load(trace, &res->t);
}

/*
 * Every launch: timed by the kernel, its window holds the command's own
 * (exec before the first instruction, exit after the last clock reading),
 * and its length agrees with the command's own clock within what the
 * kernel charged the process outside that clock, plus its stolen time and
 * 1 % of the command's own time (no fixed slack: a slower machine
 * stretches what lies between the kernel's events and the clock readings;
 * here the difference stayed 1.5 ms or more below the allowance).
 *
 * The command's clock cannot see exec before its first instruction nor exit
 * after its last reading, yet both are its life (`time` counts them), and
 * both can be long now and then: another task holds the CPU between exec
 * and the first instruction (seen: 3.1 ms, cpu_wait 4.6 ms), or exit waits
 * or works (seen in CI: 5.5 ms from the last reading to exit in the first
 * launch of twenty). The kernel's accounting of the thread (cpu_run +
 * cpu_wait + sleep) holds those: what it exceeds the command's clock by is
 * the allowance. It counts from the recorder's fork, not from exec, so it
 * is loose by the child's life before exec (1.5-3.5 ms here), still far
 * below the old poll-timed error (~100 ms), which lies after the thread's
 * exit, where no accounting covers it.
 */
static void check_launches(const struct rec_result *res, int repeat)
{
	const struct xt_trace *t = &res->t;

	CHECK(res->nown == repeat, "timed printed %d lines for %d launches: %s", res->nown, repeat,
	      res->out);
	CHECK(t->nlaunches == (size_t)repeat, "%zu launch records for %d launches", t->nlaunches,
	      repeat);
	CHECK(t->footer && !t->footer->stat[XLP_S_LAUNCH_UNTIMED], "launches counted untimed: %llu",
	      t->footer ? (unsigned long long)t->footer->stat[XLP_S_LAUNCH_UNTIMED] : 0);
	for (size_t i = 0; i < t->nlaunches; i++) {
		const struct xlp_launch_rec *l = &t->launches[i];
		const struct own *o = own_of(res->own, res->nown, l->pid);
		const struct xlp_thread_rec *th = xt_thread(t, l->pid);
		unsigned long long span = l->end_ns - l->start_ns, diff, wait, life, outside;

		CHECK(l->run == i, "launch %zu has run index %u", i, l->run);
		CHECK(l->exit_code == 0, "launch %zu exit code %d", i, l->exit_code);
		CHECK(l->flags == (XLP_LAUNCH_EXEC_TIME | XLP_LAUNCH_EXIT_TIME),
		      "launch %zu not timed by the kernel: flags 0x%x", i, l->flags);
		CHECK(o, "launch %zu: pid %u printed nothing", i, l->pid);
		if (!o)
			continue;
		CHECK(l->start_ns <= o->entry && l->end_ns >= o->end,
		      "launch %zu: [%llu, %llu] does not hold the command's own [%llu, %llu]", i,
		      (unsigned long long)l->start_ns, (unsigned long long)l->end_ns, o->entry,
		      o->end);
		CHECK(th, "launch %zu: no thread record for pid %u", i, l->pid);
		life = th ? th->tot[XLP_C_CPU_RUN] + th->tot[XLP_C_CPU_WAIT] +
				       th->tot[XLP_C_SLEEP_S] + th->tot[XLP_C_SLEEP_D]
			  : 0;
		wait = th ? th->tot[XLP_C_CPU_WAIT] : 0;
		outside = life > o->elapsed ? life - o->elapsed : 0;
		/* stolen time is no state of the thread's accounting (life) */
		outside += th ? th->tot[XLP_C_CPU_STEAL] : 0;
		diff = span > o->elapsed ? span - o->elapsed : o->elapsed - span;
		CHECK(diff <= outside + o->elapsed / 100,
		      "launch %zu: latency %llu ns, the command measured %llu ns (exec to its "
		      "first instruction %lld ns, its last clock reading to exit %lld ns, "
		      "waiting for a CPU %llu ns, accounted %llu ns, asleep %llu + %llu ns, on a "
		      "CPU %llu ns, steal "
		      "%llu ns)",
		      i, span, o->elapsed, (long long)(o->entry - l->start_ns),
		      (long long)(l->end_ns - o->end), wait, life, th ? th->tot[XLP_C_SLEEP_S] : 0,
		      th ? th->tot[XLP_C_SLEEP_D] : 0, th ? th->tot[XLP_C_CPU_RUN] : 0,
		      th ? th->tot[XLP_C_CPU_STEAL] : 0);
		/* main's start-up is the command's: inside the window, not outside */
		CHECK(span >= o->end - o->main, "launch %zu: latency %llu ns < main's %llu ns", i,
		      span, o->end - o->main);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * The median time from a launch's exit to the next one's exec, in the
 * trace, less the next one's life before its exec (from the recorder's
 * fork: its thread's first event), which the machine's speed sets: what
 * the recorder took to notice the exit and fork again.
 */
static unsigned long long median_gap_ns(const struct xt_trace *t)
{
	unsigned long long g[64];
	size_t n = 0;

	for (size_t i = 1; i < t->nlaunches && n < 64; i++) {
		const struct xlp_thread_rec *th = xt_thread(t, t->launches[i].pid);
		uint64_t from = t->launches[i - 1].end_ns, to = t->launches[i].start_ns;

		if (th && th->first_ns > from && th->first_ns < to)
			to = th->first_ns;
		if (to > from)
			g[n++] = to - from;
	}
	if (!n)
		return 0;
	qsort(g, n, sizeof(g[0]), cmp_u64);
	return g[n / 2];
}

/*
 * record(), then every launch passes check_launches(); with max_gap_ns,
 * the median time between one launch's exit and the next one's exec is
 * below it too.
 */
static void record_and_check(const char *name, int repeat, bool sleep_mode, const char *dur,
			     unsigned long long max_gap_ns)
{
	struct rec_result *res = calloc(1, sizeof(*res));

	REQUIRE(res);
	record(name, repeat, sleep_mode, dur, res);
	CHECK(res->rc == 0, "xlprobe exit %d: %s", res->rc, res->err);
	if (res->loaded && max_gap_ns) {
		unsigned long long gap = median_gap_ns(&res->t);

		fprintf(stderr,
			"  median %llu us from a launch's exit to the next fork (%llu ms in all)\n",
			gap / 1000, res->wall_ms);
		CHECK(gap < max_gap_ns,
		      "%d launches of a %s command: a median %llu us from one's exit to the next "
		      "fork",
		      repeat, dur, gap / 1000);
	}
	if (res->loaded) {
		check_launches(res, repeat);
		xt_trace_free(&res->t);
	}
	CHECK(res->loaded, "no trace");
	free(res);
}

/* The acceptance: a 5 ms command, busy on the CPU. */
TEST(launch_latency_is_the_commands_own_5ms)
{
	record_and_check("busy5.xlp", 5, false, "5ms", 0);
}

/* ... and a 300 ms one, asleep: its exit is noticed without polling. */
TEST(launch_latency_is_the_commands_own_300ms)
{
	record_and_check("sleep300.xlp", 5, true, "300ms", 0);
}

/*
 * The recorder notices each exit at once (the launch's pidfd wakes its
 * poll), rather than at its next 100 ms poll timeout (user/record/record.c
 * run_loop): the next launch's fork follows an exit by far less than that
 * period, whatever the machine's speed (the bound is a quarter of the
 * recorder's own period; the new process's fork and exec, 1.5-12 ms on a
 * loaded VM, are left out of the gap, and the whole run's time, the BPF
 * programs' load and verification included, is not the question: it grew
 * from 0.12 to 2.2 s with the programs and on slower machines).
 */
TEST(repeat_20_short_launches_follow_each_other)
{
	record_and_check("short20.xlp", 20, false, "1ms", POLL_PERIOD_NS / 4);
}

/*
 * Without the kernel's exec event (its program hidden, as on a kernel that
 * lacks the tracepoint) a launch starts at its release: flagged in the
 * record, counted in the footer, said on stderr and in the report.
 */
TEST(launch_without_exec_event_is_flagged_and_counted)
{
	struct rec_result *res = calloc(1, sizeof(*res));
	char xl[256], trace[256], out[16384];
	char *argv[] = {xt_out("xlprobe", xl, sizeof(xl)), "report", trace, NULL};
	const struct xt_trace *t = &res->t;
	int rc;

	REQUIRE(res);
	/* a hook of the test build (user/testhooks.h) */
	record_bin = "xlprobe-test";
	setenv("XLPROBE_TEST_HIDE_TP", "sched_process_exec", 1);
	record("noexec.xlp", 3, false, "5ms", res);
	unsetenv("XLPROBE_TEST_HIDE_TP");
	record_bin = "xlprobe";
	CHECK(res->rc == 0, "xlprobe exit %d: %s", res->rc, res->err);
	CHECK(strstr(res->err, "3 of 3 launch(es) lack the kernel's exec or exit time"),
	      "no warning: %s", res->err);
	REQUIRE(res->loaded, "no trace");
	CHECK(strstr(t->meta->notes, "sched_process_exec absent"), "notes: %s", t->meta->notes);
	CHECK(t->footer && t->footer->stat[XLP_S_LAUNCH_UNTIMED] == 3, "counted %llu",
	      t->footer ? (unsigned long long)t->footer->stat[XLP_S_LAUNCH_UNTIMED] : 0);
	CHECK(t->nlaunches == 3, "%zu launch records", t->nlaunches);
	for (size_t i = 0; i < t->nlaunches; i++) {
		const struct xlp_launch_rec *l = &t->launches[i];
		const struct own *o = own_of(res->own, res->nown, l->pid);

		CHECK(l->flags == XLP_LAUNCH_EXIT_TIME, "launch %zu flags 0x%x", i, l->flags);
		/* the release comes before the exec, hence before the command */
		CHECK(o && l->start_ns < o->entry && l->end_ns >= o->end, "launch %zu window", i);
	}
	xt_trace_free(&res->t);
	snprintf(trace, sizeof(trace), "%s/noexec.xlp", xt_tmpdir());
	rc = xt_run(argv, 30000, out, sizeof(out), NULL, 0);
	CHECK(rc == 0, "report exit %d", rc);
	CHECK(strstr(out, "launch_untimed 3: launches timed by xlprobe, not the kernel"),
	      "report: %s", out);
	free(res);
}

TEST_MAIN()
