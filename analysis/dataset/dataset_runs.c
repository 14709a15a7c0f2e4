/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pass 1 over a trace file: which runs it holds, their whole-run
 * baselines (PerfProbe section V-D) and what was lost while recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dataset_impl.h"
#include "util.h"

struct cand {
	uint32_t pid, tid;
	uint32_t btid; /* the thread it began on: tid, but for a keyed run */
	uint64_t start, end;
	uint32_t landmark; /* index into the file's landmarks, DATASET_NONE for a launch */
	bool summary;	   /* record --lag: its call alone (XLP_CALL_SUMMARY) */
	bool has_own;
	uint64_t own[XLP_NR_CTR]; /* an interaction call's incl[] */
};

struct base_rec {
	uint32_t pid, tid;
	uint64_t at; /* entry_ns of the run record, 0 for a process record */
	size_t seq;  /* order in the file: of equal keys the last one wins */
	uint64_t ctr[XLP_NR_CTR];
};

/* record --until: a keyed run's begin or end (XLP_TASKEV_BEGIN / END), or an end call */
struct kev {
	uint64_t t, key, end; /* end: for an end call, its return */
	uint32_t pid, tid;
	uint32_t func; /* a begin's function (local id) */
	uint16_t kind; /* XLP_TASKEV_BEGIN / END; 0: an end call */
};

struct pass1 {
	struct kev *kev;
	size_t nkev, kev_cap;
	struct cand *cand;
	size_t ncand, cand_cap;
	struct base_rec *base;
	size_t nbase, base_cap;
	bool have_stats;
	struct xlp_stats_rec stats; /* the last one: drops of a truncated file */
	bool have_lag;
	struct xlp_lag_rec lag;	      /* record --lag's counts */
	struct xlp_marker_rec marker; /* marker: specs' lines skipped (summed) */
	uint64_t nrecords;
	uint64_t nprog; /* of them, produced by the programs */
	uint64_t forks_late, forks_unprobed, fork_window_max_ns;
	struct dataset_sizes sizes;
};

/* own: the interaction call's counters, NULL for a launch */
static int add_cand(struct pass1 *p, uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
		    const __u64 *own)
{
	struct cand *c;

	if (xlp_grow((void **)&p->cand, &p->cand_cap, p->ncand, sizeof(*p->cand)))
		return -ENOMEM;
	c = &p->cand[p->ncand++];
	*c = (struct cand){.pid = pid,
			   .tid = tid,
			   .btid = tid,
			   .start = start,
			   .end = end,
			   .landmark = DATASET_NONE,
			   .has_own = !!own};
	if (own)
		memcpy(c->own, own, sizeof(c->own));
	return 0;
}

/* ctr: XLP_NR_CTR counters (__u64 in records, copied, never aliased) */
static int add_base(struct pass1 *p, uint32_t pid, uint32_t tid, uint64_t at, const void *ctr)
{
	struct base_rec *b;

	if (xlp_grow((void **)&p->base, &p->base_cap, p->nbase, sizeof(*p->base)))
		return -ENOMEM;
	b = &p->base[p->nbase++];
	b->pid = pid;
	b->tid = tid;
	b->at = at;
	b->seq = p->nbase - 1;
	memcpy(b->ctr, ctr, sizeof(b->ctr));
	return 0;
}

static int add_kev(struct pass1 *p, const struct kev *k)
{
	if (xlp_grow((void **)&p->kev, &p->kev_cap, p->nkev, sizeof(*p->kev)))
		return -ENOMEM;
	p->kev[p->nkev++] = *k;
	return 0;
}

static int take_record(struct pass1 *p, const struct dataset_file *f, const struct xlp_hdr *h)
{
	if (dataset__sizes_take(&p->sizes, h))
		return -ENOMEM;
	if (h->type == XLP_R_TASKEV && h->size >= sizeof(struct xlp_taskev_rec) && f->info.keyed) {
		const struct xlp_taskev_rec *k = (const void *)h;

		if (k->kind != XLP_TASKEV_BEGIN && k->kind != XLP_TASKEV_END)
			return 0;
		return add_kev(p, &(struct kev){.t = k->entry_ns,
						.key = k->key,
						.pid = k->pid,
						.tid = k->tid,
						.func = k->func_id,
						.kind = k->kind});
	}
	if (h->type == XLP_R_CALL && h->size >= sizeof(struct xlp_call_rec)) {
		const struct xlp_call_rec *c = (const void *)h;
		int ret;

		if (f->info.keyed && c->func_id < f->nlocal && f->is_end[c->func_id])
			return add_kev(p, &(struct kev){.t = c->entry_ns,
							.end = c->entry_ns + c->incl[XLP_C_WALL],
							.pid = c->pid,
							.tid = c->tid});
		/* keyed runs come from their keys, not from the interaction's calls */
		if (f->info.launches || f->info.keyed || c->func_id >= f->nlocal ||
		    !f->is_interaction[c->func_id])
			return 0;
		ret = add_cand(p, c->pid, c->tid, c->entry_ns, c->entry_ns + c->incl[XLP_C_WALL],
			       c->incl);
		if (!ret) {
			p->cand[p->ncand - 1].landmark = f->lidx[c->func_id];
			p->cand[p->ncand - 1].summary = !!(c->flags & XLP_CALL_SUMMARY);
		}
		return ret;
	}
	if (h->type == XLP_R_MARKER && h->size >= sizeof(struct xlp_marker_rec)) {
		const struct xlp_marker_rec *m = (const void *)h;

		for (int i = 0; i < XLP_MARKER_NR_SKIP; i++)
			p->marker.skip[i] += m->skip[i];
	}
	if (h->type == XLP_R_LAG && h->size >= sizeof(struct xlp_lag_rec)) {
		memcpy(&p->lag, h, sizeof(p->lag));
		p->have_lag = true;
	}
	if (h->type == XLP_R_RUN && h->size >= sizeof(struct xlp_run_rec)) {
		const struct xlp_run_rec *r = (const void *)h;

		return f->info.launches ? 0 : add_base(p, r->pid, r->tid, r->entry_ns, r->proc);
	}
	if (h->type == XLP_R_LAUNCH && h->size >= sizeof(struct xlp_launch_rec)) {
		const struct xlp_launch_rec *l = (const void *)h;

		return f->info.launches ? add_cand(p, l->pid, 0, l->start_ns, l->end_ns, NULL) : 0;
	}
	if (h->type == XLP_R_PROC && h->size >= sizeof(struct xlp_proc_rec)) {
		const struct xlp_proc_rec *r = (const void *)h;

		/* a later record of the same pid (totals at exit) supersedes */
		return f->info.launches ? add_base(p, r->pid, 0, 0, r->tot) : 0;
	}
	if (h->type == XLP_R_STATS && h->size >= sizeof(struct xlp_stats_rec)) {
		memcpy(&p->stats, h, sizeof(p->stats));
		p->have_stats = true;
	}
	if (h->type == XLP_R_FORK && h->size >= sizeof(struct xlp_fork_rec)) {
		const struct xlp_fork_rec *k = (const void *)h;

		if (k->flags & XLP_FORK_PROBED) {
			uint64_t w = k->probed_ns > k->fork_ns ? k->probed_ns - k->fork_ns : 0;

			p->forks_late++;
			if (w > p->fork_window_max_ns)
				p->fork_window_max_ns = w;
		} else if (k->flags & (XLP_FORK_GONE | XLP_FORK_PROBE_FAILED)) {
			p->forks_unprobed++;
		}
	}
	return 0;
}

static int cmp_cand_nest(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end); /* outer first */
}

static int cmp_cand_time(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_base_key(const struct base_rec *x, const struct base_rec *y)
{
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

static int cmp_base(const void *a, const void *b)
{
	const struct base_rec *x = a, *y = b;
	int c = cmp_base_key(x, y);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * An interaction invoked inside another one on the same thread is part of
 * it, whichever landmark either is: the outer call is the run (the inner
 * one's time is in it, and counting both would count it twice).
 */
static void drop_nested(struct pass1 *p)
{
	size_t kept = 0;

	xlp_sort(p->cand, p->ncand, sizeof(*p->cand), cmp_cand_nest);
	for (size_t i = 0; i < p->ncand; i++) {
		const struct cand *c = &p->cand[i], *last = kept ? &p->cand[kept - 1] : NULL;

		if (last && last->pid == c->pid && last->tid == c->tid && c->end <= last->end)
			continue;
		p->cand[kept++] = *c;
	}
	p->ncand = kept;
	xlp_sort(p->cand, p->ncand, sizeof(*p->cand), cmp_cand_time);
}

/* The last base record with this key (process totals: the latest wins). */
static const struct base_rec *find_base(const struct pass1 *p, uint32_t pid, uint32_t tid,
					uint64_t at)
{
	size_t lo = 0, hi = p->nbase;
	struct base_rec key = {.pid = pid, .tid = tid, .at = at};

	while (lo < hi) { /* first element > key */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_base_key(&p->base[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && !cmp_base_key(&p->base[lo - 1], &key))
		return &p->base[lo - 1];
	return NULL;
}

static int cmp_kev(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;

	if (!x->kind != !y->kind) /* the end calls last, apart */
		return !x->kind ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->kind && x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind); /* a begin before its end */
}

/* An end call's return: the call on the end's thread that entered with it. */
static uint64_t end_of_call(const struct kev *calls, size_t n, const struct kev *e)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* calls are sorted by (pid, t) */
		size_t mid = lo + (hi - lo) / 2;

		if (calls[mid].pid < e->pid || (calls[mid].pid == e->pid && calls[mid].t < e->t))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && calls[lo].pid == e->pid && calls[lo].t == e->t; lo++)
		if (calls[lo].tid == e->tid)
			return calls[lo].end;
	return e->t; /* its call record lost: the run ends at its entry */
}

/*
 * record --until: a run from the interaction's call to the --until
 * function's call with the same key in its process, on whichever threads;
 * its thread is the one that ended it (the wait chains follow that
 * thread's waits back over the run). A begin with no end before the next
 * begin of its key, an end with no begin: counted, not runs. No whole-run
 * counters (the BPF side keeps them per thread and call).
 */
static int keyed_runs(struct dataset_file *f, struct pass1 *p)
{
	const struct kev *begin = NULL, *calls;
	size_t nev = 0;
	int ret = 0;

	if (p->nkev)
		xlp_sort(p->kev, p->nkev, sizeof(*p->kev), cmp_kev);
	while (nev < p->nkev && p->kev[nev].kind)
		nev++;
	calls = p->kev + nev;
	for (size_t i = 0; i < nev && !ret; i++) {
		const struct kev *e = &p->kev[i];

		if (begin && (begin->pid != e->pid || begin->key != e->key)) {
			f->info.unmatched_begins++;
			begin = NULL;
		}
		if (e->kind == XLP_TASKEV_BEGIN) {
			f->info.unmatched_begins += begin != NULL;
			begin = e;
		} else if (!begin) {
			f->info.unmatched_ends++;
		} else {
			ret = add_cand(p, e->pid, e->tid, begin->t,
				       end_of_call(calls, p->nkev - nev, e), NULL);
			if (!ret) { /* its size and landmark are the begin's */
				p->cand[p->ncand - 1].btid = begin->tid;
				p->cand[p->ncand - 1].landmark = begin->func < f->nlocal
									 ? f->lidx[begin->func]
									 : DATASET_NONE;
			}
			begin = NULL;
		}
	}
	f->info.unmatched_begins += begin != NULL;
	return ret;
}

static int append_runs(struct dataset *ds, size_t fi, struct pass1 *p)
{
	struct dataset_file *f = &ds->files[fi];
	int ret;

	if (f->info.keyed) {
		ret = keyed_runs(f, p);
		if (ret)
			return ret;
		ds->drops.unmatched_begins += f->info.unmatched_begins;
		ds->drops.unmatched_ends += f->info.unmatched_ends;
		p->nbase = 0; /* run records hold the interaction call's window, not the run's */
		/* keyed runs overlap on an event loop's thread: none is nested in another */
		xlp_sort(p->cand, p->ncand, sizeof(*p->cand), cmp_cand_time);
	} else {
		drop_nested(p);
	}
	xlp_sort(p->base, p->nbase, sizeof(*p->base), cmp_base);
	dataset__sizes_ready(&p->sizes);
	f->run_off = ds->nruns;
	for (size_t i = 0; i < p->ncand; i++) {
		const struct cand *c = &p->cand[i];
		const struct base_rec *b;
		struct dataset_run *r;

		if (c->summary) {
			if (xlp_grow((void **)&ds->summ, &ds->summ_cap, ds->nsumm,
				     sizeof(*ds->summ)))
				return -ENOMEM;
			r = &ds->summ[ds->nsumm++];
			f->info.nsummary++;
		} else {
			if (xlp_grow((void **)&ds->runs, &ds->run_cap, ds->nruns,
				     sizeof(*ds->runs)))
				return -ENOMEM;
			r = &ds->runs[ds->nruns++];
		}
		memset(r, 0, sizeof(*r));
		/* an index among the file's landmarks until dataset__intern_landmarks */
		r->landmark = c->landmark;
		r->summary = c->summary;
		r->file = (uint32_t)fi;
		r->pid = c->pid;
		r->tid = c->tid;
		r->start_ns = c->start;
		r->end_ns = c->end;
		r->latency_ns = (double)(c->end - c->start);
		r->queued_ns = c->has_own ? c->own[XLP_C_QUEUED] : 0;
		r->size = dataset__sizes_of(&p->sizes, c->pid, c->btid, c->start, r->queued_ns);
		r->has_own = c->has_own;
		if (c->has_own)
			memcpy(r->own, c->own, sizeof(r->own));
		b = find_base(p, c->pid, c->tid, f->info.launches ? 0 : c->start);
		if (b) {
			r->has_base = true;
			memcpy(r->base, b->ctr, sizeof(r->base));
		}
	}
	f->nruns = ds->nruns - f->run_off;
	f->info.nruns = f->nruns;
	return 0;
}

/*
 * The runqueue wait between the wakeup that started a run and its
 * interaction's entry (record's prewake, counter queued) is a segment of
 * the run before any function of it: a pseudo-function "SYMBOL [queued
 * before it]" of the interaction's binary, so that step 1 can name it and
 * step 2 find its resource (cpu_wait) like any function's. An event-loop
 * server slowed by a CPU hog waits there, not in its handler.
 */
static int intern_queued(struct dataset *ds, const struct xlp_func_info *fi)
{
	char name[320];

	int g;

	snprintf(name, sizeof(name), "%.256s " DATASET_QUEUED_SUFFIX,
		 fi->symbol ? fi->symbol : "?");
	g = dataset__intern_func(ds, name, fi->binary);
	if (g >= 0)
		ds->funcs[g].queued = true;
	return g;
}

/*
 * Local function table -> global one; interactions mark runs, not features.
 * The tables are indexed by the records' func_id: sized by the header's
 * function count, never by an id read from the file (the reader accepts
 * only id == index; checked again here, as the indexing depends on it).
 */
static int map_funcs(struct dataset *ds, struct dataset_file *f, const struct xlp_trace_meta *m,
		     char *err, size_t errlen)
{
	uint32_t n = m->nfuncs;

	f->nlocal = n;
	f->fmap = malloc((size_t)n * sizeof(*f->fmap) + 1);
	f->qmap = malloc((size_t)n * sizeof(*f->qmap) + 1);
	f->is_interaction = calloc((size_t)n + 1, 1);
	f->is_end = calloc((size_t)n + 1, 1);
	f->lidx = malloc((size_t)n * sizeof(*f->lidx) + 1);
	f->landmarks = calloc((size_t)n + 1, sizeof(*f->landmarks));
	f->landmark_bins = calloc((size_t)n + 1, sizeof(*f->landmark_bins));
	f->landmark_names = calloc((size_t)n + 1, sizeof(*f->landmark_names));
	if (!f->fmap || !f->qmap || !f->is_interaction || !f->is_end || !f->lidx || !f->landmarks ||
	    !f->landmark_bins || !f->landmark_names)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		f->fmap[i] = f->qmap[i] = f->lidx[i] = DATASET_NONE;
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const struct xlp_func_info *fi = &m->funcs[i];
		size_t k;
		int g;

		if (fi->id != i) {
			snprintf(err, errlen,
				 "%s: corrupt trace: function %u has id %u (ids are 0, 1, 2... in "
				 "order): the file is damaged or forged",
				 f->path, i, fi->id);
			return -EBADMSG;
		}

		if (fi->flags & XLP_FUNC_RUN_END) {
			f->is_end[fi->id] = 1;
			f->info.keyed = true;
		}
		if (fi->flags & XLP_FUNC_INTERACTION) {
			f->is_interaction[fi->id] = 1;
			f->usdt_landmark |= (fi->flags & XLP_FUNC_USDT) != 0;
			k = f->nlandmarks++;
			f->lidx[fi->id] = (uint32_t)k;
			f->landmarks[k] = strdup(fi->symbol ? fi->symbol : "?");
			f->landmark_bins[k] = strdup(fi->binary ? fi->binary : "");
			/* demangled by the reader, as every output prints it */
			f->landmark_names[k] = strdup(fi->name	   ? fi->name
						      : fi->symbol ? fi->symbol
								   : "?");
			if (!f->landmarks[k] || !f->landmark_bins[k] || !f->landmark_names[k])
				return -ENOMEM;
			if (!f->interaction &&
			    (!(f->interaction = strdup(fi->symbol ? fi->symbol : "?")) ||
			     !(f->landmark_binary = strdup(dataset__base_name(fi->binary))) ||
			     !(f->build_id = strdup(fi->build_id ? fi->build_id : ""))))
				return -ENOMEM;
			if (m->features & XLP_FEAT_PREWAKE) {
				g = intern_queued(ds, fi);
				if (g < 0)
					return g;
				f->qmap[fi->id] = (uint32_t)g;
			}
			continue;
		}
		g = dataset__intern_func(ds, fi->symbol, fi->binary);
		if (g < 0)
			return g;
		f->fmap[fi->id] = (uint32_t)g;
	}
	f->info.interaction = f->interaction;
	f->info.landmark_binary = f->landmark_binary;
	f->info.build_id = f->build_id;
	f->info.landmarks = (const char *const *)f->landmarks;
	f->info.landmark_names = (const char *const *)f->landmark_names;
	f->info.interaction_name = f->nlandmarks ? f->landmark_names[0] : NULL;
	f->info.nlandmarks = f->nlandmarks;
	f->info.launches = !f->interaction;
	return 0;
}

static int take_drops(struct dataset *ds, struct trace_reader *r, const struct pass1 *p,
		      struct dataset_file *f)
{
	const struct xlp_trace_footer *ft = trace_reader__footer(r);
	const struct trace_integrity *in = trace_reader__integrity(r);
	uint64_t stat[XLP_NR_STAT] = {0}, lost = 0;
	char why[512];

	if (ft) {
		memcpy(stat, ft->stat, sizeof(stat));
		lost = ft->lost_by_reader;
	} else if (p->have_stats) {
		memcpy(stat, p->stats.stat, sizeof(stat));
		lost = p->stats.lost_by_reader;
	}
	for (int i = 0; i < XLP_NR_STAT; i++)
		ds->drops.stat[i] += stat[i];
	ds->drops.lost_by_reader += lost;
	ds->drops.program_records += p->nprog;
	ds->drops.bad_chunks += in->bad;
	ds->drops.missing_chunks += in->missing;
	ds->drops.duplicate_chunks += in->duplicate;
	ds->drops.reordered_chunks += in->reordered;
	ds->drops.extra_chunks += in->extra_chunks;
	ds->drops.missing_records += in->missing_records;
	ds->drops.extra_records += in->extra_records;
	ds->drops.forks_late += p->forks_late;
	if (p->have_lag) {
		f->info.lag_ns = p->lag.threshold_ns;
		f->info.lag_keep = p->lag.keep;
		ds->drops.lag_summarized += p->lag.summarized;
		ds->drops.lag_left_out += p->lag.records_left_out;
		ds->drops.lag_left_out_bytes += p->lag.bytes_left_out;
		ds->drops.lag_written_through += p->lag.written_through;
	}
	ds->drops.forks_unprobed += p->forks_unprobed;
	for (int i = 0; i < XLP_MARKER_NR_SKIP; i++)
		ds->drops.marker_skip[i] += p->marker.skip[i];
	if (p->fork_window_max_ns > ds->drops.fork_window_max_ns)
		ds->drops.fork_window_max_ns = p->fork_window_max_ns;
	f->info.truncated = trace_reader__status(r) == TRACE_TRUNCATED;
	ds->drops.ntruncated += f->info.truncated;
	ds->drops.ndamaged += trace_reader__status(r) == TRACE_DAMAGED;
	trace_reader__describe(r, why, sizeof(why));
	if (!why[0])
		return 0;
	f->damage = strdup(why);
	f->info.damage = f->damage;
	return f->damage ? 0 : -ENOMEM;
}

static int read_records(struct trace_reader *r, struct pass1 *p, const struct dataset_file *f,
			char *err, size_t errlen)
{
	const struct xlp_hdr *h;
	int ret;

	while ((ret = trace_reader__next(r, &h)) > 0) {
		p->nrecords++;
		p->nprog += xlp_rec_from_programs(h->type);
		ret = take_record(p, f, h);
		if (ret)
			break;
	}
	if (ret < 0)
		snprintf(err, errlen, "%s: cannot read: %s: check the file and the disk", f->path,
			 strerror(-ret));
	return ret;
}

/* The one-line reason a file with records has no runs. */
static void no_runs(const struct dataset_file *f, const struct xlp_trace_meta *m, char *err,
		    size_t errlen)
{
	if (f->info.nsummary)
		snprintf(err, errlen,
			 "%s has no runs with their detail: all %zu were summarized by record "
			 "--lag (none lagged): record with a lower --lag or --lag-keep 1",
			 f->path, f->info.nsummary);
	else if (f->info.keyed)
		snprintf(err, errlen,
			 "%s has no runs: no call of the --until function had the key of an "
			 "earlier call of %s (%llu begins, %llu ends unmatched): check --key",
			 f->path, f->interaction, (unsigned long long)f->info.unmatched_begins,
			 (unsigned long long)f->info.unmatched_ends);
	else if (f->interaction)
		snprintf(err, errlen,
			 "%s has no runs: the interaction function %s never returned while "
			 "recording: record longer, or check --interaction",
			 f->path, f->interaction);
	else if (m->repeat)
		snprintf(err, errlen,
			 "%s has no runs: no launch of the command completed: record again and let "
			 "the launches finish",
			 f->path);
	else
		snprintf(
			err, errlen,
			"%s has no runs: record with --interaction BINARY:SYMBOL (or --repeat N -- "
			"CMD) to mark what a run is",
			f->path);
}

int dataset__read_runs(struct dataset *ds, size_t fi, char *err, size_t errlen)
{
	struct dataset_file *f = &ds->files[fi];
	struct trace_reader *r = NULL;
	const struct xlp_trace_meta *m;
	struct pass1 p = {0};
	char why[256] = "";
	int ret;

	ret = trace_reader__open(f->path, &r, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", f->path, why[0] ? why : strerror(-ret));
		goto cleanup;
	}
	m = trace_reader__meta(r);
	f->info.features = m->features;
	f->info.boot_offset_ns = m->boot_offset_ns;
	if (!(f->host = strdup(m->host ? m->host : ""))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	f->info.host = f->host;
	ds->features &= m->features;
	ret = map_funcs(ds, f, m, err, errlen);
	ret = ret ? ret : read_records(r, &p, f, err, errlen);
	ret = ret ? ret : take_drops(ds, r, &p, f);
	if (ret)
		goto cleanup;
	f->info.nrecords = p.nrecords;
	if (!p.nrecords) {
		snprintf(err, errlen,
			 "%s is empty (no records): the recording stopped before anything was "
			 "traced; record again, long enough for at least one run",
			 f->path);
		ret = -ENODATA;
		goto cleanup;
	}
	ret = append_runs(ds, fi, &p);
	/* without the counts (a truncated file), the summarized runs read */
	if (!ret && !p.have_lag)
		ds->drops.lag_summarized += f->info.nsummary;
	if (!ret && !f->nruns) {
		no_runs(f, m, err, errlen);
		ret = -ENODATA;
	}
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory: analyse fewer or smaller traces",
			 f->path);
	trace_reader__close(r);
	free(p.cand);
	free(p.base);
	free(p.kev);
	dataset__sizes_free(&p.sizes);
	return ret;
}

/* The landmark of each run: from an index among its file's, a dataset function. */
static void set_landmarks(const struct dataset *ds, struct dataset_run *runs, size_t n,
			  const uint32_t *const *g)
{
	for (size_t i = 0; i < n; i++) {
		const struct dataset_file *f = &ds->files[runs[i].file];

		runs[i].landmark = runs[i].landmark < f->nlandmarks
					   ? g[runs[i].file][runs[i].landmark]
					   : DATASET_NO_FUNC;
	}
}

int dataset__intern_landmarks(struct dataset *ds)
{
	uint32_t **g = calloc(ds->nfiles + 1, sizeof(*g));
	int ret = -ENOMEM;

	if (!g)
		return -ENOMEM;
	for (size_t fi = 0; fi < ds->nfiles; fi++) {
		const struct dataset_file *f = &ds->files[fi];

		g[fi] = malloc(f->nlandmarks * sizeof(**g) + 1);
		if (!g[fi])
			goto cleanup;
		for (size_t k = 0; k < f->nlandmarks; k++) {
			int id = dataset__intern_func(ds, f->landmarks[k], f->landmark_bins[k]);

			if (id < 0)
				goto cleanup;
			ds->funcs[id].landmark = true;
			g[fi][k] = (uint32_t)id;
		}
	}
	set_landmarks(ds, ds->runs, ds->nruns, (const uint32_t *const *)g);
	set_landmarks(ds, ds->summ, ds->nsumm, (const uint32_t *const *)g);
	ret = 0;
cleanup:
	for (size_t fi = 0; fi < ds->nfiles; fi++)
		free(g[fi]);
	free(g);
	return ret;
}
