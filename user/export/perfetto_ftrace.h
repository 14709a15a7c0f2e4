/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The scheduling half of export --perfetto: a --timeline trace's CPU
 * scheduling events (XLP_R_CPUSCHED, bpf/cpusched.bpf.c) and frequency
 * changes as Perfetto's own ftrace encoding (FtraceEventBundle per CPU:
 * sched_switch, sched_waking, task_newtask, cpu_frequency), with a
 * process tree of every task they name and the system info that tells
 * Perfetto how to read the kernel's prev_state. What Perfetto's CPU
 * tracks, thread_state table and critical path are built from.
 */
#ifndef XLP_PERFETTO_FTRACE_H
#define XLP_PERFETTO_FTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pbw.h"
#include "xlprobe.h"

struct perfetto_ftrace;

struct perfetto_ftrace *perfetto_ftrace__new(void);
void perfetto_ftrace__free(struct perfetto_ftrace *ft);

/*
 * Takes a record of the trace if it is one of its own: an XLP_R_CPUSCHED,
 * or an XLP_R_SCHED of kind XLP_SCHED_FREQ. 0, or -ENOMEM.
 */
int perfetto_ftrace__add(struct perfetto_ftrace *ft, const struct xlp_hdr *h);

/* Events taken, and those skipped as malformed (an unknown kind). */
size_t perfetto_ftrace__count(const struct perfetto_ftrace *ft);
size_t perfetto_ftrace__switches(const struct perfetto_ftrace *ft);
uint64_t perfetto_ftrace__malformed(const struct perfetto_ftrace *ft);

/*
 * Writes them as TracePackets to f: the system info (kernel: uname -r of
 * the recording machine, NULL if unknown; ncpus), the process tree and the
 * bundles, one CPU's events in time order. Nothing when it holds no events.
 */
int perfetto_ftrace__write(struct perfetto_ftrace *ft, const char *kernel, uint32_t ncpus,
			   struct pbw *w, FILE *f);

#endif
