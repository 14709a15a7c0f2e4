/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --pprof as go tool pprof (Debian's golang-go) reads it,
 * against export --folded of the same trace: each function's cumulative
 * total (once per stack it is on; kernel frames without their _[k], the
 * process's frame and the wait's pseudo-frame left out).
 */
#ifndef XLP_PPROFCMP_H
#define XLP_PPROFCMP_H

/*
 * CHECKs that go tool pprof -top -sample_index=idx of pb gives every
 * function the total that "xl export --folded flags trace" gives it, and
 * no other function.
 */
void pprofcmp__same_totals(const char *xl, const char *trace, const char *pb, const char *idx,
			   const char *flags);

#endif
