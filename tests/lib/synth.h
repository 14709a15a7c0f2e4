/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Synthetic xlprobe traces for tests and benchmarks, written with the real
 * trace writer: record-level helpers, and whole scenarios in which one
 * function is slowed through one resource in some runs (PerfProbe Table II
 * style), with noise in every counter.
 */
#ifndef XLP_SYNTH_H
#define XLP_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace.h"

struct synth;

struct synth_func {
	const char *binary, *symbol;
	bool interaction;
	uint32_t flags; /* more XLP_FUNC_* (--until, --task-*) */
};

/* Where a synthetic trace was recorded: host, the binaries' build-id, the
 * functions' offsets from (a rebuild moves them). */
struct synth_host {
	const char *host, *build_id;
	uint64_t offset;
};

/* Opens path for writing with a meta holding funcs (ids = indices). */
int synth__open(const char *path, uint32_t features, uint32_t repeat,
		const struct synth_func *funcs, size_t nfuncs, struct synth **out);
/* The same, recorded on h (synth__open: host "synth", no build-id, 0x1000). */
int synth__open_on(const char *path, uint32_t features, uint32_t repeat,
		   const struct synth_func *funcs, size_t nfuncs, const struct synth_host *h,
		   struct synth **out);
int synth__call(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint16_t depth,
		uint64_t entry_ns, const uint64_t *incl, const uint64_t *excl /* NULL: = incl */,
		uint32_t peer_pid, const char *peer_comm /* NULL: no peer */);
/* A run's call with more XLP_CALL_* flags (XLP_CALL_SUMMARY: record --lag's). */
int synth__call_flags(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint16_t depth,
		      uint64_t entry_ns, const uint64_t *incl, uint16_t flags);
/* record --lag's counts (struct xlp_lag_rec, h filled in here). */
int synth__lag(struct synth *s, const struct xlp_lag_rec *lag);
int synth__run(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint64_t entry_ns,
	       const uint64_t *proc);
int synth__launch(struct synth *s, uint32_t run, uint32_t pid, uint64_t start_ns, uint64_t end_ns);
int synth__proc(struct synth *s, uint32_t pid, const uint64_t *tot);
/* A thread's totals; comm: its bytes, at most XLP_COMM_LEN of them
 * (first_ns, last_ns: 1 s + tid, 9 s - tid). */
int synth__thread(struct synth *s, uint32_t pid, uint32_t tid, uint32_t flags, const char *comm,
		  const uint64_t *tot);
int synth__stats(struct synth *s, const uint64_t *stat /* XLP_NR_STAT */, uint64_t lost);
/* Stack sampling records (record --sample): ids must come 0, 1, 2... */
int synth__sym(struct synth *s, uint32_t id, uint16_t kind, const char *module, const char *name);
/* A user stack, innermost frame first. */
int synth__stack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n);
/* A kernel stack, innermost frame first. */
int synth__kstack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n);
/* A sample with a user and a kernel stack (ids + 1, 0: none). */
int synth__ksample(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time_ns,
		   uint64_t weight_ns, uint32_t ustack, uint32_t kstack, uint32_t reason);
/* A sampling window (struct xlp_sampling_rec): what the sampler cost and took. */
int synth__sampling(struct synth *s, uint64_t start_ns, uint64_t end_ns, uint64_t period_ns,
		    uint64_t cost_ns, uint64_t on_samples, uint64_t off_captures);
/* ustack: a stack id + 1, 0 for none; reason: XLP_C_CPU_RUN on a CPU, else the wait's */
int synth__sample(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time_ns, uint64_t weight_ns,
		  uint32_t ustack, uint32_t reason);
/*
 * A trace with stack samples: 20 runs of on_click (pid 10, tid 10), every
 * 4th slowed by a 50 ms disk wait in load -> pread (libc); per run 8 on-CPU
 * samples of 1 ms in compute, one of another thread, one after the run,
 * one whose stack lacks the interaction frame; a stack record out of order
 * and an off-CPU sample with no wait's reason (both malformed).
 */
int synth__sampled(const char *path);
/*
 * A record --timeline trace: 6 runs of on_click (pid 10, tid 10), each a
 * sleep woken by tid 20 (pid 30, "peer", named by a task record) for IPC,
 * one with a block request, CPU 1's frequency; then events of an unknown
 * kind and a switch-out of a thread never seen (both to be skipped); and
 * a wakeup, a switch and a fork on CPU 1 (XLP_R_CPUSCHED).
 */
int synth__timeline(const char *path);
/* One record --timeline scheduling event (struct xlp_sched_rec's fields). */
int synth__sched(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint32_t arg,
		 uint16_t detail, uint64_t t);
/* The name of a thread outside the traced ones (struct xlp_task_rec). */
int synth__task(struct synth *s, uint32_t pid, uint32_t tid, const char *comm);
/* an async task's post or start (XLP_TASKEV_*), at its marked call's entry */
int synth__taskev(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint64_t entry_ns,
		  uint64_t key, uint32_t func);
/* A workload size the recorder wrote (struct xlp_size_rec; XLP_SIZE_* flags) */
int synth__size(struct synth *s, uint32_t flags, uint32_t pid, uint64_t time_ns, uint64_t size);
/* A process a traced one forked (struct xlp_fork_rec; XLP_FORK_* flags) */
int synth__fork(struct synth *s, uint32_t pid, uint32_t ppid, uint64_t fork_ns, uint32_t flags);
/* Who held the CPU in a wait (struct xlp_thief_rec, h.size set from nthieves) */
int synth__thief(struct synth *s, struct xlp_thief_rec *w);
/* A switch, wakeup or new task on a CPU (struct xlp_cpusched_rec; h.cpu as given) */
int synth__cpusched(struct synth *s, struct xlp_cpusched_rec *r);
int synth__flush(struct synth *s); /* ends the current chunk */
/* Writes the footer (stat may be NULL) and frees s. */
int synth__close(struct synth *s, const uint64_t *stat, uint64_t lost);
/* synth__close, or synth__abort when err (an earlier write failed): err then. */
int synth__finish(struct synth *s, int err);
/* Stops without a footer: the file reads as truncated. Frees s. */
void synth__abort(struct synth *s);

/* Resource time (ns) of one interval; the wall time is their sum. */
struct synth_usage {
	double cpu_run, cpu_wait, disk, net, ipc, lock, timer, other;
	double khz; /* CPU frequency while running */
};

/* Counter deltas of an interval: sleep_d = disk, sleep_s = the other waits. */
void synth__counters(const struct synth_usage *u, uint64_t *ctr /* XLP_NR_CTR */);

/* Which resource slows the chosen function in the slow runs. */
enum synth_factor {
	SYNTH_NONE = 0, /* no perturbation */
	SYNTH_CPU_RUN,
	SYNTH_CPU_WAIT,
	SYNTH_CPU_FREQ,
	SYNTH_DISK,
	SYNTH_NET,
	SYNTH_IPC,
	SYNTH_LOCK,
	SYNTH_TIMER,
};

#define SYNTH_NFUNCS 6
extern const char *const synth_func_names[SYNTH_NFUNCS];
#define SYNTH_BINARY "/opt/app/bin/app"
#define SYNTH_INTERACTION "handle_request"
#define SYNTH_PEER_PID 4242
#define SYNTH_PEER_COMM "dbserver"

struct synth_scenario {
	const char *path;
	uint32_t features;  /* 0: SCHED | UPROBES | SYSCALLS | BLOCK | BTF */
	unsigned nruns;	    /* 0: 60 */
	double slow_frac;   /* 0: 0.25 */
	unsigned slow_func; /* index into synth_func_names */
	enum synth_factor factor;
	bool launches;	 /* --repeat style: launch and process records */
	bool bg_disk;	 /* an unmarked thread does heavy disk I/O in the slow runs */
	bool unmarked;	 /* the slow runs' extra time is in no marked function */
	bool outlier;	 /* one more run is slow, through render's cpu_run */
	double extra_ms; /* 0: 60 ms added to the slowed function */
	uint64_t seed;
	bool truncate;	  /* no footer */
	uint64_t rb_full; /* drop counter in the footer */
	/* symbols: NULL for synth_func_names / SYNTH_INTERACTION */
	const char *const *names;
	const char *interaction;
};

/* Writes the scenario's trace. Negative errno on error. */
int synth__scenario(const struct synth_scenario *sc);

/* ---- damaging a trace file (all return negative errno) ---- */

/* Byte offsets of the chunks of a file (at most max); their number. */
size_t synth__chunks(const uint8_t *f, size_t len, size_t *start, size_t max, size_t *foot);
/* Writes out: in's header, then its chunks order[0..n) (repeats allowed), its footer. */
int synth__rechunk(const char *in, const char *out, const int *order, size_t n);
/* Sets the id of function k in the header, and fixes the header CRC. */
int synth__forge_id(const char *path, uint32_t k, uint32_t id);
/* Sets the footer's record and chunk counts, and fixes its CRC. */
int synth__forge_footer(const char *path, uint64_t nrecords, uint64_t nchunks);
/*
 * Files forged to make a reader quadratic (tests and make bench):
 * resync, version 1: the header of tests/data/v1-net.xlp (found through
 * tl_root()), then "CHNK" every 20 bytes, each claiming all the file but
 * its last byte: a reader that checksums every candidate's claimed length
 * does body^2/40 work. Version 2: "CHNK" every 4 bytes (header CRCs that
 * fail) over the first half, then sound headers every 64 bytes, each
 * claiming all the file but its last byte, with bad data.
 */
int synth__forge_resync(const char *path, int version, size_t body);
/*
 * nesting: one thread, n calls of f entering later and later (each stays
 * pending), then n calls of g entering earlier and earlier, all at depth
 * 1, then the run (depth 0): a pass taking every pending call entered
 * after a call's entry for its subtree walks the whole list per g.
 */
int synth__forge_nesting(const char *path, unsigned n);
/* Reads a whole file (malloc'd, NUL-terminated); NULL on error. */
uint8_t *synth__slurp(const char *path, size_t *len);

/*
 * Runs "xlprobe report ARG..." in this process (cmd_report), arguments
 * NULL-terminated; what it printed on stdout goes to out (may be NULL),
 * on stderr to err. Returns its exit status.
 */
int synth__report(char *out, size_t outlen, char *err, size_t errlen, const char *arg, ...);
struct json;
/*
 * "xlprobe report --json" of trace with up to two more options (NULL: none),
 * loaded (tests/lib/json.h); NULL after a failed check.
 */
struct json *synth__report_json(const char *trace, const char *opt1, const char *opt2);
/* The same for "xlprobe dump ARG...". */
int synth__dump(char *out, size_t outlen, char *err, size_t errlen, const char *arg, ...);

/*
 * The lag tests' app: on_event (the interaction, pid and tid 10) calls
 * render then load. synth__event writes one event at t: render with the
 * usage render, then load with load's, on_event their sum, and with run
 * its run record. 0, or an error.
 */
enum { SYNTH_EV_ON_EVENT, SYNTH_EV_RENDER, SYNTH_EV_LOAD, SYNTH_EV_NFUNCS };
extern const struct synth_func synth_event_funcs[SYNTH_EV_NFUNCS];
int synth__event(struct synth *s, uint64_t t, const struct synth_usage *render,
		 const struct synth_usage *load, bool run);

#endif
