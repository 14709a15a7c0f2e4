/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --pprof: the stack samples of traces as pprof's
 * profile.proto, gzipped: what go tool pprof, Pyroscope, Parca, speedscope
 * and Perfetto read. Three sample types: the sampling ticks (count, as
 * export --folded counts them), on-CPU time and off-CPU time (ns); per
 * sample, labels for its thread, process, state, wait reason, run and
 * whether that run is slow (report's default rule, over all the traces
 * given, as report labels them).
 *
 * Frames are named at record time: a trace holds names and modules, not
 * addresses. A function is (module, name), its name demangled and its
 * raw name kept as system_name; a mapping per module (and build), with
 * the binary's path and build-id where the trace's header has them (the
 * marked functions' binaries). Addresses are file offsets (each mapping
 * starts at 0 with file offset 0) where the trace knows them: a frame of
 * a marked function (its symbol's offset plus the frame's), or a frame in
 * a file without a symbol there (the frame's offset is the file's);
 * elsewhere 0, and the location stands for the function.
 *
 * Every byte of a trace is untrusted: ids must come in the order the
 * recorder writes them, frames stay inside their record, names are made
 * valid UTF-8 without control characters.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "dataset.h"
#include "demangle.h"
#include "escape.h"
#include "export.h"
#include "labels.h"
#include "log.h"
#include "outfile.h"
#include "pbw.h"
#include "trace.h"
#include "util.h"

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

static const char help[] =
	"Usage: xlprobe export --pprof [-o FILE.pb.gz] [--runs slow|fast|all] [--no-kernel]\n"
	"                      TRACE...\n"
	"\n"
	"Writes the stack samples of traces recorded with --sample as pprof's\n"
	"profile.proto, gzipped, for go tool pprof, Pyroscope, Parca, speedscope and\n"
	"Perfetto. Sample types: samples (the sampling ticks, as --folded counts\n"
	"them), cpu (on-CPU nanoseconds) and off_cpu (off-CPU nanoseconds); cpu is\n"
	"the default one (-sample_index=off_cpu for the waits). Labels per sample:\n"
	"thread, tid, pid, process, host, state (on_cpu or off_cpu), reason (the\n"
	"wait's: cpu_wait, disk, net, ipc, lock, timer, other), run (its number in\n"
	"its trace, from 1) and run_class (slow or fast, by report's default rule\n"
	"over all the traces given). Functions by their demangled names, the raw\n"
	"name as system_name; a mapping per binary with its build-id where the\n"
	"trace has it; addresses are file offsets where the trace knows them.\n"
	"\n"
	"  -o, --output FILE   write here (created 0600); default: standard output,\n"
	"                      unless it is a terminal\n"
	"      --runs WHICH    slow, fast: only the samples taken in such runs;\n"
	"                      all (default): every sample, in a run or not\n"
	"      --no-kernel     user frames only\n"
	"  -h, --help          this text\n"
	"\n"
	"Examples:\n"
	"  xlprobe export --pprof s.xlp -o s.pb.gz\n"
	"  go tool pprof -top s.pb.gz\n"
	"  go tool pprof -sample_index=off_cpu -tagfocus=reason=disk -top s.pb.gz\n"
	"  go tool pprof -tagfocus=run_class=slow -http=: s.pb.gz\n";

/* A hash map from byte strings to ids 1, 2, ... (0: absent). */
struct pp_key {
	char *key;
	size_t len;
	uint32_t id;
};

struct pp_map {
	struct pp_key *slots;
	size_t cap, n; /* cap: a power of two, or 0 */
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

/* ---- strings and keys ---- */

static uint64_t hash(const void *p, size_t n)
{
	return xlp_fnv1a(XLP_FNV_OFFSET, p, n);
}

/* The id of key in m, 0 when absent; *slot: where it goes. */
static uint32_t map_find(const struct pp_map *m, const void *key, size_t len, size_t *slot)
{
	size_t i;

	if (!m->cap)
		return 0;
	for (i = hash(key, len) & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].len == len && !memcmp(m->slots[i].key, key, len))
			return m->slots[i].id;
	*slot = i;
	return 0;
}

/* Adds key with id (absent: map_find said so): its copy, NULL on ENOMEM. */
static const char *map_add(struct pp_map *m, const void *key, size_t len, uint32_t id)
{
	size_t slot = 0;
	char *k;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct pp_key *s = calloc(cap, sizeof(*s)), *old = m->slots;

		if (!s)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			size_t j;

			if (!old[i].key)
				continue;
			for (j = hash(old[i].key, old[i].len) & (cap - 1); s[j].key;
			     j = (j + 1) & (cap - 1))
				;
			s[j] = old[i];
		}
		free(old);
		m->slots = s;
		m->cap = cap;
	}
	map_find(m, key, len, &slot);
	k = malloc(len + 1);
	if (!k)
		return NULL;
	memcpy(k, key, len);
	k[len] = 0;
	m->slots[slot] = (struct pp_key){k, len, id};
	m->n++;
	return k;
}

static void map_free(struct pp_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
}

/* The string table index of s (0 is ""); 0 after an error too. */
static uint32_t str_id(struct pp *pp, const char *s)
{
	size_t len = strlen(s), slot;
	uint32_t id;
	const char *k;

	if (!len || pp->err)
		return 0;
	id = map_find(&pp->strs, s, len, &slot);
	if (id)
		return id;
	if (xlp_grow((void **)&pp->str_list, &pp->cap_str_list, pp->strs.n, sizeof(char *)) ||
	    !(k = map_add(&pp->strs, s, len, (uint32_t)pp->strs.n + 1))) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->str_list[pp->strs.n - 1] = k; /* the map owns it */
	return (uint32_t)pp->strs.n;
}

/* ---- functions, mappings, locations ---- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The header's function of this module and raw name (a marked one), or NULL. */
static const struct xlp_func_info *marked(const struct pp *pp, const char *module, const char *raw)
{
	for (uint32_t i = 0; i < pp->meta->nfuncs; i++) {
		const struct xlp_func_info *f = &pp->meta->funcs[i];

		if (f->binary && f->symbol && !strcmp(f->symbol, raw) &&
		    !strcmp(base_name(f->binary), module))
			return f;
	}
	return NULL;
}

/* The header's binary whose basename is module, for its path and build-id. */
static const struct xlp_func_info *binary_of(const struct pp *pp, const char *module)
{
	for (uint32_t i = 0; i < pp->meta->nfuncs; i++) {
		const struct xlp_func_info *f = &pp->meta->funcs[i];

		if (f->binary && !strcmp(base_name(f->binary), module))
			return f;
	}
	return NULL;
}

static uint32_t mapping_id(struct pp *pp, const char *module)
{
	const struct xlp_func_info *b = binary_of(pp, module);
	const char *file = b ? b->binary : module, *bid = b && b->build_id ? b->build_id : "";
	char key[2 * PATH_MAX];
	size_t len, slot;
	uint32_t id;

	len = (size_t)snprintf(key, sizeof(key), "%s%c%s", file, 0, bid);
	if (len >= sizeof(key))
		len = sizeof(key) - 1;
	id = map_find(&pp->maps_by_key, key, len, &slot);
	if (id || pp->err)
		return id;
	if (xlp_grow((void **)&pp->maps, &pp->cap_maps, pp->nmaps, sizeof(*pp->maps)) ||
	    !map_add(&pp->maps_by_key, key, len, (uint32_t)pp->nmaps + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->maps[pp->nmaps] = (struct pp_mapping){str_id(pp, file), str_id(pp, bid)};
	return (uint32_t)++pp->nmaps;
}

static uint32_t fn_id(struct pp *pp, const char *module, const char *raw, const char *name)
{
	char key[2 * (DEMANGLE_MAX_IN + 64)];
	size_t len, slot;
	uint32_t id;

	len = (size_t)snprintf(key, sizeof(key), "%s%c%s", module, 0, raw);
	if (len >= sizeof(key))
		len = sizeof(key) - 1;
	id = map_find(&pp->fns_by_key, key, len, &slot);
	if (id || pp->err)
		return id;
	if (xlp_grow((void **)&pp->fns, &pp->cap_fns, pp->nfns, sizeof(*pp->fns)) ||
	    !map_add(&pp->fns_by_key, key, len, (uint32_t)pp->nfns + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->fns[pp->nfns] = (struct pp_fn){str_id(pp, name), str_id(pp, raw), str_id(pp, module)};
	return (uint32_t)++pp->nfns;
}

static uint32_t loc_id(struct pp *pp, uint32_t fn, uint32_t mapping, uint64_t address)
{
	struct pp_loc key = {fn, mapping, address};
	size_t slot;
	uint32_t id = map_find(&pp->locs_by_key, &key, sizeof(key), &slot);

	if (id || pp->err)
		return id;
	if (xlp_grow((void **)&pp->locs, &pp->cap_locs, pp->nlocs, sizeof(*pp->locs)) ||
	    !map_add(&pp->locs_by_key, &key, sizeof(key), (uint32_t)pp->nlocs + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->locs[pp->nlocs] = key;
	return (uint32_t)++pp->nlocs;
}

/* A location of a pseudo-frame ("[no user stack]", "[truncated]"). */
static uint32_t pseudo_loc(struct pp *pp, const char *name)
{
	return loc_id(pp, fn_id(pp, "", name, name), 0, 0);
}

/* ---- reading a trace ---- */

static int add_sym(struct pp *pp, const struct xlp_sym_rec *r)
{
	char module[3 * 256 + 1], raw[3 * DEMANGLE_MAX_IN + 1], dem[DEMANGLE_MAX_OUT],
		name[3 * DEMANGLE_MAX_OUT + 1];
	const struct xlp_func_info *f;
	struct pp_sym *s;

	if (!trace__sym_ok(r, (uint32_t)pp->nsyms)) {
		pp->malformed++;
		return 0;
	}
	if (xlp_grow((void **)&pp->syms, &pp->cap_syms, pp->nsyms, sizeof(*pp->syms)))
		return -ENOMEM;
	xlp_clean_utf8(module, sizeof(module), r->text, r->module_len);
	xlp_clean_utf8(raw, sizeof(raw), r->text + r->module_len,
		       r->name_len < DEMANGLE_MAX_IN ? r->name_len : DEMANGLE_MAX_IN);
	if (!raw[0])
		snprintf(raw, sizeof(raw), "[unnamed]");
	if (demangle__name(raw, dem, sizeof(dem)))
		xlp_clean_utf8(name, sizeof(name), dem, strlen(dem));
	else
		snprintf(name, sizeof(name), "%s", raw);
	s = &pp->syms[pp->nsyms++];
	f = r->kind == XLP_SYM_FUNCTION ? marked(pp, module, raw) : NULL;
	*s = (struct pp_sym){.fn = fn_id(pp, module, raw, name),
			     .mapping = mapping_id(pp, module[0] ? module : "[unknown]"),
			     .kind = r->kind,
			     .base = f ? f->offset : 0,
			     .base_known = f != NULL};
	return pp->err;
}

static int add_stack(struct pp *pp, const struct xlp_stack_rec *r)
{
	struct pp_stack *s;

	if (!trace__stack_ok(r, (uint32_t)pp->nstacks, (uint32_t)pp->nsyms)) {
		pp->malformed++;
		return 0;
	}
	if (xlp_grow((void **)&pp->stacks, &pp->cap_stacks, pp->nstacks, sizeof(*pp->stacks)))
		return -ENOMEM;
	s = &pp->stacks[pp->nstacks];
	*s = (struct pp_stack){.n = r->nframes,
			       .kernel = r->flags & XLP_STACK_KERNEL,
			       .full = r->flags & XLP_STACK_FULL};
	s->syms = trace__stack_syms(r);
	s->offs = malloc((r->nframes + 1u) * sizeof(*s->offs));
	if (!s->syms || !s->offs) {
		free(s->syms);
		free(s->offs);
		return -ENOMEM;
	}
	for (uint16_t i = 0; i < r->nframes; i++)
		s->offs[i] = r->frames[i].offset;
	pp->nstacks++;
	return 0;
}

/* The location of frame i of a stack. */
static uint32_t frame_loc(struct pp *pp, const struct pp_stack *st, uint16_t i)
{
	const struct pp_sym *s = &pp->syms[st->syms[i]];
	uint64_t addr = 0;

	if (!st->kernel && s->kind == XLP_SYM_FILE)
		addr = st->offs[i];
	else if (!st->kernel && s->base_known)
		addr = s->base + st->offs[i];
	return loc_id(pp, s->fn, s->mapping, addr);
}

static int push_loc(struct pp *pp, uint32_t loc)
{
	if (xlp_grow((void **)&pp->stk, &pp->cap_stk, pp->nstk, sizeof(*pp->stk)))
		return -ENOMEM;
	pp->stk[pp->nstk++] = loc;
	return pp->err;
}

static int add_sample(struct pp *pp, const struct xlp_sample_rec *r)
{
	uint32_t u = r->ustack, k = r->kstack;
	struct pp_sample *s;
	int err = 0;

	/* stacks come before their samples, each of its kind */
	if (u > pp->nstacks || k > pp->nstacks || (u && pp->stacks[u - 1].kernel) ||
	    (k && !pp->stacks[k - 1].kernel)) {
		pp->malformed++;
		return 0;
	}
	if (r->kind == XLP_SAMPLE_ON_CPU && r->weight_ns)
		pp->period = r->weight_ns;
	if (pp->period > pp->period_max)
		pp->period_max = pp->period;
	if (xlp_grow((void **)&pp->samples, &pp->cap_samples, pp->nsamples, sizeof(*pp->samples)))
		return -ENOMEM;
	s = &pp->samples[pp->nsamples];
	*s = (struct pp_sample){.file = pp->file,
				.pid = r->pid,
				.tid = r->tid,
				.locs = (uint32_t)pp->nstk,
				.on_cpu = r->kind == XLP_SAMPLE_ON_CPU,
				.reason = r->reason,
				.run = -1,
				.time = r->time_ns,
				.weight = r->weight_ns,
				/* as export --folded: an off-CPU sample spans
				 * weight / period ticks, at least one */
				.ticks = r->kind != XLP_SAMPLE_ON_CPU && pp->period
						 ? (r->weight_ns + pp->period / 2) / pp->period
						 : 1};
	if (!s->ticks)
		s->ticks = 1;
	if (pp->kernel && k)
		for (uint16_t i = 0; i < pp->stacks[k - 1].n && !err; i++)
			err = push_loc(pp, frame_loc(pp, &pp->stacks[k - 1], i));
	if (u) {
		const struct pp_stack *st = &pp->stacks[u - 1];

		for (uint16_t i = 0; i < st->n && !err; i++)
			err = push_loc(pp, frame_loc(pp, st, i));
		if (st->full && !err)
			err = push_loc(pp, pseudo_loc(pp, "[truncated]"));
	} else {
		pp->no_ustack++;
		if (!err)
			err = push_loc(pp, pseudo_loc(pp, "[no user stack]"));
	}
	if (err)
		return err;
	s->nlocs = (uint32_t)(pp->nstk - s->locs);
	pp->nsamples++;
	return 0;
}

static int add_name(struct pp_name **arr, size_t *n, size_t *cap, uint32_t file, uint32_t id,
		    const char *comm)
{
	char c[3 * XLP_COMM_LEN + 1];

	xlp_clean_utf8(c, sizeof(c), comm, strnlen(comm, XLP_COMM_LEN));
	if (!c[0])
		return 0;
	if (xlp_grow((void **)arr, cap, *n, sizeof(**arr)))
		return -ENOMEM;
	(*arr)[*n].file = file;
	(*arr)[*n].id = id;
	memcpy((*arr)[*n].comm, c, sizeof(c));
	(*n)++;
	return 0;
}

static void free_trace_state(struct pp *pp)
{
	for (size_t i = 0; i < pp->nstacks; i++) {
		free(pp->stacks[i].syms);
		free(pp->stacks[i].offs);
	}
	pp->nstacks = pp->nsyms = 0;
	pp->period = 0;
}

static int pp__read(struct pp *pp, struct trace_reader *r)
{
	const struct xlp_hdr *h;
	int err, ret = 0;

	while (!ret && (err = trace_reader__next(r, &h)) > 0) {
		/* the reader guarantees each known type's fixed part */
		switch (h->type) {
		case XLP_R_SYM:
			ret = add_sym(pp, (const void *)h);
			break;
		case XLP_R_STACK:
			ret = add_stack(pp, (const void *)h);
			break;
		case XLP_R_SAMPLE:
			ret = add_sample(pp, (const void *)h);
			break;
		case XLP_R_PROC: {
			const struct xlp_proc_rec *p = (const void *)h;

			ret = add_name(&pp->procs, &pp->nprocs, &pp->cap_procs, pp->file, p->pid,
				       p->comm);
			break;
		}
		case XLP_R_THREAD: {
			const struct xlp_thread_rec *t = (const void *)h;

			ret = add_name(&pp->threads, &pp->nthreads, &pp->cap_threads, pp->file,
				       t->tid, t->comm);
			break;
		}
		case XLP_R_TASK: {
			const struct xlp_task_rec *t = (const void *)h;

			ret = add_name(&pp->threads, &pp->nthreads, &pp->cap_threads, pp->file,
				       t->tid, t->comm);
			break;
		}
		}
	}
	return ret ? ret : err;
}

/* ---- runs ---- */

static const struct dataset_run *run_at(const struct pp *pp, size_t k)
{
	return dataset__run(pp->ds, pp->run_order[k]);
}

/* A launch owns its process's samples, an interaction its thread's. */
static uint64_t run_owner(const struct dataset_run *r)
{
	return r->tid ? r->tid : (1ULL << 32 | r->pid);
}

static int cmp_key(uint32_t fa, uint64_t oa, uint64_t sa, uint32_t fb, uint64_t ob, uint64_t sb)
{
	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (oa != ob)
		return oa < ob ? -1 : 1;
	return (sa > sb) - (sa < sb);
}

static const struct dataset *sort_ds;

static int cmp_run(const void *a, const void *b)
{
	const struct dataset_run *x = dataset__run(sort_ds, *(const size_t *)a),
				 *y = dataset__run(sort_ds, *(const size_t *)b);

	return cmp_key(x->file, run_owner(x), x->start_ns, y->file, run_owner(y), y->start_ns);
}

/* The run owner o of file holds at t: the last to start at or before t. */
static int32_t find_run(const struct pp *pp, uint32_t file, uint64_t o, uint64_t t)
{
	size_t lo = 0, hi = dataset__nruns(pp->ds);
	const struct dataset_run *r;

	while (lo < hi) { /* first run with key > (file, o, t) */
		size_t mid = lo + (hi - lo) / 2;

		r = run_at(pp, mid);
		if (cmp_key(r->file, run_owner(r), r->start_ns, file, o, t) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	r = run_at(pp, lo - 1);
	if (r->file != file || run_owner(r) != o)
		return -1;
	/* a launch's window is its process's whole recording (dataset.c) */
	if (r->tid && t >= r->end_ns)
		return -1;
	return (int32_t)pp->run_order[lo - 1];
}

/*
 * The runs of all the traces as report sees them, labeled by its default
 * rule; each sample's run. No runs (a trace without an interaction or
 * launches) is no error: the samples have no run labels.
 */
static int pp__runs(struct pp *pp, const char *const *paths, size_t n, char *why, size_t len)
{
	struct dataset_opts o = {0};
	struct labels_rule rule = {.kind = LABELS_SIGMA, .k = 1};
	struct labels_summary sum;
	double *lat;
	size_t nr;
	int err = dataset__load(paths, n, &o, &pp->ds, why, len);

	if (err == -ENODATA)
		return 0;
	if (err)
		return err;
	nr = dataset__nruns(pp->ds);
	pp->run_order = calloc(nr + 1, sizeof(*pp->run_order));
	pp->run_num = calloc(nr + 1, sizeof(*pp->run_num));
	pp->slow = calloc(nr + 1, 1);
	lat = calloc(nr + 1, sizeof(*lat));
	if (!pp->run_order || !pp->run_num || !pp->slow || !lat) {
		free(lat);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0, last = SIZE_MAX, k = 0; i < nr; i++) {
		const struct dataset_run *r = dataset__run(pp->ds, i);

		k = r->file == last ? k + 1 : 1;
		last = r->file;
		pp->run_num[i] = (uint32_t)k;
		pp->run_order[i] = i;
		lat[i] = r->latency_ns;
	}
	pp->labeled = nr >= 2 && !labels__compute(lat, nr, &rule, pp->slow, &sum);
	free(lat);
	sort_ds = pp->ds;
	xlp_sort(pp->run_order, nr, sizeof(*pp->run_order), cmp_run);
	for (size_t i = 0; i < pp->nsamples; i++) {
		struct pp_sample *s = &pp->samples[i];

		s->run = find_run(pp, s->file, s->tid, s->time);
		if (s->run < 0)
			s->run = find_run(pp, s->file, 1ULL << 32 | s->pid, s->time);
	}
	return 0;
}

/* --runs slow|fast keeps the samples of such runs. */
static bool kept(const struct pp *pp, const struct pp_sample *s)
{
	if (!pp->runs)
		return true;
	return s->run >= 0 && pp->labeled && !pp->slow[s->run] == (pp->runs == 2);
}

/* ---- output ---- */

static const char *name_of(const struct pp_name *a, size_t n, uint32_t file, uint32_t id)
{
	for (size_t i = n; i-- > 0;)
		if (a[i].file == file && a[i].id == id)
			return a[i].comm;
	return NULL;
}

static void label_str(struct pp *pp, struct pbw *w, const char *key, const char *v)
{
	size_t m = pbw__begin(w, F_SMP_LABEL);

	pbw__varint(w, F_LBL_KEY, str_id(pp, key));
	pbw__varint(w, F_LBL_STR, str_id(pp, v));
	pbw__end(w, m);
}

static void label_num(struct pp *pp, struct pbw *w, const char *key, uint64_t v)
{
	size_t m = pbw__begin(w, F_SMP_LABEL);

	pbw__varint(w, F_LBL_KEY, str_id(pp, key));
	pbw__varint(w, F_LBL_NUM, v);
	pbw__end(w, m);
}

static void value_type(struct pp *pp, struct pbw *w, uint32_t field, const char *type,
		       const char *unit)
{
	size_t m = pbw__begin(w, field);

	pbw__varint(w, F_VT_TYPE, str_id(pp, type));
	pbw__varint(w, F_VT_UNIT, str_id(pp, unit));
	pbw__end(w, m);
}

static void put_sample(struct pp *pp, struct pbw *w, const struct pp_sample *s)
{
	const char *thread = name_of(pp->threads, pp->nthreads, s->file, s->tid),
		   *proc = name_of(pp->procs, pp->nprocs, s->file, s->pid);
	uint64_t v[NR_V] = {s->ticks, s->on_cpu ? s->weight : 0, s->on_cpu ? 0 : s->weight};
	size_t m = pbw__begin(w, F_PROF_SAMPLE), p;
	char buf[32];

	p = pbw__begin(w, F_SMP_LOCATION);
	for (uint32_t i = 0; i < s->nlocs; i++)
		pbw__packed_varint(w, pp->stk[s->locs + i]);
	pbw__end(w, p);
	p = pbw__begin(w, F_SMP_VALUE);
	for (int i = 0; i < NR_V; i++)
		pbw__packed_varint(w, v[i]);
	pbw__end(w, p);
	if (!proc) {
		snprintf(buf, sizeof(buf), "pid %" PRIu32, s->pid);
		proc = buf;
	}
	label_str(pp, w, "thread", thread ? thread : proc);
	label_num(pp, w, "tid", s->tid);
	label_num(pp, w, "pid", s->pid);
	label_str(pp, w, "process", proc);
	if (pp->hosts[s->file])
		label_str(pp, w, "host", pp->hosts[s->file]);
	label_str(pp, w, "state", s->on_cpu ? "on_cpu" : "off_cpu");
	if (!s->on_cpu)
		label_str(pp, w, "reason",
			  s->reason < XLP_NR_CTR && xlp_ctr_names[s->reason]
				  ? xlp_ctr_names[s->reason]
				  : "unknown");
	if (s->run >= 0) {
		label_num(pp, w, "run", pp->run_num[s->run]);
		if (pp->labeled)
			label_str(pp, w, "run_class", pp->slow[s->run] ? "slow" : "fast");
	}
	pbw__end(w, m);
}

static void pp__encode(struct pp *pp, struct pbw *w, const char *comment)
{
	size_t m, l;

	value_type(pp, w, F_PROF_SAMPLE_TYPE, "samples", "count");
	value_type(pp, w, F_PROF_SAMPLE_TYPE, "cpu", "nanoseconds");
	value_type(pp, w, F_PROF_SAMPLE_TYPE, "off_cpu", "nanoseconds");
	for (size_t i = 0; i < pp->nsamples; i++)
		if (kept(pp, &pp->samples[i]))
			put_sample(pp, w, &pp->samples[i]);
	for (size_t i = 0; i < pp->nmaps; i++) {
		m = pbw__begin(w, F_PROF_MAPPING);
		pbw__varint(w, F_MAP_ID, i + 1);
		pbw__varint(w, F_MAP_START, 0);
		pbw__varint(w, F_MAP_LIMIT, UINT64_MAX);
		pbw__varint(w, F_MAP_OFFSET, 0);
		pbw__varint(w, F_MAP_FILENAME, pp->maps[i].filename);
		pbw__varint(w, F_MAP_BUILD_ID, pp->maps[i].build_id);
		/* named at record time: nothing for pprof to symbolize */
		pbw__varint(w, F_MAP_HAS_FUNCTIONS, 1);
		pbw__end(w, m);
	}
	for (size_t i = 0; i < pp->nlocs; i++) {
		m = pbw__begin(w, F_PROF_LOCATION);
		pbw__varint(w, F_LOC_ID, i + 1);
		if (pp->locs[i].mapping)
			pbw__varint(w, F_LOC_MAPPING, pp->locs[i].mapping);
		if (pp->locs[i].address)
			pbw__varint(w, F_LOC_ADDRESS, pp->locs[i].address);
		l = pbw__begin(w, F_LOC_LINE);
		pbw__varint(w, F_LINE_FUNCTION, pp->locs[i].fn);
		pbw__end(w, l);
		pbw__end(w, m);
	}
	for (size_t i = 0; i < pp->nfns; i++) {
		m = pbw__begin(w, F_PROF_FUNCTION);
		pbw__varint(w, F_FN_ID, i + 1);
		pbw__varint(w, F_FN_NAME, pp->fns[i].name);
		pbw__varint(w, F_FN_SYSTEM_NAME, pp->fns[i].system_name);
		pbw__varint(w, F_FN_FILENAME, pp->fns[i].filename);
		pbw__end(w, m);
	}
	if (pp->time_ns)
		pbw__varint(w, F_PROF_TIME, pp->time_ns);
	if (pp->end_ns > pp->time_ns && pp->time_ns)
		pbw__varint(w, F_PROF_DURATION, pp->end_ns - pp->time_ns);
	value_type(pp, w, F_PROF_PERIOD_TYPE, "cpu", "nanoseconds");
	pbw__varint(w, F_PROF_PERIOD, pp->period_max);
	pbw__varint(w, F_PROF_COMMENT, str_id(pp, comment));
	pbw__varint(w, F_PROF_DEFAULT_TYPE, str_id(pp, "cpu"));
	/* last: every string above is in the table by now */
	pbw__bytes(w, F_PROF_STRING, "", 0);
	for (size_t i = 0; i < pp->strs.n; i++)
		pbw__str(w, F_PROF_STRING, pp->str_list[i]);
}

struct pp_out {
	const struct pbw *w;
};

/* The profile, gzipped (pprof's own files are). */
static int gzip_to(FILE *f, const void *ctx)
{
	const struct pbw *w = ((const struct pp_out *)ctx)->w;
	unsigned char buf[1 << 16];
	z_stream z = {0};
	int zr;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -ENOMEM;
	z.next_in = w->buf;
	z.avail_in = (uInt)w->len; /* checked against UINT_MAX by the caller */
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR ||
		    fwrite(buf, 1, sizeof(buf) - z.avail_out, f) != sizeof(buf) - z.avail_out) {
			deflateEnd(&z);
			return -EIO;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(f) ? -EIO : 0;
}

static void pp__free(struct pp *pp)
{
	free_trace_state(pp);
	free(pp->syms);
	free(pp->stacks);
	map_free(&pp->strs);
	map_free(&pp->fns_by_key);
	map_free(&pp->maps_by_key);
	map_free(&pp->locs_by_key);
	free(pp->str_list);
	free(pp->fns);
	free(pp->maps);
	free(pp->locs);
	free(pp->stk);
	free(pp->samples);
	free(pp->threads);
	free(pp->procs);
	free(pp->run_order);
	free(pp->run_num);
	free(pp->slow);
	dataset__free(pp->ds);
	if (pp->hosts)
		for (size_t i = 0; i < pp->nhosts; i++)
			free((char *)pp->hosts[i]);
	free(pp->hosts);
}

/* One trace read into pp; 0, or 1 after a message. */
static int read_one(struct pp *pp, const char *path)
{
	struct trace_reader *r = NULL;
	const struct xlp_trace_footer *ft;
	char why[PATH_MAX + 256], host[256];
	size_t before = pp->nsamples;
	int64_t t0;
	int err;

	err = trace_reader__open(path, &r, why, sizeof(why));
	if (err) {
		xlp_err("%s: %s", path, why);
		return 1;
	}
	pp->meta = trace_reader__meta(r);
	xlp_clean_utf8(host, sizeof(host), pp->meta->host ? pp->meta->host : "",
		       pp->meta->host ? strnlen(pp->meta->host, 80) : 0);
	pp->hosts[pp->file] = host[0] ? strdup(host) : NULL;
	/* pprof takes the first mapping for the program's: the interaction's binary */
	if (pp->meta->nfuncs && pp->meta->funcs[0].binary)
		mapping_id(pp, base_name(pp->meta->funcs[0].binary));
	err = pp__read(pp, r);
	if (!err)
		err = pp->err;
	if (err < 0) {
		xlp_err("%s: %s after %zu samples: check the disk and the memory", path,
			strerror(-err), pp->nsamples - before);
		trace_reader__close(r);
		return 1;
	}
	if (trace_reader__status(r) == TRACE_TRUNCATED)
		xlp_warn("%s is truncated (recording did not finish): exporting the %zu samples "
			 "read",
			 path, pp->nsamples - before);
	else if (trace_reader__status(r) != TRACE_COMPLETE)
		xlp_warn("%s is damaged (%s): exporting the %zu samples read", path,
			 trace_reader__describe(r, why, sizeof(why)), pp->nsamples - before);
	ft = trace_reader__footer(r);
	/* the profile's time: wall clock, the earliest start and latest end */
	t0 = pp->meta->boot_offset_ns ? (int64_t)pp->meta->start_ns + pp->meta->boot_offset_ns : 0;
	if (t0 > 0 && (!pp->time_ns || (uint64_t)t0 < pp->time_ns))
		pp->time_ns = (uint64_t)t0;
	if (t0 > 0 && ft && ft->end_ns > pp->meta->start_ns &&
	    (uint64_t)t0 + (ft->end_ns - pp->meta->start_ns) > pp->end_ns)
		pp->end_ns = (uint64_t)t0 + (ft->end_ns - pp->meta->start_ns);
	free_trace_state(pp);
	trace_reader__close(r);
	pp->file++;
	return 0;
}

static int pp_to(FILE *f, const void *ctx)
{
	return gzip_to(f, ctx);
}

int cmd_export_pprof(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"pprof", no_argument, NULL, 'P'},	{"output", required_argument, NULL, 'o'},
		{"runs", required_argument, NULL, 'R'}, {"no-kernel", no_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},	{},
	};
	struct pp pp = {.kernel = true};
	struct pbw w = {0};
	const char *out = NULL;
	char why[PATH_MAX + 512], comment[PATH_MAX + 64];
	size_t kept_n = 0;
	int c, err, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			break;
		case 'o':
			out = optarg;
			break;
		case 'K':
			pp.kernel = false;
			break;
		case 'R':
			if (!strcmp(optarg, "all") || !strcmp(optarg, "slow") ||
			    !strcmp(optarg, "fast")) {
				pp.runs = !strcmp(optarg, "slow")   ? 1
					  : !strcmp(optarg, "fast") ? 2
								    : 0;
				break;
			}
			xlp_err("export --pprof: --runs %s: give slow, fast or all", optarg);
			return 2;
		case 'h':
			fputs(help, stdout);
			return 0;
		default:
			xlp_err("export --pprof: bad usage: see xlprobe export --pprof --help");
			return 2;
		}
	}
	if (optind >= argc) {
		xlp_err("export --pprof: no trace given: xlprobe export --pprof TRACE... -o "
			"OUT.pb.gz");
		return 2;
	}
	if (!out && isatty(STDOUT_FILENO)) {
		xlp_err("export --pprof: the output is binary and standard output is a terminal: "
			"give -o FILE.pb.gz");
		return 2;
	}
	pp.hosts = calloc((size_t)(argc - optind), sizeof(*pp.hosts));
	pp.nhosts = (size_t)(argc - optind);
	if (!pp.hosts) {
		xlp_err("export --pprof: out of memory: check the memory");
		return 1;
	}
	for (int i = optind; i < argc; i++)
		if (read_one(&pp, argv[i]))
			goto cleanup;
	if (!pp.nsamples) {
		xlp_err("%s %s no stack samples: record with --sample (or without --func)",
			argv[optind], argc - optind > 1 ? "and the others hold" : "holds");
		goto cleanup;
	}
	err = pp__runs(&pp, (const char *const *)argv + optind, (size_t)(argc - optind), why,
		       sizeof(why));
	if (err) {
		xlp_err("export --pprof: runs: %s", why);
		goto cleanup;
	}
	if (pp.runs && !pp.labeled) {
		xlp_err("export --pprof --runs %s: the traces hold %s: record more runs, or "
			"use --runs all",
			pp.runs == 1 ? "slow" : "fast",
			pp.ds ? "fewer than 2 runs" : "no runs (no interaction, no launches)");
		goto cleanup;
	}
	for (size_t i = 0; i < pp.nsamples; i++)
		kept_n += kept(&pp, &pp.samples[i]);
	if (!kept_n) {
		xlp_err("export --pprof: no sample was taken in a %s run: use --runs all",
			pp.runs == 1 ? "slow" : "fast");
		goto cleanup;
	}
	if (pp.malformed)
		xlp_warn("%" PRIu64 " malformed sample, stack or name records skipped",
			 pp.malformed);
	if (pp.no_ustack)
		xlp_warn("%" PRIu64 " of %zu samples have no user stack (the kernel could not keep "
			 "it: see 'xlprobe dump', ustack_err)",
			 pp.no_ustack, pp.nsamples);
	snprintf(comment, sizeof(comment), "xlprobe export --pprof %s%s", argv[optind],
		 argc - optind > 1 ? " ..." : "");
	pp__encode(&pp, &w, comment);
	if (pp.err || pbw__err(&w) || w.len > UINT_MAX) {
		xlp_err("export --pprof: %s: check the memory",
			strerror(pp.err		? -pp.err
				 : pbw__err(&w) ? -pbw__err(&w)
						: EFBIG));
		goto cleanup;
	}
	if (!outfile__write_with(out, "-o", pp_to, &(struct pp_out){&w}))
		ret = 0;
cleanup:
	pbw__free(&w);
	pp__free(&pp);
	return ret;
}
