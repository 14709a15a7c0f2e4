/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <stdlib.h>
#include "dataset_index.h"

static uint32_t *find(const struct dataset_index *x, const void *nodes, dataset_index_key key,
		      uint64_t pk)
{
	size_t j = (size_t)((pk * 0x9e3779b97f4a7c15ull) >> 24) & (x->cap - 1);

	while (x->slot[j] && key(nodes, x->slot[j] - 1) != pk)
		j = (j + 1) & (x->cap - 1);
	return &x->slot[j];
}

uint32_t *dataset_index__slot(struct dataset_index *x, const void *nodes, size_t len,
			      dataset_index_key key, uint64_t pk)
{
	if (2 * (len + 1) > x->cap) {
		struct dataset_index old = *x;

		x->cap = old.cap ? 2 * old.cap : 64;
		x->slot = calloc(x->cap, sizeof(*x->slot));
		if (!x->slot) {
			*x = old;
			return NULL;
		}
		for (size_t i = 1; i < len; i++)
			*find(x, nodes, key, key(nodes, i)) = (uint32_t)i + 1;
		free(old.slot);
	}
	return find(x, nodes, key, pk);
}
