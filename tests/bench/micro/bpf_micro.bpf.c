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

/*
 * One micro-benchmark: a program on sys_enter that does its body only in
 * the measured process (the gate), the same attachment and gate in all of
 * them so that only the bodies differ. The body follows the macro, as a
 * function of the syscall's id.
 */
#define MICRO(name)                                                                                \
	static __always_inline void name##_body(long id);                                          \
	SEC("tp_btf/sys_enter")                                                                    \
	int BPF_PROG(name, struct pt_regs *regs, long id)                                          \
	{                                                                                          \
		if (gate())                                                                        \
			name##_body(id);                                                           \
		return 0;                                                                          \
	}                                                                                          \
	static __always_inline void name##_body(long id)

/* the counters of entry k of arr, NULL if missing */
static __always_inline struct big_value *arr_at(__u32 k)
{
	return bpf_map_lookup_elem(&arr, &k);
}

/* One on the counters of entry k of arr: its body is a function of them, v. */
#define MICRO_ARR(name, k)                                                                         \
	static __always_inline void name##_v(struct big_value *v);                                 \
	MICRO(name)                                                                                \
	{                                                                                          \
		struct big_value *v = arr_at(k);                                                   \
                                                                                                   \
		if (v)                                                                             \
			name##_v(v);                                                               \
	}                                                                                          \
	static __always_inline void name##_v(struct big_value *v)

MICRO(m0_gate_only)
{
	sink++;
}

MICRO(m1_ktime)
{
	sink += bpf_ktime_get_ns();
}

MICRO(m2_hash_lookup)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct big_value *v = bpf_map_lookup_elem(&threads, &tid);

	if (v)
		v->c[0]++;
}

MICRO_ARR(m3_array_lookup, 7)
{
	v->c[0]++;
}

/* the pointer chases of kernel_delay_total() and fd_class(), as
 * bpf_probe_read_kernel() calls (BPF_CORE_READ) ... */
MICRO(m4_8_probe_reads)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct rq *rq;

	sink += BPF_CORE_READ(t, se.sum_exec_runtime);
	sink += BPF_CORE_READ(t, sched_info.run_delay);
	sink += BPF_CORE_READ(t, sched_info.last_queued);
	rq = BPF_CORE_READ(t, se.cfs_rq, rq); /* 2 reads */
	sink += BPF_CORE_READ(rq, clock);
	sink += BPF_CORE_READ(t, files, fdt, max_fds) > 0; /* 2 of the 3 reads */
}

/* ... and as direct loads through BTF pointers (PROBE_MEM, no helper call) */
MICRO(m5_8_direct_loads)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct rq *rq;

	sink += t->se.sum_exec_runtime;
	sink += t->sched_info.run_delay;
	sink += t->sched_info.last_queued;
	rq = t->se.cfs_rq->rq;
	sink += rq->clock;
	sink += t->files->fdt->max_fds > 0;
}

MICRO_ARR(m6_4_atomic_adds, 8)
{
#pragma unroll
	for (int i = 1; i <= 4; i++)
		__sync_fetch_and_add(&v->c[i], 3);
}

MICRO_ARR(m7_4_plain_adds, 9)
{
#pragma unroll
	for (int i = 1; i <= 4; i++)
		v->c[i] += 3;
}

/* thread_now() into a frame plus zeroing its child[]: a uprobe entry */
MICRO_ARR(m8_snapshot_40_u64, 10)
{
#pragma unroll
	for (int i = 0; i < NR_CTR; i++)
		v->snap[i] = v->c[i];
#pragma unroll
	for (int i = 0; i < NR_CTR; i++)
		v->child[i] = 0;
}

/* a call record built in per-CPU scratch, then copied (xlprobe's emit()) */
MICRO(m9_ringbuf_output_376)
{
	__u32 k = 0;
	struct rec *r = bpf_map_lookup_elem(&scratch, &k);

	if (!r)
		return;
	r->w[0] = id;
	bpf_ringbuf_output(&rb, r, sizeof(*r), BPF_RB_NO_WAKEUP);
}

/* n words reserved in the ring and written in place */
static __always_inline void reserve_words(int n)
{
	__u64 *r = bpf_ringbuf_reserve(&rb, n * 8, 0);

	if (!r)
		return;
#pragma unroll
	for (int i = 0; i < n; i++)
		r[i] = i;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* the same record reserved in the ring and written in place */
MICRO(m10_ringbuf_reserve_376)
{
	reserve_words(REC_SIZE / 8);
}

/* a 64-byte record: what a call with nothing but wall and CPU time needs */
MICRO(m11_ringbuf_reserve_64)
{
	reserve_words(8);
}

/* per-thread state in task-local storage: no hashing, a pointer chase */
MICRO(m13_task_storage_hit)
{
	struct big_value *v = bpf_task_storage_get(&tstore, bpf_get_current_task_btf(), 0, 0);

	if (v)
		v->c[0]++;
}

/* the same for a task without an entry (untraced threads pay this) */
MICRO(m14_task_storage_miss)
{
	struct big_value *v = bpf_task_storage_get(&tstore_empty, bpf_get_current_task_btf(), 0, 0);

	if (v)
		v->c[0]++;
}

/* a syscall's number and first arguments from the task's saved registers */
MICRO(m15_task_pt_regs)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	sink += r->orig_ax + r->di + r->si;
}

/* the floor again, run last: the first program pays for cold caches */
MICRO(m12_gate_only_last)
{
	sink++;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
