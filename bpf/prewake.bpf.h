/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A run starts when its thread was woken for it (record's prewake, on
 * unless --no-prewake). An event loop (nginx, redis) sleeps in epoll_wait
 * until a request arrives; when another task holds its CPU, it then waits
 * in the runqueue before its handler, the interaction function, begins:
 * the client waits, the handler's own window does not show it.
 *
 * The rule is a state, not a time: a thread woken from a sleep is armed
 * with its runqueue-wait total at the wakeup; the next marked function it
 * enters disarms it. When that entry is an interaction call that starts a
 * run, and the thread has not slept since (its sleep totals unchanged),
 * the runqueue wait since the wakeup, q, belongs to the run: its records
 * hold q in XLP_C_QUEUED, and in WALL and CPU_WAIT too, as if the wait had
 * been just before the entry (the run's start moves back by q, so that
 * start + latency is still its end). Only the wait, not the event loop's
 * own work between the switch-in and the entry (reading and parsing the
 * request, other ready events), which is no handler's and would change
 * every run's meaning. A marked call entered first (inside which the
 * interaction may be nested) disarms: the run's window would otherwise
 * begin before its parent's, whose exclusive time would go negative.
 */
#ifndef XLP_PREWAKE_BPF_H
#define XLP_PREWAKE_BPF_H

#include "xlprobe.bpf.h"

/* sched_wakeup of t, asleep before (state: its state then), at now. */
static __always_inline void prewake_arm(struct xlp_thread *t, __u32 state, __u64 now)
{
	if (!cfg_prewake ||
	    (state != XLP_T_SLEEP_S && state != XLP_T_SLEEP_D && state != XLP_T_UNKNOWN))
		return;
	t->pw.armed = 1;
	t->pw.at = now;
	t->pw.wait = t->acct.c[XLP_C_CPU_WAIT];
	t->pw.slept = t->acct.c[XLP_C_SLEEP_S] + t->acct.c[XLP_C_SLEEP_D];
}

/*
 * The entry of a run's interaction call, frame f, at now: its snapshot
 * (f->snap) and the run's process snapshot are taken. Moves both back by
 * the wait queued since the wakeup and counts it. The caller disarms.
 */
static __always_inline void prewake_begin(struct xlp_thread *t, struct xlp_proc *p,
					  struct xlp_frame *f, __u64 now)
{
	__u64 q;

	if (!t->pw.armed || t->acct.c[XLP_C_SLEEP_S] + t->acct.c[XLP_C_SLEEP_D] != t->pw.slept ||
	    t->acct.c[XLP_C_CPU_WAIT] <= t->pw.wait)
		return;
	q = t->acct.c[XLP_C_CPU_WAIT] - t->pw.wait;
	/* the kernel's figure within the span it was measured over */
	if (now <= t->pw.at)
		return;
	if (q > now - t->pw.at)
		q = now - t->pw.at;
	f->snap[XLP_C_WALL] -= q;
	f->snap[XLP_C_CPU_WAIT] -= q;
	t->calls.run_proc_snap[XLP_C_WALL] -= q;
	t->calls.run_proc_snap[XLP_C_CPU_WAIT] -= q;
	/* after both snapshots: their deltas hold it */
	ctr_add(t, p, XLP_C_QUEUED, q);
}

#endif
