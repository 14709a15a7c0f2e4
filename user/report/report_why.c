/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a function's time grew, in words (analysis/diagnosis/why.c gives the
 * numbers): more calls or longer calls, block requests behind on-CPU time,
 * the frames of the stack samples that grew; and the whole run's answer
 * when no function is named. Names from the trace are put in raw: the
 * writers escape them (text: xlp_text, JSON: the JSON writer).
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "util.h"

/* A duration that may be negative: "1.2 ms", "-80 us". */
static const char *sdur(double ns, char *buf, size_t len)
{
	char d[32];

	snprintf(buf, len, "%s%s", ns < 0 ? "-" : "", report__dur(fabs(ns), d, sizeof(d)));
	return buf;
}

/* Sizes: "512 B", "4.0 KiB", "1.2 MiB". */
static const char *bytes(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v < 1024)
		snprintf(buf, len, "%.0f B", v);
	else if (v < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", v / 1024);
	else
		snprintf(buf, len, "%.1f MiB", v / (1024 * 1024));
	return buf;
}

const char *report__share(double share, char *buf, size_t len)
{
	if (isnan(share))
		snprintf(buf, len, "an unknown part of the added latency");
	else if (share <= 1)
		snprintf(buf, len, "%.0f %% of the added latency", 100 * share);
	/* a little more: the rest of the run was a little faster; capped */
	else if (share <= 1.1)
		snprintf(buf, len, "100 %% of the added latency");
	/*
	 * More than the runs' added latency: the function's calls overlapped
	 * other work of the run (they ran on other threads beside it), or the
	 * rest of the run got faster in the slow runs. A share past 100 % says
	 * no more than "all of it".
	 */
	else
		snprintf(buf, len,
			 "all of the added latency (its added time is %.2fx it: work on other "
			 "threads overlapping the run, or other code faster in slow runs)",
			 share);
	return buf;
}

const char *report__frame(const struct dataset *ds, const struct dataset_diff_node *x, char *buf,
			  size_t len)
{
	const struct dataset_func *f;

	if (x->kernel) {
		snprintf(buf, len, "[k] %s", dataset__kframe(ds, x->frame));
		return buf;
	}
	if (x->frame == DATASET_NO_FUNC) {
		snprintf(buf, len, "(the run)");
		return buf;
	}
	f = dataset__func(ds, x->frame);
	if (f->runtime)
		snprintf(buf, len, "%s (%s)", f->name, f->binary);
	else
		snprintf(buf, len, "%s", f->name);
	return buf;
}

/*
 * Where the samples reach, as a developer reads it: the application's
 * frame first (struct diagnosis_why.app), then the library's or runtime's
 * frame below it, then the deepest frame (a kernel function): "
 * ngx_linux_sendfile_chain → sendfile (libc.so.6) → [k]
 * folio_wait_bit_common". Without an application frame, from the deepest
 * user frame, as before.
 */
const char *report__reach(const struct dataset *ds, const struct diagnosis_why *g, char *buf,
			  size_t len)
{
	size_t at[3], n = 0, used = 0;
	char fr[512];

	buf[0] = 0;
	if (!g->diff || !g->deepest)
		return buf;
	if (g->app)
		at[n++] = g->app;
	if (g->lib)
		at[n++] = g->lib;
	if (!n || at[n - 1] != g->deepest)
		at[n++] = g->deepest;
	for (size_t i = 0; i < n; i++)
		xlp_put(buf, len, &used, "%s%s", i ? " → " : "",
			report__frame(ds, dataset_diff__node(g->diff, g->path[at[i]]), fr,
				      sizeof(fr)));
	return buf;
}

const char *report__reason(int reason)
{
	switch (reason) {
	case XLP_C_CPU_RUN:
		return "on a CPU";
	case XLP_C_CPU_WAIT:
		return "waiting for a CPU";
	case XLP_C_DISK:
		return "waiting for the disk";
	case XLP_C_NET:
		return "waiting for the network";
	case XLP_C_IPC:
		return "waiting for another process";
	case XLP_C_LOCK:
		return "waiting for a lock";
	case XLP_C_TIMER:
		return "sleeping on a timer";
	case XLP_C_OTHER:
		return "waiting for something else";
	default:
		return "all kinds";
	}
}

/* The kernel's name of a system call's entry, without its prefix. */
static const char *syscall_name(const char *s)
{
	static const char *const pre[] = {"__x64_sys_", "__arm64_sys_", "__ia32_sys_", "__do_sys_"};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(s, pre[i], strlen(pre[i])))
			return s + strlen(pre[i]);
	return s;
}

const char *report__because(const struct dataset *ds, const struct diagnosis_why *g, char *buf,
			    size_t len)
{
	const struct dataset_diff_node *x;
	char fr[512];

	buf[0] = 0;
	if (!g->diff || !g->clear || g->cause_at >= g->npath)
		return buf;
	x = dataset_diff__node(g->diff, g->path[g->cause_at]);
	report__frame(ds, x, fr, sizeof(fr));
	switch (g->cause) {
	case DIAGNOSIS_CAUSE_FAULT:
		snprintf(buf, len, "page faults (%s)", dataset__kframe(ds, x->frame));
		break;
	case DIAGNOSIS_CAUSE_LOCK:
		snprintf(buf, len, "a kernel spinlock (%s)", dataset__kframe(ds, x->frame));
		break;
	case DIAGNOSIS_CAUSE_SYSCALL:
		snprintf(buf, len, "the system call %s",
			 syscall_name(dataset__kframe(ds, x->frame)));
		break;
	case DIAGNOSIS_CAUSE_KERNEL:
		snprintf(buf, len, "the kernel's %s", dataset__kframe(ds, x->frame));
		break;
	case DIAGNOSIS_CAUSE_USER:
		snprintf(buf, len, "%s", fr);
		break;
	case DIAGNOSIS_CAUSE_NONE:
		break;
	}
	return buf;
}

static double pct(uint32_t a, uint32_t b)
{
	return b ? 100.0 * a / b : 0;
}

const char *report__why_path(const struct dataset *ds, const struct diagnosis *r,
			     const struct diagnosis_why *g, bool test, char *buf, size_t len)
{
	const struct dataset_diff_node *x0;
	char a[32], b[32], d[32], fr[512], p[32], why[600];
	size_t used = 0;

	buf[0] = 0;
	if (!g->diff) {
		xlp_put(buf, len, &used,
			"samples (%s): none through it (record with --sample to see which frames "
			"grew)",
			report__reason(g->reason));
		return buf;
	}
	x0 = dataset_diff__node(g->diff, 0);
	xlp_put(buf, len, &used,
		"samples (%s): %u in %u slow runs, %u in %u fast; %s | %s per run (slow | fast)",
		report__reason(g->reason), x0->nslow, g->nslow_runs, x0->nfast, g->nfast_runs,
		report__dur(g->nslow_runs ? x0->wslow / g->nslow_runs : NAN, a, sizeof(a)),
		report__dur(g->nfast_runs ? x0->wfast / g->nfast_runs : NAN, b, sizeof(b)));
	if (g->npath > 1)
		xlp_put(buf, len, &used,
			"\ngrew most (each frame holds at least half of the added samples' time):");
	for (size_t i = 1; i < g->npath; i++) {
		const struct dataset_diff_node *x = dataset_diff__node(g->diff, g->path[i]);

		xlp_put(buf, len, &used,
			"\n%*s%s: %u of %u slow samples (%.0f %%), %u of %u fast (%.0f %%), %s "
			"added "
			"per run",
			(int)(2 * (i - 1 < 12 ? i - 1 : 12)), "",
			report__frame(ds, x, fr, sizeof(fr)), x->nslow, x0->nslow,
			pct(x->nslow, x0->nslow), x->nfast, x0->nfast, pct(x->nfast, x0->nfast),
			sdur(diagnosis__why_added(g, x), d, sizeof(d)));
		if (test && i == g->named)
			xlp_put(buf, len, &used, " (Fisher %s)", report__p(g->p, p, sizeof(p)));
	}
	if (!test) {
		if (g->deepest)
			xlp_put(buf, len, &used, "\n=> the stacks reach %s",
				report__reach(ds, g, fr, sizeof(fr)));
		return buf;
	}
	if (!x0->nfast && g->deepest)
		xlp_put(buf, len, &used,
			"\n=> no such samples in fast runs: all of them are added; they reach %s",
			report__reach(ds, g, fr, sizeof(fr)));
	else if (g->clear)
		xlp_put(buf, len, &used,
			"\n=> grew in %s: its share of the samples grew beyond chance (Fisher %s "
			"<= "
			"%g)",
			report__because(ds, g, why, sizeof(why)), report__p(g->p, p, sizeof(p)),
			r->alpha_evidence);
	else if (g->npath > 1)
		xlp_put(buf, len, &used,
			"\n=> no frame's share of the samples grew beyond chance (Fisher at p <= "
			"%g): "
			"more of the same work",
			r->alpha_evidence);
	return buf;
}

const char *report__why(const struct dataset *ds, const struct diagnosis *r,
			const struct diagnosis_critical *c, char *buf, size_t len)
{
	const struct diagnosis_calls *k = &c->calls;
	const struct diagnosis_disk_cpu *d = &c->disk_cpu;
	char a[32], b[32], e[32], f[32], g[32], p[32];
	size_t used = 0;

	buf[0] = 0;
	if (k->exact)
		xlp_put(buf, len, &used,
			"calls: %.2f per run in slow runs, %.2f in fast; %s per call vs %s: %s "
			"from "
			"more calls + %s from longer calls = %s added\n",
			k->calls_slow, k->calls_fast, report__dur(k->per_call_slow, a, sizeof(a)),
			report__dur(k->per_call_fast, b, sizeof(b)),
			sdur(k->from_calls, e, sizeof(e)), sdur(k->from_per_call, f, sizeof(f)),
			sdur(k->from_calls + k->from_per_call, g, sizeof(g)));
	else
		xlp_put(buf, len, &used, "calls: not counted (a sampled function)\n");
	if (d->tested)
		xlp_put(buf, len, &used,
			"block requests: in %u of its %u slow runs, %u of %u fast (Fisher %s); "
			"%.1f "
			"vs %.1f per run, %s vs %s\n%s\n",
			d->slow_with, d->nslow, d->fast_with, d->nfast,
			report__p(d->p, p, sizeof(p)), d->rq_slow, d->rq_fast,
			bytes(d->bytes_slow, e, sizeof(e)), bytes(d->bytes_fast, f, sizeof(f)),
			d->holds ? "=> disk (on CPU: the VM's synchronous I/O): the added CPU time "
				   "came with block requests the fast runs did not issue"
				 : "=> the added CPU time is not tied to block requests");
	report__why_path(ds, r, &c->why, true, buf + used, used < len ? len - used : 0);
	return buf;
}

const char *report__cpu_work(const struct diagnosis_cpu_work *w, char *buf, size_t len)
{
	char sh[256], p[32], a[32], b[32], g[32], q[32], t[32];
	size_t used = 0;

	buf[0] = 0;
	if (!w->tested)
		return buf;
	xlp_put(buf, len, &used,
		"other threads on a CPU hold %.0f %% of its added time: the run's CPU work (its "
		"own, its runqueue wait, and theirs) holds %s and %.0f %% of the fast runs' (%s, "
		"Mann-Whitney %s)",
		100 * fmin(w->proxy, 1), report__share(w->share, sh, sizeof(sh)),
		100 * w->fast_share, w->out_of_proportion ? "OUT OF PROPORTION" : "in proportion",
		report__p(w->p_mw, p, sizeof(p)));
	if (!isnan(w->gap.lo))
		xlp_put(buf, len, &used, "; %s: no run between %s and %s, a gap %.1fx (%s)",
			w->mode ? "a DISTINCT mode" : "no distinct mode",
			report__dur(w->gap.lo, a, sizeof(a)), report__dur(w->gap.hi, b, sizeof(b)),
			w->gap.ratio, report__p(w->gap.p, g, sizeof(g)));
	xlp_put(buf, len, &used,
		"; its runs above %s in %u streaks, %.0f by chance (runs test %s)%s",
		report__dur(w->threshold, t, sizeof(t)), w->bursts, w->bursts_expected,
		report__p(w->runs_p, q, sizeof(q)), w->bursty ? ": BURSTS" : "");
	xlp_put(buf, len, &used, " => %s",
		!w->dismissed ? "the CPU work explains the slow runs"
		: w->mode ? "dismissed: a mode of CPU work in bursts, grown in proportion: the CPU "
			    "ran slower at times (a busy host, a lower clock), not a cause"
			  : "dismissed: CPU work grown in proportion, with no distinct mode: the "
			    "workload's natural tail, or a slower CPU, not a cause");
	return buf;
}

const char *report__fallback(const struct diagnosis *r, char *buf, size_t len)
{
	const struct diagnosis_fallback *fb = &r->fallback;
	char t[32], p[32], q[32], a[32], b[32], g[32], sh[256], cw[1024];
	size_t used = 0;

	xlp_put(buf, len, &used,
		"%s > %s in %u of %u slow runs, %u of %u fast (Fisher %s); it holds %s and %.0f %% "
		"of the fast runs' latency (%s, Mann-Whitney %s)",
		diagnosis__feat_name(fb->feat),
		report__value(fb->feat, fb->threshold, t, sizeof(t)), fb->slow_hits, fb->nslow,
		fb->fast_hits, fb->nfast, report__p(fb->p, p, sizeof(p)),
		report__share(fb->share, sh, sizeof(sh)), 100 * fb->fast_share,
		fb->out_of_proportion ? "OUT OF PROPORTION" : "in proportion",
		report__p(fb->p_mw, q, sizeof(q)));
	if (fb->disk_cpu.tested)
		xlp_put(buf, len, &used,
			"; block requests in %u of %u slow runs, %u of %u fast (Fisher %s)%s",
			fb->disk_cpu.slow_with, fb->disk_cpu.nslow, fb->disk_cpu.fast_with,
			fb->disk_cpu.nfast, report__p(fb->disk_cpu.p, g, sizeof(g)),
			fb->disk_cpu.holds ? ": disk (on CPU: the VM's synchronous I/O)" : "");
	if (!isnan(fb->gap.lo))
		xlp_put(buf, len, &used, "; %s: no run between %s and %s, a gap %.1fx (%s)%s",
			fb->mode ? "DISTINCT mode"
			: fb->cpu_bursts
				? "a mode, but of CPU time in bursts: a slower CPU at times"
				: "no distinct mode",
			report__value(fb->feat, fb->gap.lo, a, sizeof(a)),
			report__value(fb->feat, fb->gap.hi, b, sizeof(b)), fb->gap.ratio,
			report__p(fb->gap.p, g, sizeof(g)), "");
	if (fb->cpu_work.tested)
		xlp_put(buf, len, &used, "; a wait for other threads' CPU work: %s",
			report__cpu_work(&fb->cpu_work, cw, sizeof(cw)));
	return buf;
}

struct dwalk {
	const struct diagnosis_why *g;
	uint32_t *first, *next; /* children lists, by slow time */
	uint32_t *out;
	size_t n, max;
	double min_slow, min_fast;
};

static bool shown(const struct dwalk *w, const struct dataset_diff_node *x)
{
	return x->wslow >= w->min_slow || x->wfast >= w->min_fast;
}

static void dvisit(struct dwalk *w, uint32_t i, unsigned depth)
{
	if (w->n >= w->max || depth > 64)
		return;
	w->out[w->n++] = i;
	for (uint32_t c = w->first[i]; c != UINT32_MAX; c = w->next[c])
		if (shown(w, dataset_diff__node(w->g->diff, c)))
			dvisit(w, c, depth + 1);
}

size_t report__diff_order(const struct diagnosis_why *g, uint32_t *out, size_t max)
{
	size_t n = dataset_diff__n(g->diff);
	struct dwalk w = {.g = g, .out = out, .max = max};
	const struct dataset_diff_node *x0;

	/* the slow runs' frames are the shape: none, nothing to draw */
	if (!g->diff || !max || !g->nslow_runs || !(dataset_diff__node(g->diff, 0)->wslow > 0))
		return 0;
	w.first = malloc(n * sizeof(*w.first));
	w.next = malloc(n * sizeof(*w.next));
	if (!w.first || !w.next)
		goto cleanup;
	x0 = dataset_diff__node(g->diff, 0);
	w.min_slow = x0->wslow > 0 ? REPORT_DIFF_SHARE * x0->wslow : INFINITY;
	w.min_fast = x0->wfast > 0 ? REPORT_DIFF_SHARE * x0->wfast : INFINITY;
	for (size_t i = 0; i < n; i++)
		w.first[i] = w.next[i] = UINT32_MAX;
	/* each child into its parent's list, kept sorted: heaviest in slow runs first
	 * (then the lower index: the same order every time) */
	for (size_t i = n; i-- > 1;) {
		const struct dataset_diff_node *x = dataset_diff__node(g->diff, i);
		uint32_t *at = &w.first[x->parent];

		while (*at != UINT32_MAX && dataset_diff__node(g->diff, *at)->wslow > x->wslow)
			at = &w.next[*at];
		w.next[i] = *at;
		*at = (uint32_t)i;
	}
	dvisit(&w, 0, 0);
cleanup:
	free(w.first);
	free(w.next);
	return w.n;
}
