/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * protoc --decode's text format, read back into a tree for the tests that
 * check what xlprobe export --perfetto wrote (one field per line, as protoc
 * prints it: "name: value", "name {", "}").
 */
#ifndef XLP_PBTEXT_H
#define XLP_PBTEXT_H

#include <stddef.h>
#include <stdint.h>

struct pbt {
	char *key;
	char *val; /* scalar as printed (strings unquoted and unescaped); NULL: a message */
	struct pbt *kids;
	size_t nkids;
};

/* Parses text; NULL on a syntax error or out of memory. */
struct pbt *pbt__parse(const char *text);
void pbt__free(struct pbt *t);
/* The first child named key, or NULL; path "a.b.c" walks messages. */
const struct pbt *pbt__get(const struct pbt *t, const char *path);
/* Its value as a number (0 when absent or not a number), or a string (NULL). */
uint64_t pbt__u64(const struct pbt *t, const char *path);
const char *pbt__str(const struct pbt *t, const char *path);
/* How many children named key. */
size_t pbt__count(const struct pbt *t, const char *key);

/* Runs protoc --decode=TYPE with proto (a file in tests/perfetto) on bin; the text, or NULL. */
char *pbt__decode(const char *proto, const char *type, const char *bin);

#endif
