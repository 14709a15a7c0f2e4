/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "marker_spec.h"
#include "record_opts.h"
#include "xlprobe.h"
#include "usdt.h"
#include "util.h"
#include "workload_size.h"

static const char help[] =
	"Usage: xlprobe record -p PID --func BINARY:SYMBOL [options]\n"
	"       xlprobe record [--repeat N] --func BINARY:SYMBOL [options] -- COMMAND [ARGS...]\n"
	"\n"
	"Traces every thread of a process: time on CPU, waiting for a CPU, asleep\n"
	"(and why), and each call of the marked functions with the resources it\n"
	"used. Needs root (or CAP_BPF + CAP_PERFMON).\n"
	"\n"
	"Target:\n"
	"  -p, --pid PID            trace this process, its threads (also those created\n"
	"                           later) and the processes it forks\n"
	"  -- COMMAND [ARGS]        launch COMMAND, held before exec until every probe is\n"
	"                           attached; recording ends when it exits\n"
	"      --repeat N           launch COMMAND N times in a row; each launch is a run\n"
	"      --sizes N1,N2,...    launch COMMAND --repeat times per size, in rounds of\n"
	"                           one launch per size in this order, each with its\n"
	"                           size in place of every {} in COMMAND and ARGS, and\n"
	"                           its runs labelled with it\n"
	"      --probe-forks        set the marked functions' uprobes machine-wide from the\n"
	"                           start: every process running the binary pays a trap\n"
	"                           per call. Without it they are set in the target and,\n"
	"                           milliseconds after each fork, in the processes it\n"
	"                           forks: a child's calls before that are missed (the\n"
	"                           report counts them); use it for short-lived children\n"
	"\n"
	"Functions:\n"
	"  -f, --func BINARY:SYMBOL mark a function (repeatable). BINARY is a path or a\n"
	"                           library the process maps (libssl.so.3); SYMBOL may be\n"
	"                           a glob (parse_*), and a C++ or Rust name demangled,\n"
	"                           with or without its parameters ('ns::Klass::run(int)',\n"
	"                           'node::*Parser::Execute*'). The first ':' not in a\n"
	"                           '::' ends BINARY. Each call becomes one record.\n"
	"  -f, --func marker:NAME   an atrace section the app writes to trace_marker\n"
	"                           (Trace.beginSection, ATRACE_*: B/E, async S/F by\n"
	"                           cookie), NAME a glob with * and ?: each section is a\n"
	"                           call of function marker:NAME. Also --interaction\n"
	"                           marker:NAME: the sections are the runs\n"
	"  -i, --interaction BINARY:SYMBOL\n"
	"                           the function whose calls are the runs (the interaction\n"
	"                           the user waits for); it is marked too. Repeatable, up\n"
	"                           to 16 (landmarks): a call of any of them is a run; one\n"
	"                           called inside another's run is part of that run\n"
	"      --until BINARY:SYMBOL\n"
	"      --key argN           runs that span threads: a run goes from a call of\n"
	"                           --interaction to the call of --until with the same\n"
	"                           value of argument N (0-4: a request pointer), on any\n"
	"                           threads of the process (an event loop that hands a\n"
	"                           request to a pool and finishes it when notified)\n"
	"      --task-post BINARY:SYMBOL:argN\n"
	"                           a function that hands an async task off (posts it to\n"
	"                           a queue, a thread pool, a handler); the task is the\n"
	"                           value of its argument N (0: the first), a pointer.\n"
	"                           Marked too. Repeatable\n"
	"      --task-run BINARY:SYMBOL:argN\n"
	"                           a function that runs one task, the same value as its\n"
	"                           argument N: each task's queue time (posted to\n"
	"                           started) and execution (this call) are reported per\n"
	"                           run. Marked too. Repeatable\n"
	"      --size N             label every run with workload size N (a positive\n"
	"                           integer), for fitting how functions grow with it\n"
	"      --size-arg N         a run's workload size is argument N (0: the first,\n"
	"                           to 4) of its --interaction call, an integer, at the\n"
	"                           call's entry\n"
	"  -f, -i usdt:BINARY:PROVIDER:NAME[,END][:argN=STRING]\n"
	"                           USDT probes (xlprobe list usdt BINARY): NAME,END is\n"
	"                           a call from probe NAME to probe END on the same\n"
	"                           thread (postgresql:query__start,query__done), NAME\n"
	"                           alone a call of no length per hit; argN=STRING keeps\n"
	"                           the hits whose argument N is that string (a Python\n"
	"                           function: ...:function__entry,function__return:\n"
	"                           arg1=handle); --until usdt:... without --key: the\n"
	"                           end probe of the interaction's\n"
	"      --size-counter NAME  a run's workload size is the last value of the app's\n"
	"                           trace-marker counter NAME (C|pid|NAME|value) when\n"
	"                           the run begins; with --interaction marker:SECTION\n"
	"      --min-dur DUR        drop calls shorter than DUR in the kernel (counted, and\n"
	"                           still subtracted from their parent's exclusive time);\n"
	"                           e.g. 100us, 2ms; default 0\n"
	"\n"
	"Sampling (finds functions nobody marked):\n"
	"      --sample             sample the traced threads' user and kernel stacks on\n"
	"                           the CPU (cpu-clock) and off it (the stack a thread\n"
	"                           leaves the CPU with, charged with its wait's length\n"
	"                           and reason); on by default when no --func is given.\n"
	"                           Frames are named as they are recorded; stacks are\n"
	"                           unwound with the binaries' CFI. 'xlprobe report'\n"
	"                           analyses the sampled functions, 'xlprobe export\n"
	"                           --folded' writes the stacks out\n"
	"  -F, --freq HZ            highest sampling rate, per second per CPU (default\n"
	"                           999; implies --sample)\n"
	"      --sample-overhead PCT\n"
	"                           bound on the time sampling takes from the traced\n"
	"                           threads, in % of their CPU time (default 3): the\n"
	"                           period grows when a sample costs more (PerfProbe's\n"
	"                           adaptive interval); implies --sample\n"
	"      --stack-copy SIZE    bytes of each sampled user stack copied for unwinding\n"
	"                           with the binaries' CFI (.eh_frame), so that code\n"
	"                           without frame pointers keeps its callers: 0 (frame\n"
	"                           pointers only) to 16K, in bytes or with K (default\n"
	"                           8K); deeper stacks go on with frame pointers\n"
	"      --no-sample          no stack samples, even without --func\n"
	"\n"
	"Recording:\n"
	"  -o, --output FILE        trace file (default xlprobe.xlp)\n"
	"      --lag DUR            long recordings: every run is counted and timed, but\n"
	"                           what ran inside it (nested calls, stack samples,\n"
	"                           scheduling events) is written only for the runs that\n"
	"                           lag, latency >= DUR, and for a sample of the others;\n"
	"                           needs -i. Give the unit: LagHunter's threshold of\n"
	"                           perceptible lag is 100 ms (--lag 100ms)\n"
	"      --lag-keep K         with --lag: one run in K of those that do not lag\n"
	"                           keeps its detail (default 20; 1 keeps every run's)\n"
	"  -d, --duration SECONDS   stop after this long (also 500ms, 2m)\n"
	"      --buffer-size SIZE   ring buffer size: a power of two from the page size\n"
	"                           to 1G; MB unless given with K, M or G (default 16)\n"
	"      --timeline           also record every scheduling event of the traced\n"
	"                           threads (and, from their first wakeup of one, of\n"
	"                           the threads that wake them): switches in and out\n"
	"                           with the state left in, wakeups with the waker and\n"
	"                           the sleep's reason, block requests issued and\n"
	"                           completed, CPU frequency changes (32 bytes each,\n"
	"                           lost ones counted in rb_full); and every switch,\n"
	"                           wakeup and new task of any thread on the CPUs the\n"
	"                           traced threads ran on (80 bytes each), for\n"
	"                           'xlprobe export --perfetto'. Without it the trace\n"
	"                           holds totals and calls only\n"
	"      --no-cpu-sched       with --timeline: not every switch of the traced\n"
	"                           threads' CPUs, only theirs and their wakers'\n"
	"      --no-waker-history   with --timeline: a waker outside the traced threads\n"
	"                           is on the timeline from its first wakeup of one on\n"
	"                           only. By default its last 32 scheduling events\n"
	"                           before it are kept (for every thread of the machine,\n"
	"                           in task storage) and written then, so that a wait\n"
	"                           can be followed into what it did while the run\n"
	"                           waited\n"
	"      --no-prewake         runs start at their interaction's entry. By default\n"
	"                           a run entered by a thread just woken from a sleep\n"
	"                           (no sleep and no marked call since the wakeup: an\n"
	"                           event loop's epoll_wait) also holds the runqueue\n"
	"                           wait between that wakeup and the entry, 'queued'\n"
	"                           in its counters, in its cpu_wait and latency too\n"
	"      --realtime PRIO|off  the recorder's own priority: SCHED_FIFO PRIO (1-99)\n"
	"                           from the start, as perf record -r; off: never. By\n"
	"                           default it takes SCHED_FIFO 1 only once it falls\n"
	"                           behind (the ring buffer half full, or records\n"
	"                           lost), so that it is not starved by the threads\n"
	"                           it traces on an overloaded machine\n"
	"  -q, --quiet              no live status line\n"
	"  -v, --verbose            more messages (twice: libbpf's too)\n"
	"  -h, --help               this text\n"
	"\n"
	"Recording stops on Ctrl-C / SIGTERM, at --duration, or when the target exits;\n"
	"the trace is complete and valid in all three cases. Lost events are counted\n"
	"and written to the trace; 'xlprobe report' shows them.\n"
	"\n"
	"Overhead: each marked call costs two uprobe hits, about 1 us when the\n"
	"function starts with an emulated instruction (push %rbp) and about 10 us\n"
	"when it must be single-stepped; xlprobe warns about the latter.\n"
	"\n"
	"Examples:\n"
	"  sudo xlprobe record -p 4242 -f ./app:decode_frame -f libssl.so.3:SSL_read \\\n"
	"       -i ./app:handle_click -d 120 -o session.xlp\n"
	"  sudo xlprobe record --repeat 50 -f ./app:load -- ./app --open big.db\n"
	"  sudo xlprobe record -p 4242 -i ./app:on_click -i ./app:on_key --lag 100ms \\\n"
	"       -f ./app:render -d 28800 -o day.xlp\n"
	"  sudo xlprobe record --repeat 5 --sizes 1000,2000,4000 -f ./sort:merge -- \\\n"
	"       ./sort --n {}\n";

static int bad(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	xlp_err("%s", msg);
	return -EINVAL;
}

static int parse_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return (errno || *end || end == s || *v > max || s[0] == '-') ? -EINVAL : 0;
}

/*
 * --buffer-size: MB, or with a K/M/G suffix. The kernel wants a power of
 * two and a multiple of the page size; beyond 1 GiB it is locked memory no
 * recording needs (and 4 GiB no longer fits the map's 32-bit size).
 */
static int parse_size(const char *s, uint32_t *bytes)
{
	unsigned long long v, shift = 20;
	long page = sysconf(_SC_PAGESIZE);
	char *end;

	if (!s[0] || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	else if (*end)
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	if (!v || v > (XLP_RINGBUF_MAX >> shift))
		return -ERANGE;
	v <<= shift;
	if ((v & (v - 1)) || v < (unsigned long long)(page > 0 ? page : 4096))
		return -ERANGE;
	*bytes = (uint32_t)v;
	return 0;
}

static int parse_one(int c, const char *arg, struct record_opts *o)
{
	unsigned long v;

	switch (c) {
	case 'p':
		if (parse_num(arg, 0x7fffffff, &v) || !v)
			return bad("bad PID '%s': expected a process id, e.g. -p 4242", arg);
		o->pid = (pid_t)v;
		return 0;
	case 'f':
		if (o->nfuncs >= (int)(sizeof(o->funcs) / sizeof(o->funcs[0])))
			return bad("too many --func options (at most 1024): use a glob%s", "");
		o->funcs[o->nfuncs++] = arg;
		return 0;
	case 'i':
		if (o->ninteractions >= XLP_MAX_LANDMARKS)
			return bad("too many --interaction options (at most 16)%s: mark the others "
				   "with --func",
				   "");
		o->interactions[o->ninteractions++] = arg;
		return 0;
	case 'L': {
		size_t n = strlen(arg);

		/* a unit, always: 100 alone could be seconds or milliseconds */
		if (xlp_parse_duration(arg, 1, &o->lag_ns) || !o->lag_ns || !n ||
		    (arg[n - 1] >= '0' && arg[n - 1] <= '9') || arg[n - 1] == '.')
			return bad("bad --lag '%s': expected a duration above 0 with its unit, "
				   "e.g. --lag 100ms (LagHunter's perceptible lag)",
				   arg);
		return 0;
	}
	case 'k':
		if (parse_num(arg, 1000000, &v) || !v)
			return bad("bad --lag-keep '%s': expected a count from 1 (keep every run's "
				   "detail) to 1000000, e.g. --lag-keep 20",
				   arg);
		o->lag_keep = (unsigned)v;
		return 0;
	case 'E':
		o->until = arg;
		return 0;
	case 'K':
		if (strncmp(arg, "arg", 3) || arg[3] < '0' || arg[3] > '4' || arg[4])
			return bad("bad --key '%s': expected argN, N from 0 (the first argument) "
				   "to 4, "
				   "e.g. --key arg0",
				   arg);
		o->key_arg = arg[3] - '0';
		return 0;
	case 'A':
	case 'B': {
		const char *a = strrchr(arg, ':');

		if (o->ntasks >= (int)(sizeof(o->task_specs) / sizeof(o->task_specs[0])))
			return bad("too many --task-post/--task-run options (at most 64)%s", "");
		if (!a || strncmp(a, ":arg", 4) || a[4] < '0' || a[4] > '4' || a[5] || a == arg)
			return bad(c == 'A'
					   ? "bad --task-post '%s': expected BINARY:SYMBOL:argN, N "
					     "from 0 (the first argument) to 4, e.g. "
					     "/usr/bin/app:post_task:arg0"
					   : "bad --task-run '%s': expected BINARY:SYMBOL:argN, N "
					     "from 0 (the first argument) to 4, e.g. "
					     "/usr/bin/app:run_task:arg0",
				   arg);
		o->task_run[o->ntasks] = c == 'B';
		o->task_specs[o->ntasks++] = arg;
		return 0;
	}
	case 'o':
		o->output = arg;
		return 0;
	case 'd':
		if (xlp_parse_duration(arg, 1000000000ull, &o->duration_ns) || !o->duration_ns)
			return bad("bad duration '%s': expected seconds, e.g. -d 30 or -d 500ms",
				   arg);
		return 0;
	case 'm':
		if (xlp_parse_duration(arg, 1000ull, &o->min_dur_ns))
			return bad("bad --min-dur '%s': expected a duration, e.g. 100us", arg);
		return 0;
	case 'r':
		if (parse_num(arg, 100000, &v) || !v)
			return bad("bad --repeat '%s': expected a count >= 1", arg);
		o->repeat = (unsigned)v;
		return 0;
	case 'z':
		if (wsize__parse(arg, &o->size))
			return bad("bad --size '%s': expected a positive integer (the workload's "
				   "size) up to 2^53, e.g. --size 1000",
				   arg);
		return 0;
	case 'Z':
		if (wsize__parse_list(arg, o->sizes, XLP_MAX_SIZES, &o->nsizes))
			return bad("bad --sizes '%s': expected at most 256 positive integers "
				   "separated by commas, e.g. --sizes 1000,2000,4000",
				   arg);
		return 0;
	case 'Y': {
		/* N, or argN as --key takes it */
		const char *n = strncmp(arg, "arg", 3) ? arg : arg + 3;

		if (n[0] < '0' || n[0] > '4' || n[1])
			return bad("bad --size-arg '%s': expected N from 0 (the first argument) to "
				   "4, e.g. --size-arg 0",
				   arg);
		o->size_arg = n[0] - '0';
		return 0;
	}
	case 'C':
		o->size_counter = arg;
		return 0;
	case 'b':
		if (parse_size(arg, &o->ringbuf_bytes))
			return bad("bad --buffer-size '%s': expected a power of two from the page "
				   "size to 1G, in MB or with K, M or G, e.g. 16 or 512K",
				   arg);
		return 0;
	case 'P':
		o->probe_forks = true;
		return 0;
	case 'S':
		o->sample_hz = o->sample_hz > 0 ? o->sample_hz : XLP_SAMPLE_HZ_DEFAULT;
		return 0;
	case 'N':
		o->no_sample = true;
		return 0;
	case 'O': {
		char *end;
		double pct;

		errno = 0;
		pct = strtod(arg, &end);
		if (errno || end == arg || (*end && strcmp(end, "%")) || !(pct > 0) || pct > 50)
			return bad("bad --sample-overhead '%s': expected a percentage above 0, at "
				   "most 50, e.g. 3 or 0.5",
				   arg);
		o->sample_bound_ppm = (uint32_t)(pct * 10000 + 0.5);
		if (!o->sample_bound_ppm)
			o->sample_bound_ppm = 1;
		o->sample_hz = o->sample_hz > 0 ? o->sample_hz : XLP_SAMPLE_HZ_DEFAULT;
		return 0;
	}
	case 'F':
		/* above the kernel's perf_event_max_sample_rate the period is too short anyway */
		if (parse_num(arg, 100000, &v) || !v)
			return bad("bad --freq '%s': expected samples per second, 1 to 100000",
				   arg);
		o->sample_hz = (uint32_t)v;
		return 0;
	case 'T':
		o->timeline = true;
		return 0;
	case 'W':
		o->no_prewake = true;
		return 0;
	case 'H':
		o->no_waker_history = true;
		return 0;
	case 'X':
		o->no_cpu_sched = true;
		return 0;
	case 'R':
		if (!strcmp(arg, "off")) {
			o->realtime = XLP_RT_OFF;
			return 0;
		}
		if (parse_num(arg, 99, &v) || !v)
			return bad("bad --realtime '%s': expected a SCHED_FIFO priority from 1 to "
				   "99, or off",
				   arg);
		o->realtime = (int)v;
		return 0;
	case 'U': {
		char *end;

		errno = 0;
		v = strtoul(arg, &end, 10);
		if (!errno && (*end == 'K' || *end == 'k') && !end[1] && v <= XLP_UCOPY_MAX / 1024)
			v *= 1024;
		else if (errno || *end || end == arg || arg[0] == '-' || v > XLP_UCOPY_MAX)
			return bad(
				"bad --stack-copy '%s': expected bytes from 0 to 16K, e.g. 8K or "
				"0 for frame pointers only",
				arg);
		o->stack_copy = (uint32_t)v;
		return 0;
	}
	case 'q':
		o->quiet = true;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	}
	return -EINVAL;
}

static bool has_marker_interaction(const struct record_opts *o)
{
	for (int i = 0; i < o->ninteractions; i++)
		if (marker_spec__is(o->interactions[i]))
			return true;
	return false;
}

/* --size, --sizes, --size-arg, --size-counter: one source of size per run */
static int check_sizes(const struct record_opts *o)
{
	if (o->size && o->nsizes)
		return bad("both --size and --sizes given%s: --size labels every run with one "
			   "size, --sizes launches the command once per size; keep one",
			   "");
	if (o->size_arg >= 0 && o->nsizes)
		return bad("both --size-arg and --sizes given%s: a run's size is the "
			   "interaction's argument or its launch's; keep one",
			   "");
	if (o->size_counter && (o->size_arg >= 0 || o->nsizes))
		return bad("--size-counter with --size-arg or --sizes%s: a run's size comes from "
			   "one of them; keep one",
			   "");
	if (o->size_counter && !has_marker_interaction(o))
		return bad("--size-counter without --interaction marker:SECTION%s: the counter "
			   "labels the runs of trace-marker sections; add one",
			   "");
	if (o->size_arg >= 0 && !o->ninteractions)
		return bad("--size-arg without --interaction%s: the size is an argument of the "
			   "interaction function; add --interaction BINARY:SYMBOL",
			   "");
	if (o->nsizes && !o->cmd)
		return bad("--sizes needs a command%s: xlprobe record --sizes 1000,2000 ... -- "
			   "CMD ARGS {}",
			   "");
	if (o->nsizes && !wsize__has_slot(o->cmd))
		return bad("--sizes without {} in the command%s: each launch gets its size where "
			   "{} stands; add it to COMMAND or ARGS, e.g. -- ./bench --n {}",
			   "");
	if (o->nsizes && (unsigned long long)o->repeat * o->nsizes > XLP_MAX_LAUNCHES)
		return bad("too many launches%s: --repeat times the number of --sizes is over "
			   "100000; give fewer",
			   "");
	return 0;
}

/* --lag, --lag-keep */
static int check_lag(struct record_opts *o)
{
	if (o->lag_keep && !o->lag_ns)
		return bad("--lag-keep without --lag%s: add --lag DUR, e.g. --lag 100ms", "");
	if (!o->lag_ns)
		return 0;
	if (!o->ninteractions)
		return bad("--lag without --interaction%s: runs are the calls of an interaction; "
			   "add -i BINARY:SYMBOL",
			   "");
	/* the recorder holds a thread's records until its run ends there */
	if (o->until && o->key_arg >= 0)
		return bad("--lag with --until%s: a keyed run spans threads and --lag keeps or "
			   "leaves out a run's records per thread; drop one",
			   "");
	if (!o->lag_keep)
		o->lag_keep = XLP_LAG_KEEP_DEFAULT;
	return 0;
}

static int check(struct record_opts *o)
{
	int err;

	if (o->pid && o->cmd)
		return bad("both -p and a command given%s: trace a running PID or launch one", "");
	if (!o->pid && !o->cmd)
		return bad("no target%s: give -p PID or -- COMMAND (see xlprobe record --help)",
			   "");
	if (o->repeat && !o->cmd)
		return bad("--repeat needs a command%s: xlprobe record --repeat N ... -- CMD", "");
	if (o->cmd && !o->repeat)
		o->repeat = 1;
	err = check_sizes(o);
	if (err)
		return err;
	if (o->no_waker_history && !o->timeline)
		return bad("--no-waker-history without --timeline%s: add --timeline, or drop it",
			   "");
	if (o->no_cpu_sched && !o->timeline)
		return bad("--no-cpu-sched without --timeline%s: add --timeline, or drop it", "");
	if (o->no_sample && o->sample_hz)
		return bad("both --no-sample and --sample/--freq given%s: keep one", "");
	/* no function marked but the runs': the samples find the functions */
	if (!o->nfuncs && !o->no_sample && !o->sample_hz)
		o->sample_hz = XLP_SAMPLE_HZ_DEFAULT;
	if (!o->sample_bound_ppm)
		o->sample_bound_ppm = XLP_SAMPLE_BOUND_PPM_DEFAULT;
	/* USDT: --until alone is the end probe of the interaction's calls, same thread */
	if (o->until && o->key_arg < 0 && usdt__is_spec(o->until) &&
	    (o->ninteractions != 1 || !usdt__is_spec(o->interactions[0])))
		return bad("--until %s without --key: the end probe of one --interaction "
			   "usdt:BINARY:PROVIDER:NAME on the same thread; give one such "
			   "--interaction, or a --key argN to match runs across threads",
			   o->until);
	if (!o->until != (o->key_arg < 0) && !(o->until && usdt__is_spec(o->until)))
		return bad("--until and --key go together%s: a run goes from --interaction's call "
			   "to --until's with the same --key argument, e.g. --interaction "
			   "./srv:begin_request --until ./srv:end_request --key arg0",
			   "");
	if (o->until && !o->ninteractions)
		return bad("--until without --interaction%s: add --interaction BINARY:SYMBOL, "
			   "where the runs begin",
			   "");
	if (o->until && (marker_spec__is(o->until) || has_marker_interaction(o)))
		return bad("--until with a marker: spec%s: a section's run ends at its own E "
			   "(or F, for the async S with the same cookie); drop --until",
			   "");
	if (o->until && o->ninteractions > 1)
		return bad("--until with several --interaction%s: a keyed run begins at one "
			   "function; give one -i, or drop --until",
			   "");
	err = check_lag(o);
	if (err)
		return err;
	if (o->ntasks && !o->ninteractions)
		return bad("--task-post/--task-run without --interaction%s: the tasks are split "
			   "per run; add --interaction BINARY:SYMBOL",
			   "");
	if (!o->nfuncs && !o->ninteractions && !o->repeat && !o->sample_hz)
		return bad("nothing to record%s: give --func BINARY:SYMBOL and/or --interaction, "
			   "or sample stacks (drop --no-sample)",
			   "");
	return 0;
}

int record_opts__parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"func", required_argument, NULL, 'f'},
		{"interaction", required_argument, NULL, 'i'},
		{"until", required_argument, NULL, 'E'},
		{"key", required_argument, NULL, 'K'},
		{"task-post", required_argument, NULL, 'A'},
		{"task-run", required_argument, NULL, 'B'},
		{"output", required_argument, NULL, 'o'},
		{"duration", required_argument, NULL, 'd'},
		{"min-dur", required_argument, NULL, 'm'},
		{"repeat", required_argument, NULL, 'r'},
		{"size", required_argument, NULL, 'z'},
		{"sizes", required_argument, NULL, 'Z'},
		{"size-arg", required_argument, NULL, 'Y'},
		{"size-counter", required_argument, NULL, 'C'},
		{"lag", required_argument, NULL, 'L'},
		{"lag-keep", required_argument, NULL, 'k'},
		{"buffer-size", required_argument, NULL, 'b'},
		{"probe-forks", no_argument, NULL, 'P'},
		{"sample", no_argument, NULL, 'S'},
		{"no-sample", no_argument, NULL, 'N'},
		{"sample-overhead", required_argument, NULL, 'O'},
		{"freq", required_argument, NULL, 'F'},
		{"timeline", no_argument, NULL, 'T'},
		{"no-prewake", no_argument, NULL, 'W'},
		{"no-waker-history", no_argument, NULL, 'H'},
		{"no-cpu-sched", no_argument, NULL, 'X'},
		{"realtime", required_argument, NULL, 'R'},
		{"stack-copy", required_argument, NULL, 'U'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c, err;

	memset(o, 0, sizeof(*o));
	o->key_arg = -1;
	o->size_arg = -1;
	o->output = "xlprobe.xlp";
	o->ringbuf_bytes = 16u << 20;
	o->realtime = XLP_RT_AUTO;
	o->stack_copy = XLP_STACK_COPY_DEFAULT;
	optind = 1;
	/* '+': stop at the first non-option, so COMMAND's own options are its own */
	while ((c = getopt_long(argc, argv, "+p:f:i:o:d:F:qvh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return 1;
		}
		if (c == '?')
			return bad("bad usage%s: see xlprobe record --help", "");
		err = parse_one(c, optarg, o);
		if (err)
			return err;
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	return check(o);
}
