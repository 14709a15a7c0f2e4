/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Report writers: text for a terminal, JSON (schema xlprobe-report/3), HTML.
 * Every sentence of a report is written here: the analysis below gives
 * numbers and enums only.
 */
#ifndef XLP_REPORT_H
#define XLP_REPORT_H

#include <stdio.h>
#include "diagnosis.h"

int report__text(FILE *f, const struct dataset *ds, const struct diagnosis *r);
int report__json(FILE *f, const struct dataset *ds, const struct diagnosis *r);
int report__html(FILE *f, const struct dataset *ds, const struct diagnosis *r);

/* ---- xlprobe issues (analysis/issues/issues.h): report_issues.c ---- */

struct issues;
int report__issues_text(FILE *f, const struct issues *s);
int report__issues_json(FILE *f, const struct issues *s);
int report__issues_html(FILE *f, const struct issues *s);
/* "2026-11-28T01:02:03.456Z" (UTC); "-" for a negative instant. */
const char *report__utc(int64_t ns, char *buf, size_t len);

/* ---- report --growth (analysis/growth/growth.h): report_growth.c, report_html_growth.c ---- */

struct growth_result;
struct growth_series;
struct jsonw;
int report__growth_text(FILE *f, const struct dataset *ds, const struct growth_result *r);
int report__growth_json(FILE *f, const struct dataset *ds, const struct growth_result *r);
int report__growth_html(FILE *f, const struct dataset *ds, const struct growth_result *r);
/* The one-line prediction: which function takes the run over, or why none is predicted. */
void report__growth_verdict(const struct dataset *ds, const struct growth_result *r, char *buf,
			    size_t len);
/* "calls", "time", "self", "cpu_run"... */
const char *report__growth_metric(int metric);
/* "n^2/128", "2.1 ns x n log n" */
const char *report__growth_term(const struct growth_series *s, char *buf, size_t len);
void report__growth_json_obj(struct jsonw *w, const struct dataset *ds,
			     const struct growth_result *r);

/* The one-sentence answer every report ends with (or starts with, in HTML). */
struct report_verdict {
	char text[1024];
	char note[256]; /* why, when the verdict alone does not say it ("" otherwise) */
};

void report__verdict(const struct dataset *ds, const struct diagnosis *r, struct report_verdict *v);

/* ---- shared helpers ---- */

/* "41.2 ms", "870 us"; NAN -> "n/a". */
const char *report__dur(double ns, char *buf, size_t len);
/* A feature's value: a duration, or "1.20 GHz" for cpu_freq. */
const char *report__value(enum diagnosis_feat f, double v, char *buf, size_t len);
/* Loss counters: name and meaning of each, non-zero ones only. */
struct report_drop {
	const char *name, *what;
	uint64_t count;
	/* left out on purpose (record --lag), not lost: shown apart */
	bool chosen;
};
#define REPORT_MAX_DROPS 32
size_t report__drops(const struct dataset *ds, struct report_drop *out, size_t max);
/*
 * Whether the analysis rests on a partial sample: more than XLP_LOSS_CAVEAT
 * of the records the programs sent were lost. Returns the caveat the
 * verdict starts with ("" when none); lost / sent filled in either way.
 */
const char *report__caveat(const struct dataset *ds, uint64_t *lost, uint64_t *sent, char *buf,
			   size_t len);
/* The runs' runqueue wait before their handler (record's prewake). */
struct report_queued {
	size_t runs;			 /* runs that hold some */
	double slow_median, fast_median; /* per run, ns (NAN: no such run) */
	double share;			 /* of the added latency (slow mean - fast mean) */
};
void report__queued(const struct dataset *ds, const struct diagnosis *r, struct report_queued *q);
/*
 * Who held the CPU (report_thief.c): "the CPU was taken by redis-rdb-bgsave
 * (pid 4242, a child of the server) 88 %"; "" when nothing is known or no
 * one took a share worth naming.
 */
const char *report__thieves(const struct diagnosis_thieves *t, char *buf, size_t len);
/* One thief as the clause names it: "its own thread node:V8 worker (tid 12)". */
const char *report__thief(const struct diagnosis_thief *t, char *buf, size_t len);
/* The "thieves" object of a JSON answer (docs/json.md). */
void report__thieves_json(struct jsonw *w, const char *key, const struct diagnosis_thieves *t);
/*
 * record --lag: the runs written as their call alone, kept out of the
 * analysis (dataset__summary_runs), and the threshold and K they were
 * recorded with (those of the first trace that has them; 0 without).
 */
struct report_summary {
	size_t runs;
	double median_ns, max_ns; /* NAN without such runs */
	uint64_t lag_ns;
	uint32_t keep;
};
void report__summary(const struct dataset *ds, struct report_summary *s);
/* What the recording could not measure, one line each ("CPU frequency: unavailable (...)"). */
size_t report__unavailable(uint32_t features, const char **out, size_t max);
/* A precondition's test: "f > 1.2 ms", "f <= 3 ms", "1.2 ms < f <= 3 ms". */
const char *report__cond(const struct dataset *ds, const struct diagnosis_cond *c, char *buf,
			 size_t len);
/* The drill-down chain: "ExecutorRun → index_getnext_slot → FileRead". */
const char *report__chain(const struct dataset *ds, const struct diagnosis_critical *c, char *buf,
			  size_t len);
/* "p = 3e-09", "p < 1e-15". */
/* --func BINARY:SYMBOL for each sampled function of the critical chains. */
const char *report__func_args(const struct dataset *ds, const struct diagnosis *r, char *buf,
			      size_t len);
/*
 * A calling-context tree as shown: node indices depth first, each node's
 * children by their time in slow runs, only nodes holding at least
 * REPORT_CCT_SHARE of the root's time (per run, slow or fast): a display
 * cut, the same in text and JSON.
 */
#define REPORT_CCT_SHARE 0.05
size_t report__cct_order(const struct dataset_cct *t, const struct diagnosis *r, uint32_t *out,
			 size_t max);
/* A node's counter c (XLP_C_*) per slow (or fast) run. */
double report__cct_mean(const struct dataset_cct_node *x, const struct diagnosis *r, bool slow,
			int c);
const char *report__p(double p, char *buf, size_t len);
/*
 * The evidence of a critical function, lines separated by '\n': its
 * added time and share of the added latency, each test with its outcome,
 * and the conclusion.
 */
const char *report__evidence(const struct diagnosis *r, const struct diagnosis_critical *c,
			     char *buf, size_t len);
/* Not accused, but some test came near (p <= 0.05): more runs may settle it. */
bool report__thin(const struct diagnosis *r, const struct diagnosis_evidence *e);
/* The labelling rule: "median + 1.5σ", "--slow 250.0 ms", "automatic 2-class split (Otsu)". */
const char *report__label_rule(const struct labels_rule *rule, char *buf, size_t len);
/* The result's rule (report__label_rule). */
const char *report__rule(const struct diagnosis *r, char *buf, size_t len);

/* ---- why a function's time grew (report_why.c) ---- */

/* "87 % of the added latency"; above 100 %: "all of the added latency (1.9x it: ...)". */
const char *report__share(double share, char *buf, size_t len);
/* A differential node's frame: "FileRead", "pread64 (libc.so.6)", "[k] clear_page_erms". */
const char *report__frame(const struct dataset *ds, const struct dataset_diff_node *x, char *buf,
			  size_t len);
/* "app → library → [k] kernel" where the samples of g reach (empty when none) */
const char *report__reach(const struct dataset *ds, const struct diagnosis_why *g, char *buf,
			  size_t len);
/* What the samples' kind is, in words: "on a CPU", "waiting for the disk"... */
const char *report__reason(int reason);
/* The cause of a clear why path in a few words ("page faults (asm_exc_page_fault)"); "" if none. */
const char *report__because(const struct dataset *ds, const struct diagnosis_why *g, char *buf,
			    size_t len);
/*
 * The lines (separated by '\n') on why a critical function's time grew: calls
 * against time per call, block requests of on-CPU growth, the samples'
 * drill-down path with counts, and the conclusion.
 */
const char *report__why(const struct dataset *ds, const struct diagnosis *r,
			const struct diagnosis_critical *c, char *buf, size_t len);
/* The samples' drill-down path, one line per frame, then the conclusion. */
const char *report__why_path(const struct dataset *ds, const struct diagnosis *r,
			     const struct diagnosis_why *g, bool test, char *buf, size_t len);
/*
 * The differential flame graph of a why path as shown (HTML; its node count
 * in JSON): node indices depth first, children by their samples' time in
 * slow runs, only nodes holding at least REPORT_DIFF_SHARE of the root's
 * time in slow or in fast runs.
 */
#define REPORT_DIFF_SHARE 0.01
#define REPORT_MAX_DIFF 128 /* at most this many nodes */
size_t report__diff_order(const struct diagnosis_why *g, uint32_t *out, size_t max);
/* The whole-run fallback's test, one line. */
const char *report__fallback(const struct diagnosis *r, char *buf, size_t len);
/* An answer that rested on other threads' CPU work, judged (cpu_work.c); "" when untested */
const char *report__cpu_work(const struct diagnosis_cpu_work *w, char *buf, size_t len);

/* ---- wait chains of a timeline (report_waits.c) ---- */

struct jsonw;

#define REPORT_MAX_BLOCKERS 64 /* listed in JSON, largest in slow runs first */
/* The slow (fast) run whose latency is nearest the class's median; SIZE_MAX: none. */
size_t report__typical_run(const struct dataset *ds, const struct diagnosis *r, bool slow);
/* A blocker in words: "pool-1 (tid 812) on a CPU in load_index", "the disk, through pool-1 (tid
 * 812)". */
const char *report__blocker(const struct dataset *ds, const struct waitchain_blocker *b, char *buf,
			    size_t len);
/* The text section and the JSON key "wait_chains"; nothing without a timeline. */
void report__waits_text(FILE *f, const struct dataset *ds, const struct diagnosis *r);
void report__waits_json(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r);

/* ---- async tasks (report_tasks.c) ---- */

/* The verdict's clause on the runs' tasks' queue: "its tasks waited in the queue ..." */
const char *report__task_clause(const struct dataset *ds, const struct diagnosis *r, char *buf,
				size_t len);
/* The text section and the JSON key "tasks"; nothing without task events. */
void report__tasks_text(FILE *f, const struct dataset *ds, const struct diagnosis *r);
void report__tasks_json(struct jsonw *w, const struct dataset *ds, const struct diagnosis *r);

#endif
