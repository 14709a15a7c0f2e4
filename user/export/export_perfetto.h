/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What xlprobe export --perfetto builds from a trace before it writes it,
 * shared by its files: export_perfetto.c (the command: reading, runs,
 * tracks and track events out), perfetto_states.c (thread states from the
 * scheduling events, the CPU's other tenants). The ftrace events are
 * perfetto_ftrace.c's own.
 */
#ifndef XLP_EXPORT_PERFETTO_H
#define XLP_EXPORT_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perfetto_ftrace.h"
#include "trace.h"

enum { TE_BEGIN = 1, TE_END = 2, TE_INSTANT = 3, TE_COUNTER = 4 };
#define UNIT_COUNT 2

/* track uuids: a kind in the top byte, a pid, tid or CPU below */
enum { T_PROC = 1, T_THREAD, T_STATE, T_RUNS, T_FREQ, T_THIEF };
#define UUID(kind, id) ((uint64_t)(kind) << 56 | (uint32_t)(id))

struct pf_thread {
	uint32_t pid, tid;
	char name[3 * XLP_COMM_LEN + 1]; /* cleaned */
	bool named, timeline, desc;
	bool thief_track;   /* it has a "CPU held by" track */
	uint64_t thief_end; /* the end of its last slice there */
	/* the state slice open since open_ts (enum st_kind, 0: none) */
	uint32_t open;
	uint32_t open_reason; /* sleep: enum xlp_ctr, known at its wakeup */
	uint64_t open_ts, open_flow;
	const char *wake_label; /* "wakes NAME TID", made once */
};

enum st_kind { ST_NONE = 0, ST_RUNNING, ST_RUNNABLE, ST_PREEMPTED, ST_SLEEP_S, ST_SLEEP_D };

struct pf_ann {
	const char *name;
	const char *str; /* NULL: v is the value */
	uint64_t v;
};

struct pf_ev {
	uint64_t ts, track, flow_out, flow_in;
	uint64_t counter;
	const char *name;
	uint32_t type, rank;
	uint32_t ann, nann; /* in pf.anns */
	uint64_t seq;	    /* file order: ties keep it */
};

struct pf_run {
	uint32_t pid, tid;
	uint64_t start, dur;
};

/* An XLP_R_THIEF (struct xlp_thief_rec) with its n thieves */
struct pf_thief {
	uint32_t pid, tid, cpu, n;
	uint64_t end, wait, here, idle, irq, steal, other, unlogged;
	struct xlp_thief t[XLP_THIEF_MAX];
	uint64_t seq; /* file order: ties keep it */
};

struct pf {
	const struct xlp_trace_meta *meta;
	struct pf_thread *threads;
	size_t nthreads, cap_threads;
	struct {
		uint32_t pid;
		char name[3 * XLP_COMM_LEN + 1];
	} * procs;
	size_t nprocs, cap_procs;
	struct xlp_sched_rec *sched;
	size_t nsched, cap_sched;
	struct pf_ev *evs;
	size_t nevs, cap_evs;
	struct pf_ann *anns;
	size_t nanns, cap_anns;
	struct pf_run *runs;
	size_t nruns, cap_runs;
	/* launches are the runs when no function marks them (as in report) */
	struct pf_run *launches;
	size_t nlaunches, cap_launches;
	char **strs; /* names made here, freed at the end */
	size_t nstrs, cap_strs;
	char **fnames;				/* meta's function names, cleaned */
	const char *sleep_names[2][XLP_NR_CTR]; /* [uninterruptible][reason], made once */
	uint64_t cpu_freq_seen[1024 / 64];
	struct pf_thief *thieves;
	size_t nthieves, cap_thieves;
	struct perfetto_ftrace *ft; /* the ftrace events (perfetto_ftrace.c) */
	uint64_t ncalls, flows, malformed, last_ts;
	int err;
};

/* Room for one more element of *arr (pf->err set when there is none). */
void *pf__grow(struct pf *pf, void **arr, size_t *n, size_t *cap, size_t elem);
/* A copy of s that lives as long as pf ("" when out of memory). */
const char *pf__keep_str(struct pf *pf, const char *s);
/* The thread tid, added unnamed if new (NULL: out of memory). May move pf->threads. */
struct pf_thread *pf__thread(struct pf *pf, uint32_t tid);
struct pf_ev *pf__add_ev(struct pf *pf, uint32_t type, uint64_t ts, uint64_t track,
			 const char *name, uint32_t rank);
void pf__add_ann(struct pf *pf, struct pf_ev *e, const char *name, const char *str, uint64_t v);
/* A slice [b, e) on track at nesting depth: its BEGIN event (NULL: out of memory). */
struct pf_ev *pf__add_slice(struct pf *pf, uint64_t track, const char *name, uint64_t b, uint64_t e,
			    uint32_t depth);

/* perfetto_states.c: the "state" tracks from pf->sched, closed at end_ns */
void pf__states(struct pf *pf, uint64_t end_ns);
/* the "CPU held by" slices from pf->thieves (after pf__states) */
void pf__thieves(struct pf *pf);

#endif
