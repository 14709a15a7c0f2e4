/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Strings from a trace or an ELF file (symbols, comm, paths, host, command
 * line) are untrusted bytes: any of them may hold terminal escape
 * sequences, line breaks or bytes that are not UTF-8. Every writer prints
 * them through these functions. Text: control characters (C0, DEL, and C1
 * written as UTF-8) become "\xNN" / "\n" / "\u0080"-style escapes and bytes
 * that are not UTF-8 become "\xNN", so nothing reaches a terminal as a
 * control sequence and nothing forges a line. JSON: always valid UTF-8,
 * control characters \u-escaped, bytes that are not UTF-8 replaced by
 * U+FFFD ("\ufffd"). CSV: the text form in a quoted RFC 4180 field.
 */
#ifndef XLP_ESCAPE_H
#define XLP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
size_t xlp_utf8_len(const unsigned char *s, size_t n);
/*
 * src[0..n) (up to a NUL) into dst[cap] as valid UTF-8 without control
 * characters, '?' for each byte that is not (Perfetto's and pprof's
 * strings are UTF-8); always NUL-terminated, cap >= 5.
 */
void xlp_clean_utf8(char *dst, size_t cap, const char *src, size_t n);

/* n bytes of s for a terminal; quoted also escapes '"' and '\\'. */
void xlp_fput_text(FILE *f, const char *s, size_t n, bool quoted);
/* The NUL-terminated s for a terminal (NULL prints nothing). */
void xlp_fputs_text(FILE *f, const char *s);
/* s escaped as xlp_fputs_text() does, into buf (cut at a whole escape). */
const char *xlp_text(const char *s, char *buf, size_t len);

/* n bytes of s as a JSON string, quotes included. */
void xlp_fput_json(FILE *f, const char *s, size_t n);

/*
 * n bytes of s as one CSV field (RFC 4180): always quoted, '"' doubled;
 * control characters and bytes that are not UTF-8 in the text form above,
 * so a field never holds a line break and the output is valid UTF-8.
 */
void xlp_fput_csv(FILE *f, const char *s, size_t n);

#endif
