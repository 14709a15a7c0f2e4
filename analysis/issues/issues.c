/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Lags grouped into issues across sessions, hosts and builds: issues.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis.h"
#include "dataset.h"
#include "demangle.h"
#include "issues.h"
#include "stats.h"
#include "util.h"

struct issues {
	double lag_ns;
	struct issues_session *sess;
	size_t nsess, sess_cap;
	struct issues_run *runs;
	size_t nruns, runs_cap;
	struct issues_issue *iss;
	size_t niss, iss_cap;
};

/* the fingerprint's hash (docs/issues.md: FNV-1a 64, each name then 0xff) */
#define fnv xlp_fnv1a_str

void issues__fingerprint(const char *landmark_binary, const char *landmark, const char *binary,
			 const char *function, const char *factor, char out[17])
{
	uint64_t h = XLP_FNV_OFFSET;

	h = fnv(h, XLP_ISSUE_SCHEME);
	h = fnv(h, landmark_binary);
	h = fnv(h, landmark);
	h = fnv(h, binary);
	h = fnv(h, function);
	h = fnv(h, factor);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int issues__new(double lag_ns, struct issues **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->lag_ns = lag_ns;
	return 0;
}

static void free_issue(struct issues_issue *i)
{
	free(i->landmark_binary);
	free(i->landmark);
	free(i->binary);
	free(i->function);
	free(i->factor);
	free(i->landmark_symbol);
	free(i->symbol);
}

void issues__free(struct issues *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsess; i++) {
		free(s->sess[i].path);
		free(s->sess[i].host);
		free(s->sess[i].build_id);
	}
	for (size_t i = 0; i < s->niss; i++)
		free_issue(&s->iss[i]);
	free(s->sess);
	free(s->runs);
	free(s->iss);
	free(s);
}

struct culprit {
	const char *binary, *function, *factor;
	const char *name; /* function as printed (demangled) */
};

/*
 * The run's largest time resource, from its thread's counters; sleeps only
 * (a step-2 factor sleep_s or sleep_d): the largest reason, so that the
 * same wait has one name in every session.
 */
static const char *run_factor(const struct dataset_run *r, bool sleeps)
{
	double f[DIAGNOSIS_NFEAT], best = 0;
	const char *name = "time";

	if (!r->has_own && !r->has_base)
		return name;
	diagnosis__ctr_features(r->has_own ? r->own : r->base, f);
	for (int k = 0; k < DIAGNOSIS_NFEAT; k++) {
		/* the sleeps' totals are made of the reasons; a frequency is no time */
		if (k == DIAGNOSIS_SLEEP_S || k == DIAGNOSIS_SLEEP_D || k == DIAGNOSIS_CPU_FREQ)
			continue;
		if (sleeps && (k < DIAGNOSIS_DISK || k > DIAGNOSIS_OTHER))
			continue;
		if (f[k] > best) {
			best = f[k];
			name = diagnosis__feat_name((enum diagnosis_feat)k);
		}
	}
	return name;
}

static struct culprit culprit_of(const struct dataset *ds, const struct diagnosis *res, size_t run)
{
	const struct dataset_run *r = dataset__run(ds, run);
	struct culprit c = {"", XLP_ISSUE_WHOLE_RUN, NULL, XLP_ISSUE_WHOLE_RUN};
	double best = INFINITY;

	for (size_t k = 0; k < res->ncrit; k++) {
		const struct diagnosis_critical *x = &res->crit[k];
		double t = (double)dataset__time(ds, run, x->func);

		if (x->gt && t > x->threshold_ns) {
			enum diagnosis_feat f =
				x->s2.nfactors ? x->s2.factors[0].feat : DIAGNOSIS_NFEAT;

			c.binary = dataset__func(ds, x->func)->binary;
			c.function = dataset__func(ds, x->func)->symbol;
			c.name = dataset__func(ds, x->func)->name;
			c.factor = f == DIAGNOSIS_SLEEP_S || f == DIAGNOSIS_SLEEP_D
					   ? run_factor(r, true)
				   : f < DIAGNOSIS_NFEAT ? diagnosis__feat_name(f)
							 : "time";
			return c;
		}
	}
	if (res->status == DIAGNOSIS_NO_PRECOND && res->fallback.holds) {
		enum diagnosis_feat f = res->fallback.feat;

		c.factor = f == DIAGNOSIS_SLEEP_S || f == DIAGNOSIS_SLEEP_D
				   ? run_factor(r, true)
				   : diagnosis__feat_name(f);
		return c;
	}
	/* the deepest function holding half the run: the one with least time */
	for (size_t f = 0; f < dataset__nfuncs(ds); f++) {
		const struct dataset_func *fn = dataset__func(ds, f);
		double t = (double)dataset__time(ds, run, f);

		if (fn->root || fn->runtime || t < r->latency_ns / 2 || t >= best)
			continue;
		best = t;
		c.binary = fn->binary;
		c.function = fn->symbol;
		c.name = fn->name;
	}
	c.factor = run_factor(r, false);
	return c;
}

/* lmk: the run's landmark (record -i several times), DATASET_NO_FUNC: the file's first */
static int32_t issue_of(struct issues *s, const struct dataset *ds,
			const struct dataset_file_info *fi, uint32_t lmk, struct culprit c)
{
	bool own = lmk != DATASET_NO_FUNC && lmk < dataset__nfuncs(ds);
	const char *lb = own		       ? dataset__func(ds, lmk)->binary
			 : fi->landmark_binary ? fi->landmark_binary
					       : "";
	const char *lm = own		   ? dataset__func(ds, lmk)->symbol
			 : fi->interaction ? fi->interaction
					   : "[launch]";
	struct issues_issue *i;
	char fp[17];

	/* of the symbols, not of their demangled forms: a demangler's
	 * spelling may change between versions, an issue's id must not */
	issues__fingerprint(lb, lm, c.binary, c.function, c.factor, fp);
	for (size_t k = 0; k < s->niss; k++)
		if (!strcmp(s->iss[k].fingerprint, fp))
			return (int32_t)k;
	if (xlp_grow((void **)&s->iss, &s->iss_cap, s->niss, sizeof(*s->iss)))
		return -ENOMEM;
	i = &s->iss[s->niss];
	memset(i, 0, sizeof(*i));
	memcpy(i->fingerprint, fp, sizeof(fp));
	i->landmark_binary = strdup(lb);
	i->landmark_symbol = strdup(lm);
	i->landmark = demangle__dup(lm);
	i->binary = strdup(c.binary);
	i->symbol = strdup(c.function);
	i->function = strdup(c.name);
	i->factor = strdup(c.factor);
	if (!i->landmark_binary || !i->landmark_symbol || !i->landmark || !i->binary ||
	    !i->symbol || !i->function || !i->factor) {
		free_issue(i);
		return -ENOMEM;
	}
	return (int32_t)s->niss++;
}

static int add_session(struct issues *s, const char *path, const struct dataset_file_info *fi)
{
	struct issues_session *x;

	if (xlp_grow((void **)&s->sess, &s->sess_cap, s->nsess, sizeof(*s->sess)))
		return -ENOMEM;
	x = &s->sess[s->nsess];
	memset(x, 0, sizeof(*x));
	x->path = strdup(path);
	x->host = strdup(fi->host ? fi->host : "");
	x->build_id = strdup(fi->build_id ? fi->build_id : "");
	if (!x->path || !x->host || !x->build_id) {
		free(x->path);
		free(x->host);
		free(x->build_id);
		return -ENOMEM;
	}
	s->nsess++;
	return 0;
}

static int add_runs(struct issues *s, const struct dataset *ds, const struct diagnosis *res)
{
	struct issues_session *x = &s->sess[s->nsess - 1];
	const struct dataset_file_info *fi = dataset__file(ds, 0);

	for (size_t i = 0; i < dataset__nruns(ds); i++) {
		const struct dataset_run *r = dataset__run(ds, i);
		struct issues_run *o;
		int32_t k = -1;

		if (r->latency_ns >= x->lag_ns) {
			k = issue_of(s, ds, fi, r->landmark, culprit_of(ds, res, i));
			if (k < 0)
				return k;
			x->lags++;
		}
		if (xlp_grow((void **)&s->runs, &s->runs_cap, s->nruns, sizeof(*s->runs)))
			return -ENOMEM;
		o = &s->runs[s->nruns++];
		*o = (struct issues_run){.session = (uint32_t)(s->nsess - 1),
					 .run = (uint32_t)(i + 1),
					 .latency_ns = r->latency_ns,
					 .wall_ns = fi->boot_offset_ns + (int64_t)r->start_ns,
					 .issue = k};
		x->runs++;
	}
	/* record --lag: the runs it summarized were counted and timed, and did not lag */
	x->runs += dataset__summary_runs(ds, NULL);
	return 0;
}

int issues__add(struct issues *s, const char *path, char *err, size_t errlen)
{
	struct diagnosis_opts o = DIAGNOSIS_OPTS_DEFAULT;
	const char *paths[] = {path};
	struct diagnosis *res = NULL;
	struct dataset *ds = NULL;
	int ret;

	double lag;

	ret = dataset__load(paths, 1, NULL, &ds, err, errlen);
	if (ret)
		return ret;
	/*
	 * The trace's own lag unless one is given: four sessions recorded
	 * with --lag 60ms (lags of 70-90 ms) gave "0 issues" at the default
	 * 100 ms
	 */
	lag = s->lag_ns > 0			 ? s->lag_ns
	      : dataset__file(ds, 0)->lag_ns > 0 ? (double)dataset__file(ds, 0)->lag_ns
						 : ISSUES_DEFAULT_LAG_NS;
	/* slow: the runs a person perceives, at or past the lag threshold */
	o.rule = (struct labels_rule){.kind = LABELS_FIXED, .threshold_ns = lag - 1};
	ret = diagnosis__run(ds, &o, &res, err, errlen);
	if (!ret)
		ret = add_session(s, path, dataset__file(ds, 0));
	if (!ret)
		s->sess[s->nsess - 1].lag_ns = lag;
	if (!ret)
		ret = add_runs(s, ds, res);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory: give fewer or smaller traces");
	diagnosis__free(res);
	dataset__free(ds);
	return ret;
}

static bool seen_before(const struct issues *s, const uint8_t *mark, size_t sess,
			const char *(*key)(const struct issues_session *))
{
	for (size_t j = 0; j < sess; j++)
		if (mark[j] && !strcmp(key(&s->sess[j]), key(&s->sess[sess])))
			return true;
	return false;
}

static const char *host_of(const struct issues_session *x)
{
	return x->host;
}

static const char *build_of(const struct issues_session *x)
{
	return x->build_id;
}

static int stats_of(struct issues *s, size_t k, double *lat, uint8_t *mark)
{
	struct issues_issue *i = &s->iss[k];
	size_t n = 0;

	memset(mark, 0, s->nsess);
	i->first_ns = INT64_MAX;
	i->last_ns = INT64_MIN;
	for (size_t r = 0; r < s->nruns; r++) {
		const struct issues_run *x = &s->runs[r];

		if (x->issue != (int32_t)k)
			continue;
		lat[n++] = x->latency_ns;
		mark[x->session] = 1;
		i->impact_ns += x->latency_ns;
		if (x->wall_ns < i->first_ns)
			i->first_ns = x->wall_ns;
		if (x->wall_ns > i->last_ns)
			i->last_ns = x->wall_ns;
	}
	i->runs = n;
	stats__sort(lat, n);
	i->p50_ns = stats__quantile_sorted(lat, n, 0.5);
	i->p95_ns = stats__quantile_sorted(lat, n, 0.95);
	i->max_ns = n ? lat[n - 1] : 0;
	for (size_t j = 0; j < s->nsess; j++) {
		i->sessions += mark[j];
		i->hosts += mark[j] && !seen_before(s, mark, j, host_of);
		i->builds +=
			mark[j] && s->sess[j].build_id[0] && !seen_before(s, mark, j, build_of);
	}
	return 0;
}

/* The issue's longest lags (ties: the earlier session and run). */
static void examples_of(struct issues *s, size_t k)
{
	struct issues_issue *i = &s->iss[k];
	double top[XLP_ISSUE_EXAMPLES];

	i->nexamples = 0;
	for (size_t r = 0; r < s->nruns; r++) {
		const struct issues_run *x = &s->runs[r];
		size_t at = i->nexamples;

		if (x->issue != (int32_t)k)
			continue;
		while (at > 0 && top[at - 1] < x->latency_ns)
			at--;
		if (at >= XLP_ISSUE_EXAMPLES)
			continue;
		if (i->nexamples < XLP_ISSUE_EXAMPLES)
			i->nexamples++;
		for (size_t j = i->nexamples - 1; j > at; j--) {
			top[j] = top[j - 1];
			i->examples[j] = i->examples[j - 1];
		}
		top[at] = x->latency_ns;
		i->examples[at].session = x->session;
		i->examples[at].run = x->run;
	}
}

static int cmp_impact(const void *a, const void *b)
{
	const struct issues_issue *x = a, *y = b;

	if (x->impact_ns != y->impact_ns)
		return x->impact_ns > y->impact_ns ? -1 : 1;
	return strcmp(x->fingerprint, y->fingerprint);
}

int issues__finish(struct issues *s)
{
	double *lat = malloc(s->nruns * sizeof(*lat) + 1);
	uint8_t *mark = malloc(s->nsess + 1);
	int32_t *to = malloc(s->niss * sizeof(*to) + 1);
	char(*fp)[17] = malloc(s->niss * sizeof(*fp) + 1);
	int ret = lat && mark && to && fp ? 0 : -ENOMEM;

	for (size_t k = 0; !ret && k < s->niss; k++) {
		ret = stats_of(s, k, lat, mark);
		examples_of(s, k);
		memcpy(fp[k], s->iss[k].fingerprint, 17);
	}
	if (!ret) {
		qsort(s->iss, s->niss, sizeof(*s->iss), cmp_impact);
		for (size_t k = 0; k < s->niss; k++)
			for (size_t j = 0; j < s->niss; j++)
				if (!strcmp(fp[k], s->iss[j].fingerprint))
					to[k] = (int32_t)j;
		for (size_t r = 0; r < s->nruns; r++)
			if (s->runs[r].issue >= 0)
				s->runs[r].issue = to[s->runs[r].issue];
	}
	free(lat);
	free(mark);
	free(to);
	free(fp);
	return ret;
}

double issues__lag_ns(const struct issues *s)
{
	if (s->lag_ns > 0)
		return s->lag_ns;
	for (size_t i = 1; i < s->nsess; i++)
		if (s->sess[i].lag_ns != s->sess[0].lag_ns)
			return NAN;
	return s->nsess ? s->sess[0].lag_ns : ISSUES_DEFAULT_LAG_NS;
}

size_t issues__n(const struct issues *s)
{
	return s->niss;
}

const struct issues_issue *issues__get(const struct issues *s, size_t i)
{
	return &s->iss[i];
}

size_t issues__nsessions(const struct issues *s)
{
	return s->nsess;
}

const struct issues_session *issues__session(const struct issues *s, size_t i)
{
	return &s->sess[i];
}

size_t issues__nruns(const struct issues *s)
{
	return s->nruns;
}

const struct issues_run *issues__run(const struct issues *s, size_t i)
{
	return &s->runs[i];
}
