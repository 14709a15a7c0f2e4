/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a critical function's time grew, and what explains the slow runs
 * when no function can be named:
 *   - more calls or longer calls (diagnosis.h, struct diagnosis_calls): exact
 *     arithmetic on the call counts the records carry;
 *   - disk work that shows as CPU (struct diagnosis_disk_cpu): on a virtual
 *     machine a cold 4 KiB read costs ~50 us on a CPU (the VM exit) and
 *     ~30 us asleep, so a function slowed by cold reads grows cpu_run more
 *     than disk_block; its block requests still show where they came from;
 *   - what grew in the stack samples (struct diagnosis_why): the frames, user
 *     and kernel, whose share of the function's samples grew in its slow
 *     runs (page faults, a system call, a spinlock, a function below it);
 *   - the whole-run fallback (struct diagnosis_fallback): the baseline's resource
 *     when it separates the slow runs with evidence, and where the samples
 *     of that resource go.
 * Every rule is a p-value of a test in stats_tests.h at alpha_evidence, or
 * arithmetic; the reports print the numbers.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis_impl.h"
#include "util.h"

int diagnosis__feat_reason(enum diagnosis_feat f)
{
	switch (f) {
	case DIAGNOSIS_CPU_RUN:
	case DIAGNOSIS_CPU_FREQ:
		return XLP_C_CPU_RUN;
	case DIAGNOSIS_CPU_WAIT:
		return XLP_C_CPU_WAIT;
	case DIAGNOSIS_DISK:
		return XLP_C_DISK;
	case DIAGNOSIS_NET:
		return XLP_C_NET;
	case DIAGNOSIS_IPC:
		return XLP_C_IPC;
	case DIAGNOSIS_LOCK:
		return XLP_C_LOCK;
	case DIAGNOSIS_TIMER:
		return XLP_C_TIMER;
	case DIAGNOSIS_OTHER:
		return XLP_C_OTHER;
	default:
		return -1; /* sleep_s / sleep_d / steal: no sample kind of their own */
	}
}

double diagnosis__why_added(const struct diagnosis_why *g, const struct dataset_diff_node *x)
{
	if (!g->nslow_runs || !g->nfast_runs)
		return 0;
	return x->wslow / g->nslow_runs - x->wfast / g->nfast_runs;
}

static bool has_prefix(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(s, list[i], strlen(list[i])))
			return true;
	return false;
}

#define HAS_PREFIX(s, list) has_prefix(s, list, sizeof(list) / sizeof(list[0]))

/* Where a thread leaves the CPU: the end of every off-CPU stack, naming nothing. */
static bool sched_frame(const char *s)
{
	static const char *const l[] = {"schedule",	    "__schedule",	  "io_schedule",
					"preempt_schedule", "finish_task_switch", "context_switch",
					"__switch_to"};

	return HAS_PREFIX(s, l);
}

static enum diagnosis_cause kernel_cause(const char *s)
{
	/* x86-64 and arm64 entries of the fault path */
	static const char *const fault[] = {"asm_exc_page_fault", "exc_page_fault",
					    "do_user_addr_fault", "handle_mm_fault",
					    "__handle_mm_fault",  "do_page_fault",
					    "do_mem_abort",	  "do_translation_fault"};
	static const char *const lock[] = {"_raw_spin_lock",
					   "queued_spin_lock_slowpath",
					   "native_queued_spin_lock_slowpath",
					   "__pv_queued_spin_lock_slowpath",
					   "_raw_read_lock",
					   "_raw_write_lock"};
	static const char *const sys[] = {"__x64_sys_", "__arm64_sys_", "__ia32_sys_", "__do_sys_"};

	if (HAS_PREFIX(s, fault))
		return DIAGNOSIS_CAUSE_FAULT;
	if (HAS_PREFIX(s, lock))
		return DIAGNOSIS_CAUSE_LOCK;
	if (HAS_PREFIX(s, sys))
		return DIAGNOSIS_CAUSE_SYSCALL;
	return DIAGNOSIS_CAUSE_KERNEL;
}

static const char *node_name(const struct dataset *ds, const struct dataset_diff_node *x)
{
	return x->kernel ? dataset__kframe(ds, x->frame) : dataset__func(ds, x->frame)->symbol;
}

/* The cause of a growth along path[1..end]: a fault, then a lock, then a system call. */
static void name_cause(const struct dataset *ds, struct diagnosis_why *g, size_t end)
{
	static const enum diagnosis_cause order[] = {DIAGNOSIS_CAUSE_FAULT, DIAGNOSIS_CAUSE_LOCK,
						     DIAGNOSIS_CAUSE_SYSCALL};

	g->cause = DIAGNOSIS_CAUSE_NONE;
	g->cause_at = end;
	if (!end || end >= g->npath)
		return;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 1; i <= end; i++) {
			const struct dataset_diff_node *x = dataset_diff__node(g->diff, g->path[i]);

			if (x->kernel && kernel_cause(node_name(ds, x)) == order[k]) {
				g->cause = order[k];
				g->cause_at = i;
				return;
			}
		}
	g->cause = dataset_diff__node(g->diff, g->path[end])->kernel ? DIAGNOSIS_CAUSE_KERNEL
								     : DIAGNOSIS_CAUSE_USER;
}

/*
 * The application's frame on the path (struct diagnosis_why.app): nginx
 * sending cold files reached sendfile (libc.so.6) → [k]
 * folio_wait_bit_common, and PostgreSQL waiting on a row lock epoll_wait
 * (libc.so.6); the frame a developer acts on is the caller in the server
 * (ngx_linux_sendfile_chain, WaitEventSetWait), on the same stacks.
 */
static void app_frame(const struct dataset *ds, struct diagnosis_why *g)
{
	size_t jit = 0, own = 0, user = 0;

	for (size_t i = 1; i <= g->deepest && i < g->npath; i++) {
		const struct dataset_diff_node *x = dataset_diff__node(g->diff, g->path[i]);
		const struct dataset_func *f;

		if (x->kernel || x->frame == DATASET_NO_FUNC)
			continue;
		f = dataset__func(ds, x->frame);
		user = i;
		if (dataset__jit_func(f))
			jit = i;
		else if (!f->runtime)
			own = i;
	}
	g->app = jit ? jit : own;
	/* then the deepest user frame, a library's or the runtime's, after it */
	g->lib = user != g->app ? user : 0;
}

static int why_build(const struct dataset *ds, const struct diagnosis_opts *o, uint32_t root,
		     int reason, const uint8_t *labels, struct diagnosis_why *g)
{
	size_t nruns = dataset__nruns(ds), n;
	const struct dataset_diff_node *x0;
	double add0;
	int err;

	memset(g, 0, sizeof(*g));
	g->reason = reason;
	g->p = 1;
	for (size_t i = 0; i < nruns; i++) {
		g->nslow_runs += !!labels[i];
		g->nfast_runs += !labels[i];
	}
	err = dataset__diff_tree(ds, root, reason, labels, &g->diff);
	if (err || !g->diff)
		return err;
	n = dataset_diff__n(g->diff);
	x0 = dataset_diff__node(g->diff, 0);
	add0 = diagnosis__why_added(g, x0);
	g->path[g->npath++] = 0;
	/* children come after their parent: one scan per level */
	while (add0 > 0 && g->npath < DIAGNOSIS_MAX_WHY) {
		uint32_t cur = g->path[g->npath - 1], best = UINT32_MAX;
		double best_add = 0;

		for (size_t i = cur + 1; i < n; i++) {
			const struct dataset_diff_node *x = dataset_diff__node(g->diff, i);
			double a;

			if (x->parent != cur)
				continue;
			a = diagnosis__why_added(g, x);
			if (best == UINT32_MAX || a > best_add) {
				best = (uint32_t)i;
				best_add = a;
			}
		}
		if (best == UINT32_MAX || best_add < o->drill_share * add0)
			break;
		g->path[g->npath++] = best;
	}
	g->named = g->npath;
	for (size_t i = g->npath; i-- > 1;) {
		const struct dataset_diff_node *x = dataset_diff__node(g->diff, g->path[i]);
		double p = stats__fisher(x->nslow, x0->nslow, x->nslow + x->nfast,
					 x0->nslow + x0->nfast);

		if (p <= o->alpha_evidence) {
			g->named = i;
			g->p = p;
			break;
		}
	}
	g->clear = g->named < g->npath;
	g->deepest = 0;
	for (size_t i = g->npath; i-- > 1;)
		if (!sched_frame(node_name(ds, dataset_diff__node(g->diff, g->path[i])))) {
			g->deepest = i;
			break;
		}
	app_frame(ds, g);
	name_cause(ds, g, g->clear ? g->named : g->deepest);
	return 0;
}

void diagnosis__why_release(struct diagnosis_why *g)
{
	dataset_diff__free(g->diff);
	g->diff = NULL;
}

/* More calls or longer calls, over the run labels (diagnosis.h). */
static void split_calls(const struct dataset *ds, const struct diagnosis *r,
			struct diagnosis_critical *c)
{
	double t[2] = {0, 0}, calls[2] = {0, 0}, runs[2] = {0, 0};
	struct diagnosis_calls *s = &c->calls;

	memset(s, 0, sizeof(*s));
	s->exact = !dataset__func(ds, c->func)->sampled;
	if (!s->exact)
		return;
	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		int k = !!r->slow[i];

		t[k] += (double)dataset__time(ds, i, c->func);
		calls[k] += dataset__ncalls(ds, i, c->func);
		runs[k]++;
	}
	if (!runs[0] || !runs[1]) {
		s->exact = false;
		return;
	}
	s->calls_slow = calls[1] / runs[1];
	s->calls_fast = calls[0] / runs[0];
	s->per_call_slow = calls[1] ? t[1] / calls[1] : NAN;
	s->per_call_fast = calls[0] ? t[0] / calls[0] : NAN;
	/* a class without a call costs nothing per call: the terms stay exact */
	s->from_calls = (s->calls_slow - s->calls_fast) * (calls[0] ? s->per_call_fast : 0);
	s->from_per_call = s->calls_slow *
			   ((calls[1] ? s->per_call_slow : 0) - (calls[0] ? s->per_call_fast : 0));
}

/* One run's block requests into d (slow or fast), their sums into rq and by. */
static void disk_tally(struct diagnosis_disk_cpu *d, int slow, const uint64_t *ctr, double rq[2],
		       double by[2])
{
	bool with = ctr[XLP_C_DISK_RQ] > 0;

	if (slow) {
		d->nslow++;
		d->slow_with += with;
	} else {
		d->nfast++;
		d->fast_with += with;
	}
	rq[slow] += (double)ctr[XLP_C_DISK_RQ];
	by[slow] += (double)ctr[XLP_C_DISK_BYTES];
}

/* Per-run means, and Fisher's test: the runs with block requests are the slow ones. */
static void disk_test(struct diagnosis_disk_cpu *d, const double rq[2], const double by[2])
{
	d->rq_slow = d->nslow ? rq[1] / d->nslow : NAN;
	d->rq_fast = d->nfast ? rq[0] / d->nfast : NAN;
	d->bytes_slow = d->nslow ? by[1] / d->nslow : NAN;
	d->bytes_fast = d->nfast ? by[0] / d->nfast : NAN;
	d->p = stats__fisher(d->slow_with, d->nslow, d->slow_with + d->fast_with,
			     d->nslow + d->nfast);
}

static void disk_on_cpu(const struct dataset *ds, const struct diagnosis_opts *o,
			const struct diagnosis *r, const struct resources *res, size_t k,
			struct diagnosis_critical *c)
{
	struct diagnosis_disk_cpu *d = &c->disk_cpu;
	double rq[2] = {0, 0}, by[2] = {0, 0};

	memset(d, 0, sizeof(*d));
	d->p = 1;
	if (!c->s2.nfactors || c->s2.factors[0].feat != DIAGNOSIS_CPU_RUN ||
	    !(r->features & XLP_FEAT_BLOCK))
		return;
	d->tested = true;
	for (size_t run = 0; run < dataset__nruns(ds); run++) {
		const struct dataset_res *x = resources__get(res, k, run);
		double t = (double)dataset__time(ds, run, c->func);
		int slow = c->gt ? t > c->threshold_ns : t <= c->threshold_ns;

		disk_tally(d, slow, x->ctr, rq, by);
	}
	disk_test(d, rq, by);
	d->holds = d->p <= o->alpha_evidence;
}

int diagnosis__why_step(const struct dataset *ds, const struct diagnosis_opts *o,
			struct diagnosis *r, const struct resources *res, size_t k, size_t slot)
{
	struct diagnosis_critical *c = &r->crit[k];
	size_t n = dataset__nruns(ds);
	uint8_t *lab = malloc(n + 1);
	int reason = c->s2.nfactors ? diagnosis__feat_reason(c->s2.factors[0].feat) : -1;
	int err = -ENOMEM;

	if (!lab)
		goto cleanup;
	split_calls(ds, r, c);
	disk_on_cpu(ds, o, r, res, slot, c);
	/* the function's own labels: its slow samples against its fast ones */
	for (size_t i = 0; i < n; i++) {
		double t = (double)dataset__time(ds, i, c->func);

		lab[i] = c->gt ? t > c->threshold_ns : t <= c->threshold_ns;
	}
	err = why_build(ds, o, c->func, reason, lab, &c->why);
cleanup:
	free(lab);
	return err;
}

/* Runs test over the samples past the factor's threshold, in time order. */
static int bursts(const struct diagnosis_order *ord, const double *v, size_t n,
		  const struct diagnosis_factor *f, struct diagnosis_fallback *fb)
{
	struct diagnosis_order *o = malloc(n * sizeof(*o) + 1);
	uint8_t *seq = malloc(n + 1);
	int err = -ENOMEM;

	if (!o || !seq)
		goto cleanup;
	memcpy(o, ord, n * sizeof(*o));
	xlp_sort(o, n, sizeof(*o), diagnosis__order_cmp);
	for (size_t i = 0; i < n; i++)
		seq[i] = f->gt ? v[o[i].i] > f->threshold : v[o[i].i] <= f->threshold;
	fb->runs_p = stats__runs_test(seq, n, &fb->bursts, &fb->bursts_expected);
	err = 0;
cleanup:
	free(o);
	free(seq);
	return err;
}

/*
 * Evidence 3's bar over the whole run: the factor's part of the added
 * latency at least excess_share above its part of the fast runs'. A wait
 * that held more than 1 - excess_share of the fast runs' time can never
 * pass it, however it grew: redis-server's thread, woken for each
 * request, waits for its CPU half of a 59 us fast run (the wakeup's
 * runqueue time, in the run since it is measured from the wakeup), and
 * with two busy loops beside it in CI that wait held 100 % of the added
 * latency against 51 % of the fast runs', and got "no answer". So for a
 * wait the bar is also met when, holding at least excess_share of the
 * added time, it grew 1 / (1 - excess_share) times as much as the rest of
 * the run, each against its own fast level (proportional growth: the
 * same factor for both; redis: x160 against x1). A wait that is nearly
 * the whole run grows as the run does (a thread waiting on a pool's task
 * for 40 ms of a 40.5 ms run, 10 ms more in slow runs: x1.25): no answer
 * from proportion. Not for CPU time: a CPU-bound run's tail is more of
 * its own work, and its rest grows with it only loosely.
 */
static bool beyond_proportion(enum diagnosis_feat feat, const double *v, const double *lat,
			      const uint8_t *slow, size_t n, const struct diagnosis_proportion *pr,
			      const struct diagnosis_opts *o)
{
	double vs = diagnosis__class_mean(v, slow, n, 1), vf = diagnosis__class_mean(v, slow, n, 0);
	double ls = diagnosis__class_mean(lat, slow, n, 1),
	       lf = diagnosis__class_mean(lat, slow, n, 0);
	double gw = vf > 0 ? vs / vf : INFINITY, go = lf - vf > 0 ? (ls - vs) / (lf - vf) : NAN;

	if (pr->excess >= o->excess_share)
		return true;
	if (feat == DIAGNOSIS_CPU_RUN || feat == DIAGNOSIS_CPU_STEAL || feat == DIAGNOSIS_CPU_FREQ)
		return false;
	/* NAN compares false: no rest in the fast runs, no growth to compare */
	return pr->share >= o->excess_share && gw * (1 - o->excess_share) >= fmax(go, 1);
}

/* One baseline factor's test; fb is filled in. */
static int test_factor(const struct diagnosis_factor *f, const double *v, const double *lat,
		       const uint8_t *slow, const struct diagnosis_order *ord, size_t n,
		       const struct diagnosis_opts *o, struct diagnosis_fallback *fb)
{
	struct diagnosis_proportion pr = diagnosis_proportion(v, lat, slow, n);
	int err;

	/* the factor's split and counts, as the baseline's tree found them */
	*fb = (struct diagnosis_fallback){
		.tested = true,
		.feat = f->feat,
		.threshold = f->threshold,
		.slow_hits = f->slow_hits,
		.nslow = f->nslow,
		.fast_hits = f->fast_hits,
		.nfast = f->nfast,
		.p = stats__fisher(f->slow_hits, f->nslow, f->slow_hits + f->fast_hits,
				   f->nslow + f->nfast),
		.share = pr.share,
		.fast_share = pr.fast_share,
		.excess = pr.excess,
		.p_mw = stats__mann_whitney(v, slow, n),
		.gap = {.p = 1, .lo = NAN, .hi = NAN},
		.runs_p = 1,
	};
	if (f->gt) {
		err = stats__gap_test(v, n, f->threshold, 0, &fb->gap);
		err = err ? err : bursts(ord, v, n, f, fb);
		if (err)
			return err;
	}
	/* NAN compares false: no added latency, no fast time, no answer */
	fb->out_of_proportion = fb->p_mw <= o->alpha_evidence &&
				beyond_proportion(f->feat, v, lat, slow, n, &pr, o);
	fb->cpu_bursts = f->feat == DIAGNOSIS_CPU_RUN && fb->runs_p <= o->alpha_evidence &&
			 fb->bursts <= fb->bursts_expected / 2;
	fb->mode = fb->gap.p <= o->alpha_evidence && !fb->cpu_bursts;
	fb->holds = f->gt && fb->p <= o->alpha_evidence && (fb->out_of_proportion || fb->mode);
	return 0;
}

/* The slow runs' block requests against the fast runs' (whole run, all threads). */
static void whole_disk_cpu(const struct dataset *ds, const struct diagnosis_opts *o,
			   const struct diagnosis *r, struct diagnosis_fallback *fb)
{
	struct diagnosis_disk_cpu *d = &fb->disk_cpu;
	double rq[2] = {0, 0}, by[2] = {0, 0};

	d->tested = true;
	for (size_t run = 0; run < dataset__nruns(ds); run++) {
		const struct dataset_run *x = dataset__run(ds, run);

		if (x->has_base)
			disk_tally(d, !!r->slow[run], x->base, rq, by);
	}
	disk_test(d, rq, by);
	/* more CPU in the slow runs (the factor's Fisher test) that came with their block requests
	 */
	d->holds = fb->p <= o->alpha_evidence && d->p <= o->alpha_evidence;
	fb->holds = d->holds;
}

int diagnosis_fallback(const struct dataset *ds, const struct diagnosis_opts *o,
		       struct diagnosis *r)
{
	size_t nr = dataset__nruns(ds), n = 0;
	double *v = malloc(nr * sizeof(*v) + 1), *lat = malloc(nr * sizeof(*lat) + 1);
	uint8_t *slow = malloc(nr + 1);
	struct diagnosis_order *ord = malloc(nr * sizeof(*ord) + 1);
	struct diagnosis_fallback *fb = &r->fallback;
	/*
	 * The run's own thread when every run has it: its counters add up
	 * to the run's latency, while the process's add every other
	 * thread's time, and idle helpers asleep on a condition variable
	 * for the whole run make a lock_wait that tracks the latency itself
	 * (a CPU-slowed sampled e2e run was "explained" by it: a distinct
	 * mode, the latency's own). The baseline keeps the process's, as
	 * PerfProbe V-D shows it.
	 */
	const struct diagnosis_step2 *tree = r->has_own ? &r->own : &r->base;
	int err = -ENOMEM;

	memset(fb, 0, sizeof(*fb));
	fb->p = fb->p_mw = fb->runs_p = fb->disk_cpu.p = 1;
	fb->gap = (struct stats_gap){.p = 1, .lo = NAN, .hi = NAN};
	if (!v || !lat || !slow || !ord)
		goto cleanup;
	err = 0;
	/* below --min-slowdown the user asked for no answer */
	if (r->status != DIAGNOSIS_NO_PRECOND || !(r->has_own || r->has_base) ||
	    (r->insignificant && !r->nrejected))
		goto cleanup;
	for (size_t k = 0; k < tree->nfactors && !fb->holds; k++) {
		const struct diagnosis_factor *f = &tree->factors[k];
		struct diagnosis_fallback t = {0};

		if (!diagnosis__feat_is_time(f->feat))
			continue;
		n = 0;
		for (size_t run = 0; run < nr; run++) {
			const struct dataset_run *x = dataset__run(ds, run);
			double feat[DIAGNOSIS_NFEAT];

			if (r->has_own ? !x->has_own : !x->has_base)
				continue;
			diagnosis__ctr_features(r->has_own ? x->own : x->base, feat);
			v[n] = feat[f->feat];
			lat[n] = x->latency_ns;
			ord[n] = (struct diagnosis_order){
				.file = x->file, .start = x->start_ns, .i = n};
			slow[n++] = r->slow[run];
		}
		err = test_factor(f, v, lat, slow, ord, n, o, &t);
		if (err)
			goto cleanup;
		t.own = r->has_own;
		/* the first that holds, else the first tested, is shown */
		if (t.holds || !fb->tested)
			*fb = t;
	}
	if (fb->tested && !fb->holds && fb->feat == DIAGNOSIS_CPU_RUN &&
	    (r->features & XLP_FEAT_BLOCK))
		whole_disk_cpu(ds, o, r, fb);
	if (fb->tested)
		err = why_build(ds, o, DATASET_NO_FUNC, diagnosis__feat_reason(fb->feat), r->slow,
				&fb->why);
cleanup:
	free(v);
	free(lat);
	free(slow);
	free(ord);
	return err;
}
