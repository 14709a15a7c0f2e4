/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Async tasks (record --task-post / --task-run; analysis/waits/tasks.h) in the
 * text and JSON reports: per task function, how many, queue time and
 * execution per task in slow runs and in fast ones; the queue's answer
 * and what held it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report_model.h"
#include "report.h"

struct fn_row {
	uint32_t n[2];		  /* tasks of fast [0] / slow [1] runs */
	double queue[2], exec[2]; /* summed */
	uint32_t other;		  /* tasks posted outside any run */
};

static const char *fname(const struct dataset *ds, uint32_t f)
{
	return f < dataset__nfuncs(ds) ? dataset__func(ds, f)->name : "(unknown)";
}

/* The symbol as in the binary, beside fname() in JSON. */
static const char *fsym(const struct dataset *ds, uint32_t f)
{
	return f < dataset__nfuncs(ds) ? dataset__func(ds, f)->symbol : NULL;
}

const char *report__task_clause(const struct dataset *ds, const struct diagnosis *r, char *buf,
				size_t len)
{
	const struct diagnosis_task_answer *a = &r->task_answer;
	char s[32], f[32], h[32], sh[256];
	int n;

	buf[0] = 0;
	if (!a->holds)
		return buf;
	n = snprintf(buf, len,
		     "its tasks (%s) waited in the queue %s per slow run against %s per fast one, "
		     "%s",
		     fname(ds, a->own_func), report__dur(a->slow_queue_ns, s, sizeof(s)),
		     report__dur(a->fast_queue_ns, f, sizeof(f)),
		     report__share(a->share, sh, sizeof(sh)));
	if (n > 0 && (size_t)n < len && a->func != DATASET_NO_FUNC && a->held_ns > 0)
		snprintf(buf + n, len - (size_t)n,
			 ", behind %s tasks on the workers (%s per slow run more than per fast "
			 "one, tid %u)",
			 fname(ds, a->func), report__dur(a->held_ns, h, sizeof(h)), a->run_tid);
	return buf;
}

static struct fn_row *rows_of(const struct dataset *ds, const struct diagnosis *r)
{
	size_t nf = dataset__nfuncs(ds);
	struct fn_row *rows = calloc(nf + 1, sizeof(*rows));

	if (!rows)
		return NULL;
	for (size_t i = 0; i < tasks__n(r->tasks); i++) {
		const struct tasks_task *t = tasks__task(r->tasks, i);
		struct fn_row *x = &rows[t->func < nf ? t->func : nf];
		int k;

		if (t->run == TASKS_NO_RUN || !r->slow) {
			x->other++;
			continue;
		}
		k = !!r->slow[t->run];
		x->n[k]++;
		x->queue[k] += (double)(t->start_ns - t->post_ns);
		x->exec[k] += (double)(t->end_ns - t->start_ns);
	}
	return rows;
}

/* A per-task time, "-" without tasks (null in the model). */
static const char *per(const struct report_node *x, const char *key, char *buf, size_t len)
{
	return report_node__is_null(report_node__get(x, key))
		       ? "-"
		       : report_node__fmt_at(x, key, buf, len);
}

void report__tasks_text(FILE *f, const struct report_node *m)
{
	const struct report_node *t = report_node__get(m, "tasks"), *fns, *a;
	char b[4][32], sh[256], p[32];

	if (!t)
		return;
	report_node__print(f, t,
			   "\nAsync tasks (--task-post / --task-run): {#posted} posted, {#started} "
			   "started, {#matched} matched ({#unstarted} never started, {#unposted} "
			   "started unposted, {#no_call} without their call)\n");
	fns = report_node__get(t, "functions");
	fprintf(f, "  %-24s %6s %6s %6s  %21s  %21s\n", "task", "slow", "fast", "other",
		"queue slow / fast", "run slow / fast");
	for (size_t i = 0; i < report_node__len(fns); i++) {
		const struct report_node *x = report_node__at(fns, i);
		const char *fn = report_node__str_at(x, "function");

		fprintf(f, "  %-24s %6u %6u %6u  %10s / %-9s  %10s / %-9s\n", fn ? fn : "(unknown)",
			(unsigned)report_node__uint_at(x, "slow_tasks"),
			(unsigned)report_node__uint_at(x, "fast_tasks"),
			(unsigned)report_node__uint_at(x, "other_tasks"),
			per(x, "slow_queue_ns_per_task", b[0], 32),
			per(x, "fast_queue_ns_per_task", b[1], 32),
			per(x, "slow_run_ns_per_task", b[2], 32),
			per(x, "fast_run_ns_per_task", b[3], 32));
	}
	fprintf(f,
		"  (per task; slow / fast: posted in a slow / fast run; other: outside any run)\n");
	a = report_node__get(t, "answer");
	if (report_node__is_null(a))
		return;
	fprintf(f,
		"  queue per run: %s slow, %s fast (%s); the %u runs where it takes the "
		"largest part of the latency hold %u of the %u slow runs (Fisher %s)%s\n",
		report_node__fmt_at(a, "slow_queue_ns_per_run", b[0], 32),
		report_node__fmt_at(a, "fast_queue_ns_per_run", b[1], 32),
		report__share(report_node__num_at(a, "share_of_added"), sh, sizeof(sh)),
		(unsigned)report_node__uint_at(a, "top_runs"),
		(unsigned)report_node__uint_at(a, "top_slow"),
		(unsigned)report_node__uint_at(a, "slow_runs"),
		report__p(report_node__num_at(a, "p"), p, sizeof(p)),
		report_node__bool_at(a, "holds") ? ": it explains the slow runs" : "");
	if (report_node__bool_at(a, "holds") && report_node__str_at(a, "text")[0])
		fprintf(f, "  %s\n", report_node__str_at(a, "text"));
}

static const struct jsonw_field tk_info_f[] = {
	JSONW_F(struct tasks_info, posts, "posted"),
	JSONW_F(struct tasks_info, starts, "started"),
	JSONW_F(struct tasks_info, tasks, "matched"),
	JSONW_F(struct tasks_info, unstarted, "unstarted"),
	JSONW_F(struct tasks_info, unposted, "unposted"),
	JSONW_F(struct tasks_info, no_call, "no_call"),
};

static const struct jsonw_field task_answer_f[] = {
	JSONW_F(struct diagnosis_task_answer, holds, "holds"),
	JSONW_F_ROUND(struct diagnosis_task_answer, slow_queue_ns, "slow_queue_ns_per_run"),
	JSONW_F_ROUND(struct diagnosis_task_answer, fast_queue_ns, "fast_queue_ns_per_run"),
	JSONW_F_ROUND(struct diagnosis_task_answer, slow_exec_ns, "slow_run_ns_per_run"),
	JSONW_F_ROUND(struct diagnosis_task_answer, fast_exec_ns, "fast_run_ns_per_run"),
	JSONW_F(struct diagnosis_task_answer, share, "share_of_added"),
	JSONW_F(struct diagnosis_task_answer, top.w, "top_runs"),
	JSONW_F(struct diagnosis_task_answer, top.hits, "top_slow"),
	JSONW_F(struct diagnosis_task_answer, top.nslow, "slow_runs"),
	JSONW_F(struct diagnosis_task_answer, p, "p"),
};

/* per task of a class (1: slow, 0: fast), NAN without one */
static double per_task(const struct fn_row *x, const double *sum, int slow)
{
	return x->n[slow] ? sum[slow] / x->n[slow] : NAN;
}

void report_model__tasks(struct report_model *m, const struct dataset *ds,
			 const struct diagnosis *r)
{
	const struct diagnosis_task_answer *a = &r->task_answer;
	const struct tasks_info *in;
	size_t nf = dataset__nfuncs(ds);
	struct fn_row *rows;
	char line[1024];

	if (!r->tasks)
		return;
	in = tasks__info(r->tasks);
	report_model__begin_obj(m, "tasks");
	report_model__fields_of(m, in, tk_info_f);
	report_model__begin_arr(m, "functions");
	rows = rows_of(ds, r);
	for (size_t i = 0; rows && i <= nf; i++) {
		const struct fn_row *x = &rows[i];

		if (!x->n[0] && !x->n[1] && !x->other)
			continue;
		report_model__begin_obj(m, NULL);
		report_model__str(m, "function", i < nf ? fname(ds, (uint32_t)i) : NULL);
		report_model__str(m, "symbol", i < nf ? fsym(ds, (uint32_t)i) : NULL);
		report_model__uint(m, "slow_tasks", x->n[1]);
		report_model__uint(m, "fast_tasks", x->n[0]);
		report_model__uint(m, "other_tasks", x->other);
		report_model__round(m, "slow_queue_ns_per_task", per_task(x, x->queue, 1));
		report_model__round(m, "fast_queue_ns_per_task", per_task(x, x->queue, 0));
		report_model__round(m, "slow_run_ns_per_task", per_task(x, x->exec, 1));
		report_model__round(m, "fast_run_ns_per_task", per_task(x, x->exec, 0));
		report_model__end_obj(m);
	}
	free(rows);
	report_model__end_arr(m);
	if (!a->tested) {
		report_model__null(m, "answer");
		report_model__end_obj(m);
		return;
	}
	report_model__begin_obj(m, "answer");
	report_model__fields_of(m, a, task_answer_f);
	report_model__str(m, "function",
			  a->own_func != DATASET_NO_FUNC ? fname(ds, a->own_func) : NULL);
	report_model__str(m, "symbol",
			  a->own_func != DATASET_NO_FUNC ? fsym(ds, a->own_func) : NULL);
	report_model__str(m, "held_by", a->func != DATASET_NO_FUNC ? fname(ds, a->func) : NULL);
	report_model__str(m, "held_by_symbol",
			  a->func != DATASET_NO_FUNC ? fsym(ds, a->func) : NULL);
	report_model__round(m, "held_ns_per_slow_run",
			    a->func != DATASET_NO_FUNC ? a->held_ns : NAN);
	report_model__uint(m, "held_by_tid", a->run_tid);
	report_model__str(m, "text", report__task_clause(ds, r, line, sizeof(line)));
	report_model__end_obj(m);
	report_model__end_obj(m);
}
