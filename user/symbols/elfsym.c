/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --func BINARY:SYMBOL resolution, the public API: split the spec, find the
 * file (elfsym_find.c), read its symbols (elf_read.c, and its debug file's
 * when it has no .symtab), pick the functions SYMBOL names (elfsym_pick.c),
 * then make one target per function address. elfsym_int.h maps the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elfsym.h"
#include "elfsym_int.h"

int ebuf__fail(struct ebuf *e, int ret, const char *fmt, ...)
{
	va_list ap;

	if (e->s && e->len) {
		va_start(ap, fmt);
		vsnprintf(e->s, e->len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int fill_target(const struct bin *b, const struct sym *s, struct elfsym_target *t,
		       struct ebuf *e)
{
	uint8_t code[16];
	ssize_t got;

	if (elf_read__offset(b, s->value, &t->offset))
		return ebuf__fail(e, -ENOEXEC,
				  "'%s' in %s is at 0x%" PRIx64 ", outside the file's loadable "
				  "segments: its symbols do not match the file",
				  s->name, b->path, s->value);
	/* a function at the end of the file has fewer bytes: decode what is there */
	got = pread(b->fd, code, sizeof(code), (off_t)t->offset);
	t->needs_single_step = elfsym__needs_single_step(code, got > 0 ? (size_t)got : 0);
	t->vaddr = s->value;
	t->size = s->size;
	t->ifunc = s->type == STT_GNU_IFUNC;
	t->source = s->src;
	memcpy(t->build_id, b->build_id, sizeof(t->build_id));
	t->binary = strdup(b->path);
	t->symbol = strdup(s->name);
	return t->binary && t->symbol ? 0 : -ENOMEM;
}

static int make_targets(const struct bin *b, const struct sym **picks, size_t n,
			struct elfsym_target **out, struct ebuf *e)
{
	struct elfsym_target *t = calloc(n, sizeof(*t));
	int ret = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++)
		ret = fill_target(b, picks[i], &t[i], e);
	if (ret) {
		elfsym__free_targets(t, n);
		return ret;
	}
	*out = t;
	return 0;
}

/*
 * BINARY:SYMBOL splits at the first ':' that is not part of a C++ "::": at
 * the first run of colons of odd length, its first colon. So
 * "/usr/bin/node:node::Foo" and "libc.so.6:malloc" split after the file,
 * "app:::foo" names ::foo; BINARY holds no ':'.
 */
static const char *spec_colon(const char *spec)
{
	for (const char *p = spec ? strchr(spec, ':') : NULL; p; p = strchr(p, ':')) {
		size_t n = strspn(p, ":");

		if (n % 2)
			return p;
		p += n;
	}
	return NULL;
}

static int split_spec(const char *spec, char **bin, const char **sym, struct ebuf *e)
{
	const char *colon = spec_colon(spec);

	if (!colon || colon == spec || !colon[1])
		return ebuf__fail(e, -EINVAL,
				  "bad --func '%s': expected BINARY:SYMBOL, e.g. ./app:parse_json, "
				  "libc.so.6:malloc or ./app:'ns::Klass::*'",
				  spec ? spec : "");
	*bin = strndup(spec, colon - spec);
	*sym = colon + 1;
	return *bin ? 0 : -ENOMEM;
}

int elfsym__resolve(const char *spec, int pid, struct elfsym_target **targets, size_t *n, char *err,
		    size_t errlen)
{
	struct ebuf e = {err, errlen};
	struct elfsym_target *t = NULL, *all;
	const struct sym **picks = NULL;
	char *name = NULL, *path = NULL;
	struct bin *b = NULL;
	size_t npicks = 0;
	const char *sym = NULL;
	int ret;

	if (err && errlen)
		err[0] = 0;
	ret = split_spec(spec, &name, &sym, &e);
	if (!ret)
		ret = elfsym_find__binary(name, pid, &path, &e);
	if (!ret)
		ret = elf_read__bin_open(path, &b, &e);
	if (!ret && !b->has_symtab)
		ret = elfsym_find__debug_syms(b);
	if (!ret)
		ret = elfsym_pick__syms(b, sym, &picks, &npicks, &e);
	if (!ret)
		ret = make_targets(b, picks, npicks, &t, &e);
	if (ret)
		goto cleanup;
	all = realloc(*targets, (*n + npicks) * sizeof(*all));
	if (!all) {
		ret = -ENOMEM;
		elfsym__free_targets(t, npicks);
		goto cleanup;
	}
	memcpy(all + *n, t, npicks * sizeof(*t));
	free(t);
	*targets = all;
	*n += npicks;
cleanup:
	if (ret && err && errlen && !err[0])
		snprintf(err, errlen, "--func '%s': %s", spec ? spec : "", strerror(-ret));
	elf_read__bin_close(b);
	free(picks);
	free(path);
	free(name);
	return ret;
}

void elfsym__free_targets(struct elfsym_target *t, size_t n)
{
	if (!t)
		return;
	for (size_t i = 0; i < n; i++) {
		free(t[i].binary);
		free(t[i].symbol);
	}
	free(t);
}
