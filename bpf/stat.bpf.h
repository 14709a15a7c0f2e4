/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The programs' statistics (enum xlp_stat): per-CPU counters user space
 * sums into the trace's footer. Loss and skips are counted here, never
 * silent.
 */
#ifndef XLP_STAT_BPF_H
#define XLP_STAT_BPF_H

#include "maps.bpf.h"

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 idx)
{
	stat_add(idx, 1);
}

#endif
