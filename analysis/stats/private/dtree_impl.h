/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internals shared by the dtree*.c files. */
#ifndef XLP_DTREE_IMPL_H
#define XLP_DTREE_IMPL_H

#include "dtree.h"

struct dtree {
	size_t n, m;
	struct dtree_feat_stats *fs; /* m */
	struct dtree_node *nodes;
	size_t nnodes, node_cap;
	struct dtree_path *paths;
	size_t npaths, path_cap;
};

/*
 * Fills ord[0..n) with the sample indices sorted by x[] ascending, equal
 * values by index (so the order is a function of the values alone).
 * tmp: 2n u32 and 2n u64 of scratch.
 */
void dtree_presort(const double *x, size_t n, uint32_t *ord, uint32_t *tmp_idx, uint64_t *tmp_key);

/* Global statistics and pruning decision of one feature (ord: sorted). */
void dtree_feat_prepare(const double *x, const uint8_t *slow, const uint32_t *ord, size_t n,
			const struct dtree_feature *feat, double alpha,
			struct dtree_feat_stats *fs);

#endif
