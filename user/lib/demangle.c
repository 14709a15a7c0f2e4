/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Demangling C++ and Rust symbols with libiberty (see demangle.h). */
#include <libiberty/demangle.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

/* The demangled text as it comes, in pieces, from libiberty's printer. */
struct sink {
	char *out;
	size_t len, used;
	jmp_buf full;
};

/*
 * The printer cannot be told to stop: at the buffer's end, leave it.
 * Safe: the callback interfaces allocate nothing on the heap (their
 * state is on the stack, which longjmp discards), unlike cplus_demangle().
 */
static void sink_put(const char *s, size_t n, void *opaque)
{
	struct sink *k = opaque;

	if (n >= k->len - k->used)
		longjmp(k->full, 1);
	memcpy(k->out + k->used, s, n);
	k->used += n;
	k->out[k->used] = 0;
}

static bool run(const char *raw, int opts, char *out, size_t len)
{
	struct sink k = {out, len, 0};

	if (setjmp(k.full))
		return false;
	out[0] = 0;
	/* Rust first: a legacy Rust name is a valid C++ mangling too (and
	 * prints with its hash); this is the order of libiberty's own
	 * cplus_demangle() */
	if (rust_demangle_callback(raw, opts, sink_put, &k))
		return true;
	k.used = 0;
	out[0] = 0;
	return cplus_demangle_v3_callback(raw, opts, sink_put, &k) != 0;
}

bool demangle__maybe(const char *raw)
{
	return raw && (!strncmp(raw, "_Z", 2) || !strncmp(raw, "_R", 2));
}

static bool demangle(const char *raw, int opts, char *out, size_t len)
{
	size_t n;

	if (!len)
		return false;
	if (demangle__maybe(raw) && strnlen(raw, DEMANGLE_MAX_IN + 1) <= DEMANGLE_MAX_IN &&
	    run(raw, opts, out, len) && out[0])
		return true;
	n = raw ? strnlen(raw, len - 1) : 0;
	if (n)
		memcpy(out, raw, n);
	out[n] = 0;
	return false;
}

bool demangle__name(const char *raw, char *out, size_t len)
{
	return demangle(raw, DMGL_PARAMS | DMGL_ANSI, out, len);
}

bool demangle__bare(const char *raw, char *out, size_t len)
{
	/* without DMGL_PARAMS, libiberty stops after the name and takes any
	 * bytes after it: only a name valid in full is demangled */
	return demangle(raw, DMGL_PARAMS | DMGL_ANSI, out, len) &&
	       demangle(raw, DMGL_ANSI, out, len);
}

bool demangle__exact(const char *raw, char *out, size_t len)
{
	struct sink k = {out, len, 0};

	if (!raw || strncmp(raw, "_Z", 2) || !len)
		return false;
	if (setjmp(k.full))
		return false;
	out[0] = 0;
	if (rust_demangle_callback(raw, DMGL_PARAMS | DMGL_ANSI, sink_put, &k))
		return false;
	return demangle__name(raw, out, len);
}

char *demangle__dup(const char *raw)
{
	char buf[DEMANGLE_MAX_OUT];

	if (!raw)
		return NULL;
	return strdup(demangle__name(raw, buf, sizeof(buf)) ? buf : raw);
}
