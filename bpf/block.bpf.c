/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Block I/O of traced threads, attributed to the thread that submitted the
 * bio: at block_rq_issue "current" is often a kworker (loop devices always
 * issue from one), so the request is traced back through its first bio.
 * Requests and bytes are counted per thread (the blk map, folded into the
 * thread's counters by blk_fold()) and per process, and in-flight requests
 * make a kernel-context wakeup count as I/O completion
 * (bpf/reasons.bpf.h).
 */
#include "reasons.bpf.h"

SEC("tp_btf/block_bio_queue")
int BPF_PROG(xlp_bio_queue, struct bio *bio)
{
	struct xlp_thread *t = thread_get_current();
	struct xlp_bio_owner o;
	__u64 key = (__u64)bio;

	if (!t)
		return 0;
	o.tid = t->tid;
	o.slot = t->proc_slot;
	bpf_map_update_elem(&bio_owner, &key, &o, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(xlp_rq_issue, struct request *rq)
{
	__u64 bio = (__u64)rq->bio, key = (__u64)rq, bytes = rq->__data_len;
	struct xlp_bio_owner *owner = bio ? bpf_map_lookup_elem(&bio_owner, &bio) : NULL;
	struct xlp_blk zero = {}, *b;
	struct xlp_bio_owner o;
	struct xlp_thread *t;
	struct xlp_proc *p;

	if (owner) {
		o = *owner;
		bpf_map_delete_elem(&bio_owner, &bio);
	} else {
		/* no bio seen: the issuer is the submitter, if traced */
		t = thread_get_current();
		if (!t)
			return 0;
		o.tid = t->tid;
		o.slot = t->proc_slot;
	}
	/* a thread that exited since: nothing to count it for */
	if (!tid_tracked(o.tid))
		return 0;
	b = bpf_map_lookup_elem(&blk, &o.tid);
	if (!b) {
		bpf_map_update_elem(&blk, &o.tid, &zero, BPF_NOEXIST);
		b = bpf_map_lookup_elem(&blk, &o.tid);
		if (!b)
			return 0;
	}
	__sync_fetch_and_add(&b->inflight, 1);
	__sync_fetch_and_add(&b->rq, 1);
	__sync_fetch_and_add(&b->bytes, bytes);
	bit_set(&blk_pending, o.tid, true);
	p = bpf_map_lookup_elem(&procs, &o.slot);
	if (p) {
		__sync_fetch_and_add(&p->c[XLP_C_DISK_RQ], 1);
		__sync_fetch_and_add(&p->c[XLP_C_DISK_BYTES], bytes);
	}
	bpf_map_update_elem(&rq_owner, &key, &o.tid, BPF_ANY);
	tl_emit(XLP_SCHED_BLOCK_ISSUE, 0, o.tid, (__u32)bytes, 0, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(xlp_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	__u32 *owner = bpf_map_lookup_elem(&rq_owner, &key);
	struct xlp_blk *b;

	if (!owner)
		return 0;
	b = bpf_map_lookup_elem(&blk, owner);
	if (b && b->inflight > 0)
		__sync_fetch_and_sub(&b->inflight, 1);
	/* the thread may be asleep waiting for it: its waker will ask */
	if (b)
		__sync_fetch_and_add(&b->done, 1);
	tl_emit(XLP_SCHED_BLOCK_DONE, 0, *owner, nr_bytes, 0, bpf_ktime_get_ns());
	bpf_map_delete_elem(&rq_owner, &key);
	return 0;
}
