/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one-sentence answer at the end of every report. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

static void put(struct report_verdict *v, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(struct report_verdict *v, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= sizeof(v->text))
		return;
	va_start(ap, fmt);
	n = vsnprintf(v->text + *len, sizeof(v->text) - *len, fmt, ap);
	va_end(ap);
	*len += n > 0 ? (size_t)n : 0;
}

static void critical(const struct dataset *ds, const struct diagnosis *r, size_t i,
		     struct report_verdict *v, size_t *len)
{
	const struct diagnosis_critical *c = &r->crit[i];
	char t[32], val[32], chain[256], sh[256], why[600], thief[400];

	put(v, len, "%s%s %s %s", i ? "; and " : "", dataset__func(ds, c->func)->name,
	    c->gt ? ">" : "<=", report__dur(c->threshold_ns, t, sizeof(t)));
	if (c->nchain > 1)
		put(v, len, " (%s)", report__chain(ds, c, chain, sizeof(chain)));
	if (!isnan(c->ev.share))
		put(v, len, ", %s,", report__share(c->ev.share, sh, sizeof(sh)));
	if (!c->s2.nfactors) {
		put(v, len, " (no resource factor found)");
		return;
	}
	for (size_t k = 0; k < c->s2.nfactors; k++) {
		const struct diagnosis_factor *f = &c->s2.factors[k];

		put(v, len, "%s%s %s %s", k ? ", " : " because of ", diagnosis__feat_name(f->feat),
		    f->gt ? ">" : "<=", report__value(f->feat, f->threshold, val, sizeof(val)));
		if (f->feat == DIAGNOSIS_IPC && c->peer.found)
			put(v, len, " (waiting for pid %u (%s))", c->peer.pid, c->peer.comm);
		if (f->feat == DIAGNOSIS_CPU_WAIT &&
		    report__thieves(&c->thieves, thief, sizeof(thief))[0])
			put(v, len, ": %s", thief);
		if (!k && c->disk_cpu.holds)
			put(v, len, " (disk on CPU: the VM's synchronous I/O)");
	}
	/* the one-line "because": only when a frame's share grew beyond chance */
	if (report__because(ds, &c->why, why, sizeof(why))[0])
		put(v, len, ", grown in %s", why);
	/*
	 * else where its samples went through a library (issue 34: the
	 * application's frame, then the library's): nginx's
	 * ngx_linux_sendfile_chain "; its samples reach sendfile (libc.so.6)
	 * → [k] folio_wait_bit_common"
	 */
	else if (c->why.diff && c->why.lib)
		put(v, len, "; its samples (%s) reach %s", report__reason(c->why.reason),
		    report__reach(ds, &c->why, why, sizeof(why)));
	/* who held it up: the wait chains' blocker (record --timeline) */
	if (c->blocker < r->nblockers) {
		char b[256], add[32], fadd[32];

		put(v, len, "; it waited for %s (%s of the %s added per slow run)",
		    report__blocker(ds, &r->blockers[c->blocker], b, sizeof(b)),
		    report__dur(c->blocker_added, add, sizeof(add)),
		    report__dur(c->ev.added, fadd, sizeof(fadd)));
	}
}

/* No function accused, but the whole run's resource explains the slow runs. */
static void whole_run(const struct dataset *ds, const struct diagnosis *r, struct report_verdict *v,
		      size_t *len)
{
	const struct diagnosis_fallback *fb = &r->fallback;
	const struct diagnosis_why *g = &fb->why;
	char t[32], p[32], fr[512], sh[256];

	put(v, len,
	    "no function explains the slow runs, but the whole run%s does: %s > %s in %u of %u "
	    "slow runs, %u of %u fast (Fisher %s), %s",
	    fb->own ? " of their thread" : "", diagnosis__feat_name(fb->feat),
	    report__value(fb->feat, fb->threshold, t, sizeof(t)), fb->slow_hits, fb->nslow,
	    fb->fast_hits, fb->nfast, report__p(fb->p, p, sizeof(p)),
	    report__share(fb->share, sh, sizeof(sh)));
	if (fb->disk_cpu.holds)
		put(v, len,
		    " (disk on CPU: the VM's synchronous I/O: block requests in %u of %u slow "
		    "runs, "
		    "%u of %u fast, Fisher %s)",
		    fb->disk_cpu.slow_with, fb->disk_cpu.nslow, fb->disk_cpu.fast_with,
		    fb->disk_cpu.nfast, report__p(fb->disk_cpu.p, p, sizeof(p)));
	if (fb->feat == DIAGNOSIS_CPU_WAIT) {
		struct report_queued q;
		char d[32], thief[400];

		/* who held the CPU, over the whole run, then before the handler */
		if (report__thieves(&fb->thieves, thief, sizeof(thief))[0])
			put(v, len, "; %s", thief);
		/*
		 * Where the runqueue wait was: before the handler (the thread woke,
		 * another task held its CPU), no function of the run holds it
		 */
		report__queued(ds, r, &q);
		if (q.runs && q.share >= 0.5)
			put(v, len,
			    "; %.0f %% of the added latency before the handler: their thread "
			    "woke and waited for a CPU before running it (median %s in slow "
			    "runs)",
			    100 * fmin(q.share, 1), report__dur(q.slow_median, d, sizeof(d)));
		if (q.runs && q.share >= 0.5 &&
		    report__thieves(&r->queued_thieves, thief, sizeof(thief))[0])
			put(v, len, " (%s)", thief);
	}
	if (fb->blocker < r->nblockers) {
		char b[256], add[32];

		put(v, len, "; it waited for %s (%s per slow run more than per fast one)",
		    report__blocker(ds, &r->blockers[fb->blocker], b, sizeof(b)),
		    report__dur(fb->blocker_added, add, sizeof(add)));
	}
	if (!g->diff || !g->deepest)
		return;
	put(v, len, "; its samples (%s) reach %s", report__reason(g->reason),
	    report__reach(ds, g, fr, sizeof(fr)));
}

/* No function, no whole-run resource: the run's thread's waits, followed, do. */
static void wait_run(const struct dataset *ds, const struct diagnosis *r, struct report_verdict *v,
		     size_t *len)
{
	const struct diagnosis_wait_answer *a = &r->wait_answer;
	char b[256], s[32], f[32], p[32], sh[256];

	put(v, len,
	    "no function explains the slow runs, nor a resource of the whole run, but their "
	    "thread's waits do: it waited for %s, %s per slow run against %s per fast one, %s; "
	    "the %u runs where it takes the largest part of the latency hold %u of the %u slow "
	    "runs (Fisher %s, for %u tries)",
	    report__blocker(ds, &r->blockers[a->blocker], b, sizeof(b)),
	    report__dur(a->slow_ns, s, sizeof(s)), report__dur(a->fast_ns, f, sizeof(f)),
	    report__share(a->share, sh, sizeof(sh)), a->top.w, a->top.hits, a->top.nslow,
	    report__p(a->p, p, sizeof(p)), a->tests);
}

/* the runs' async tasks' queue, when it explains the slow runs (record --task-post) */
static void tasks(const struct dataset *ds, const struct diagnosis *r, struct report_verdict *v,
		  size_t *len)
{
	char clause[1024];

	if (r->task_answer.holds)
		put(v, len, "; %s", report__task_clause(ds, r, clause, sizeof(clause)));
}

void report__verdict(const struct dataset *ds, const struct diagnosis *r, struct report_verdict *v)
{
	char rule[64], thr[32], clause[1024];
	size_t len = 0;

	v->text[0] = v->note[0] = 0;
	report__rule(r, rule, sizeof(rule));
	report__dur(r->lab.threshold_ns, thr, sizeof(thr));
	switch (r->status) {
	case DIAGNOSIS_FEW_RUNS:
		put(v, &len,
		    "only %zu runs: too few to tell slow runs from fast ones; record more "
		    "runs",
		    r->lab.n);
		break;
	case DIAGNOSIS_NONE_SLOW:
		put(v, &len, "%zu runs, none slow by %s (threshold %s): no slowdown to explain",
		    r->lab.n, rule, thr);
		break;
	case DIAGNOSIS_ALL_SLOW:
		put(v, &len,
		    "all %zu runs are slow by %s (threshold %s): no fast run to compare "
		    "with; set the threshold with --slow",
		    r->lab.n, rule, thr);
		break;
	case DIAGNOSIS_NO_PRECOND:
		if (r->fallback.holds) {
			whole_run(ds, r, v, &len);
			tasks(ds, r, v, &len);
			break;
		}
		if (r->wait_answer.holds && r->wait_answer.blocker < r->nblockers) {
			wait_run(ds, r, v, &len);
			tasks(ds, r, v, &len);
			break;
		}
		if (r->task_answer.holds) {
			put(v, &len,
			    "no function explains the slow runs, nor a resource of the whole run, "
			    "but "
			    "their async tasks do: ");
			put(v, &len, "%s", report__task_clause(ds, r, clause, sizeof(clause)));
			break;
		}
		put(v, &len, "no slowdown precondition found");
		if (r->insignificant && r->nrejected) {
			const struct diagnosis_critical *c = &r->crit[0];

			snprintf(v->note, sizeof(v->note),
				 "the slow runs look like the workload's natural tail: %s is "
				 "longer in them, but its slow runs form no distinct mode, come "
				 "in no burst, and no resource grew beyond proportion",
				 dataset__func(ds, c->func)->name);
		} else if ((r->fallback.cpu_work.tested && r->fallback.cpu_work.dismissed) ||
			   (r->wait_answer.cpu_work.tested && r->wait_answer.cpu_work.dismissed)) {
			const struct diagnosis_cpu_work *w = r->fallback.cpu_work.tested
								     ? &r->fallback.cpu_work
								     : &r->wait_answer.cpu_work;

			snprintf(v->note, sizeof(v->note),
				 "the slow runs waited longer for other threads' CPU work, which "
				 "grew in proportion with the run's %s: %s, not a cause",
				 w->mode ? "and in bursts" : "and in no distinct mode",
				 w->mode ? "the CPU ran slower at times"
					 : "the workload's natural tail, or a slower CPU");
		} else if (r->insignificant)
			snprintf(v->note, sizeof(v->note),
				 "the slow runs are only %.0f %% slower than the fast ones (median "
				 "%s "
				 "vs %s), below --min-slowdown %.0f %%: ordinary variation, not a "
				 "slowdown",
				 100 * (r->lab.slow_median_ns / r->lab.fast_median_ns - 1),
				 report__dur(r->lab.slow_median_ns, thr, sizeof(thr)),
				 report__dur(r->lab.fast_median_ns, rule, sizeof(rule)),
				 100 * r->min_slowdown);
		break;
	case DIAGNOSIS_OK:
		put(v, &len, "slow runs are explained by ");
		for (size_t i = 0; i < r->ncrit; i++)
			critical(ds, r, i, v, &len);
		if (!r->ncrit)
			put(v, &len, "functions being faster than usual (see the preconditions)");
		tasks(ds, r, v, &len);
		break;
	}
}
