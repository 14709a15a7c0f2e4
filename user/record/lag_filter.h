/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --lag DUR --lag-keep K (LagHunter, OOPSLA'11: only the runs a
 * person perceives, 100 ms and more, need their detail): every run's
 * interaction call is written, with its counters; what ran inside the run
 * on its thread (nested calls, stack samples, scheduling and task events,
 * its xlp_run_rec) only when the run lags (latency >= DUR) or is the one in
 * K of the others kept as a sample. The others' call records get
 * XLP_CALL_SUMMARY, and what was left out is counted (struct xlp_lag_rec).
 *
 * The recorder learns that a run began only when it ends: the programs
 * send its xlp_run_rec at the return, after its thread's call records
 * (bpf/calls.bpf.c flushes the thread's batch first), and the other
 * records of a thread carry their time. So the records of a thread that
 * has ended a run are held from then on, and each end of a run there
 * writes or drops those inside its window and writes the ones before it.
 * A thread's first run is written as it comes (its records were not
 * held), and so is a run whose held records reached the per-thread or
 * total cap (LAG_HOLD_*): counted, never silently dropped. A run still
 * open at the end, or at its thread's exit, is written.
 */
#ifndef XLP_LAG_FILTER_H
#define XLP_LAG_FILTER_H

#include <stdint.h>
#include "xlprobe.h"

#define LAG_HOLD_THREAD (1u << 20) /* bytes held per thread at most */
#define LAG_HOLD_TOTAL (64u << 20) /* and in all */

struct lag_filter;

/* Writes a record into the trace (or counts it lost): the recorder's. */
typedef int (*lag_write_fn)(void *ctx, const struct xlp_hdr *h);

int lag_filter__new(uint64_t threshold_ns, unsigned keep, lag_write_fn write, void *ctx,
		    struct lag_filter **out);
/* A record for the trace: written now, held, or dropped with its run's detail. */
int lag_filter__record(struct lag_filter *lf, const struct xlp_hdr *h);
/* Writes every held record: the end of the recording. */
int lag_filter__flush(struct lag_filter *lf);
/* The counts so far, as the trace's record. */
void lag_filter__stats(const struct lag_filter *lf, struct xlp_lag_rec *out);
void lag_filter__free(struct lag_filter *lf); /* accepts NULL */

#endif
