/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the pprof export's files share (export_pprof.c: the command, the
 * traces read and their runs; export_pprof_ids.c: the profile's strings,
 * functions, mappings and locations; export_pprof_encode.c: profile.proto
 * and its gzip). Private to the export layer.
 */
#ifndef XLP_EXPORT_PPROF_INT_H
#define XLP_EXPORT_PPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dataset.h"
#include "pbw.h"
#include "trace.h"

/* Field numbers of profile.proto (github.com/google/pprof, proto/profile.proto). */
enum {
	F_PROF_SAMPLE_TYPE = 1,
	F_PROF_SAMPLE = 2,
	F_PROF_MAPPING = 3,
	F_PROF_LOCATION = 4,
	F_PROF_FUNCTION = 5,
	F_PROF_STRING = 6,
	F_PROF_TIME = 9,
	F_PROF_DURATION = 10,
	F_PROF_PERIOD_TYPE = 11,
	F_PROF_PERIOD = 12,
	F_PROF_COMMENT = 13,
	F_PROF_DEFAULT_TYPE = 14,
	F_VT_TYPE = 1,
	F_VT_UNIT = 2,
	F_SMP_LOCATION = 1,
	F_SMP_VALUE = 2,
	F_SMP_LABEL = 3,
	F_LBL_KEY = 1,
	F_LBL_STR = 2,
	F_LBL_NUM = 3,
	F_MAP_ID = 1,
	F_MAP_START = 2,
	F_MAP_LIMIT = 3,
	F_MAP_OFFSET = 4,
	F_MAP_FILENAME = 5,
	F_MAP_BUILD_ID = 6,
	F_MAP_HAS_FUNCTIONS = 7,
	F_LOC_ID = 1,
	F_LOC_MAPPING = 2,
	F_LOC_ADDRESS = 3,
	F_LOC_LINE = 4,
	F_LINE_FUNCTION = 1,
	F_FN_ID = 1,
	F_FN_NAME = 2,
	F_FN_SYSTEM_NAME = 3,
	F_FN_FILENAME = 4,
};

/* the values of a sample, in this order */
enum { V_SAMPLES, V_CPU, V_OFF_CPU, NR_V };

/* A map from byte strings (what the traces hold) to ids 1, 2, ... (0: absent). */
struct pp_key {
	char *key;
	size_t len;
	uint32_t id;
};

struct pp_map {
	struct htab *h;	     /* key's hash -> its index in keys + 1 */
	struct pp_key *keys; /* in the order added */
	size_t n, cap;
};

struct pp_fn {
	uint32_t name, system_name, filename; /* string ids */
};

struct pp_mapping {
	uint32_t filename, build_id; /* string ids */
};

struct pp_loc {
	uint32_t fn, mapping; /* ids */
	uint64_t address;
};

/* a trace's frame name, resolved to the profile's */
struct pp_sym {
	uint32_t fn, mapping;
	uint64_t base; /* the symbol's file offset, when known */
	uint16_t kind;
	bool base_known;
};

struct pp_stack {
	uint32_t *syms;
	uint64_t *offs;
	uint16_t n;
	bool kernel, full;
};

struct pp_sample {
	uint32_t file, pid, tid;
	uint32_t locs, nlocs; /* in pp.stk */
	uint32_t reason;      /* enum xlp_ctr; XLP_C_CPU_RUN on a CPU */
	bool on_cpu;
	int32_t run; /* its run in the dataset, -1: none */
	uint64_t time, weight, ticks;
};

struct pp_name {
	uint32_t file, id; /* id: pid or tid */
	char comm[3 * XLP_COMM_LEN + 1];
};

struct pp {
	struct pp_map strs, fns_by_key, maps_by_key, locs_by_key;
	const char **str_list; /* id - 1 -> string */
	size_t cap_str_list;
	struct pp_fn *fns;
	size_t nfns, cap_fns;
	struct pp_mapping *maps;
	size_t nmaps, cap_maps;
	struct pp_loc *locs;
	size_t nlocs, cap_locs;
	uint32_t *stk; /* location ids of the samples' stacks, innermost first */
	size_t nstk, cap_stk;
	struct pp_sample *samples;
	size_t nsamples, cap_samples;
	struct pp_name *threads, *procs;
	size_t nthreads, cap_threads, nprocs, cap_procs;
	/* the current trace's */
	const struct xlp_trace_meta *meta;
	struct pp_sym *syms;
	size_t nsyms, cap_syms;
	struct pp_stack *stacks;
	size_t nstacks, cap_stacks;
	uint32_t file;
	uint64_t period;
	/* the runs: their files, windows and classes (dataset.h) */
	struct dataset *ds;
	uint8_t *slow;
	size_t *run_order; /* runs sorted by (file, owner, start) */
	uint32_t *run_num; /* per run: its number in its trace, from 1 */
	bool labeled;
	/* over all traces */
	const char **hosts; /* per file */
	size_t nhosts;
	uint64_t time_ns, end_ns, period_max;
	uint64_t malformed, no_ustack, kept;
	bool kernel;
	int runs; /* 0: all, 1: slow, 2: fast */
	int err;
};

/* ---- export_pprof_ids.c: every id 1, 2, ...; 0 after an error (pp->err) ---- */

void pp_map__free(struct pp_map *m);
/* The string table index of s (0 is ""). */
uint32_t pp__str_id(struct pp *pp, const char *s);
const char *pp__base_name(const char *path);
/* The header's function of this module and raw name (a marked one), or NULL. */
const struct xlp_func_info *pp__marked(const struct pp *pp, const char *module, const char *raw);
uint32_t pp__mapping_id(struct pp *pp, const char *module);
uint32_t pp__fn_id(struct pp *pp, const char *module, const char *raw, const char *name);
uint32_t pp__loc_id(struct pp *pp, uint32_t fn, uint32_t mapping, uint64_t address);
/* A location of a pseudo-frame ("[no user stack]", "[truncated]"). */
uint32_t pp__pseudo_loc(struct pp *pp, const char *name);

/* ---- export_pprof.c ---- */

/* --runs slow|fast keeps the samples of such runs. */
bool pp__kept(const struct pp *pp, const struct pp_sample *s);

/* ---- export_pprof_encode.c ---- */

/* The profile of every sample kept, into w (its strings last). */
void pp__encode(struct pp *pp, struct pbw *w, const char *comment);
struct pp_out {
	const struct pbw *w;
};
/* outfile__write_with's writer: the profile of ctx (a struct pp_out), gzipped. */
int pp__gzip_to(FILE *f, const void *ctx);

#endif
