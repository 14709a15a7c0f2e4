/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's state, shared by the files of xlprobe record: record.c
 * (the command: resolve, set up, attach, and the record callback),
 * record_launch.c (--repeat's launches), record_reader.c (the drain loop
 * and the reader's priority), record_finish.c (the stop: the file
 * completed, then the probes removed). Private to them.
 */
#ifndef XLP_RECORDER_H
#define XLP_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "cpu_avoid.h"
#include "elfsym.h"
#include "lag_filter.h"
#include "launch.h"
#include "marker.h"
#include "record_opts.h"
#include "sampler.h"
#include "session.h"
#include "trace.h"
#include "usdt_funcs.h"

/*
 * Whether the recorder keeps up with the programs: what the ring buffer
 * delivered and lost between two drains, and the recorder's priority.
 */
struct reader_load {
	uint64_t bytes, records, rb_full; /* at the last drain */
	uint64_t last_ns;
	uint64_t need_bytes;  /* the most the programs sent between two drains (estimate) */
	uint64_t max_gap_ns;  /* the longest time between two drains */
	uint64_t rt_since_ns; /* 0: at its normal priority */
	int rt_prio;
	bool rt_failed;
	bool niced; /* at nice -20 */
};

struct recorder {
	struct record_opts o;
	struct session *sess;
	struct outfile *of; /* the trace file, open from the early check on */
	struct trace_writer *w;
	struct launch *child;
	struct sampler *sampler; /* record --sample */
	struct lag_filter *lag;	 /* record --lag */
	struct xlp_trace_meta meta;
	struct elfsym_target *targets;
	size_t ntargets;
	struct usdt_funcs *usdt; /* the functions flagged XLP_FUNC_USDT */
	uint64_t ncalls, nruns, lost;
	/* marker: specs, as the programs get them (bpf/marker.bpf.c) */
	struct xlp_marker_spec markers[XLP_MARKER_SPECS];
	uint32_t nmarkers;
	unsigned launches; /* started so far */
	unsigned untimed;  /* finished launches the kernel did not time */
	uint64_t launch_start_ns;
	int write_err;
	bool target_exited;
	bool launch_failed; /* a --repeat launch could not start or be probed */
	bool ended;	    /* only the launch record is taken after this */
	bool warned_fork;   /* a forked process could not be probed: said once */
	uint64_t nprog;	    /* records the programs sent that reached the recorder */
	struct reader_load load;
	uint64_t cpu_at_run_ns;	 /* the process's CPU time as the drain loop began */
	struct cpu_avoid *avoid; /* -p: off the target's CPUs when it is pinned */
	bool avoid_new;		 /* a thread ran the interaction for the first time */
};

/* the signal that stops the recording (0: none yet), set by its handler */
extern volatile sig_atomic_t recorder_stop_signal;

/* record.c */
int recorder__on_record(void *ctx, const struct xlp_hdr *h); /* session_record_fn */
int recorder__write(void *ctx, const struct xlp_hdr *h);     /* into the trace, or lost */
int recorder__attach_funcs(struct recorder *r, pid_t pid);

/* record_launch.c */
void recorder__write_size(struct recorder *r, uint32_t flags, pid_t pid, uint64_t size);
int recorder__start_launch(struct recorder *r);
int recorder__release_launch(struct recorder *r);
int recorder__finish_launch(struct recorder *r, int code);

/* record_reader.c */
uint64_t recorder__drops(const uint64_t *st, uint64_t lost);
void recorder__realtime(struct recorder *r, int prio, uint64_t now);
void recorder__nice(struct recorder *r);
void recorder__off_target(struct recorder *r);
enum xlp_stop_reason recorder__run(struct recorder *r);

/* The process's CPU time, every thread (CLOCK_PROCESS_CPUTIME_ID), in ns. */
static inline uint64_t recorder__cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* record_finish.c */
int recorder__finish(struct recorder *r, enum xlp_stop_reason why);
/*
 * Removes the probes once the file is complete: waits for the kernel
 * until 1 s after stop_began_ns (CLOCK_MONOTONIC: the signal, or the
 * target's exit), then leaves the rest to a child process and says so.
 */
void recorder__detach(struct recorder *r, uint64_t stop_began_ns);

#endif
