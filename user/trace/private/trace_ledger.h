/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reader's ledger of chunk numbers (format version 2): which were
 * read, skipped over, seen twice or damaged, settled at the end into the
 * integrity counts, and the one line that names them. Private to the
 * trace layer (trace_reader.c, trace_ledger.c).
 */
#ifndef XLP_TRACE_LEDGER_H
#define XLP_TRACE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace.h"

/* An inclusive range of chunk numbers. */
struct seq_range {
	uint64_t lo, hi;
};

/* Which chunk numbers were read, skipped over or seen twice (version 2). */
struct ledger {
	uint64_t expect;	/* the next number in order */
	struct seq_range *gap;	/* numbers jumped over, increasing */
	size_t ngap, gap_cap;	/* (then: the missing ones, late ones taken out) */
	uint64_t *late;		/* numbers at or below one taken: not delivered */
	size_t nlate, late_cap; /* (then: the out-of-order ones, sorted) */
	uint64_t *dup;		/* computed at the end, sorted */
	size_t ndup;
	uint64_t *dmg; /* numbers of damaged chunks, increasing */
	size_t ndmg, dmg_cap;
};

/*
 * Chunk seq is next in order (or later: the numbers between are missing):
 * *in_order true. At or below one taken already: false, and it is noted to
 * be told apart at the end (duplicate, or out of order). 0 or -ENOMEM.
 */
int ledger__take(struct ledger *l, uint32_t seq, bool *in_order);
/* Chunks taken (read or damaged) numbered at or past n: the numbers from n
 * to the last one taken, less those skipped over. Before ledger__settle. */
uint64_t ledger__taken_from(const struct ledger *l, uint64_t n);
/* At the end: out of order, duplicates and missing told apart, into *in. */
int ledger__settle(struct ledger *l, struct trace_integrity *in);
void ledger__free(struct ledger *l);
/* The one-line account of *in (trace_reader__describe). */
const char *ledger__describe(const struct ledger *l, const struct trace_integrity *in, char *buf,
			     size_t len);

#endif
