/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Hand-written timelines for the wait-chain tests (wcsynth.h). */
#include <errno.h>
#include <string.h>
#include "testlib.h"
#include "testds.h"
#include "wcsynth.h"
#include "xlptest.h"

const struct synth_func wcs_funcs[3] = {
	{"/usr/bin/app", "on_click", true},
	{"/usr/bin/app", "load_index", false},
	{"/usr/bin/app", "parse", false},
};

const struct call *wcs_xcalls; /* written by wcs_write_trace_ctr, then reset */
size_t wcs_nxcalls;

uint32_t wcs_pid_of(uint32_t tid)
{
	return tid < 20 ? 10 : tid;
}

/*
 * Opens a trace of the three wcs_funcs at path with the threads' names and the
 * events; *s stays NULL when it cannot be opened.
 */
int wcs_open_timeline(const char *path, uint32_t features, const struct ev *ev, size_t nev,
		      const struct name *nm, size_t nnm, struct synth **s)
{
	uint64_t c[XLP_NR_CTR] = {0};
	int err = synth__open(path, features, 0, wcs_funcs, 3, s);

	if (err)
		return err;
	for (size_t i = 0; i < nnm; i++)
		err |= nm[i].task ? synth__task(*s, nm[i].pid, nm[i].tid, nm[i].comm)
				  : synth__thread(*s, nm[i].pid, nm[i].tid, 0, nm[i].comm, c);
	for (size_t i = 0; i < nev; i++)
		err |= synth__sched(*s, ev[i].kind, wcs_pid_of(ev[i].tid), ev[i].tid, ev[i].arg,
				    ev[i].detail, T0 + ev[i].t);
	return err;
}

/* wcsynth.h: A runs, B runnable behind it, then B wakes A (IPC) */
size_t wcs_runnable(struct ev *ev, size_t n, double t, double q)
{
	ev[n++] = (struct ev)IN(A, t);
	ev[n++] = (struct ev)OUT_R(B, t + 0.5);
	ev[n++] = (struct ev)OUT_S(A, t + 1);
	ev[n++] = (struct ev)IN(B, t + 1 + q);
	ev[n++] = (struct ev)WAKE(A, B, XLP_C_IPC, t + 3 + q);
	ev[n++] = (struct ev)IN(A, t + 3 + q);
	ev[n++] = (struct ev)OUT_S(B, t + 4 + q);
	return n;
}

/*
 * One run of A handing work to pool-1 (B) at t (ms): A wakes B and sleeps,
 * B reads the disk from t + disk_at for d ms (not when d is 0), wakes A at
 * done and sleeps at b_sleeps. Appends the events at ev[n]; returns the new n.
 */
size_t wcs_handoff(struct ev *ev, size_t n, double t, double disk_at, double d, double done,
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
int wcs_click_load(struct synth *s, double t, double li_at, const struct synth_usage *li,
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
int wcs_write_trace_ctr(const char *path, uint32_t features, const struct ev *ev, size_t nev,
			const struct name *nm, size_t nnm, const struct run *runs, size_t nruns,
			const uint64_t *ctr)
{
	uint64_t c[XLP_NR_CTR] = {0};
	struct synth *s = NULL;
	int err = wcs_open_timeline(path, features, ev, nev, nm, nnm, &s);

	if (!s)
		return err;
	for (size_t i = 0; i < nruns; i++) {
		if (ctr)
			memcpy(c, ctr + i * XLP_NR_CTR, sizeof(c));
		c[XLP_C_WALL] = runs[i].dur;
		err |= synth__call(s, F_CLICK, 10, A, 0, T0 + runs[i].start, c, NULL, 0, NULL);
	}
	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < wcs_nxcalls; i++) {
		c[XLP_C_WALL] = MS(wcs_xcalls[i].dur);
		err |= synth__call(s, wcs_xcalls[i].func, wcs_pid_of(wcs_xcalls[i].tid),
				   wcs_xcalls[i].tid, wcs_xcalls[i].depth,
				   T0 + MS(wcs_xcalls[i].entry), c, NULL, 0, NULL);
	}
	wcs_xcalls = NULL;
	wcs_nxcalls = 0;
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}

int wcs_write_trace(const char *path, uint32_t features, const struct ev *ev, size_t nev,
		    const struct name *nm, size_t nnm, const struct run *runs, size_t nruns)
{
	return wcs_write_trace_ctr(path, features, ev, nev, nm, nnm, runs, nruns, NULL);
}

/* The chains of a trace written from the arrays; NULL (and a failed check) on error. */
struct waitchain *wcs_chains(const char *name, const struct ev *ev, size_t nev,
			     const struct name *nm, size_t nnm, const struct run *runs,
			     size_t nruns, unsigned max_depth, struct dataset **ds)
{
	const char *path = xt_tmp_path(name);
	struct waitchain_opts o = {.max_depth = max_depth};
	struct waitchain *wc = NULL;
	char err[512] = "";
	int ret;

	*ds = NULL;
	ret = wcs_write_trace(path, XLP_FEAT_SCHED | XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, ev, nev,
			      nm, nnm, runs, nruns);
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
void wcs_check_conserved(const struct waitchain *wc, size_t nruns)
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

void wcs_check_pieces(const struct waitchain *wc, size_t run, const struct want *want, size_t n)
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

void wcs_scenario(const struct wcs_scenario *s)
{
	struct dataset *ds;
	struct waitchain *wc =
		wcs_chains(s->name, s->ev, s->nev, s->nm, s->nnm, s->runs, s->nruns, 0, &ds);

	if (wc) {
		for (size_t i = 0; i < s->nwant; i++)
			wcs_check_pieces(wc, i, s->want[i].w, s->want[i].n);
		wcs_check_conserved(wc, s->nruns);
		if (s->check)
			s->check(wc);
	}
	waitchain__free(wc);
	dataset__free(ds);
}
