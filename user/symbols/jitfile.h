/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The files a JIT runtime writes for profilers (perf maps, jitdumps),
 * opened by a recorder that runs as root: a file the target's user
 * controls may be anything, so one is read only when it is a regular file
 * (not a symlink, a FIFO or a device), owned by the process's user or by
 * root; what is refused or skipped is counted, the first refusal kept as a
 * sentence.
 */
#ifndef XLP_JITFILE_H
#define XLP_JITFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct jit_counts {
	uint64_t files;	  /* perf maps and jitdumps read */
	uint64_t entries; /* code names read from them */
	uint64_t named;	  /* frames they named */
	uint64_t refused; /* files refused: a symlink, not a regular file, another user's */
	uint64_t cut;	  /* files cut off at the size or entry bound */
	uint64_t skipped; /* malformed lines and records skipped */
	uint64_t
		corrupt; /* jitdumps read no further: a bad header, a record lying about its size */
	uint64_t tail;	 /* jitdump bytes left unread at their end: a record cut short or
			    lying about its size (symbolizer__jit_counts) */
	char why[240];	 /* the first file refused or corrupt: its path and the cause */
};

/* The owners a file may have: the process's uids (real, effective, saved, fs), and root. */
struct jit_owner {
	uid_t uid[4];
	size_t n;
};

/*
 * Opens path (O_NOFOLLOW|O_NONBLOCK: no symlink followed, a FIFO not
 * waited on) and checks it. 0 with *fd and *st; -ENOENT when there is no
 * such file (not counted: a process without a map); -EPERM when refused
 * (counted, c->why set the first time); another -errno.
 */
int jitfile__open(const char *path, const struct jit_owner *own, int *fd, struct stat *st,
		  struct jit_counts *c);

/* Counts a file refused or corrupt, keeping the first's sentence. */
void jitfile__blame(struct jit_counts *c, const char *path, const char *cause);

#endif
