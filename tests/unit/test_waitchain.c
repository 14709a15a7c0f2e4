/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * analysis/waits/waitchain.c on hand-written timelines (tests/lib/wcsynth.h):
 * one test per rule of docs/analysis.md, "Wait chains" (a recursive chain,
 * an interrupt waker, a cycle, a runnable waker, an untraced waker, the
 * depth limit) and time conserved on random timelines. The reports of the
 * chains are in test_waitchain_report.c.
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
 * A sleeps from 1 to 11 ms until B wakes it. B ran [0.5, 3) inside parse
 * [0.8, 3.2), itself in load_index [0.2, 11.5); slept on a timer to 5 ms;
 * ran [5, 12) in load_index but out of parse. B's CPU time is named by
 * the deepest marked call holding all of each piece: parse, then
 * load_index; the blockers are summed per function.
 */
TEST(ran_in_function_synthetic)
{
	static const struct ev ev[] = {
		IN(A, 0),
		IN(B, 0.5),
		OUT_S(A, 1),
		OUT_S(B, 3),
		WAKE(B, 0, XLP_C_TIMER, 5),
		IN(B, 5),
		WAKE(A, B, XLP_C_IPC, 11),
		IN(A, 11),
		OUT_S(B, 12),
	};
	static const struct call calls[] = {
		{F_PARSE, B, 1, 0.8, 2.4},
		{F_LOAD, B, 0, 0.2, 11.3},
	};
	static const struct run runs[] = {{0, MS(20)}};
	static const struct want want[] = {
		{B, WAITCHAIN_RAN, 0, 1, 1, 2},
		{0, WAITCHAIN_DEVICE, XLP_C_TIMER, 2, 3, 2},
		{B, WAITCHAIN_RAN, 0, 1, 5, 6},
	};
	struct waitchain_blocker *b = NULL;
	uint8_t slow[1] = {1};
	struct dataset *ds;
	struct waitchain *wc;
	size_t nb = 0;
	int load, parse;

	wcs_xcalls = calls;
	wcs_nxcalls = 2;
	wc = wcs_chains("func.xlp", ev, sizeof(ev) / sizeof(*ev), NULL, 0, runs, 1, 0, &ds);
	if (!wc)
		goto cleanup;
	wcs_check_pieces(wc, 0, want, 3);
	load = tds_func(ds, "load_index");
	parse = tds_func(ds, "parse");
	REQUIRE(load >= 0 && parse >= 0, "functions %d %d", load, parse);
	CHECK(waitchain__piece(wc, 0, 0)->func == (uint32_t)parse, "first: %u",
	      waitchain__piece(wc, 0, 0)->func);
	CHECK(waitchain__piece(wc, 0, 1)->func == DATASET_NO_FUNC, "device: %u",
	      waitchain__piece(wc, 0, 1)->func);
	CHECK(waitchain__piece(wc, 0, 2)->func == (uint32_t)load, "last: %u",
	      waitchain__piece(wc, 0, 2)->func);
	REQUIRE(!waitchain__blockers(wc, slow, &b, &nb), "blockers");
	CHECK(nb == 3 && b[0].func == (uint32_t)load && b[0].slow_ns == MS(6), "%zu blockers", nb);
	wcs_check_conserved(wc, 1);
cleanup:
	free(b);
	waitchain__free(wc);
	dataset__free(ds);
}

/*
 * A hands work to B and sleeps; B was asleep on the disk (its request
 * completes in interrupt context at 19 ms), then waits 1 ms for a CPU,
 * runs 1 ms and wakes A, which waits 1 ms for a CPU. The 21 ms wait is
 * 18 ms of disk through B, B's cpu_wait, B on a CPU, A's own cpu_wait.
 */
/* One wait, its first three pieces through B, named as its thread record says. */
static void through_b(const struct waitchain *wc)
{
	CHECK(waitchain__nwaits(wc, 0) == 1, "%zu waits", waitchain__nwaits(wc, 0));
	for (size_t i = 0; i < 3; i++)
		CHECK(waitchain__piece(wc, 0, i)->waker_tid == B, "piece %zu: not through B", i);
	CHECK(!strcmp(waitchain__piece(wc, 0, 1)->comm, "pool-1"), "B named %s",
	      waitchain__piece(wc, 0, 1)->comm);
}

TEST(recursive_chain_synthetic)
{
	static const struct ev ev[] = {
		IN(A, 0),
		OUT_D(B, 0.5),
		OUT_S(A, 1),
		{XLP_SCHED_BLOCK_ISSUE, B, 4096, 0, MS(0.6)},
		{XLP_SCHED_BLOCK_DONE, B, 4096, 0, MS(19)},
		WAKE(B, 0, XLP_C_DISK, 19),
		IN(B, 20),
		WAKE(A, B, XLP_C_IPC, 21),
		OUT_S(B, 21.5),
		IN(A, 22),
		OUT_S(A, 30),
	};
	static const struct name nm[] = {{10, A, "app", false}, {10, B, "pool-1", false}};
	static const struct run runs[] = {{0, MS(25)}};
	static const struct want want[] = {
		{0, WAITCHAIN_DEVICE, XLP_C_DISK, 2, 1, 18},
		{B, WAITCHAIN_CPU_WAIT, 0, 1, 19, 1},
		{B, WAITCHAIN_RAN, 0, 1, 20, 1},
		{A, WAITCHAIN_CPU_WAIT, 0, 0, 21, 1},
	};

	wcs_scenario(&(struct wcs_scenario){"rec.xlp",
					    WCS_ARR(ev),
					    WCS_ARR(nm),
					    WCS_ARR(runs),
					    {{WCS_ARR(want)}},
					    1,
					    through_b});
}

/*
 * A sleeps twice, woken from interrupt context (waker tid 0): a timer,
 * then a disk completion, while X runs on a CPU the whole time (the task
 * an interrupt would land on): the waits are the timer's and the disk's,
 * never X's.
 */
/* Two waits, the interrupts' own: X, on a CPU all along, blamed for none. */
static void never_x(const struct waitchain *wc)
{
	CHECK(waitchain__nwaits(wc, 0) == 2, "%zu waits", waitchain__nwaits(wc, 0));
	for (size_t i = 0; i < waitchain__npieces(wc, 0); i++)
		CHECK(waitchain__piece(wc, 0, i)->blocker_tid != X, "piece %zu blames X", i);
}

TEST(interrupt_waker_synthetic)
{
	static const struct ev ev[] = {
		IN(X, 0),
		IN(A, 0),
		OUT_S(A, 1),
		WAKE(A, 0, XLP_C_TIMER, 11),
		IN(A, 11),
		OUT_D(A, 12),
		WAKE(A, 0, XLP_C_DISK, 17),
		IN(A, 17.5),
		OUT_R(X, 30),
	};
	static const struct run runs[] = {{0, MS(20)}};
	static const struct want want[] = {
		{0, WAITCHAIN_DEVICE, XLP_C_TIMER, 1, 1, 10},
		{0, WAITCHAIN_DEVICE, XLP_C_DISK, 1, 12, 5},
		{A, WAITCHAIN_CPU_WAIT, 0, 0, 17, 0.5},
	};

	wcs_scenario(&(struct wcs_scenario){
		"irq.xlp", WCS_ARR(ev), NULL, 0, WCS_ARR(runs), {{WCS_ARR(want)}}, 1, never_x});
}

/*
 * Events that contradict each other (lost ones): run 1, A sleeps from 1
 * to 11, woken by B, whose own sleep (to 9) was ended by A; run 2, A woken
 * by B, B by C, C by B. The chain stops at the thread already on it, as a
 * cycle, and the time is still all there.
 */
static void two_cycles(const struct waitchain *wc)
{
	CHECK(waitchain__info(wc)->cycles == 2, "%llu cycles",
	      (unsigned long long)waitchain__info(wc)->cycles);
}

TEST(cycle_synthetic)
{
	static const struct ev ev[] = {
		/* run 1: [0, 20) */
		IN(A, 0),
		OUT_S(B, 0.5),
		OUT_S(A, 1),
		WAKE(B, A, XLP_C_IPC, 9),
		IN(B, 9),
		WAKE(A, B, XLP_C_IPC, 11),
		IN(A, 11.5),
		OUT_S(B, 12),
		/* run 2: [100, 120) */
		OUT_S(C, 100.5),
		OUT_S(A, 101),
		WAKE(C, B, XLP_C_LOCK, 104),
		IN(C, 104),
		OUT_S(C, 105),
		WAKE(B, C, XLP_C_LOCK, 106),
		IN(B, 106),
		WAKE(A, B, XLP_C_IPC, 108),
		IN(A, 108),
		OUT_S(B, 109),
	};
	static const struct run runs[] = {{0, MS(20)}, {MS(100), MS(20)}};
	static const struct want want1[] = {
		{A, WAITCHAIN_CYCLE, 0, 2, 1, 8},
		{B, WAITCHAIN_RAN, 0, 1, 9, 2},
		{A, WAITCHAIN_CPU_WAIT, 0, 0, 11, 0.5},
	};
	/* B slept from 12 on: over [101, 106) through C, which was asleep
	 * [100.5, 104) woken by B (on the chain), then ran [104, 105), asleep
	 * again [105, 106) until it woke B: the thread it ended is B */
	static const struct want want2[] = {
		{B, WAITCHAIN_CYCLE, 0, 3, 101, 3},
		{C, WAITCHAIN_RAN, 0, 2, 104, 1},
		{C, WAITCHAIN_ASLEEP, 0, 2, 105, 1},
		{B, WAITCHAIN_RAN, 0, 1, 106, 2},
	};

	wcs_scenario(&(struct wcs_scenario){"cycle.xlp",
					    WCS_ARR(ev),
					    NULL,
					    0,
					    WCS_ARR(runs),
					    {{WCS_ARR(want1)}, {WCS_ARR(want2)}},
					    2,
					    two_cycles});
}

/*
 * Four runs: A sleeps 10 ms until B wakes it. B was preempted before A
 * slept; in run 3 (the slow one) it waits 30 ms for a CPU, in the others
 * 2 ms. The slow run's wait is B's cpu_wait, and B's cpu_wait is what the
 * slow runs have more of than the fast ones.
 */
TEST(runnable_waker_synthetic)
{
	struct ev ev[64];
	struct run runs[4];
	size_t n = 0;
	struct waitchain_blocker *b = NULL;
	size_t nb = 0;
	uint8_t slow[4] = {0, 0, 0, 1};
	struct dataset *ds = NULL;
	struct waitchain *wc;

	for (int i = 0; i < 4; i++) {
		double t = 100.0 * i, q = i == 3 ? 30 : 2;

		runs[i] = (struct run){MS(t), MS(q + 10)};
		n = wcs_runnable(ev, n, t, q);
	}
	wc = wcs_chains("runnable.xlp", ev, n, NULL, 0, runs, 4, 0, &ds);
	if (!wc)
		goto cleanup;
	for (int i = 0; i < 4; i++) {
		double t = 100.0 * i, q = i == 3 ? 30 : 2;
		const struct want want[] = {
			{B, WAITCHAIN_CPU_WAIT, 0, 1, t + 1, q},
			{B, WAITCHAIN_RAN, 0, 1, t + 1 + q, 2},
		};

		wcs_check_pieces(wc, (size_t)i, want, 2);
	}
	wcs_check_conserved(wc, 4);
	REQUIRE(!waitchain__blockers(wc, slow, &b, &nb), "waitchain__blockers");
	REQUIRE(nb == 2, "%zu blockers", nb);
	CHECK(b[0].blocker_tid == B && b[0].state == WAITCHAIN_CPU_WAIT && b[0].waker_tid == B,
	      "top blocker: tid %u %s", b[0].blocker_tid, waitchain__state_name(b[0].state));
	CHECK(b[0].slow_ns == MS(30) && b[0].fast_ns == 3 * MS(2), "%.0f %.0f", b[0].slow_ns,
	      b[0].fast_ns);
	CHECK(b[0].slow_runs == 1 && b[0].fast_runs == 3, "%u %u", b[0].slow_runs, b[0].fast_runs);
	CHECK(b[1].state == WAITCHAIN_RAN && b[1].slow_ns == MS(2) && b[1].fast_ns == 3 * MS(2),
	      "second: %s %.0f %.0f", waitchain__state_name(b[1].state), b[1].slow_ns,
	      b[1].fast_ns);
cleanup:
	free(b);
	waitchain__free(wc);
	dataset__free(ds);
}

/*
 * Wakers without a full timeline. Run 1: a kworker (tid 50) the recorder
 * only named. Run 2: tid 51, on the timeline from 104 ms on (it woke a
 * traced thread then): unknown before, on a CPU after. Run 3: tid 52, a
 * named waker that slept; its wakeup names no waker (an untraced thread's
 * never does): the chain ends there, asleep.
 */
/* The first run's waker named by its task record, with its pid. */
static void kworker_named(const struct waitchain *wc)
{
	CHECK(!strcmp(waitchain__piece(wc, 0, 0)->comm, "kworker/0:1"), "named %s",
	      waitchain__piece(wc, 0, 0)->comm);
	CHECK(waitchain__piece(wc, 0, 0)->blocker_pid == 50, "pid %u",
	      waitchain__piece(wc, 0, 0)->blocker_pid);
}

TEST(untraced_waker_synthetic)
{
	static const struct ev ev[] = {
		IN(A, 0),
		OUT_S(A, 1),
		WAKE(A, 50, XLP_C_OTHER, 11),
		IN(A, 11),
		OUT_S(A, 101),
		IN(51, 104),
		WAKE(A, 51, XLP_C_IPC, 111),
		IN(A, 111),
		OUT_S(51, 112),
		OUT_S(52, 200),
		OUT_S(A, 201),
		WAKE(52, 0, 0, 205),
		IN(52, 205),
		WAKE(A, 52, XLP_C_IPC, 207),
		IN(A, 207),
		OUT_S(52, 208),
	};
	static const struct name nm[] = {
		{50, 50, "kworker/0:1", true}, {51, 51, "peer", true}, {52, 52, "other", true}};
	static const struct run runs[] = {{0, MS(20)}, {MS(100), MS(20)}, {MS(200), MS(20)}};
	static const struct want want1[] = {{50, WAITCHAIN_UNTRACED, 0, 1, 1, 10}};
	static const struct want want2[] = {
		{51, WAITCHAIN_UNTRACED, 0, 1, 101, 3},
		{51, WAITCHAIN_RAN, 0, 1, 104, 7},
	};
	static const struct want want3[] = {
		{52, WAITCHAIN_ASLEEP, 0, 1, 201, 4},
		{52, WAITCHAIN_RAN, 0, 1, 205, 2},
	};

	wcs_scenario(&(struct wcs_scenario){"untraced.xlp",
					    WCS_ARR(ev),
					    WCS_ARR(nm),
					    WCS_ARR(runs),
					    {{WCS_ARR(want1)}, {WCS_ARR(want2)}, {WCS_ARR(want3)}},
					    3,
					    kworker_named});
}

/*
 * A chain of 10 threads, each woken by the next one (tid 11 woken by 12
 * ... 19 by 20, which ran): with max_depth 3, A's wait ends at the third
 * waker's sleep, reported as the depth limit; with the default depth the
 * chain reaches 8 hops.
 */
TEST(depth_limit_synthetic)
{
	struct ev ev[64];
	size_t n = 0;
	static const struct run runs[] = {{0, MS(30)}};
	struct dataset *ds = NULL;
	struct waitchain *wc;

	ev[n++] = (struct ev)IN(A, 0);
	for (uint32_t k = 11; k <= 19; k++)
		ev[n++] = (struct ev)OUT_S(k, 0.5);
	ev[n++] = (struct ev)OUT_S(A, 1);
	ev[n++] = (struct ev)IN(20, 0.5);
	for (uint32_t k = 19; k >= 11; k--) { /* k woken by k + 1 at 20 - (k - 11) ms, runs */
		ev[n++] = (struct ev)WAKE(k, k + 1, XLP_C_IPC, 20 - (k - 11));
		ev[n++] = (struct ev)IN(k, 20 - (k - 11));
	}
	ev[n++] = (struct ev)WAKE(A, 11, XLP_C_IPC, 21);
	ev[n++] = (struct ev)IN(A, 21);
	wc = wcs_chains("depth.xlp", ev, n, NULL, 0, runs, 1, 3, &ds);
	if (!wc)
		goto cleanup;
	/* A <- 11 <- 12 <- 13 (asleep to 18 ms, not followed), each then on a CPU */
	{
		const struct want want[] = {
			{13, WAITCHAIN_DEPTH, XLP_C_IPC, 3, 1, 17},
			{13, WAITCHAIN_RAN, 0, 3, 18, 1},
			{12, WAITCHAIN_RAN, 0, 2, 19, 1},
			{11, WAITCHAIN_RAN, 0, 1, 20, 1},
		};

		wcs_check_pieces(wc, 0, want, 4);
	}
	CHECK(waitchain__info(wc)->depth_cuts == 1, "%llu",
	      (unsigned long long)waitchain__info(wc)->depth_cuts);
	wcs_check_conserved(wc, 1);
	waitchain__free(wc);
	dataset__free(ds);
	wc = wcs_chains("depth8.xlp", ev, n, NULL, 0, runs, 1, 0, &ds);
	if (!wc)
		goto cleanup;
	CHECK(waitchain__piece(wc, 0, 0)->depth == WAITCHAIN_MAX_DEPTH &&
		      waitchain__piece(wc, 0, 0)->state == WAITCHAIN_DEPTH,
	      "first piece: depth %u %s", waitchain__piece(wc, 0, 0)->depth,
	      waitchain__state_name(waitchain__piece(wc, 0, 0)->state));
	wcs_check_conserved(wc, 1);
cleanup:
	waitchain__free(wc);
	dataset__free(ds);
}

/*
 * Random timelines: A switches in and out regularly (its waits known
 * from its events alone), five other threads (one never on the timeline)
 * switch and wake each other at random, consistently or not. For every
 * run, the waits are exactly A's off-CPU time in the window, and every
 * wait's pieces tile it.
 */
TEST(time_conserved_synthetic)
{
	enum { NEV = 4000, NRUNS = 40 };
	struct ev *ev = calloc(NEV, sizeof(*ev));
	struct run runs[NRUNS];
	uint64_t seed = 22, at[6] = {0};
	uint16_t st[6] = {0};
	size_t n = 0;
	struct dataset *ds = NULL;
	struct waitchain *wc = NULL;
	uint64_t total = 0;

	REQUIRE(ev, "calloc");
	/* A: in, then out (asleep or preempted) and back in, 40 us - 1 ms each */
	for (uint64_t t = 0; n < NEV / 4;) {
		bool sleep = tl_rnd01(&seed) < 0.7;
		uint64_t on = 40000 + (uint64_t)(tl_rnd01(&seed) * 1e6);
		uint64_t off = 40000 + (uint64_t)(tl_rnd01(&seed) * 1e6);

		ev[n++] = (struct ev){XLP_SCHED_IN, A, 0, 0, t};
		t += on;
		ev[n++] = (struct ev){XLP_SCHED_OUT, A, 0,
				      sleep ? XLP_SCHED_SLEEP_S : XLP_SCHED_RUNNABLE, t};
		if (sleep) {
			uint32_t by = (uint32_t)(tl_rnd01(&seed) * 7); /* 0..6: 0 irq */

			ev[n++] = (struct ev){XLP_SCHED_WAKEUP, A, by ? 10 + by : 0, XLP_C_IPC,
					      t + off / 2};
		}
		t += off;
	}
	/* B..15 (16 never appears): random events in random order of time */
	while (n < NEV) {
		uint32_t k = 1 + (uint32_t)(tl_rnd01(&seed) * 5), tid = 10 + k;
		double u = tl_rnd01(&seed);

		at[k] += 1000 + (uint64_t)(tl_rnd01(&seed) * 500000);
		if (u < 0.3)
			ev[n++] = (struct ev){XLP_SCHED_IN, tid, 0, 0, at[k]};
		else if (u < 0.6)
			ev[n++] = (struct ev){XLP_SCHED_OUT, tid, 0,
					      st[k]++ % 3 ? XLP_SCHED_SLEEP_D : XLP_SCHED_RUNNABLE,
					      at[k]};
		else
			ev[n++] = (struct ev){XLP_SCHED_WAKEUP, tid,
					      (uint32_t)(tl_rnd01(&seed) * 7) + 10, XLP_C_LOCK,
					      at[k]};
	}
	for (size_t r = 0; r < NRUNS; r++)
		runs[r] = (struct run){r * MS(5) + 12345, MS(3) + r * 777};
	wc = wcs_chains("random.xlp", ev, n, NULL, 0, runs, NRUNS, 0, &ds);
	if (!wc)
		goto cleanup;
	wcs_check_conserved(wc, NRUNS);
	for (size_t r = 0; r < NRUNS; r++) {
		uint64_t lo = T0 + runs[r].start, hi = lo + runs[r].dur, off = 0, waits = 0;
		uint64_t out = 0;
		bool is_out = false;

		/* A's off-CPU time in the window, from its own events only */
		for (size_t i = 0; i < n; i++) {
			uint64_t t = T0 + ev[i].t;

			if (ev[i].tid != A || ev[i].kind == XLP_SCHED_WAKEUP)
				continue;
			if (ev[i].kind == XLP_SCHED_OUT) {
				out = t;
				is_out = true;
			} else if (is_out) {
				uint64_t x = out > lo ? out : lo, y = t < hi ? t : hi;

				off += y > x ? y - x : 0;
				is_out = false;
			}
		}
		for (size_t i = 0; i < waitchain__nwaits(wc, r); i++)
			waits += waitchain__wait(wc, r, i)->end_ns -
				 waitchain__wait(wc, r, i)->start_ns;
		CHECK(waits == off, "run %zu: waits %llu ns, A off the CPU %llu ns", r,
		      (unsigned long long)waits, (unsigned long long)off);
		total += off;
	}
	/* the test means something: A was off the CPU in the runs, through chains */
	CHECK(total > 0, "no wait at all");
	CHECK(waitchain__info(wc)->pieces > waitchain__info(wc)->waits, "%llu pieces, %llu waits",
	      (unsigned long long)waitchain__info(wc)->pieces,
	      (unsigned long long)waitchain__info(wc)->waits);
cleanup:
	free(ev);
	waitchain__free(wc);
	dataset__free(ds);
}

/* A trace without --timeline: the one-line cause and fix, -ENODATA. */
TEST(no_timeline)
{
	static const struct run runs[] = {{0, MS(10)}};
	const char *path = xt_tmp_path("notl.xlp");
	struct waitchain *wc = NULL;
	struct dataset *ds = NULL;
	char err[512] = "";
	int ret;

	REQUIRE(!wcs_write_trace(path, XLP_FEAT_SCHED, NULL, 0, NULL, 0, runs, 1), "write");
	ds = tds_load(path);
	REQUIRE(ds, "load");
	ret = waitchain__build(ds, NULL, &wc, err, sizeof(err));
	CHECK(ret == -ENODATA && !wc, "%d", ret);
	CHECK(strstr(err, "--timeline"), "message: %s", err);
	dataset__free(ds);
}

TEST_MAIN()
