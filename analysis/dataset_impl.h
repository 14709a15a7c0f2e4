/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internals shared by the dataset*.c files. */
#ifndef XLP_DATASET_IMPL_H
#define XLP_DATASET_IMPL_H

#include "dataset.h"

#define DS_NONE UINT32_MAX

struct ds_file {
	struct ds_file_info info;
	char *path;
	char *interaction;
	uint32_t nlocal;
	uint32_t *fmap;		 /* local func id -> global func, DS_NONE for interactions */
	uint8_t *is_interaction; /* local func id -> 1 when it marks the runs */
	size_t run_off, nruns;	 /* runs of this file, sorted by (pid, start) */
};

struct dataset {
	struct dataset_opts opts;
	struct ds_file *files;
	size_t nfiles;
	struct ds_func *funcs;
	size_t nfuncs, func_cap;
	struct ds_run *runs;
	size_t nruns, run_cap;
	uint64_t *win_lo, *win_hi; /* per run: calls entering in [lo, hi) belong to it */
	uint64_t *max_hi;	   /* max win_hi over the runs of the same pid up to this one */
	uint64_t *time;		   /* nruns x nfuncs */
	uint32_t *ncalls;	   /* nruns x nfuncs */
	uint32_t features;
	struct ds_drops drops;
};

/* Index of (symbol, basename(binary)) in ds->funcs, added if new; -ENOMEM. */
int ds_intern_func(struct dataset *ds, const char *symbol, const char *binary);

/* Pass 1: runs, baselines, drops of file fi (appends to ds->runs). */
int ds_read_runs(struct dataset *ds, size_t fi, char *err, size_t errlen);

/*
 * A pass over the call records of one file. For every tracked function
 * (slot >= 0) and every run its invocation belongs to, add() is called
 * with the invocation's counter deltas and sign +1; when a later record
 * shows that an invocation was nested in another one of the same function
 * on the same thread, add() is called again with sign -1 to take it back.
 */
struct ds_scan {
	struct dataset *ds;
	size_t file;
	const int32_t *slot; /* per global function: slot, or -1 when not tracked */
	void (*add)(void *ctx, size_t run, int32_t slot, const uint64_t *vals, int sign);
	void (*call)(void *ctx, size_t run, int32_t slot, const struct xlp_call_rec *rec);
	void *ctx;
};

int ds_scan_file(const struct ds_scan *s, char *err, size_t errlen);

/* Calls fn for every run of file fi that a call of pid entering at t belongs to. */
void ds_runs_at(const struct dataset *ds, size_t fi, uint32_t pid, uint64_t t,
		void (*fn)(void *ctx, size_t run), void *ctx);

#endif
