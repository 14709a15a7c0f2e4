/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The building blocks of xlprobe's BPF programs, one program each, all on
 * tp_btf/sys_enter and gated on the driver's tgid (tests/bench/micro/bpf_micro.c):
 * bpf_stats then gives each block's cost per event on this machine, the
 * gate-only program being the baseline. Built by the Makefile
 * (.output/tests/bench/micro/), run by tools/bench.sh.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define NR_CTR 20    /* XLP_NR_CTR */
#define REC_SIZE 376 /* sizeof(struct xlp_call_rec) */

volatile const __u32 cfg_tgid = 0;
__u64 sink = 0;

/* like xlprobe's threads map: u32 tid -> a value of about 5 KB */
struct big_value {
	__u64 c[NR_CTR];
	__u64 snap[NR_CTR];
	__u64 child[NR_CTR];
	__u64 pad[600];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct big_value);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct big_value);
} arr SEC(".maps");

/* the same value as task-local storage: the driver's thread has an entry */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct big_value);
} tstore SEC(".maps");

/* ... and one where no task has an entry: an untraced task's lookup */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct big_value);
} tstore_empty SEC(".maps");

struct rec {
	__u64 w[REC_SIZE / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} rb SEC(".maps");

static __always_inline bool gate(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == cfg_tgid;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(m0_gate_only, struct pt_regs *regs, long id)
{
	if (!gate())
		return 0;
	sink++;
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(m1_ktime, struct pt_regs *regs, long id)
{
	if (!gate())
		return 0;
	sink += bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(m2_hash_lookup, struct pt_regs *regs, long id)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_map_lookup_elem(&threads, &tid);
	if (v)
		v->c[0]++;
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(m3_array_lookup, struct pt_regs *regs, long id)
{
	__u32 k = 7;
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_map_lookup_elem(&arr, &k);
	if (v)
		v->c[0]++;
	return 0;
}

/* the pointer chases of kernel_delay_total() and fd_class(), as
 * bpf_probe_read_kernel() calls (BPF_CORE_READ) ... */
SEC("tp_btf/sys_enter")
int BPF_PROG(m4_8_probe_reads, struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct rq *rq;

	if (!gate())
		return 0;
	sink += BPF_CORE_READ(t, se.sum_exec_runtime);
	sink += BPF_CORE_READ(t, sched_info.run_delay);
	sink += BPF_CORE_READ(t, sched_info.last_queued);
	rq = BPF_CORE_READ(t, se.cfs_rq, rq); /* 2 reads */
	sink += BPF_CORE_READ(rq, clock);
	sink += BPF_CORE_READ(t, files, fdt, max_fds) > 0; /* 2 of the 3 reads */
	return 0;
}

/* ... and as direct loads through BTF pointers (PROBE_MEM, no helper call) */
SEC("tp_btf/sys_enter")
int BPF_PROG(m5_8_direct_loads, struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct rq *rq;

	if (!gate())
		return 0;
	sink += t->se.sum_exec_runtime;
	sink += t->sched_info.run_delay;
	sink += t->sched_info.last_queued;
	rq = t->se.cfs_rq->rq;
	sink += rq->clock;
	sink += t->files->fdt->max_fds > 0;
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(m6_4_atomic_adds, struct pt_regs *regs, long id)
{
	__u32 k = 8;
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 0;
	__sync_fetch_and_add(&v->c[1], 3);
	__sync_fetch_and_add(&v->c[2], 3);
	__sync_fetch_and_add(&v->c[3], 3);
	__sync_fetch_and_add(&v->c[4], 3);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(m7_4_plain_adds, struct pt_regs *regs, long id)
{
	__u32 k = 9;
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 0;
	v->c[1] += 3;
	v->c[2] += 3;
	v->c[3] += 3;
	v->c[4] += 3;
	return 0;
}

/* thread_now() into a frame plus zeroing its child[]: a uprobe entry */
SEC("tp_btf/sys_enter")
int BPF_PROG(m8_snapshot_40_u64, struct pt_regs *regs, long id)
{
	__u32 k = 10;
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_map_lookup_elem(&arr, &k);
	if (!v)
		return 0;
#pragma unroll
	for (int i = 0; i < NR_CTR; i++)
		v->snap[i] = v->c[i];
#pragma unroll
	for (int i = 0; i < NR_CTR; i++)
		v->child[i] = 0;
	return 0;
}

/* a call record built in per-CPU scratch, then copied (xlprobe's emit()) */
SEC("tp_btf/sys_enter")
int BPF_PROG(m9_ringbuf_output_376, struct pt_regs *regs, long id)
{
	__u32 k = 0;
	struct rec *r;

	if (!gate())
		return 0;
	r = bpf_map_lookup_elem(&scratch, &k);
	if (!r)
		return 0;
	r->w[0] = id;
	bpf_ringbuf_output(&rb, r, sizeof(*r), BPF_RB_NO_WAKEUP);
	return 0;
}

/* the same record reserved in the ring and written in place */
SEC("tp_btf/sys_enter")
int BPF_PROG(m10_ringbuf_reserve_376, struct pt_regs *regs, long id)
{
	struct rec *r;

	if (!gate())
		return 0;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r)
		return 0;
#pragma unroll
	for (int i = 0; i < REC_SIZE / 8; i++)
		r->w[i] = i;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* a 64-byte record: what a call with nothing but wall and CPU time needs */
SEC("tp_btf/sys_enter")
int BPF_PROG(m11_ringbuf_reserve_64, struct pt_regs *regs, long id)
{
	__u64 *r;

	if (!gate())
		return 0;
	r = bpf_ringbuf_reserve(&rb, 64, 0);
	if (!r)
		return 0;
#pragma unroll
	for (int i = 0; i < 8; i++)
		r[i] = i;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* per-thread state in task-local storage: no hashing, a pointer chase */
SEC("tp_btf/sys_enter")
int BPF_PROG(m13_task_storage_hit, struct pt_regs *regs, long id)
{
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_task_storage_get(&tstore, bpf_get_current_task_btf(), 0, 0);
	if (v)
		v->c[0]++;
	return 0;
}

/* the same for a task without an entry (untraced threads pay this) */
SEC("tp_btf/sys_enter")
int BPF_PROG(m14_task_storage_miss, struct pt_regs *regs, long id)
{
	struct big_value *v;

	if (!gate())
		return 0;
	v = bpf_task_storage_get(&tstore_empty, bpf_get_current_task_btf(), 0, 0);
	if (v)
		v->c[0]++;
	return 0;
}

/* a syscall's number and first arguments from the task's saved registers */
SEC("tp_btf/sys_enter")
int BPF_PROG(m15_task_pt_regs, struct pt_regs *regs, long id)
{
	struct pt_regs *r;

	if (!gate())
		return 0;
	r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	sink += r->orig_ax + r->di + r->si;
	return 0;
}

/* the floor again, run last: the first program pays for cold caches */
SEC("tp_btf/sys_enter")
int BPF_PROG(m12_gate_only_last, struct pt_regs *regs, long id)
{
	if (!gate())
		return 0;
	sink++;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
