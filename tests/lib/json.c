/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Recursive-descent JSON parser (RFC 8259), small and strict, for tests. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

#define MAX_DEPTH 128

struct parser {
	const char *s, *p;
	char *err;
	size_t errlen;
	bool failed;
};

static struct json *parse_value(struct parser *ps, int depth);

static void fail(struct parser *ps, const char *what)
{
	if (!ps->failed && ps->err)
		snprintf(ps->err, ps->errlen, "%s at offset %zu", what, (size_t)(ps->p - ps->s));
	ps->failed = true;
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static struct json *new_node(struct parser *ps, enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		fail(ps, "out of memory");
	else
		j->type = t;
	return j;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One escape after the backslash; returns bytes written to o, 0 on error. */
static size_t escape(struct parser *ps, char *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = strchr(from, *ps->p);
	unsigned cp, lo;

	if (*ps->p && e) {
		ps->p++;
		*o = to[e - from];
		return 1;
	}
	if (*ps->p != 'u' || hex4(ps->p + 1, &cp))
		return 0;
	ps->p += 5;
	if (cp >= 0xd800 && cp < 0xdc00) { /* surrogate pair */
		if (ps->p[0] != '\\' || ps->p[1] != 'u' || hex4(ps->p + 2, &lo) || lo < 0xdc00 ||
		    lo > 0xdfff)
			return 0;
		ps->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return put_utf8(o, cp);
}

/*
 * Length of the valid UTF-8 sequence at p, 0 if none (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF). Written here, not
 * taken from user/escape.c, so the check is independent of the writer.
 */
static size_t utf8_seq(const unsigned char *p)
{
	size_t len = p[0] < 0x80	     ? 1
		     : (p[0] & 0xe0) == 0xc0 ? 2
		     : (p[0] & 0xf0) == 0xe0 ? 3
		     : (p[0] & 0xf8) == 0xf0 ? 4
					     : 0;
	unsigned cp;

	if (!len)
		return 0;
	cp = len == 1 ? p[0] : p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static char *parse_string(struct parser *ps)
{
	size_t cap = strlen(ps->p) + 1, n = 0;
	char *o = malloc(cap);

	if (!o) {
		fail(ps, "out of memory");
		return NULL;
	}
	ps->p++; /* opening quote */
	while (*ps->p != '"') {
		if (!*ps->p || (unsigned char)*ps->p < 0x20) {
			fail(ps, "unterminated string");
			free(o);
			return NULL;
		}
		if (*ps->p != '\\') {
			size_t u = utf8_seq((const unsigned char *)ps->p);

			/* JSON text is UTF-8 (RFC 8259 section 8.1) */
			if (!u) {
				fail(ps, "invalid UTF-8 in a string");
				free(o);
				return NULL;
			}
			memcpy(o + n, ps->p, u);
			n += u;
			ps->p += u;
			continue;
		}
		ps->p++;
		size_t k = escape(ps, o + n);

		if (!k) {
			fail(ps, "bad escape");
			free(o);
			return NULL;
		}
		n += k;
	}
	ps->p++;
	o[n] = 0;
	return o;
}

static struct json *parse_number(struct parser *ps)
{
	const char *q = ps->p;
	struct json *j;
	char *end;

	if (*q == '-')
		q++;
	if (!(*q >= '0' && *q <= '9')) {
		fail(ps, "bad value");
		return NULL;
	}
	j = new_node(ps, JSON_NUM);
	if (!j)
		return NULL;
	j->num = strtod(ps->p, &end);
	ps->p = end;
	return j;
}

static int push(struct parser *ps, struct json *c, struct json *item, char *key)
{
	struct json **ni = realloc(c->items, (c->n + 1) * sizeof(*ni));
	char **nk;

	if (!ni)
		goto nomem;
	c->items = ni;
	if (c->type == JSON_OBJ) {
		nk = realloc(c->keys, (c->n + 1) * sizeof(*nk));
		if (!nk)
			goto nomem;
		c->keys = nk;
		c->keys[c->n] = key;
	}
	c->items[c->n++] = item;
	return 0;
nomem:
	fail(ps, "out of memory");
	json__free(item);
	free(key);
	return -1;
}

static struct json *parse_container(struct parser *ps, int depth, bool obj)
{
	struct json *c = new_node(ps, obj ? JSON_OBJ : JSON_ARR);
	char close = obj ? '}' : ']';

	if (!c)
		return NULL;
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return c;
	}
	for (;;) {
		char *key = NULL;
		struct json *v;

		skip_ws(ps);
		if (obj) {
			if (*ps->p != '"' || !(key = parse_string(ps)))
				goto bad;
			skip_ws(ps);
			if (*ps->p++ != ':') {
				free(key);
				goto bad;
			}
		}
		v = parse_value(ps, depth + 1);
		if (!v || push(ps, c, v, key)) {
			if (!v)
				free(key);
			goto bad;
		}
		skip_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p++ == close)
			return c;
		goto bad;
	}
bad:
	fail(ps, obj ? "bad object" : "bad array");
	json__free(c);
	return NULL;
}

static struct json *literal(struct parser *ps, const char *word, enum json_type t, bool b)
{
	struct json *j;

	if (strncmp(ps->p, word, strlen(word))) {
		fail(ps, "bad literal");
		return NULL;
	}
	ps->p += strlen(word);
	j = new_node(ps, t);
	if (j)
		j->b = b;
	return j;
}

static struct json *parse_value(struct parser *ps, int depth)
{
	struct json *j;

	if (depth > MAX_DEPTH) {
		fail(ps, "nested too deeply");
		return NULL;
	}
	skip_ws(ps);
	switch (*ps->p) {
	case '{':
		return parse_container(ps, depth, true);
	case '[':
		return parse_container(ps, depth, false);
	case '"':
		j = new_node(ps, JSON_STR);
		if (j && !(j->str = parse_string(ps))) {
			free(j);
			j = NULL;
		}
		return j;
	case 't':
		return literal(ps, "true", JSON_BOOL, true);
	case 'f':
		return literal(ps, "false", JSON_BOOL, false);
	case 'n':
		return literal(ps, "null", JSON_NULL, false);
	default:
		return parse_number(ps);
	}
}

struct json *json__parse(const char *text, char *err, size_t errlen)
{
	struct parser ps = {.s = text, .p = text, .err = err, .errlen = errlen};
	struct json *j = parse_value(&ps, 0);

	if (j) {
		skip_ws(&ps);
		if (*ps.p) {
			fail(&ps, "trailing characters");
			json__free(j);
			j = NULL;
		}
	}
	return j;
}

struct json *json__load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	struct json *j = NULL;

	if (!f) {
		snprintf(err, errlen, "cannot open %s", path);
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 8192);

			if (!nb)
				goto cleanup;
			buf = nb;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n);
	buf[len] = 0;
	j = json__parse(buf, err, errlen);
cleanup:
	fclose(f);
	free(buf);
	return j;
}

void json__free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		json__free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct json *json__key(const struct json *j, const char *key)
{
	if (!j || j->type != JSON_OBJ)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return j->items[i];
	return NULL;
}

const struct json *json__at(const struct json *j, size_t i)
{
	if (!j || (j->type != JSON_ARR && j->type != JSON_OBJ) || i >= j->n)
		return NULL;
	return j->items[i];
}

const struct json *json__get(const struct json *j, const char *path)
{
	char key[256];

	while (j && *path) {
		size_t n = 0;

		if (*path == '.') {
			path++;
			continue;
		}
		if (*path == '[') {
			char *end;
			unsigned long i = strtoul(path + 1, &end, 10);

			if (*end != ']')
				return NULL;
			j = json__at(j, i);
			path = end + 1;
			continue;
		}
		while (path[n] && path[n] != '.' && path[n] != '[' && n + 1 < sizeof(key)) {
			key[n] = path[n];
			n++;
		}
		key[n] = 0;
		path += n;
		j = json__key(j, key);
	}
	return j;
}

size_t json__len(const struct json *j)
{
	return j && (j->type == JSON_ARR || j->type == JSON_OBJ) ? j->n : 0;
}

const char *json__str(const struct json *j)
{
	return j && j->type == JSON_STR ? j->str : NULL;
}

double json__num(const struct json *j)
{
	return j && j->type == JSON_NUM ? j->num : NAN;
}

int json__bool(const struct json *j)
{
	return j && j->type == JSON_BOOL ? j->b : -1;
}

bool json__is_null(const struct json *j)
{
	return j && j->type == JSON_NULL;
}

bool json__str_is(const struct json *j, const char *path, const char *want)
{
	const char *s = json__str(json__get(j, path));

	return s && !strcmp(s, want);
}

bool json__by_machine(const struct json *fn)
{
	const struct json *fs = json__key(fn, "factors");

	for (size_t k = 0; k < json__len(fs); k++) {
		const char *f = json__str(json__key(json__at(fs, k), "factor"));

		if (!f || (strcmp(f, "cpu_run") && strcmp(f, "cpu_steal")))
			return false;
	}
	return json__len(fs) > 0;
}

const char *json__crafted_critical(char *buf, size_t len, const char *fn, const char *chain,
				   const char *factor, bool sampled, const char *peer)
{
	char p[64] = "null";

	if (peer)
		snprintf(p, sizeof(p), "{\"pid\": 7, \"comm\": \"%s\"}", peer);
	snprintf(buf, len,
		 "{\"function\": \"%s\", \"sampled\": %s, \"chain\": [%s],"
		 " \"factors\": [{\"factor\": \"%s\"}], \"peer\": %s}",
		 fn, sampled ? "true" : "false", chain, factor, p);
	return buf;
}
