/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The JSON writer (see jsonw.h). */
#include <math.h>
#include <string.h>
#include "escape.h"
#include "jsonw.h"

void jsonw__init(struct jsonw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->line_depth = JSONW_MAX_DEPTH;
	w->indent = 2;
	w->colon = ": ";
}

void jsonw__init_compact(struct jsonw *w, FILE *f, int line_depth)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->line_depth = line_depth;
	w->colon = ":";
}

static void newline(struct jsonw *w)
{
	fputc('\n', w->f);
	if (w->indent)
		fprintf(w->f, "%*s", w->indent * w->depth, "");
}

/* Separator, newline, indent and key of the next item. */
static void item(struct jsonw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->has_items[w->depth])
			fputc(',', w->f);
		if (w->depth <= w->line_depth)
			newline(w);
		w->has_items[w->depth] = true;
	}
	/* keys are the program's own ASCII names, never text from a file */
	if (key) {
		fputc('"', w->f);
		fputs(key, w->f);
		fputc('"', w->f);
		fputs(w->colon, w->f);
	}
}

static void begin(struct jsonw *w, const char *key, char c)
{
	item(w, key);
	fputc(c, w->f);
	if (w->depth + 1 < JSONW_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
}

static void end(struct jsonw *w, char c)
{
	bool items = w->has_items[w->depth], lines = w->depth <= w->line_depth;

	if (w->depth > 0)
		w->depth--;
	if (items && lines)
		newline(w);
	fputc(c, w->f);
	if (!w->depth)
		fputc('\n', w->f);
}

void jsonw__begin_obj(struct jsonw *w, const char *key)
{
	begin(w, key, '{');
}

void jsonw__begin_arr(struct jsonw *w, const char *key)
{
	begin(w, key, '[');
}

void jsonw__end_obj(struct jsonw *w)
{
	end(w, '}');
}

void jsonw__end_arr(struct jsonw *w)
{
	end(w, ']');
}

void jsonw__str(struct jsonw *w, const char *key, const char *v)
{
	item(w, key);
	if (v)
		xlp_fput_json(w->f, v, strlen(v));
	else
		fputs("null", w->f);
}

void jsonw__strn(struct jsonw *w, const char *key, const char *v, size_t n)
{
	item(w, key);
	xlp_fput_json(w->f, v, n);
}

void jsonw__int(struct jsonw *w, const char *key, int64_t v)
{
	item(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

void jsonw__uint(struct jsonw *w, const char *key, uint64_t v)
{
	item(w, key);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jsonw__round(struct jsonw *w, const char *key, double v)
{
	item(w, key);
	if (isnan(v) || isinf(v))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.0f", round(v) + 0.0); /* + 0.0: never "-0" */
}

void jsonw__num(struct jsonw *w, const char *key, double v)
{
	item(w, key);
	if (isnan(v) || isinf(v))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.6g", v);
}

void jsonw__bool(struct jsonw *w, const char *key, bool v)
{
	item(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jsonw__null(struct jsonw *w, const char *key)
{
	item(w, key);
	fputs("null", w->f);
}

/* A field of 1, 2, 4 or 8 bytes, zero-extended. */
static uint64_t read_uint(const void *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	}
	memcpy(&u64, p, sizeof(u64));
	return u64;
}

/* The same bytes, sign-extended (>> of a negative value is arithmetic in GCC and clang). */
static int64_t read_int(const void *p, size_t size)
{
	unsigned shift = 64 - 8 * (unsigned)size;

	return (int64_t)(read_uint(p, size) << shift) >> shift;
}

void jsonw__fields(struct jsonw *w, const void *obj, const struct jsonw_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const void *p = (const char *)obj + f[i].off;
		const char *s;
		double d;
		bool b;

		switch (f[i].kind) {
		case JSONW_K_BOOL:
			memcpy(&b, p, sizeof(b));
			jsonw__bool(w, f[i].key, b);
			break;
		case JSONW_K_UINT:
			jsonw__uint(w, f[i].key, read_uint(p, f[i].size));
			break;
		case JSONW_K_INT:
			jsonw__int(w, f[i].key, read_int(p, f[i].size));
			break;
		case JSONW_K_NUM:
		case JSONW_K_ROUND:
			memcpy(&d, p, sizeof(d));
			if (f[i].kind == JSONW_K_NUM)
				jsonw__num(w, f[i].key, d);
			else
				jsonw__round(w, f[i].key, d);
			break;
		case JSONW_K_STR:
			memcpy(&s, p, sizeof(s));
			jsonw__str(w, f[i].key, s);
			break;
		}
	}
}
