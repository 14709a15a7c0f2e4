/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Loading traces into runs x functions (see dataset.h), and accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"
#include "util.h"
#include "demangle.h"

const char *dataset__base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

static uint64_t func_hash(const char *sym, const char *bin)
{
	return xlp_fnv1a_str(xlp_fnv1a_str(XLP_FNV_OFFSET, sym), bin);
}

/* Slot of (sym, bin) in the index: its entry, or the empty one to fill. */
static uint32_t *func_slot(const struct dataset *ds, const char *sym, const char *bin)
{
	size_t mask = ds->fidx_cap - 1, j = func_hash(sym, bin) & mask;

	for (;; j = (j + 1) & mask) {
		const struct dataset_func *f = ds->fidx[j] ? &ds->funcs[ds->fidx[j] - 1] : NULL;

		if (!f || (!strcmp(f->symbol, sym) && !strcmp(f->binary, bin)))
			return &ds->fidx[j];
	}
}

/* Kept at most half full: sampled stacks name thousands of functions. */
static int func_index_grow(struct dataset *ds)
{
	size_t cap = ds->fidx_cap ? 2 * ds->fidx_cap : 256;
	uint32_t *old = ds->fidx;

	ds->fidx = calloc(cap, sizeof(*ds->fidx));
	if (!ds->fidx) {
		ds->fidx = old;
		return -ENOMEM;
	}
	ds->fidx_cap = cap;
	for (size_t i = 0; i < ds->nfuncs; i++)
		*func_slot(ds, ds->funcs[i].symbol, ds->funcs[i].binary) = (uint32_t)i + 1;
	free(old);
	return 0;
}

/*
 * The name a function is printed by: its symbol demangled, once per
 * distinct function. The queued pseudo-function's symbol ends in the
 * suffix, after the interaction's symbol, which is demangled alone.
 */
static char *display_name(const char *sym)
{
	size_t n = strlen(sym), k = strlen(" " DATASET_QUEUED_SUFFIX);
	char buf[DEMANGLE_MAX_OUT], raw[DEMANGLE_MAX_IN + 1];

	if (n > k && n - k <= DEMANGLE_MAX_IN && !strcmp(sym + n - k, " " DATASET_QUEUED_SUFFIX)) {
		memcpy(raw, sym, n - k);
		raw[n - k] = 0;
		if (demangle__name(raw, buf, sizeof(buf) - k)) {
			strcat(buf, " " DATASET_QUEUED_SUFFIX);
			return strdup(buf);
		}
	}
	return demangle__dup(sym);
}

int dataset__intern_func(struct dataset *ds, const char *symbol, const char *binary)
{
	const char *sym = symbol ? symbol : "?", *bin = dataset__base_name(binary);
	struct dataset_func *f;
	uint32_t *slot;

	if (2 * (ds->nfuncs + 1) > ds->fidx_cap && func_index_grow(ds))
		return -ENOMEM;
	slot = func_slot(ds, sym, bin);
	if (*slot)
		return (int)*slot - 1;
	if (ds->nfuncs == ds->func_cap) {
		size_t cap = ds->func_cap ? 2 * ds->func_cap : 64;
		struct dataset_func *nf = realloc(ds->funcs, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		ds->funcs = nf;
		ds->func_cap = cap;
	}
	f = &ds->funcs[ds->nfuncs];
	f->symbol = strdup(sym);
	f->name = display_name(sym);
	f->binary = strdup(bin);
	f->path = strdup(binary ? binary : "");
	f->sampled = f->root = f->runtime = f->queued = f->landmark = false;
	if (!f->symbol || !f->name || !f->binary || !f->path) {
		free(f->symbol);
		free(f->name);
		free(f->binary);
		free(f->path);
		return -ENOMEM;
	}
	*slot = (uint32_t)ds->nfuncs + 1;
	return (int)ds->nfuncs++;
}

/* Windows of the runs, and the max tree over their ends. */
static int set_windows(struct dataset *ds)
{
	size_t n = ds->nruns;

	ds->win_lo = malloc(n * sizeof(uint64_t) + 1);
	ds->win_hi = malloc(n * sizeof(uint64_t) + 1);
	for (ds->seg_size = 1; ds->seg_size < n;)
		ds->seg_size *= 2;
	ds->seg = calloc(2 * ds->seg_size, sizeof(uint64_t));
	if (!ds->win_lo || !ds->win_hi || !ds->seg)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct dataset_run *r = &ds->runs[i];
		bool launch = ds->files[r->file].info.launches;

		ds->win_lo[i] = launch ? 0 : r->start_ns;
		ds->win_hi[i] = launch ? UINT64_MAX : r->end_ns;
		ds->seg[ds->seg_size + i] = ds->win_hi[i];
	}
	for (size_t i = ds->seg_size; i-- > 1;)
		ds->seg[i] =
			ds->seg[2 * i] > ds->seg[2 * i + 1] ? ds->seg[2 * i] : ds->seg[2 * i + 1];
	return 0;
}

static void add_time(void *ctx, size_t run, int32_t slot, const uint64_t *vals, int sign)
{
	struct dataset *ds = ctx;
	size_t k = run * ds->nfuncs + (size_t)slot;

	ds->time[k] += sign > 0 ? vals[XLP_C_WALL] : -vals[XLP_C_WALL];
	ds->ncalls[k] += sign > 0 ? 1 : -1;
}

/* Pass 2: every function's time in every run. */
static int read_times(struct dataset *ds, char *err, size_t errlen)
{
	size_t cells = ds->nruns * ds->nfuncs;
	int32_t *slot = malloc(ds->nfuncs * sizeof(*slot) + 1);
	struct dataset_scan s = {.ds = ds, .slot = slot, .add = add_time, .ctx = ds};
	int ret = 0;

	if (ds->nfuncs && cells / ds->nfuncs != ds->nruns)
		cells = SIZE_MAX / 8; /* calloc fails */
	ds->time = calloc(cells + 1, sizeof(*ds->time));
	ds->ncalls = calloc(cells + 1, sizeof(*ds->ncalls));
	if (!slot || !ds->time || !ds->ncalls) {
		snprintf(err, errlen,
			 "out of memory for %zu runs x %zu functions: analyse fewer "
			 "traces",
			 ds->nruns, ds->nfuncs);
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t g = 0; g < ds->nfuncs; g++)
		slot[g] = (int32_t)g;
	for (size_t fi = 0; fi < ds->nfiles && !ret; fi++) {
		s.file = fi;
		ret = dataset__scan_file(&s, err, errlen);
	}
cleanup:
	free(slot);
	return ret;
}

static int summary_latencies(struct dataset *ds)
{
	ds->summ_lat = malloc(ds->nsumm * sizeof(*ds->summ_lat) + 1);
	if (!ds->summ_lat)
		return -ENOMEM;
	for (size_t i = 0; i < ds->nsumm; i++)
		ds->summ_lat[i] = ds->summ[i].latency_ns;
	return 0;
}

int dataset__load(const char *const *paths, size_t npaths, const struct dataset_opts *o,
		  struct dataset **out, char *err, size_t errlen)
{
	struct dataset *ds = calloc(1, sizeof(*ds));
	int ret = -ENOMEM;

	*out = NULL;
	if (!ds || !(ds->files = calloc(npaths + 1, sizeof(*ds->files)))) {
		snprintf(err, errlen, "out of memory: analyse fewer traces");
		goto cleanup;
	}
	if (o)
		ds->opts = *o;
	ds->features = ~0u;
	for (size_t i = 0; i < npaths; i++) {
		/* counted first: what reading it allocated is freed even if it fails */
		ds->nfiles++;
		ds->files[i].path = strdup(paths[i]);
		ds->files[i].info.path = ds->files[i].path;
		if (!ds->files[i].path)
			goto cleanup;
		ret = dataset__read_runs(ds, i, err, errlen);
		if (ret)
			goto cleanup;
	}
	ret = set_windows(ds);
	if (ret) {
		snprintf(err, errlen, "out of memory: analyse fewer traces");
		goto cleanup;
	}
	for (size_t i = 0; i < npaths; i++) {
		ret = dataset__read_samples(ds, i, err, errlen);
		if (ret)
			goto cleanup;
	}
	ret = read_times(ds, err, errlen);
	ds->ntimed = ds->nfuncs;
	if (!ret &&
	    (dataset__sample_times(ds) || dataset__intern_landmarks(ds) || summary_latencies(ds))) {
		snprintf(err, errlen, "out of memory: analyse fewer traces");
		ret = -ENOMEM;
	}
	if (ret)
		goto cleanup;
	*out = ds;
	ds = NULL;
cleanup:
	dataset__free(ds);
	return ret;
}

void dataset__free(struct dataset *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->nfiles; i++) {
		free(ds->files[i].path);
		free(ds->files[i].interaction);
		free(ds->files[i].host);
		free(ds->files[i].build_id);
		free(ds->files[i].landmark_binary);
		free(ds->files[i].damage);
		free(ds->files[i].fmap);
		free(ds->files[i].qmap);
		free(ds->files[i].is_interaction);
		free(ds->files[i].is_end);
		free(ds->files[i].lidx);
		for (size_t k = 0; k < ds->files[i].nlandmarks; k++) {
			free(ds->files[i].landmarks[k]);
			free(ds->files[i].landmark_bins[k]);
			free(ds->files[i].landmark_names[k]);
		}
		free(ds->files[i].landmarks);
		free(ds->files[i].landmark_names);
		free(ds->files[i].landmark_bins);
	}
	for (size_t i = 0; i < ds->nfuncs; i++) {
		free(ds->funcs[i].symbol);
		free(ds->funcs[i].name);
		free(ds->funcs[i].binary);
		free(ds->funcs[i].path);
	}
	free(ds->files);
	free(ds->funcs);
	free(ds->runs);
	free(ds->summ);
	free(ds->summ_lat);
	free(ds->win_lo);
	free(ds->win_hi);
	free(ds->seg);
	free(ds->time);
	free(ds->ncalls);
	free(ds->smp);
	free(ds->sst);
	free(ds->sfr);
	for (size_t i = 0; i < ds->nkname; i++)
		free(ds->kname[i]);
	free(ds->kname);
	free(ds->kst);
	free(ds->kfr);
	free(ds->fidx);
	free(ds);
}

size_t dataset__nruns(const struct dataset *ds)
{
	return ds->nruns;
}

const struct dataset_run *dataset__run(const struct dataset *ds, size_t i)
{
	return &ds->runs[i];
}

size_t dataset__nfuncs(const struct dataset *ds)
{
	return ds->nfuncs;
}

const struct dataset_func *dataset__func(const struct dataset *ds, size_t f)
{
	return &ds->funcs[f];
}

uint64_t dataset__time(const struct dataset *ds, size_t r, size_t f)
{
	return f < ds->ntimed ? ds->time[r * ds->ntimed + f] : 0;
}

uint32_t dataset__ncalls(const struct dataset *ds, size_t r, size_t f)
{
	return f < ds->ntimed ? ds->ncalls[r * ds->ntimed + f] : 0;
}

size_t dataset__summary_runs(const struct dataset *ds, const double **latency_ns)
{
	if (latency_ns)
		*latency_ns = ds->summ_lat;
	return ds->nsumm;
}

const struct dataset_run *dataset__summary_run(const struct dataset *ds, size_t i)
{
	return &ds->summ[i];
}

uint32_t dataset__features(const struct dataset *ds)
{
	return ds->nfiles ? ds->features : 0;
}

const struct dataset_drops *dataset__drops(const struct dataset *ds)
{
	return &ds->drops;
}

const struct dataset_sample_info *dataset__samples(const struct dataset *ds)
{
	return &ds->sinfo;
}

size_t dataset__nfiles(const struct dataset *ds)
{
	return ds->nfiles;
}

const struct dataset_file_info *dataset__file(const struct dataset *ds, size_t i)
{
	return &ds->files[i].info;
}

uint32_t dataset__file_func(const struct dataset *ds, size_t fi, uint32_t func_id)
{
	const struct dataset_file *f = &ds->files[fi];

	return func_id < f->nlocal ? f->fmap[func_id] : DATASET_NONE;
}

size_t dataset__file_runs(const struct dataset *ds, size_t fi, size_t *first)
{
	*first = ds->files[fi].run_off;
	return ds->files[fi].nruns;
}
