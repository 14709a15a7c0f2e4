/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Never attached: tests run it with bpf_prog_test_run_opts to drive the
 * same accounting helpers the tracepoint programs use, with synthetic
 * events this machine cannot produce (frequency changes, binder).
 */
/* a hypervisor's steal clock the tests set (XLP_ST_STEAL_SET): this
 * machine's own steals a tick now and then, never on cue */
#include "vmlinux.h"
#define XLP_STEAL_CLOCK(cpu) st_steal_clock(cpu)
static __u64 st_steal_clock(__u32 cpu);

#include "reasons.bpf.h"
#include "selftest.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} st_steal SEC(".maps");

static __u64 st_steal_clock(__u32 cpu)
{
	__u64 *v = bpf_map_lookup_elem(&st_steal, &cpu);

	return v && *v ? *v + 1 : 0;
}

/*
 * The fake threads the tests create, keyed by a tid no real thread has:
 * the product keeps thread state in task storage, which needs a real task.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct xlp_thread);
} st_threads SEC(".maps");

/* The syscall a fake thread is in (the real ones' registers say it). */
struct st_sys {
	__s64 nr;
	__u64 cls;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct st_sys);
} st_syscall SEC(".maps");

SEC("syscall")
int xlp_selftest(struct xlp_selftest *a)
{
	struct st_sys sc = {}, *sys;
	__u32 tid = a->tid;
	struct xlp_thread *t;
	struct xlp_proc *p;

	if (a->op == XLP_ST_FREQ_SET) {
		freq_set(a->cpu, (__u64)a->arg, a->now);
		return 0;
	}
	if (a->op == XLP_ST_FREQ_INTEGRAL) {
		a->out = freq_integral(a->cpu, a->now);
		return 0;
	}
	if (a->op == XLP_ST_STEAL_SET) {
		__u32 cpu = a->cpu;
		__u64 v = (__u64)a->arg;

		return bpf_map_update_elem(&st_steal, &cpu, &v, BPF_ANY) ? -1 : 0;
	}
	t = bpf_map_lookup_elem(&st_threads, &tid);
	if (!t)
		return -1;
	p = proc_get(t);
	switch (a->op) {
	case XLP_ST_SWITCH_OUT:
		sys = bpf_map_lookup_elem(&st_syscall, &tid);
		if (a->arg3 && t->acct.state == XLP_T_RUNNING)
			run_close(t, p, a->now, a->arg3 - 1, st_steal_clock(a->cpu));
		else
			thread_account(t, p, a->now);
		ev_block(t, a->arg == XLP_T_SLEEP_D, sys ? sys->nr : -1,
			 sys ? (__u32)sys->cls : XLP_SC_WAKER);
		break;
	case XLP_ST_SWITCH_IN:
		thread_account(t, p, a->now);
		t->acct.last_cpu = a->cpu;
		t->acct.freq_at_in = freq_integral(a->cpu, a->now);
		steal_reset(t, st_steal_clock(a->cpu));
		t->acct.state = XLP_T_RUNNING;
		break;
	case XLP_ST_SNAPSHOT: {
		__u64 snap[XLP_NR_CTR];

		thread_now(t, a->now, snap);
		a->out = snap[XLP_C_CPU_RUN];
		a->out2 = snap[XLP_C_CPU_STEAL];
		break;
	}
	case XLP_ST_UPROBE_SYNC:
		/* the kernel's cumulative figures, as deltas from what was seen */
		if (!t->acct.exec_at_in)
			t->acct.exec_at_in = 1;
		if (!t->acct.delay_seen)
			t->acct.delay_seen = 1;
		if (t->acct.state != XLP_T_RUNNING)
			ev_sync_missed(t, p, a->now, t->acct.exec_at_in + (__u64)a->arg,
				       t->acct.delay_seen + a->arg2, a->arg3, true);
		t->acct.state = XLP_T_RUNNING;
		t->acct.ts = a->now;
		break;
	case XLP_ST_WAKE:
		/* the product's waker program asks the same (bpf/waker.bpf.c) */
		ev_waker(t, (__u32)a->arg, (__u32)a->arg2,
			 waker_may_be_io((__u32)a->arg) && blk_during_sleep(t));
		ev_wakeup(t, p, a->now);
		break;
	case XLP_ST_SYS_ENTER:
		sc.nr = a->arg;
		sc.cls = a->arg2;
		bpf_map_update_elem(&st_syscall, &tid, &sc, BPF_ANY);
		break;
	case XLP_ST_SYS_EXIT:
		bpf_map_delete_elem(&st_syscall, &tid);
		break;
	case XLP_ST_BINDER_TXN:
		ev_binder_txn(t, a->arg, (__u32)a->arg2, (__u32)a->arg3, NULL);
		break;
	case XLP_ST_BINDER_RETURN:
		ev_binder_return(t, (__u32)a->arg);
		break;
	case XLP_ST_BINDER_RECV:
		ev_binder_recv(t);
		break;
	default:
		return -1;
	}
	return 0;
}
