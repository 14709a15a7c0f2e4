/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Accessors, destructor and text form of a fitted tree. */
#include <stdio.h>
#include <stdlib.h>
#include "dtree_impl.h"

void dtree__free(struct dtree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->npaths; i++)
		free(t->paths[i].conds);
	free(t->paths);
	free(t->nodes);
	free(t->fs);
	free(t);
}

size_t dtree__nnodes(const struct dtree *t)
{
	return t->nnodes;
}

const struct dtree_node *dtree__node(const struct dtree *t, size_t i)
{
	return i < t->nnodes ? &t->nodes[i] : NULL;
}

size_t dtree__npaths(const struct dtree *t)
{
	return t->npaths;
}

const struct dtree_path *dtree__path(const struct dtree *t, size_t i)
{
	return i < t->npaths ? &t->paths[i] : NULL;
}

size_t dtree__nfeatures(const struct dtree *t)
{
	return t->m;
}

const struct dtree_feat_stats *dtree__feat_stats(const struct dtree *t, size_t f)
{
	return f < t->m ? &t->fs[f] : NULL;
}

static void put_name(FILE *f, const char *const *names, size_t i)
{
	if (names && names[i])
		fputs(names[i], f);
	else
		fprintf(f, "f%zu", i);
}

char *dtree__serialize(const struct dtree *t, const char *const *names)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < t->m; i++) {
		const struct dtree_feat_stats *s = &t->fs[i];

		put_name(f, names, i);
		fprintf(f, ": m_slow=%.17g m_fast=%.17g p5=%.17g p95=%.17g rel=%.17g pruned=%d\n",
			s->m_slow, s->m_fast, s->p5, s->p95, s->reldiff, (int)s->pruned);
	}
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct dtree_node *nd = &t->nodes[i];

		fprintf(f, "%*s[%zu] n=%u slow=%u", (int)(2 * nd->depth), "", i, nd->n, nd->nslow);
		if (nd->feature >= 0) {
			fputc(' ', f);
			put_name(f, names, (size_t)nd->feature);
			fprintf(f, " <= %.17g gap=%.17g slow %s -> %d, %d", nd->threshold, nd->gap,
				nd->slow_right ? ">" : "<=", nd->left, nd->right);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->npaths; i++) {
		const struct dtree_path *p = &t->paths[i];

		fprintf(f, "path leaf=%u n=%u slow=%u:", p->leaf, p->n, p->nslow);
		for (size_t k = 0; k < p->ncond; k++) {
			fputc(' ', f);
			put_name(f, names, p->conds[k].feature);
			fprintf(f, " %s %.17g%s",
				p->conds[k].gt ? ">" : "<=", p->conds[k].threshold,
				p->conds[k].slow_side ? "" : " (fast side)");
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
