/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * MiniDebugInfo: a stripped binary's .gnu_debugdata section holds an
 * xz-compressed ELF file whose .symtab lists the functions its .dynsym
 * lacks (the local ones), at the binary's link-time addresses. Fedora adds
 * it to every package's binaries (find-debuginfo's add_minidebug), Android
 * to its system libraries. --func and the naming of sampled frames read it
 * for a binary that has no .symtab and no separate debug file
 * (elfsym_find__debug_syms).
 *
 * The section is untrusted: decompressed in memory with a bound on the
 * output and on the decoder's memory, in time linear in the output; a
 * section that is not xz, is corrupt or truncated, decompresses to more
 * than MINIDEBUG_MAX bytes or to something other than an ELF file is
 * refused and counted by reason.
 */
#ifndef XLP_MINIDEBUG_H
#define XLP_MINIDEBUG_H

#include <stddef.h>
#include <stdint.h>

/* The most a section may decompress to: Fedora's largest (libLLVM's) is a few MiB. */
#define MINIDEBUG_MAX (64u << 20)

enum minidebug_refusal {
	MINIDEBUG_NOT_XZ,  /* no xz stream header */
	MINIDEBUG_CORRUPT, /* corrupt, truncated, or options liblzma cannot decode */
	MINIDEBUG_TOO_BIG, /* more than the bound decompressed, or the decoder's memory */
	MINIDEBUG_NOT_ELF, /* it decompressed to something other than an ELF file */
	MINIDEBUG_NREFUSALS,
};

struct minidebug_counts {
	uint64_t read;			       /* sections whose symbols were read */
	uint64_t refused[MINIDEBUG_NREFUSALS]; /* sections refused, by reason */
};

/* The counts since the process started (every read, also a file read twice). */
void minidebug__counts(struct minidebug_counts *c);

/* "not xz-compressed", ...: what a message says after "its .gnu_debugdata is". */
const char *minidebug__refusal_str(enum minidebug_refusal why);

/*
 * Decompresses the xz stream in[0..len) into *out (malloc'd, *outlen
 * bytes), at most max bytes. 0; -EBADMSG when refused (*why says why, and
 * it is counted), -ENOMEM.
 */
int minidebug__decompress(const void *in, size_t len, size_t max, void **out, size_t *outlen,
			  enum minidebug_refusal *why);

#endif
