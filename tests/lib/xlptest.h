/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers for tests that run xlprobe and workloads as processes. */
#ifndef XLP_XLPTEST_H
#define XLP_XLPTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "trace.h"

/* Absolute path of .output/<rel> in the source tree. */
char *xt_out(const char *rel, char *buf, size_t len);
/*
 * The programs a test runs, set by xt_paths(): xt_xl the product
 * (.output/xlprobe), xt_xlt the test build with its hooks
 * (.output/xlprobe-test), xt_wl the workload .output/tests/workloads/<workload>.
 */
#define XT_PATH 256
extern char xt_xl[XT_PATH], xt_xlt[XT_PATH], xt_wl[XT_PATH];
void xt_paths(const char *workload);
/* The start of a file (len - 1 bytes at most, NUL-terminated), not through a link: 0 or -errno. */
int xt_read_file(const char *path, char *buf, size_t len);
/* The state letter of /proc/PID/stat ('R', 'S', 'D', 'Z'...), '?' when pid is gone. */
char xt_proc_state(int pid);
/* A child of parent (the first /proc lists), or -1. */
int xt_child_of(int parent);

/* A fresh temporary directory for this test binary (removed at exit). */
const char *xt_tmpdir(void);
/* "<xt_tmpdir()>/<name>", in one of 64 buffers used in turn. */
const char *xt_tmp_path(const char *name);

/*
 * The three ways a test runs xlprobe: as a process (xt_run, xt_spawn, and
 * the recordings below), or a command's entry point in this process
 * (xt_cmd: cmd_report, cmd_dump... of user/cli/commands.h), its stdout and
 * stderr into the files out and err (NULL: /dev/null); its exit code.
 */
int xt_cmd(int (*cmd)(int, char **), int argc, char **argv, const char *out, const char *err);

struct xt_proc {
	pid_t pid;
	int out_fd; /* child's stdout, -1 if not captured */
	int err_fd; /* child's stderr, -1 if not captured */
};

/* Writes text to path (created or truncated); 0 or -1. */
int xt_write_file(const char *path, const char *text);

/* Starts argv with stdout and stderr on pipes. */
int xt_spawn(char *const argv[], struct xt_proc *p);
/* Reads one line from fd (p->out_fd or p->err_fd), without '\n'; 0 on success. */
int xt_read_line(int fd, char *buf, size_t len, int timeout_ms);
/* Waits for exit; returns the exit code, 128+sig if killed by a signal,
 * or -1 after timeout_ms (the child is then SIGKILLed). Collects what is
 * left of stdout/stderr into out/err when given. */
int xt_wait(struct xt_proc *p, int timeout_ms, char *out, size_t outlen, char *err, size_t errlen);
/* Starts a workload that prints "READY <pid>" (--wait-signal and the like):
 * its pid, or -1 if it did not say so within timeout_ms. */
int xt_spawn_ready(char *const argv[], struct xt_proc *p, int timeout_ms);
/* Waits for xlprobe record's "recording ..." line on stderr (the probes are
 * attached), skipping warnings before it. 0, or -1 after timeout_ms. */
int xt_wait_attached(struct xt_proc *x, int timeout_ms);
/* Runs argv to completion; the exit code as xt_wait. */
int xt_run(char *const argv[], int timeout_ms, char *out, size_t outlen, char *err, size_t errlen);
/*
 * "xt_xl record -q -o trace OPTS... [-- PROG PARGS...]" (opts and pargs
 * NULL-terminated or NULL; prog NULL: no command, or one among opts) run
 * to its end, as xt_run.
 */
/*
 * cxxwl (tests/workloads/cxxwl.cc) recorded with --sample, its 40 calls of
 * shop::Checkout::handle(int) marked by a demangled glob (-i); sets
 * xt_paths("cxxwl"). xlprobe's exit code as xt_run, -1 when cxxwl is
 * not built (err says so).
 */
int xt_record_cxxwl(const char *trace, char *out, size_t outlen, char *err, size_t errlen);
int xt_record(const char *trace, char *const opts[], const char *prog, char *const pargs[],
	      int timeout_ms, char *out, size_t outlen, char *err, size_t errlen);
/*
 * The -f / -i specs of a workload's functions: "<wl>:<func>" into each buf
 * (len bytes) of the (buf, func) pairs that follow, up to a NULL buf.
 */
void xt_specs(const char *wl, size_t len, ...);
/*
 * Appends the strings that follow, up to NULL, to argv at n, and a NULL
 * after them: the new n. For argument lists built a part at a time.
 */
int xt_argv(char **argv, int n, ...);
struct json;
/*
 * Runs rep, an "xlprobe report ... --json -o js ..." command line, and
 * loads js; NULL after a failed check.
 */
struct json *xt_report_file(char *const rep[], const char *js, int timeout_ms);
struct xt_trace;
/*
 * A workload that waits for SIGUSR1 after READY, started (xt_spawn_ready
 * within timeout_ms): its pid, also as text in pidarg (for -p), or -1
 * after a failed check.
 */
int xt_spawn_waiting(char *const wargv[], struct xt_proc *w, char pidarg[16], int timeout_ms);
/*
 * Then the whole recording: xlprobe record (xargv) attaches to w
 * (xt_record_start), both run to their end (timeout_ms each) and the trace
 * is loaded into t, complete. 0, or -1 after a failed check.
 */
int xt_record_to_end(char *const xargv[], struct xt_proc *w, const char *trace, struct xt_trace *t,
		     int timeout_ms);

/*
 * "xl report --json trace" parsed (tests/lib/json.h); NULL, said on
 * stderr, when it fails or takes more than timeout_ms.
 */
struct json *xt_report_json(const char *xl, const char *trace, int timeout_ms);
/*
 * The end of a recording of a workload parked after its work: SIGINT to
 * xlprobe x, waited for (60 s, its stderr into err), then SIGUSR1
 * releases w, reaped (30 s). xlprobe's exit code, as xt_wait.
 */
int xt_record_stop(struct xt_proc *x, struct xt_proc *w, char *err, size_t errlen);
/* SIGKILL, then reaps p (its output is dropped). */
void xt_kill(struct xt_proc *p);
/*
 * The -p sequence: starts xlprobe record (xargv, with -p w's pid) on
 * workload w, which waits for SIGUSR1 after READY (xt_spawn_ready), and
 * once xlprobe has attached (xt_wait_attached) releases w. 0, or -1 if
 * xlprobe did not start or attach within timeout_ms: then both are killed
 * and reaped.
 */
int xt_record_start(char *const xargv[], struct xt_proc *x, struct xt_proc *w, int timeout_ms);

/*
 * What xlprobe says when it refuses: err is one line "xlprobe: ...\n" that
 * contains want. A macro: failures name the caller's line.
 */
#define XT_CHECK_MESSAGE(err, want)                                                                \
	do {                                                                                       \
		const char *xt_err_ = (err), *xt_want_ = (want);                                   \
		size_t xt_len_ = strlen(xt_err_);                                                  \
                                                                                                   \
		CHECK(strstr(xt_err_, xt_want_), "stderr lacks \"%s\": %s", xt_want_, xt_err_);    \
		CHECK(xt_len_ > 0 && strchr(xt_err_, '\n') == xt_err_ + xt_len_ - 1,               \
		      "not one line: %s", xt_err_);                                                \
		CHECK(strncmp(xt_err_, "xlprobe: ", 9) == 0, "no 'xlprobe: ' prefix: %s",          \
		      xt_err_);                                                                    \
	} while (0)

/* All records of a trace, copied out. */
struct xt_trace {
	struct trace_reader *r;
	const struct xlp_trace_meta *meta;
	struct xlp_call_rec *calls;
	size_t ncalls;
	struct xlp_thread_rec *threads;
	size_t nthreads;
	struct xlp_proc_rec *procs;
	size_t nprocs;
	struct xlp_launch_rec *launches;
	size_t nlaunches;
	struct xlp_run_rec *runs;
	size_t nruns;
	struct xlp_fork_rec *forks;
	size_t nforks;
	enum trace_status status;
	const struct xlp_trace_footer *footer;
	uint64_t bad_chunks;
};

/* One "CALL <func> <tid> <start_ns> <end_ns>" line of tests/workloads/funcs.c. */
struct xt_wl_call {
	char func[32];
	unsigned tid;
	unsigned long long start, end;
	unsigned long long before; /* the caller's clock before the call, or 0 */
};

/* The CALL lines of out (modified: split into lines); how many, at most max. */
int xt_parse_calls(char *out, struct xt_wl_call *c, int max);
/*
 * The trace's record of the call c logged: same function and thread, its
 * entry (the handler's: entry_ns + queued for a run with a prewake)
 * before the workload read its clock (the entry probe fires first), and
 * after the caller's clock before the call (c->before), or without it at
 * most within_ns before. NULL if none.
 */
const struct xlp_call_rec *xt_match_call(const struct xt_trace *t, const struct xt_wl_call *c,
					 unsigned long long within_ns);

int xt_trace_load(const char *path, struct xt_trace *t);
void xt_trace_free(struct xt_trace *t);
/* Function id of a symbol in the trace's function table, or -1. */
int xt_func_id(const struct xt_trace *t, const char *symbol);
/* The thread record for tid (the last one if several), or NULL. */
const struct xlp_thread_rec *xt_thread(const struct xt_trace *t, uint32_t tid);

/* A call's counters (struct xlp_call_rec's incl or excl): its sleep (S and D), */
unsigned long long xt_sleep_of(const __u64 *c);
/* the sum of its wait reasons, */
unsigned long long xt_reasons_sum(const __u64 *c);
/* and " disk=.. net=.." of its non-zero reasons, for failure messages (4 buffers in turn). */
const char *xt_fmt_reasons(const __u64 *c);

#endif
