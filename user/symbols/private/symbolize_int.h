/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What symbolize.c, symbolize_file.c and symbolize_kernel.c share: the
 * symbolizer's files, processes and kernel symbols. Private to the symbols
 * layer.
 */
#ifndef XLP_SYMBOLIZE_INT_H
#define XLP_SYMBOLIZE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "jitproc.h"
#include "symbolize.h"

#define NONE SIZE_MAX
/* The longest name kept: what struct xsym's name holds. */
#define NAME_KEPT (sizeof(((struct xsym *)0)->name) - 1)
#define DELETED " (deleted)"

/* A function of a file, by link-time address. */
struct sfunc {
	uint64_t vaddr;
	uint64_t size; /* 0: unsized (assembly without .size) */
	size_t name;   /* offset in sfile.names */
	size_t cover;  /* the sized function reaching furthest among 0..this one, or NONE */
	/* XLP_SYM_SRC_*: the table its name came from */
	unsigned char src;
};

/* A PT_LOAD: which file bytes hold which addresses. */
struct sload {
	uint64_t off, filesz, vaddr;
	bool exec;
};

struct srange {
	uint64_t start, end;
};

/* The file as it was when first read: one replaced since is another file. */
struct sident {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

enum sfile_state {
	SF_UNREAD, /* symbols not read yet */
	SF_READ,
	SF_FAILED, /* not ELF, unreadable, replaced: frames in it are "[base+0xOFF]" */
};

struct sfile {
	char *path;
	struct sident ident;
	unsigned char id[XLP_BUILD_ID_LEN]; /* zero-padded, as the kernel reports it */
	bool has_id;
	int id_err; /* why it has none: -ENOENT, -ENOEXEC (not ELF), -errno */
	enum sfile_state state;
	bool full; /* symbols from a .symtab: unsized ones may be trusted */
	struct sfunc *funcs;
	size_t nfuncs;
	char *names;
	struct sload *loads;
	size_t nloads;
	struct srange *xsecs; /* executable sections, by address */
	size_t nxsecs;
};

/* An executable file mapping of a process. */
struct smap {
	uint64_t start, end, pgoff;
	struct sfile *file;
};

struct spid {
	int pid;
	struct smap *maps; /* sorted by start */
	size_t nmaps;
	struct jitproc *jit; /* its JIT code's names, or NULL */
};

struct ksym {
	uint64_t addr;
	uint32_t name; /* offsets in symbolizer.knames */
	uint32_t mod;  /* 0 (""): the kernel itself */
	uint32_t rank; /* which name wins at one address: lowest; KRANK_NOTEXT ends text */
};

#define KRANK_NOTEXT (1u << 16)
#define KRANK_LOCAL (1u << 8)

struct symbolizer {
	struct sfile **files; /* owned, in the order added */
	size_t nfiles, files_cap;
	struct sfile **by_id; /* sorted by build-id, one file per id */
	size_t nby_id, by_id_cap;
	struct sfile **by_path; /* sorted by path, the newest file of each */
	size_t nby_path, by_path_cap;
	struct spid *pids; /* sorted by pid */
	size_t npids, pids_cap;
	bool kread;
	int kerr;
	struct ksym *ksyms; /* sorted by address, one per address */
	size_t nksyms;
	char *knames;
	uint64_t time; /* of the frames named now (symbolizer__set_time) */
	struct jit_counts jc;
	symbolizer_jit_miss_fn jit_miss; /* symbolizer__on_jit_miss */
	void *jit_miss_ctx;
};

/* ---- the frame's name (symbolize_file.c) ---- */

/* "[unknown]": -ENOENT. */
int xsym__unknown(struct xsym *out);
/* "[base+0xOFF]" of the file at path: -ENOENT. */
int xsym__file(struct xsym *out, const char *path, uint64_t off);
/* name at offset in module: 0 (the caller sets out->source). */
int xsym__symbol(struct xsym *out, const char *name, const char *module, uint64_t offset);

/* ---- a file (symbolize_file.c) ---- */

void sfile__free(struct sfile *f); /* NULL is fine */
void sident__of(const struct stat *st, struct sident *id);
bool sident__eq(const struct sident *a, const struct sident *b);
/* The build-id of a linked ELF file: 0, -ENOENT (none), -ENOEXEC (not one), -errno. */
int sfile__read_id(const char *path, unsigned char id[XLP_BUILD_ID_LEN]);
/* Reads its symbols once: 0, -ENOMEM (may be retried), or why it cannot be. */
int sfile__load(struct sfile *f);
/* The name of the frame at file offset off: 0, or -ENOENT ("[base+0xOFF]"), -ENOMEM. */
int sfile__name(struct sfile *f, uint64_t off, struct xsym *out);

#endif
