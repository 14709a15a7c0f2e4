/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace files -> runs x functions.
 *
 * A run (PerfProbe: one execution of an interaction) is
 *   - an invocation of a function marked XLP_FUNC_INTERACTION (any of the
 *     landmarks, record -i given several times): window [entry, entry +
 *     wall), baseline = the XLP_R_RUN record of the same pid, tid and
 *     entry (process-wide counter deltas over the run); an interaction
 *     nested in another one of the same thread, of the same landmark or
 *     another, is not a run: it is part of the outer one's;
 *   - else, when the trace was recorded with --repeat, a launch
 *     (XLP_R_LAUNCH): every call of that pid belongs to it, baseline = the
 *     XLP_R_PROC record of the pid.
 * The functions of a run are the calls of the run's pid whose entry lies in
 * the window (any thread; interaction functions excluded). A function's
 * time in a run is the sum of incl[WALL] over its invocations, without an
 * invocation nested in another one of the same function on the same
 * thread (recursion is counted once); with exclusive, the sum of excl[WALL].
 * Functions are matched across files by (symbol, basename of binary).
 *
 * record --lag: a run whose call record has XLP_CALL_SUMMARY was written
 * without what ran inside it. It is not in the runs (dataset__nruns): the
 * analysis compares runs by what ran in them, and such a run would look
 * like one where nothing did. Its count and latency are kept apart
 * (dataset__summary_runs). The runs with detail are those that lagged and
 * one in K of the others: a kept run that did not lag stands for K.
 */
#ifndef XLP_DATASET_H
#define XLP_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "trace.h"

/*
 * The name of an interaction's pseudo-function holding the runqueue wait
 * before it (prewake): "SYMBOL [queued before it]"
 */
#define DATASET_QUEUED_SUFFIX "[queued before it]"

struct dataset_opts {
	bool exclusive; /* excl[] instead of incl[] (times and resources) */
};

struct dataset_func {
	char *symbol; /* as in the binary (mangled): the key across files */
	/* as users write it, what every output prints: symbol demangled (C++,
	 * Rust; user/lib/demangle.h), else symbol itself */
	char *name;
	char *binary; /* basename */
	char *path;   /* binary as recorded (first file that has the function) */
	/* not marked: its time in a run is estimated from the stack samples
	 * it is on (dataset_samples.c), and path is the binary's basename */
	bool sampled;
	bool root;    /* sampled, on every sample of every launch: names nothing */
	bool runtime; /* sampled, of the C/C++ runtime (libc...): names nothing */
	/* the runqueue wait before an interaction (DATASET_QUEUED_SUFFIX): a part
	 * of the run with no work of its own, all of it cpu_wait */
	bool queued;
	/* an interaction (a run's landmark): never timed in a run, so never a
	 * feature, unless another trace marks or samples the same function */
	bool landmark;
};

/*
 * Code a runtime compiled while the program ran (JavaScript, Java, Python
 * 3.12's trampolines), named from its perf map or jitdump: the recorder's
 * module "[jit]" (user/symbols/symbolize.h, XSYM_JIT_MODULE). It is the
 * application's own code; the runtime's frames around it are not.
 */
#define DATASET_JIT_MODULE "[jit]"
static inline bool dataset__jit_func(const struct dataset_func *f)
{
	return f->binary && !strncmp(f->binary, DATASET_JIT_MODULE, sizeof(DATASET_JIT_MODULE) - 1);
}

struct dataset_run {
	uint32_t file;
	uint32_t pid, tid; /* tid: 0 for a launch */
	uint64_t start_ns, end_ns;
	double latency_ns;
	/* of it, the runqueue wait before the handler, since the thread's
	 * wakeup (record's prewake, counter queued); 0 for a launch */
	uint64_t queued_ns;
	bool has_base;
	uint64_t base[XLP_NR_CTR]; /* whole-run process counters */
	/* the run's own thread over the run: its interaction call's
	 * counters, which add up to its latency (not for a launch) */
	bool has_own;
	uint64_t own[XLP_NR_CTR];
	/* on-CPU stack samples taken on the run's thread during it, and the
	 * sampler's cost removed from latency_ns and own cpu_run for them */
	uint32_t on_samples;
	uint64_t sampler_ns;
	/* the workload size the run was given (record --size, --sizes,
	 * --size-arg; struct xlp_size_rec), NAN when the trace gives none */
	double size;
	/* the function whose call is the run (a dataset function, landmark
	 * set), DATASET_NO_FUNC for a launch */
	uint32_t landmark;
	/* record --lag: written as its call alone, what ran inside it left out;
	 * such runs are apart (dataset__summary_run), never in dataset__run */
	bool summary;
};

/* Loss and damage, summed over the files (struct trace_integrity). */
struct dataset_drops {
	uint64_t stat[XLP_NR_STAT]; /* footer (or last stats record when truncated) */
	uint64_t lost_by_reader;
	uint64_t bad_chunks;
	uint64_t missing_chunks;   /* chunk numbers never found */
	uint64_t duplicate_chunks; /* skipped: read already (not counted twice) */
	uint64_t reordered_chunks; /* skipped: out of order */
	uint64_t extra_chunks;	   /* past the footer's count */
	uint64_t missing_records;  /* the footers count more than were read */
	uint64_t extra_records;	   /* more were read than the footers count */
	/* processes forked by traced ones (struct xlp_fork_rec): probed from
	 * their record on, the longest wait; never probed (gone, failed) */
	uint64_t forks_late, fork_window_max_ns, forks_unprobed;
	/* records read that the programs produced (xlp_rec_from_programs):
	 * with rb_full and lost_by_reader, what they sent */
	uint64_t program_records;
	/* record --until: keyed runs' begins and ends that found no partner */
	uint64_t unmatched_begins, unmatched_ends;
	/* record --lag (struct xlp_lag_rec; without it, a truncated file: the
	 * summarized runs read): runs written as their call alone, the records
	 * of theirs left out and their bytes, and the runs under the threshold
	 * whose detail was written with no choice (a thread's first, a full
	 * buffer) */
	uint64_t lag_summarized, lag_left_out, lag_left_out_bytes, lag_written_through;
	/* marker: specs (struct xlp_marker_rec): trace-marker lines skipped, by reason */
	uint64_t marker_skip[XLP_MARKER_NR_SKIP];
	size_t ntruncated; /* files without a valid footer */
	size_t ndamaged;   /* files with a footer that does not match what was read */
};

/* Stack samples (record --sample), summed over the files. */
struct dataset_sample_info {
	uint64_t samples;	 /* read */
	uint64_t in_runs;	 /* placed in a run (one per run it belongs to) */
	uint64_t unplaced;	 /* in a run, but no stack under the interaction frame */
	uint64_t malformed;	 /* skipped: ids out of order, frames past their record */
	uint64_t weight_in_runs; /* ns the samples in runs stand for */
	uint64_t roots;		 /* functions on every sample of every launch */
	/* what one sample can stand for at most: the longest period times the
	 * off-CPU thinning (xlp_sampling_rec); sampled times are known to it */
	uint64_t resolution_ns;
	/* the observer effect: each on-CPU sample stops its thread for the
	 * sampling programs' measured cost (xlp_sampling_rec.cost_ns over the
	 * stacks they took); that cost is removed from the run it fell in,
	 * or runs that happened to be sampled look slow because they were */
	uint64_t sampler_cost_ns;    /* per stack taken, the largest over the files */
	uint64_t sampler_removed_ns; /* from all runs */
	/* samples whose weight was scaled down to what their run measured of
	 * their resource (dataset_samples.c calibrate) */
	uint64_t calibrated;
};

struct dataset_file_info {
	const char *path;
	uint32_t features; /* XLP_FEAT_* */
	bool truncated, launches;
	uint64_t nrecords;
	size_t nruns;
	const char *interaction;      /* symbol, NULL in launch mode */
	const char *interaction_name; /* demangled, as printed; NULL in launch mode */
	/* record --until: runs span threads, from the interaction's call to
	 * the --until function's with the same key; the calls of either that
	 * found no partner (one still open at the end, a lost record) */
	bool keyed;
	uint64_t unmatched_begins, unmatched_ends;
	/* the interaction functions (landmarks), interaction being the first */
	const char *const *landmarks;
	const char *const *landmark_names; /* the same demangled, as printed */
	size_t nlandmarks;
	/* record --lag: its threshold and K (0 without), and its runs written
	 * as their call alone: not in nruns (dataset__summary_runs) */
	uint64_t lag_ns;
	uint32_t lag_keep;
	size_t nsummary;
	const char *damage; /* what is missing or was skipped (trace_reader__describe), or NULL */
	/* where and what: the recording's host, CLOCK_REALTIME - CLOCK_MONOTONIC
	 * at its start (a run's wall-clock time), the first interaction's
	 * binary (basename) and its build-id ("" when none) */
	const char *host;
	int64_t boot_offset_ns;
	const char *landmark_binary, *build_id;
};

struct dataset;

/*
 * Reads the files (two passes each). On error returns negative errno and
 * a one-line "cause: fix" message in err.
 */
int dataset__load(const char *const *paths, size_t npaths, const struct dataset_opts *o,
		  struct dataset **out, char *err, size_t errlen);
void dataset__free(struct dataset *ds); /* accepts NULL */

size_t dataset__nruns(const struct dataset *ds);
const struct dataset_run *dataset__run(const struct dataset *ds, size_t i);
size_t dataset__nfuncs(const struct dataset *ds);
const struct dataset_func *dataset__func(const struct dataset *ds, size_t f);
/* Time (ns) of function f in run r; 0 when it did not run. */
uint64_t dataset__time(const struct dataset *ds, size_t r, size_t f);
/* Invocations of f counted in run r (recursion counted once). */
uint32_t dataset__ncalls(const struct dataset *ds, size_t r, size_t f);
/* XLP_FEAT_* present in every file. */
uint32_t dataset__features(const struct dataset *ds);
const struct dataset_drops *dataset__drops(const struct dataset *ds);
const struct dataset_sample_info *dataset__samples(const struct dataset *ds);
size_t dataset__nfiles(const struct dataset *ds);
const struct dataset_file_info *dataset__file(const struct dataset *ds, size_t i);
/* No index (a function, a run, a frame): UINT32_MAX, as DATASET_NO_FUNC. */
#define DATASET_NONE UINT32_MAX
/*
 * The global function of a call record's func_id in file fi: DATASET_NONE for an
 * interaction (the runs, not a function) and for an id the file does not
 * define (a forged or damaged record).
 */
uint32_t dataset__file_func(const struct dataset *ds, size_t fi, uint32_t func_id);
/* The runs of file fi are [*first, *first + n), n returned: consecutive, in file order. */
size_t dataset__file_runs(const struct dataset *ds, size_t fi, size_t *first);
/*
 * The read loop of every pass over a trace file (the call passes, the wait
 * chains' timeline, the async tasks): calls fn with each record of path in
 * file order, and stops at the first non-zero return (negative errno:
 * returned, with a message in err, as are the reader's errors).
 */
int dataset__each_record(const char *path, int (*fn)(void *ctx, const struct xlp_hdr *h), void *ctx,
			 char *err, size_t errlen);
/*
 * The read loop of the passes over call records (the dataset's passes, the
 * drill-down, the timeline's calls): calls fn with every call record of
 * file fi in file order, and stops at the first non-zero return (negative
 * errno: returned, with a message in err). Other record types and short
 * records are skipped.
 */
int dataset__each_call(const struct dataset *ds, size_t fi,
		       int (*fn)(void *ctx, const struct xlp_call_rec *c), void *ctx, char *err,
		       size_t errlen);
/*
 * record --lag: the runs written as their call alone (summary), kept out of
 * the runs above: their number, and in *latency_ns (when not NULL) their
 * latencies in the same order as dataset__summary_run.
 */
size_t dataset__summary_runs(const struct dataset *ds, const double **latency_ns);
const struct dataset_run *dataset__summary_run(const struct dataset *ds, size_t i);

/* ---- resource usage of chosen functions (a further pass over the files) ---- */

struct dataset_res {
	uint32_t ncalls;	  /* 0: the function did not run in this run */
	uint64_t ctr[XLP_NR_CTR]; /* summed incl[] (excl[] when exclusive) */
};

/* Who woke the function's threads for IPC waits, per run. */
struct dataset_peer {
	uint32_t run, pid, count;
	char comm[XLP_COMM_LEN];
};

struct resources;

int dataset__resources(const struct dataset *ds, const uint32_t *funcs, size_t nfuncs,
		       struct resources **out, char *err, size_t errlen);
void resources__free(struct resources *r); /* accepts NULL */
/* k: index into the funcs array given to dataset__resources. */
const struct dataset_res *resources__get(const struct resources *r, size_t k, size_t run);
size_t resources__npeers(const struct resources *r, size_t k);
const struct dataset_peer *resources__peer(const struct resources *r, size_t k, size_t i);

/* ---- the CPU's other tenants: who ran while a thread waited for its CPU ---- */

/*
 * From the thief records (struct xlp_thief_rec, bpf/thief.bpf.h): a task
 * that held the CPU a traced thread waited for, and the time it ran then.
 */
struct dataset_thief {
	uint32_t pid, tid;
	char comm[XLP_COMM_LEN]; /* "" when it exited before it was named */
	uint32_t flags;		 /* XLP_THIEF_* */
	bool own_process;	 /* a thread of the waiting thread's own process */
	bool child;		 /* a process the traced ones forked (struct xlp_fork_rec) */
	double ns;		 /* its time, summed over the runs asked */
};

/* The runqueue waits of a scope over some runs, and who ran meanwhile. */
struct dataset_thief_sum {
	uint64_t waits;	 /* thief records (waits) counted */
	double wait_ns;	 /* their cpu_wait */
	double idle_ns;	 /* the idle task: the CPU's own latency */
	double irq_ns;	 /* no task's time: interrupts */
	double steal_ns; /* the hypervisor's */
	/* not told: tasks past the largest of each wait, the part of a wait
	 * on another CPU before a migration, and older than the CPU's log */
	double unknown_ns;
	struct dataset_thief *t; /* largest first */
	size_t n;
};

struct thieves;

/*
 * Scopes: k < nfuncs, the waits during function funcs[k]'s calls (a
 * DATASET_QUEUED_SUFFIX function: the waits before its run's handler); k ==
 * nfuncs, the waits of the run's own thread (a launch: of any of its
 * threads) over the whole run. A further pass over the files.
 */
int dataset__thieves(const struct dataset *ds, const uint32_t *funcs, size_t nfuncs,
		     struct thieves **out, char *err, size_t errlen);
void thieves__free(struct thieves *th); /* accepts NULL */
/* Whether the traces hold any thief record (recorded by a version that took them). */
bool thieves__recorded(const struct thieves *th);
/* Scope k summed over the runs with runs[i] != 0, thieves of one name and
 * kind as one (the pid and tid of the first): 0 or -ENOMEM. */
/*
 * One thief as a user names it: by name and kind, not by pid (a server's
 * forked snapshot children, a pool of runtime threads of one name add up
 * to one); tasks that exited unnamed stay apart by pid.
 */
bool dataset_thief__same(const struct dataset_thief *a, const struct dataset_thief *b);
/* qsort order: the largest time first, then by tid */
int dataset_thief__cmp_ns(const void *a, const void *b);
int thieves__sum(const struct thieves *th, size_t k, const uint8_t *runs,
		 struct dataset_thief_sum *out);
void dataset_thief_sum__release(struct dataset_thief_sum *s);

/* ---- nesting of marked calls under chosen functions (drill-down) ---- */

/*
 * Under each call of an ancestor function A: every marked call nested in
 * it, keyed by (its direct marked parent, its function), with its
 * inclusive wall time summed per run. A call nested in another call of A
 * is counted once, under the outermost A. parent is DATASET_NO_FUNC when the
 * direct parent is not a dataset function (an interaction).
 */
#define DATASET_NO_FUNC UINT32_MAX

struct dataset_nest_pair {
	uint32_t parent, child;
	double *time; /* per run */
};

struct nesting;

int dataset__nesting(const struct dataset *ds, const uint32_t *anc, size_t nanc,
		     struct nesting **out, char *err, size_t errlen);
void nesting__free(struct nesting *n); /* accepts NULL */
/* k: index into the anc array given to dataset__nesting. */
size_t nesting__npairs(const struct nesting *n, size_t k);
const struct dataset_nest_pair *nesting__pair(const struct nesting *n, size_t k, size_t i);

/* ---- calling-context tree of a function, from the stack samples ---- */

/*
 * Under the outermost frame of root in every sampled stack (LagHunter's
 * calling-context trees, on samples): one node per distinct path of named
 * frames below it (runtime ones included; frames without a name are
 * skipped), with the samples' weights summed by reason, apart for the
 * runs marked slow and the others. Node 0 is root itself; a node's parent
 * comes before it.
 */
struct dataset_cct_node {
	uint32_t func;
	uint32_t parent; /* node index; UINT32_MAX for node 0 */
	uint32_t depth;
	/* ns by counter: [XLP_C_WALL] all, [CPU_RUN] on a CPU, the waits by reason */
	double slow[XLP_NR_CTR], fast[XLP_NR_CTR];
};

struct dataset_cct;

/* slow: per run, non-zero when slow. *out is NULL when no sample has root. */
int dataset__context_tree(const struct dataset *ds, uint32_t root, const uint8_t *slow,
			  struct dataset_cct **out);
void dataset_cct__free(struct dataset_cct *t); /* accepts NULL */
size_t dataset_cct__n(const struct dataset_cct *t);
const struct dataset_cct_node *dataset_cct__node(const struct dataset_cct *t, size_t i);

/* ---- differential tree of the stack samples: slow runs against fast ---- */

/*
 * The frames of the samples of one kind below root: with a function, the
 * samples whose user stack holds it, from its outermost frame inward; with
 * DATASET_NO_FUNC, every sample placed in a run, from the interaction inward
 * (or the launch's outermost named frame). Then the kernel frames, from the
 * entry (a system call, a fault, an interrupt) inward. One node per
 * distinct path of named frames; node 0 is root. Each node counts the
 * samples through it and their weights, apart for the runs marked slow and
 * the others: a differential flame graph, and what grew in the slow runs.
 */
struct dataset_diff_node {
	uint32_t frame; /* dataset function; with kernel, an index for dataset__kframe() */
	bool kernel;
	uint32_t parent; /* node index; UINT32_MAX for node 0 */
	uint32_t depth;
	uint32_t nslow, nfast; /* samples */
	double wslow, wfast;   /* ns they stand for */
};

struct dataset_diff;

/*
 * reason: XLP_C_CPU_RUN (on a CPU), a wait's XLP_C_* (CPU_WAIT, DISK ..
 * OTHER), or -1 for every sample. slow: per run, non-zero when slow.
 * *out is NULL when no sample qualifies.
 */
int dataset__diff_tree(const struct dataset *ds, uint32_t root, int reason, const uint8_t *slow,
		       struct dataset_diff **out);
void dataset_diff__free(struct dataset_diff *t); /* accepts NULL */
size_t dataset_diff__n(const struct dataset_diff *t);
const struct dataset_diff_node *dataset_diff__node(const struct dataset_diff *t, size_t i);
/* The name of kernel frame k (dataset_diff_node.frame of a kernel node). */
const char *dataset__kframe(const struct dataset *ds, uint32_t k);

#endif
