/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The clocks of a CPU a thread's slice is measured against besides time:
 * the frequency integral (kHz x ns) and the hypervisor's steal clock.
 */
#ifndef XLP_CPUCLOCK_BPF_H
#define XLP_CPUCLOCK_BPF_H

#include "maps.bpf.h"

/*
 * sum(kHz x ns) of cpu up to now. A thread's frequency counter grows by the
 * difference of this integral between its switch-in and switch-out, so a
 * frequency change in the middle of a slice is weighted exactly.
 */
static __always_inline __u64 freq_integral(__u32 cpu, __u64 now)
{
	struct xlp_cpufreq *f = bpf_map_lookup_elem(&cpu_freq, &cpu);

	if (!f)
		return 0;
	return f->integral + (now > f->since ? f->khz * (now - f->since) : 0);
}

static __always_inline void freq_set(__u32 cpu, __u64 khz, __u64 now)
{
	struct xlp_cpufreq *f = bpf_map_lookup_elem(&cpu_freq, &cpu);

	if (!f)
		return;
	f->integral = freq_integral(cpu, now);
	f->since = now;
	f->khz = khz;
}

/*
 * This CPU's runqueue, read through the current task's se.cfs_rq->rq
 * (xlp_task_rq): current runs on this CPU (at sched_switch, current is
 * prev, and next is queued on the same runqueue). cpu: the CPU the caller
 * means; 0 when the runqueue found is another's (rq->cpu is checked, as
 * a task of another class may keep a stale se.cfs_rq).
 *
 * Global functions, so that the kernel verifies each once per program:
 * a walk from a trusted task pointer (bpf_get_current_task_btf(), a
 * tp_btf argument) to another struct costs the verifier four searches of
 * the kernel's whole BTF by name (btf_nested_type_is_trusted()), and
 * inlined, the walk was verified again on every path that reached it:
 * 50 to 60 times in the switch and the return programs, 70 ms of the
 * return program's load here.
 */
/* rq->clock + 1; 0: none (no runqueue through cfs_rq on this kernel) */
__weak __noinline __u64 xlp_rq_clock(__u32 cpu)
{
	struct rq *rq = xlp_task_rq(bpf_get_current_task_btf());

	return rq && rq->cpu == (int)cpu ? rq->clock + 1 : 0;
}

/*
 * The steal clock of cpu + 1 (0: none). The self-test object brings its
 * own (bpf/selftest.bpf.c).
 */
#ifndef XLP_STEAL_CLOCK
__weak __noinline __u64 xlp_steal_clock(__u32 cpu)
{
	return xlp_rq_steal(xlp_task_rq(bpf_get_current_task_btf()), cpu);
}
#define steal_clock xlp_steal_clock
#else
#define steal_clock XLP_STEAL_CLOCK
#endif

/* Steal on t's CPU between its switch-in and clk (both steal clock + 1). */
static __always_inline __u64 steal_since_in(struct xlp_thread *t, __u64 clk)
{
	return clk && t->acct.steal_at_in && clk > t->acct.steal_at_in ? clk - t->acct.steal_at_in
								       : 0;
}

/* A new on-CPU slice of t begins at steal clock clk (0: none): nothing stolen yet. */
static __always_inline void steal_reset(struct xlp_thread *t, __u64 clk)
{
	t->acct.run_exposed = 0;
	t->acct.steal_exposed = 0;
	t->acct.steal_at_in = clk;
}

/* The cost of sampling work on a traced thread that began at t0 (bpf_ktime_get_ns). */

#endif
