/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The synthetic scenarios of synth.h: runs of six functions, some slow for a known cause. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "synth.h"
#include "testlib.h"

const char *const synth_func_names[SYNTH_NFUNCS] = {
	"parse_input", "load_config", "query_db", "render", "compress", "send_reply",
};

/* Mean usage of each function, in ms: cpu_run, cpu_wait, disk, net, ipc, lock, timer, other. */
static const struct synth_usage base_ms[SYNTH_NFUNCS] = {
	{3.0, 0.2, 0.1, 0, 0, 0.05, 0, 0.05}, {0.8, 0.1, 2.5, 0, 0, 0, 0, 0.1},
	{1.5, 0.2, 0, 1.0, 4.0, 0.1, 0, 0.1}, {7.0, 0.4, 0, 0, 0, 0.6, 0, 0.1},
	{5.0, 0.5, 0, 0, 0, 0.1, 0, 0.05},    {1.0, 0.1, 0, 3.0, 0, 0, 0.8, 0.1},
};

#define FAST_KHZ 2400000.0
#define SLOW_KHZ 300000.0

struct rng {
	uint64_t s;
};

static double rng_u(struct rng *r)
{
	return tl_rnd01(&r->s);
}

static double rng_n(struct rng *r) /* standard normal (Box-Muller) */
{
	double u = rng_u(r), v = rng_u(r);

	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* x ms with 12 % multiplicative noise and up to 20 us of jitter, in ns. */
static double noisy_ns(struct rng *r, double ms)
{
	double f = 1 + 0.12 * rng_n(r);

	return ms * 1e6 * (f < 0.05 ? 0.05 : f) + 20000 * rng_u(r);
}

static void usage_noisy(struct rng *r, const struct synth_usage *b, struct synth_usage *u)
{
	u->cpu_run = noisy_ns(r, b->cpu_run);
	u->cpu_wait = noisy_ns(r, b->cpu_wait);
	u->disk = noisy_ns(r, b->disk);
	u->net = noisy_ns(r, b->net);
	u->ipc = noisy_ns(r, b->ipc);
	u->lock = noisy_ns(r, b->lock);
	u->timer = noisy_ns(r, b->timer);
	u->other = noisy_ns(r, b->other);
	u->khz = FAST_KHZ * (1 + 0.02 * rng_n(r));
}

/* The field of u that factor f adds its time to; NULL for none (CPU_FREQ: see perturb). */
static double *factor_ns(struct synth_usage *u, enum synth_factor f)
{
	double *at[] = {[SYNTH_CPU_RUN] = &u->cpu_run, [SYNTH_CPU_WAIT] = &u->cpu_wait,
			[SYNTH_DISK] = &u->disk,       [SYNTH_NET] = &u->net,
			[SYNTH_IPC] = &u->ipc,	       [SYNTH_LOCK] = &u->lock,
			[SYNTH_TIMER] = &u->timer};

	return (size_t)f < sizeof(at) / sizeof(at[0]) ? at[f] : NULL;
}

static void perturb(struct rng *r, enum synth_factor f, double extra_ms, struct synth_usage *u)
{
	double x = extra_ms * 1e6 * (1 + 0.1 * rng_n(r));
	double *ns = factor_ns(u, f);

	if (f == SYNTH_CPU_FREQ) { /* same cycles at an eighth of the frequency */
		u->khz = SLOW_KHZ * (1 + 0.02 * rng_n(r));
		u->cpu_run *= FAST_KHZ / SLOW_KHZ;
	} else if (ns) {
		*ns += x;
	}
}

static void ctr_add(uint64_t *a, const uint64_t *b)
{
	for (int c = 0; c < XLP_NR_CTR; c++)
		a[c] += b[c];
}

struct gen {
	const struct synth_scenario *sc;
	struct synth *s;
	struct rng r;
	uint32_t fid0; /* func id of synth_func_names[0] */
	bool freq;
};

/* One function invocation on the main thread, parse_input recursing once. */
/* slow: 0 fast, 1 slowed by the scenario, 2 the outlier run */
static int gen_func(struct gen *g, unsigned f, int slow, uint32_t pid, uint32_t tid, uint16_t depth,
		    uint64_t t, uint64_t *incl)
{
	const struct synth_scenario *sc = g->sc;
	struct synth_usage u;
	bool hit = slow == 1 && f == sc->slow_func;
	bool peer = hit ? sc->factor == SYNTH_IPC : base_ms[f].ipc > 0;
	uint64_t excl[XLP_NR_CTR];
	int err;

	usage_noisy(&g->r, &base_ms[f], &u);
	if (hit)
		perturb(&g->r, sc->factor, sc->extra_ms ? sc->extra_ms : 60, &u);
	if (slow == 2 && f == 3) /* the outlier */
		perturb(&g->r, SYNTH_CPU_RUN, 60, &u);
	if (!g->freq)
		u.khz = 0;
	synth__counters(&u, incl);
	memcpy(excl, incl, sizeof(excl));
	if (f == 0) { /* recursion: an inner call doing 30 % of the work */
		struct synth_usage in = u;
		uint64_t inner[XLP_NR_CTR];

		in.cpu_run *= 0.3, in.cpu_wait *= 0.3, in.disk *= 0.3, in.other *= 0.3;
		in.lock *= 0.3;
		in.net = in.ipc = in.timer = 0;
		synth__counters(&in, inner);
		err = synth__call(g->s, g->fid0 + f, pid, tid, depth + 1, t + 1000, inner, NULL, 0,
				  NULL);
		if (err)
			return err;
		for (int c = 0; c < XLP_NR_CTR; c++)
			excl[c] -= inner[c];
	}
	if (!peer)
		return synth__call(g->s, g->fid0 + f, pid, tid, depth, t, incl, excl, 0, NULL);
	return synth__call(g->s, g->fid0 + f, pid, tid, depth, t, incl, excl,
			   hit ? SYNTH_PEER_PID : SYNTH_PEER_PID + 1,
			   hit ? SYNTH_PEER_COMM : "cachesrv");
}

/* Everything outside the marked functions: the run's own code, an unmarked thread. */
static void gen_background(struct gen *g, bool slow, uint64_t *proc)
{
	struct synth_usage bg = {0};
	uint64_t c[XLP_NR_CTR];

	bg.cpu_run = 1e6 * (g->sc->bg_disk ? 40 : 10) * rng_u(&g->r);
	bg.other = 1e6 * rng_u(&g->r);
	bg.disk = g->sc->bg_disk && slow ? 60e6 * (1 + 0.1 * rng_n(&g->r)) : 1e6 * rng_u(&g->r);
	bg.khz = g->freq ? FAST_KHZ : 0;
	synth__counters(&bg, c);
	c[XLP_C_WALL] = 0; /* process-wide: wall is the run's, set by the caller */
	ctr_add(proc, c);
}

/* One run: returns its end time in *end, process-wide usage in proc. */
static int gen_run(struct gen *g, int slow, uint32_t pid, uint64_t t0, uint64_t *end,
		   uint64_t *main_incl, uint64_t *proc)
{
	uint16_t d = g->sc->launches ? 0 : 1;
	uint64_t t = t0 + 200000, c[XLP_NR_CTR], own[XLP_NR_CTR];
	struct synth_usage o = {.cpu_run = 300000, .khz = g->freq ? FAST_KHZ : 0};
	int err = 0;

	memset(main_incl, 0, XLP_NR_CTR * sizeof(*main_incl));
	memset(proc, 0, XLP_NR_CTR * sizeof(*proc));
	for (unsigned f = 0; f < SYNTH_NFUNCS && !err; f++) {
		/* compress runs on a worker thread; the main thread waits for it */
		bool worker = f == 4;

		err = gen_func(g, f, slow, pid, worker ? pid + 1 : pid, worker ? 0 : d, t, c);
		t += c[XLP_C_WALL];
		ctr_add(proc, c);
		if (worker)
			o.lock += (double)c[XLP_C_WALL];
		else
			ctr_add(main_incl, c);
	}
	if (slow == 1 && g->sc->unmarked) { /* e.g. a loop in the interaction's own code */
		uint64_t x = (uint64_t)(1e6 * (g->sc->extra_ms ? g->sc->extra_ms : 60));

		o.cpu_run += (double)x;
		t += x;
	}
	synth__counters(&o, own);
	ctr_add(main_incl, own);
	ctr_add(proc, own);
	gen_background(g, slow == 1, proc);
	main_incl[XLP_C_WALL] = t + 100000 - t0;
	proc[XLP_C_WALL] = main_incl[XLP_C_WALL];
	*end = t0 + main_incl[XLP_C_WALL];
	return err;
}

static void pick_slow(struct rng *r, unsigned n, unsigned nslow, bool outlier, uint8_t *slow)
{
	unsigned *idx = malloc(n * sizeof(*idx));

	memset(slow, 0, n);
	if (!idx)
		return;
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	for (unsigned i = n; i > 1; i--) { /* Fisher-Yates */
		unsigned j = (unsigned)(rng_u(r) * i), tmp = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = tmp;
	}
	for (unsigned i = 0; i < nslow && i < n; i++)
		slow[idx[i]] = 1;
	if (outlier && nslow < n)
		slow[idx[nslow]] = 2;
	free(idx);
}

static int gen_runs(struct gen *g, unsigned n, const uint8_t *slow)
{
	const struct synth_scenario *sc = g->sc;
	uint64_t incl[XLP_NR_CTR], proc[XLP_NR_CTR], end;
	int err = 0;

	for (unsigned i = 0; i < n && !err; i++) {
		uint32_t pid = sc->launches ? 2000 + 2 * i : 1000;
		uint64_t t0 = 2000000000ull + (uint64_t)i * 300000000ull;

		err = gen_run(g, slow[i], pid, t0, &end, incl, proc);
		if (err)
			break;
		if (sc->launches) {
			err = synth__launch(g->s, i, pid, t0 - 500000, end + 300000);
			proc[XLP_C_WALL] = end + 800000 - t0;
			err = err ? err : synth__proc(g->s, pid, proc);
		} else {
			err = synth__call(g->s, 0, pid, pid, 0, t0, incl, NULL, 0, NULL);
			err = err ? err : synth__run(g->s, 0, pid, pid, t0, proc);
		}
		err = err ? err : synth__flush(g->s);
	}
	return err;
}

int synth__scenario(const struct synth_scenario *sc)
{
	struct synth_func funcs[SYNTH_NFUNCS + 1];
	unsigned n = sc->nruns ? sc->nruns : 60, nf = 0;
	double frac = sc->slow_frac ? sc->slow_frac : 0.25;
	uint32_t feat = sc->features ? sc->features
				     : XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES |
					       XLP_FEAT_SYSCALLS | XLP_FEAT_BLOCK;
	uint64_t stat[XLP_NR_STAT] = {0};
	struct gen g = {.sc = sc, .r = {sc->seed * 7919 + 1}};
	uint8_t *slow = malloc(n);
	int err;

	if (!slow)
		return -ENOMEM;
	if (!sc->launches)
		funcs[nf++] = (struct synth_func){
			SYNTH_BINARY, sc->interaction ? sc->interaction : SYNTH_INTERACTION, true};
	g.fid0 = nf;
	for (unsigned f = 0; f < SYNTH_NFUNCS; f++)
		funcs[nf++] = (struct synth_func){
			SYNTH_BINARY, sc->names ? sc->names[f] : synth_func_names[f], false};
	g.freq = feat & XLP_FEAT_CPUFREQ;
	pick_slow(&g.r, n,
		  sc->factor == SYNTH_NONE && !sc->bg_disk && !sc->unmarked
			  ? 0
			  : (unsigned)lround(frac * n),
		  sc->outlier, slow);
	err = synth__open(sc->path, feat, sc->launches ? n : 0, funcs, nf, &g.s);
	if (err)
		goto cleanup;
	err = gen_runs(&g, n, slow);
	if (err || sc->truncate) {
		synth__abort(g.s);
		goto cleanup;
	}
	stat[XLP_S_RB_FULL] = sc->rb_full;
	err = synth__close(g.s, stat, 0);
cleanup:
	free(slow);
	return err;
}
