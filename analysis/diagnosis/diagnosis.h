/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * PerfProbe's two-step diagnosis (ICDCS'19 section IV) on a dataset:
 * labels (slow / fast runs), step 1 critical functions, step 2 resource
 * factors of each critical function, and the whole-run baseline of
 * section V-D. The result is plain read-only data: numbers, indices and
 * enums, no wording; the report writers (user/report/) put it in words.
 */
#ifndef XLP_DIAGNOSIS_H
#define XLP_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dataset.h"
#include "dtree.h"
#include "stats_tests.h"
#include "labels.h"
#include "tasks.h"
#include "waitchain.h"

/* Resource features of step 2 (order = tie-break order). */
enum diagnosis_feat {
	DIAGNOSIS_CPU_RUN = 0,
	DIAGNOSIS_CPU_WAIT,
	DIAGNOSIS_CPU_FREQ, /* average kHz while on CPU */
	DIAGNOSIS_SLEEP_S,
	DIAGNOSIS_SLEEP_D,
	DIAGNOSIS_DISK,
	DIAGNOSIS_NET,
	DIAGNOSIS_IPC,
	DIAGNOSIS_LOCK,
	DIAGNOSIS_TIMER,
	DIAGNOSIS_OTHER,
	DIAGNOSIS_CPU_STEAL, /* on a CPU that did not run it (hypervisor steal, stalls) */
	DIAGNOSIS_NFEAT,
};

const char *diagnosis__feat_name(enum diagnosis_feat f);
/* The name of the counter the factor is measured by (bpf/xlprobe.h list). */
const char *diagnosis__feat_ctr_name(enum diagnosis_feat f);
bool diagnosis__feat_is_time(enum diagnosis_feat f);
/* Feature values of one interval's counter deltas (cpu_freq NAN without CPU time). */
void diagnosis__ctr_features(const uint64_t *ctr, double *out /* DIAGNOSIS_NFEAT */);

struct diagnosis_opts {
	struct labels_rule rule;
	unsigned top_k; /* candidates: union of every run's top-K functions */
	struct dtree_params tree;
	double sig_frac;   /* significance: fraction of the median latency / function time */
	unsigned min_runs; /* fewer runs: no diagnosis */
	double min_cover;  /* a precondition must hold for this fraction of the slow runs */
	/* step 2: a resource names a slowdown only if its slow-side mean is at
	 * least this fraction of the function's added time (slow mean - fast
	 * mean); a few ms of preemption do not explain a 50 ms slowdown */
	double factor_share;
	/*
	 * Optional: the slow runs' median latency must exceed the fast runs'
	 * by this fraction (0: off, the default). A latency ratio cannot tell
	 * a slowdown with a cause from a workload's natural spread; the
	 * evidence below decides instead.
	 */
	double min_slowdown;
	/*
	 * Co-critical functions: CART surrogate splits (Breiman et al. 1984,
	 * section 5.3) that reproduce a critical node's split with at least
	 * this adjusted association (1: the same split, 0: no better than
	 * sending every run to the majority side)...
	 */
	double surrogate_assoc;
	/* ... and whose added time is at least this share of the node's function's. */
	double co_share;
	/* Drill-down: descend into a marked callee holding this share of the added time. */
	double drill_share;
	/* Evidence: a test counts at this p-value or below. */
	double alpha_evidence;
	/* A resource explains a slowdown when its excess over proportional growth
	 * holds this share of the function's added time. */
	double excess_share;
};

#define DIAGNOSIS_OPTS_DEFAULT                                                                     \
	{                                                                                          \
		.rule = {.kind = LABELS_SIGMA, .k = 1}, .top_k = 10, .tree = DTREE_PARAMS_DEFAULT, \
		.sig_frac = 0.05, .min_runs = 10, .min_cover = 0.2, .min_slowdown = 0,             \
		.factor_share = 0.2, .surrogate_assoc = 0.8, .co_share = 0.2, .drill_share = 0.5,  \
		.alpha_evidence = 0.001, .excess_share = 0.5                                       \
	}

enum diagnosis_status {
	DIAGNOSIS_OK = 0,     /* at least one slowdown precondition */
	DIAGNOSIS_FEW_RUNS,   /* fewer than min_runs runs */
	DIAGNOSIS_NONE_SLOW,  /* no run is slow */
	DIAGNOSIS_ALL_SLOW,   /* no run is fast */
	DIAGNOSIS_NO_PRECOND, /* slow runs, but no precondition found, or none with evidence */
};

/* One relevant resource factor and its evidence. */
struct diagnosis_factor {
	enum diagnosis_feat feat;
	bool gt;	  /* slow when value > threshold (else <=) */
	double threshold; /* ns, or kHz for cpu_freq */
	double slow_median, fast_median;
	uint32_t slow_hits, fast_hits; /* slow / fast samples on the slow side */
	uint32_t nslow, nfast;
	bool from_freq_check; /* cpu_run replaced by cpu_freq: same cycles, slower CPU */
	bool from_beyond;     /* no tree split: the resource beyond the bulk (evidence 4) */
	double share;	      /* its part of the added time (time factors; NAN otherwise) */
};

/* Step 2 (or the baseline): a tree on resource features. */
struct diagnosis_step2 {
	uint32_t samples, nslow, nfast;
	bool avail[DIAGNOSIS_NFEAT]; /* measured (cpu_freq needs a cpufreq driver) */
	bool used[DIAGNOSIS_NFEAT];  /* given to the tree */
	double slow_median[DIAGNOSIS_NFEAT], fast_median[DIAGNOSIS_NFEAT];
	double time_slow_median, time_fast_median;    /* the function's time / run latency */
	enum diagnosis_feat featmap[DIAGNOSIS_NFEAT]; /* tree feature index -> feature */
	size_t nused;
	struct dtree *tree;
	struct diagnosis_factor *factors;
	size_t nfactors;
};

struct diagnosis_peer {
	bool found;
	uint32_t pid, count;
	char comm[XLP_COMM_LEN];
};

/*
 * Why a critical function's slow runs are a slowdown with a cause and not
 * the ordinary tail of the workload: at least one of three tests, each at
 * p <= alpha_evidence (stats_tests.h).
 */
struct diagnosis_evidence {
	double latency_gap;  /* mean latency of slow runs - of fast runs (ns) */
	double added;	     /* the function's mean time in slow runs - in fast runs */
	double share;	     /* added / latency_gap: its part of the added latency */
	uint32_t nslow_side; /* runs past the function's threshold */
	/* 1. distinct mode: a gap between the runs past the threshold and the
	 * rest, in the function's time or in its factor's values (the factor is
	 * often cleaner: noise in other resources blurs the time) */
	struct stats_gap gap, res_gap;
	/*
	 * A factor's mode stands for the function's slow runs only when they
	 * are in it: res_gap's factor, its slow / fast samples past the
	 * factor's threshold, and Fisher's p of that association
	 */
	enum diagnosis_feat gap_feat;
	uint32_t gap_slow_hits, gap_fast_hits, gap_nslow, gap_nfast;
	double gap_assoc_p;
	/* the same for the time's mode: slow / fast runs at or past gap.hi */
	uint32_t time_slow_hits, time_fast_hits, time_nslow, time_nfast;
	double time_assoc_p;
	/* max(res_gap's p, gap_assoc_p) with a time factor, else max(gap's p,
	 * time_assoc_p) */
	double mode_p;
	bool mode;
	/* 2. bursts: runs past the threshold clustered in time (runs test),
	 * in at most half as many streaks as a random order gives */
	double runs_p;
	uint32_t bursts;
	double bursts_expected;
	/* the other runs' streaks above their median / chance's: a drift of
	 * the whole workload (1: none; NAN: too few runs) */
	double bulk_streaks;
	/* 1 - bulk_streaks (0 without drift): the chain the runs test takes as H0 */
	double persistence;
	bool bursty;
	bool cpu_bursts; /* bursty, but only CPU time grew: the CPU was slower */
	bool cpu_mode;	 /* a distinct mode, but in those bursts: the same slower CPU */
	/* 3. a resource that grew more than in proportion (the step-2 factor) */
	bool resource;
	enum diagnosis_feat res_feat;
	double res_share;      /* its part of the function's added time */
	double res_fast_share; /* its part of the function's time in fast samples */
	double res_excess;     /* res_share - res_fast_share: growth beyond proportion */
	double res_p;	       /* Mann-Whitney: larger in slow samples */
	/* sampled: the resource shown adds no more than one sample's weight per
	 * run (the resolution), which is where samples fell, not evidence */
	bool res_within;
	/* the function's time is its one resource (the runqueue wait before
	 * an interaction): no proportion to test */
	bool res_itself;
	/*
	 * 3b. more work or a slower CPU (issue 36): a slower CPU (a busy host,
	 * a lower clock, the hypervisor) stretches all of a run's computation
	 * alike, so the rest of the run's CPU time (its thread's, less the
	 * function's) grows in the function's slow runs too and the
	 * function's share of the run's CPU time does not; more work in the
	 * function grows its share and leaves the rest as it was. Over the
	 * runs where the function ran on the run's own thread; work_tested
	 * false when too few (or a launch: no own thread).
	 */
	bool work_tested;
	/* sampled: the shares are parts of the CPU samples of the slow and
	 * fast runs (the run labels), tested by Fisher; the rest over every
	 * run, by the labels (work.c) */
	bool work_sampled;
	uint32_t work_nslow, work_nfast;	 /* runs compared */
	double work_slow_share, work_fast_share; /* median share of the run's CPU time */
	double work_share_p;			 /* Mann-Whitney: the share larger in slow runs */
	/* the share's odds, slow over fast: how many times more the function's
	 * CPU time grew than the rest's, each against its fast level (1: alike) */
	double work_share_growth;
	double rest_slow_ns, rest_fast_ns; /* median CPU time of the rest of the run */
	double rest_p;			   /* Mann-Whitney: the rest larger in slow runs */
	bool slower_cpu; /* the rest grew, the share not twice as much: the CPU, not the function */
	bool more_work;	 /* the share grew twice as much, or the rest did not grow: its own work */
	bool cpu_dismissed; /* the evidence was CPU time alone, and slower_cpu */
	/*
	 * 4. a resource beyond the bulk: ranked by the resource's share of the
	 * function's time in each run, the top runs are the slow ones (Fisher
	 * on the top w runs, the best w, corrected for every w and resource
	 * tried). H0: a run's mix of resources is independent of its label,
	 * as when every resource grows in proportion, however long the tail.
	 */
	bool beyond;
	bool beyond_large; /* its resource holds enough of the added time and slow runs */
	enum diagnosis_feat beyond_feat;
	uint32_t beyond_top;	   /* w: the runs where the resource's share is largest */
	uint32_t beyond_slow;	   /* of them, slow */
	uint32_t beyond_nslow;	   /* slow runs where the function ran */
	uint32_t beyond_n;	   /* runs where the function ran */
	double beyond_cut;	   /* the smallest share among the top w */
	double beyond_fast_median; /* the resource's median share in the fast runs */
	double beyond_added_share; /* its part of the function's added time (run labels) */
	double beyond_p;	   /* Fisher's p of the best w, corrected */
	uint32_t beyond_tests;	   /* the windows x resources the correction is for */
	/* its added time is below co_share of the added latency: whatever the
	 * tests say, it does not explain the slow runs */
	bool small;
	bool significant; /* (mode || bursty || resource || beyond), not CPU-only bursts, !small */
};

#define DIAGNOSIS_MAX_CHAIN 17 /* XLP_MAX_DEPTH marked frames + the function itself */

/*
 * Why a function's time grew (growth.c). First, more calls or longer calls,
 * over the run labels (its added time is over them): with n calls per run
 * on average and t ns per call (a class's time over its calls), the mean
 * time per run is n x t, and exactly
 *   added = (n_slow - n_fast) x t_fast + n_slow x (t_slow - t_fast),
 * more calls at the old price plus the extra price of each call.
 */
struct diagnosis_calls {
	bool exact;		       /* marked: counted calls (a sampled function has none) */
	double calls_slow, calls_fast; /* calls per run */
	double per_call_slow, per_call_fast; /* ns per call (NAN: no call) */
	double from_calls, from_per_call;    /* their sum is the added time */
};

/*
 * Disk work that shows as CPU: on a virtual machine a cold read costs
 * mostly on-CPU time (the VM exit of each request). When a function's
 * added time is on a CPU (its leading factor cpu_run) and its slow runs
 * issued block requests (disk_rq) where its fast ones did not, Fisher's
 * exact test at alpha_evidence, the factor is disk on CPU.
 */
struct diagnosis_disk_cpu {
	bool tested; /* the leading factor is cpu_run and block requests are recorded */
	bool holds;
	/* step-2 samples (runs, by the function's own threshold) with a block request */
	uint32_t slow_with, nslow, fast_with, nfast;
	double rq_slow, rq_fast;       /* block requests per run */
	double bytes_slow, bytes_fast; /* bytes per run */
	double p;
};

/* Kinds of frame a growth can end in, said in words by the reports. */
enum diagnosis_cause {
	DIAGNOSIS_CAUSE_NONE = 0,
	DIAGNOSIS_CAUSE_FAULT,	 /* the page-fault path */
	DIAGNOSIS_CAUSE_LOCK,	 /* a kernel spinlock */
	DIAGNOSIS_CAUSE_SYSCALL, /* a system call (the frame is its entry) */
	DIAGNOSIS_CAUSE_KERNEL,	 /* another kernel function */
	DIAGNOSIS_CAUSE_USER,	 /* a user function below the one named */
};

#define DIAGNOSIS_MAX_WHY 48

/*
 * What grew in the stack samples: the differential tree of the samples of
 * one kind (the leading factor's: on-CPU for cpu_run, the wait's reason
 * for a wait) in slow runs against fast, and the drill-down from its root
 * into the child frame that holds the largest part of the added time, while
 * that child holds at least drill_share of the root's. The frame named is
 * the deepest of that path whose share of the samples grew beyond chance:
 * Fisher's exact test on the sample counts (slow samples through it of all
 * slow samples, against the fast ones) at alpha_evidence; then "clear".
 */
struct diagnosis_why {
	int reason;			  /* XLP_C_* of the samples compared, -1: all */
	struct dataset_diff *diff;	  /* NULL: no sample */
	uint32_t nslow_runs, nfast_runs;  /* the per-run means divide by them */
	uint32_t path[DIAGNOSIS_MAX_WHY]; /* node indices, node 0 (the root) first */
	size_t npath;
	size_t named;	/* index into path; npath when no frame grew beyond chance */
	size_t deepest; /* index into path: the deepest frame not the scheduler's */
	/*
	 * index into path: the application's frame (0: none), the one a
	 * developer acts on: the deepest JIT frame when the path has one
	 * (managed code: its runtime's own frames are below it), else the
	 * deepest user frame not of a runtime library (libc, the dynamic
	 * linker, libstdc++...: dataset_samples.c's runtime_module()); and
	 * lib, the deepest user frame when it is such a library's (0: none)
	 */
	size_t app, lib;
	double p; /* Fisher's p of path[named] (1 when none) */
	bool clear;
	enum diagnosis_cause cause;
	size_t cause_at; /* index into path of the frame the cause is named by */
};

/*
 * The CPU's other tenants (dataset__thieves): when a factor is cpu_wait,
 * who ran on the CPU its threads waited for, over the slow runs, the
 * largest first; per slow run and as a share of those runs' waits.
 */
#define DIAGNOSIS_MAX_THIEVES 4
struct diagnosis_thief {
	uint32_t pid, tid;
	char comm[XLP_COMM_LEN];
	bool own_process, child, kernel_thread;
	double ns;    /* per slow run */
	double share; /* of the slow runs' waits in the scope */
};

struct diagnosis_thieves {
	bool known;	/* the slow runs' waits in the scope have thief records */
	uint64_t waits; /* those records */
	double wait_ns; /* per slow run, the waits the records cover */
	/* per slow run: the idle task, interrupts, the hypervisor, not told */
	double idle_ns, irq_ns, steal_ns, unknown_ns;
	struct diagnosis_thief t[DIAGNOSIS_MAX_THIEVES];
	size_t n;
};

struct diagnosis_critical {
	uint32_t func; /* dataset function named: the deepest of the chain */
	bool gt;
	double threshold_ns; /* labels step 2 */
	/* drill-down: outermost critical function first, func last */
	uint32_t chain[DIAGNOSIS_MAX_CHAIN];
	double chain_added[DIAGNOSIS_MAX_CHAIN]; /* added time of each under the first */
	double chain_thr[DIAGNOSIS_MAX_CHAIN];	 /* the threshold that labels each */
	size_t nchain;
	bool pick_gt; /* the step-1 pick's direction (chain[0]'s) */
	/*
	 * The chain ended in a sampled function whose evidence was too thin
	 * at the samples' resolution: it was judged at its deepest marked
	 * caller instead (func), whose times are exact, and the growth of
	 * the samples under it names the callee. DATASET_NO_FUNC otherwise.
	 */
	uint32_t sampled_end;
	bool surrogate; /* found as a surrogate of another split, not by the tree */
	uint32_t ran;	/* runs that called it (step 2 samples every run) */
	/* never marked: its times are estimated from stack samples, known to
	 * res_ns (the longest sampling period, times the off-CPU thinning) */
	bool sampled;
	double res_ns;
	struct diagnosis_step2 s2;
	struct diagnosis_peer peer; /* most frequent IPC waker in slow samples */
	/* calling-context tree from chain[0], slow runs vs fast (the run
	 * labels); NULL without stack samples through it */
	struct dataset_cct *cct;
	struct diagnosis_evidence ev;
	/* why its time grew (growth.c) */
	struct diagnosis_calls calls;
	struct diagnosis_disk_cpu disk_cpu;
	struct diagnosis_why why;
	/*
	 * Who held it up (issue 22), with a timeline and a waiting factor:
	 * the wait-chain blocker (r->blockers) other than the run's thread
	 * itself that adds the most per slow run over a fast one, when that
	 * is at least factor_share of the function's added time; blocker is
	 * SIZE_MAX otherwise.
	 */
	size_t blocker;
	double blocker_added; /* ns per slow run over a fast one */
	/* a cpu_wait factor: who held the CPU (known false otherwise) */
	struct diagnosis_thieves thieves;
};

/*
 * An answer resting on other threads' CPU work (cpu_work.c): a whole-run
 * wait whose added time they spent on a CPU, or a blocker of the waits
 * followed that was on a CPU. The run's CPU work (its latency less the
 * pieces of its waits that were not a thread on a CPU or its own runqueue
 * wait) is judged as a function's CPU time is: out of proportion to the
 * latency, or a distinct mode not in bursts; else the answer is dismissed.
 */
struct diagnosis_cpu_work {
	bool tested;	/* the answer's added time was mostly other threads on a CPU */
	bool dismissed; /* and the run's CPU work explains nothing beyond a slower CPU */
	double proxy;	/* of the answer's added time, the part other threads spent on a CPU */
	double share, fast_share, excess; /* the CPU work's part of the added / fast latency */
	double p_mw;
	bool out_of_proportion;
	double threshold; /* the split: as many runs above it as are slow */
	struct stats_gap gap;
	bool mode;
	double runs_p, bursts_expected;
	uint32_t bursts;
	bool bursty;
};

/*
 * No function named, but the whole run explains the slow runs: the
 * baseline's time factor whose runs past its threshold are the slow ones
 * (Fisher's exact test at alpha_evidence) and that either grew out of
 * proportion (its part of the added latency minus its part of the fast
 * runs' latency at least excess_share, as evidence 3) or forms a distinct
 * mode (evidence 1's gap test at alpha_evidence; not when only cpu_run
 * grew and its runs come in bursts: the CPU ran slower at times); with
 * the samples of that resource (the wait's reason, or on-CPU) below the
 * interaction: where the stacks go.
 */
struct diagnosis_fallback {
	bool tested, holds;
	bool own; /* on the run's own thread (dataset_run.own), not the process's counters */
	enum diagnosis_feat feat;
	double threshold;
	uint32_t slow_hits, nslow, fast_hits, nfast;
	double p;	   /* Fisher: the slow runs are those past the threshold */
	double share;	   /* its part of the added latency */
	double fast_share; /* its part of the fast runs' latency */
	double excess;	   /* share - fast_share */
	double p_mw;	   /* Mann-Whitney: larger in slow runs (printed) */
	/* or a distinct mode of the factor's values past the threshold (evidence 1's
	 * gap test), unless only CPU time grew in bursts: a slower CPU at times */
	struct stats_gap gap;
	double runs_p; /* runs test over the runs past the threshold in time order */
	uint32_t bursts;
	double bursts_expected;
	bool mode, out_of_proportion, cpu_bursts;
	/*
	 * Disk work that shows as CPU, for the whole run: when the factor
	 * tested is cpu_run and neither test holds, the slow runs' block
	 * requests (disk_rq over the run, all threads) against the fast runs'
	 * (struct diagnosis_disk_cpu's rule); holding, it is the answer.
	 */
	struct diagnosis_disk_cpu disk_cpu;
	struct diagnosis_why why;
	/* who held the runs up, as diagnosis_critical's (a waiting factor, a timeline) */
	size_t blocker;
	double blocker_added;
	/* a wait that was other threads' CPU work: dismissed, holds is false */
	struct diagnosis_cpu_work cpu_work;
	/* feat cpu_wait: who held the CPU the run's thread waited for */
	struct diagnosis_thieves thieves;
};

/* A precondition's test on one function: lo < time <= hi (tests merged). */
struct diagnosis_cond {
	uint32_t func;
	bool has_lo, has_hi;
	double lo_ns, hi_ns;
	bool slow_side; /* one of the merged tests is its node's slow side */
};

struct diagnosis_precond {
	struct diagnosis_cond *conds;
	size_t ncond;
	uint32_t slow_runs, runs; /* at the leaf */
};

/* Per-function table row (medians over the runs where it ran). */
struct diagnosis_func_row {
	uint32_t func;
	uint32_t runs;
	double time_median, time_slow_median, time_fast_median;
	double median[DIAGNOSIS_NFEAT];
};

/* A function step 1 singles out, with the split that labels its runs. */
struct diagnosis_pick {
	uint32_t func;
	bool gt;
	double threshold_ns;
	bool surrogate;
};

struct diagnosis {
	enum diagnosis_status status;
	bool insignificant; /* DIAGNOSIS_NO_PRECOND: below --min-slowdown, or no evidence */
	double min_slowdown;
	double alpha_evidence; /* a test counts at this p-value or below */
	double excess_share;   /* evidence 3's bar (diagnosis_opts) */
	struct labels_rule rule;
	struct labels_summary lab;
	uint8_t *slow;	   /* per run */
	uint32_t features; /* XLP_FEAT_* common to all files */
	/* step 1 */
	uint32_t *cand; /* tree feature index -> function */
	size_t ncand;
	struct dtree *tree;
	struct diagnosis_precond *pre;
	size_t npre, npre_dropped; /* dropped: leaves covering too few slow runs */
	/* step 1 picks: tree nodes on the slow side, then their surrogates */
	struct diagnosis_pick *picks;
	size_t npicks;
	/* named functions: ncrit with evidence (largest added time first), then
	 * nrejected without (the report says why) */
	struct diagnosis_critical *crit;
	size_t ncrit, nrejected;
	/* baseline (section V-D) */
	bool has_base;
	struct diagnosis_step2 base;
	bool agrees;
	/* the same tree over the runs' own thread (struct dataset_run.own): what the
	 * whole-run fallback tests, as the other threads' time adds up to
	 * nothing (idle helpers asleep for the whole run track its latency) */
	bool has_own;
	struct diagnosis_step2 own;
	struct diagnosis_fallback fallback; /* DIAGNOSIS_NO_PRECOND: the whole run's answer */
	/* who held the CPU while the runs' threads waited before their
	 * handler (prewake), over the slow runs; known false without */
	struct diagnosis_thieves queued_thieves;
	/* functions by median time */
	struct diagnosis_func_row *rows;
	size_t nrows;
	/* with a timeline (record --timeline): the runs' wait chains
	 * (waitchain.h) and their blockers summed over slow and fast runs;
	 * NULL and 0 without one */
	struct waitchain *waits;
	struct waitchain_blocker *blockers;
	size_t nblockers;
	/*
	 * DIAGNOSIS_NO_PRECOND, no whole-run answer, and chains: the blocker whose
	 * part of each run's latency ranks the slow runs first (evidence 4's
	 * test over the chains' pieces, diagnosis.c), when it holds
	 * factor_share of the added latency
	 */
	struct diagnosis_wait_answer {
		bool tested, holds;
		size_t blocker;		 /* index in blockers */
		double slow_ns, fast_ns; /* per slow / fast run */
		double share;		 /* of the added latency */
		struct stats_top top;	 /* the ranked runs' test */
		double p;		 /* top.p corrected for every window of every blocker */
		uint32_t tests, tried;	 /* windows, blockers */
		/* blockers on a CPU: the run's CPU work judged (dismissed: none holds) */
		struct diagnosis_cpu_work cpu_work;
	} wait_answer;
	/*
	 * record --task-post / --task-run: the async tasks (tasks.h), NULL
	 * without task events; and whether the runs' tasks' queue time
	 * explains the slow runs (task_answer.c): ranked by the part of
	 * their latency their tasks spent queued, are the top runs the slow
	 * ones (evidence 4's test, stats__top_share)? When it holds factor_share
	 * of the added latency, what held the queue: the task function whose
	 * executions overlapped the queued time most, per slow run over fast
	 */
	struct tasks *tasks;
	struct diagnosis_task_answer {
		bool tested, holds;
		uint32_t slow_tasks, fast_tasks;     /* posted in slow / fast runs */
		double slow_queue_ns, fast_queue_ns; /* per slow / fast run */
		double slow_exec_ns, fast_exec_ns;
		double share; /* (slow - fast queue) / added latency */
		struct stats_top top;
		double p;	   /* top.p corrected for its windows */
		uint32_t func;	   /* what held the queue, DATASET_NO_FUNC: unknown */
		double held_ns;	   /* by it, per slow run minus per fast run */
		uint32_t run_tid;  /* a worker that ran it (the most time) */
		uint32_t own_func; /* the runs' own tasks' function (most queue time) */
	} task_answer;
};

/* Negative errno, with a one-line reason in err. */
int diagnosis__run(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis **out,
		   char *err, size_t errlen);
void diagnosis__free(struct diagnosis *r); /* accepts NULL */

/* The XLP_C_* counter of a factor's samples (on-CPU for cpu_run and cpu_freq), -1: none. */
int diagnosis__feat_reason(enum diagnosis_feat f);
/* Per-run mean weight of a differential node in slow runs minus in fast runs (ns). */
double diagnosis__why_added(const struct diagnosis_why *g, const struct dataset_diff_node *x);

#endif
