/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Block I/O of traced threads, attributed to the thread that submitted the
 * bio: at block_rq_issue "current" is often a kworker (loop devices always
 * issue from one), so the request is traced back through its first bio.
 * Requests and bytes are counted per thread, and in-flight requests make a
 * kernel-context wakeup count as I/O completion (bpf/reasons.bpf.h).
 */
#include "reasons.bpf.h"

SEC("tp_btf/block_bio_queue")
int BPF_PROG(xlp_bio_queue, struct bio *bio)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 key = (__u64)bio;

	if (!tid_tracked(tid))
		return 0;
	bpf_map_update_elem(&bio_owner, &key, &tid, BPF_ANY);
	return 0;
}

/*
 * The state of the thread that submitted a request: current, or another
 * task found by its tid (a reference the caller drops with
 * bpf_task_release when *ref is set). Block requests are rare enough for
 * the kfunc's pid lookup.
 */
static __always_inline struct xlp_thread *owner_get(__u32 tid, struct task_struct **ref)
{
	struct task_struct *task;

	*ref = NULL;
	if (!tid_tracked(tid))
		return NULL;
	if (tid == (__u32)bpf_get_current_pid_tgid())
		return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0, 0);
	task = bpf_task_from_pid(tid);
	if (!task)
		return NULL;
	*ref = task;
	return bpf_task_storage_get(&threads, task, 0, 0);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(xlp_rq_issue, struct request *rq)
{
	__u64 bio = (__u64)rq->bio, key = (__u64)rq;
	__u32 *owner = bio ? bpf_map_lookup_elem(&bio_owner, &bio) : NULL;
	__u32 tid = owner ? *owner : (__u32)bpf_get_current_pid_tgid();
	struct task_struct *ref;
	struct xlp_thread *t;
	struct xlp_proc *p;

	if (owner)
		bpf_map_delete_elem(&bio_owner, &bio);
	t = owner_get(tid, &ref);
	if (t) {
		p = proc_get(t);
		ctr_add(t, p, XLP_C_DISK_RQ, 1);
		ctr_add(t, p, XLP_C_DISK_BYTES, rq->__data_len);
		__sync_fetch_and_add(&t->blk_inflight, 1);
		bpf_map_update_elem(&rq_owner, &key, &tid, BPF_ANY);
	}
	if (ref)
		bpf_task_release(ref);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(xlp_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	__u32 *owner = bpf_map_lookup_elem(&rq_owner, &key);
	struct task_struct *ref;
	struct xlp_thread *t;

	if (!owner)
		return 0;
	t = owner_get(*owner, &ref);
	if (t && t->blk_inflight)
		__sync_fetch_and_sub(&t->blk_inflight, 1);
	if (ref)
		bpf_task_release(ref);
	bpf_map_delete_elem(&rq_owner, &key);
	return 0;
}
