/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internals shared by the analysis steps. */
#ifndef XLP_DIAGNOSIS_IMPL_H
#define XLP_DIAGNOSIS_IMPL_H

#include "diagnosis.h"

/*
 * Which features are measured, and which go to the tree: sleep_s/sleep_d
 * are the sum of the wait reasons and would tie with them, so they replace
 * the reasons only when the reasons are unknown (no XLP_FEAT_SYSCALLS).
 */
void diagnosis__feature_sets(uint32_t features, bool *avail, bool *used);

/* Input of a step-2 tree: one sample per run where the function ran. */
struct diagnosis_s2_input {
	size_t n;
	double *x; /* DIAGNOSIS_NFEAT x n, column-major; cpu_freq NANs are imputed in place */
	const double *cycles; /* n: sum of FREQ_KHZ_NS (work), for the frequency check */
	const double *time;   /* n: the function's time (or the run latency) */
	const uint8_t *slow;  /* n */
	uint32_t features;
	double time_ref; /* significance reference: median time of the function */
};

int diagnosis__step2_fit(const struct diagnosis_s2_input *in, const struct diagnosis_opts *o,
			 struct diagnosis_step2 *s);
void diagnosis__step2_release(struct diagnosis_step2 *s);
/* no factor in the tree: f (beyond the bulk) at its best split, without the gap rule */
int diagnosis__step2_factor_of(const struct diagnosis_s2_input *in, const struct diagnosis_opts *o,
			       struct diagnosis_step2 *s, enum diagnosis_feat f);

/* r->cand: union over runs of each run's K longest functions (PerfProbe IV-B). */
int diagnosis__candidates(const struct dataset *ds, unsigned K, struct diagnosis *r);
/* Step 1 on the candidates: tree, preconditions, critical functions. */
int diagnosis__step1(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r);

/* Minimum slow samples a precondition's leaf must hold. */
uint32_t diagnosis__min_cover(const struct diagnosis_opts *o, uint32_t nslow);
/* the runs' async tasks and their queue's answer (task_answer.c) */
/* Who held the CPU for the cpu_wait answers (thieves.c): 0 or negative errno, err set. */
int diagnosis_thieves(const struct dataset *ds, struct diagnosis *r, char *err, size_t errlen);
int diagnosis_task_answer(const struct dataset *ds, const struct diagnosis_opts *o,
			  struct diagnosis *r, char *err, size_t errlen);

/* Step 2 of critical function k (resources slot k), peer included. */
int diagnosis__critical_step2(const struct dataset *ds, const struct diagnosis_opts *o,
			      struct diagnosis *r, const struct resources *res, size_t k);
/* The same tree on whole-run usage, labelled by the run labels; r->agrees. */
int diagnosis__baseline(const struct dataset *ds, const struct diagnosis_opts *o,
			struct diagnosis *r);
/* The table's functions (the candidates, longest median time first)... */
int diagnosis__pick_rows(const struct dataset *ds, const struct diagnosis_opts *o,
			 struct diagnosis *r);
/* ... and their resource medians (resources slot k). */
int diagnosis__fill_row(const struct dataset *ds, const struct resources *res, size_t k,
			struct diagnosis_func_row *row);

/* Mean of v over slow runs minus over fast runs (0 when a class is empty). */
double diagnosis__added(const double *v, const uint8_t *slow, size_t n);
/* Mean of v over the slow (want 1) or fast (0) runs, NANs left out; NAN when none. */
double diagnosis__class_mean(const double *v, const uint8_t *slow, size_t n, int want);
/*
 * In proportion or not (PerfProbe's growth beyond proportion): if the slow
 * side only did more of the same, a part v of a whole w (a resource of the
 * function's time, or of the run's latency) keeps its share, and its part
 * of w's added time equals its part of w in the fast runs. share: v's
 * added time over w's (NAN unless w grew); fast_share: v's part of w in the
 * fast runs (0 when w is 0 there, NAN without fast runs); excess: the
 * first less the second, the part of the slowdown that changed its nature.
 */
struct diagnosis_proportion {
	double share, fast_share, excess;
};
struct diagnosis_proportion diagnosis_proportion(const double *v, const double *w,
						 const uint8_t *slow, size_t n);
/* Function f's best "time > thr" split against the run labels, if admissible. */
int diagnosis__own_split(const struct dataset *ds, const struct diagnosis_opts *o,
			 const struct diagnosis *r, uint32_t f, bool *found, double *thr);
/* A pick followed down its callees: the chain, each link's added time under the pick. */
struct diagnosis_drill {
	uint32_t chain[DIAGNOSIS_MAX_CHAIN];
	double added[DIAGNOSIS_MAX_CHAIN];
	double thrs[DIAGNOSIS_MAX_CHAIN]; /* each one's own threshold */
	size_t n;
	double thr; /* of the last */
};
/* Of the np drills, the one that names the function drill k reaches (k itself, or another). */
size_t diagnosis__chain_of(const struct diagnosis_drill *d, size_t np, size_t k, double share);
/* r->crit from r->picks: drill-down through nested marked calls (one trace pass). */
int diagnosis__chains(const struct dataset *ds, const struct diagnosis_opts *o, struct diagnosis *r,
		      char *err, size_t errlen);
/* A run (or sample) in time order: by file, then start, then index i. */
struct diagnosis_order {
	uint32_t file;
	uint64_t start;
	size_t i;
};
int diagnosis__order_cmp(const void *a, const void *b);

/*
 * cpu_work.c: the runs' CPU work, for an answer whose added time
 * (answer_added ns per slow run over a fast one) rests on waits: tested
 * when other threads on a CPU hold half of it at least (all_ran: the
 * answer is such a blocker).
 */
int diagnosis_cpu_work(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r, double answer_added, bool all_ran,
		       struct diagnosis_cpu_work *w);

/* Evidence 2 (significance.c) over any per-run values: diagnosis_evidence's fields */
struct diagnosis_bursts {
	uint32_t nslow_side; /* runs past the threshold */
	double runs_p;
	uint32_t bursts;
	double bursts_expected;
	double bulk_streaks, persistence;
	bool bursty;
};
int diagnosis_bursts(const double *t, const struct diagnosis_order *ord, size_t n, double threshold,
		     bool gt, const struct diagnosis_opts *o, struct diagnosis_bursts *b);
/* Evidence 1 and 2 and the shares of c (3 comes from its step 2). */
int diagnosis_evidence(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r, struct diagnosis_critical *c);
/* Accepted critical functions first, largest added time first; sets ncrit / nrejected. */
void diagnosis__rank(struct diagnosis *r);

/* Why critical function k's time grew: calls, disk on CPU (resources slot k), samples. */
int diagnosis__why_step(const struct dataset *ds, const struct diagnosis_opts *o,
			struct diagnosis *r, const struct resources *res, size_t k);
/* r->fallback, when no function is accused. */
int diagnosis_fallback(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r);
void diagnosis__why_release(struct diagnosis_why *g);

#endif
