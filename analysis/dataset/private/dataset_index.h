/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The index of a tree kept as an array of nodes, each found by its parent
 * and a key (open addressing over parent << 32 | key): the samples'
 * calling contexts (dataset_samples.c) and their differential tree of
 * frames (dataset_diff.c) find and add children through it; only their
 * nodes differ. Node 0, the root, is not indexed.
 */
#ifndef XLP_DATASET_INDEX_H
#define XLP_DATASET_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "util.h"

struct dataset_index {
	uint32_t *slot; /* node + 1, 0: free */
	size_t cap;
};

/* parent << 32 | key of node i of nodes */
typedef uint64_t (*dataset_index_key)(const void *nodes, size_t i);

/*
 * The slot of pk among the len nodes (the index grown first, at half
 * full); NULL on ENOMEM. *slot is the node + 1, or 0 when there is none:
 * then the caller appends it and sets *slot to its index + 1.
 */
uint32_t *dataset_index__slot(struct dataset_index *x, const void *nodes, size_t len,
			      dataset_index_key key, uint64_t pk);

/*
 * The tree itself, one definition for both: struct name over nodes of
 * node_type, node 0 the root; key_fn (a dataset_index_key) and fresh_fn(t,
 * parent, key), the node a new child starts as. Defines prefix_new(root,
 * out) (*out cleared),
 * prefix_child(t, parent, key) (UINT32_MAX on ENOMEM), prefix_done (the
 * built tree handed out, or freed) and the public prefix__free, __n and
 * __node.
 */
#define DATASET_TREE(name, node_type, prefix, key_fn, fresh_fn)                                    \
	struct name {                                                                              \
		node_type *n;                                                                      \
		size_t len, cap;                                                                   \
		struct dataset_index index;                                                        \
	};                                                                                         \
                                                                                                   \
	void prefix##__free(struct name *t)                                                        \
	{                                                                                          \
		if (!t)                                                                            \
			return;                                                                    \
		free(t->n);                                                                        \
		free(t->index.slot);                                                               \
		free(t);                                                                           \
	}                                                                                          \
                                                                                                   \
	size_t prefix##__n(const struct name *t)                                                   \
	{                                                                                          \
		return t ? t->len : 0;                                                             \
	}                                                                                          \
                                                                                                   \
	const node_type *prefix##__node(const struct name *t, size_t i)                            \
	{                                                                                          \
		return &t->n[i];                                                                   \
	}                                                                                          \
                                                                                                   \
	static struct name *prefix##_new(node_type root, struct name **out)                        \
	{                                                                                          \
		struct name *t = calloc(1, sizeof(*t));                                            \
                                                                                                   \
		*out = NULL;                                                                       \
		if (!t || xlp_grow((void **)&t->n, &t->cap, 0, sizeof(*t->n))) {                   \
			prefix##__free(t);                                                         \
			return NULL;                                                               \
		}                                                                                  \
		t->n[0] = root;                                                                    \
		t->len = 1;                                                                        \
		return t;                                                                          \
	}                                                                                          \
                                                                                                   \
	static uint32_t prefix##_child(struct name *t, uint32_t parent, uint32_t key)              \
	{                                                                                          \
		uint32_t *slot = dataset_index__slot(&t->index, t->n, t->len, key_fn,              \
						     (uint64_t)parent << 32 | key);                \
                                                                                                   \
		if (!slot || (!*slot && xlp_grow((void **)&t->n, &t->cap, t->len, sizeof(*t->n)))) \
			return UINT32_MAX;                                                         \
		if (!*slot) {                                                                      \
			t->n[t->len] = fresh_fn(t, parent, key);                                   \
			*slot = (uint32_t)++t->len;                                                \
		}                                                                                  \
		return *slot - 1;                                                                  \
	}                                                                                          \
                                                                                                   \
	/* ret, the tree in *out when ret is 0 and keep; else it is freed */                       \
	static int prefix##_done(struct name *t, int ret, bool keep, struct name **out)            \
	{                                                                                          \
		if (!ret && keep) {                                                                \
			*out = t;                                                                  \
			return 0;                                                                  \
		}                                                                                  \
		prefix##__free(t);                                                                 \
		return ret;                                                                        \
	}

#endif
