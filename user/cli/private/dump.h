/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe dump's files (dump.c: the command, header and footer, and the
 * fields; dump_records.c: each record's fields). Private to the CLI.
 */
#ifndef XLP_DUMP_H
#define XLP_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "jsonw.h"
#include "trace.h"

struct dump {
	FILE *out;
	bool json;
	struct jsonw jw;
	const struct xlp_trace_meta *meta;
	uint64_t nrec;
};

/* ---- fields: "name=value" in text, "name":value in JSON (dump.c) ---- */

void dump__u64(struct dump *d, const char *name, uint64_t v);
void dump__s64(struct dump *d, const char *name, int64_t v);
/* Strings come from the file: escaped for the terminal, or for JSON. */
void dump__str(struct dump *d, const char *name, const char *s, size_t n);
void dump__cstr(struct dump *d, const char *name, const char *s);
/* Flags as names ("a|b" in text, ["a","b"] in JSON); unknown bits in hex. */
void dump__flags(struct dump *d, const char *name, uint32_t v, enum trace_flags field);
/* Counters: the non-zero ones in text, all named ones in JSON (stable keys). */
void dump__ctrs(struct dump *d, const char *name, const __u64 *c);
/* Every named statistic, and reserved ones when they are set. */
void dump__stats(struct dump *d, const uint64_t *stat);

/* One record's fields, whatever its type (dump_records.c). */
void dump__record(struct dump *d, const struct xlp_hdr *h);

#endif
