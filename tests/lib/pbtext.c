// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pbtext.h"
#include "testlib.h"

static struct pbt *add_kid(struct pbt *p)
{
	struct pbt *k = realloc(p->kids, (p->nkids + 1) * sizeof(*k));

	if (!k)
		return NULL;
	p->kids = k;
	k = &p->kids[p->nkids++];
	memset(k, 0, sizeof(*k));
	return k;
}

/* A quoted string as protoc prints it: C escapes, octal for other bytes. */
static char *unquote(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	if (n < 2 || s[0] != '"' || s[n - 1] != '"') {
		memcpy(out, s, n + 1);
		return out;
	}
	for (size_t i = 1; i < n - 1; i++) {
		if (s[i] != '\\' || i + 1 >= n - 1) {
			*o++ = s[i];
			continue;
		}
		i++;
		if (s[i] >= '0' && s[i] <= '7') {
			int v = 0, k = 0;

			while (k < 3 && i < n - 1 && s[i] >= '0' && s[i] <= '7')
				v = v * 8 + (s[i++] - '0'), k++;
			i--;
			*o++ = (char)v;
		} else {
			*o++ = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : s[i] == 'r' ? '\r' : s[i];
		}
	}
	*o = '\0';
	return out;
}

/* Nested messages are a path from the root: at most this deep. */
#define MAX_DEPTH 32

struct pbt *pbt__parse(const char *text)
{
	struct pbt *root = calloc(1, sizeof(*root));
	char *copy = strdup(text), *save = NULL, *line;
	size_t depth = 0;
	/* kids move when they grow: the path is kept as indexes */
	size_t idx[MAX_DEPTH];

	if (!root || !copy)
		goto bad;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = line, *e, *colon;
		struct pbt *cur = root, *k;

		for (size_t d = 1; d <= depth; d++)
			cur = &cur->kids[idx[d]];
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*s)
			continue;
		if (!strcmp(s, "}")) {
			if (!depth)
				goto bad;
			depth--;
			continue;
		}
		k = add_kid(cur);
		if (!k)
			goto bad;
		if (e - s >= 2 && e[-1] == '{') {
			e[-2] = '\0';
			k->key = strdup(s);
			if (!k->key || ++depth >= MAX_DEPTH)
				goto bad;
			idx[depth] = cur->nkids - 1;
			continue;
		}
		colon = strstr(s, ": ");
		if (!colon)
			goto bad;
		*colon = '\0';
		k->key = strdup(s);
		k->val = unquote(colon + 2);
		if (!k->key || !k->val)
			goto bad;
	}
	free(copy);
	if (depth)
		goto bad_root;
	return root;
bad:
	free(copy);
bad_root:
	pbt__free(root);
	return NULL;
}

static void pbt__free_kids(struct pbt *t)
{
	for (size_t i = 0; i < t->nkids; i++) {
		pbt__free_kids(&t->kids[i]);
		free(t->kids[i].key);
		free(t->kids[i].val);
	}
	free(t->kids);
}

void pbt__free(struct pbt *t)
{
	if (!t)
		return;
	pbt__free_kids(t);
	free(t);
}

const struct pbt *pbt__get(const struct pbt *t, const char *path)
{
	char part[128];
	const char *dot;

	while (t && *path) {
		const struct pbt *next = NULL;
		size_t n;

		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(part))
			return NULL;
		memcpy(part, path, n);
		part[n] = '\0';
		for (size_t i = 0; i < t->nkids && !next; i++)
			if (!strcmp(t->kids[i].key, part))
				next = &t->kids[i];
		t = next;
		path = dot ? dot + 1 : path + n;
	}
	return t;
}

uint64_t pbt__u64(const struct pbt *t, const char *path)
{
	const struct pbt *v = pbt__get(t, path);

	return v && v->val ? strtoull(v->val, NULL, 10) : 0;
}

const char *pbt__str(const struct pbt *t, const char *path)
{
	const struct pbt *v = pbt__get(t, path);

	return v ? v->val : NULL;
}

size_t pbt__count(const struct pbt *t, const char *key)
{
	size_t n = 0;

	for (size_t i = 0; t && i < t->nkids; i++)
		n += !strcmp(t->kids[i].key, key);
	return n;
}

char *pbt__decode(const char *proto, const char *type, const char *bin)
{
	char cmd[4096], dir[2048];
	size_t cap = 1 << 20, len = 0, n;
	char *out = malloc(cap);
	FILE *p;

	if (!out)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/tests/perfetto", tl_root());
	snprintf(cmd, sizeof(cmd), "protoc --proto_path='%s' --decode=%s '%s' < '%s'", dir, type,
		 proto, bin);
	p = popen(cmd, "r");
	if (!p) {
		free(out);
		return NULL;
	}
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *bigger = realloc(out, cap * 2);

			if (!bigger)
				break;
			out = bigger;
			cap *= 2;
		}
	}
	out[len] = '\0';
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
