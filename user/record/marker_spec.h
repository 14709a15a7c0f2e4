/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record's marker: specs (--func / --interaction marker:NAME,
 * --size-counter NAME): trace-marker sections and counters picked by
 * name, * and ? globs, checked and turned into what the programs of
 * bpf/marker.bpf.c are given (struct xlp_marker_spec).
 */
#ifndef XLP_MARKER_SPEC_H
#define XLP_MARKER_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "marker.h"

#define MARKER_SPEC_PREFIX "marker:"
/* the function table's binary of a marker function (user/trace/trace.h) */
#define MARKER_SPEC_BINARY "[trace_marker]"

/* spec is a marker: spec (and not a BINARY:SYMBOL) */
bool marker_spec__is(const char *spec);

/*
 * Fills *out for pattern (without the prefix): 0, or -EINVAL with a
 * one-line reason naming the fix in err (empty, too long, a '|' or
 * a '[' class that the programs' glob does not match).
 */
int marker_spec__make(const char *pattern, uint32_t func_id, uint32_t flags,
		      struct xlp_marker_spec *out, char *err, size_t errlen);

#endif
