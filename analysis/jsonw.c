/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <math.h>
#include "jsonw.h"

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Separator, newline, indent and key of the next item. */
static void item(struct jsonw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->has_items[w->depth])
			fputc(',', w->f);
		fputc('\n', w->f);
		fprintf(w->f, "%*s", 2 * w->depth, "");
		w->has_items[w->depth] = true;
	}
	if (key) {
		put_string(w->f, key);
		fputs(": ", w->f);
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
	bool items = w->has_items[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (items) {
		fputc('\n', w->f);
		fprintf(w->f, "%*s", 2 * w->depth, "");
	}
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
		put_string(w->f, v);
	else
		fputs("null", w->f);
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
