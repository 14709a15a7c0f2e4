/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One bit per tid in an array map: "is this thread traced?" on every
 * scheduler event of the machine, and "has it block I/O to fold?".
 */
#ifndef XLP_BITMAP_BPF_H
#define XLP_BITMAP_BPF_H

#include "maps.bpf.h"

static __always_inline bool bit_test(void *bitmap, __u32 n)
{
	__u32 idx = n >> 6;
	__u64 *w = bpf_map_lookup_elem(bitmap, &idx);

	return w && (*w & (1ULL << (n & 63)));
}

static __always_inline void bit_set(void *bitmap, __u32 n, bool on)
{
	__u32 idx = n >> 6;
	__u64 *w = bpf_map_lookup_elem(bitmap, &idx);

	if (!w)
		return;
	if (on)
		__sync_fetch_and_or(w, 1ULL << (n & 63));
	else
		__sync_fetch_and_and(w, ~(1ULL << (n & 63)));
}

static __always_inline bool tid_tracked(__u32 tid)
{
	return bit_test(&tracked, tid);
}

static __always_inline void tid_set_tracked(__u32 tid, bool on)
{
	bit_set(&tracked, tid, on);
}

/* Forgets tid's block I/O (a thread starts or ends). */

#endif
