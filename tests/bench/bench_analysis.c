/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Speed of the analysis (prints timings, no pass/fail):
 *   1. dtree__fit on 10 000 runs x 500 functions, most of them weakly
 *      related to the label so that few are pruned (the hard case);
 *   2. the whole pipeline (trace files -> report) on a synthetic trace.
 * Built like a unit test (make build-tests): tests/lib's objects and the
 * archives of every layer, .output/libxlprobe-*.a.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diagnosis.h"
#include "dtree.h"
#include "report.h"
#include "synth.h"
#include "testlib.h"

static double now(void)
{
	return tl_now_ns() / 1e9;
}

static uint64_t rng = 42;

static double rnd(void)
{
	return tl_rnd01(&rng);
}

static void bench_tree(size_t n, size_t m, double gap)
{
	double *x = malloc(n * m * sizeof(*x)), t0, t1;
	uint8_t *slow = malloc(n);
	struct dtree_params p = DTREE_PARAMS_DEFAULT;
	struct dtree_input in = {.nsamples = n, .nfeatures = m, .x = x, .slow = slow};
	struct dtree *t = NULL;
	size_t kept = 0;

	if (!x || !slow)
		return;
	for (size_t i = 0; i < n; i++)
		slow[i] = rnd() < 0.25;
	for (size_t f = 0; f < m; f++) {
		double shift = 2e6 * rnd(); /* 0..2 ms more in slow runs */

		for (size_t i = 0; i < n; i++) /* times in ns, 1 ms of noise, 1 us grain */
			x[f * n + i] = floor((5e6 + 1e6 * (rnd() + rnd() + rnd()) +
					      (slow[i] ? shift : 0)) /
					     1e3) *
				       1e3;
	}
	p.gap_frac = gap;
	t0 = now();
	if (dtree__fit(&in, &p, &t))
		return;
	t1 = now();
	for (size_t f = 0; f < m; f++)
		kept += dtree__feat_stats(t, f)->pruned == DTREE_KEPT;
	printf("dtree__fit %zu runs x %zu functions (%zu kept, gap %.2f): %.3f s, %zu nodes\n", n,
	       m, kept, gap, t1 - t0, dtree__nnodes(t));
	dtree__free(t);
	free(x);
	free(slow);
}

/* The seconds of each step of a pipeline (write, load, analyse) and its verdict. */
struct timed {
	double sec[3];
	struct report_verdict v;
};

/*
 * A trace written by write(path, ctx), loaded and analysed (and reported
 * as JSON into /dev/null when json), timed in *tm. -1 when a step failed.
 */
static int timed_pipeline(int (*write)(const char *path, void *ctx), void *ctx, bool json,
			  struct timed *tm)
{
	char path[] = "/tmp/xlp-bench-XXXXXX";
	int fd = mkstemp(path), ret = -1;
	struct diagnosis_opts o = DIAGNOSIS_OPTS_DEFAULT;
	const char *paths[1] = {path};
	struct diagnosis *r = NULL;
	struct dataset *ds = NULL;
	FILE *devnull = json ? fopen("/dev/null", "w") : NULL;
	double t0, t1, t2;
	char err[256];

	if (fd < 0 || (json && !devnull))
		goto cleanup;
	close(fd);
	t0 = now();
	if (write(path, ctx))
		goto cleanup;
	t1 = now();
	if (dataset__load(paths, 1, NULL, &ds, err, sizeof(err)))
		goto cleanup;
	t2 = now();
	if (diagnosis__run(ds, &o, &r, err, sizeof(err)))
		goto cleanup;
	if (json)
		report__json(devnull, ds, r);
	tm->sec[0] = t1 - t0;
	tm->sec[1] = t2 - t1;
	tm->sec[2] = now() - t2;
	report__verdict(ds, r, &tm->v);
	ret = 0;
cleanup:
	diagnosis__free(r);
	dataset__free(ds);
	if (devnull)
		fclose(devnull);
	if (fd >= 0)
		unlink(path);
	return ret;
}

static int write_scenario(const char *path, void *ctx)
{
	struct synth_scenario *sc = ctx;

	sc->path = path;
	return synth__scenario(sc);
}

static void bench_pipeline(unsigned nruns)
{
	struct synth_scenario sc = {
		.nruns = nruns, .factor = SYNTH_DISK, .slow_func = 1, .seed = 1};
	struct timed tm;

	if (timed_pipeline(write_scenario, &sc, true, &tm))
		return;
	printf("pipeline %u runs (%u calls): write %.3f s, load %.3f s, analyse+report %.3f s: "
	       "%s\n",
	       nruns, nruns * (SYNTH_NFUNCS + 2), tm.sec[0], tm.sec[1], tm.sec[2], tm.v.text);
}

/* nruns runs of an interaction calling nfuncs marked functions in turn. */
static int write_wide(const char *path, unsigned nruns, unsigned nfuncs)
{
	struct synth_func *fn = calloc(nfuncs + 1, sizeof(*fn));
	char(*names)[16] = calloc(nfuncs + 1, sizeof(*names));
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	int err = -1;

	if (!fn || !names)
		goto cleanup;
	fn[0] = (struct synth_func){"/bin/app", "run", true};
	for (unsigned f = 1; f <= nfuncs; f++) {
		snprintf(names[f], sizeof(names[f]), "fn%u", f);
		fn[f] = (struct synth_func){"/bin/app", names[f], false};
	}
	if (synth__open(path, XLP_FEAT_SYSCALLS, 0, fn, nfuncs + 1, &s))
		goto cleanup;
	for (unsigned r = 0; r < nruns; r++) {
		uint64_t t0 = 1000000000ull + r * 100000000ull, t = t0;
		bool slow = r % 4 == 0;

		for (unsigned f = 1; f <= nfuncs; f++) {
			struct synth_usage u = {.cpu_run = 50000 + 10000 * rnd(),
						.disk = 1000 * rnd()};

			if (slow && f == 7)
				u.disk += 20e6;
			synth__counters(&u, c);
			synth__call(s, f, 1, 1, 1, t, c, NULL, 0, NULL);
			t += c[XLP_C_WALL];
		}
		memset(c, 0, sizeof(c));
		c[XLP_C_WALL] = t - t0 + 1000;
		synth__call(s, 0, 1, 1, 0, t0, c, NULL, 0, NULL);
	}
	err = synth__close(s, NULL, 0);
cleanup:
	free(fn);
	free(names);
	return err;
}

struct wide {
	unsigned nruns, nfuncs;
};

static int write_wide_trace(const char *path, void *ctx)
{
	const struct wide *w = ctx;

	return write_wide(path, w->nruns, w->nfuncs);
}

static void bench_wide(unsigned nruns, unsigned nfuncs)
{
	struct wide w = {nruns, nfuncs};
	struct timed tm;

	if (timed_pipeline(write_wide_trace, &w, false, &tm))
		return;
	printf("wide %u runs x %u functions (%u calls): write %.2f s, load %.2f s, analyse %.2f s: "
	       "%s\n",
	       nruns, nfuncs, nruns * (nfuncs + 1), tm.sec[0], tm.sec[1], tm.sec[2], tm.v.text);
}

int main(void)
{
	bench_tree(10000, 500, 0.05);
	bench_tree(10000, 500, 0);
	bench_tree(1000, 50, 0.05);
	bench_pipeline(10000);
	bench_wide(2000, 500);
	return 0;
}
