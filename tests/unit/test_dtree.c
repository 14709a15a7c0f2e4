/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CART unit tests on hand-made data (analysis/stats/dtree.c). */
#include <stdint.h>
#include "testlib.h"
#include "dtree.h"

#define N_MAX 512
#define M_MAX 8

struct data {
	size_t n, m;
	double x[M_MAX * N_MAX];
	uint8_t slow[N_MAX];
	struct dtree_feature feat[M_MAX];
};

static uint64_t rng_state;

static double rnd(void)
{
	return tl_rnd01(&rng_state);
}

static double *col(struct data *d, size_t f)
{
	return d->x + f * d->n;
}

static struct dtree *fit(struct data *d, const struct dtree_params *p)
{
	struct dtree_input in = {
		.nsamples = d->n, .nfeatures = d->m, .x = d->x, .slow = d->slow, .feat = d->feat};
	struct dtree_params def = DTREE_PARAMS_DEFAULT;
	struct dtree *t = NULL;
	int err = dtree__fit(&in, p ? p : &def, &t);

	CHECK(!err && t, "dtree__fit: %d", err);
	return t;
}

/* t = the tree fit to d (params p, or the defaults); the test ends when none is */
#define FIT(t, d, p)                                                                               \
	do {                                                                                       \
		(t) = fit(d, p);                                                                   \
		REQUIRE(t, "no tree");                                                             \
	} while (0)

/* The number of nodes of the tree fit to d; 0 after a failed check. */
static size_t fit_nodes(struct data *d, const struct dtree_params *p)
{
	struct dtree *t = fit(d, p);
	size_t n = t ? dtree__nnodes(t) : 0;

	CHECK(t, "fit failed");
	dtree__free(t);
	return n;
}

/* Feature f of 40 samples: slow ones (every 4th) in [30, 40), fast in [10, 20). */
static void perfect_column(struct data *d, size_t f)
{
	for (size_t i = 0; i < d->n; i++)
		col(d, f)[i] = d->slow[i] ? 30 + 10 * rnd() : 10 + 10 * rnd();
}

static void noise_column(struct data *d, size_t f, double lo, double hi)
{
	for (size_t i = 0; i < d->n; i++)
		col(d, f)[i] = lo + (hi - lo) * rnd();
}

static void init(struct data *d, size_t n, size_t m, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->n = n;
	d->m = m;
	rng_state = seed;
	for (size_t i = 0; i < n; i++)
		d->slow[i] = i % 4 == 0;
}

TEST(perfect_single_feature_split)
{
	static struct data d;
	struct dtree *t;
	const struct dtree_node *root;
	const struct dtree_path *p;

	init(&d, 40, 3, 1);
	noise_column(&d, 0, 0, 50);
	perfect_column(&d, 1);
	noise_column(&d, 2, 5, 6);
	FIT(t, &d, NULL);
	root = dtree__node(t, 0);
	CHECK(root->feature == 1, "root splits on %d", root->feature);
	CHECK(root->threshold > 19 && root->threshold < 31, "threshold %g", root->threshold);
	CHECK(root->slow_right, "-");
	CHECK(dtree__nnodes(t) == 3, "%zu nodes", dtree__nnodes(t));
	REQUIRE(dtree__npaths(t) == 1, "%zu paths", dtree__npaths(t));
	p = dtree__path(t, 0);
	CHECK(p->ncond == 1 && p->conds[0].feature == 1 && p->conds[0].gt && p->conds[0].slow_side,
	      "-");
	CHECK(p->n == 10 && p->nslow == 10, "leaf %u/%u", p->nslow, p->n);
	dtree__free(t);
}

/*
 * PerfProbe's Vine example (Fig. 4): a run is slow only when both
 * recvfromBytes (f0) and SSL_read (f1) take long; either alone is not.
 */
TEST(conjunction_of_two_features)
{
	static struct data d;
	struct dtree *t;
	const struct dtree_path *p;
	int seen[2] = {0, 0};

	init(&d, 80, 3, 2);
	for (size_t i = 0; i < d.n; i++) {
		bool a = i % 2, b = (i / 2) % 2;

		col(&d, 0)[i] = a ? 40 + 5 * rnd() : 10 + 5 * rnd();
		col(&d, 1)[i] = b ? 200 + 20 * rnd() : 50 + 20 * rnd();
		col(&d, 2)[i] = 5 * rnd();
		d.slow[i] = a && b;
	}
	FIT(t, &d, NULL);
	REQUIRE(dtree__npaths(t) == 1, "%zu paths", dtree__npaths(t));
	p = dtree__path(t, 0);
	REQUIRE(p->ncond == 2, "%zu conditions", p->ncond);
	for (size_t k = 0; k < 2; k++) {
		CHECK(p->conds[k].gt && p->conds[k].slow_side, "-");
		if (p->conds[k].feature < 2)
			seen[p->conds[k].feature]++;
	}
	CHECK(seen[0] == 1 && seen[1] == 1, "features on the path: %d %d", seen[0], seen[1]);
	CHECK(p->nslow == 20 && p->n == 20, "leaf %u/%u", p->nslow, p->n);
	dtree__free(t);
}

TEST(alpha_pruning)
{
	static struct data d;
	struct dtree *t;

	init(&d, 200, 4, 3);
	/* f0: slow runs 3 higher on a 0..100 spread: 3 < 0.1 * ~90 */
	for (size_t i = 0; i < d.n; i++)
		col(&d, 0)[i] = 100 * rnd() + (d.slow[i] ? 3 : 0);
	/* f1: separates perfectly but lower in slow runs; slow-when-high: pruned */
	for (size_t i = 0; i < d.n; i++)
		col(&d, 1)[i] = d.slow[i] ? 1 + rnd() : 10 + rnd();
	/* f2: the same values but declared slow-when-low (like CPU frequency): kept */
	memcpy(col(&d, 2), col(&d, 1), d.n * sizeof(double));
	d.feat[2].dir = DTREE_LOW;
	noise_column(&d, 3, 7, 7); /* constant */
	FIT(t, &d, NULL);
	CHECK(dtree__feat_stats(t, 0)->pruned == DTREE_PRUNED_ALPHA, "-");
	CHECK(dtree__feat_stats(t, 1)->pruned == DTREE_PRUNED_ALPHA, "-");
	CHECK(dtree__feat_stats(t, 2)->pruned == DTREE_KEPT, "-");
	CHECK(dtree__feat_stats(t, 3)->pruned == DTREE_PRUNED_CONSTANT, "-");
	CHECK(dtree__node(t, 0)->feature == 2, "root on %d", dtree__node(t, 0)->feature);
	CHECK(!dtree__node(t, 0)->slow_right, "slow side must be <=");
	REQUIRE(dtree__npaths(t) == 1, "-");
	CHECK(!dtree__path(t, 0)->conds[0].gt && dtree__path(t, 0)->conds[0].slow_side, "-");
	dtree__free(t);
}

/* A feature that is non-zero only in the few slow runs is not "constant". */
TEST(rare_feature_not_pruned_as_constant)
{
	static struct data d;
	struct dtree *t;

	init(&d, 100, 1, 4);
	/* the first 3 runs slow, and only those with the feature */
	memset(d.slow, 0, d.n * sizeof(d.slow[0]));
	d.slow[0] = d.slow[1] = d.slow[2] = 1;
	for (size_t i = 0; i < d.n; i++)
		col(&d, 0)[i] = d.slow[i] ? 50 : 0;
	FIT(t, &d, NULL);
	CHECK(dtree__feat_stats(t, 0)->pruned == DTREE_KEPT, "-");
	CHECK(dtree__npaths(t) == 1, "-");
	dtree__free(t);
}

TEST(tie_larger_relative_difference_wins)
{
	static struct data d;
	struct dtree *t;

	init(&d, 40, 2, 5);
	/* both separate perfectly (equal gain); f1's classes are further apart
	 * relative to its spread, so f1 wins although its index is higher */
	for (size_t i = 0; i < d.n; i++) {
		col(&d, 0)[i] = d.slow[i] ? 20 + 10 * rnd() : 10 * rnd();
		col(&d, 1)[i] = d.slow[i] ? 100 + rnd() : rnd();
	}
	FIT(t, &d, NULL);
	CHECK(dtree__feat_stats(t, 1)->reldiff > dtree__feat_stats(t, 0)->reldiff, "-");
	CHECK(dtree__node(t, 0)->feature == 1, "root on %d", dtree__node(t, 0)->feature);
	dtree__free(t);
}

TEST(tie_fully_equal_lower_index_wins)
{
	static struct data d;
	struct dtree *t;

	init(&d, 40, 3, 6);
	noise_column(&d, 0, 0, 1);
	perfect_column(&d, 1);
	memcpy(col(&d, 2), col(&d, 1), d.n * sizeof(double));
	FIT(t, &d, NULL);
	CHECK(dtree__node(t, 0)->feature == 1, "root on %d", dtree__node(t, 0)->feature);
	dtree__free(t);
}

/*
 * The trees fit to a and to b, serialized (names: the features'), are the
 * same to the byte: the first's text (free it), NULL after a failed check.
 */
static char *same_trees(struct data *a, struct data *b, const char *const *names)
{
	struct dtree *t1 = fit(a, NULL), *t2 = fit(b, NULL);
	char *s1 = t1 ? dtree__serialize(t1, names) : NULL;
	char *s2 = t2 ? dtree__serialize(t2, names) : NULL;

	CHECK(s1 && s2, "no tree or no text");
	CHECK(s1 && s2 && strlen(s1) == strlen(s2) && !memcmp(s1, s2, strlen(s1)), "\n%s---\n%s",
	      s1, s2);
	free(s2);
	dtree__free(t1);
	dtree__free(t2);
	return s1;
}

/* Shuffling the samples must not change the tree (text form compared). */
TEST(sample_order_independent)
{
	static struct data d, e;

	init(&d, 120, 3, 7);
	for (size_t i = 0; i < d.n; i++) {
		bool a = rnd() < 0.5, b = rnd() < 0.5;

		col(&d, 0)[i] =
			a ? 40 + (double)(i % 5) : 10 + (double)(i % 3); /* many equal values */
		col(&d, 1)[i] = b ? 200 + 20 * rnd() : 50 + 20 * rnd();
		col(&d, 2)[i] = (double)(i % 7);
		d.slow[i] = (a && b) || i % 17 == 0;
	}
	e = d;
	for (size_t i = 0; i < d.n; i++) { /* e = d reversed and rotated */
		size_t j = (d.n - 1 - i + 37) % d.n;

		for (size_t f = 0; f < d.m; f++)
			e.x[f * e.n + j] = d.x[f * d.n + i];
		e.slow[j] = d.slow[i];
	}
	free(same_trees(&d, &e, NULL));
}

/* Slow only when three features are all high: needs depth 3. */
static void three_way(struct data *d)
{
	init(d, 160, 3, 8);
	for (size_t i = 0; i < d->n; i++) {
		bool a = i % 2, b = (i / 2) % 2, c = (i / 4) % 2;

		col(d, 0)[i] = a ? 40 + rnd() : 10 + rnd();
		col(d, 1)[i] = b ? 40 + rnd() : 10 + rnd();
		col(d, 2)[i] = c ? 40 + rnd() : 10 + rnd();
		d->slow[i] = a && b && c;
	}
}

TEST(depth_stop)
{
	static struct data d;
	struct dtree_params p = DTREE_PARAMS_DEFAULT;
	struct dtree *t;
	unsigned maxd = 0;

	three_way(&d);
	FIT(t, &d, NULL);
	CHECK(dtree__npaths(t) == 1 && dtree__path(t, 0)->ncond == 3, "-");
	dtree__free(t);

	p.max_depth = 2;
	FIT(t, &d, &p);
	for (size_t i = 0; i < dtree__nnodes(t); i++)
		if (dtree__node(t, i)->depth > maxd)
			maxd = dtree__node(t, i)->depth;
	CHECK(maxd == 2, "max depth %u", maxd);
	/* at depth 2 the best leaf holds 20 slow of 40: not majority slow */
	CHECK(dtree__npaths(t) == 0, "%zu paths", dtree__npaths(t));
	dtree__free(t);
}

TEST(min_samples_stop)
{
	static struct data d;
	struct dtree_params p = DTREE_PARAMS_DEFAULT;
	struct dtree *t;

	three_way(&d);
	p.min_samples = 41; /* the depth-2 nodes hold 40 samples: not split */
	FIT(t, &d, &p);
	for (size_t i = 0; i < dtree__nnodes(t); i++) {
		const struct dtree_node *nd = dtree__node(t, i);

		CHECK(nd->feature < 0 || nd->n >= 41, "node %zu with %u samples split", i, nd->n);
	}
	CHECK(dtree__nnodes(t) == 5, "%zu nodes", dtree__nnodes(t));
	dtree__free(t);

	p.min_samples = 161;
	FIT(t, &d, &p);
	CHECK(dtree__nnodes(t) == 1 && dtree__npaths(t) == 0, "-");
	dtree__free(t);
}

TEST(gap_not_significant)
{
	static struct data d;
	struct dtree_params p = DTREE_PARAMS_DEFAULT;
	struct dtree *t;
	size_t n;

	/*
	 * Values 0..39, labels alternating: around every threshold a slow and
	 * a fast sample lie 1 apart, below 5 % of the range (~35). Splits like
	 * the one peeling off {39} gain a little gini but are not significant.
	 */
	init(&d, 40, 1, 9);
	for (size_t i = 0; i < d.n; i++) {
		col(&d, 0)[i] = (double)i;
		d.slow[i] = i % 2;
	}
	p.alpha = 0; /* the classes' means are close: test the gap rule alone */
	FIT(t, &d, &p);
	CHECK(dtree__feat_stats(t, 0)->pruned == DTREE_KEPT, "-");
	CHECK(dtree__nnodes(t) == 1, "%zu nodes: split with a gap of 1", dtree__nnodes(t));
	dtree__free(t);
	p.gap_frac = 0; /* without the rule the same data is split */
	n = fit_nodes(&d, &p);
	CHECK(n > 1, "%zu nodes", n);
}

TEST(insignificant_slow_side_mean)
{
	static struct data d;
	size_t n;

	init(&d, 40, 1, 10);
	perfect_column(&d, 0);
	d.feat[0].min_slow_mean = 50; /* slow side mean ~35 */
	n = fit_nodes(&d, NULL);
	CHECK(n == 1, "-");
	d.feat[0].min_slow_mean = 30;
	n = fit_nodes(&d, NULL);
	CHECK(n == 3, "-");
}

TEST(disabled_feature_never_used)
{
	static struct data d;
	struct dtree *t;

	init(&d, 40, 2, 11);
	perfect_column(&d, 0);
	noise_column(&d, 1, 0, 1);
	d.feat[0].disabled = true;
	FIT(t, &d, NULL);
	CHECK(dtree__feat_stats(t, 0)->pruned == DTREE_PRUNED_DISABLED, "-");
	CHECK(dtree__node(t, 0)->feature != 0, "-");
	dtree__free(t);
}

TEST(identical_input_identical_output)
{
	static struct data d;
	const char *names[] = {"recvfromBytes", "SSL_read", "noise"};
	char *s1;

	init(&d, 300, 3, 12);
	for (size_t i = 0; i < d.n; i++) {
		bool a = rnd() < 0.4, b = rnd() < 0.5;

		col(&d, 0)[i] = (a ? 40 : 10) + 8 * rnd();
		col(&d, 1)[i] = (b ? 200 : 50) + 60 * rnd();
		col(&d, 2)[i] = rnd();
		d.slow[i] = (a && b) != (rnd() < 0.05);
	}
	s1 = same_trees(&d, &d, names);
	CHECK(s1 && strstr(s1, "recvfromBytes") && strstr(s1, "path "), "%s", s1);
	free(s1);
}

TEST(one_class_only)
{
	static struct data d;
	struct dtree *t;

	init(&d, 20, 1, 13);
	memset(d.slow, 0, sizeof(d.slow));
	noise_column(&d, 0, 0, 1);
	FIT(t, &d, NULL);
	CHECK(dtree__nnodes(t) == 1 && dtree__npaths(t) == 0, "-");
	CHECK(dtree__feat_stats(t, 0)->pruned == DTREE_PRUNED_ONE_CLASS, "-");
	dtree__free(t);
}

TEST_MAIN()
