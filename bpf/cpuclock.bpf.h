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
 * The steal clock of cpu + 1 (0: none), read through task's runqueue. The
 * self-test object brings its own (bpf/selftest.bpf.c).
 */
#ifndef XLP_STEAL_CLOCK
static __always_inline __u64 steal_clock(struct task_struct *task, __u32 cpu)
{
	return xlp_rq_steal(xlp_task_rq(task), cpu);
}
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
