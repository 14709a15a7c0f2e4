/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Private to the --func resolver (elfsym.h is its public face). Resolving
 * a spec takes one job from each file:
 *
 *   elfsym_find.c      find the file: a path, a library the process maps,
 *                      one in the loader's directories; its debug file
 *   minidebug.c        the symbols of .gnu_debugdata (MiniDebugInfo)
 *   elf_read.c         read the ELF file: symbols, build-id, debuglink,
 *                      addresses to file offsets (every byte untrusted)
 *   elfsym_pick.c      pick the functions SYMBOL names: exact name, glob,
 *                      file offset; one per address, the preferred alias
 *   elfsym_suggest.c   say why a name found nothing: close matches, the
 *                      library an import comes from
 *   elfsym_prologue.c  decode the first instruction: emulated or stepped
 *   elfsym.c           the public API: split the spec, make the targets
 */
#ifndef XLP_ELFSYM_INT_H
#define XLP_ELFSYM_INT_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "xlprobe.h"

/* Where a "cause: fix" message goes; s may be NULL. */
struct ebuf {
	char *s;
	size_t len;
};

struct sym {
	const char *name; /* in the string table of its Elf, alive with the bin */
	uint64_t value;
	uint64_t size;
	unsigned char type;
	unsigned char bind;
	unsigned char src; /* XLP_SYM_SRC_*: the table it came from */
	bool defined;
};

/* An opened binary and the symbols of it and of its debug file. */
struct bin {
	char *path;
	int fd;
	Elf *elf;
	int dbg_fd;	       /* separate debug file the symbols came from, -1 if none */
	Elf *dbg;	       /* it, or the ELF file decompressed from .gnu_debugdata */
	unsigned char dbg_src; /* XLP_SYM_SRC_* of dbg */
	void *dbg_buf;	       /* the decompressed bytes dbg reads (elf_memory), or NULL */
	int mini_why;	       /* why .gnu_debugdata was refused (enum minidebug_refusal), or -1 */
	struct sym *syms;
	size_t nsyms;
	size_t cap;
	bool has_symtab;
	char build_id[41];
};

/* Writes the message into e (if any) and returns ret. */
__attribute__((format(printf, 3, 4))) int ebuf__fail(struct ebuf *e, int ret, const char *fmt, ...);

static inline const char *path_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static inline bool sym_is_func(const struct sym *s)
{
	return s->defined && (s->type == STT_FUNC || s->type == STT_GNU_IFUNC);
}

/* ---- elfsym_find.c ---- */

/* BINARY of a spec to the absolute path of an existing file, *path malloc'd. */
int elfsym_find__binary(const char *name, int pid, char **path, struct ebuf *e);
/*
 * Loads the symbols of b's separate debug file (build-id, .gnu_debuglink,
 * the debuginfod client's cache) if one is found, else those of its
 * .gnu_debugdata; 0 also when there are none.
 */
int elfsym_find__debug_syms(struct bin *b);

/* ---- minidebug.c ---- */

/*
 * Loads the .symtab of the ELF file xz-compressed in b's .gnu_debugdata
 * (MiniDebugInfo) into b->dbg: 0, also when there is none or it is
 * refused (then b->mini_why says why, and minidebug__counts counts it),
 * or -ENOMEM.
 */
int minidebug__syms(struct bin *b);

/* ---- elf_read.c ---- */

/* Opens a regular ELF file: 0, -errno, or -ENOEXEC (not a file, not ELF). */
int elf_read__open(const char *path, int *fd, Elf **elf);
/* The same, without following a symlink or blocking on a FIFO (-ELOOP, -ENOEXEC). */
int elf_read__open_nofollow(const char *path, int *fd, Elf **elf);
/* GNU build-id as hex: 0, -ENOENT if none, -ENOSPC if hex is too short. */
int elf_read__build_id(Elf *elf, char *hex, size_t len);
/*
 * Appends the function-like symbols of every symbol table of elf to b,
 * from src (XLP_SYM_SRC_*); XLP_SYM_SRC_SYMTAB: b's own file, where a
 * .dynsym says XLP_SYM_SRC_DYNSYM.
 */
int elf_read__syms(struct bin *b, Elf *elf, unsigned char src);
/* The file name .gnu_debuglink points to (no '/', CRC dropped). */
bool elf_read__debuglink(Elf *elf, char *name, size_t len);
/* Opens a linked ELF file (executable or shared library) with its symbols. */
int elf_read__bin_open(const char *path, struct bin **out, struct ebuf *e);
void elf_read__bin_close(struct bin *b);
/* File offset of a link-time address: 0, -ENOENT outside PT_LOADs. */
int elf_read__offset(const struct bin *b, uint64_t vaddr, uint64_t *off);

/* ---- elfsym_pick.c ---- */

bool elfsym_pick__has_funcs(const struct bin *b);
/* Which of two aliases to show first: < 0 for a (global, fewest '_'). */
int elfsym_pick__alias_pref(const struct sym *a, const struct sym *b);
/* The functions SYMBOL names, one per address; an error message if none. */
int elfsym_pick__syms(const struct bin *b, const char *spec, const struct sym ***out, size_t *n,
		      struct ebuf *e);
int elfsym_pick__stripped_error(const struct bin *b, struct ebuf *e);

/* ---- elfsym_suggest.c ---- */

/* Optimal string alignment distance, case-insensitive, on the first 64 characters. */
unsigned int elfsym_suggest__dist(const char *a, const char *b);
/* The error for an exact name that is no function of b, with advice. */
int elfsym_suggest__name_error(const struct bin *b, const char *name, struct ebuf *e);

#endif
