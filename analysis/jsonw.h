/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Minimal streaming JSON writer (2-space indent), for the reports. */
#ifndef XLP_JSONW_H
#define XLP_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 64

struct jsonw {
	FILE *f;
	int depth;
	bool has_items[JSONW_MAX_DEPTH];
};

/* key is NULL inside arrays and at the top level. */
void jsonw__begin_obj(struct jsonw *w, const char *key);
void jsonw__begin_arr(struct jsonw *w, const char *key);
void jsonw__end_obj(struct jsonw *w);
void jsonw__end_arr(struct jsonw *w);
void jsonw__str(struct jsonw *w, const char *key, const char *v); /* NULL -> null */
void jsonw__int(struct jsonw *w, const char *key, int64_t v);
void jsonw__uint(struct jsonw *w, const char *key, uint64_t v);
/* Rounded to an integer; NAN -> null. */
void jsonw__round(struct jsonw *w, const char *key, double v);
/* %.6g; NAN -> null. */
void jsonw__num(struct jsonw *w, const char *key, double v);
void jsonw__bool(struct jsonw *w, const char *key, bool v);
void jsonw__null(struct jsonw *w, const char *key);

#endif
