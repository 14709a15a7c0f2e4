/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A thread's block I/O, counted by the tasks that issue and complete its
 * requests (bpf/block.bpf.c), folded into its own counters at its next
 * snapshot or record; and whether a request was in flight during a sleep.
 */
#ifndef XLP_BLKFOLD_BPF_H
#define XLP_BLKFOLD_BPF_H

#include "maps.bpf.h"
#include "bitmap.bpf.h"

static __always_inline void blk_reset(__u32 tid)
{
	if (!bit_test(&blk_pending, tid) && !bpf_map_lookup_elem(&blk, &tid))
		return;
	bit_set(&blk_pending, tid, false);
	bpf_map_delete_elem(&blk, &tid);
}

/*
 * Brings the thread's disk_rq and disk_bytes up to date with what other
 * tasks counted for it (bpf/block.bpf.c): a bit test when there is nothing
 * new. Their process already has them.
 */
static __always_inline void blk_fold(struct xlp_thread *t)
{
	__u32 tid = t->tid;
	struct xlp_blk *b;

	if (!bit_test(&blk_pending, tid))
		return;
	bit_set(&blk_pending, tid, false);
	b = bpf_map_lookup_elem(&blk, &tid);
	if (!b)
		return;
	t->acct.c[XLP_C_DISK_RQ] += b->rq - t->blk.rq_seen;
	t->acct.c[XLP_C_DISK_BYTES] += b->bytes - t->blk.bytes_seen;
	t->blk.rq_seen = b->rq;
	t->blk.bytes_seen = b->bytes;
}

/*
 * The thread blocks: what its block requests add up to then, so that its
 * wakeup can tell whether one completed during the sleep. A lookup only
 * for threads that ever issued one (the bitmap, or counts already folded).
 */
static __always_inline void blk_sleep_mark(struct xlp_thread *t)
{
	__u32 tid = t->tid;
	struct xlp_blk *b;

	t->blk.done_at_block = 0;
	if (!t->blk.rq_seen && !bit_test(&blk_pending, tid))
		return;
	b = bpf_map_lookup_elem(&blk, &tid);
	if (b)
		t->blk.done_at_block = b->done;
}

/*
 * Whether the thread's own block requests were in flight during the sleep
 * that ends now: one still is, or one completed since it blocked (the
 * completion comes before the wakeup it causes, so in flight alone misses
 * the last request). Looked up for kernel-context wakeups only.
 */
static __always_inline bool blk_during_sleep(struct xlp_thread *t)
{
	__u32 tid = t->tid;
	struct xlp_blk *b = bpf_map_lookup_elem(&blk, &tid);

	return b && (b->inflight > 0 || b->done != t->blk.done_at_block);
}

#endif
