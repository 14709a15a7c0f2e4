/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internals shared by the dataset*.c files. */
#ifndef XLP_DATASET_IMPL_H
#define XLP_DATASET_IMPL_H

#include "dataset.h"

/* The file name of a path ("" for NULL). */
const char *dataset__base_name(const char *path);

struct dataset_file {
	struct dataset_file_info info;
	char *path;
	char *interaction;
	char *damage;
	char *host, *build_id, *landmark_binary; /* dataset_file_info's */
	uint32_t nlocal;
	uint32_t *fmap; /* local func id -> global func, DATASET_NONE for interactions */
	/*
	 * local func id of an interaction -> the global pseudo-function of the
	 * runqueue wait before it (prewake), DATASET_NONE without one
	 */
	uint32_t *qmap;
	uint8_t *is_interaction; /* local func id -> 1 when it marks the runs */
	/* the interactions (landmarks) in table order: symbols, binaries, and
	 * the local func id -> index among them (DATASET_NONE: not one) */
	char **landmarks, **landmark_bins, **landmark_names;
	size_t nlandmarks;
	/* an interaction is a USDT probe pair: no stack frame names it */
	bool usdt_landmark;
	uint32_t *lidx;
	uint8_t *is_end;       /* local func id -> 1 when it ends keyed runs (--until) */
	size_t run_off, nruns; /* runs of this file, sorted by (pid, start) */
};

/* A sample in a run: its stack's functions under the interaction. */
struct dataset_smp {
	uint32_t run;
	uint32_t stack;	 /* into dataset.sst, DATASET_NONE: no function to name */
	uint32_t kstack; /* into dataset.kst, DATASET_NONE: no kernel frames */
	uint64_t weight;
	uint32_t reason; /* enum xlp_ctr: CPU_RUN on a CPU, else the wait's */
};

struct dataset_sstack {
	uint32_t off, n; /* dataset.sfr[off .. off + n) */
};

struct dataset {
	struct dataset_opts opts;
	struct dataset_file *files;
	size_t nfiles;
	struct dataset_func *funcs;
	size_t nfuncs, func_cap;
	struct dataset_run *runs;
	size_t nruns, run_cap;
	/* record --lag: runs written as their call alone, apart (dataset.h) */
	struct dataset_run *summ;
	double *summ_lat;
	size_t nsumm, summ_cap;
	uint64_t *win_lo, *win_hi; /* per run: calls entering in [lo, hi) belong to it */
	/* max tree over win_hi (leaves at [seg_size, seg_size + nruns), 0 past
	 * them): dataset__runs_at() finds the runs holding a time without walking
	 * over the ones that ended before it */
	uint64_t *seg;
	size_t seg_size;
	/* nruns x ntimed: the functions known when the times were read (the
	 * landmarks are interned after, and have none) */
	uint64_t *time;
	uint32_t *ncalls;
	size_t ntimed;
	uint32_t features;
	struct dataset_drops drops;
	/* stack samples placed in runs (dataset_samples.c) */
	struct dataset_smp *smp;
	size_t nsmp, smp_cap;
	struct dataset_sstack *sst;
	size_t nsst, sst_cap;
	uint32_t *sfr; /* frames of sst: dataset functions or DATASET_NONE, innermost first */
	size_t nsfr, sfr_cap;
	/* the samples' kernel stacks: kfr holds indices into kname, innermost first */
	struct dataset_sstack *kst;
	size_t nkst, kst_cap;
	uint32_t *kfr;
	size_t nkfr, kfr_cap;
	char **kname; /* kernel function names, each once */
	size_t nkname, kname_cap;
	struct dataset_sample_info sinfo;
	uint32_t *fidx; /* open addressing over (symbol, binary): function index + 1 */
	size_t fidx_cap;
};

/* Index of (symbol, basename(binary)) in ds->funcs, added if new; -ENOMEM. */
int dataset__intern_func(struct dataset *ds, const char *symbol, const char *binary);

/* Pass over the stack samples of file fi, after the runs' windows are set. */
int dataset__read_samples(struct dataset *ds, size_t fi, char *err, size_t errlen);
/* Adds the sampled functions' times to ds->time / ds->ncalls (allocated). */
int dataset__sample_times(struct dataset *ds);

static inline bool dataset__func_sampled(const struct dataset *ds, uint32_t g)
{
	return ds->funcs[g].sampled && !ds->funcs[g].root && !ds->funcs[g].runtime;
}

static inline bool dataset__func_root(const struct dataset *ds, uint32_t g)
{
	return ds->funcs[g].root;
}

/* For every sample and every distinct sampled function f on it with slot[f]
 * >= 0 (every one when slot is NULL; slot then passes f): fn(). */
int dataset__each_sampled(const struct dataset *ds, const int32_t *slot,
			  void (*fn)(void *ctx, const struct dataset_smp *s, int32_t slot),
			  void *ctx);
/* For every sample, every ancestor a (slot[a] >= 0, its outermost frame) and
 * every sampled function c below it (once): pair(slot[a], c's nearest
 * function frame above it, c, run, weight). */
int dataset__sample_nesting(const struct dataset *ds, const int32_t *slot,
			    int (*pair)(void *ctx, int32_t k, uint32_t parent, uint32_t child,
					size_t run, double w),
			    void *ctx);

/* ---- workload sizes (dataset_size.c): struct dataset_run.size ---- */

struct dataset_size_ev {
	uint64_t t;
	uint32_t pid, tid; /* tid 0 but for a call's size */
	uint64_t v;	   /* the size; for a fork, the parent's pid */
};

/* What one file says of sizes, zeroed to begin. */
struct dataset_sizes {
	struct dataset_size_ev *call; /* record --size-arg: XLP_TASKEV_SIZE */
	size_t ncall, call_cap;
	struct dataset_size_ev *launch; /* --sizes: XLP_SIZE_LAUNCH */
	size_t nlaunch, launch_cap;
	struct dataset_size_ev *fork; /* processes forked (XLP_R_FORK), to find their launch */
	size_t nfork, fork_cap;
	bool has_whole; /* --size: XLP_SIZE_RECORDING */
	uint64_t whole;
};

/* Keeps what a record says of sizes (others ignored): 0 or -ENOMEM. */
int dataset__sizes_take(struct dataset_sizes *z, const struct xlp_hdr *h);
/* After the last record, before dataset__sizes_of. */
void dataset__sizes_ready(struct dataset_sizes *z);
/*
 * The size of a run of pid that began at start on thread tid (0: a launch),
 * its handler entering queued ns later (prewake): its call's size, else its
 * launch's, else the recording's, else NAN.
 */
double dataset__sizes_of(const struct dataset_sizes *z, uint32_t pid, uint32_t tid, uint64_t start,
			 uint64_t queued);
void dataset__sizes_free(struct dataset_sizes *z);

/* Pass 1: runs, baselines, drops of file fi (appends to ds->runs). */
int dataset__read_runs(struct dataset *ds, size_t fi, char *err, size_t errlen);
/*
 * After the times: the landmarks as dataset functions (interned last, so
 * that the other functions keep the ids they always had), and the runs'
 * landmark from the index pass 1 left there. 0 or -ENOMEM.
 */
int dataset__intern_landmarks(struct dataset *ds);

/*
 * A pass over the call records of one file. For every tracked function
 * (slot >= 0) and every run its invocation belongs to, add() is called
 * with the invocation's counter deltas and sign +1; when a later record
 * shows that an invocation was nested in another one of the same function
 * on the same thread, add() is called again with sign -1 to take it back.
 */
struct dataset_scan {
	struct dataset *ds;
	size_t file;
	const int32_t *slot; /* per global function: slot, or -1 when not tracked */
	void (*add)(void *ctx, size_t run, int32_t slot, const uint64_t *vals, int sign);
	void (*call)(void *ctx, size_t run, int32_t slot, const struct xlp_call_rec *rec);
	void *ctx;
};

int dataset__scan_file(const struct dataset_scan *s, char *err, size_t errlen);

/* dataset__each_record() and dataset__each_call(), the read loops of every pass: dataset.h */

/*
 * Per-thread lists of pending calls, for the passes that need to know which
 * call is nested in which (dataset__scan_file: recursion counted once; the
 * drill-down of dataset_nest.c).
 *
 * Records of one thread arrive in return order (post-order), so when a call
 * C arrives, the records of its thread that entered at or after C's entry
 * are exactly C's subtree, and they sit contiguously at the end of the
 * thread's pending list: dataset__pending_subtree() walks back over them, and
 * also stops at a call no deeper than C (in a well-formed trace nothing in
 * C's subtree is; in a forged one it bounds the work). A caller that walks
 * a subtree pushes C after it (or empties the list, at depth 0), so the
 * next walk reaching a pending call X passes C first and comes from a call
 * shallower than C: X is walked over by calls of strictly decreasing depth,
 * at most XLP_MAX_DEPTH of them. Calls at depth XLP_MAX_DEPTH or more
 * cannot be recorded (the BPF shadow stack is that deep): they are not
 * nested and not pushed. Each pass is linear in the number of records.
 */
struct dataset_pend { /* the head of every item of a pending list */
	uint64_t entry;
	uint32_t func;
	uint16_t depth;
};

struct dataset_pend_thr {
	uint32_t tid;
	bool used;
	size_t n, cap; /* items */
	uint8_t *items;
};

struct dataset_pending {
	size_t item_size; /* at least sizeof(struct dataset_pend), a multiple of 8 */
	uint64_t seed;	  /* of the tid hash: forged tids cannot make it collide */
	struct dataset_pend_thr *t;
	size_t cap, n; /* threads */
};

void dataset__pending_init(struct dataset_pending *p, size_t item_size);
void dataset__pending_free(struct dataset_pending *p); /* and ready for reuse */
/* The thread's list, created empty; NULL on ENOMEM. */
struct dataset_pend_thr *dataset__pending_thread(struct dataset_pending *p, uint32_t tid);

static inline struct dataset_pend *dataset__pend_at(const struct dataset_pending *p,
						    const struct dataset_pend_thr *t, size_t i)
{
	return (struct dataset_pend *)(t->items + i * p->item_size);
}

/* Calls at depth 1..XLP_MAX_DEPTH-1 are kept pending; depth 0 closes the tree. */
static inline bool dataset__pend_nestable(uint16_t depth)
{
	return depth > 0 && depth < XLP_MAX_DEPTH;
}

/* Index of the first pending call in the subtree of a call: the items from there to t->n. */
size_t dataset__pending_subtree(const struct dataset_pending *p, const struct dataset_pend_thr *t,
				uint64_t entry, uint16_t depth);
/* Appends a zeroed item with its head filled in; NULL on ENOMEM. */
void *dataset__pending_push(struct dataset_pending *p, struct dataset_pend_thr *t, uint64_t entry,
			    uint32_t func, uint16_t depth);

/* Calls fn for every run of file fi that a call of pid entering at t belongs to. */
void dataset__runs_at(const struct dataset *ds, size_t fi, uint32_t pid, uint64_t t,
		      void (*fn)(void *ctx, size_t run), void *ctx);

#endif
