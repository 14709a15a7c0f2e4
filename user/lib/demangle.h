/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbol names as their programmers write them: C++ (Itanium ABI, "_Z...")
 * and Rust (legacy "_ZN...17h<hash>E" and v0 "_R...") demangled by
 * libiberty, GNU's maintained demangler (c++filt's). The names come from
 * trace files and ELF files, untrusted: the input is bounded
 * (DEMANGLE_MAX_IN), so is the output (the caller's buffer), and a name
 * that is not a valid mangling is left as it is. A mangling can print an
 * output exponential in its length (nested back-references): printing
 * stops at the buffer's end, so the time stays bounded by it.
 */
#ifndef XLP_DEMANGLE_H
#define XLP_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Longer names are not demangled (a real mangled name is a few KB at most). */
#define DEMANGLE_MAX_IN 8192
/* Room enough for every demangled name this project keeps. */
#define DEMANGLE_MAX_OUT 8192

/*
 * raw demangled, with its parameter list ("ns::Klass::handle(int)"), into
 * out[len]: true then. False when raw is no C++ or Rust mangling, or its
 * demangled form does not fit: out then holds raw (cut to fit). len >= 1.
 */
bool demangle__name(const char *raw, char *out, size_t len);
/* The same without the function's parameter list ("ns::Klass::handle"). */
bool demangle__bare(const char *raw, char *out, size_t len);
/* Whether raw may be a mangling at all (its prefix): cheap, for filters. */
bool demangle__maybe(const char *raw);
/*
 * Whether raw's demangled name (demangle__name, in out[len]) names it
 * alone, so that --func can take it back: a C++ name with its parameter
 * list, not a Rust name (its hash, which tells the instances of a
 * generic apart, is dropped). Its '*', '?', '[' are glob characters to
 * --func: escape them ("char const\*").
 */
bool demangle__exact(const char *raw, char *out, size_t len);
/* raw demangled (demangle__name), or a copy of raw; malloc'd, NULL: ENOMEM or raw NULL. */
char *demangle__dup(const char *raw);

#endif
