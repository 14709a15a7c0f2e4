/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one JSON writer of xlprobe (report --json, dump --json): streaming,
 * always valid UTF-8 (strings through xlp_fput_json(), see escape.h).
 * It lives in the base layer (user/lib/): the report writers and dump use it.
 */
#ifndef XLP_JSONW_H
#define XLP_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 64

struct jsonw {
	FILE *f;
	int depth;
	/* items at this depth or above start a line, indented by indent per
	 * level; deeper ones follow on the same line */
	int line_depth, indent;
	const char *colon;
	bool has_items[JSONW_MAX_DEPTH];
};

/* Pretty: every item on its own line, 2-space indent (the reports). */
void jsonw__init(struct jsonw *w, FILE *f);
/* Compact: a line per item down to line_depth, no spaces (dump: one record a line). */
void jsonw__init_compact(struct jsonw *w, FILE *f, int line_depth);

/* key is NULL inside arrays and at the top level; keys are plain ASCII names
 * written as they are (values are escaped). */
void jsonw__begin_obj(struct jsonw *w, const char *key);
void jsonw__begin_arr(struct jsonw *w, const char *key);
void jsonw__end_obj(struct jsonw *w);
void jsonw__end_arr(struct jsonw *w);
void jsonw__str(struct jsonw *w, const char *key, const char *v); /* NULL -> null */
/* n bytes of v, which need not be NUL-terminated. */
void jsonw__strn(struct jsonw *w, const char *key, const char *v, size_t n);
void jsonw__int(struct jsonw *w, const char *key, int64_t v);
void jsonw__uint(struct jsonw *w, const char *key, uint64_t v);
/* Rounded to an integer; NAN -> null. */
void jsonw__round(struct jsonw *w, const char *key, double v);
/* %.6g; NAN -> null. */
void jsonw__num(struct jsonw *w, const char *key, double v);
void jsonw__bool(struct jsonw *w, const char *key, bool v);
void jsonw__null(struct jsonw *w, const char *key);

#endif
