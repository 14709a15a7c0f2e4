/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The chunk numbers of a trace and their one-line account (trace_ledger.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace_ledger.h"
#include "util.h"

/*
 * Chunk seq is next in order (or later: the numbers between are missing):
 * true. At or below one taken already: false, and it is noted to be told
 * apart at the end (duplicate, or out of order). Chunks are delivered in
 * increasing order only, so a duplicate is never counted twice and the
 * records of each thread keep the order the analysis relies on.
 */
int ledger__take(struct ledger *l, uint32_t seq, bool *in_order)
{
	*in_order = seq >= l->expect;
	if (!*in_order)
		return xlp_push((void **)&l->late, &l->nlate, &l->late_cap, sizeof(uint64_t),
				&(uint64_t){seq});
	if (seq > l->expect) {
		struct seq_range g = {l->expect, seq - 1ull};
		int err = xlp_push((void **)&l->gap, &l->ngap, &l->gap_cap, sizeof(g), &g);

		if (err)
			return err;
	}
	l->expect = seq + 1ull;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Index of the gap holding seq, or ngap. */
static size_t ledger__find_gap(const struct ledger *l, uint64_t seq)
{
	size_t lo = 0, hi = l->ngap;

	while (lo < hi) { /* first gap with hi >= seq */
		size_t mid = lo + (hi - lo) / 2;

		if (l->gap[mid].hi < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->ngap && l->gap[lo].lo <= seq ? lo : l->ngap;
}

/*
 * At the end: the numbers skipped over that came later are out of order
 * (the first copy) or duplicates; the others are missing. O(n log n).
 */
int ledger__settle(struct ledger *l, struct trace_integrity *in)
{
	struct seq_range *miss = NULL;
	size_t nmiss = 0, mcap = 0, nreord = 0, k = 0;
	int err = 0;

	xlp_sort(l->late, l->nlate, sizeof(*l->late), cmp_u64);
	l->dup = malloc((l->nlate + 1) * sizeof(*l->dup));
	if (!l->dup)
		return -ENOMEM;
	for (size_t i = 0; i < l->nlate; i++) {
		bool first = !i || l->late[i] != l->late[i - 1];

		if (first && ledger__find_gap(l, l->late[i]) < l->ngap)
			l->late[nreord++] = l->late[i];
		else
			l->dup[l->ndup++] = l->late[i];
	}
	l->nlate = nreord;
	/* the gaps, minus the out-of-order numbers (both sorted) */
	for (size_t g = 0; g < l->ngap && !err; g++) {
		uint64_t lo = l->gap[g].lo;

		for (; k < nreord && l->late[k] <= l->gap[g].hi; k++) {
			if (l->late[k] > lo)
				err = xlp_push((void **)&miss, &nmiss, &mcap, sizeof(*miss),
					       &(struct seq_range){lo, l->late[k] - 1});
			lo = l->late[k] + 1;
		}
		if (!err && lo <= l->gap[g].hi)
			err = xlp_push((void **)&miss, &nmiss, &mcap, sizeof(*miss),
				       &(struct seq_range){lo, l->gap[g].hi});
	}
	if (err) {
		free(miss);
		return err;
	}
	free(l->gap);
	l->gap = miss;
	l->ngap = nmiss;
	l->gap_cap = mcap;
	in->missing = 0;
	for (size_t g = 0; g < l->ngap; g++)
		in->missing += l->gap[g].hi - l->gap[g].lo + 1;
	in->reordered = nreord;
	in->duplicate = l->ndup;
	return 0;
}

void ledger__free(struct ledger *l)
{
	free(l->gap);
	free(l->late);
	free(l->dup);
	free(l->dmg);
}

/* Chunks taken (read or damaged) numbered at or past n: the numbers from n
 * to the last one taken, less those skipped over. Before ledger__settle. */
uint64_t ledger__taken_from(const struct ledger *l, uint64_t n)
{
	uint64_t taken;

	if (l->expect <= n)
		return 0;
	taken = l->expect - n;
	for (size_t g = 0; g < l->ngap; g++)
		if (l->gap[g].hi >= n)
			taken -= l->gap[g].hi - (l->gap[g].lo > n ? l->gap[g].lo : n) + 1;
	return taken;
}

/* ---- the one-line account ---- */

struct line {
	char *buf;
	size_t len, used;
	bool any; /* a clause was written: the next one needs "; " */
};

static void line__put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line__put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->used >= l->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->used, l->len - l->used, fmt, ap);
	va_end(ap);
	l->used += n > 0 ? (size_t)n : 0;
	if (l->used >= l->len)
		l->used = l->len;
}

static void line__clause(struct line *l)
{
	if (l->any)
		line__put(l, "; ");
	l->any = true;
}

#define LIST_MAX 6 /* numbers or ranges named in one clause, then "..." */

/* "chunk 4", "chunks 4-5, 9" (ranges, or single numbers when r is NULL). */
static void line__numbers(struct line *l, const struct seq_range *r, const uint64_t *v, size_t n,
			  uint64_t count)
{
	line__put(l, "chunk%s ", count == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		uint64_t lo = r ? r[i].lo : v[i], hi = r ? r[i].hi : v[i];

		line__put(l, "%s%" PRIu64, i ? ", " : "", lo);
		if (hi != lo)
			line__put(l, "-%" PRIu64, hi);
	}
	if (n > LIST_MAX)
		line__put(l, ", ...");
}

const char *ledger__describe(const struct ledger *led, const struct trace_integrity *in, char *buf,
			     size_t len)
{
	struct line l = {buf, len, 0, false};

	if (!len)
		return buf;
	buf[0] = 0;
	if (in->sequenced && in->missing) {
		line__clause(&l);
		line__numbers(&l, led->gap, NULL, led->ngap, in->missing);
		line__put(&l, " missing (lost %" PRIu64 " chunk%s)", in->missing,
			  in->missing == 1 ? "" : "s");
	}
	if (in->sequenced && in->damaged) {
		line__clause(&l);
		line__numbers(&l, NULL, led->dmg, led->ndmg, in->damaged);
		line__put(&l, " damaged (skipped)");
	}
	if (in->bad > in->damaged) {
		line__clause(&l);
		line__put(&l, "%" PRIu64 " damaged %s skipped", in->bad - in->damaged,
			  in->sequenced ? "region(s)" : "chunk(s)");
	}
	if (in->duplicate) {
		line__clause(&l);
		line__numbers(&l, NULL, led->dup, led->ndup, in->duplicate);
		line__put(&l, " duplicated (skipped)");
	}
	if (in->reordered) {
		line__clause(&l);
		line__numbers(&l, NULL, led->late, led->nlate, in->reordered);
		line__put(&l, " out of order (skipped)");
	}
	if (in->sequenced && in->extra_chunks) {
		line__clause(&l);
		line__put(&l, "%" PRIu64 " chunk(s) numbered past the footer's count (%" PRIu64 ")",
			  in->extra_chunks, in->footer_chunks);
	}
	if (in->footer &&
	    (in->chunks + in->damaged != in->footer_chunks || in->missing_records ||
	     in->extra_records || (!in->sequenced && in->missing + in->extra_chunks))) {
		line__clause(&l);
		line__put(&l,
			  "the footer counts %" PRIu64 " records in %" PRIu64 " chunks, %" PRIu64
			  " records in %" PRIu64 " chunks were read",
			  in->footer_records, in->footer_chunks, in->records, in->chunks);
		if (!in->sequenced)
			line__put(&l, " (format version 1 has no chunk sequence numbers: which "
				      "chunks cannot be told)");
	}
	if (in->gave_up) {
		line__clause(&l);
		line__put(&l, "gave up re-synchronising after damage: the rest of the file is "
			      "unread");
	}
	return buf;
}
