/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JIT code names by address (jittab.h). Entries overlap (code freed and its
 * addresses reused, a later map line for the same range), so lookups go
 * through an index of disjoint segments, each naming the newest entry over
 * it, built on the first lookup after a change: a sweep over the entries
 * sorted by start with a heap of the open ones (newest on top), O(n log n)
 * and at most 2n segments, each lookup then a binary search.
 *
 * A lookup with a time whose segment's newest entry was loaded after it (a
 * sample taken before its address was reused) scans the entries for the
 * newest one over the address loaded by then: linear, and only for such
 * samples, which a recording naming its samples as they come rarely has.
 */
#include <errno.h>
#include <string.h>
#include "htab.h"
#include "jittab.h"
#include "util.h"

struct jitent {
	uint64_t start, size, time;
	uint32_t name; /* offset in jittab.names */
};

struct jitseg {
	uint64_t start, end;
	uint32_t ent;
};

struct jittab {
	struct jitent *e;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	struct jitseg *seg;
	size_t nseg, segcap;
	bool dirty;
	struct htab *by_start; /* entry + 1 of the last one starting at an address */
};

int jittab__new(struct jittab **out)
{
	struct jittab *t = calloc(1, sizeof(*t));

	if (t && !(t->by_start = htab__new(JITTAB_MAX))) {
		free(t);
		t = NULL;
	}
	*out = t;
	return t ? 0 : -ENOMEM;
}

void jittab__free(struct jittab *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->names);
	free(t->seg);
	htab__free(t->by_start);
	free(t);
}

void jittab__clear(struct jittab *t)
{
	t->n = t->nlen = t->nseg = 0;
	t->dirty = false;
	htab__clear(t->by_start);
}

size_t jittab__len(const struct jittab *t)
{
	return t->n;
}

struct at_start {
	const struct jittab *t;
	uint64_t addr;
};

static bool starts_at(const void *ctx, uint32_t id)
{
	const struct at_start *a = ctx;

	return a->t->e[id - 1].start == a->addr;
}

static uint64_t start_hash(const struct jittab *t, uint64_t addr)
{
	return htab__hash(t->by_start, &addr, sizeof(addr));
}

int jittab__add(struct jittab *t, uint64_t start, uint64_t size, const char *name, size_t len,
		uint64_t time)
{
	struct jitent *e;

	if (!size || size - 1 > UINT64_MAX - start)
		return -EINVAL;
	if (t->n >= JITTAB_MAX)
		return -E2BIG;
	len = strnlen(name, len < JITTAB_NAME_MAX ? len : JITTAB_NAME_MAX);
	if (xlp_grow((void **)&t->e, &t->cap, t->n, sizeof(*t->e)))
		return -ENOMEM;
	if (xlp_grow((void **)&t->names, &t->ncap, t->nlen + len, 1))
		return -ENOMEM;
	e = &t->e[t->n];
	*e = (struct jitent){.start = start, .size = size, .time = time, .name = (uint32_t)t->nlen};
	memcpy(t->names + t->nlen, name, len);
	t->names[t->nlen + len] = 0;
	if (htab__put(t->by_start, start_hash(t, start), (uint32_t)t->n + 1, starts_at,
		      &(struct at_start){t, start}))
		return -ENOMEM;
	t->nlen += len + 1;
	t->n++;
	t->dirty = true;
	return 0;
}

static uint64_t ent_end(const struct jitent *e)
{
	/* [start, start + size) with start + size == 2^64 allowed by jittab__add */
	return e->start + e->size - 1;
}

static void heap_push(uint32_t *h, size_t *n, uint32_t v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] < v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n)
{
	uint32_t v = h[--*n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

static int by_start(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

static int seg_add(struct jittab *t, uint64_t start, uint64_t last, uint32_t ent)
{
	struct jitseg *s = t->nseg ? &t->seg[t->nseg - 1] : NULL;

	if (s && s->ent == ent && s->end + 1 == start) {
		s->end = last;
		return 0;
	}
	if (xlp_grow((void **)&t->seg, &t->segcap, t->nseg, sizeof(*t->seg)))
		return -ENOMEM;
	t->seg[t->nseg++] = (struct jitseg){.start = start, .end = last, .ent = ent};
	return 0;
}

/*
 * The segments: between two events (an entry starting, the top entry
 * ending) the newest open entry does not change. Segment ends are
 * inclusive, so that a range reaching the top of the address space fits.
 */
static int index_build(struct jittab *t)
{
	uint64_t(*order)[2] = malloc(t->n * sizeof(*order) + 1);
	uint32_t *heap = malloc(t->n * sizeof(*heap) + 1);
	size_t nh = 0, i = 0;
	uint64_t pos = 0;
	int err = -ENOMEM;

	if (!order || !heap)
		goto cleanup;
	for (size_t k = 0; k < t->n; k++) {
		order[k][0] = t->e[k].start;
		order[k][1] = k;
	}
	xlp_sort(order, t->n, sizeof(*order), by_start);
	t->nseg = 0;
	while (i < t->n || nh) {
		uint64_t last;

		if (!nh)
			pos = order[i][0];
		while (i < t->n && order[i][0] <= pos)
			heap_push(heap, &nh, (uint32_t)order[i++][1]);
		/* entries ended before pos: out, once each */
		while (nh && ent_end(&t->e[heap[0]]) < pos)
			heap_pop(heap, &nh);
		if (!nh)
			continue;
		last = ent_end(&t->e[heap[0]]);
		if (i < t->n && order[i][0] - 1 < last)
			last = order[i][0] - 1;
		if (seg_add(t, pos, last, heap[0]))
			goto cleanup;
		if (last == UINT64_MAX)
			break;
		pos = last + 1;
	}
	t->dirty = false;
	err = 0;
cleanup:
	free(order);
	free(heap);
	return err;
}

static void sym_of(const struct jittab *t, size_t i, struct jitsym *out)
{
	*out = (struct jitsym){
		.start = t->e[i].start, .size = t->e[i].size, .name = t->names + t->e[i].name};
}

int jittab__find(struct jittab *t, uint64_t addr, uint64_t time, struct jitsym *out)
{
	size_t lo = 0, hi, best = SIZE_MAX;
	const struct jitseg *s;

	if (t->dirty && index_build(t))
		return -ENOMEM;
	hi = t->nseg;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->seg[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr > t->seg[lo - 1].end)
		return -ENOENT;
	s = &t->seg[lo - 1];
	if (time == JITTAB_NOW || t->e[s->ent].time <= time) {
		sym_of(t, s->ent, out);
		return 0;
	}
	/* the code there now came after the sample: what was there then */
	for (size_t i = 0; i < t->n; i++) {
		const struct jitent *e = &t->e[i];

		if (addr >= e->start && addr <= ent_end(e) && e->time <= time)
			best = i;
	}
	if (best == SIZE_MAX)
		return -ENOENT;
	sym_of(t, best, out);
	return 0;
}

int jittab__at_start(const struct jittab *t, uint64_t addr, struct jitsym *out)
{
	uint32_t id = htab__find(t->by_start, start_hash(t, addr), starts_at,
				 &(struct at_start){t, addr});

	if (!id)
		return -ENOENT;
	sym_of(t, id - 1, out);
	return 0;
}
