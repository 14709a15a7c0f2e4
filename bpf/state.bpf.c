/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one definition of every map and configuration variable. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "xlprobe.h"

volatile const __u64 cfg_min_dur_ns = 0;
/* wake the reader only once this much is queued (it also polls on a timer) */
volatile const __u32 cfg_rb_wakeup_bytes = 256 * 1024;

__u32 next_proc_slot = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, XLP_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct xlp_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* user space sets bits atomically too */
	__uint(max_entries, XLP_PID_MAX_LIMIT / 64);
	__type(key, __u32);
	__type(value, __u64);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XLP_MAX_PROCS);
	__type(key, __u32);
	__type(value, __u32);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XLP_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct xlp_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XLP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct xlp_func);
} funcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct xlp_cpufreq);
} cpu_freq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XLP_NR_STAT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct xlp_call_rec);
} call_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xlp_irqctx);
} irqctx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u32);
} bio_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u32);
} rq_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct xlp_launch_time);
} launch_times SEC(".maps");

char LICENSE[] SEC("license") = "Dual BSD/GPL";
