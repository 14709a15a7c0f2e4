/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What goes to the recorder through the ring buffer: one record, a
 * timeline event, a thread's batch of compact call records, and the
 * totals of a thread or a process; the reader woken only once enough is
 * queued.
 */
#ifndef XLP_EMIT_BPF_H
#define XLP_EMIT_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"

/*
 * Wakes the reader only when enough is queued: a wakeup per record costs
 * more than the record (MACHINE.md); the reader also drains on a timer.
 * Only the record that crosses the threshold wakes it: one wakeup (an IPI
 * here) per cfg_rb_wakeup_bytes, not one per record while it catches up.
 */
static __always_inline long wake_flags(__u64 queued, __u64 size)
{
	return queued >= cfg_rb_wakeup_bytes && queued - size < cfg_rb_wakeup_bytes
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
}

static __always_inline void emit(void *rec, __u64 size)
{
	__u64 queued = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + size;

	if (bpf_ringbuf_output(&rb, rec, size, wake_flags(queued, size)))
		stat_inc(XLP_S_RB_FULL);
}

/* One timeline event (record --timeline); nothing, and no cost, without. */
static __always_inline void tl_emit(__u16 kind, __u32 pid, __u32 tid, __u32 arg, __u16 detail,
				    __u64 now)
{
	struct xlp_sched_rec r;

	if (!cfg_timeline)
		return;
	r.h.type = XLP_R_SCHED;
	r.h.size = sizeof(r);
	r.h.cpu = bpf_get_smp_processor_id();
	r.time_ns = now;
	r.pid = pid;
	r.tid = tid;
	r.arg = arg;
	r.kind = kind;
	r.detail = detail;
	emit(&r, sizeof(r));
}

/*
 * Sends the thread's pending compact call records, one ring buffer sample
 * for them all: the ring buffer's cost per record (~60 ns on the uretprobe
 * path here, most of a short call's cost) is paid once per batch. Called
 * before any other record of the thread goes out, so that a thread's
 * records stay in the order it produced them.
 */
static __always_inline void batch_flush(struct xlp_thread *t)
{
	__u32 len = t->batch.len, n = t->batch.recs;

	/* reported at stop: the iterator wrote the batch, it must not go twice */
	if (!len || t->stopped)
		return;
	if (len > sizeof(t->batch.buf))
		len = sizeof(t->batch.buf);
	t->batch.len = 0;
	t->batch.recs = 0;
	if (bpf_ringbuf_output(&rb, t->batch.buf, len,
			       wake_flags(bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) + len, len))) {
		__u32 idx = XLP_S_RB_FULL;
		__u64 *v = bpf_map_lookup_elem(&stats, &idx);

		if (v)
			*v += n;
	}
}

static __always_inline void thread_rec_fill(struct xlp_thread_rec *rec, struct xlp_thread *t,
					    const char *comm, __u32 flags, __u64 now)
{
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->h.type = XLP_R_THREAD;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->pid = t->pid;
	rec->tid = t->tid;
	rec->flags = flags | (t->flags & XLP_THREAD_PARTIAL);
	rec->first_ns = t->first_ns;
	rec->last_ns = now;
	bpf_probe_read_kernel_str(rec->comm, sizeof(rec->comm), comm);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		rec->tot[i] = t->acct.c[i];
}

/* A process's totals (XLP_R_PROC), as it ends or as recording stops. */
static __always_inline void proc_rec_fill(struct xlp_proc_rec *rec, struct xlp_proc *p, __u32 pid,
					  const char *comm, __u32 flags, __u64 now)
{
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->h.type = XLP_R_PROC;
	rec->h.size = sizeof(*rec);
	rec->h.cpu = bpf_get_smp_processor_id();
	rec->pid = pid;
	rec->flags = flags;
	rec->first_ns = p->first_ns;
	rec->last_ns = now;
	bpf_probe_read_kernel_str(rec->comm, sizeof(rec->comm), comm);
#pragma unroll
	for (int i = 0; i < XLP_NR_CTR; i++)
		rec->tot[i] = p->c[i];
}

#endif
