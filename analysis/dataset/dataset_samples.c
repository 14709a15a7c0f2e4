/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack samples (record --sample) -> functions nobody marked (PerfProbe
 * section III-B: critical functions found from sampled stacks).
 *
 * A sample belongs to a run when it was taken in the run's window on the
 * run's thread (an interaction: the thread that called it; a launch: any
 * thread of its process). Its functions are the named user frames strictly
 * below the innermost frame of the interaction function: the frames at and
 * above it are the same in every run (main, the event loop) and would only
 * restate the latency. A stack without the interaction frame in an
 * interaction run cannot be placed under it and names nothing (counted).
 * A sample stands for its weight (the period, or the ticks a wait spanned)
 * in each distinct function of its stack, once however often the function
 * recurses: a function's sampled time in a run is the sum of the weights
 * of the run's samples it is on, an estimate of its inclusive time, split
 * by the samples' kinds into on-CPU time and waits with their reasons.
 *
 * Every byte is untrusted: names and stacks must come in the order the
 * recorder writes them (ids 0, 1, 2...), frames must name known symbols and
 * stay inside their record; anything else is skipped and counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"
#include "dataset_index.h"
#include "util.h"

#define UNMAPPED (DATASET_NONE - 1) /* a local name or stack not converted yet */

struct lsym {
	char *name, *module;
	uint16_t kind;
	uint32_t g; /* dataset function, DATASET_NONE (not a function), UNMAPPED */
	uint32_t k; /* kernel name (dataset.kname), DATASET_NONE, UNMAPPED */
};

struct lstack {
	uint32_t *syms; /* local sym ids, innermost first */
	uint16_t n;
	bool kernel;
	uint32_t ds; /* dataset stack, DATASET_NONE (no function under the interaction), UNMAPPED */
};

struct spass {
	struct dataset *ds;
	size_t file;
	struct lsym *syms;
	size_t nsyms, cap_syms;
	struct lstack *stacks;
	size_t nstacks, cap_stacks;
	const struct xlp_sample_rec *rec; /* the sample being placed */
	uint32_t stack;			  /* its dataset stack */
	uint32_t kstack;		  /* its dataset kernel stack */
	uint64_t cost_ns, stacks_taken;	  /* the sampling windows' sums */
	int err;
};

static char *dup_n(const char *s, size_t n)
{
	char *o = malloc(n + 1);

	if (o) {
		memcpy(o, s, n);
		o[n] = 0;
	}
	return o;
}

static int add_sym(struct spass *p, const struct xlp_sym_rec *r)
{
	struct lsym *s;

	/* a NUL would cut the name short: names are matched as C strings */
	if (!trace__sym_ok(r, (uint32_t)p->nsyms) ||
	    memchr(r->text, 0, (size_t)r->module_len + r->name_len)) {
		p->ds->sinfo.malformed++;
		return 0;
	}
	if (xlp_grow((void **)&p->syms, &p->cap_syms, p->nsyms, sizeof(*p->syms)))
		return -ENOMEM;
	s = &p->syms[p->nsyms];
	s->module = dup_n(r->text, r->module_len);
	s->name = dup_n(r->text + r->module_len, r->name_len);
	s->kind = r->kind;
	s->g = UNMAPPED;
	s->k = UNMAPPED;
	if (!s->module || !s->name) {
		free(s->module);
		free(s->name);
		return -ENOMEM;
	}
	p->nsyms++;
	return 0;
}

static int add_stack(struct spass *p, const struct xlp_stack_rec *r)
{
	struct lstack *s;

	if (!trace__stack_ok(r, (uint32_t)p->nstacks, (uint32_t)p->nsyms)) {
		p->ds->sinfo.malformed++;
		return 0;
	}
	if (xlp_grow((void **)&p->stacks, &p->cap_stacks, p->nstacks, sizeof(*p->stacks)))
		return -ENOMEM;
	s = &p->stacks[p->nstacks];
	s->syms = trace__stack_syms(r);
	if (!s->syms)
		return -ENOMEM;
	s->n = r->nframes;
	s->kernel = r->flags & XLP_STACK_KERNEL;
	s->ds = UNMAPPED;
	p->nstacks++;
	return 0;
}

/*
 * The C and C++ runtimes (glibc, bionic, musl, the dynamic linker, the
 * vDSO, libgcc, libstdc++): their functions are how a program makes a
 * call (read, pthread_mutex_lock, memcpy), not which call it is, and the
 * same few are under every caller. Their frames name nothing; their
 * samples count in the program's function that called them. A user who
 * wants one measured marks it with --func. The same goes for a managed
 * runtime's own library (HotSpot's libjvm.so, Debian's libnode.so, Android's libart.so): the
 * application's code there is the JIT frames it runs
 * (dataset__jit_func()).
 */
static bool runtime_module(const char *m)
{
	static const char *const prefix[] = {"libc.so", "libc-", "ld-linux", "ld-musl",
					     "libpthread", "libm.so", "libm-", "libdl.so",
					     "librt.so", "libgcc_s", "libstdc++", "libc++",
					     "linux-vdso", "[vdso]", "linker",
					     /* a managed runtime's own library: the
					      * app's code is its JIT frames */
					     "libjvm.so", "libnode.so", "libart.so"};

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(m, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/* The dataset function of a local name: a named user function, or DATASET_NONE. */
static int sym_func(struct spass *p, uint32_t id, uint32_t *g)
{
	struct lsym *s = &p->syms[id];
	size_t before = p->ds->nfuncs;
	int ret;

	if (s->g == UNMAPPED) {
		if (s->kind != XLP_SYM_FUNCTION || !s->name[0]) {
			s->g = DATASET_NONE;
		} else {
			/* a marked function of the same name keeps its exact times */
			ret = dataset__intern_func(p->ds, s->name, s->module);
			if (ret < 0)
				return ret;
			s->g = (uint32_t)ret;
			if (p->ds->nfuncs > before) {
				p->ds->funcs[ret].sampled = true;
				/* kept for the context trees, named nothing */
				p->ds->funcs[ret].runtime = runtime_module(s->module);
			}
		}
	}
	*g = s->g;
	return 0;
}

/*
 * The landmark (record -i, several) a stack's run is of: the outermost
 * frame naming one, as a landmark called in another's run is part of it.
 * NULL when none is on the stack.
 */
static const char *outer_landmark(const struct spass *p, const struct lstack *s)
{
	const struct dataset_file *f = &p->ds->files[p->file];

	for (size_t i = s->n; i-- > 0;) {
		const struct lsym *y = &p->syms[s->syms[i]];

		for (size_t k = 0; y->kind == XLP_SYM_FUNCTION && k < f->nlandmarks; k++)
			if (!strcmp(y->name, f->landmarks[k]))
				return f->landmarks[k];
	}
	return NULL;
}

/* The dataset stack of a local one: its functions under the interaction. */
static int stack_of(struct spass *p, uint32_t id, uint32_t *out)
{
	const char *inter = p->ds->files[p->file].interaction;
	struct lstack *s = &p->stacks[id];
	struct dataset *ds = p->ds;
	size_t cut = s->n;
	int ret;

	if (s->ds != UNMAPPED) {
		*out = s->ds;
		return 0;
	}
	s->ds = DATASET_NONE;
	if (inter) {
		/* the run's is the outermost landmark on it; its innermost frame */
		inter = outer_landmark(p, s);
		for (cut = 0; inter && cut < s->n; cut++)
			if (p->syms[s->syms[cut]].kind == XLP_SYM_FUNCTION &&
			    !strcmp(p->syms[s->syms[cut]].name, inter))
				break;
		/* a USDT interaction is no frame: the run's stacks are whole */
		if ((!inter || cut == s->n) && p->ds->files[p->file].usdt_landmark)
			cut = s->n;
		else if (!inter || cut == s->n) {
			*out = DATASET_NONE;
			return 0;
		}
	}
	if (xlp_grow((void **)&ds->sst, &ds->sst_cap, ds->nsst, sizeof(*ds->sst)))
		return -ENOMEM;
	while (ds->nsfr + cut >= ds->sfr_cap)
		if (xlp_grow((void **)&ds->sfr, &ds->sfr_cap, ds->sfr_cap, sizeof(*ds->sfr)))
			return -ENOMEM;
	ds->sst[ds->nsst] = (struct dataset_sstack){.off = ds->nsfr, .n = (uint32_t)cut};
	for (size_t i = 0; i < cut; i++) {
		ret = sym_func(p, s->syms[i], &ds->sfr[ds->nsfr + i]);
		if (ret)
			return ret;
	}
	ds->nsfr += cut;
	s->ds = *out = (uint32_t)ds->nsst++;
	return 0;
}

/* The kernel name of a local name: its index in ds->kname, or DATASET_NONE. */
static int kernel_name(struct spass *p, uint32_t id, uint32_t *out)
{
	struct lsym *s = &p->syms[id];
	struct dataset *ds = p->ds;

	if (s->k == UNMAPPED) {
		s->k = DATASET_NONE;
		/* a few hundred distinct kernel functions at most: a linear search,
		 * once per name and file */
		for (size_t i = 0; s->kind == XLP_SYM_FUNCTION && s->name[0] && i < ds->nkname; i++)
			if (!strcmp(ds->kname[i], s->name))
				s->k = (uint32_t)i;
		if (s->k == DATASET_NONE && s->kind == XLP_SYM_FUNCTION && s->name[0]) {
			if (xlp_grow((void **)&ds->kname, &ds->kname_cap, ds->nkname,
				     sizeof(*ds->kname)))
				return -ENOMEM;
			ds->kname[ds->nkname] = strdup(s->name);
			if (!ds->kname[ds->nkname])
				return -ENOMEM;
			s->k = (uint32_t)ds->nkname++;
		}
	}
	*out = s->k;
	return 0;
}

/* The dataset kernel stack of a local one (named frames only), or DATASET_NONE. */
static int kstack_of(struct spass *p, uint32_t id, uint32_t *out)
{
	struct lstack *s = &p->stacks[id];
	struct dataset *ds = p->ds;
	size_t n = 0;
	int ret;

	if (s->ds != UNMAPPED) {
		*out = s->ds;
		return 0;
	}
	if (xlp_grow((void **)&ds->kst, &ds->kst_cap, ds->nkst, sizeof(*ds->kst)))
		return -ENOMEM;
	while (ds->nkfr + s->n >= ds->kfr_cap)
		if (xlp_grow((void **)&ds->kfr, &ds->kfr_cap, ds->kfr_cap, sizeof(*ds->kfr)))
			return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t k;

		ret = kernel_name(p, s->syms[i], &k);
		if (ret)
			return ret;
		if (k != DATASET_NONE)
			ds->kfr[ds->nkfr + n++] = k;
	}
	s->ds = DATASET_NONE;
	if (n) {
		ds->kst[ds->nkst] =
			(struct dataset_sstack){.off = (uint32_t)ds->nkfr, .n = (uint32_t)n};
		ds->nkfr += n;
		s->ds = (uint32_t)ds->nkst++;
	}
	*out = s->ds;
	return 0;
}

static void place(void *ctx, size_t run)
{
	struct spass *p = ctx;
	struct dataset *ds = p->ds;
	const struct dataset_run *r = &ds->runs[run];

	if (p->err || (r->tid && r->tid != p->rec->tid))
		return;
	if (xlp_grow((void **)&ds->smp, &ds->smp_cap, ds->nsmp, sizeof(*ds->smp))) {
		p->err = -ENOMEM;
		return;
	}
	ds->smp[ds->nsmp++] = (struct dataset_smp){.run = (uint32_t)run,
						   .stack = p->stack,
						   .kstack = p->kstack,
						   .reason = p->rec->reason,
						   .weight = p->rec->weight_ns};
	ds->sinfo.in_runs++;
	ds->sinfo.unplaced += p->stack == DATASET_NONE;
	if (p->rec->kind == XLP_SAMPLE_ON_CPU && r->tid == p->rec->tid)
		ds->runs[run].on_samples++;
}

static int take_sample(struct spass *p, const struct xlp_sample_rec *r)
{
	uint32_t id = r->ustack;
	int ret;

	p->ds->sinfo.samples++;
	/* a stack not written before its sample, or a reason the recorder never
	 * gives: on a CPU cpu_run, off it the runqueue or a sleep's reason */
	if (id > p->nstacks || (id && p->stacks[id - 1].kernel) ||
	    (r->kind == XLP_SAMPLE_ON_CPU && r->reason != XLP_C_CPU_RUN) ||
	    (r->kind == XLP_SAMPLE_OFF_CPU && r->reason != XLP_C_CPU_WAIT &&
	     (r->reason < XLP_C_DISK || r->reason > XLP_C_OTHER)) ||
	    r->kind > XLP_SAMPLE_OFF_CPU) {
		p->ds->sinfo.malformed++;
		return 0;
	}
	p->stack = p->kstack = DATASET_NONE;
	if (id) {
		ret = stack_of(p, id - 1, &p->stack);
		if (ret)
			return ret;
	}
	/* the kernel frames say what the thread did in the kernel (a fault, a
	 * system call); a kernel stack id that is not one is ignored, the
	 * sample kept */
	if (r->kstack && r->kstack <= p->nstacks && p->stacks[r->kstack - 1].kernel) {
		ret = kstack_of(p, r->kstack - 1, &p->kstack);
		if (ret)
			return ret;
	}
	p->rec = r;
	dataset__runs_at(p->ds, p->file, r->pid, r->time_ns, place, p);
	return p->err;
}

static void take_window(struct spass *p, const struct xlp_sampling_rec *w)
{
	struct dataset *ds = p->ds;
	uint64_t every = w->off_every > 1 ? w->off_every : 1, res;

	/* forged counts cannot wrap the sums (each is at most 2^40) */
	if (w->cost_ns < (1ull << 40) && w->on_samples < (1ull << 40) &&
	    w->off_captures < (1ull << 40)) {
		p->cost_ns += w->cost_ns;
		p->stacks_taken += w->on_samples + w->off_captures;
	}

	/* a forged period cannot make the product wrap */
	if (w->period_ns > UINT64_MAX / every)
		return;
	res = w->period_ns * every;
	if (res > ds->sinfo.resolution_ns)
		ds->sinfo.resolution_ns = res;
}

/*
 * An on-CPU sample stops the thread for as long as the sampling programs
 * run (on these VMs tens of microseconds for a user stack: MACHINE.md), so
 * a run that happened to be sampled is slower by that much, and a 1 ms
 * period on 150 us requests makes "slow" mean "sampled": every function on
 * the samples' stacks would be seen in slow runs only. The cost the
 * programs measured per stack in this file is taken off each sampled run's
 * latency and its thread's cpu_run (where the kernel accounts it).
 */
static void remove_sampler_cost(struct spass *p)
{
	struct dataset *ds = p->ds;
	const struct dataset_file *f = &ds->files[p->file];
	uint64_t per;

	if (!p->stacks_taken)
		return;
	per = p->cost_ns / p->stacks_taken;
	if (per > ds->sinfo.sampler_cost_ns)
		ds->sinfo.sampler_cost_ns = per;
	for (size_t i = f->run_off; i < f->run_off + f->nruns; i++) {
		struct dataset_run *r = &ds->runs[i];
		uint64_t sub = per * r->on_samples;

		if (!sub)
			continue;
		/* never more than the time the run's thread spent on a CPU */
		if ((double)sub > r->latency_ns)
			sub = (uint64_t)r->latency_ns;
		if (r->has_own && sub > r->own[XLP_C_CPU_RUN])
			sub = r->own[XLP_C_CPU_RUN];
		if (r->has_base && sub > r->base[XLP_C_CPU_RUN])
			sub = r->base[XLP_C_CPU_RUN];
		r->latency_ns -= (double)sub;
		if (r->has_own)
			r->own[XLP_C_CPU_RUN] -= sub;
		if (r->has_base)
			r->base[XLP_C_CPU_RUN] -= sub;
		r->sampler_ns = sub;
		ds->sinfo.sampler_removed_ns += sub;
	}
}

int dataset__read_samples(struct dataset *ds, size_t fi, char *err, size_t errlen)
{
	struct spass p = {.ds = ds, .file = fi};
	const char *path = ds->files[fi].path;
	struct trace_reader *r = NULL;
	const struct xlp_hdr *h;
	char why[256] = "";
	int ret;

	if (!(ds->files[fi].info.features & XLP_FEAT_SAMPLE))
		return 0;
	ret = trace_reader__open(path, &r, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why[0] ? why : strerror(-ret));
		return ret;
	}
	while ((ret = trace_reader__next(r, &h)) > 0) {
		ret = 0;
		if (h->type == XLP_R_SYM && h->size >= sizeof(struct xlp_sym_rec))
			ret = add_sym(&p, (const void *)h);
		else if (h->type == XLP_R_STACK && h->size >= sizeof(struct xlp_stack_rec))
			ret = add_stack(&p, (const void *)h);
		else if (h->type == XLP_R_SAMPLE && h->size >= sizeof(struct xlp_sample_rec))
			ret = take_sample(&p, (const void *)h);
		else if (h->type == XLP_R_SAMPLING && h->size >= sizeof(struct xlp_sampling_rec))
			take_window(&p, (const void *)h);
		if (ret < 0)
			break;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: %s", path,
			 ret == -ENOMEM ? "out of memory: analyse fewer or smaller traces"
					: "unreadable: check the file");
	else
		remove_sampler_cost(&p);
	for (size_t i = 0; i < p.nsyms; i++) {
		free(p.syms[i].name);
		free(p.syms[i].module);
	}
	for (size_t i = 0; i < p.nstacks; i++)
		free(p.stacks[i].syms);
	free(p.syms);
	free(p.stacks);
	trace_reader__close(r);
	return ret < 0 ? ret : 0;
}

int dataset__each_sampled(const struct dataset *ds, const int32_t *slot,
			  void (*fn)(void *ctx, const struct dataset_smp *s, int32_t slot),
			  void *ctx)
{
	uint32_t *seen = calloc(ds->nfuncs + 1, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < ds->nsmp; i++) {
		const struct dataset_smp *s = &ds->smp[i];
		const struct dataset_sstack *st =
			s->stack == DATASET_NONE ? NULL : &ds->sst[s->stack];

		for (size_t j = 0; st && j < st->n; j++) {
			uint32_t g = ds->sfr[st->off + j];

			/* once per sample, however deep it recurses */
			if (g == DATASET_NONE || !dataset__func_sampled(ds, g) || seen[g] == i + 1)
				continue;
			seen[g] = (uint32_t)(i + 1);
			if (!slot || slot[g] >= 0)
				fn(ctx, s, slot ? slot[g] : (int32_t)g);
		}
	}
	free(seen);
	return 0;
}

int dataset__sample_nesting(const struct dataset *ds, const int32_t *slot,
			    int (*pair)(void *ctx, int32_t k, uint32_t parent, uint32_t child,
					size_t run, double w),
			    void *ctx)
{
	uint32_t *anc = calloc(ds->nfuncs + 1, sizeof(*anc));
	uint32_t *kid = calloc(ds->nfuncs + 1, sizeof(*kid));
	int ret = 0;

	if (!anc || !kid) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < ds->nsmp && !ret; i++) {
		const struct dataset_smp *s = &ds->smp[i];
		const struct dataset_sstack *st =
			s->stack == DATASET_NONE ? NULL : &ds->sst[s->stack];
		const uint32_t *fr = st ? &ds->sfr[st->off] : NULL;
		uint32_t stamp = (uint32_t)(i + 1);

		/* outermost frame first: each ancestor counts under its outermost call */
		for (size_t a = st ? st->n : 0; a-- > 0 && !ret;) {
			uint32_t g = fr[a];

			if (g == DATASET_NONE || slot[g] < 0 || anc[g] == stamp ||
			    dataset__func_root(ds, g))
				continue;
			anc[g] = stamp;
			for (size_t c = a, parent = g; c-- > 0 && !ret;) {
				uint32_t h = fr[c];

				/* a runtime frame is how its caller calls: not a parent */
				if (h == DATASET_NONE || dataset__func_root(ds, h) ||
				    ds->funcs[h].runtime)
					continue;
				/* marked callees are timed by their calls; the
				 * ancestor's own recursion is its subtree already */
				if (dataset__func_sampled(ds, h) && h != g && kid[h] != stamp) {
					kid[h] = stamp;
					ret = pair(ctx, slot[g], (uint32_t)parent, h, s->run,
						   (double)s->weight);
				}
				parent = h;
			}
			/* the next ancestor of this sample starts its own children */
			for (size_t c = 0; c < a; c++)
				if (fr[c] != DATASET_NONE)
					kid[fr[c]] = 0;
		}
	}
cleanup:
	free(anc);
	free(kid);
	return ret;
}

/*
 * In launch runs no frame marks where the run's own functions begin: a
 * function on every placed sample of every run (_start, main, a thread's
 * entry that is its whole life) only restates the run's length. Its time
 * is taken out, and it names nothing.
 */
static void drop_roots(struct dataset *ds, const uint64_t *total)
{
	for (size_t g = 0; g < ds->nfuncs; g++) {
		bool root = dataset__func_sampled(ds, g), any = false;

		for (size_t r = 0; r < ds->nruns && root; r++) {
			if (!ds->files[ds->runs[r].file].info.launches)
				root = false;
			else if (total[r])
				root = ds->time[r * ds->nfuncs + g] == total[r], any = true;
		}
		if (!root || !any)
			continue;
		ds->funcs[g].root = true;
		ds->sinfo.roots++;
		for (size_t r = 0; r < ds->nruns; r++) {
			ds->time[r * ds->nfuncs + g] = 0;
			ds->ncalls[r * ds->nfuncs + g] = 0;
		}
	}
}

struct times {
	struct dataset *ds;
	uint64_t *total;
};

static void add_sampled_time(void *ctx, const struct dataset_smp *s, int32_t g)
{
	struct dataset *ds = ctx;
	size_t k = s->run * ds->nfuncs + (size_t)g;

	ds->time[k] += s->weight;
	ds->ncalls[k]++;
}

/*
 * A sample stands for a whole period (1 ms or more), a run can be far
 * shorter: one sample in a 150 us request would say 1 ms on a CPU, and the
 * function it fell in would look slow in every run the sampler happened to
 * hit. The samples of a run are scaled down, per resource, to what the
 * run's thread measured of it (its own counters; for a launch the
 * process's): an estimate never exceeds the measurement it estimates.
 */
static int calibrate(struct dataset *ds)
{
	uint64_t *sum = calloc(ds->nruns * XLP_NR_CTR + 1, sizeof(*sum));

	if (!sum)
		return -ENOMEM;
	for (size_t i = 0; i < ds->nsmp; i++)
		sum[ds->smp[i].run * XLP_NR_CTR + ds->smp[i].reason] += ds->smp[i].weight;
	for (size_t i = 0; i < ds->nsmp; i++) {
		struct dataset_smp *s = &ds->smp[i];
		const struct dataset_run *r = &ds->runs[s->run];
		uint64_t w = sum[s->run * XLP_NR_CTR + s->reason];
		double bound = r->has_own    ? (double)r->own[s->reason]
			       : r->has_base ? (double)r->base[s->reason]
					     : r->latency_ns;

		if (bound > r->latency_ns && r->tid)
			bound = r->latency_ns;
		if ((double)w > bound) {
			ds->sinfo.calibrated++;
			s->weight = (uint64_t)((double)s->weight * bound / (double)w);
		}
	}
	free(sum);
	return 0;
}

int dataset__sample_times(struct dataset *ds)
{
	uint64_t *total = calloc(ds->nruns + 1, sizeof(*total));
	int ret;

	if (!total)
		return -ENOMEM;
	ret = calibrate(ds);
	if (ret) {
		free(total);
		return ret;
	}
	for (size_t i = 0; i < ds->nsmp; i++) {
		ds->sinfo.weight_in_runs += ds->smp[i].weight;
		if (ds->smp[i].stack != DATASET_NONE)
			total[ds->smp[i].run] += ds->smp[i].weight;
	}
	ret = dataset__each_sampled(ds, NULL, add_sampled_time, ds);
	if (!ret)
		drop_roots(ds, total);
	free(total);
	return ret;
}

static uint64_t cct_key(const void *nodes, size_t i)
{
	const struct dataset_cct_node *x = (const struct dataset_cct_node *)nodes + i;

	return (uint64_t)x->parent << 32 | x->func;
}

#define CCT_FRESH(t, parent, key)                                                                  \
	(struct dataset_cct_node)                                                                  \
	{                                                                                          \
		.func = (key), .parent = (parent), .depth = (t)->n[parent].depth + 1               \
	}

DATASET_TREE(dataset_cct, struct dataset_cct_node, dataset_cct, cct_key, CCT_FRESH)

static void cct_add(struct dataset_cct_node *x, const struct dataset_smp *s, bool slow)
{
	double *v = slow ? x->slow : x->fast;

	v[XLP_C_WALL] += (double)s->weight;
	v[s->reason] += (double)s->weight;
}

int dataset__context_tree(const struct dataset *ds, uint32_t root, const uint8_t *slow,
			  struct dataset_cct **out)
{
	struct dataset_cct *t =
		dataset_cct_new((struct dataset_cct_node){.func = root, .parent = UINT32_MAX}, out);

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < ds->nsmp; i++) {
		const struct dataset_smp *s = &ds->smp[i];
		const struct dataset_sstack *st =
			s->stack == DATASET_NONE ? NULL : &ds->sst[s->stack];
		const uint32_t *fr = st ? &ds->sfr[st->off] : NULL;
		bool sl = slow[s->run];
		size_t a = st ? st->n : 0;
		uint32_t node = 0;

		while (a-- > 0 && fr[a] != root)
			;
		if (a == SIZE_MAX)
			continue;
		cct_add(&t->n[0], s, sl);
		while (a-- > 0) {
			if (fr[a] == DATASET_NONE)
				continue;
			node = dataset_cct_child(t, node, fr[a]);
			if (node == UINT32_MAX)
				return dataset_cct_done(t, -ENOMEM, false, out);
			cct_add(&t->n[node], s, sl);
		}
	}
	return dataset_cct_done(t, 0, t->n[0].slow[XLP_C_WALL] + t->n[0].fast[XLP_C_WALL] > 0, out);
}
