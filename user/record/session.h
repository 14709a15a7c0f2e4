/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF side of a recording: open -> configure -> load -> attach the one
 * skeleton, register target processes and marked functions, hand every
 * ring-buffer record to a callback, read counters back at the end.
 */
#ifndef XLP_SESSION_H
#define XLP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "xlprobe.h"

struct xlp_marker_spec; /* bpf/marker.h */

struct session;

/* Called for each record from the ring buffer; non-zero stops the drain. */
typedef int (*session_record_fn)(void *ctx, const struct xlp_hdr *rec);

struct session_opts {
	uint64_t min_dur_ns;
	uint32_t ringbuf_bytes; /* power of two, >= page size */
	uint32_t sample_hz;	/* record --sample: stack samples per second per CPU; 0: none */
	bool timeline;		/* record --timeline: scheduling events */
	bool waker_history;	/* and untraced wakers' events before they woke one */
	bool cpu_sched;		/* and every switch of their CPUs (bpf/cpusched.bpf.c) */
	bool prewake;		/* runs hold the runqueue wait since their wakeup */
	uint32_t stack_copy; /* record --stack-copy: user-stack bytes per sample (CFI); 0: none */
	/* record's marker: specs (bpf/marker.bpf.c); none: its programs stay unloaded */
	const struct xlp_marker_spec *markers;
	uint32_t nmarkers;
	/* USDT functions to come (session__attach_usdt); none: their programs stay unloaded */
	bool usdt;
	session_record_fn on_record;
	void *ctx;
};

/*
 * Loads the BPF programs and attaches the scheduler tracepoints. Optional
 * programs the kernel cannot run are skipped; session__features() and
 * session__notes() say which. Returns negative errno with a one-line reason
 * in err.
 */
int session__open(const struct session_opts *opts, struct session **out, char *err, size_t errlen);
uint32_t session__features(const struct session *s); /* XLP_FEAT_* */
const char *session__notes(const struct session *s); /* "" or lines */

/*
 * Traces every thread of pid from now on, and the processes it forks. Threads
 * that exist already are marked partial (their state is unknown until
 * their next switch). Returns -ESRCH if pid is gone.
 */
int session__add_target(struct session *s, pid_t pid);

/*
 * Traces the processes the calling process forks from now on, from their
 * first instant (the kernel's fork event), as the launcher of commands.
 */
int session__follow_children(struct session *s);

/* A marked function: its id and cookie flags (XLP_COOKIE), where it is. */
struct session_func {
	uint32_t id, flags;
	const char *binary;
	uint64_t offset;
};

/*
 * Uprobe + uretprobe on each of the n functions (binary at file offset),
 * in process pid only (its threads, and the image it execs; not the
 * processes it forks: the recorder attaches again for each, on its
 * XLP_R_FORK record). pid -1 makes every process running the binary trap.
 * All of one binary through one pair of uprobe_multi links where the
 * kernel has them, one link per probe otherwise. All or none: on error,
 * the probes this call set are removed and err names the function.
 */
int session__attach_funcs(struct session *s, const struct session_func *f, size_t n, pid_t pid,
			  char *err, size_t errlen);
/*
 * A USDT function (user/symbols/usdt.h): probe begin of provider in
 * binary is its entry, probe end (NULL: none, a point) its return, attached
 * by libbpf in pid (-1: every process) with the same cookie as
 * session__attach_funcs'. filter_arg >= 0: only hits whose argument
 * filter_arg is the string filter count (XLP_COOKIE_USDT_FILTER).
 */
int session__attach_usdt(struct session *s, uint32_t id, uint32_t flags, const char *binary,
			 const char *provider, const char *begin, const char *end, int filter_arg,
			 const char *filter, pid_t pid, char *err, size_t errlen);
/* Removes the uprobes session__attach_funcs and session__attach_usdt set
 * for pid (0: all of them). */
void session__detach_funcs(struct session *s, pid_t pid);

/*
 * Drains the ring buffer, waiting up to timeout_ms for the programs to wake
 * us or for wake_fd (-1: none) to become readable, e.g. a launched
 * command's pidfd, so that its exit is noticed at once.
 */
int session__poll(struct session *s, int wake_fd, int timeout_ms);

/*
 * record --repeat: have the kernel time the launched pid's first exec and
 * the exit of its last thread (bpf/sched.bpf.c). Call before releasing it.
 */
int session__watch_launch(struct session *s, pid_t pid);
/*
 * After the pid was reaped: its times (CLOCK_MONOTONIC ns; 0 for an event
 * the kernel did not report), and forgets the pid. Negative errno (times
 * 0) when the pid was never watched.
 */
int session__launch_times(struct session *s, pid_t pid, uint64_t *exec_ns, uint64_t *exit_ns);

/*
 * record --sample: a cpu-clock perf event on every online CPU, each
 * running the sampling program (bpf/sample.bpf.c) for traced threads.
 * Returns negative errno with a one-line reason in err.
 */
int session__start_sampling(struct session *s, char *err, size_t errlen);

/* The sampling period in force (ns; 0: not sampling). */
uint64_t session__sample_period(struct session *s);
/* A new period for the perf events and the off-CPU clock. Negative errno. */
int session__set_sample_period(struct session *s, uint64_t period_ns);
/* The off-CPU stacks' rate: taken at a switch-out with chance 1 / every. */
int session__set_offcpu_every(struct session *s, uint32_t every);
uint32_t session__offcpu_every(struct session *s);
/* What sampling has cost so far (struct xlp_sample_cost summed over CPUs). */
int session__sample_cost(struct session *s, struct xlp_sample_cost *sum);

/*
 * The frames of a stack the sampling program stored (id as in its
 * sample record, minus one): user stacks as struct bpf_stack_build_id,
 * kernel stacks as addresses, XLP_STACK_DEPTH of them in buf (zeroes
 * past the last). Negative errno if the id holds nothing.
 */
int session__read_stack(struct session *s, bool kernel, uint32_t id, void *buf, size_t len);

/*
 * What the ring buffer delivered so far: records (a batch counts each of
 * its records) and bytes (with the ring buffer's own headers).
 */
void session__rb_counts(const struct session *s, uint64_t *records, uint64_t *bytes);
/* One BPF-side counter summed over CPUs (0 if it cannot be read). */
uint64_t session__stat(struct session *s, enum xlp_stat i);

/* What the trace-marker programs saw and skipped, summed over CPUs, as a record. */
int session__marker_counts(struct session *s, struct xlp_marker_rec *out);

/* BPF-side counters (enum xlp_stat) summed over CPUs. */
int session__stats(struct session *s, uint64_t stat[XLP_NR_STAT]);

/*
 * Emits XLP_R_THREAD / XLP_R_PROC records (flag XLP_THREAD_AT_STOP) for
 * threads and processes still alive, their open interval closed at now by
 * the BPF side's own accounting (bpf/control.bpf.c), through the callback,
 * with the call records their batches held. Those threads emit nothing
 * more: drain the ring buffer before, what is left in it after is not
 * part of the recording.
 */
int session__emit_live(struct session *s, uint64_t now);

void session__close(struct session *s); /* accepts NULL */

#endif
