/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel frames named from /proc/kallsyms (symbolizer__kernel).
 *
 * /proc/kallsyms has no sizes, so a kernel symbol runs to the next one, as
 * the kernel's own %pS does; a non-text symbol, _etext and _einittext end
 * the text before them, and nothing is known past the last symbol.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elfsym_int.h"
#include "symbolize_int.h"
#include "util.h"

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	/* names are stored in file order: the first listed wins, every time */
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Appends str[0..n) to the kernel's names: its offset, or 0 for no memory. */
static uint32_t kname_add(char **pool, size_t *len, size_t *cap, const char *str, size_t n)
{
	uint32_t at = (uint32_t)*len;

	if (*len + n + 1 > UINT32_MAX || xlp_grow((void **)pool, cap, *len + n, 1))
		return 0;
	memcpy(*pool + *len, str, n);
	(*pool)[*len + n] = 0;
	*len += n + 1;
	return at;
}

/* Which of the symbols at one address names it: text, global, fewest '_'. */
static uint32_t ksym_rank(char type, const char *name, size_t len)
{
	size_t us = strspn(name, "_");
	bool text = strchr("tTwW", type) && !(len == 6 && !strncmp(name, "_etext", 6)) &&
		    !(len == 10 && !strncmp(name, "_einittext", 10));

	return (text ? 0 : KRANK_NOTEXT) | (islower((unsigned char)type) ? KRANK_LOCAL : 0) |
	       (uint32_t)(us < 255 ? us : 255);
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * One line's "ADDR TYPE " (hexadecimal, one character): *pos is where the
 * name starts. By hand, not sscanf and strtoull: the kernel lists ~120 000
 * lines, and they took a third of the 110 ms a recording's first kernel
 * stack waited for its names (the kernel's own listing of them another).
 */
static int ksym_parse(const char *line, uint64_t *addr, char *type, int *pos)
{
	const char *end = skip_blanks(line);
	uint64_t a = 0;
	int nd = 0;

	for (; isxdigit((unsigned char)*end); end++, nd++) {
		int c = (unsigned char)*end;

		a = a << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	if (!nd || nd > 16 || (*end != ' ' && *end != '\t'))
		return -1;
	*addr = a;
	end = skip_blanks(end);
	if (!*end || *end == '\n')
		return -1;
	*type = *end++;
	*pos = (int)(skip_blanks(end) - line);
	return 0;
}

/*
 * Reads /proc/kallsyms: "ADDR TYPE NAME[\t[MODULE]]". -EACCES when every
 * address is 0 (kptr_restrict hides them from the unprivileged).
 */
static int kernel_load(struct symbolizer *s)
{
	size_t lcap = 0, cap = 0, pool = 0, pool_cap = 0, n = 0, lines = 0, k = 0;
	uint32_t mod = 0, last_mod = 0;
	struct ksym *ks = NULL;
	char *line = NULL, *names = NULL;
	FILE *fp = fopen("/proc/kallsyms", "re");
	int err = -ENOMEM;

	if (!fp)
		return -errno;
	/* offset 0 is "": the module of the kernel itself */
	if (xlp_grow((void **)&names, &pool_cap, 0, 1))
		goto cleanup;
	names[pool++] = 0;
	while (getline(&line, &lcap, fp) > 0) {
		char type, *name, *m, *end;
		uint64_t addr;
		size_t len;
		int pos = -1;

		lines++;
		if (ksym_parse(line, &addr, &type, &pos) || !addr)
			continue;
		name = line + pos;
		len = strcspn(name, " \t\n");
		if (!len)
			continue;
		mod = 0;
		m = strchr(name + len, '[');
		end = m ? strchr(m, ']') : NULL;
		if (end && end > m + 1) {
			/* kallsyms lists a module's symbols together: one copy of its name */
			if (last_mod && strlen(names + last_mod) == (size_t)(end - m - 1) &&
			    !strncmp(names + last_mod, m + 1, end - m - 1))
				mod = last_mod;
			else
				mod = last_mod =
					kname_add(&names, &pool, &pool_cap, m + 1, end - m - 1);
			if (!mod)
				goto cleanup;
		}
		if (xlp_grow((void **)&ks, &cap, n, sizeof(*ks)))
			goto cleanup;
		ks[n] = (struct ksym){
			.addr = addr,
			.rank = ksym_rank(type, name, len),
			.mod = mod,
			.name = kname_add(&names, &pool, &pool_cap, name,
					  len < NAME_KEPT ? len : NAME_KEPT),
		};
		if (!ks[n++].name)
			goto cleanup;
	}
	xlp_sort(ks, n, sizeof(*ks), ksym_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || ks[i].addr != ks[k - 1].addr)
			ks[k++] = ks[i];
	err = k ? 0 : lines ? -EACCES : -ENOENT;
	if (err)
		goto cleanup;
	s->ksyms = ks;
	s->nksyms = k;
	s->knames = names;
	ks = NULL;
	names = NULL;
cleanup:
	free(ks);
	free(names);
	free(line);
	fclose(fp);
	return err;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, struct xsym *out)
{
	const struct ksym *k;
	size_t lo = 0, hi;

	/* read once: a kernel without kallsyms stays without */
	if (!s->kread) {
		s->kerr = kernel_load(s);
		s->kread = s->kerr != -ENOMEM;
	}
	if (s->kerr) {
		xsym__unknown(out);
		return s->kerr;
	}
	hi = s->nksyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return xsym__unknown(out);
	k = &s->ksyms[lo - 1];
	/* past the last symbol no end is known; a non-text symbol ends the text */
	if ((k->rank & KRANK_NOTEXT) || (lo == s->nksyms && ip != k->addr))
		return xsym__unknown(out);
	xsym__symbol(out, s->knames + k->name, k->mod ? s->knames + k->mod : "[kernel]",
		     ip - k->addr);
	out->source = XLP_SYM_SRC_KALLSYMS;
	return 0;
}
