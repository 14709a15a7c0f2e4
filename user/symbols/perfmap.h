/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A perf map (/tmp/perf-PID.map): one line per piece of JIT code,
 * "START SIZE NAME", START and SIZE in hex with or without "0x", as
 * written by Node (--perf-basic-prof), Java (jcmd PID Compiler.perfmap,
 * -XX:+DumpPerfMapAtExit) and Python 3.12+ (-X perf). The runtime appends
 * while it runs: each update reads only the complete lines added since the
 * last, and a later line for the same addresses replaces an earlier one
 * (code freed and the addresses reused).
 *
 * Untrusted: a line longer than PERFMAP_LINE_MAX or not of that form is
 * skipped, a file past PERFMAP_MAX_BYTES or JITTAB_MAX entries cut off,
 * both counted (struct jit_counts).
 */
#ifndef XLP_PERFMAP_H
#define XLP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include "jitfile.h"
#include "jittab.h"

#define PERFMAP_LINE_MAX 4096
#define PERFMAP_MAX_BYTES (256ull << 20)

struct perfmap;

int perfmap__new(struct perfmap **out); /* 0 or -ENOMEM */
void perfmap__free(struct perfmap *m);	/* NULL is fine */

/*
 * Reads what path holds past what was read from it (all of it the first
 * time, and again when the file was replaced). 0, -ENOENT (no such file),
 * -EPERM (refused: jitfile.h), -ENOMEM, another -errno.
 */
int perfmap__update(struct perfmap *m, const char *path, const struct jit_owner *own,
		    struct jit_counts *c);

/* Adds the complete lines of buf[0..len): the bytes consumed (a line cut at the end is not). */
size_t perfmap__parse(struct perfmap *m, const char *buf, size_t len, struct jit_counts *c);

/* The code holding addr: 0 and *out, -ENOENT, -ENOMEM. */
int perfmap__find(struct perfmap *m, uint64_t addr, struct jitsym *out);

size_t perfmap__len(const struct perfmap *m);

#endif
