/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Resolves --func BINARY:SYMBOL specs to uprobe targets: the file and the
 * file offset libbpf's bpf_program__attach_uprobe_opts() takes as
 * func_offset when opts.func_name is NULL.
 *
 * BINARY is a path (has a '/'), or a bare name: with a PID, the basename of
 * a file the process maps ("libc.so.6", or the prefix "libc"); without one,
 * a file in the current directory or a library in LD_LIBRARY_PATH and the
 * standard library directories. SYMBOL is a function name, an fnmatch(3)
 * glob ("parse_*") or a file offset ("0x1139") that must be a function's
 * start. Symbols come from .symtab and .dynsym; for a binary without
 * .symtab, also from its separate debug file (/usr/lib/debug/.build-id,
 * .gnu_debuglink next to the binary, the debuginfod client's cache), else
 * from its .gnu_debugdata (MiniDebugInfo, minidebug.h).
 */
#ifndef XLP_ELFSYM_H
#define XLP_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym_target {
	char *binary;		/* absolute path, what the uprobe attaches to */
	char *symbol;		/* the function; the global name among aliases */
	uint64_t offset;	/* file offset of the function's first byte */
	uint64_t vaddr;		/* st_value, the link-time address */
	uint64_t size;		/* st_size; 0 for unsized assembly entry points */
	bool needs_single_step; /* first instruction not emulated: ~10 us per hit */
	bool ifunc; /* STT_GNU_IFUNC: the probe fires in the resolver, not the implementation */
	char build_id[41]; /* hex GNU build-id, "" if the file has none */
	/* XLP_SYM_SRC_* (bpf/xlprobe.h): the symbol table that named it */
	unsigned char source;
};

/*
 * Resolves one spec and appends its 1..N targets (one per function address)
 * to *targets / *n, which start as NULL / 0. pid 0: no process (launch
 * mode). On error returns a negative errno, leaves *targets and *n as they
 * were and writes a one-line "cause: fix" message into err.
 */
int elfsym__resolve(const char *spec, int pid, struct elfsym_target **targets, size_t *n, char *err,
		    size_t errlen);
void elfsym__free_targets(struct elfsym_target *t, size_t n);

/* GNU build-id of an ELF file as hex into hex[len]: 0, -ENOENT if none, -ENOSPC. */
int elfsym__build_id(const char *path, char *hex, size_t len);

/*
 * Whether a uprobe on these first bytes of a function is single-stepped
 * out of line rather than emulated by the x86-64 kernel. A push of a
 * register or a 5-byte nop counts as emulated, and so does endbr64 followed
 * by a push (an assumption: the kernel may step the endbr64 itself).
 */
bool elfsym__needs_single_step(const uint8_t *code, size_t len);

#endif
