/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The JIT code names of one process, from the files its runtime writes
 * for profilers, found the way perf finds them:
 *   - its jitdump (Node --perf-prof): a file jit-*.dump the process maps
 *     (jitproc__set_dump, from /proc/PID/maps), read through
 *     /proc/PID/root;
 *   - its perf map: /tmp/perf-NSPID.map under /proc/PID/root, NSPID its pid
 *     in its own pid namespace (a container's process writes its own).
 * Both grow while the process runs: an address neither names makes them
 * read again (what was added only), at most every JITPROC_REREAD_NS, so
 * that code compiled after the recording began, or a map that appears
 * then, is found. Files are checked as jitfile.h says, owned by one of the
 * process's uids or root.
 */
#ifndef XLP_JITPROC_H
#define XLP_JITPROC_H

#include <stdint.h>
#include <sys/types.h>
#include "jitfile.h"
#include "jittab.h"

#define JITPROC_REREAD_NS (20ull * 1000000)

struct jitproc;

/* pid's owner and namespace pid, from /proc/PID/status. 0, -ESRCH, -ENOMEM. */
int jitproc__new(int pid, struct jitproc **out);
void jitproc__free(struct jitproc *j); /* NULL is fine */

/* A jitdump the process maps: path as the process sees it, the mapping's inode. 0 or -ENOMEM. */
int jitproc__set_dump(struct jitproc *j, const char *path, ino_t ino);

/*
 * The code at addr at time (CLOCK_MONOTONIC, or JITTAB_NOW): the jitdump
 * first (it knows moves and times), then the perf map. 0 and *out, or
 * -ENOENT; refusals and skips counted in c.
 */
int jitproc__find(struct jitproc *j, uint64_t addr, uint64_t time, struct jit_counts *c,
		  struct jitsym *out);

/* Reads the files now (at attach: the first samples do not wait for a big map). */
void jitproc__read(struct jitproc *j, struct jit_counts *c);

/* The jitdump's bytes left unread at its end (jitdump__tail), 0 without one. */
uint64_t jitproc__tail(const struct jitproc *j);

#endif
