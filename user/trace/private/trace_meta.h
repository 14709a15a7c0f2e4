/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The header's payload: decoding it is private to the trace layer. */
#ifndef XLP_TRACE_META_H
#define XLP_TRACE_META_H

#include <stddef.h>
#include <stdint.h>
#include "trace.h"

/*
 * Decodes the header's payload p[0..len) into *m (freed with
 * xlp_trace_meta__free, also on failure): 0, -EBADMSG (why says more when
 * it can, else ""), -ENOMEM.
 */
int trace_meta__decode(const uint8_t *p, size_t len, struct xlp_trace_meta *m, char *why,
		       size_t whylen);

#endif
