/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why an exact SYMBOL found nothing, said so that the user can fix the
 * spec: not a function, an import (and from which library, by its version
 * records), a stripped binary, or a typo (the closest function names).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym_int.h"
#include "util.h"

#define MAX_SUGGEST 3
#define DIST_MAXLEN 64 /* names are compared on their first 64 characters */

struct cand {
	const struct sym *s;
	unsigned int dist;
};

/* Optimal string alignment distance, case-insensitive: a swap costs 1. */
unsigned int elfsym_suggest__dist(const char *a, const char *b)
{
	unsigned int rows[3][DIST_MAXLEN + 1], *pp, *p, *c;
	size_t la = strnlen(a, DIST_MAXLEN), lb = strnlen(b, DIST_MAXLEN);

	for (size_t j = 0; j <= lb; j++)
		rows[1][j] = j;
	for (size_t i = 1; i <= la; i++) {
		/* row r lives in rows[(r + 1) % 3] */
		pp = rows[(i + 2) % 3];
		p = rows[i % 3];
		c = rows[(i + 1) % 3];
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int cost = tolower(a[i - 1]) != tolower(b[j - 1]);
			unsigned int v = p[j - 1] + cost;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && tolower(a[i - 1]) == tolower(b[j - 2]) &&
			    tolower(a[i - 2]) == tolower(b[j - 1]) && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
	}
	return rows[(la + 1) % 3][lb];
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return elfsym_pick__alias_pref(a->s, b->s);
}

/*
 * Up to MAX_SUGGEST function names close to name, "a, b, c", into out.
 * A name containing the query counts as at the distance limit, so "gamma"
 * finds parse_gamma but close misspellings still come first. One name per
 * address: libc's malloc, not its __libc_malloc alias.
 */
static void suggest(const struct bin *b, const char *name, char *out, size_t len)
{
	size_t qlen = strlen(name), nc = 0, nkept = 0, used = 0;
	unsigned int limit = qlen / 2 > 2 ? qlen / 2 : 2;
	struct cand *c = malloc(b->nsyms * sizeof(*c) + 1);
	const struct sym *kept[MAX_SUGGEST];

	out[0] = 0;
	if (!c)
		return;
	for (size_t i = 0; i < b->nsyms; i++) {
		const struct sym *s = &b->syms[i];
		unsigned int d = sym_is_func(s) ? elfsym_suggest__dist(name, s->name) : UINT_MAX;

		if (d > limit && d != UINT_MAX && qlen >= 3 && strcasestr(s->name, name))
			d = limit;
		if (d <= limit)
			c[nc++] = (struct cand){s, d};
	}
	xlp_sort(c, nc, sizeof(*c), cand_cmp);
	for (size_t i = 0; i < nc && nkept < MAX_SUGGEST; i++) {
		bool dup = false;

		for (size_t k = 0; k < nkept; k++)
			dup |= kept[k]->value == c[i].s->value ||
			       !strcmp(kept[k]->name, c[i].s->name);
		if (dup)
			continue;
		kept[nkept] = c[i].s;
		if (used < len)
			used += snprintf(out + used, len - used, "%s%s", nkept ? ", " : "",
					 c[i].s->name);
		nkept++;
	}
	free(c);
}

/* A defined symbol of that name if any, else an undefined one (an import). */
static const struct sym *find_any(const struct bin *b, const char *name)
{
	const struct sym *undef = NULL;

	for (size_t i = 0; i < b->nsyms; i++) {
		if (strcmp(b->syms[i].name, name))
			continue;
		if (b->syms[i].defined)
			return &b->syms[i];
		undef = &b->syms[i];
	}
	return undef;
}

/*
 * The file of version index idx in .gnu.version_r (GLIBC_2.2.5: libc.so.6).
 * The vn_next / vna_next chains come from the file: libelf refuses a record
 * that does not lie inside d, vn_cnt bounds the inner walk, and the outer
 * offset only grows (a zero vn_next ends it), so forged chains end too.
 */
static bool verneed_file(Elf *elf, Elf_Data *d, size_t strndx, unsigned int idx, char *lib,
			 size_t len)
{
	GElf_Verneed vn;
	GElf_Vernaux va;
	size_t off = 0;

	while (gelf_getverneed(d, off, &vn)) {
		size_t aoff = off + vn.vn_aux;

		for (unsigned int k = 0; k < vn.vn_cnt && gelf_getvernaux(d, aoff, &va); k++) {
			const char *file = elf_strptr(elf, strndx, vn.vn_file);

			if (va.vna_other == idx && file) {
				snprintf(lib, len, "%s", file);
				return true;
			}
			aoff += va.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return false;
}

/* The library a versioned import comes from, to name it in the message. */
static bool import_lib(const struct bin *b, const char *name, char *lib, size_t len)
{
	Elf_Data *dsym = NULL, *vsym = NULL, *vneed = NULL;
	size_t symstr = 0, verstr = 0, nsym = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(b->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize) {
			dsym = elf_getdata(scn, NULL);
			symstr = sh.sh_link;
			nsym = sh.sh_size / sh.sh_entsize;
		} else if (sh.sh_type == SHT_GNU_versym) {
			vsym = elf_getdata(scn, NULL);
		} else if (sh.sh_type == SHT_GNU_verneed) {
			vneed = elf_getdata(scn, NULL);
			verstr = sh.sh_link;
		}
	}
	for (size_t i = 1; dsym && vsym && vneed && i < nsym; i++) {
		const char *n;
		GElf_Versym v;
		GElf_Sym sym;

		if (!gelf_getsym(dsym, i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		n = elf_strptr(b->elf, symstr, sym.st_name);
		if (n && !strcmp(n, name) && gelf_getversym(vsym, i, &v))
			return verneed_file(b->elf, vneed, verstr, v & 0x7fff, lib, len);
	}
	return false;
}

int elfsym_suggest__name_error(const struct bin *b, const char *name, struct ebuf *e)
{
	const struct sym *s = find_any(b, name);
	char sugg[256], lib[NAME_MAX + 1];

	if (s && s->defined)
		return ebuf__fail(e, -EINVAL, "'%s' in %s is not a function", name, b->path);
	if (s && import_lib(b, name, lib, sizeof(lib)))
		return ebuf__fail(e, -ENOENT,
				  "'%s' is not defined in %s (it is imported from %s): use %s:%s",
				  name, b->path, lib, lib, name);
	if (s)
		return ebuf__fail(e, -ENOENT,
				  "'%s' is not defined in %s (it is imported): use LIBRARY:%s with "
				  "the library that defines it",
				  name, b->path, name);
	if (!elfsym_pick__has_funcs(b))
		return elfsym_pick__stripped_error(b, e);
	suggest(b, name, sugg, sizeof(sugg));
	if (!b->has_symtab)
		return ebuf__fail(e, -ENOENT,
				  "no function '%s' among the exported symbols of %s (no .symtab): "
				  "install its debug symbols or use an unstripped build%s%s%s",
				  name, b->path, sugg[0] ? "; did you mean: " : "", sugg,
				  sugg[0] ? "?" : "");
	if (sugg[0])
		return ebuf__fail(e, -ENOENT, "no function '%s' in %s; did you mean: %s?", name,
				  b->path, sugg);
	return ebuf__fail(e, -ENOENT, "no function '%s' in %s: list its functions with nm %s", name,
			  b->path, b->path);
}
