/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Picking the functions the SYMBOL part of a spec names: an exact name, an
 * fnmatch(3) glob or a file offset, one symbol per address (.symtab and
 * .dynsym repeat names, and libraries export aliases), the preferred name
 * of each.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "elfsym_int.h"
#include "minidebug.h"
#include "util.h"

typedef bool (*sym_pred)(const struct bin *b, const struct sym *s, const void *arg);

bool elfsym_pick__has_funcs(const struct bin *b)
{
	for (size_t i = 0; i < b->nsyms; i++)
		if (sym_is_func(&b->syms[i]))
			return true;
	return false;
}

/* Exact names may be unsized: hand-written assembly often is. */
static bool pred_name(const struct bin *b, const struct sym *s, const void *arg)
{
	return sym_is_func(s) && !strcmp(s->name, arg);
}

static bool pred_glob(const struct bin *b, const struct sym *s, const void *arg)
{
	return sym_is_func(s) && s->size && !fnmatch(arg, s->name, 0);
}

/*
 * C++ and Rust names as users write them: when no symbol matches as it
 * is, SYMBOL is matched against the demangled names, whole
 * ("ns::Klass::handle(int)") or without the parameter list
 * ("ns::Klass::handle"). hits[i]: whether b->syms[i] matched, demangled
 * once per symbol.
 */
struct dmatch {
	const char *spec;
	bool glob;
	bool *hits;
};

static bool dname_match(const char *name, const char *spec, bool glob)
{
	char out[DEMANGLE_MAX_OUT];

	if (!demangle__maybe(name) || !demangle__name(name, out, sizeof(out)))
		return false;
	if (glob ? !fnmatch(spec, out, 0) : !strcmp(spec, out))
		return true;
	return demangle__bare(name, out, sizeof(out)) &&
	       (glob ? !fnmatch(spec, out, 0) : !strcmp(spec, out));
}

static bool pred_dname(const struct bin *b, const struct sym *s, const void *arg)
{
	return ((const struct dmatch *)arg)->hits[s - b->syms];
}

static bool pred_offset(const struct bin *b, const struct sym *s, const void *arg)
{
	uint64_t off;

	return sym_is_func(s) && !elf_read__offset(b, s->value, &off) &&
	       off == *(const uint64_t *)arg;
}

/* Weak aliases are how libraries export plain names: rank them as global. */
static int bind_rank(const struct sym *s)
{
	switch (s->bind) {
	case STB_GLOBAL:
	case STB_WEAK:
		return 0;
	case STB_LOCAL:
		return 1;
	default:
		return 2;
	}
}

int elfsym_pick__alias_pref(const struct sym *a, const struct sym *b)
{
	int d = bind_rank(a) - bind_rank(b);

	if (!d)
		d = (int)strspn(a->name, "_") - (int)strspn(b->name, "_");
	if (!d)
		d = strcmp(a->name, b->name);
	/* one name in .symtab and .dynsym: the fuller table is said to name it */
	return d ? d : (a->src == XLP_SYM_SRC_DYNSYM) - (b->src == XLP_SYM_SRC_DYNSYM);
}

/* By address, the preferred alias first. */
static int alias_cmp(const void *pa, const void *pb)
{
	const struct sym *a = *(const struct sym *const *)pa;
	const struct sym *b = *(const struct sym *const *)pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return elfsym_pick__alias_pref(a, b);
}

/* Matching symbols, one per address (.symtab and .dynsym repeat names). */
static int collect(const struct bin *b, sym_pred pred, const void *arg, const struct sym ***out,
		   size_t *n)
{
	const struct sym **p = NULL;
	size_t k = 0, cnt = 0;

	for (size_t i = 0; i < b->nsyms; i++)
		cnt += pred(b, &b->syms[i], arg);
	if (cnt && !(p = malloc(cnt * sizeof(*p))))
		return -ENOMEM;
	for (size_t i = 0, j = 0; i < b->nsyms; i++)
		if (pred(b, &b->syms[i], arg))
			p[j++] = &b->syms[i];
	if (cnt)
		xlp_sort(p, cnt, sizeof(*p), alias_cmp);
	for (size_t i = 0; i < cnt; i++)
		if (!k || p[i]->value != p[k - 1]->value)
			p[k++] = p[i];
	*out = p;
	*n = k;
	return 0;
}

int elfsym_pick__stripped_error(const struct bin *b, struct ebuf *e)
{
	if (b->mini_why >= 0)
		return ebuf__fail(e, -ENOENT,
				  "%s has no function symbols (stripped) and its .gnu_debugdata "
				  "(MiniDebugInfo) is %s: install its debug symbols",
				  b->path, minidebug__refusal_str(b->mini_why));
	return ebuf__fail(e, -ENOENT,
			  "%s has no function symbols (stripped): use an unstripped build or "
			  "install its debug symbols",
			  b->path);
}

static int offset_error(const struct bin *b, uint64_t off, struct ebuf *e)
{
	for (size_t i = 0; i < b->nsyms; i++) {
		const struct sym *s = &b->syms[i];
		uint64_t start;

		if (!sym_is_func(s) || elf_read__offset(b, s->value, &start))
			continue;
		if (off > start && off - start < s->size)
			return ebuf__fail(e, -EINVAL,
					  "offset 0x%" PRIx64 " in %s is not at a function start "
					  "(inside %s+0x%" PRIx64
					  "): use SYMBOL or the function's start",
					  off, b->path, s->name, off - start);
	}
	return ebuf__fail(e, -EINVAL,
			  "offset 0x%" PRIx64 " in %s is not inside any function: use SYMBOL or "
			  "a function's start",
			  off, b->path);
}

static bool parse_offset(const char *s, uint64_t *off)
{
	char *end;

	if (strncmp(s, "0x", 2) || !isxdigit((unsigned char)s[2]))
		return false;
	errno = 0;
	*off = strtoull(s + 2, &end, 16);
	return !*end && !errno;
}

static int collect_demangled(const struct bin *b, const char *spec, bool glob,
			     const struct sym ***out, size_t *n)
{
	struct dmatch m = {spec, glob, calloc(b->nsyms ? b->nsyms : 1, sizeof(bool))};
	int ret;

	if (!m.hits)
		return -ENOMEM;
	for (size_t i = 0; i < b->nsyms; i++) {
		const struct sym *s = &b->syms[i];

		m.hits[i] =
			sym_is_func(s) && (!glob || s->size) && dname_match(s->name, spec, glob);
	}
	ret = collect(b, pred_dname, &m, out, n);
	free(m.hits);
	return ret;
}

int elfsym_pick__syms(const struct bin *b, const char *spec, const struct sym ***out, size_t *n,
		      struct ebuf *e)
{
	uint64_t off;
	int ret;

	if (parse_offset(spec, &off)) {
		ret = collect(b, pred_offset, &off, out, n);
		if (ret || *n)
			return ret;
		return elfsym_pick__has_funcs(b) ? offset_error(b, off, e)
						 : elfsym_pick__stripped_error(b, e);
	}
	if (strpbrk(spec, "*?[")) {
		ret = collect(b, pred_glob, spec, out, n);
		if (!ret && !*n) {
			free(*out);
			ret = collect_demangled(b, spec, true, out, n);
		}
		if (ret || *n)
			return ret;
		if (!elfsym_pick__has_funcs(b))
			return elfsym_pick__stripped_error(b, e);
		if (strstr(spec, "::"))
			return ebuf__fail(
				e, -ENOENT,
				"pattern '%s' matched no function in %s, by its demangled "
				"name either: check the names with nm -C",
				spec, b->path);
		return ebuf__fail(e, -ENOENT, "pattern '%s' matched no function in %s", spec,
				  b->path);
	}
	ret = collect(b, pred_name, spec, out, n);
	if (!ret && !*n) {
		free(*out);
		ret = collect_demangled(b, spec, false, out, n);
	}
	if (ret || *n)
		return ret;
	/* a demangled name: the raw names' suggestions would not help */
	if (strstr(spec, "::") || strchr(spec, '('))
		return ebuf__fail(e, -ENOENT,
				  "'%s' is no function of %s, by its demangled name (whole, or "
				  "without its parameter list): check the name with nm -C, or "
				  "use a glob, e.g. '%s*'",
				  spec, b->path, spec);
	return elfsym_suggest__name_error(b, spec, e);
}
