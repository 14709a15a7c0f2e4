/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --sample: turns the sampling program's records into the trace's.
 * A sample names its stacks by the kernel's stack-map ids; the sampler
 * reads each new stack once, names its frames (user/symbols/symbolize.h) and
 * writes the xlp_sym_rec and xlp_stack_rec records it needs before the
 * sample, whose ids it rewrites to the trace's own.
 */
#ifndef XLP_SAMPLER_H
#define XLP_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "jitfile.h"
#include "xlprobe.h"

struct session;
struct sampler;

/* Writes one record to the trace; non-zero: the record is lost (counted by the caller). */
typedef int (*sampler_write_fn)(void *ctx, const struct xlp_hdr *rec);

struct sampler_counts {
	uint64_t samples;
	uint64_t stacks, syms;	       /* distinct ones written */
	uint64_t frames, frames_named; /* frames of written stacks; of them, with a function name */
	uint64_t recovered;	       /* frames a frame-pointer walk skipped, found on the stack */
	uint64_t unwound[3];	       /* user stacks of samples by enum xlp_stack_method */
	uint64_t copy_cut;	       /* of the CFI ones, those the copy's size cut short */
	uint64_t copies, copy_bytes;   /* user-stack copies received, and their bytes */
	uint64_t unwind_ns, unwinds;   /* the recorder's time unwinding copies, and how many */
	uint64_t copy_missing; /* samples whose copy was skipped (ring buffer a quarter full) or
				  lost */
	uint64_t stack_lost;   /* samples with a stack the kernel could not keep or give back */
	uint64_t cost_ns;      /* sampling programs' time on traced threads, windows written */
	uint64_t over_windows; /* windows in which no period met the bound */
	uint64_t max_period;   /* the longest period chosen */
	uint64_t cpu_ns;       /* the traced threads' CPU time the windows saw */
	uint64_t off_captures; /* switch-outs whose stacks were taken */
	uint64_t off_samples;  /* off-CPU samples */
	uint64_t off_deferred; /* user sides taken on the return to user space (lazy) */
	uint32_t max_every;    /* the rarest off-CPU stack rate chosen: 1 / this */
	struct jit_counts jit; /* JIT runtimes' perf maps and jitdumps (user/symbols/jitfile.h) */
	uint64_t jvm_maps, jvm_failed; /* perf maps JVMs wrote when asked, and failed asks */
};

int sampler__new(struct session *sess, sampler_write_fn write, void *ctx, struct sampler **out);
void sampler__free(struct sampler *sm); /* NULL is fine */

/* A file whose frames may appear (the launched command): learnt now. */
void sampler__add_file(struct sampler *sm, const char *path);

/* A process that may be sampled (the -p target, a fork): its mappings, read while it lives. */
void sampler__add_pid(struct sampler *sm, int pid);

/*
 * A thread's user-stack copy (XLP_R_UCOPY, ring buffer only, size bytes): kept as that thread's
 * last, for the samples that name it. 0, -EINVAL (a malformed record), -ENOMEM.
 */
int sampler__ucopy(struct sampler *sm, const struct xlp_ucopy_rec *rec, size_t size);

/*
 * rec, as the program sent it (ucaller, useq: struct xlp_sample_ev): writes what it needs, then
 * rewrites its stack ids to the trace's (the caller writes rec itself). Its user stack is unwound
 * with CFI from the copy useq names when there is one (user/symbols/stack_unwind.h), else it is the
 * frame-pointer walk. Returns 0 or a negative errno from the writer or an allocation.
 */
int sampler__sample(struct sampler *sm, struct xlp_sample_rec *rec, uint64_t ucaller,
		    uint64_t useq);

void sampler__counts(const struct sampler *sm, struct sampler_counts *c);

/*
 * The adaptive period: never shorter than min_period_ns, with sampling
 * costing the traced threads at most bound_ppm of their CPU time where a
 * period can achieve it. now: CLOCK_MONOTONIC, when sampling starts.
 */
void sampler__set_bound(struct sampler *sm, uint64_t min_period_ns, uint32_t bound_ppm,
			uint64_t now);

/*
 * Ends the window begun at the last call: writes its xlp_sampling_rec
 * (cost, samples, period) and sets the next period. last: the recording's
 * end (the period stays). Windows with nothing sampled write nothing
 * unless last. Negative errno from the writer or the session.
 */
int sampler__adapt(struct sampler *sm, uint64_t now, bool last);

#endif
