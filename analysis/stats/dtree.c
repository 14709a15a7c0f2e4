/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CART fit (PerfProbe ICDCS'19 section IV-B, "Decision tree details").
 * Each kept feature is sorted once; a node owns the same index range
 * [lo, hi) in every feature's order, and a split stably partitions those
 * ranges, so a level of the tree costs O(n) per feature.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dtree_impl.h"

typedef unsigned __int128 u128;

struct fit {
	const struct dtree_input *in;
	const struct dtree_params *p;
	struct dtree *t;
	size_t nkept;
	uint32_t *kept;		       /* feature ids not pruned, ascending */
	uint32_t *ord;		       /* nkept * n: sorted sample indices per kept feature */
	uint32_t *scratch;	       /* n */
	uint8_t *left;		       /* n: sample goes left in the split being applied */
	double *next_slow, *next_fast; /* n: first slow/fast value at or after k */
	struct dtree_cond path[64];
};

struct split {
	bool found;
	uint32_t kept_idx, feature;
	size_t nleft;
	double threshold, gap;
	bool slow_right;
	u128 score, den; /* weighted gini purity: score / den (see split_score) */
};

/*
 * Gini impurity of a split, up to constants: minimising
 * nL * gini(L) + nR * gini(R) is maximising
 * (sL^2 + fL^2) / nL + (sR^2 + fR^2) / nR = score / (nL * nR).
 * Integers keep equal gains exactly equal, so tie-breaking is stable.
 */
static void split_score(uint64_t sl, uint64_t fl, uint64_t sr, uint64_t fr, u128 *score, u128 *den)
{
	uint64_t nl = sl + fl, nr = sr + fr;

	*score = (u128)(sl * sl + fl * fl) * nr + (u128)(sr * sr + fr * fr) * nl;
	*den = (u128)nl * nr;
}

static bool better(const struct fit *c, const struct split *best, u128 score, u128 den, uint32_t f)
{
	u128 a, b;

	if (!best->found)
		return true;
	a = score * best->den;
	b = best->score * den;
	if (a != b)
		return a > b;
	/* equal gain: larger relative difference wins, then the earlier feature */
	return c->t->fs[f].reldiff > c->t->fs[best->feature].reldiff;
}

static void fill_next(const struct fit *c, const double *x, const uint32_t *o, size_t cnt)
{
	double ns = INFINITY, nf = INFINITY;

	for (size_t k = cnt; k-- > 0;) {
		if (c->in->slow[o[k]])
			ns = x[o[k]];
		else
			nf = x[o[k]];
		c->next_slow[k] = ns;
		c->next_fast[k] = nf;
	}
}

/* Scans the thresholds of one feature in one node, updating best. */
static void scan_feature(struct fit *c, uint32_t a, size_t lo, size_t hi, struct split *best)
{
	uint32_t f = c->kept[a];
	const double *x = c->in->x + (size_t)f * c->in->nsamples;
	const uint32_t *o = c->ord + (size_t)a * c->in->nsamples + lo;
	const struct dtree_feature *feat = c->in->feat ? &c->in->feat[f] : NULL;
	double min_mean = feat ? feat->min_slow_mean : 0;
	double min_gap = c->p->gap_frac * c->t->fs[f].range;
	double sum = 0, sum_l = 0, last_slow = -INFINITY, last_fast = -INFINITY;
	size_t cnt = hi - lo;
	uint64_t s = 0, sl = 0, fl = 0;
	u128 parent = 0;

	for (size_t k = 0; k < cnt; k++) {
		sum += x[o[k]];
		s += c->in->slow[o[k]];
	}
	parent = (u128)(s * s + (cnt - s) * (cnt - s));
	fill_next(c, x, o, cnt);
	for (size_t k = 0; k + 1 < cnt; k++) {
		double v = x[o[k]], vn = x[o[k + 1]], gap, side_mean;
		uint64_t nl = k + 1, nr = cnt - nl, sr, fr;
		bool slow_right;
		u128 score, den;

		if (c->in->slow[o[k]]) {
			sl++;
			last_slow = v;
		} else {
			fl++;
			last_fast = v;
		}
		sum_l += v;
		if (!(v < vn))
			continue; /* not a boundary between distinct values */
		sr = s - sl;
		fr = (cnt - s) - fl;
		split_score(sl, fl, sr, fr, &score, &den);
		if (score * cnt <= parent * den)
			continue; /* no gain */
		slow_right = sr * nl > sl * nr;
		/* closest slow/fast pair straddling the threshold, either way round */
		gap = fmin(c->next_slow[k + 1] - last_fast, c->next_fast[k + 1] - last_slow);
		if (gap < min_gap)
			continue;
		side_mean = slow_right ? (sum - sum_l) / (double)nr : sum_l / (double)nl;
		if (side_mean < min_mean)
			continue;
		if (!better(c, best, score, den, f))
			continue;
		*best = (struct split){.found = true,
				       .kept_idx = a,
				       .feature = f,
				       .nleft = nl,
				       .threshold = v + (vn - v) / 2,
				       .gap = gap,
				       .slow_right = slow_right,
				       .score = score,
				       .den = den};
	}
}

/* Moves the node's samples into [lo, lo + nleft) | [lo + nleft, hi) in every order. */
static void partition(struct fit *c, const struct split *sp, size_t lo, size_t hi)
{
	size_t n = c->in->nsamples;
	const uint32_t *o = c->ord + (size_t)sp->kept_idx * n;

	for (size_t k = lo; k < hi; k++)
		c->left[o[k]] = k < lo + sp->nleft;
	for (size_t a = 0; a < c->nkept; a++) {
		uint32_t *oa = c->ord + a * n;
		size_t l = lo, r = 0;

		for (size_t k = lo; k < hi; k++) {
			if (c->left[oa[k]])
				oa[l++] = oa[k];
			else
				c->scratch[r++] = oa[k];
		}
		memcpy(oa + l, c->scratch, r * sizeof(*oa));
	}
}

static int add_node(struct dtree *t, unsigned depth, uint32_t n, uint32_t nslow)
{
	if (t->nnodes == t->node_cap) {
		size_t cap = t->node_cap ? 2 * t->node_cap : 16;
		struct dtree_node *nn = realloc(t->nodes, cap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		t->nodes = nn;
		t->node_cap = cap;
	}
	t->nodes[t->nnodes] = (struct dtree_node){
		.feature = -1, .left = -1, .right = -1, .depth = depth, .n = n, .nslow = nslow};
	return (int)t->nnodes++;
}

static int add_path(struct fit *c, int leaf, unsigned depth)
{
	struct dtree *t = c->t;
	struct dtree_path *p;

	if (!depth)
		return 0; /* a root leaf explains nothing */
	if (t->npaths == t->path_cap) {
		size_t cap = t->path_cap ? 2 * t->path_cap : 8;
		struct dtree_path *np = realloc(t->paths, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		t->paths = np;
		t->path_cap = cap;
	}
	p = &t->paths[t->npaths];
	p->conds = malloc(depth * sizeof(*p->conds));
	if (!p->conds)
		return -ENOMEM;
	memcpy(p->conds, c->path, depth * sizeof(*p->conds));
	p->ncond = depth;
	p->leaf = (uint32_t)leaf;
	p->n = t->nodes[leaf].n;
	p->nslow = t->nodes[leaf].nslow;
	t->npaths++;
	return 0;
}

static uint32_t count_slow(const struct fit *c, size_t lo, size_t hi)
{
	uint32_t s = 0;

	/* any kept order lists the node's samples; without features, all of them */
	for (size_t k = lo; k < hi; k++)
		s += c->in->slow[c->nkept ? c->ord[k] : k];
	return s;
}

static int grow(struct fit *c, size_t lo, size_t hi, unsigned depth)
{
	uint32_t cnt = (uint32_t)(hi - lo), nslow = count_slow(c, lo, hi);
	struct split sp = {0};
	int node, l, r;

	node = add_node(c->t, depth, cnt, nslow);
	if (node < 0)
		return node;
	if (depth < c->p->max_depth && cnt >= c->p->min_samples && nslow && nslow < cnt)
		for (uint32_t a = 0; a < c->nkept; a++)
			scan_feature(c, a, lo, hi, &sp);
	if (!sp.found) {
		int err = 2 * nslow > cnt ? add_path(c, node, depth) : 0;

		return err < 0 ? err : node;
	}
	partition(c, &sp, lo, hi);
	c->t->nodes[node].feature = (int)sp.feature;
	c->t->nodes[node].threshold = sp.threshold;
	c->t->nodes[node].gap = sp.gap;
	c->t->nodes[node].slow_right = sp.slow_right;
	c->path[depth] = (struct dtree_cond){.node = (uint32_t)node,
					     .feature = sp.feature,
					     .gt = false,
					     .slow_side = !sp.slow_right,
					     .threshold = sp.threshold};
	l = grow(c, lo, lo + sp.nleft, depth + 1);
	if (l < 0)
		return l;
	c->path[depth].gt = true;
	c->path[depth].slow_side = sp.slow_right;
	r = grow(c, lo + sp.nleft, hi, depth + 1);
	if (r < 0)
		return r;
	c->t->nodes[node].left = l;
	c->t->nodes[node].right = r;
	return node;
}

static int prepare(struct fit *c)
{
	size_t n = c->in->nsamples, m = c->in->nfeatures;
	uint32_t *tmp_idx = malloc(2 * n * sizeof(*tmp_idx) + 1);
	uint64_t *tmp_key = malloc(2 * n * sizeof(*tmp_key) + 1);
	int err = 0;

	c->kept = malloc(m * sizeof(*c->kept) + 1);
	c->ord = malloc(m * n * sizeof(*c->ord) + 1);
	if (!tmp_idx || !tmp_key || !c->kept || !c->ord) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t f = 0; f < m; f++) {
		const struct dtree_feature *feat = c->in->feat ? &c->in->feat[f] : NULL;
		uint32_t *o = c->ord + c->nkept * n;

		dtree_presort(c->in->x + f * n, n, o, tmp_idx, tmp_key);
		dtree_feat_prepare(c->in->x + f * n, c->in->slow, o, n, feat, c->p->alpha,
				   &c->t->fs[f]);
		if (c->t->fs[f].pruned == DTREE_KEPT)
			c->kept[c->nkept++] = (uint32_t)f;
	}
cleanup:
	free(tmp_idx);
	free(tmp_key);
	return err;
}

static void fit_cleanup(struct fit *c)
{
	free(c->kept);
	free(c->ord);
	free(c->scratch);
	free(c->left);
	free(c->next_slow);
	free(c->next_fast);
}

int dtree__fit(const struct dtree_input *in, const struct dtree_params *p, struct dtree **out)
{
	size_t n = in->nsamples;
	struct fit c = {.in = in, .p = p};
	struct dtree *t = NULL;
	int err;

	*out = NULL;
	if (!in->x && n && in->nfeatures)
		return -EINVAL;
	if (n > UINT32_MAX / 2 || p->max_depth >= sizeof(c.path) / sizeof(c.path[0]))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	c.t = t;
	t->n = n;
	t->m = in->nfeatures;
	t->fs = calloc(t->m + 1, sizeof(*t->fs));
	c.scratch = malloc(n * sizeof(*c.scratch) + 1);
	c.left = malloc(n + 1);
	c.next_slow = malloc(n * sizeof(double) + 1);
	c.next_fast = malloc(n * sizeof(double) + 1);
	if (!t->fs || !c.scratch || !c.left || !c.next_slow || !c.next_fast) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = prepare(&c);
	if (err)
		goto cleanup;
	err = grow(&c, 0, n, 0);
	if (err < 0)
		goto cleanup;
	err = 0;
	*out = t;
	t = NULL;
cleanup:
	fit_cleanup(&c);
	dtree__free(t);
	return err;
}
