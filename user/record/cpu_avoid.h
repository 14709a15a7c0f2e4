/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder keeps off the CPUs its target is pinned to: a reader at
 * nice -20 that drains, unwinds and writes on the CPU of the thread it
 * measures takes that thread's CPU for milliseconds at a time, and the
 * recording then shows a cpu_wait the target would not have had.
 */
#ifndef XLP_CPU_AVOID_H
#define XLP_CPU_AVOID_H

#include <stdbool.h>
#include <sys/types.h>

struct cpu_avoid;

/* The recorder's own allowed CPUs, as at start; NULL on no memory. */
struct cpu_avoid *cpu_avoid__new(void);
void cpu_avoid__free(struct cpu_avoid *a);

/*
 * A thread that ran the interaction or a marked function: its CPUs are the
 * ones to keep off (an event loop pinned to one CPU beside helper threads
 * on the others; a pool thread doing a run's work).
 */
bool cpu_avoid__note_tid(struct cpu_avoid *a, pid_t tid); /* true: a new one */

/*
 * Read the affinity of the threads that ran the interaction or a marked
 * function (of every thread of pid, -p's or the launched command's, until
 * one did, or when more than 64 did); when together
 * they leave some of the recorder's CPUs free, run the recorder on those
 * only, otherwise on all of its CPUs again. 1 when the recorder's CPUs changed, 0 when
 * not, negative errno when pid's threads cannot be read.
 */
int cpu_avoid__update(struct cpu_avoid *a, pid_t pid);

/* The CPUs the recorder keeps off now (0: none), for the logs. */
int cpu_avoid__count(const struct cpu_avoid *a);

#endif
