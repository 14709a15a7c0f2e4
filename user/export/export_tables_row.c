/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fleet tables' row writer (export_tables_int.h): each table's row
 * function calls one column function per column, and the same calls write
 * a JSONL object, a CSV line, or the CSV header's names.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "export_tables_int.h"

/* CSV: the separator, or the name in a header; whether the value follows. */
static bool csv_col(struct tw *w, const char *name)
{
	if (!w->first)
		fputc(',', w->f);
	w->first = false;
	if (w->names)
		fputs(name, w->f);
	return !w->names;
}

/* fprintf's work on the format was a third of a CSV's time */
static void put_u64(FILE *f, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void tw__u64(struct tw *w, const char *name, uint64_t v)
{
	if (!w->csv)
		jsonw__uint(&w->jw, name, v);
	else if (csv_col(w, name))
		put_u64(w->f, v);
}

void tw__s64(struct tw *w, const char *name, int64_t v)
{
	if (!w->csv)
		jsonw__int(&w->jw, name, v);
	else if (csv_col(w, name))
		fprintf(w->f, "%" PRId64, v);
}

void tw__bool(struct tw *w, const char *name, bool v)
{
	if (!w->csv)
		jsonw__bool(&w->jw, name, v);
	else if (csv_col(w, name))
		fputs(v ? "true" : "false", w->f);
}

void tw__null(struct tw *w, const char *name)
{
	if (!w->csv)
		jsonw__null(&w->jw, name);
	else
		csv_col(w, name); /* an empty field */
}

void tw__strn(struct tw *w, const char *name, const char *s, size_t n)
{
	if (!s)
		tw__null(w, name);
	else if (!w->csv)
		jsonw__strn(&w->jw, name, s, n);
	else if (csv_col(w, name))
		xlp_fput_csv(w->f, s, n);
}

void tw__str(struct tw *w, const char *name, const char *s)
{
	tw__strn(w, name, s, s ? strlen(s) : 0);
}

void tw__u64_or_null(struct tw *w, const char *name, uint64_t v, bool have)
{
	if (have)
		tw__u64(w, name, v);
	else
		tw__null(w, name);
}

void tw__row_begin(struct tw *w, const char *table)
{
	w->first = true;
	if (w->csv)
		return;
	jsonw__begin_obj(&w->jw, NULL);
	jsonw__str(&w->jw, "table", table);
}

void tw__row_end(struct tw *w)
{
	if (w->csv)
		fputc('\n', w->f);
	else
		jsonw__end_obj(&w->jw); /* '}' and the line's end */
}
