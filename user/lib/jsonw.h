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

/*
 * A flat object's members as a table (the JSON schema as data, one line a
 * key): JSONW_F() writes a member by its C type (bool, integer, double as
 * %.6g, const char * as a string), JSONW_F_ROUND() a double rounded. The
 * kind comes from _Generic, so a table cannot read a member as another type;
 * an array member or a type not listed is a compile error.
 */
enum jsonw_kind {
	JSONW_K_BOOL,
	JSONW_K_UINT,
	JSONW_K_INT,
	JSONW_K_NUM,
	JSONW_K_ROUND,
	JSONW_K_STR
};

struct jsonw_field {
	const char *key;
	size_t off;
	uint8_t kind; /* enum jsonw_kind */
	uint8_t size; /* of the member, for integers */
};

#define JSONW_M_(type, m) (((type *)0)->m)
/* clang-format cannot lay out _Generic */
/* clang-format off */
#define JSONW_KIND_(x)                                                                             \
	_Generic((x),                                                                              \
		bool: JSONW_K_BOOL,                                                                \
		unsigned char: JSONW_K_UINT,                                                       \
		unsigned short: JSONW_K_UINT,                                                      \
		unsigned int: JSONW_K_UINT,                                                        \
		unsigned long: JSONW_K_UINT,                                                       \
		unsigned long long: JSONW_K_UINT,                                                  \
		signed char: JSONW_K_INT,                                                          \
		short: JSONW_K_INT,                                                                \
		int: JSONW_K_INT,                                                                  \
		long: JSONW_K_INT,                                                                 \
		long long: JSONW_K_INT,                                                            \
		double: JSONW_K_NUM)
#define JSONW_F(type, m, key)                                                                      \
	{ key, offsetof(type, m), JSONW_KIND_(JSONW_M_(type, m)), sizeof(JSONW_M_(type, m)) }
#define JSONW_F_ROUND(type, m, key)                                                                \
	{ key, offsetof(type, m), _Generic(JSONW_M_(type, m), double: JSONW_K_ROUND), 8 }
/* &m is const char ** only for a pointer member: a char array fails to build */
#define JSONW_F_STR(type, m, key)                                                                  \
	{ key, offsetof(type, m),                                                                  \
	  _Generic(&JSONW_M_(type, m), const char **: JSONW_K_STR, char **: JSONW_K_STR), 8 }
/* clang-format on */

void jsonw__fields(struct jsonw *w, const void *obj, const struct jsonw_field *f, size_t n);
#define jsonw__fields_of(w, obj, table)                                                            \
	jsonw__fields(w, obj, table, sizeof(table) / sizeof(*(table)))

#endif
