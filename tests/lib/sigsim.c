/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The operating characteristic of the evidence rules (see sigsim.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sigsim.h"
#include "diagnosis.h"
#include "dataset.h"
#include "synth.h"
#include "xlptest.h"
#include "testlib.h"

#define FEAT (XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | XLP_FEAT_SYSCALLS | XLP_FEAT_BLOCK)

/*
 * The natural shapes the issue names: lognormal sigma up to 0.6, Pareto
 * tails alpha >= 1.5, runs that are a mix of fast and slow calls of one
 * function, a machine whose speed drifts (AR(1)); the function reads the
 * disk for 30 % of its time, in proportion (cpu_only: it only computes).
 */
/* what the table says of the shapes the rules cannot tell apart */
#define ALIKE_MODE                                                                                 \
	"runs with 0, 1, 2... slow calls of alike length are distinct modes, as a cause makes"
#define ALIKE_BURSTS "slow runs in long streaks: bursts, as interference that comes and goes"
#define ALIKE_REST                                                                                 \
	"the rest of the run grew too little to tell from its noise at this count of runs: like "  \
	"more work in the function"
#define ALIKE_CPU                                                                                  \
	"only CPU time grew, in proportion: like a natural tail unless it leaves a distinct mode"

const struct sigsim_shape sigsim_natural[] = {
	{"lognormal sigma 0.05", SIGSIM_LOGNORMAL, 0.05, 0},
	{"lognormal sigma 0.2", SIGSIM_LOGNORMAL, 0.2, 0},
	{"lognormal sigma 0.4", SIGSIM_LOGNORMAL, 0.4, 0},
	{"lognormal sigma 0.6", SIGSIM_LOGNORMAL, 0.6, 0},
	{"Pareto alpha 1.5", SIGSIM_PARETO, 1.5, 0},
	{"Pareto alpha 2.5", SIGSIM_PARETO, 2.5, 0},
	{"mix: 10 calls, 10 % of them 5x, calls +-30 %", SIGSIM_MIX, 5, 0.1, .c = 0.3},
	{"mix: 10 calls, 10 % of them 5x, calls +-5 %", SIGSIM_MIX, 5, 0.1, .c = 0.05,
	 .alike = ALIKE_MODE},
	{"mix: 10 calls, 2 % of them 20x, calls +-5 %", SIGSIM_MIX, 20, 0.02, .c = 0.05,
	 .alike = ALIKE_MODE},
	{"AR(1) 0.5 drift, sigma 0.3", SIGSIM_AR1, 0.3, 0.5},
	{"AR(1) 0.9 drift, sigma 0.3", SIGSIM_AR1, 0.3, 0.9, .alike = ALIKE_BURSTS},
	{"CPU only, lognormal sigma 0.2", SIGSIM_LOGNORMAL, 0.2, 0, true},
	{"CPU only, Pareto alpha 1.5", SIGSIM_PARETO, 1.5, 0, true},
	/* issue 36, rule 2: the machine, not a function (every one stretched alike) */
	{"CPU 30 % slower in a window of 25 %, spread 5 %", SIGSIM_LOGNORMAL, 0.05, 0, true,
	 SIGSIM_MACHINE, SIGSIM_WINDOW, 0.25, 1.3},
	/*
	 * and unevenly: a slower host (its other tenants, the hypervisor)
	 * slows memory-bound code more than the rest (CI, Debian's xz: its
	 * lzma_code 55 % slower in 22 of 48 identical launches, the rest of
	 * the launch 11 %)
	 */
	{"CPU 30 % slower in a window of 25 %, the rest 3 %, spread 5 %", SIGSIM_LOGNORMAL, 0.05, 0,
	 true, SIGSIM_MACHINE, SIGSIM_WINDOW, 0.25, 1.3, .alike = ALIKE_REST, .rest_x = 1.03},
};
const size_t sigsim_nnatural = sizeof(sigsim_natural) / sizeof(sigsim_natural[0]);

/*
 * One slowdown (which runs, how much) through each cause in turn: a lock
 * the function never took, its disk grown, its CPU time alone. Named
 * "what, lock added", "what, disk grew", "what, CPU grew".
 */
/* clang-format off */
#define SIGSIM_EACH_CAUSE(what, spread, slowdown, frac, x)					\
	{what ", lock added", SIGSIM_LOGNORMAL, spread, 0, false, SIGSIM_ADD, slowdown, frac, x}, \
	{what ", disk grew", SIGSIM_LOGNORMAL, spread, 0, false, SIGSIM_GROW, slowdown, frac, x}, \
	{what ", CPU grew", SIGSIM_LOGNORMAL, spread, 0, true, SIGSIM_CPU, slowdown, frac, x,	\
	 ALIKE_CPU}
/* clang-format on */

/*
 * The perturbations: a step, a continuous spread 1.3-10x, a rare 5 % of
 * runs, a cause in about half the slow runs; through a resource the
 * function never used, one it always used, or its CPU time alone.
 */
const struct sigsim_shape sigsim_perturbed[] = {
	SIGSIM_EACH_CAUSE("step +30 % in 25 %, spread 5 %", 0.05, SIGSIM_STEP, 0.25, 1.3),
	{"1.3-10x in 10 %, spread 20 %, disk grew", SIGSIM_LOGNORMAL, 0.2, 0, false, SIGSIM_GROW,
	 SIGSIM_CONTINUOUS, 0.1, 10},
	{"1.3-10x in 10 %, spread 20 %, CPU grew", SIGSIM_LOGNORMAL, 0.2, 0, true, SIGSIM_CPU,
	 SIGSIM_CONTINUOUS, 0.1, 10, ALIKE_CPU},
	SIGSIM_EACH_CAUSE("3x in 5 %, spread 20 %", 0.2, SIGSIM_STEP, 0.05, 3),
	{"+60 % in 8 % (half the slow), spread 20 %, lock added", SIGSIM_LOGNORMAL, 0.2, 0, false,
	 SIGSIM_ADD, SIGSIM_STEP, 0.08, 1.6},
	/* issue 36, rule 2: more work in one window of time, not a slower CPU */
	{"+30 % CPU in a window of 25 %, spread 5 %", SIGSIM_LOGNORMAL, 0.05, 0, true, SIGSIM_CPU,
	 SIGSIM_WINDOW, 0.25, 1.3},
};
const size_t sigsim_nperturbed = sizeof(sigsim_perturbed) / sizeof(sigsim_perturbed[0]);

static double gauss(uint64_t *st)
{
	double u = tl_rnd01(st) + 1e-12, v = tl_rnd01(st);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* The function's natural time in a run, relative to a median near 1. */
static double natural(const struct sigsim_shape *s, uint64_t *st, double *z)
{
	double t = 0;

	switch (s->kind) {
	case SIGSIM_LOGNORMAL:
		return exp(s->a * gauss(st));
	case SIGSIM_PARETO: /* x_m chosen for a median of 1 */
		return pow(2, -1 / s->a) * pow(1 - tl_rnd01(st), -1 / s->a);
	case SIGSIM_MIX:
		for (int k = 0; k < 10; k++)
			t += 0.1 * (tl_rnd01(st) < s->b ? s->a : 1) * exp(s->c * gauss(st));
		return t;
	case SIGSIM_AR1:
		*z = s->b * *z + sqrt(1 - s->b * s->b) * gauss(st);
		return exp(s->a * *z);
	}
	return 1;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull + 0x2545f4914f6cdd1dull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int emit_call(struct synth *s, uint32_t f, uint16_t depth, uint64_t entry,
		     const struct synth_usage *u, uint64_t *ctr)
{
	synth__counters(u, ctr);
	return synth__call(s, f, 1000, 1000, depth, entry, ctr, NULL, 0, NULL);
}

int sigsim__write(const char *path, const struct sigsim_shape *sh, unsigned nruns, uint64_t seed)
{
	const struct synth_func funcs[] = {{"/opt/app", "handle", true},
					   {"/opt/app", "work", false},
					   {"/opt/app", "other", false}};
	/* splitmix64's finalizer: seeds whose states would be a few steps of
	 * the sequence apart (seed * its increment) draw unrelated numbers */
	uint64_t st = mix(seed), t = 1000000000, cw[XLP_NR_CTR], co[XLP_NR_CTR], top[XLP_NR_CTR];
	struct synth *s;
	double z = 0;
	uint8_t *hit = calloc(nruns + 1, 1);
	/* exactly frac of the runs (at least one), at random places: the rate
	 * measures the rules, not how many runs a draw happened to slow */
	unsigned nhit = sh->cause ? (unsigned)fmax(1, round(sh->frac * nruns)) : 0;
	int err = hit ? synth__open(path, FEAT, 0, funcs, 3, &s) : -ENOMEM;

	if (err) {
		free(hit);
		return err;
	}
	if (sh->slowdown == SIGSIM_WINDOW) {
		unsigned at = (unsigned)(tl_rnd01(&st) * (nruns - nhit + 1));

		for (unsigned k = 0; k < nhit && at + k < nruns; k++)
			hit[at + k] = 1;
	}
	for (unsigned k = 0; k < nhit && sh->slowdown != SIGSIM_WINDOW;) {
		unsigned i = (unsigned)(tl_rnd01(&st) * nruns);

		k += !hit[i];
		hit[i] = 1;
	}
	for (unsigned i = 0; i < nruns && !err; i++) {
		double w = 10e6 * natural(sh, &st, &z), extra = 0, dshare = sh->cpu_only ? 0 : 0.3;
		struct synth_usage uw = {0}, uo = {0}, ut = {0};

		if (hit[i])
			extra = w *
				(sh->slowdown != SIGSIM_CONTINUOUS
					 ? sh->x - 1
					 : exp(log(1.3) + (log(sh->x) - log(1.3)) * tl_rnd01(&st)) -
						   1);
		/* resources in proportion: each its share of the time, 5 % of noise */
		uw.cpu_run = w * (1 - dshare) * (1 + 0.05 * gauss(&st));
		uw.disk = w * dshare * (1 + 0.05 * gauss(&st));
		uw.cpu_wait = w * 0.01 * tl_rnd01(&st);
		if (sh->cause == SIGSIM_ADD)
			uw.lock = extra;
		else if (sh->cause == SIGSIM_GROW)
			uw.disk += extra;
		else if (sh->cause == SIGSIM_CPU)
			uw.cpu_run += extra;
		uo.cpu_run = 2e6 * (1 + 0.05 * gauss(&st));
		ut.cpu_run = 0.2e6 * (1 + 0.05 * gauss(&st));
		if (sh->cause == SIGSIM_MACHINE && hit[i]) { /* the same work, slower */
			uw.cpu_run *= sh->x;
			uo.cpu_run *= sh->rest_x > 0 ? sh->rest_x : sh->x;
			ut.cpu_run *= sh->rest_x > 0 ? sh->rest_x : sh->x;
		}
		err = emit_call(s, 1, 1, t + 1000, &uw, cw);
		err = err ? err : emit_call(s, 2, 1, t + 2000 + cw[XLP_C_WALL], &uo, co);
		if (err)
			break;
		synth__counters(&ut, top);
		for (int c = 0; c < XLP_NR_CTR; c++)
			top[c] += cw[c] + co[c];
		err = synth__call(s, 0, 1000, 1000, 0, t, top, NULL, 0, NULL);
		err = err ? err : synth__run(s, 0, 1000, 1000, t, top);
		t += top[XLP_C_WALL] + 1000000;
	}
	free(hit);
	if (err) {
		synth__abort(s);
		return err;
	}
	return synth__close(s, NULL, 0);
}

int sigsim__trial(const struct sigsim_shape *s, unsigned nruns, uint64_t seed,
		  struct sigsim_trial *out)
{
	const char *path = xt_tmp_path("sigsim.xlp");
	const char *paths[1] = {path};
	struct diagnosis_opts o = DIAGNOSIS_OPTS_DEFAULT;
	struct dataset *ds = NULL;
	struct diagnosis *r = NULL;
	char err[512];
	int ret;

	memset(out, 0, sizeof(*out));
	ret = sigsim__write(path, s, nruns, seed);
	ret = ret ? ret : dataset__load(paths, 1, NULL, &ds, err, sizeof(err));
	ret = ret ? ret : diagnosis__run(ds, &o, &r, err, sizeof(err));
	if (ret)
		goto cleanup;
	for (size_t i = 0; r->status == DIAGNOSIS_OK && i < r->ncrit; i++) {
		const struct diagnosis_evidence *e = &r->crit[i].ev;
		bool target = !strcmp(dataset__func(ds, r->crit[i].func)->symbol, "work");

		if (out->any && !target)
			continue;
		out->any = true;
		out->target = target;
		out->mode = e->mode && !e->cpu_mode;
		out->bursts = e->bursty && !e->cpu_bursts;
		out->resource = e->resource;
		out->beyond = e->beyond;
	}
cleanup:
	diagnosis__free(r);
	dataset__free(ds);
	return ret;
}

int sigsim__rate(const struct sigsim_shape *s, unsigned nruns, unsigned trials, uint64_t seed0,
		 struct sigsim_count *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned k = 0; k < trials; k++) {
		struct sigsim_trial t;
		int err = sigsim__trial(s, nruns, seed0 + k, &t);

		if (err)
			return err;
		if (!(s->cause && s->cause != SIGSIM_MACHINE ? t.target : t.any))
			continue;
		c->hits++;
		c->mode += t.mode;
		c->bursts += t.bursts;
		c->resource += t.resource;
		c->beyond += t.beyond;
	}
	return 0;
}
