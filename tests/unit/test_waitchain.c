/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * analysis/waits/waitchain.c on hand-written timelines: one test per rule of
 * docs/analysis.md, "Wait chains" (a recursive chain, an interrupt waker, a cycle,
 * a runnable waker, an untraced waker, the depth limit) and time conserved
 * on random timelines. Threads: A = tid 10 (the runs' thread, pid 10),
 * B = 11, C = 12 (pid 10), X = 13 (another thread on a CPU).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include "testlib.h"
#include "dataset.h"
#include "json.h"
#include "synth.h"
#include "testds.h"
#include "waitchain.h"

#define T0 2000000000ull /* the first run's start */
#define MS(x) ((uint64_t)((x)*1000000.0))
#define A 10
#define B 11
#define C 12
#define X 13

struct ev {
	uint16_t kind;
	uint32_t tid, arg;
	uint16_t detail;
	uint64_t t; /* ns after T0 */
};

struct name {
	uint32_t pid, tid;
	const char *comm;
	bool task; /* an untraced waker's task record, else a thread record */
};

struct run {
	uint64_t start, dur; /* after T0 */
};

/* clang-format off */
#define OUT_S(tid, t) {XLP_SCHED_OUT, tid, 0, XLP_SCHED_SLEEP_S, MS(t)}
#define OUT_D(tid, t) {XLP_SCHED_OUT, tid, 0, XLP_SCHED_SLEEP_D, MS(t)}
#define OUT_R(tid, t) {XLP_SCHED_OUT, tid, 0, XLP_SCHED_RUNNABLE, MS(t)}
#define IN(tid, t) {XLP_SCHED_IN, tid, 0, 0, MS(t)}
#define WAKE(tid, by, why, t) {XLP_SCHED_WAKEUP, tid, by, why, MS(t)}
/* clang-format on */

static const struct synth_func funcs[] = {
	{"/usr/bin/app", "on_click", true},
	{"/usr/bin/app", "load_index", false},
	{"/usr/bin/app", "parse", false},
};

enum { F_CLICK, F_LOAD, F_PARSE };

/* A marked call of another thread (in return order: callees first). */
struct call {
	uint32_t func, tid;
	uint16_t depth;
	double entry, dur; /* ms after T0 */
};

static const struct call *xcalls; /* written by write_trace_ctr, then reset */
static size_t nxcalls;

static uint32_t pid_of(uint32_t tid)
{
	return tid < 20 ? 10 : tid;
}

/*
 * Opens a trace of the three funcs at path with the threads' names and the
 * events; *s stays NULL when it cannot be opened.
 */
static int open_timeline(const char *path, uint32_t features, const struct ev *ev, size_t nev,
			 const struct name *nm, size_t nnm, struct synth **s)
{
	uint64_t c[XLP_NR_CTR] = {0};
	int err = synth__open(path, features, 0, funcs, 3, s);

	if (err)
		return err;
	for (size_t i = 0; i < nnm; i++)
		err |= nm[i].task ? synth__task(*s, nm[i].pid, nm[i].tid, nm[i].comm)
				  : synth__thread(*s, nm[i].pid, nm[i].tid, 0, nm[i].comm, c);
	for (size_t i = 0; i < nev; i++)
		err |= synth__sched(*s, ev[i].kind, pid_of(ev[i].tid), ev[i].tid, ev[i].arg,
				    ev[i].detail, T0 + ev[i].t);
	return err;
}

/*
 * One run of A handing work to pool-1 (B) at t (ms): A wakes B and sleeps,
 * B reads the disk from t + disk_at for d ms (not when d is 0), wakes A at
 * done and sleeps at b_sleeps. Appends the events at ev[n]; returns the new n.
 */
static size_t handoff(struct ev *ev, size_t n, double t, double disk_at, double d, double done,
		      double b_sleeps)
{
	ev[n++] = (struct ev)IN(A, t);
	ev[n++] = (struct ev)WAKE(B, A, XLP_C_IPC, t + 0.9);
	ev[n++] = (struct ev)OUT_S(A, t + 1);
	ev[n++] = (struct ev)IN(B, t + 1);
	if (d) {
		ev[n++] = (struct ev)OUT_D(B, t + disk_at);
		ev[n++] = (struct ev)WAKE(B, 0, XLP_C_DISK, t + disk_at + d);
		ev[n++] = (struct ev)IN(B, t + disk_at + d);
	}
	ev[n++] = (struct ev)WAKE(A, B, XLP_C_IPC, done);
	ev[n++] = (struct ev)IN(A, done);
	ev[n++] = (struct ev)OUT_S(B, b_sleeps);
	return n;
}

/*
 * One run of on_click at t (ms) calling load_index at li_at: their usage
 * and wall times (ms), the callee first as the recorder writes them.
 */
static int click_load(struct synth *s, double t, double li_at, const struct synth_usage *li,
		      double li_wall, const struct synth_usage *run, double run_wall)
{
	uint64_t c[XLP_NR_CTR];
	int e;

	synth__counters(li, c);
	c[XLP_C_WALL] = MS(li_wall);
	e = synth__call(s, F_LOAD, 10, A, 1, T0 + MS(li_at), c, NULL, 0, NULL);
	synth__counters(run, c);
	c[XLP_C_WALL] = MS(run_wall);
	return e ? e : synth__call(s, F_CLICK, 10, A, 0, T0 + MS(t), c, NULL, 0, NULL);
}

/* ctr: the runs' counters but their wall time; NULL for none. */
static int write_trace_ctr(const char *path, uint32_t features, const struct ev *ev, size_t nev,
			   const struct name *nm, size_t nnm, const struct run *runs, size_t nruns,
			   const uint64_t *ctr)
{
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s = NULL;
	int err = open_timeline(path, features, ev, nev, nm, nnm, &s);

	if (!s)
		return err;
	for (size_t i = 0; i < nruns; i++) {
		if (ctr)
			memcpy(c, ctr + i * XLP_NR_CTR, sizeof(c));
		c[XLP_C_WALL] = runs[i].dur;
		err |= synth__call(s, F_CLICK, 10, A, 0, T0 + runs[i].start, c, NULL, 0, NULL);
	}
	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < nxcalls; i++) {
		c[XLP_C_WALL] = MS(xcalls[i].dur);
		err |= synth__call(s, xcalls[i].func, pid_of(xcalls[i].tid), xcalls[i].tid,
				   xcalls[i].depth, T0 + MS(xcalls[i].entry), c, NULL, 0, NULL);
	}
	xcalls = NULL;
	nxcalls = 0;
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}

static int write_trace(const char *path, uint32_t features, const struct ev *ev, size_t nev,
		       const struct name *nm, size_t nnm, const struct run *runs, size_t nruns)
{
	return write_trace_ctr(path, features, ev, nev, nm, nnm, runs, nruns, NULL);
}

/* The chains of a trace written from the arrays; NULL (and a failed check) on error. */
static struct waitchain *chains(const char *name, const struct ev *ev, size_t nev,
				const struct name *nm, size_t nnm, const struct run *runs,
				size_t nruns, unsigned max_depth, struct dataset **ds)
{
	const char *path = synth__tmp(name);
	struct waitchain_opts o = {.max_depth = max_depth};
	struct waitchain *wc = NULL;
	char err[512] = "";
	int ret;

	*ds = NULL;
	ret = write_trace(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, nev, nm,
			  nnm, runs, nruns);
	CHECK(!ret, "cannot write %s", path);
	if (ret)
		return NULL;
	*ds = tds_load(path);
	if (!*ds)
		return NULL;
	CHECK(dataset__nruns(*ds) == nruns, "%zu runs", dataset__nruns(*ds));
	ret = waitchain__build(*ds, &o, &wc, err, sizeof(err));
	CHECK(!ret && wc, "waitchain__build: %d %s", ret, err);
	return wc;
}

/* Every wait of every run: pieces contiguous, in order, adding up to the wait exactly. */
static void check_conserved(const struct waitchain *wc, size_t nruns)
{
	for (size_t r = 0; r < nruns; r++) {
		size_t used = 0;

		for (size_t i = 0; i < waitchain__nwaits(wc, r); i++) {
			const struct waitchain_wait *w = waitchain__wait(wc, r, i);
			uint64_t at = w->start_ns, sum = 0;

			CHECK(w->first == used, "run %zu wait %zu: first %u, not %zu", r, i,
			      w->first, used);
			for (size_t k = w->first; k < w->first + w->n; k++) {
				const struct waitchain_piece *p = waitchain__piece(wc, r, k);

				CHECK(p && p->start_ns == at, "run %zu wait %zu piece %zu: a gap",
				      r, i, k);
				if (!p)
					break;
				CHECK(p->ns > 0, "an empty piece");
				at = p->start_ns + p->ns;
				sum += p->ns;
			}
			CHECK(sum == w->end_ns - w->start_ns,
			      "run %zu wait %zu: pieces %llu ns, wait %llu ns", r, i,
			      (unsigned long long)sum,
			      (unsigned long long)(w->end_ns - w->start_ns));
			used += w->n;
		}
		CHECK(used == waitchain__npieces(wc, r), "run %zu: %zu pieces outside waits", r,
		      waitchain__npieces(wc, r) - used);
	}
}

struct want {
	uint32_t blocker;
	enum waitchain_state state;
	uint16_t reason, depth;
	double start, ms; /* after T0 */
};

static void check_pieces(const struct waitchain *wc, size_t run, const struct want *want, size_t n)
{
	CHECK(waitchain__npieces(wc, run) == n, "run %zu: %zu pieces, want %zu", run,
	      waitchain__npieces(wc, run), n);
	for (size_t i = 0; i < n && i < waitchain__npieces(wc, run); i++) {
		const struct waitchain_piece *p = waitchain__piece(wc, run, i);

		CHECK(p->blocker_tid == want[i].blocker && p->state == want[i].state &&
			      p->reason == want[i].reason && p->depth == want[i].depth &&
			      p->start_ns == T0 + MS(want[i].start) && p->ns == MS(want[i].ms),
		      "run %zu piece %zu: tid %u %s reason %u depth %u at %.3f ms, %.3f ms; want "
		      "tid %u %s reason %u depth %u at %.3f ms, %.3f ms",
		      run, i, p->blocker_tid, waitchain__state_name(p->state), p->reason, p->depth,
		      (double)(p->start_ns - T0) / 1e6, (double)p->ns / 1e6, want[i].blocker,
		      waitchain__state_name(want[i].state), want[i].reason, want[i].depth,
		      want[i].start, want[i].ms);
	}
}

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

	xcalls = calls;
	nxcalls = 2;
	wc = chains("func.xlp", ev, sizeof(ev) / sizeof(*ev), NULL, 0, runs, 1, 0, &ds);
	if (!wc)
		goto cleanup;
	check_pieces(wc, 0, want, 3);
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
	check_conserved(wc, 1);
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
	struct dataset *ds;
	struct waitchain *wc =
		chains("rec.xlp", ev, sizeof(ev) / sizeof(*ev), nm, 2, runs, 1, 0, &ds);

	if (!wc)
		goto cleanup;
	CHECK(waitchain__nwaits(wc, 0) == 1, "%zu waits", waitchain__nwaits(wc, 0));
	check_pieces(wc, 0, want, 4);
	for (size_t i = 0; i < 3; i++)
		CHECK(waitchain__piece(wc, 0, i)->waker_tid == B, "piece %zu: not through B", i);
	CHECK(!strcmp(waitchain__piece(wc, 0, 1)->comm, "pool-1"), "B named %s",
	      waitchain__piece(wc, 0, 1)->comm);
	check_conserved(wc, 1);
cleanup:
	waitchain__free(wc);
	dataset__free(ds);
}

/*
 * A sleeps twice, woken from interrupt context (waker tid 0): a timer,
 * then a disk completion, while X runs on a CPU the whole time (the task
 * an interrupt would land on): the waits are the timer's and the disk's,
 * never X's.
 */
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
	struct dataset *ds;
	struct waitchain *wc =
		chains("irq.xlp", ev, sizeof(ev) / sizeof(*ev), NULL, 0, runs, 1, 0, &ds);

	if (!wc)
		goto cleanup;
	CHECK(waitchain__nwaits(wc, 0) == 2, "%zu waits", waitchain__nwaits(wc, 0));
	check_pieces(wc, 0, want, 3);
	for (size_t i = 0; i < waitchain__npieces(wc, 0); i++)
		CHECK(waitchain__piece(wc, 0, i)->blocker_tid != X, "piece %zu blames X", i);
	check_conserved(wc, 1);
cleanup:
	waitchain__free(wc);
	dataset__free(ds);
}

/*
 * Events that contradict each other (lost ones): run 1, A sleeps from 1
 * to 11, woken by B, whose own sleep (to 9) was ended by A; run 2, A woken
 * by B, B by C, C by B. The chain stops at the thread already on it, as a
 * cycle, and the time is still all there.
 */
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
	struct dataset *ds;
	struct waitchain *wc =
		chains("cycle.xlp", ev, sizeof(ev) / sizeof(*ev), NULL, 0, runs, 2, 0, &ds);

	if (!wc)
		goto cleanup;
	check_pieces(wc, 0, want1, 3);
	check_pieces(wc, 1, want2, 4);
	CHECK(waitchain__info(wc)->cycles == 2, "%llu cycles",
	      (unsigned long long)waitchain__info(wc)->cycles);
	check_conserved(wc, 2);
cleanup:
	waitchain__free(wc);
	dataset__free(ds);
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
		ev[n++] = (struct ev)IN(A, t);
		ev[n++] = (struct ev)OUT_R(B, t + 0.5);
		ev[n++] = (struct ev)OUT_S(A, t + 1);
		ev[n++] = (struct ev)IN(B, t + 1 + q);
		ev[n++] = (struct ev)WAKE(A, B, XLP_C_IPC, t + 3 + q);
		ev[n++] = (struct ev)IN(A, t + 3 + q);
		ev[n++] = (struct ev)OUT_S(B, t + 4 + q);
	}
	wc = chains("runnable.xlp", ev, n, NULL, 0, runs, 4, 0, &ds);
	if (!wc)
		goto cleanup;
	for (int i = 0; i < 4; i++) {
		double t = 100.0 * i, q = i == 3 ? 30 : 2;
		const struct want want[] = {
			{B, WAITCHAIN_CPU_WAIT, 0, 1, t + 1, q},
			{B, WAITCHAIN_RAN, 0, 1, t + 1 + q, 2},
		};

		check_pieces(wc, (size_t)i, want, 2);
	}
	check_conserved(wc, 4);
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
	struct dataset *ds;
	struct waitchain *wc =
		chains("untraced.xlp", ev, sizeof(ev) / sizeof(*ev), nm, 3, runs, 3, 0, &ds);

	if (!wc)
		goto cleanup;
	check_pieces(wc, 0, want1, 1);
	check_pieces(wc, 1, want2, 2);
	check_pieces(wc, 2, want3, 2);
	CHECK(!strcmp(waitchain__piece(wc, 0, 0)->comm, "kworker/0:1"), "named %s",
	      waitchain__piece(wc, 0, 0)->comm);
	CHECK(waitchain__piece(wc, 0, 0)->blocker_pid == 50, "pid %u",
	      waitchain__piece(wc, 0, 0)->blocker_pid);
	check_conserved(wc, 3);
cleanup:
	waitchain__free(wc);
	dataset__free(ds);
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
	wc = chains("depth.xlp", ev, n, NULL, 0, runs, 1, 3, &ds);
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

		check_pieces(wc, 0, want, 4);
	}
	CHECK(waitchain__info(wc)->depth_cuts == 1, "%llu",
	      (unsigned long long)waitchain__info(wc)->depth_cuts);
	check_conserved(wc, 1);
	waitchain__free(wc);
	dataset__free(ds);
	wc = chains("depth8.xlp", ev, n, NULL, 0, runs, 1, 0, &ds);
	if (!wc)
		goto cleanup;
	CHECK(waitchain__piece(wc, 0, 0)->depth == WAITCHAIN_MAX_DEPTH &&
		      waitchain__piece(wc, 0, 0)->state == WAITCHAIN_DEPTH,
	      "first piece: depth %u %s", waitchain__piece(wc, 0, 0)->depth,
	      waitchain__state_name(waitchain__piece(wc, 0, 0)->state));
	check_conserved(wc, 1);
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
	wc = chains("random.xlp", ev, n, NULL, 0, runs, NRUNS, 0, &ds);
	if (!wc)
		goto cleanup;
	check_conserved(wc, NRUNS);
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
	const char *path = synth__tmp("notl.xlp");
	struct waitchain *wc = NULL;
	struct dataset *ds = NULL;
	char err[512] = "";
	int ret;

	REQUIRE(!write_trace(path, XLP_FEAT_SCHED, NULL, 0, NULL, 0, runs, 1), "write");
	ds = tds_load(path);
	REQUIRE(ds, "load");
	ret = waitchain__build(ds, NULL, &wc, err, sizeof(err));
	CHECK(ret == -ENODATA && !wc, "%d", ret);
	CHECK(strstr(err, "--timeline"), "message: %s", err);
	dataset__free(ds);
}

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
	const char *tl = synth__tmp("report-tl.xlp"), *notl = synth__tmp("report-notl.xlp");
	const char *js = synth__tmp("report-tl.json"), *js2 = synth__tmp("report-notl.json");
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
		n = handoff(ev, n, t, 2, d, t + 4 + d, t + 5 + d);
	}
	REQUIRE(!write_trace_ctr(tl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n,
				 nm, 2, runs, NRUNS, ctr),
		"write");
	REQUIRE(!write_trace_ctr(notl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS, ev, n, nm, 2, runs,
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
	const char *js = synth__tmp("report-of.json");

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
	const char *path = synth__tmp("blocker-fn.xlp");
	struct synth *s = NULL;
	char err[4096];
	struct json *j;
	size_t n = 0;
	int e;

	for (int i = 0; i < NRUNS; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;

		n = handoff(ev, n, t, 2, d, t + 4 + d, t + 5 + d);
	}
	e = open_timeline(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n, nm,
			  2, &s);
	for (int i = 0; i < NRUNS && !e; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;
		/* load_index: 0.5 ms of its own, then the wait (ipc) */
		struct synth_usage li = {.cpu_run = MS(0.5), .ipc = MS(3 + d)},
				   run = {.cpu_run = MS(1) + MS(6) + MS(0.5), .ipc = MS(3 + d)};

		e = click_load(s, t, t + 0.5, &li, 3.5 + d, &run, 10.5 + d);
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
	const char *path = synth__tmp("holders.xlp");
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
	e = open_timeline(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n, nm,
			  1 + NRUNS, &s);
	for (int i = 0; i < NRUNS && !e; i++) {
		double t = 100.0 * i, d = i % 4 == 3 ? 40 : 0;
		struct synth_usage li = {.cpu_run = MS(0.2), .ipc = MS(1 + d)},
				   run = {.cpu_run = MS(1) + MS(0.5), .ipc = MS(1 + d)};

		e = click_load(s, t, t + 0.8, &li, 1.2 + d, &run, 2.5 + d);
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
	const char *path = synth__tmp("tasks.xlp");
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
	const char *path = synth__tmp("keyed.xlp");
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
	const char *tl = synth__tmp("wait-answer.xlp");
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
		n = handoff(ev, n, t, 1.5, d, t + 1 + c + d, t + 1.1 + c + d);
	}
	REQUIRE(!write_trace_ctr(tl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n,
				 nm, 2, runs, NRUNS, ctr),
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
	const char *tl = synth__tmp(name);
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
	if (write_trace_ctr(tl, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, n, nm,
			    2, runs, NRUNS, ctr)) {
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

TEST_MAIN()
