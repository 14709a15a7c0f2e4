/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the fleet tables' files share (export_tables.c: the rows of each
 * trace; export_tables_row.c: the row writer, JSONL or CSV;
 * export_tables_cmd.c: the command's options). Private to the export
 * layer.
 */
#ifndef XLP_EXPORT_TABLES_INT_H
#define XLP_EXPORT_TABLES_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "jsonw.h"

/* ---- the row writer: one column list per table, for both formats and the header ---- */

struct tw {
	FILE *f;
	bool csv;
	bool names; /* CSV header: each column's name instead of its value */
	bool first; /* no column of this row written yet */
	struct jsonw jw;
};
void tw__row_begin(struct tw *w, const char *table);
void tw__row_end(struct tw *w);
void tw__u64(struct tw *w, const char *name, uint64_t v);
void tw__s64(struct tw *w, const char *name, int64_t v);
void tw__bool(struct tw *w, const char *name, bool v);
void tw__null(struct tw *w, const char *name);
/* n bytes from the trace; NULL: null */
void tw__strn(struct tw *w, const char *name, const char *s, size_t n);
void tw__str(struct tw *w, const char *name, const char *s);
void tw__u64_or_null(struct tw *w, const char *name, uint64_t v, bool have);

/* ---- the command ---- */

struct tt_args {
	bool jsonl, csv;
	int table;
	uint64_t lag_ns;
	const char *out;
	char **paths;
	int npaths;
};
/* The table of that name (enum tt_table), or -1. */
int export_tables__table(const char *name);
/* The rows of every trace of a; 0, or -1 after an error message. */
int export_tables__write(const struct tt_args *a, FILE *f);

#endif
