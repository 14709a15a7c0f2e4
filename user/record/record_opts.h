/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef XLP_RECORD_OPTS_H
#define XLP_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define XLP_RINGBUF_MAX (1ull << 30)
/* odd, so that the ticks do not fall in step with 1000 Hz timers of the target */
#define XLP_SAMPLE_HZ_DEFAULT 999
/* PerfProbe's bound T (section III-B: 0.03), in parts per million */
#define XLP_SAMPLE_BOUND_PPM_DEFAULT 30000
/* record_opts.realtime */
#define XLP_RT_AUTO (-1)
#define XLP_RT_OFF 0
/* --stack-copy: bytes of user stack copied per sample for CFI unwinding
 * (docs/recording.md, Stack sampling) */
#define XLP_STACK_COPY_DEFAULT 8192
#define XLP_MAX_SIZES 256	/* --sizes */
#define XLP_MAX_LAUNCHES 100000 /* --repeat, times the --sizes */
#define XLP_MAX_LANDMARKS 16	/* --interaction given several times */
#define XLP_LAG_KEEP_DEFAULT 20 /* --lag-keep */

struct record_opts {
	pid_t pid;		 /* -p; 0 when launching */
	char **cmd;		 /* after --; NULL when attaching */
	const char *funcs[1024]; /* --func specs */
	int nfuncs;
	/* --interaction specs: a call of any of them is a run (LagHunter's landmarks) */
	const char *interactions[XLP_MAX_LANDMARKS];
	int ninteractions;
	/* --task-post / --task-run specs (BINARY:SYMBOL:argN) */
	const char *task_specs[64];
	bool task_run[64]; /* --task-run, else --task-post */
	int ntasks;
	const char *until;    /* --until BINARY:SYMBOL: runs span threads, to END's call */
	int key_arg;	      /* --key argN: N, -1 when not given */
	uint64_t duration_ns; /* -d; 0 = until stopped */
	uint64_t min_dur_ns;
	const char *output;
	unsigned repeat;	   /* launches; 1 by default with a command (per size, --sizes) */
	uint32_t ringbuf_bytes;	   /* --buffer-size: a power of two, page size to XLP_RINGBUF_MAX */
	bool probe_forks;	   /* uprobes system-wide, so forked children run them */
	uint32_t sample_hz;	   /* --sample / -F: stack samples per second per CPU; 0: off */
	bool no_sample;		   /* --no-sample */
	bool timeline;		   /* --timeline: scheduling events (XLP_R_SCHED) */
	uint32_t sample_bound_ppm; /* --sample-overhead, parts per million of CPU time */
	bool no_waker_history;	   /* --no-waker-history: no untraced waker's past events */
	bool no_cpu_sched;	   /* --no-cpu-sched: not every switch of the traced CPUs */
	bool no_prewake;	   /* --no-prewake: runs start at their handler's entry */
	/* --realtime: the reader's SCHED_FIFO priority from the start (1-99),
	 * XLP_RT_OFF never, XLP_RT_AUTO (default) 1 once it falls behind */
	int realtime;
	uint32_t stack_copy; /* --stack-copy: bytes, at most XLP_UCOPY_MAX; 0: frame pointers */
	/* --sizes: the command is launched repeat times per size, in this
	 * order, with the size in place of every {} */
	uint64_t sizes[XLP_MAX_SIZES];
	unsigned nsizes;
	uint64_t size; /* --size: every run's workload size; 0: none */
	int size_arg;  /* --size-arg N: a run's size is the interaction's argument N; -1: none */
	/* --size-counter NAME: a run's size is the trace-marker counter's value; NULL: none */
	const char *size_counter;
	/* --lag DUR: a run's detail is written only when it lags (latency >= it)
	 * or is the one in lag_keep of the others kept (user/record/lag_filter.h); 0: off */
	uint64_t lag_ns;
	unsigned lag_keep; /* --lag-keep K; 0 when not given */
	bool quiet;
	int verbose;
};

/* Launches in all: --repeat per size of --sizes. */
static inline unsigned record_opts__launches(const struct record_opts *o)
{
	return o->repeat * (o->nsizes ? o->nsizes : 1);
}

/* 0 = run, 1 = --help printed (exit 0), negative = bad usage (message printed) */
int record_opts__parse(int argc, char **argv, struct record_opts *o);

#endif
