/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A jitdump (jit-PID.dump; perf's tools/perf/util/jitdump.h and
 * Documentation/jitdump-specification.txt): a 40-byte header (magic
 * 0x4A695444 "JiTD" in the writer's byte order, version 1, its size, the
 * ELF machine, the pid, a timestamp, flags), then records of a 16-byte
 * header {id, total_size, timestamp} and a body: JIT_CODE_LOAD (0: pid,
 * tid, vma, code_addr, code_size, code_index, the name NUL-terminated, the
 * code), JIT_CODE_MOVE (1: old and new code_addr), JIT_CODE_DEBUG_INFO
 * (2), JIT_CODE_CLOSE (3), JIT_CODE_UNWINDING_INFO (4); other ids are
 * skipped by their size.
 *
 * Written as the runtime runs (Node --perf-prof): each update reads the
 * whole records added since the last. Timestamps are CLOCK_MONOTONIC
 * unless the header's JITDUMP_FLAGS_ARCH_TIMESTAMP says they are the CPU's
 * counter: then, or when they lie in the future, a lookup's time is ignored
 * and the last code loaded at an address names it.
 *
 * Untrusted: a record shorter than its header or longer than
 * JITDUMP_RECORD_MAX ends the reading (corrupt: what follows cannot be
 * found), one whose fields do not fit is skipped, a record reaching past
 * the end of the file is left for a later update (the runtime may be
 * writing it; jitdump__tail says how much is left unread), a file past
 * JITDUMP_MAX_BYTES cut off: all counted, the work linear in the file's
 * size.
 */
#ifndef XLP_JITDUMP_H
#define XLP_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "jitfile.h"
#include "jittab.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_RECORD_MAX (256u << 20)
#define JITDUMP_MAX_BYTES (2ull << 30)
#define JITDUMP_CODE_MAX (1ull << 30) /* the largest piece of code believed */

struct jitdump;

int jitdump__new(struct jitdump **out); /* 0 or -ENOMEM */
void jitdump__free(struct jitdump *d);	/* NULL is fine */

/*
 * Reads the records path holds past those read (all the first time, and
 * again when the file was replaced). ino: the inode the process maps (0:
 * any); another file there is refused. 0, -ENOENT, -EPERM (refused:
 * jitfile.h), -ENOMEM, another -errno.
 */
int jitdump__update(struct jitdump *d, const char *path, ino_t ino, const struct jit_owner *own,
		    struct jit_counts *c);

/*
 * Adds the whole records of buf[0..len), the bytes at the reading
 * position, of which the file has left bytes in all (left >= len): the
 * bytes consumed, which may exceed len when a record's body reaches past
 * buf (the caller reads on after it).
 */
uint64_t jitdump__parse(struct jitdump *d, const uint8_t *buf, size_t len, uint64_t left,
			struct jit_counts *c);

/* The code holding addr at time (CLOCK_MONOTONIC, or JITTAB_NOW): 0 and *out, -ENOENT, -ENOMEM. */
int jitdump__find(struct jitdump *d, uint64_t addr, uint64_t time, struct jitsym *out);

size_t jitdump__len(const struct jitdump *d);
/* Whether lookups use their time (the timestamps are CLOCK_MONOTONIC and plausible). */
bool jitdump__timed(const struct jitdump *d);
/* The bytes at the file's end, as last read, not read: a record cut short or lying about its size.
 */
uint64_t jitdump__tail(const struct jitdump *d);

#endif
