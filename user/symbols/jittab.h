/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The names a JIT runtime gave its code (perf maps, jitdumps): entries
 * (start, size, name, load time) in the order they were read, looked up
 * by address. Code is freed and its addresses reused: of the entries
 * covering an address, the last read wins, or with a time, the last
 * loaded at or before it.
 */
#ifndef XLP_JITTAB_H
#define XLP_JITTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most entries a table keeps: a map past it is cut off (counted by its reader). */
#define JITTAB_MAX (1u << 20)
/* The longest name kept (struct xsym's name holds 255 bytes). */
#define JITTAB_NAME_MAX 255
/* No time: the newest entry wins. */
#define JITTAB_NOW UINT64_MAX

struct jittab;

struct jitsym {
	uint64_t start, size;
	const char *name; /* valid until the table changes */
	unsigned source;  /* XLP_SYM_SRC_JITDUMP or _PERFMAP (set by jitproc__find) */
};

int jittab__new(struct jittab **out); /* 0 or -ENOMEM */
void jittab__free(struct jittab *t);  /* NULL is fine */
void jittab__clear(struct jittab *t);

/*
 * Adds [start, start + size) named by name[0..len) (cut to JITTAB_NAME_MAX)
 * loaded at time (CLOCK_MONOTONIC ns; 0 when unknown). 0, -EINVAL (size 0,
 * or the range wraps), -E2BIG (JITTAB_MAX entries already), -ENOMEM.
 */
int jittab__add(struct jittab *t, uint64_t start, uint64_t size, const char *name, size_t len,
		uint64_t time);

/*
 * The entry naming addr at time (JITTAB_NOW: the last read): 0 and *out,
 * or -ENOENT (none covers it, or none had been loaded by then), -ENOMEM.
 */
int jittab__find(struct jittab *t, uint64_t addr, uint64_t time, struct jitsym *out);

/* The last entry read that starts at addr (code a JIT_CODE_MOVE moves), or -ENOENT. */
int jittab__at_start(const struct jittab *t, uint64_t addr, struct jitsym *out);

size_t jittab__len(const struct jittab *t);

#endif
