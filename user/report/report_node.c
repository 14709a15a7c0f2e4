/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report model's tree (report_model.h): nodes in one growable array,
 * linked by index (the array moves while it grows), built depth first like
 * a JSON writer writes, read by key, and written as JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "report_model.h"
#include "util.h"

#define NONE UINT32_MAX

struct report_node {
	const char *key; /* static, NULL in arrays */
	char *s;	 /* REPORT_STR (NULL: null) */
	double d;	 /* REPORT_NUM, REPORT_ROUND */
	uint64_t u;	 /* REPORT_UINT, REPORT_BOOL */
	int64_t i;	 /* REPORT_INT */
	uint8_t kind, unit;
	bool shown_only;
	uint32_t first, next, len; /* first child, next sibling, children */
	/* the child report_node__at found last, and its index: a loop over an
	 * array reads each item in one step, not from the first (a cache, so
	 * written through the model's own non-const pointer) */
	uint32_t at_i, at_k;
	struct report_model *m;
};

struct report_model {
	struct report_node *n;
	size_t nn, cap;
	uint32_t open[JSONW_MAX_DEPTH],
		last[JSONW_MAX_DEPTH]; /* open containers, their last child */
	int depth;
	bool shown_only, failed;
};

static const struct report_node *node_at(const struct report_model *m, uint32_t i)
{
	return i == NONE ? NULL : &m->n[i];
}

/* A new node under the innermost open container; NULL when out of memory. */
static struct report_node *add(struct report_model *m, const char *key, enum report_kind kind)
{
	struct report_node *n;
	uint32_t i = (uint32_t)m->nn, p;

	if (m->failed)
		return NULL;
	if (xlp_grow((void **)&m->n, &m->cap, m->nn, sizeof(*m->n))) {
		m->failed = true;
		return NULL;
	}
	n = &m->n[m->nn++];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->kind = kind;
	n->shown_only = m->shown_only;
	n->first = n->next = n->at_k = NONE;
	n->m = m;
	if (m->depth > 0) {
		p = m->open[m->depth - 1];
		if (m->last[m->depth - 1] == NONE)
			m->n[p].first = i;
		else
			m->n[m->last[m->depth - 1]].next = i;
		m->last[m->depth - 1] = i;
		m->n[p].len++;
	}
	return n;
}

static void begin(struct report_model *m, const char *key, enum report_kind kind)
{
	if (!add(m, key, kind))
		return;
	if (m->depth >= JSONW_MAX_DEPTH) {
		m->failed = true;
		return;
	}
	m->open[m->depth] = (uint32_t)(m->nn - 1);
	m->last[m->depth++] = NONE;
}

void report_model__begin_obj(struct report_model *m, const char *key)
{
	begin(m, key, REPORT_OBJ);
}

void report_model__begin_arr(struct report_model *m, const char *key)
{
	begin(m, key, REPORT_ARR);
}

void report_model__end_obj(struct report_model *m)
{
	if (m->depth > 0 && !m->failed)
		m->depth--;
}

void report_model__end_arr(struct report_model *m)
{
	report_model__end_obj(m);
}

void report_model__strn(struct report_model *m, const char *key, const char *v, size_t len)
{
	struct report_node *n = add(m, key, REPORT_STR);

	if (!n || !v)
		return;
	n->s = strndup(v, len);
	if (!n->s)
		m->failed = true;
}

void report_model__str(struct report_model *m, const char *key, const char *v)
{
	report_model__strn(m, key, v, v ? strlen(v) : 0);
}

void report_model__strs(struct report_model *m, const char *key, const char *const *v, size_t n)
{
	report_model__begin_arr(m, key);
	for (size_t i = 0; i < n; i++)
		report_model__str(m, NULL, v[i]);
	report_model__end_arr(m);
}

void report_model__int(struct report_model *m, const char *key, int64_t v)
{
	struct report_node *n = add(m, key, REPORT_INT);

	if (n)
		n->i = v;
}

void report_model__uint(struct report_model *m, const char *key, uint64_t v)
{
	struct report_node *n = add(m, key, REPORT_UINT);

	if (n)
		n->u = v;
}

void report_model__measure(struct report_model *m, const char *key, double v, enum report_unit unit)
{
	struct report_node *n = add(m, key, REPORT_ROUND);

	if (n) {
		n->d = v;
		n->unit = unit;
	}
}

/* A key names a duration in ns: "ns", "*_ns", "*_ns_per_run" (docs/json.md's convention). */
static bool ns_key(const char *key)
{
	size_t k = key ? strlen(key) : 0;

	return k && (!strcmp(key, "ns") || (k > 3 && !strcmp(key + k - 3, "_ns")) ||
		     strstr(key, "_ns_"));
}

void report_model__round(struct report_model *m, const char *key, double v)
{
	report_model__measure(m, key, v, ns_key(key) ? REPORT_UNIT_NS : REPORT_UNIT_NONE);
}

void report_model__feat_value(struct report_model *m, const char *key, enum diagnosis_feat f,
			      double v)
{
	report_model__measure(m, key, v,
			      f == DIAGNOSIS_CPU_FREQ ? REPORT_UNIT_KHZ : REPORT_UNIT_NS);
}

void report_model__num(struct report_model *m, const char *key, double v)
{
	struct report_node *n = add(m, key, REPORT_NUM);

	if (n)
		n->d = v;
}

void report_model__bool(struct report_model *m, const char *key, bool v)
{
	struct report_node *n = add(m, key, REPORT_BOOL);

	if (n)
		n->u = v;
}

void report_model__null(struct report_model *m, const char *key)
{
	add(m, key, REPORT_NULL);
}

void report_model__shown_only(struct report_model *m, bool on)
{
	m->shown_only = on;
}

/* A struct member of 1 to 8 bytes, zero-extended (memcpy: no aliasing of its type). */
static uint64_t member(const void *p, size_t size)
{
	uint64_t u = 0;

	memcpy(&u, p, size < sizeof(u) ? size : sizeof(u));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	u >>= 64 - 8 * size;
#endif
	return u;
}

void report_model__fields(struct report_model *m, const void *obj, const struct jsonw_field *f,
			  size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const void *p = (const char *)obj + f[i].off;
		unsigned shift = 64 - 8 * (unsigned)f[i].size;
		uint64_t u;
		const char *s;
		double d;

		switch (f[i].kind) {
		case JSONW_K_BOOL:
			report_model__bool(m, f[i].key, member(p, sizeof(bool)) != 0);
			break;
		case JSONW_K_UINT:
			report_model__uint(m, f[i].key, member(p, f[i].size));
			break;
		case JSONW_K_INT:
			/* sign-extended (>> of a negative value is arithmetic in GCC and clang) */
			u = member(p, f[i].size);
			report_model__int(m, f[i].key, (int64_t)(u << shift) >> shift);
			break;
		case JSONW_K_NUM:
		case JSONW_K_ROUND:
			memcpy(&d, p, sizeof(d));
			if (f[i].kind == JSONW_K_NUM)
				report_model__num(m, f[i].key, d);
			else
				report_model__round(m, f[i].key, d);
			break;
		case JSONW_K_STR:
			memcpy(&s, p, sizeof(s));
			report_model__str(m, f[i].key, s);
			break;
		}
	}
}

struct report_model *report_node__new_model(void)
{
	return calloc(1, sizeof(struct report_model));
}

bool report_node__failed(const struct report_model *m)
{
	return m->failed || m->depth;
}

void report_model__free(struct report_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nn; i++)
		free(m->n[i].s);
	free(m->n);
	free(m);
}

const struct report_node *report_model__root(const struct report_model *m)
{
	return m && m->nn ? &m->n[0] : NULL;
}

/* ---- reading ---- */

static const struct report_node *child(const struct report_node *n, const char *key, size_t len)
{
	if (!n)
		return NULL;
	for (uint32_t i = n->first; i != NONE; i = n->m->n[i].next) {
		const struct report_node *c = &n->m->n[i];

		if (c->key && strlen(c->key) == len && !memcmp(c->key, key, len))
			return c;
	}
	return NULL;
}

const struct report_node *report_node__get(const struct report_node *n, const char *path)
{
	while (n && *path) {
		size_t len = strcspn(path, ".");

		n = child(n, path, len);
		path += len + (path[len] == '.');
	}
	return n;
}

size_t report_node__len(const struct report_node *n)
{
	return n ? n->len : 0;
}

const struct report_node *report_node__at(const struct report_node *n, size_t i)
{
	struct report_node *w;
	uint32_t k = NONE, from = 0;

	if (!n || i >= n->len)
		return NULL;
	w = &n->m->n[n - n->m->n];
	if (w->at_k != NONE && w->at_i <= i) {
		k = w->at_k;
		from = w->at_i;
	} else {
		k = n->first;
	}
	for (; from < i; from++)
		k = n->m->n[k].next;
	w->at_i = (uint32_t)i;
	w->at_k = k;
	return node_at(n->m, k);
}

enum report_kind report_node__kind(const struct report_node *n)
{
	return n ? (enum report_kind)n->kind : REPORT_NULL;
}

bool report_node__is_null(const struct report_node *n)
{
	/* what the JSON writes as null: a NaN or infinite measure too */
	return !n || n->kind == REPORT_NULL || (n->kind == REPORT_STR && !n->s) ||
	       ((n->kind == REPORT_NUM || n->kind == REPORT_ROUND) && !isfinite(n->d));
}

double report_node__num(const struct report_node *n)
{
	switch (report_node__kind(n)) {
	case REPORT_BOOL:
	case REPORT_UINT:
		return (double)n->u;
	case REPORT_INT:
		return (double)n->i;
	case REPORT_NUM:
	case REPORT_ROUND:
		return n->d;
	default:
		return NAN;
	}
}

uint64_t report_node__uint(const struct report_node *n)
{
	double d;

	switch (report_node__kind(n)) {
	case REPORT_BOOL:
	case REPORT_UINT:
		return n->u;
	case REPORT_INT:
		return n->i < 0 ? 0 : (uint64_t)n->i;
	default:
		d = report_node__num(n);
		return isnan(d) || d < 0 ? 0 : (uint64_t)d;
	}
}

bool report_node__bool(const struct report_node *n)
{
	return report_node__kind(n) == REPORT_BOOL && n->u;
}

const char *report_node__str(const struct report_node *n)
{
	return report_node__kind(n) == REPORT_STR ? n->s : NULL;
}

double report_node__num_at(const struct report_node *n, const char *path)
{
	return report_node__num(report_node__get(n, path));
}

uint64_t report_node__uint_at(const struct report_node *n, const char *path)
{
	return report_node__uint(report_node__get(n, path));
}

bool report_node__bool_at(const struct report_node *n, const char *path)
{
	return report_node__bool(report_node__get(n, path));
}

const char *report_node__str_at(const struct report_node *n, const char *path)
{
	return report_node__str(report_node__get(n, path));
}

const char *report_node__fmt(const struct report_node *n, char *buf, size_t len)
{
	double v = report_node__num(n);

	if (n && n->unit == REPORT_UNIT_KHZ)
		return report__value(DIAGNOSIS_CPU_FREQ, v, buf, len);
	if (n && n->unit == REPORT_UNIT_NS)
		return report__dur(v, buf, len);
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%g", v);
	return buf;
}

const char *report_node__fmt_at(const struct report_node *n, const char *path, char *buf,
				size_t len)
{
	return report_node__fmt(report_node__get(n, path), buf, len);
}

void report_node__print(FILE *f, const struct report_node *n, const char *tmpl)
{
	static const char path_chars[] = "abcdefghijklmnopqrstuvwxyz"
					 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";
	const char *p = tmpl, *e;
	char path[64], v[64];

	while ((e = strchr(p, '{'))) {
		bool whole = e[1] == '#';
		size_t k = strspn(e + 1 + whole, path_chars);

		fwrite(p, 1, (size_t)(e - p), f);
		p = e + 1;
		/* {path} or {#path}; any other brace is text */
		if (!k || k >= sizeof(path) || e[1 + whole + k] != '}') {
			fputc('{', f);
			continue;
		}
		memcpy(path, e + 1 + whole, k);
		path[k] = 0;
		if (whole)
			fprintf(f, "%llu", (unsigned long long)report_node__uint_at(n, path));
		else
			fputs(report_node__fmt_at(n, path, v, sizeof(v)), f);
		p = e + 2 + whole + k;
	}
	fputs(p, f);
}

/* ---- the JSON renderer: the tree as it is, shown-only nodes left out ---- */

static void json_node(struct jsonw *w, const struct report_node *n)
{
	if (n->shown_only)
		return;
	switch ((enum report_kind)n->kind) {
	case REPORT_NULL:
		jsonw__null(w, n->key);
		break;
	case REPORT_OBJ:
	case REPORT_ARR:
		if (n->kind == REPORT_OBJ)
			jsonw__begin_obj(w, n->key);
		else
			jsonw__begin_arr(w, n->key);
		for (uint32_t i = n->first; i != NONE; i = n->m->n[i].next)
			json_node(w, &n->m->n[i]);
		if (n->kind == REPORT_OBJ)
			jsonw__end_obj(w);
		else
			jsonw__end_arr(w);
		break;
	case REPORT_BOOL:
		jsonw__bool(w, n->key, n->u);
		break;
	case REPORT_UINT:
		jsonw__uint(w, n->key, n->u);
		break;
	case REPORT_INT:
		jsonw__int(w, n->key, n->i);
		break;
	case REPORT_NUM:
		jsonw__num(w, n->key, n->d);
		break;
	case REPORT_ROUND:
		jsonw__round(w, n->key, n->d);
		break;
	case REPORT_STR:
		jsonw__str(w, n->key, n->s);
		break;
	}
}

int report_model__json(const struct report_model *m, FILE *f)
{
	struct jsonw w;

	if (!report_model__root(m))
		return -EINVAL;
	jsonw__init(&w, f);
	json_node(&w, report_model__root(m));
	return ferror(f) ? -EIO : 0;
}
