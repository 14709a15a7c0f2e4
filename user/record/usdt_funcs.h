/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record's USDT functions: --func / --interaction / --until usdt:... specs
 * resolved (user/symbols/usdt.h) into the trace's function table, flagged
 * XLP_FUNC_USDT, their probes kept by function id for attaching in each
 * process (session__attach_usdt).
 */
#ifndef XLP_USDT_FUNCS_H
#define XLP_USDT_FUNCS_H

#include <stdint.h>
#include <sys/types.h>
#include "session.h"
#include "trace.h"

struct usdt_funcs;

/*
 * Resolves spec for process pid (0: launching) and adds its function to
 * m with flags (XLP_FUNC_*); a spec given twice merges its flags. until,
 * if not NULL, is record --until's spec without --key: its probe ends the
 * calls of spec's (same binary and provider). Checks that the arguments
 * the flags name (key, size) exist on the probes. Negative errno, the
 * one-line reason printed.
 */
int usdt_funcs__add(struct usdt_funcs **uf, struct xlp_trace_meta *m, const char *spec,
		    const char *until, int pid, uint32_t flags);

/* Attaches function f (XLP_FUNC_USDT) in pid with these cookie flags; err says why not. */
int usdt_funcs__attach(const struct usdt_funcs *uf, struct session *s,
		       const struct xlp_func_info *f, uint32_t cookie_flags, pid_t pid, char *err,
		       size_t errlen);

void usdt_funcs__free(struct usdt_funcs *uf); /* accepts NULL */

#endif
