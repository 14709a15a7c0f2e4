/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* export --pprof read by go tool pprof, against export --folded (pprofcmp.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pprofcmp.h"
#include "testlib.h"

static char out[1 << 18];

#define MAXF 2048
struct totals {
	char name[MAXF][160];
	unsigned long long v[MAXF];
	int n;
};

static void add(struct totals *t, const char *name, size_t len, unsigned long long v)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strlen(t->name[i]) == len && !strncmp(t->name[i], name, len))
			break;
	if (i == t->n) {
		if (t->n == MAXF)
			return;
		snprintf(t->name[t->n++], sizeof(t->name[0]), "%.*s", (int)len, name);
	}
	t->v[i] += v;
}

/*
 * Each function's cumulative total in folded lines: once per line it is
 * on, the process's frame and the wait's pseudo-frame left out, kernel
 * frames without their _[k].
 */
static void folded_totals(char *text, struct totals *t)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strrchr(line, ' ');
		unsigned long long v;
		static char seen[1 << 16];

		if (!sp)
			continue;
		snprintf(seen, sizeof(seen), "|");
		v = strtoull(sp + 1, NULL, 10);
		*sp = 0;
		for (char *f = strchr(line, ';'); f; f = strchr(f, ';')) {
			char *e = strchr(++f, ';'), key[200];
			size_t len = e ? (size_t)(e - f) : strlen(f);

			if (len > 4 && !strncmp(f + len - 4, "_[k]", 4))
				len -= 4;
			if (!strncmp(f, "[off-cpu:", 9))
				continue;
			snprintf(key, sizeof(key), "|%.*s|", (int)len, f);
			if (strstr(seen, key))
				continue;
			strncat(seen, key + 1, sizeof(seen) - strlen(seen) - 1);
			add(t, f, len, v);
		}
	}
}

/* The cum column of go tool pprof -top, per function (name: the rest of the line). */
static void pprof_totals(char *text, struct totals *t)
{
	bool body = false;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char flat[64], fp[64], sp[64], cum[64], cp[64];
		int used = 0;

		if (strstr(line, "flat%") && strstr(line, "cum%")) {
			body = true;
			continue;
		}
		if (!body ||
		    sscanf(line, "%63s %63s %63s %63s %63s %n", flat, fp, sp, cum, cp, &used) !=
			    5 ||
		    !used)
			continue;
		add(t, line + used, strlen(line + used), strtoull(cum, NULL, 10));
	}
}

static unsigned long long total_of(const struct totals *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], name))
			return t->v[i];
	return 0;
}

void pprofcmp__same_totals(const char *xl, const char *trace, const char *pb, const char *idx,
			   const char *flags)
{
	static struct totals f, p;
	int rc;

	memset(&f, 0, sizeof(f));
	memset(&p, 0, sizeof(p));
	rc = tl_runf(out, sizeof(out), "%s export --folded %s %s", xl, flags, trace);
	REQUIRE(rc == 0, "folded: %s", out);
	folded_totals(out, &f);
	rc = tl_runf(out, sizeof(out),
		     "go tool pprof -top -nodecount=100000 -nodefraction=0 -unit=ns "
		     "-sample_index=%s %s",
		     idx, pb);
	REQUIRE(rc == 0, "go tool pprof: %s", out);
	pprof_totals(out, &p);
	REQUIRE(f.n > 0 && f.n < MAXF, "folded %s: %d functions", flags, f.n);
	CHECK(f.n == p.n, "%s: %d functions in folded, %d in pprof", idx, f.n, p.n);
	for (int i = 0; i < f.n; i++)
		CHECK(total_of(&p, f.name[i]) == f.v[i], "%s: %s: pprof %llu, folded %llu", idx,
		      f.name[i], total_of(&p, f.name[i]), f.v[i]);
}
