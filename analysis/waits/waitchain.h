/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Wait chains (issue 22, "Follow the wait"; the wait-for graph of wPerf,
 * OSDI'18, and Perfetto's critical path): from the scheduling events of a
 * record --timeline trace, every off-CPU interval (a wait) of a run's
 * thread inside the run's window, cut into pieces charged to what held it
 * up. The rules (docs/analysis.md, "Wait chains"):
 *   - the part after the thread's wakeup (or after a preemption) is its
 *     own runqueue wait: cpu_wait of the thread itself;
 *   - its sleep is charged to the thread that woke it, over the sleep,
 *     by that thread's own state at each moment: on a CPU (ran), runnable
 *     (its cpu_wait), asleep (followed into what woke it, over the part of
 *     the window it slept: each hop a sub-window of the one before);
 *   - a wakeup from interrupt context (waker tid 0: hard or soft irq,
 *     hrtimer, the idle task) ends the chain at the device or timer the
 *     sleep's reason names, never at the interrupted task;
 *   - a waker without events over a piece (not on the timeline yet, or
 *     never) is "untraced"; an asleep waker whose wakeup names no waker
 *     (an untraced thread's wakeups do not) ends the chain "asleep";
 *   - a thread already on the chain ends it as a cycle, a chain deeper
 *     than max_depth ends it as such: reported, never looped.
 * The pieces of a wait add up to the wait exactly (integer ns).
 */
#ifndef XLP_WAITCHAIN_H
#define XLP_WAITCHAIN_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"

#define WAITCHAIN_MAX_DEPTH 8

enum waitchain_state {
	WAITCHAIN_RAN = 0,  /* the blocker was on a CPU */
	WAITCHAIN_CPU_WAIT, /* the blocker was runnable, on a runqueue */
	WAITCHAIN_DEVICE,   /* woken from interrupt context: reason names it; no blocker thread */
	WAITCHAIN_ASLEEP,   /* the blocker slept, and no record says what woke it */
	WAITCHAIN_UNTRACED, /* the blocker has no timeline events over the piece */
	WAITCHAIN_CYCLE,    /* the blocker is already on the chain (lost or inconsistent events) */
	WAITCHAIN_DEPTH, /* the blocker slept, max_depth hops from the run's thread: not followed */
	WAITCHAIN_NSTATES,
};

/* "ran", "cpu_wait", "device", "asleep", "untraced", "cycle", "depth_limit" */
const char *waitchain__state_name(enum waitchain_state s);

struct waitchain_piece {
	uint64_t start_ns, ns;
	uint32_t tid;	      /* the waiting thread: the run's */
	uint32_t waker_tid;   /* what ended its sleep (the first hop); 0: interrupt, or depth 0 */
	uint32_t blocker_pid; /* the thread the time is charged to; 0 for WAITCHAIN_DEVICE */
	uint32_t blocker_tid;
	uint16_t state;	 /* enum waitchain_state */
	uint16_t reason; /* enum xlp_ctr of the sleep that ended the chain (DEVICE, ASLEEP,
			  * DEPTH); 0 otherwise or unknown */
	uint16_t depth;	 /* hops: 0 the waiting thread itself, 1 its waker... */
	/* WAITCHAIN_RAN: the dataset function of the blocker's deepest marked call
	 * enclosing all of the piece; DATASET_NO_FUNC: none */
	uint32_t func;
	char comm[XLP_COMM_LEN];       /* the blocker's name, "" when unknown */
	char waker_comm[XLP_COMM_LEN]; /* waker_tid's */
};

struct waitchain_wait {
	uint64_t start_ns, end_ns; /* off the CPU, clipped to the run's window */
	uint32_t first, n;	   /* its pieces: waitchain__piece(run, first .. first + n) */
};

struct waitchain_info {
	uint64_t events;  /* scheduling events read */
	uint64_t skipped; /* of an unknown kind: not used */
	uint64_t threads; /* with events */
	uint64_t waits, pieces;
	uint64_t cycles;     /* pieces ended as a cycle */
	uint64_t depth_cuts; /* pieces ended at the depth limit */
	uint64_t unknown_ns; /* runs' threads in no known state (lost events): no wait */
};

struct waitchain_opts {
	unsigned max_depth; /* 0: WAITCHAIN_MAX_DEPTH */
};

struct waitchain;

/*
 * The chains of every run of ds (a launch has no run thread: none). Needs
 * XLP_FEAT_TIMELINE in every file: -ENODATA otherwise. Negative errno and
 * a one-line "cause: fix" message in err on error.
 */
int waitchain__build(const struct dataset *ds, const struct waitchain_opts *o,
		     struct waitchain **out, char *err, size_t errlen);
void waitchain__free(struct waitchain *wc); /* accepts NULL */
const struct waitchain_info *waitchain__info(const struct waitchain *wc);
size_t waitchain__nwaits(const struct waitchain *wc, size_t run);
const struct waitchain_wait *waitchain__wait(const struct waitchain *wc, size_t run, size_t i);
size_t waitchain__npieces(const struct waitchain *wc, size_t run);
const struct waitchain_piece *waitchain__piece(const struct waitchain *wc, size_t run, size_t i);

/*
 * The pieces of every run summed per (first hop, blocker, state, reason,
 * self, function): one thread's. When several threads' blockers differ
 * only by the threads (by their names, first hop and blocker alike: a lock
 * held by another client's backend, a new one each time), they are also
 * summed together, as a group of `threads` blockers: its tids are one
 * member's, for the text's "through" rule only.
 */
struct waitchain_blocker {
	uint32_t waker_tid, blocker_pid, blocker_tid;
	uint32_t threads; /* 1: one thread's; more: a group of that many blockers by name */
	uint16_t state, reason;
	bool self;     /* the waiting thread itself (depth 0) */
	uint32_t func; /* as waitchain_piece's */
	char comm[XLP_COMM_LEN], waker_comm[XLP_COMM_LEN];
	double slow_ns, fast_ns;       /* summed over the slow / the fast runs */
	uint32_t slow_runs, fast_runs; /* runs with such a piece */
};

/*
 * slow: per run, non-zero when slow. *out (malloc'd, the caller frees it)
 * sorted by slow_ns then fast_ns, highest first; *n entries, the groups
 * among them.
 */
int waitchain__blockers(const struct waitchain *wc, const uint8_t *slow,
			struct waitchain_blocker **out, size_t *n);

/* Is piece p one of blocker b's (b a thread's, or a group's)? */
bool waitchain__piece_of(const struct waitchain_piece *p, const struct waitchain_blocker *b);
/* Is one thread's blocker b a member of group g? */
bool waitchain__member_of(const struct waitchain_blocker *b, const struct waitchain_blocker *g);

#endif
