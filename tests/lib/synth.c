/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "testlib.h"
#include "commands.h"
#include "json.h"
#include "synth.h"
#include "testlib.h"

struct synth {
	struct trace_writer *w;
	uint64_t ncalls;
};

int synth__open(const char *path, uint32_t features, uint32_t repeat,
		const struct synth_func *funcs, size_t nfuncs, struct synth **out)
{
	return synth__open_on(path, features, repeat, funcs, nfuncs,
			      &(struct synth_host){"synth", "", 0x1000}, out);
}

int synth__open_on(const char *path, uint32_t features, uint32_t repeat,
		   const struct synth_func *funcs, size_t nfuncs, const struct synth_host *h,
		   struct synth **out)
{
	struct xlp_func_info fi[XLP_MAX_FUNCS];
	struct xlp_trace_meta m = {
		.ncpus = 2,
		.clock_id = 1,
		.features = features,
		.start_ns = 1000000000ull,
		.repeat = repeat,
		.host = (char *)h->host,
		.kernel = "6.18.0",
		.cmdline = "app --serve",
		.notes = "",
		.nfuncs = (uint32_t)nfuncs,
		.funcs = fi,
	};
	struct synth *s;
	int err;

	*out = NULL;
	if (nfuncs > XLP_MAX_FUNCS)
		return -EINVAL;
	for (size_t i = 0; i < nfuncs; i++)
		fi[i] = (struct xlp_func_info){
			.id = (uint32_t)i,
			.flags = (funcs[i].interaction ? XLP_FUNC_INTERACTION : 0) | funcs[i].flags,
			.offset = h->offset + 16 * i,
			.binary = (char *)funcs[i].binary,
			.symbol = (char *)funcs[i].symbol,
			.build_id = (char *)h->build_id};
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = trace_writer__open(path, &m, &s->w);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

/*
 * Appends one record whose header is still to fill: every writer below
 * builds its record and hands it here, so the header is set in one place.
 */
static int put(struct synth *s, uint16_t type, struct xlp_hdr *h, size_t size)
{
	h->type = type;
	h->size = (uint16_t)size;
	return trace_writer__append(s->w, h);
}

static int put_call(struct synth *s, struct xlp_call_rec *c, const uint64_t *incl,
		    const uint64_t *excl)
{
	memcpy(c->incl, incl, sizeof(c->incl));
	memcpy(c->excl, excl ? excl : incl, sizeof(c->excl));
	s->ncalls++;
	return put(s, XLP_R_CALL, &c->h, sizeof(*c));
}

int synth__call(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint16_t depth,
		uint64_t entry_ns, const uint64_t *incl, const uint64_t *excl, uint32_t peer_pid,
		const char *peer_comm)
{
	struct xlp_call_rec c = {
		.func_id = func, .pid = pid, .tid = tid, .depth = depth, .entry_ns = entry_ns};

	if (peer_comm) {
		c.flags |= XLP_CALL_IPC_PEER;
		c.ipc_peer_pid = peer_pid;
		strncpy(c.ipc_peer_comm, peer_comm, sizeof(c.ipc_peer_comm) - 1);
	}
	return put_call(s, &c, incl, excl);
}

int synth__call_flags(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint16_t depth,
		      uint64_t entry_ns, const uint64_t *incl, uint16_t flags)
{
	struct xlp_call_rec c = {
		.func_id = func, .pid = pid, .tid = tid, .depth = depth, .entry_ns = entry_ns};

	c.flags = flags;
	return put_call(s, &c, incl, NULL);
}

int synth__lag(struct synth *s, const struct xlp_lag_rec *lag)
{
	struct xlp_lag_rec l = *lag;

	return put(s, XLP_R_LAG, &l.h, sizeof(l));
}

int synth__run(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint64_t entry_ns,
	       const uint64_t *proc)
{
	struct xlp_run_rec r = {.func_id = func, .pid = pid, .tid = tid, .entry_ns = entry_ns};

	memcpy(r.proc, proc, sizeof(r.proc));
	return put(s, XLP_R_RUN, &r.h, sizeof(r));
}

int synth__launch(struct synth *s, uint32_t run, uint32_t pid, uint64_t start_ns, uint64_t end_ns)
{
	struct xlp_launch_rec l = {.run = run, .pid = pid, .start_ns = start_ns, .end_ns = end_ns};

	return put(s, XLP_R_LAUNCH, &l.h, sizeof(l));
}

int synth__proc(struct synth *s, uint32_t pid, const uint64_t *tot)
{
	struct xlp_proc_rec p = {.pid = pid, .flags = XLP_THREAD_EXITED, .comm = "app"};

	memcpy(p.tot, tot, sizeof(p.tot));
	return put(s, XLP_R_PROC, &p.h, sizeof(p));
}

int synth__thread(struct synth *s, uint32_t pid, uint32_t tid, uint32_t flags, const char *comm,
		  const uint64_t *tot)
{
	struct xlp_thread_rec t = {.pid = pid,
				   .tid = tid,
				   .flags = flags,
				   .first_ns = 1000000000ull + tid,
				   .last_ns = 9000000000ull - tid};

	/* up to all 16 bytes, unterminated then, as the kernel's comm can be */
	memcpy(t.comm, comm, strnlen(comm, sizeof(t.comm)));
	memcpy(t.tot, tot, sizeof(t.tot));
	return put(s, XLP_R_THREAD, &t.h, sizeof(t));
}

int synth__sym(struct synth *s, uint32_t id, uint16_t kind, const char *module, const char *name)
{
	_Alignas(8) char buf[sizeof(struct xlp_sym_rec) + 512];
	struct xlp_sym_rec *r = (void *)buf;
	size_t m = strlen(module), n = strlen(name);

	if (m + n > 500)
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	r->id = id;
	r->kind = kind;
	r->module_len = (uint16_t)m;
	r->name_len = (uint16_t)n;
	memcpy(r->text, module, m);
	memcpy(r->text + m, name, n);
	return put(s, XLP_R_SYM, &r->h, (sizeof(*r) + m + n + 7) & ~(size_t)7);
}

/* A stack of user (flags 0) or kernel (XLP_STACK_KERNEL) frames. */
static int put_stack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n, uint16_t flags)
{
	_Alignas(8) char buf[sizeof(struct xlp_stack_rec) +
			     XLP_STACK_DEPTH * sizeof(struct xlp_stack_frame)];
	struct xlp_stack_rec *r = (void *)buf;

	if (n > XLP_STACK_DEPTH)
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	r->id = id;
	r->nframes = n;
	r->flags = flags;
	for (uint16_t i = 0; i < n; i++)
		r->frames[i].sym = syms[i];
	return put(s, XLP_R_STACK, &r->h, sizeof(*r) + n * sizeof(r->frames[0]));
}

int synth__stack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n)
{
	return put_stack(s, id, syms, n, 0);
}

int synth__kstack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n)
{
	return put_stack(s, id, syms, n, XLP_STACK_KERNEL);
}

int synth__ksample(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time_ns,
		   uint64_t weight_ns, uint32_t ustack, uint32_t kstack, uint32_t reason)
{
	struct xlp_sample_rec r = {
		.pid = pid,
		.tid = tid,
		.time_ns = time_ns,
		.weight_ns = weight_ns,
		.kind = reason == XLP_C_CPU_RUN ? XLP_SAMPLE_ON_CPU : XLP_SAMPLE_OFF_CPU,
		.reason = reason,
		.ustack = ustack,
		.kstack = kstack,
	};

	return put(s, XLP_R_SAMPLE, &r.h, sizeof(r));
}

/* A sample with no kernel stack (id 0). */
int synth__sample(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time_ns, uint64_t weight_ns,
		  uint32_t ustack, uint32_t reason)
{
	return synth__ksample(s, pid, tid, time_ns, weight_ns, ustack, 0, reason);
}

int synth__stats(struct synth *s, const uint64_t *stat, uint64_t lost)
{
	struct xlp_stats_rec r = {.lost_by_reader = lost};

	memcpy(r.stat, stat, sizeof(r.stat));
	return put(s, XLP_R_STATS, &r.h, sizeof(r));
}

int synth__finish(struct synth *s, int err)
{
	if (err) {
		synth__abort(s);
		return err;
	}
	return synth__close(s, NULL, 0);
}

int synth__close(struct synth *s, const uint64_t *stat, uint64_t lost)
{
	struct xlp_trace_footer f = {.end_ns = 9000000000ull, .stop_reason = XLP_STOP_SIGNAL};
	int err;

	if (stat)
		memcpy(f.stat, stat, sizeof(f.stat));
	f.stat[XLP_S_CALLS] += s->ncalls;
	f.lost_by_reader = lost;
	err = trace_writer__close(s->w, &f);
	free(s);
	return err;
}

int synth__flush(struct synth *s)
{
	return trace_writer__flush(s->w);
}

void synth__abort(struct synth *s)
{
	if (!s)
		return;
	trace_writer__abort(s->w);
	free(s);
}

void synth__counters(const struct synth_usage *u, uint64_t *ctr)
{
	uint64_t run = (uint64_t)llround(u->cpu_run);

	memset(ctr, 0, XLP_NR_CTR * sizeof(*ctr));
	ctr[XLP_C_CPU_RUN] = run;
	ctr[XLP_C_CPU_WAIT] = (uint64_t)llround(u->cpu_wait);
	ctr[XLP_C_DISK] = (uint64_t)llround(u->disk);
	ctr[XLP_C_NET] = (uint64_t)llround(u->net);
	ctr[XLP_C_IPC] = (uint64_t)llround(u->ipc);
	ctr[XLP_C_LOCK] = (uint64_t)llround(u->lock);
	ctr[XLP_C_TIMER] = (uint64_t)llround(u->timer);
	ctr[XLP_C_OTHER] = (uint64_t)llround(u->other);
	/* the recorder's invariant: SLEEP_S + SLEEP_D == the wait reasons */
	ctr[XLP_C_SLEEP_D] = ctr[XLP_C_DISK];
	ctr[XLP_C_SLEEP_S] = ctr[XLP_C_NET] + ctr[XLP_C_IPC] + ctr[XLP_C_LOCK] + ctr[XLP_C_TIMER] +
			     ctr[XLP_C_OTHER];
	ctr[XLP_C_WALL] = run + ctr[XLP_C_CPU_WAIT] + ctr[XLP_C_SLEEP_S] + ctr[XLP_C_SLEEP_D];
	ctr[XLP_C_FREQ_KHZ_NS] = (uint64_t)llround(u->khz * (double)run);
	ctr[XLP_C_NVCSW] = ctr[XLP_C_SLEEP_S] / 100000 + ctr[XLP_C_SLEEP_D] / 100000;
	ctr[XLP_C_NIVCSW] = ctr[XLP_C_CPU_WAIT] / 200000;
}

/* ---- scenarios ---- */

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

/* Points fd at a temporary file; returns the saved descriptor. */
static int capture(int fd, FILE **tmpf)
{
	int saved;

	fflush(stdout);
	fflush(stderr);
	*tmpf = tmpfile();
	if (!*tmpf)
		return -1;
	saved = dup(fd);
	dup2(fileno(*tmpf), fd);
	return saved;
}

static void restore(int fd, int saved, FILE *tmpf, char *buf, size_t len)
{
	size_t n = 0;

	fflush(stdout);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, fd);
		close(saved);
	}
	if (buf && len) {
		if (tmpf) {
			rewind(tmpf);
			n = fread(buf, 1, len - 1, tmpf);
		}
		buf[n] = 0;
	}
	if (tmpf)
		fclose(tmpf);
}

static int run_cmd(int (*cmd)(int, char **), char **argv, char *out, size_t outlen, char *err,
		   size_t errlen, const char *arg, va_list ap)
{
	int argc = 1, rc, saved_out, saved_err;
	FILE *tmp_out = NULL, *tmp_err = NULL;

	for (const char *a = arg; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	argv[argc] = NULL;
	saved_out = capture(1, &tmp_out);
	saved_err = capture(2, &tmp_err);
	rc = cmd(argc, argv);
	restore(2, saved_err, tmp_err, err, errlen);
	restore(1, saved_out, tmp_out, out, outlen);
	return rc;
}

/* synth__report and synth__dump: a command's name and function around run_cmd */
#define SYNTH_CMD(fn, cmd, name)                                                                   \
	int fn(char *out, size_t outlen, char *err, size_t errlen, const char *arg, ...)           \
	{                                                                                          \
		char *argv[64] = {name};                                                           \
		va_list ap;                                                                        \
		int rc;                                                                            \
                                                                                                   \
		va_start(ap, arg);                                                                 \
		rc = run_cmd(cmd, argv, out, outlen, err, errlen, arg, ap);                        \
		va_end(ap);                                                                        \
		return rc;                                                                         \
	}
SYNTH_CMD(synth__report, cmd_report, "report")
SYNTH_CMD(synth__dump, cmd_dump, "dump")

struct json *synth__report_json(const char *trace, const char *opt1, const char *opt2)
{
	const char *out = synth__tmp("report.json");
	char err[4096], jerr[256];
	struct json *j;
	int rc = synth__report(NULL, 0, err, sizeof(err), "--json", "-o", out, trace, opt1, opt2,
			       NULL);

	CHECK(rc == 0, "report exited %d: %s", rc, err);
	if (rc)
		return NULL;
	j = json__load(out, jerr, sizeof(jerr));
	CHECK(j, "report JSON: %s", jerr);
	return j;
}

/* ---- damaging a trace ---- */

#define CHDR 28 /* version 2 chunk header */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

uint8_t *synth__slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (p = malloc(n + 1)) && fread(p, 1, n, f) == (size_t)n) {
		p[n] = 0;
		*len = n;
	} else {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static int spit(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -errno;
	if (fwrite(p, 1, len, f) != len)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

size_t synth__chunks(const uint8_t *f, size_t len, size_t *start, size_t max, size_t *foot)
{
	size_t pos = len >= 20 ? 20 + le32(f + 12) : len, n = 0;
	/* version 1: a 20-byte chunk header, C at 4; version 2: 28, C at 8 */
	size_t hdr = len >= 20 && le32(f + 8) == 1 ? 20 : CHDR, c = hdr == 20 ? 4 : 8;

	while (n < max && pos + hdr <= len && !memcmp(f + pos, "CHNK", 4) &&
	       pos + hdr + le32(f + pos + c) <= len) {
		start[n++] = pos;
		pos += hdr + le32(f + pos + c);
	}
	*foot = pos;
	return n;
}

int synth__rechunk(const char *in, const char *out, const int *order, size_t n)
{
	size_t len, foot, nc, o, *st = NULL;
	uint8_t *f = synth__slurp(in, &len), *w = NULL;
	int err = -ENOMEM;

	if (!f)
		return -errno ? -errno : -EIO;
	st = malloc((len / CHDR + 1) * sizeof(*st));
	w = malloc(len * (n + 1));
	if (!st || !w)
		goto cleanup;
	nc = synth__chunks(f, len, st, len / CHDR + 1, &foot);
	o = nc ? st[0] : foot;
	memcpy(w, f, o);
	err = -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)order[i], e;

		if (k >= nc)
			goto cleanup;
		e = k + 1 < nc ? st[k + 1] : foot;
		memcpy(w + o, f + st[k], e - st[k]);
		o += e - st[k];
	}
	memcpy(w + o, f + foot, len - foot);
	err = spit(out, w, o + len - foot);
cleanup:
	free(st);
	free(w);
	free(f);
	return err;
}

int synth__forge_id(const char *path, uint32_t k, uint32_t id)
{
	size_t len, p = 20 + 5 * 4 + 3 * 8;
	uint8_t *f = synth__slurp(path, &len);
	int err;

	if (!f)
		return -EIO;
	for (int i = 0; i < 4; i++) /* host, kernel, cmdline, notes */
		p += 4 + le32(f + p);
	p += 4; /* nfuncs */
	for (uint32_t i = 0; i < k; i++) {
		p += 16;		    /* id, flags, offset */
		for (int j = 0; j < 3; j++) /* binary, symbol, build_id */
			p += 4 + le32(f + p);
	}
	put32(f + p, id);
	put32(f + 16, crc32(crc32(0, f + 8, 8), f + 20, le32(f + 12)));
	err = spit(path, f, len);
	free(f);
	return err;
}

int synth__forge_footer(const char *path, uint64_t nrecords, uint64_t nchunks)
{
	size_t len, foot;
	uint8_t *f = synth__slurp(path, &len), *p;
	int err = -EINVAL;

	if (!f)
		return -EIO;
	/* the footer ends the file: 12 bytes of framing and 136 of payload */
	foot = len - 12 - 136;
	if (len < 12 + 136 || memcmp(f + foot, "FOOT", 4))
		goto cleanup;
	p = f + foot + 12;
	put32(p + 8, (uint32_t)nrecords);
	put32(p + 12, (uint32_t)(nrecords >> 32));
	put32(p + 16, (uint32_t)nchunks);
	put32(p + 20, (uint32_t)(nchunks >> 32));
	put32(f + foot + 8, crc32(crc32(0, f + foot + 4, 4), p, 136));
	err = spit(path, f, len);
cleanup:
	free(f);
	return err;
}

static char tmp_dir[] = "/tmp/xlp-test-XXXXXX";

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tmp_dir(void)
{
	nftw(tmp_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *synth__tmp(const char *name)
{
	static char buf[8][512];
	static bool made;
	static int k;

	if (!made) {
		made = mkdtemp(tmp_dir) != NULL;
		if (made && !getenv("XLP_KEEP_TMP"))
			atexit(rm_tmp_dir);
	}
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp_dir, name);
	return buf[k];
}

/* ---- forged files ---- */

int synth__forge_resync(const char *path, int version, size_t body)
{
	size_t hlen, len, vlen;
	char src[512];
	uint8_t *v, *f;
	int err = -ENOMEM;

	if (version == 1) {
		snprintf(src, sizeof(src), "%s/tests/data/v1-net.xlp", tl_root());
	} else {
		struct synth_scenario sc = {.path = synth__tmp("forge-src.xlp"), .nruns = 1};

		snprintf(src, sizeof(src), "%s", sc.path);
		if ((err = synth__scenario(&sc)))
			return err;
	}
	v = synth__slurp(src, &vlen);
	if (!v || vlen < 20)
		return -ENOENT;
	hlen = 20 + le32(v + 12);
	len = hlen + body;
	f = calloc(1, len);
	if (!f)
		goto cleanup;
	memcpy(f, v, hlen);
	for (size_t o = hlen; version == 1 && o + 20 <= len; o += 20) {
		memcpy(f + o, "CHNK", 4);
		put32(f + o + 4, (uint32_t)(len - o - 20 - 1)); /* C */
		put32(f + o + 8, (uint32_t)(len - o - 20 - 1)); /* U */
		put32(f + o + 12, 1);				/* N */
	}
	for (size_t o = hlen; version != 1 && o + 4 <= hlen + body / 2; o += 4)
		memcpy(f + o, "CHNK", 4);
	for (size_t o = hlen + body / 2; version != 1 && o + CHDR <= len; o += 64) {
		memcpy(f + o, "CHNK", 4);
		put32(f + o + 8, (uint32_t)(len - o - CHDR - 1)); /* C */
		put32(f + o + 12, 64);				  /* U */
		put32(f + o + 16, 1);				  /* N */
		put32(f + o + 24, crc32(0, f + o + 4, 20));
	}
	err = spit(path, f, len);
cleanup:
	free(f);
	free(v);
	return err;
}

int synth__forge_nesting(const char *path, unsigned n)
{
	static const struct synth_func funcs[] = {
		{"/bin/app", "run", true}, {"/bin/app", "f", false}, {"/bin/app", "g", false}};
	uint64_t c[XLP_NR_CTR] = {[XLP_C_WALL] = 10, [XLP_C_CPU_RUN] = 10};
	uint64_t run[XLP_NR_CTR] = {[XLP_C_WALL] = 1000000000000ull};
	struct synth *s;
	int err;

	err = synth__open(path, XLP_FEAT_SCHED, 0, funcs, 3, &s);
	for (unsigned i = 0; i < n && !err; i++)
		err = synth__call(s, 1, 7, 7, 1, 2000000000ull + i, c, NULL, 0, NULL);
	for (unsigned i = 0; i < n && !err; i++)
		err = synth__call(s, 2, 7, 7, 1, 1999999999ull - i, c, NULL, 0, NULL);
	err = err ? err : synth__call(s, 0, 7, 7, 0, 1000, run, NULL, 0, NULL);
	if (err) {
		synth__abort(s);
		return err;
	}
	return synth__close(s, NULL, 0);
}

/*
 * Stack samples on a synthetic trace (record --sample): 20 runs of
 * on_click on tid 10, every 4th slow by a 50 ms disk wait under load ->
 * pread (libc). Per run, 8 on-CPU samples of 1 ms in compute, and some
 * that must not count: one of tid 11 (another thread), one between runs,
 * one whose stack lacks the interaction frame (unplaced).
 */
enum { S_MAIN, S_CLICK, S_LOAD, S_PREAD, S_COMPUTE, S_ANON };
enum { K_LOAD, K_COMPUTE, K_NOINTER, K_ANON };

int synth__sampled(const char *path)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_click", true}};
	const uint32_t load[] = {S_PREAD, S_LOAD, S_CLICK, S_MAIN};
	const uint32_t compute[] = {S_COMPUTE, S_CLICK, S_MAIN};
	const uint32_t nointer[] = {S_COMPUTE, S_MAIN};
	const uint32_t anon[] = {S_ANON, S_LOAD, S_CLICK, S_MAIN};
	const uint32_t bad[] = {99};
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	int err = synth__open(path, XLP_FEAT_SYSCALLS | XLP_FEAT_SAMPLE, 0, f, 1, &s);

	if (err)
		return err;
	err |= synth__sym(s, S_MAIN, XLP_SYM_FUNCTION, "app", "main");
	err |= synth__sym(s, S_CLICK, XLP_SYM_FUNCTION, "app", "on_click");
	err |= synth__sym(s, S_LOAD, XLP_SYM_FUNCTION, "app", "load");
	err |= synth__sym(s, S_PREAD, XLP_SYM_FUNCTION, "libc.so.6", "pread");
	err |= synth__sym(s, S_COMPUTE, XLP_SYM_FUNCTION, "app", "compute");
	err |= synth__sym(s, S_ANON, XLP_SYM_FILE, "app", "[app+0x10]");
	err |= synth__stack(s, K_LOAD, load, 4);
	err |= synth__stack(s, K_COMPUTE, compute, 3);
	err |= synth__stack(s, K_NOINTER, nointer, 2);
	err |= synth__stack(s, K_ANON, anon, 4);
	err |= synth__stack(s, 7, bad, 1); /* out of order, unknown name: skipped */
	/* off the CPU, but charged to wall time: no wait has that reason */
	err |= synth__sample(s, 10, 10, 1000000000ull + 100, 1000000, K_LOAD + 1, XLP_C_WALL);
	for (uint64_t i = 0; i < 20; i++) {
		uint64_t t = (i + 1) * 1000000000ull, d = i % 4 ? 10000000 : 60000000;

		for (uint64_t k = 0; k < 8; k++)
			err |= synth__sample(s, 10, 10, t + k * 1000000 + 500, 1000000,
					     K_COMPUTE + 1, XLP_C_CPU_RUN);
		if (!(i % 4)) {
			err |= synth__sample(s, 10, 10, t + 58000000, 50000000, K_LOAD + 1,
					     XLP_C_DISK);
			err |= synth__sample(s, 10, 10, t + 59000000, 1000000, K_ANON + 1,
					     XLP_C_CPU_RUN);
		}
		err |= synth__sample(s, 10, 11, t + 100, 1000000, K_LOAD + 1, XLP_C_CPU_RUN);
		err |= synth__sample(s, 10, 10, t + 9000000, 1000000, K_NOINTER + 1, XLP_C_CPU_RUN);
		err |= synth__sample(s, 10, 10, t + d + 1000, 1000000, K_LOAD + 1, XLP_C_CPU_RUN);
		/* what the run measured: its samples never stand for more */
		synth__counters(
			&(struct synth_usage){.cpu_run = 10000000, .disk = (double)d - 10000000},
			c);
		err |= synth__call(s, 0, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}

static int tl_ev(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint32_t arg,
		 uint16_t detail, uint64_t t)
{
	struct xlp_sched_rec r = {
		.time_ns = t, .pid = pid, .tid = tid, .arg = arg, .kind = kind, .detail = detail};

	return put(s, XLP_R_SCHED, &r.h, sizeof(r));
}

int synth__sampling(struct synth *s, uint64_t start_ns, uint64_t end_ns, uint64_t period_ns,
		    uint64_t cost_ns, uint64_t on_samples, uint64_t off_captures)
{
	struct xlp_sampling_rec r = {.start_ns = start_ns,
				     .end_ns = end_ns,
				     .period_ns = period_ns,
				     .next_period_ns = period_ns,
				     .off_every = 1,
				     .next_off_every = 1,
				     .cost_ns = cost_ns,
				     .on_samples = on_samples,
				     .off_captures = off_captures};

	return put(s, XLP_R_SAMPLING, &r.h, sizeof(r));
}

int synth__sched(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint32_t arg,
		 uint16_t detail, uint64_t t)
{
	return tl_ev(s, kind, pid, tid, arg, detail, t);
}

int synth__task(struct synth *s, uint32_t pid, uint32_t tid, const char *comm)
{
	struct xlp_task_rec k = {.pid = pid, .tid = tid};

	strncpy(k.comm, comm, sizeof(k.comm) - 1);
	return put(s, XLP_R_TASK, &k.h, sizeof(k));
}

int synth__taskev(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint64_t entry_ns,
		  uint64_t key, uint32_t func)
{
	struct xlp_taskev_rec k = {.pid = pid, .tid = tid, .entry_ns = entry_ns, .key = key};

	k.func_id = func;
	k.kind = kind;

	return put(s, XLP_R_TASKEV, &k.h, sizeof(k));
}

int synth__size(struct synth *s, uint32_t flags, uint32_t pid, uint64_t time_ns, uint64_t size)
{
	struct xlp_size_rec z = {.pid = pid, .time_ns = time_ns, .size = size, .flags = flags};

	return put(s, XLP_R_SIZE, &z.h, sizeof(z));
}

int synth__fork(struct synth *s, uint32_t pid, uint32_t ppid, uint64_t fork_ns, uint32_t flags)
{
	struct xlp_fork_rec f = {.pid = pid, .ppid = ppid, .fork_ns = fork_ns, .flags = flags};

	return put(s, XLP_R_FORK, &f.h, sizeof(f));
}

int synth__thief(struct synth *s, struct xlp_thief_rec *w)
{
	return put(s, XLP_R_THIEF, &w->h, sizeof(*w) + w->nthieves * sizeof(w->thieves[0]));
}

int synth__cpusched(struct synth *s, struct xlp_cpusched_rec *r)
{
	return put(s, XLP_R_CPUSCHED, &r->h, sizeof(*r));
}

int synth__timeline(const char *path)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_click", true}};
	struct xlp_task_rec peer = {
		.h = {.type = XLP_R_TASK, .size = sizeof(peer)}, .pid = 30, .tid = 20};
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	int err = synth__open(path, XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, 0, f, 1, &s);

	if (err)
		return err;
	memcpy(peer.comm, "peer", 5);
	err |= trace_writer__append(s->w, &peer.h);
	err |= tl_ev(s, XLP_SCHED_FREQ, 1, 0, 2000000, 0, 500000000ull);
	for (uint64_t i = 0; i < 6; i++) {
		uint64_t t = (i + 1) * 1000000000ull, w = i == 5 ? 80000000 : 20000000;

		err |= tl_ev(s, XLP_SCHED_IN, 10, 10, 0, 0, t);
		err |= tl_ev(s, XLP_SCHED_OUT, 10, 10, 0, XLP_SCHED_SLEEP_S, t + 1000000);
		if (i == 2) {
			err |= tl_ev(s, XLP_SCHED_BLOCK_ISSUE, 0, 10, 4096, 0, t + 1000100);
			err |= tl_ev(s, XLP_SCHED_BLOCK_DONE, 0, 10, 4096, 0, t + 5000000);
		}
		err |= tl_ev(s, XLP_SCHED_WAKEUP, 10, 10, 20, XLP_C_IPC, t + 1000000 + w);
		err |= tl_ev(s, XLP_SCHED_IN, 10, 10, 0, 0, t + 1100000 + w);
		err |= tl_ev(s, XLP_SCHED_OUT, 10, 10, 0, XLP_SCHED_RUNNABLE, t + 2000000 + w);
		synth__counters(&(struct synth_usage){.cpu_run = 2000000, .ipc = (double)w}, c);
		err |= synth__call(s, 0, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	/* the CPU's other switches (bpf/cpusched.bpf.c): a wakeup, a switch, a fork */
	for (uint32_t k = 1; k <= 3; k++) {
		struct xlp_cpusched_rec r = {
			.h.cpu = 1,
			.time_ns = 6500000000ull + k * 1000,
			.kind = k,
			.arg = k == XLP_CPUS_SWITCH ? 1 : 0,
			.a = {.tid = 10, .pid = 10, .prio = 120, .comm = "app"},
			.b = {.tid = 20, .pid = 30, .prio = 120, .comm = "peer"}};

		err |= synth__cpusched(s, &r);
	}
	err |= tl_ev(s, 99, 10, 10, 0, 0, 7000000000ull);
	err |= tl_ev(s, XLP_SCHED_OUT, 40, 40, 0, 77, 7100000000ull);
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}
