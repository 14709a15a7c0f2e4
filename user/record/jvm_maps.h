/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * When to ask a JVM for its perf map (jvm_attach.h): on a sampled frame in
 * JIT code its files do not name, with a gap growing from 50 ms to 2 s per
 * process (the JVM rewrites the whole map each time: a few ms for
 * thousands of methods). A process that is not a JVM is never asked; one that cannot
 * be asked is told once, with what to pass instead.
 */
#ifndef XLP_JVM_MAPS_H
#define XLP_JVM_MAPS_H

#include <stdbool.h>
#include <stdint.h>

struct jvm_maps;

int jvm_maps__new(struct jvm_maps **out); /* 0 or -ENOMEM */
void jvm_maps__free(struct jvm_maps *m);  /* NULL is fine */

/* symbolizer_jit_miss_fn (symbolize.h): ctx is a struct jvm_maps. */
bool jvm_maps__miss(void *ctx, int pid);

/* Perf maps the JVMs wrote on request, and requests that failed. */
void jvm_maps__counts(const struct jvm_maps *m, uint64_t *written, uint64_t *failed);

#endif
