/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CART decision tree on a binary label (slow / fast), as PerfProbe uses it
 * in both steps of its diagnosis (ICDCS'19 section IV-B and IV-C):
 *   - features first pruned by relative difference: prune f when
 *     (m_slow - m_fast) < alpha * (p95 - p5);
 *   - gini impurity, best split over the midpoints between sorted distinct
 *     values; a split may send the slow runs to either side;
 *   - equal gain: the larger relative difference wins, then the lower
 *     feature index, then the lower threshold;
 *   - stops: max depth, fewer than min_samples samples, pure node, and a
 *     split is only admissible when its gap (smallest distance between a
 *     slow and a fast sample lying on opposite sides of the threshold) is
 *     at least gap_frac of the feature's range, and the mean of the feature
 *     on the slow side is at least the feature's min_slow_mean.
 * Fully deterministic: gains are compared exactly in integer arithmetic and
 * no result depends on the order of the samples.
 */
#ifndef XLP_DTREE_H
#define XLP_DTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which difference the pruning rule asks for. */
enum dtree_dir {
	DTREE_HIGH = 0, /* slow when high (times): m_slow - m_fast */
	DTREE_LOW,	/* slow when low (CPU frequency): m_fast - m_slow */
	DTREE_ANY,	/* |m_slow - m_fast| */
};

struct dtree_feature {
	enum dtree_dir dir;
	double min_slow_mean; /* significance: 0 for no check */
	bool disabled;	      /* not measured: never split on, reported as unavailable */
};

struct dtree_input {
	size_t nsamples, nfeatures;
	const double *x;		  /* column-major: x[f * nsamples + i] */
	const uint8_t *slow;		  /* label of sample i: 1 slow, 0 fast */
	const struct dtree_feature *feat; /* NULL: every feature DTREE_HIGH, no check */
};

struct dtree_params {
	unsigned max_depth;   /* splits on a root-to-leaf path */
	unsigned min_samples; /* nodes with fewer samples are not split */
	double alpha;	      /* pruning factor */
	double gap_frac;      /* required split gap, fraction of the feature's range */
};

#define DTREE_PARAMS_DEFAULT                                                                       \
	{                                                                                          \
		.max_depth = 4, .min_samples = 4, .alpha = 0.1, .gap_frac = 0.05                   \
	}

enum dtree_prune {
	DTREE_KEPT = 0,
	DTREE_PRUNED_ALPHA,	/* relative difference below alpha */
	DTREE_PRUNED_CONSTANT,	/* no spread at all */
	DTREE_PRUNED_DISABLED,	/* feature not available */
	DTREE_PRUNED_ONE_CLASS, /* no slow or no fast sample: nothing to compare */
};

struct dtree_feat_stats {
	double m_slow, m_fast; /* means over slow / fast samples */
	double p5, p95;
	double range;	/* p95 - p5, or max - min when those are equal */
	double reldiff; /* signed difference (per direction) / range */
	enum dtree_prune pruned;
};

struct dtree_node {
	int feature;	  /* -1: leaf */
	double threshold; /* value <= threshold: left child, > threshold: right */
	int left, right;  /* node indices, -1 for a leaf */
	unsigned depth;
	uint32_t n, nslow;
	bool slow_right; /* right child has the higher slow fraction */
	double gap;	 /* split gap (see above) */
};

/* One test on a root-to-leaf path. */
struct dtree_cond {
	uint32_t node;
	uint32_t feature;
	bool gt;	/* the path takes the "> threshold" branch */
	bool slow_side; /* ... and that branch is the node's slow side */
	double threshold;
};

/* A root-to-leaf path whose leaf is majority slow: a slowdown precondition. */
struct dtree_path {
	uint32_t leaf;
	uint32_t n, nslow; /* samples at the leaf */
	size_t ncond;
	struct dtree_cond *conds; /* root first */
};

struct dtree;

/* Builds the tree. Negative errno: -EINVAL on bad input, -ENOMEM. */
int dtree__fit(const struct dtree_input *in, const struct dtree_params *p, struct dtree **out);
void dtree__free(struct dtree *t); /* accepts NULL */

size_t dtree__nnodes(const struct dtree *t);
const struct dtree_node *dtree__node(const struct dtree *t, size_t i); /* 0 is the root */
size_t dtree__npaths(const struct dtree *t);
const struct dtree_path *dtree__path(const struct dtree *t, size_t i); /* preorder */
size_t dtree__nfeatures(const struct dtree *t);
const struct dtree_feat_stats *dtree__feat_stats(const struct dtree *t, size_t f);

/*
 * Text form of the whole tree (feature stats and nodes, %.17g numbers,
 * enums as numbers), malloc'd; names may be NULL ("f<index>"). NULL on
 * ENOMEM. Two fits of the same input serialize to identical bytes.
 */
char *dtree__serialize(const struct dtree *t, const char *const *names);

#endif
