/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Hand-written timelines for the wait-chain tests (tests/unit/test_waitchain*.c):
 * scheduling events, thread names, runs and other threads' marked calls
 * into a synthetic trace, and the checks every such test makes. Threads:
 * A = tid 10 (the runs' thread, pid 10), B = 11, C = 12 (pid 10), X = 13
 * (another thread on a CPU).
 */
#ifndef XLP_WCSYNTH_H
#define XLP_WCSYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dataset.h"
#include "synth.h"
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

enum { F_CLICK, F_LOAD, F_PARSE };

/* A marked call of another thread (in return order: callees first). */
struct call {
	uint32_t func, tid;
	uint16_t depth;
	double entry, dur; /* ms after T0 */
};

struct want {
	uint32_t blocker;
	enum waitchain_state state;
	uint16_t reason, depth;
	double start, ms; /* after T0 */
};

/* the three functions of every such trace: on_click (the interaction), load_index, parse */
extern const struct synth_func wcs_funcs[3];
/* other threads' calls for the next wcs_write_trace_ctr (it resets them) */
extern const struct call *wcs_xcalls;
extern size_t wcs_nxcalls;

uint32_t wcs_pid_of(uint32_t tid);

/*
 * Opens a trace of the three wcs_funcs at path with the threads' names and the
 * events; *s stays NULL when it cannot be opened.
 */
int wcs_open_timeline(const char *path, uint32_t features, const struct ev *ev, size_t nev,
		      const struct name *nm, size_t nnm, struct synth **s);

/*
 * One run of A handing work to pool-1 (B) at t (ms): A wakes B and sleeps,
 * B reads the disk from t + disk_at for d ms (not when d is 0), wakes A at
 * done and sleeps at b_sleeps. Appends the events at ev[n]; returns the new n.
 */
size_t wcs_handoff(struct ev *ev, size_t n, double t, double disk_at, double d, double done,
		   double b_sleeps);

/*
 * A runs at t (ms), B runnable behind it from t + 0.5, A sleeps at t + 1;
 * B runs q ms later, wakes A (IPC) 2 ms after that and sleeps 1 ms after
 * A is back on the CPU. Appends the events at ev[n]; returns the new n.
 */
size_t wcs_runnable(struct ev *ev, size_t n, double t, double q);

/*
 * One run of on_click at t (ms) calling load_index at li_at: their usage
 * and wall times (ms), the callee first as the recorder writes them.
 */
int wcs_click_load(struct synth *s, double t, double li_at, const struct synth_usage *li,
		   double li_wall, const struct synth_usage *run, double run_wall);

/* ctr: the runs' counters but their wall time; NULL for none. */
int wcs_write_trace_ctr(const char *path, uint32_t features, const struct ev *ev, size_t nev,
			const struct name *nm, size_t nnm, const struct run *runs, size_t nruns,
			const uint64_t *ctr);

int wcs_write_trace(const char *path, uint32_t features, const struct ev *ev, size_t nev,
		    const struct name *nm, size_t nnm, const struct run *runs, size_t nruns);

/* The chains of a trace written from the arrays; NULL (and a failed check) on error. */
struct waitchain *wcs_chains(const char *name, const struct ev *ev, size_t nev,
			     const struct name *nm, size_t nnm, const struct run *runs,
			     size_t nruns, unsigned max_depth, struct dataset **ds);

/* Every wait of every run: pieces contiguous, in order, adding up to the wait exactly. */
void wcs_check_conserved(const struct waitchain *wc, size_t nruns);

void wcs_check_pieces(const struct waitchain *wc, size_t run, const struct want *want, size_t n);

#define WCS_ARR(a) (a), sizeof(a) / sizeof(*(a))

/* The pieces one run's waits must be cut into, in order. */
struct wcs_run_want {
	const struct want *w;
	size_t n;
};

/*
 * A hand-written timeline and what its chains must be: the trace written
 * from ev, nm and runs (nm may be NULL), the first nwant runs' pieces as
 * want[] says, every wait of every run conserved, then check(wc) (NULL:
 * none) for what else the scenario shows. The chains and the dataset are
 * freed after.
 */
struct wcs_scenario {
	const char *name;
	const struct ev *ev;
	size_t nev;
	const struct name *nm;
	size_t nnm;
	const struct run *runs;
	size_t nruns;
	struct wcs_run_want want[4];
	size_t nwant;
	void (*check)(const struct waitchain *wc);
};
void wcs_scenario(const struct wcs_scenario *s);

#endif
