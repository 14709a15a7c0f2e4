/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe record: resolve the functions, load and attach the probes, run
 * or watch the target, and stream every record into the trace file until
 * a signal, the duration or the target's exit ends the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "cpu_avoid.h"
#include "elfsym.h"
#include "lag_filter.h"
#include "launch.h"
#include "log.h"
#include "marker_spec.h"
#include "minidebug.h"
#include "outfile.h"
#include "record.h"
#include "record_opts.h"
#include "sampler.h"
#include "stack_unwind.h"
#include "session.h"
#include "testhooks.h"
#include "trace.h"
#include "usdt.h"
#include "usdt_funcs.h"
#include "util.h"
#include "workload_size.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

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
	struct cpu_avoid *avoid; /* -p: off the target's CPUs when it is pinned */
	bool avoid_new;		 /* a thread ran the interaction for the first time */
};

static volatile sig_atomic_t stop_signal;

static volatile uint64_t signal_ns; /* when it came (CLOCK_MONOTONIC) */

static void on_signal(int sig)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
	signal_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	stop_signal = sig;
}

/* Every marked function's uprobes in pid (-1: every process); err says why not. */
static int probe_funcs(struct recorder *r, pid_t pid, char *err, size_t errlen)
{
	struct session_func *sf = calloc(r->meta.nfuncs ? r->meta.nfuncs : 1, sizeof(*sf));
	size_t n = 0;
	int ret = 0;

	if (!sf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < r->meta.nfuncs; i++) {
		const struct xlp_func_info *f = &r->meta.funcs[i];
		uint32_t flags = (f->flags & XLP_FUNC_INTERACTION) ? XLP_CALL_INTERACTION : 0;

		if (f->flags & XLP_FUNC_MARKER)
			continue; /* the app's own writes, no uprobe */

		/* the key's kind: one per function (a function given twice keeps the first) */
		if (f->flags & (XLP_FUNC_TASK_POST | XLP_FUNC_TASK_RUN | XLP_FUNC_RUN_BEGIN |
				XLP_FUNC_RUN_END))
			flags |= ((f->flags & XLP_FUNC_RUN_BEGIN)  ? XLP_COOKIE_RUN_BEGIN
				  : (f->flags & XLP_FUNC_RUN_END)  ? XLP_COOKIE_RUN_END
				  : (f->flags & XLP_FUNC_TASK_RUN) ? XLP_COOKIE_TASK_RUN
								   : XLP_COOKIE_TASK_POST) |
				 XLP_COOKIE_TASK_ARG(XLP_FUNC_TASK_ARG_OF(f->flags));
		if (f->flags & XLP_FUNC_SIZE)
			flags |= XLP_COOKIE_SIZE |
				 XLP_COOKIE_SIZE_ARG(XLP_FUNC_SIZE_ARG_OF(f->flags));
		if (f->flags & XLP_FUNC_USDT) {
			/* libbpf's USDT attach, one probe (pair) at a time */
			ret = usdt_funcs__attach(r->usdt, r->sess, f, flags, pid, err, errlen);
			if (ret)
				goto out;
			continue;
		}
		sf[n++] = (struct session_func){
			.id = f->id, .flags = flags, .binary = f->binary, .offset = f->offset};
	}
	if (n)
		ret = session__attach_funcs(r->sess, sf, n, pid, err, errlen);
out:
	free(sf);
	return ret;
}

/*
 * A traced process forked: set the marked functions' uprobes in the child,
 * which pid-scoped uprobes do not follow, and say in its record from when
 * its calls are seen. The calls it makes before that are not: the record's
 * window says how long (the report shows it), and --probe-forks closes it.
 */
static void follow_fork(struct recorder *r, struct xlp_fork_rec *f)
{
	pid_t pid = (pid_t)f->pid;
	char err[512] = "";
	int ret = 0;

	if (!r->meta.nfuncs)
		return;
	/* the launched command, probed before its release */
	if (r->o.probe_forks || f->ppid == (uint32_t)getpid()) {
		f->flags |= XLP_FORK_PROBED_ALREADY;
		return;
	}
	ret = probe_funcs(r, pid, err, sizeof(err));
	if (!ret) {
		f->flags |= XLP_FORK_PROBED;
		f->probed_ns = xlp_now_ns();
		return;
	}
	session__detach_funcs(r->sess, pid);
	if (ret == -ESRCH || (kill(pid, 0) && errno == ESRCH)) {
		f->flags |= XLP_FORK_GONE;
		return;
	}
	f->flags |= XLP_FORK_PROBE_FAILED;
	if (!r->warned_fork)
		xlp_warn("process %d, forked by %u: %s: its marked calls are not recorded", pid,
			 f->ppid, err);
	r->warned_fork = true;
}

/* Into the trace, or counted as lost. */
static int write_rec(void *ctx, const struct xlp_hdr *h)
{
	struct recorder *r = ctx;
	int err;

	if (r->write_err) {
		r->lost++;
		return r->write_err;
	}
	err = trace_writer__append(r->w, h);
	if (err) {
		r->write_err = err;
		r->lost++;
	}
	return err;
}

static int on_record(void *ctx, const struct xlp_hdr *h)
{
	struct recorder *r = ctx;
	struct xlp_sample_rec sample;
	struct xlp_fork_rec fork;

	if (r->ended && h->type != XLP_R_LAUNCH && h->type != XLP_R_STATS)
		return 0;
	r->nprog += xlp_rec_from_programs(h->type);
	if (h->type == XLP_R_CALL || h->type == XLP_R_CALL_COMPACT) {
		/* flags sit at the same place in both */
		const struct xlp_call_compact_rec *c = (const void *)h;

		r->ncalls++;
		r->nruns += !!(c->flags & XLP_CALL_INTERACTION);
		/*
		 * Every thread that runs a marked function, not only the
		 * interaction's: a pool thread doing a run's work, preempted by
		 * the recorder woken on its CPU, was accused of cpu_wait in an
		 * unperturbed run (tests/root/test_pool).
		 */
		if (cpu_avoid__note_tid(r->avoid, (pid_t)c->tid))
			r->avoid_new = true;
	} else if (h->type == XLP_R_PROC) {
		const struct xlp_proc_rec *p = (const void *)h;

		if (r->o.pid && p->pid == (uint32_t)r->o.pid && (p->flags & XLP_THREAD_EXITED))
			r->target_exited = true;
		/*
		 * A followed child's uprobes stay until the recording ends:
		 * removing them waits for an RCU grace period (100-160 ms
		 * here) and, done while others run, slowed a running launch
		 * of the same binary 10x (xz, tests/real/test_xz).
		 */
	} else if (h->type == XLP_R_FORK && h->size >= sizeof(fork)) {
		memcpy(&fork, h, sizeof(fork));
		follow_fork(r, &fork);
		h = &fork.h;
	} else if (h->type == XLP_R_UCOPY) {
		/* a user stack for the sampler to unwind; not in the trace */
		if (r->sampler)
			sampler__ucopy(r->sampler, (const void *)h, h->size);
		return 0;
	} else if (h->type == XLP_R_SAMPLE && h->size >= sizeof(sample) && r->sampler) {
		/* its frames named and written first; in it, the trace's stack ids */
		struct xlp_sample_ev ev = {};

		memcpy(&ev, h, h->size < sizeof(ev) ? h->size : sizeof(ev));
		sample = ev.r;
		sample.h.size = sizeof(sample);
		sampler__sample(r->sampler, &sample, ev.ucaller, ev.useq);
		h = &sample.h;
	}
	if (!r->lag) {
		write_rec(r, h);
	} else if (lag_filter__record(r->lag, h) == -ENOMEM && !r->write_err) {
		/* holding it failed: a partial trace would not say so */
		xlp_err("out of memory holding records for --lag: recording stopped");
		r->write_err = -ENOMEM;
	}
	return 0;
}

static bool have_caps(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {};

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return (data[CAP_BPF / 32].effective & (1u << (CAP_BPF % 32))) &&
	       (data[CAP_PERFMON / 32].effective & (1u << (CAP_PERFMON % 32)));
}

/* Adds a resolved function unless it is already there (then flags merge). */
static int add_func(struct recorder *r, const struct elfsym_target *t, uint32_t flags)
{
	struct xlp_trace_meta *m = &r->meta;
	struct xlp_func_info *f;
	int ret;

	for (uint32_t i = 0; i < m->nfuncs; i++) {
		/* marker: functions are told apart by name (add_marker) */
		if (!(flags & XLP_FUNC_MARKER) && m->funcs[i].offset == t->offset &&
		    !strcmp(m->funcs[i].binary, t->binary) &&
		    !(m->funcs[i].flags & XLP_FUNC_USDT)) {
			m->funcs[i].flags |= flags;
			return 0;
		}
	}
	ret = xlp_trace_meta__add_func(m, flags, t->offset, t->binary, t->symbol, t->build_id, &f);
	if (ret == -E2BIG)
		xlp_err("more than %d functions marked: narrow the globs", XLP_MAX_FUNCS);
	if (ret)
		return ret;
	xlp_dbg("--func %s:%s at file offset 0x%llx, named by %s", t->binary, t->symbol,
		(unsigned long long)t->offset, trace__sym_source_name(t->source) ?: "?");
	if (t->ifunc)
		xlp_warn("%s:%s is an IFUNC: the probe fires in its resolver (once, at load), not "
			 "in the implementation; mark the implementation instead",
			 t->binary, t->symbol);
	if (t->needs_single_step)
		xlp_warn("%s:%s starts with an instruction the kernel must single-step: each call "
			 "costs ~10 us more than usual",
			 t->binary, t->symbol);
	return 0;
}

/*
 * A marker: spec (or --size-counter's, size): a function of its own in the
 * table unless it is a counter, and a pattern for the programs.
 */
static int add_marker(struct recorder *r, const char *pattern, uint32_t flags, bool size)
{
	struct xlp_trace_meta *m = &r->meta;
	struct xlp_func_info *f = NULL;
	uint32_t mflags = size ? XLP_MARKER_F_SIZE
			       : (flags & XLP_FUNC_INTERACTION ? XLP_MARKER_F_INTERACTION : 0);
	char err[256];
	int ret;

	for (uint32_t i = 0; i < m->nfuncs && !size; i++) {
		f = &m->funcs[i];
		if ((f->flags & XLP_FUNC_MARKER) &&
		    !strcmp(f->symbol + strlen(MARKER_SPEC_PREFIX), pattern)) {
			f->flags |= flags;
			for (uint32_t k = 0; k < r->nmarkers; k++)
				if (r->markers[k].func_id == f->id &&
				    !(r->markers[k].flags & XLP_MARKER_F_SIZE))
					r->markers[k].flags |= mflags;
			return 0;
		}
	}
	if (r->nmarkers >= XLP_MARKER_SPECS) {
		xlp_err("more than %d marker: specs: merge them with a glob (marker:'doFrame*')",
			XLP_MARKER_SPECS);
		return -E2BIG;
	}
	if (!size) {
		struct elfsym_target t = {.binary = (char *)MARKER_SPEC_BINARY};
		char sym[XLP_MARKER_PAT + 16];

		snprintf(sym, sizeof(sym), "%s%s", MARKER_SPEC_PREFIX, pattern);
		t.symbol = sym;
		ret = add_func(r, &t, flags | XLP_FUNC_MARKER);
		if (ret)
			return ret;
		f = &m->funcs[m->nfuncs - 1];
	}
	ret = marker_spec__make(pattern, f ? f->id : 0, mflags, &r->markers[r->nmarkers], err,
				sizeof(err));
	if (ret) {
		xlp_err("%s", err);
		return ret;
	}
	r->nmarkers++;
	return 0;
}

static int resolve_spec(struct recorder *r, const char *spec, uint32_t flags)
{
	struct elfsym_target *t = NULL;
	size_t n = 0;
	char err[512];
	int ret;

	if (usdt__is_spec(spec))
		return usdt_funcs__add(&r->usdt, &r->meta, spec, NULL, r->o.pid, flags);
	if (marker_spec__is(spec))
		return add_marker(r, spec + strlen(MARKER_SPEC_PREFIX), flags, false);
	ret = elfsym__resolve(spec, r->o.pid, &t, &n, err, sizeof(err));
	if (ret) {
		xlp_err("%s", err);
		return ret;
	}
	for (size_t i = 0; i < n && !ret; i++)
		ret = add_func(r, &t[i], flags);
	elfsym__free_targets(t, n);
	return ret;
}

static int resolve_funcs(struct recorder *r)
{
	int err = 0;

	/* --until usdt:... without --key: the end probe of the interaction's calls */
	if (r->o.until && r->o.key_arg < 0)
		err = usdt_funcs__add(
			&r->usdt, &r->meta, r->o.interactions[0], r->o.until, r->o.pid,
			XLP_FUNC_INTERACTION |
				(r->o.size_arg >= 0
					 ? XLP_FUNC_SIZE | XLP_FUNC_SIZE_ARG(r->o.size_arg)
					 : 0));
	/* --until: the interaction begins keyed runs, --until's function ends them */
	for (int i = 0; i < r->o.ninteractions && !err && !(r->o.until && r->o.key_arg < 0); i++)
		err = resolve_spec(
			r, r->o.interactions[i],
			XLP_FUNC_INTERACTION |
				(r->o.until ? XLP_FUNC_RUN_BEGIN | XLP_FUNC_TASK_ARG(r->o.key_arg)
					    : 0) |
				(r->o.size_arg >= 0
					 ? XLP_FUNC_SIZE | XLP_FUNC_SIZE_ARG(r->o.size_arg)
					 : 0));
	if (r->o.until && r->o.key_arg >= 0 && !err)
		err = resolve_spec(r, r->o.until,
				   XLP_FUNC_RUN_END | XLP_FUNC_TASK_ARG(r->o.key_arg));
	for (int i = 0; i < r->o.nfuncs && !err; i++)
		err = resolve_spec(r, r->o.funcs[i], 0);
	if (r->o.size_counter && !err)
		err = add_marker(r, r->o.size_counter, 0, true);
	for (int i = 0; i < r->o.ntasks && !err; i++) {
		/* BINARY:SYMBOL:argN, checked by record_opts */
		const char *spec = r->o.task_specs[i], *a = strrchr(spec, ':');
		char *fs = strndup(spec, (size_t)(a - spec));

		if (!fs)
			return -ENOMEM;
		err = resolve_spec(r, fs,
				   (r->o.task_run[i] ? XLP_FUNC_TASK_RUN : XLP_FUNC_TASK_POST) |
					   XLP_FUNC_TASK_ARG(a[4] - '0'));
		free(fs);
	}
	return err;
}

/*
 * Creates the trace file before any probe exists, so a path that cannot
 * be written fails early, and keeps it open for the recording: nothing can
 * be swapped in at the path between this check and the writing.
 */
static int check_output(struct recorder *r)
{
	char err[PATH_MAX + 256];
	int ret;

	/* crash-safe: after a kill -9 the chunks written so far are readable */
	ret = outfile__open(r->o.output, OUTFILE_CRASH_SAFE, &r->of, err, sizeof(err));
	if (ret)
		xlp_err("%s with -o", err);
	return ret;
}

static char *join_args(char *const *argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (int i = 0; s && argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static char *pid_cmdline(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return strdup("");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = 0;
	for (ssize_t i = 0; i + 1 < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	return strdup(buf);
}

static void fill_meta(struct recorder *r)
{
	struct xlp_trace_meta *m = &r->meta;
	struct timespec rt, mono;
	struct utsname u;

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	m->ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	m->clock_id = CLOCK_MONOTONIC;
	m->features = session__features(r->sess) | (r->o.sample_hz ? XLP_FEAT_SAMPLE : 0) |
		      (r->o.timeline ? XLP_FEAT_TIMELINE : 0) |
		      (r->o.no_prewake ? 0 : XLP_FEAT_PREWAKE);
	m->boot_offset_ns =
		(int64_t)(rt.tv_sec - mono.tv_sec) * 1000000000ll + (rt.tv_nsec - mono.tv_nsec);
	m->start_ns = xlp_now_ns();
	m->min_dur_ns = r->o.min_dur_ns;
	m->target_pid = (uint32_t)r->o.pid;
	m->repeat = r->o.cmd ? record_opts__launches(&r->o) : 0;
	m->host = strdup(u.nodename);
	m->kernel = strdup(u.release);
	m->cmdline = r->o.cmd ? join_args(r->o.cmd) : pid_cmdline(r->o.pid);
	m->notes = strdup(session__notes(r->sess));
}

/*
 * Uprobes for the target only: -p's process, or the launched command's
 * pid before it execs (the kernel's uprobe filter follows the task across
 * exec; no other process on the machine traps). pid -1 (--probe-forks)
 * sets them in every process running the binary, so that the target's
 * forked children run them too. The BPF side keeps only traced threads.
 */
static int attach_funcs(struct recorder *r, pid_t pid)
{
	char err[512];
	int ret = probe_funcs(r, pid, err, sizeof(err));

	if (ret)
		xlp_err("%s", err);
	return ret;
}

/*
 * --sizes: the size of launch i (0-based). Launches go round the sizes,
 * --repeat rounds of one launch per size: a machine whose speed drifts
 * then slows every size alike. Size by size, a slow stretch fell on all
 * the repeats of one size and bent the model: xz on this VM ran 1.6x
 * faster in 2 of the 3 launches at 512 KiB, and its linear lzma_code was
 * read as n log n in 2 of 12 recordings (5 repeats did not help: 2 of
 * 20).
 */
static uint64_t launch_size(const struct recorder *r, unsigned i)
{
	return r->o.nsizes ? r->o.sizes[i % r->o.nsizes] : 0;
}

/* record --size, --sizes: the size the runs were given, written before they run */
static void write_size(struct recorder *r, uint32_t flags, pid_t pid, uint64_t size)
{
	struct xlp_size_rec s = {.h = {XLP_R_SIZE, sizeof(s), 0},
				 .pid = (uint32_t)pid,
				 .time_ns = xlp_now_ns(),
				 .size = size,
				 .flags = flags,
				 .run = (flags & XLP_SIZE_LAUNCH) ? r->launches : 0};

	write_rec(r, &s.h);
}

/* Forks the next launch, held before exec, and probes it. */
static int start_launch(struct recorder *r)
{
	char **argv = r->o.cmd;
	int ret;

	/* its own copy of the command, its size in place of every {} */
	if (r->o.nsizes) {
		argv = wsize__argv(r->o.cmd, launch_size(r, r->launches));
		if (!argv) {
			xlp_err("out of memory: cannot start launch %u", r->launches + 1);
			return -ENOMEM;
		}
	}
	ret = launch__fork(argv, &r->child);
	if (argv != r->o.cmd)
		wsize__free_argv(argv);
	if (ret) {
		xlp_err("cannot start '%s': %s", r->o.cmd[0], strerror(-ret));
		return ret;
	}
	ret = r->o.probe_forks ? 0 : attach_funcs(r, launch__pid(r->child));
	if (ret) {
		/* never released: it exits without running, and is no launch */
		launch__free(r->child);
		r->child = NULL;
	}
	return ret;
}

static int release_launch(struct recorder *r)
{
	char err[512];
	int ret;

	if (r->o.nsizes)
		write_size(r, XLP_SIZE_LAUNCH, launch__pid(r->child), launch_size(r, r->launches));
	/* before the child may exec: the kernel times it from then on */
	ret = session__watch_launch(r->sess, launch__pid(r->child));
	if (ret)
		xlp_warn("cannot have the kernel time launch %u: %s: it is timed by xlprobe",
			 r->launches + 1, strerror(-ret));
	r->launch_start_ns = xlp_now_ns();
	ret = launch__release(r->child, err, sizeof(err));
	if (ret)
		xlp_err("%s", err);
	r->launches++;
	return ret;
}

/*
 * A launch's run is the command's own life as the kernel saw it: its exec
 * and the exit of its last thread (bpf/sched.bpf.c says why those). When an
 * event is missing (its program could not attach or did not run), the
 * release and the reap stand in, flagged in the record and counted in the
 * footer: those include xlprobe's own delays, never silently.
 */
static void launch_times(struct recorder *r, struct xlp_launch_rec *l, uint64_t reaped_ns)
{
	uint64_t exec_ns = 0, exit_ns = 0;

	session__launch_times(r->sess, (pid_t)l->pid, &exec_ns, &exit_ns);
	/* the same clock on both sides: anything outside release..reap is
	 * not this launch's */
	if (exec_ns && exec_ns >= r->launch_start_ns && exec_ns <= reaped_ns) {
		l->start_ns = exec_ns;
		l->flags |= XLP_LAUNCH_EXEC_TIME;
	} else {
		l->start_ns = r->launch_start_ns;
	}
	if (exit_ns && exit_ns >= l->start_ns && exit_ns <= reaped_ns) {
		l->end_ns = exit_ns;
		l->flags |= XLP_LAUNCH_EXIT_TIME;
	} else {
		l->end_ns = reaped_ns;
	}
	if ((l->flags & (XLP_LAUNCH_EXEC_TIME | XLP_LAUNCH_EXIT_TIME)) !=
	    (XLP_LAUNCH_EXEC_TIME | XLP_LAUNCH_EXIT_TIME))
		r->untimed++;
}

/* Records a finished launch; starts the next one unless it was the last. */
static int finish_launch(struct recorder *r, int code)
{
	struct xlp_launch_rec l = {.h = {XLP_R_LAUNCH, sizeof(l), 0}};
	int ret;

	l.run = r->launches - 1;
	l.pid = (uint32_t)launch__pid(r->child);
	l.exit_code = code;
	launch_times(r, &l, xlp_now_ns());
	launch__free(r->child);
	r->child = NULL;
	/* the pid is gone: its probes go too, the next launch gets its own */
	if (!r->o.probe_forks)
		session__detach_funcs(r->sess, 0);
	on_record(r, &l.h);
	if (r->launches >= record_opts__launches(&r->o) || stop_signal || r->ended)
		return 1;
	ret = start_launch(r);
	return ret ? ret : release_launch(r);
}

static uint64_t drops(const uint64_t *st, uint64_t lost)
{
	return st[XLP_S_RB_FULL] + st[XLP_S_STACK_OVERFLOW] + st[XLP_S_THREADS_FULL] + lost;
}

static void show_status(struct recorder *r, uint64_t now, uint64_t *last_events, uint64_t *last_ns)
{
	uint64_t st[XLP_NR_STAT] = {};
	double dt = (now - *last_ns) / 1e9;

	session__stats(r->sess, st);
	fprintf(stderr, "\r\033[K%7.1fs  runs %llu  calls %llu  events/s %.0f  drops %llu",
		(now - r->meta.start_ns) / 1e9, (unsigned long long)r->nruns,
		(unsigned long long)r->ncalls,
		dt > 0 ? (st[XLP_S_SCHED_EVENTS] - *last_events) / dt : 0.0,
		(unsigned long long)drops(st, r->lost));
	*last_events = st[XLP_S_SCHED_EVENTS];
	*last_ns = now;
}

/*
 * The recorder's own priority: SCHED_FIFO prio, which its children (the
 * launched command) do not inherit. A reader at an ordinary priority gets
 * 1 / (N + 1) of the CPUs behind N busy traced threads, and the ring
 * buffer overflows exactly when the machine is overloaded; a SCHED_FIFO
 * reader runs as soon as it is woken, for as long as the records take, then
 * sleeps again (the kernel's RT throttling still leaves others 5 %).
 */
static void reader_realtime(struct recorder *r, int prio, uint64_t now)
{
	struct sched_param sp = {.sched_priority = prio};

	if (r->load.rt_since_ns || r->load.rt_failed)
		return;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
		r->load.rt_failed = true;
		xlp_warn("cannot run the recorder at SCHED_FIFO %d: %s: it may fall behind on a "
			 "busy machine (records lost are counted)",
			 prio, strerror(errno));
		return;
	}
	r->load.rt_prio = prio;
	r->load.rt_since_ns = now;
	xlp_dbg("recorder at SCHED_FIFO %d from %.3f s", prio, (now - r->meta.start_ns) / 1e9);
}

/*
 * The default: nice -20, a fair share that cannot starve anything, yet
 * weighs 86 ordinary threads (weight 88761 against 1024), and a waking
 * nice -20 thread gets a CPU almost at once. Children do not inherit it
 * (launch.c resets the launched command's priority).
 */
/*
 * With -p: the recorder on the CPUs the threads that run the interaction
 * cannot run on, when there are any (cpu_avoid.h), checked again each
 * second as threads come and go or pin themselves. Measured: with an e2e worker pinned to
 * CPU 1, the recorder (nice -20, unwinding ~300 samples a second) ran 1.2 s
 * on that CPU in a 20 s recording, and the worker's sampled stacks showed
 * it waiting for the CPU in a few runs (a false cpu_wait).
 */
static void reader_off_target(struct recorder *r)
{
	pid_t pid = r->o.pid ? r->o.pid : r->child ? launch__pid(r->child) : 0;
	int ret;

	/* made before a launch starts, so that its first runs' threads are noted */
	if (!r->avoid) {
		r->avoid = cpu_avoid__new();
		if (!r->avoid)
			return;
	}
	if (pid <= 0)
		return;
	ret = cpu_avoid__update(r->avoid, pid);
	if (ret == 1)
		xlp_dbg("recorder off %d CPU(s) of PID %d", cpu_avoid__count(r->avoid), pid);
	else if (ret < 0 && ret != -ESRCH && ret != -ENOENT)
		xlp_dbg("cannot read the CPUs of PID %d: %s", pid, strerror(-ret));
}

static void reader_nice(struct recorder *r)
{
	if (setpriority(PRIO_PROCESS, 0, -20))
		xlp_dbg("cannot raise the recorder's priority: %s", strerror(errno));
	else
		r->load.niced = true;
}

/*
 * After each drain: how much the programs sent since the last one (what
 * arrived, and what was lost at the mean record size), and whether the
 * recorder fell behind: more than half the buffer waiting, or records
 * lost. Then, by default, it takes SCHED_FIFO 1 (--realtime).
 */
static void reader_check(struct recorder *r, uint64_t now)
{
	struct reader_load *l = &r->load;
	uint64_t recs, bytes, full = session__stat(r->sess, XLP_S_RB_FULL), sent, mean;

	session__rb_counts(r->sess, &recs, &bytes);
	mean = recs ? bytes / recs : 64;
	sent = bytes - l->bytes + (full - l->rb_full) * mean;
	if (sent > l->need_bytes)
		l->need_bytes = sent;
	if (l->last_ns && now - l->last_ns > l->max_gap_ns)
		l->max_gap_ns = now - l->last_ns;
	if (r->o.realtime == XLP_RT_AUTO &&
	    (full > l->rb_full || bytes - l->bytes > r->o.ringbuf_bytes / 2))
		reader_realtime(r, 1, now);
	l->bytes = bytes;
	l->records = recs;
	l->rb_full = full;
	l->last_ns = now;
}

static enum xlp_stop_reason run_loop(struct recorder *r)
{
	bool tty = !r->o.quiet && isatty(STDERR_FILENO);
	uint64_t last_flush = xlp_now_ns(), last_status = last_flush, last_events = 0;
	uint64_t last_adapt = last_flush;
	int code;

	for (;;) {
		/* a launch's exit wakes us through its pidfd, so the next one
		 * starts at once; without a pidfd, poll more often meanwhile */
		int wake_fd = r->child ? launch__pidfd(r->child) : -1;
		int timeout_ms = r->child && wake_fd < 0 ? 5 : 100;
		uint64_t now;

		if (session__poll(r->sess, wake_fd, timeout_ms) < 0 || stop_signal)
			return XLP_STOP_SIGNAL;
		if (r->write_err)
			return XLP_STOP_ERROR;
		now = xlp_now_ns();
		reader_check(r, now);
		/* the first run of a thread names its CPUs: leave them at once */
		if (r->avoid_new) {
			r->avoid_new = false;
			reader_off_target(r);
		}
		if (r->o.duration_ns && now - r->meta.start_ns >= r->o.duration_ns)
			return XLP_STOP_DURATION;
		if (r->o.pid && (r->target_exited || kill(r->o.pid, 0)))
			return XLP_STOP_TARGET_EXIT;
		if (r->child && launch__reap(r->child, 0, &code) == 1) {
			int ret = finish_launch(r, code);

			/* the next launch could not start (said why): the trace
			 * is valid, the recording is not what was asked */
			if (ret < 0) {
				r->launch_failed = true;
				return XLP_STOP_ERROR;
			}
			if (ret)
				return XLP_STOP_TARGET_EXIT;
		}
		if (now - last_flush >= 1000000000ull) {
			/* a chunk a second bounds what a crash can lose */
			int err = trace_writer__flush(r->w);

			if (err && !r->write_err)
				r->write_err = err;
			last_flush = now;
			reader_off_target(r);
		}
		/*
		 * The sampling period follows its measured cost: a quarter of a
		 * second holds ~250 ticks of a busy thread at the default rate,
		 * enough to measure the mean pause to a few percent.
		 */
		if (r->sampler && now - last_adapt >= 250000000ull) {
			int err = sampler__adapt(r->sampler, now, false);

			if (err && err != -EIO)
				xlp_warn("cannot adapt the sampling period: %s", strerror(-err));
			last_adapt = now;
		}
		if (tty && now - last_status >= 1000000000ull)
			show_status(r, now, &last_events, &last_status);
	}
}

/* A power of two of bytes as --buffer-size takes it: 512K, 64M, 1G. */
static const char *size_arg(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ull << 30))
		snprintf(buf, len, "%lluG", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20))
		snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
	return buf;
}

/* The smallest --buffer-size (a power of two, in bytes) that holds need. */
static uint64_t buffer_for(uint64_t need)
{
	uint64_t b = 4096;

	while (b < need && b < XLP_RINGBUF_MAX)
		b <<= 1;
	return b;
}

/*
 * More than XLP_LOSS_CAVEAT of the records lost: the report will call its
 * sample partial; say what would lose less, from what was measured.
 */
/* MiniDebugInfo sections refused while naming --func targets or frames: counted, said. */
static void minidebug_advice(void)
{
	struct minidebug_counts c;
	char why[256];
	uint64_t n = 0;
	size_t used = 0;

	minidebug__counts(&c);
	why[0] = 0;
	for (int i = 0; i < MINIDEBUG_NREFUSALS; i++) {
		if (!c.refused[i])
			continue;
		n += c.refused[i];
		used += (size_t)snprintf(why + used, sizeof(why) - used, "%s%llu %s",
					 used ? ", " : "", (unsigned long long)c.refused[i],
					 minidebug__refusal_str(i));
		if (used >= sizeof(why))
			break;
	}
	if (n)
		xlp_warn("MiniDebugInfo (.gnu_debugdata) refused on reading: %s: those binaries' "
			 "local functions are unnamed; install their debug symbols",
			 why);
}

/*
 * What the JIT runtimes' perf maps and jitdumps gave (user/symbols/jitproc.h);
 * a file refused or corrupt is a warning: its frames stay
 * "[unknown]".
 */
static void jit_summary(const struct jit_counts *j, uint64_t jvm_maps, bool quiet)
{
	if (!quiet && jvm_maps)
		fprintf(stderr, "xlprobe: JVMs wrote their perf maps %llu times when asked\n",
			(unsigned long long)jvm_maps);
	if (!quiet && (j->files || j->skipped || j->cut || j->tail))
		fprintf(stderr,
			"xlprobe: JIT code: %llu frames named from %llu perf maps and jitdumps "
			"(%llu names read); %llu malformed lines or records skipped, %llu files "
			"cut off at their bound, %llu jitdump bytes unread at the end (a record "
			"still being written, cut short or lying about its size)\n",
			(unsigned long long)j->named, (unsigned long long)j->files,
			(unsigned long long)j->entries, (unsigned long long)j->skipped,
			(unsigned long long)j->cut, (unsigned long long)j->tail);
	if (j->refused || j->corrupt)
		xlp_warn("%llu JIT symbol files refused and %llu read no further; the first: %s "
			 "(the runtime's own file, of the process's user, is read: see "
			 "docs/runtimes.md)",
			 (unsigned long long)j->refused, (unsigned long long)j->corrupt, j->why);
}

static void loss_advice(struct recorder *r, const struct xlp_trace_footer *f)
{
	const struct reader_load *l = &r->load;
	uint64_t lost = f->stat[XLP_S_RB_FULL] + f->lost_by_reader, sent = r->nprog + lost;
	uint64_t want = buffer_for(2 * l->need_bytes);
	char cur[32], sug[32];

	if (!sent || (double)lost / sent <= XLP_LOSS_CAVEAT)
		return;
	size_arg(r->o.ringbuf_bytes, cur, sizeof(cur));
	size_arg(want, sug, sizeof(sug));
	xlp_warn("%.1f %% of the records were lost (%llu of %llu): the report will say its "
		 "sample is partial and likely biased (losses fall where the load is). The "
		 "programs sent up to %.1f MB between two drains, %.0f ms apart at most; to "
		 "lose less:",
		 100.0 * lost / sent, (unsigned long long)lost, (unsigned long long)sent,
		 l->need_bytes / 1e6, l->max_gap_ns / 1e6);
	if (want > r->o.ringbuf_bytes && 2 * l->need_bytes <= XLP_RINGBUF_MAX)
		fprintf(stderr, "  --buffer-size %s (now %s): twice what one drain had to take\n",
			sug, cur);
	else if (want > r->o.ringbuf_bytes)
		fprintf(stderr,
			"  --buffer-size 1G (now %s) helps only in part: the rate is beyond "
			"what a buffer can absorb\n",
			cur);
	if (r->o.realtime == XLP_RT_OFF)
		fprintf(stderr, "  drop --realtime off: the recorder then takes SCHED_FIFO 1 as "
				"soon as it falls behind\n");
	else if (l->rt_since_ns)
		fprintf(stderr,
			"  --realtime %d: the recorder ran at SCHED_FIFO %d only from %.1f s on, "
			"once "
			"behind; a higher priority from the start (as perf record -r)\n",
			l->rt_prio < 50 ? 50 : l->rt_prio, l->rt_prio,
			(l->rt_since_ns - r->meta.start_ns) / 1e9);
	else if (l->rt_failed)
		fprintf(stderr,
			"  run with CAP_SYS_NICE, so that the recorder can take SCHED_FIFO\n");
	fprintf(stderr, "  fewer --func, or --min-dur DUR: fewer calls to record (a call shorter "
			"than DUR is counted, not sent)\n");
	if (r->o.sample_hz)
		fprintf(stderr, "  a lower -F or --sample-overhead, or --no-sample\n");
	if (r->o.timeline)
		fprintf(stderr, "  no --timeline: every scheduling event is a record\n");
}

/* What the trace-marker programs made of the app's lines: into the trace, and said. */
static void marker_finish(struct recorder *r)
{
	struct xlp_marker_rec mr;
	uint64_t skipped = 0;

	if (session__marker_counts(r->sess, &mr))
		return;
	write_rec(r, &mr.h);
	for (int i = 0; i < XLP_MARKER_NR_SKIP; i++)
		skipped += mr.skip[i];
	if (skipped)
		xlp_warn("%llu of %llu trace-marker lines skipped (malformed, or an end without "
			 "its begin): xlprobe dump shows them by reason",
			 (unsigned long long)skipped, (unsigned long long)mr.lines);
}

static int finish(struct recorder *r, enum xlp_stop_reason why)
{
	struct xlp_trace_footer f = {.stop_reason = why};
	struct xlp_stats_rec sr = {.h = {XLP_R_STATS, sizeof(sr), 0}};
	char msg[PATH_MAX + 256];
	int code, err;

	/* the recording ends now: totals of live threads first, then the
	 * launched command (if any) is stopped; what its exit produces is not
	 * part of the recording */
	session__poll(r->sess, -1, 0);
	session__emit_live(r->sess, xlp_now_ns());
	if (r->sampler)
		sampler__adapt(r->sampler, xlp_now_ns(), true);
	session__stats(r->sess, f.stat);
	r->ended = true;
	if (r->child) {
		launch__kill(r->child);
		if (launch__reap(r->child, 1, &code) == 1)
			finish_launch(r, code);
	}
	/* the recorder's count in the BPF statistics' slot for it */
	f.stat[XLP_S_LAUNCH_UNTIMED] += r->untimed;
	if (r->untimed)
		xlp_warn("%u of %u launch(es) lack the kernel's exec or exit time: their latency "
			 "was taken by xlprobe (release to reap) and is less exact; flagged in the "
			 "trace",
			 r->untimed, r->launches);
	if (r->lag) {
		/* what is still held belongs to runs that never ended: written */
		struct xlp_lag_rec lr;

		lag_filter__flush(r->lag);
		lag_filter__stats(r->lag, &lr);
		write_rec(r, &lr.h);
		if (!r->o.quiet)
			fprintf(stderr,
				"%sxlprobe: --lag: %llu runs: %llu lagged, %llu kept as samples, "
				"%llu written whole unchosen, %llu summarized (%llu records, %.1f "
				"MB "
				"left out)\n",
				isatty(STDERR_FILENO) ? "\r\033[K" : "",
				(unsigned long long)lr.runs, (unsigned long long)lr.lagging,
				(unsigned long long)lr.sampled,
				(unsigned long long)lr.written_through,
				(unsigned long long)lr.summarized,
				(unsigned long long)lr.records_left_out, lr.bytes_left_out / 1e6);
	}
	if (r->nmarkers)
		marker_finish(r);
	memcpy(sr.stat, f.stat, sizeof(sr.stat));
	sr.lost_by_reader = r->lost;
	on_record(r, &sr.h);
	f.lost_by_reader = r->lost;
	f.end_ns = xlp_now_ns();
	if (r->write_err) {
		/* what is written reads as a valid truncated trace: keep it */
		trace_writer__abort(r->w);
		r->w = NULL;
		err = outfile__commit(r->of, msg, sizeof(msg));
		r->of = NULL;
		if (err)
			xlp_err("%s", msg);
		else
			xlp_err("writing %s failed: %s: recording stopped; the file holds what was "
				"written before (it reads as truncated); free space and record "
				"again",
				r->o.output, strerror(-r->write_err));
		return 1;
	}
	err = trace_writer__close(r->w, &f);
	r->w = NULL;
	if (err) {
		outfile__commit(r->of, NULL, 0);
		r->of = NULL;
		xlp_err("finishing %s failed: %s: the file reads as truncated", r->o.output,
			strerror(-err));
		return 1;
	}
	err = outfile__commit(r->of, msg, sizeof(msg));
	r->of = NULL;
	if (err) {
		xlp_err("%s", msg);
		return 1;
	}
	/* the one way scoped probes miss calls: say it when that may be why */
	if (r->o.cmd && !r->o.probe_forks && r->meta.nfuncs && !r->ncalls)
		xlp_warn("no marked call was recorded: if the command runs them in short-lived "
			 "processes it forks, they may have ended before xlprobe set their "
			 "uprobes: record with --probe-forks");
	if (!r->o.quiet)
		fprintf(stderr, "%sxlprobe: wrote %s: %llu runs, %llu calls, %llu dropped\n",
			isatty(STDERR_FILENO) ? "\r\033[K" : "", r->o.output,
			(unsigned long long)r->nruns, (unsigned long long)r->ncalls,
			(unsigned long long)drops(f.stat, r->lost));
	/* a warning, not a status: also under -q */
	loss_advice(r, &f);
	minidebug_advice();
	if (!r->o.quiet && r->sampler) {
		struct sampler_counts c;

		sampler__counts(r->sampler, &c);
		fprintf(stderr,
			"xlprobe: %llu stack samples, %llu without their user stack; %llu distinct "
			"stacks, %llu of %llu frames named (%llu callers of frameless functions "
			"recovered)\n",
			(unsigned long long)c.samples, (unsigned long long)c.stack_lost,
			(unsigned long long)c.stacks, (unsigned long long)c.frames_named,
			(unsigned long long)c.frames, (unsigned long long)c.recovered);
		jit_summary(&c.jit, c.jvm_maps, r->o.quiet);
		if (r->o.stack_copy && unwinder__has_cfi())
			fprintf(stderr,
				"xlprobe: user stacks unwound: %llu with CFI, %llu CFI then frame "
				"pointers, %llu frame pointers only (%llu whose stack copy was "
				"skipped, the ring buffer busy, or lost); %llu cut short by the "
				"%u-byte stack copy (--stack-copy); "
				"%llu copies of %.0f bytes on average; the recorder unwound each "
				"in %.1f us\n",
				(unsigned long long)c.unwound[XLP_UNWIND_CFI],
				(unsigned long long)c.unwound[XLP_UNWIND_MIXED],
				(unsigned long long)c.unwound[XLP_UNWIND_FP],
				(unsigned long long)c.copy_missing, (unsigned long long)c.copy_cut,
				r->o.stack_copy, (unsigned long long)c.copies,
				c.copies ? (double)c.copy_bytes / (double)c.copies : 0.0,
				c.unwinds ? (double)c.unwind_ns / (double)c.unwinds / 1e3 : 0.0);
		fprintf(stderr,
			"xlprobe: sampling took %.3f ms of the traced threads' %.3f ms of CPU "
			"(bound %.2f %%); longest period %.3f ms, off-CPU stacks at 1 switch in "
			"%u at least (%llu switches, %llu off-CPU samples, %llu user stacks "
			"taken as the thread returned to user space)%s\n",
			c.cost_ns / 1e6, c.cpu_ns / 1e6, r->o.sample_bound_ppm / 1e4,
			c.max_period / 1e6, c.max_every ? c.max_every : 1,
			(unsigned long long)c.off_captures, (unsigned long long)c.off_samples,
			(unsigned long long)c.off_deferred,
			c.over_windows ? " (the overhead bound could not be met in some windows; "
					 "see dump)"
				       : "");
		/* unbiased, but a slowdown made of one long wait per run then
		 * shows in about 1 run in k: say how to keep every one */
		if (c.max_every > 1)
			fprintf(stderr,
				"xlprobe: a wait that happens once per run is sampled in about 1 "
				"run "
				"in %u: raise --sample-overhead (now %.2f %%) to keep every "
				"switch-out's stacks\n",
				c.max_every, r->o.sample_bound_ppm / 1e4);
	}
	return r->launch_failed ? 1 : 0;
}

/*
 * Each followed process holds its probes' links until the recording
 * ends (follow_fork): two per binary with uprobe_multi, two perf events
 * per marked function without. The soft limit of 1024 would stop
 * following after a few dozen forks, the hard one (1 M on Debian) does
 * not. A failure to raise it only means the smaller limit. Launched
 * commands run with the limit they would have had.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	launch__save_fd_limit();
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int setup(struct recorder *r)
{
	struct session_opts so = {.min_dur_ns = r->o.min_dur_ns,
				  .ringbuf_bytes = r->o.ringbuf_bytes,
				  .sample_hz = r->o.sample_hz,
				  .timeline = r->o.timeline,
				  .waker_history = r->o.timeline && !r->o.no_waker_history,
				  .cpu_sched = r->o.timeline && !r->o.no_cpu_sched,
				  .prewake = !r->o.no_prewake,
				  /* built without libdw: nothing could unwind a copy */
				  .stack_copy = unwinder__has_cfi() ? r->o.stack_copy : 0,
				  .markers = r->markers,
				  .nmarkers = r->nmarkers,
				  .on_record = on_record,
				  .ctx = r};
	char err[512], into[2 * PATH_MAX + 64];
	const char *delay;
	int ret;

	raise_fd_limit();
	ret = session__open(&so, &r->sess, err, sizeof(err));
	if (ret) {
		xlp_err("%s", err);
		return ret;
	}
	/* lets a test make the target exit while we attach */
	delay = xlp_test_hook("ATTACH_DELAY_MS");
	if (delay) {
		/* the test's handshake: it acts on the target once this is said */
		fprintf(stderr, "xlprobe: test hook: attach delayed %s ms\n", delay);
		usleep(1000 * atoi(delay));
	}
	if (r->o.cmd) {
		ret = session__follow_children(r->sess);
		if (!ret)
			ret = start_launch(r);
	} else {
		ret = session__add_target(r->sess, r->o.pid);
		if (ret == -ESRCH)
			xlp_err("PID %d exited while xlprobe was attaching: nothing was recorded",
				r->o.pid);
	}
	if (ret)
		return ret;
	if (r->o.probe_forks)
		ret = attach_funcs(r, -1);
	else if (r->o.pid)
		ret = attach_funcs(r, r->o.pid);
	if (ret)
		return ret;
	fill_meta(r);
	ret = trace_writer__open_fd(outfile__fd(r->of), &r->meta, &r->w);
	if (ret) {
		xlp_err("cannot write %s: %s: choose a writable path with -o", r->o.output,
			strerror(-ret));
		return ret;
	}
	if (r->o.size)
		write_size(r, XLP_SIZE_RECORDING, 0, r->o.size);
	if (r->o.lag_ns) {
		ret = lag_filter__new(r->o.lag_ns, r->o.lag_keep, write_rec, r, &r->lag);
		if (ret) {
			xlp_err("out of memory: cannot record with --lag");
			return ret;
		}
	}
	if (r->o.sample_hz) {
		ret = sampler__new(r->sess, write_rec, r, &r->sampler);
		if (!ret && r->o.pid)
			sampler__add_pid(r->sampler, r->o.pid);
		if (!ret)
			ret = session__start_sampling(r->sess, err, sizeof(err));
		else
			snprintf(err, sizeof(err), "%s", strerror(-ret));
		if (ret) {
			xlp_err("cannot sample stacks: %s", err);
			return ret;
		}
		sampler__set_bound(r->sampler, 1000000000ull / r->o.sample_hz,
				   r->o.sample_bound_ppm, xlp_now_ns());
	}
	if (r->o.pid && kill(r->o.pid, 0)) {
		xlp_err("PID %d exited while xlprobe was attaching: nothing was recorded",
			r->o.pid);
		return -ESRCH;
	}
	if (r->o.realtime > 0)
		reader_realtime(r, r->o.realtime, xlp_now_ns());
	else if (r->o.realtime == XLP_RT_AUTO)
		reader_nice(r);
	reader_off_target(r);
	/* replacing an older trace: until the end it is written elsewhere, and
	 * a kill -9 leaves it there */
	if (outfile__partial_path(r->of))
		snprintf(into, sizeof(into), "%s (written as %s until the end)", r->o.output,
			 outfile__partial_path(r->of));
	else
		snprintf(into, sizeof(into), "%s", r->o.output);
	if (r->o.quiet)
		;
	else if (r->o.pid)
		xlp_info("recording PID %d, %u function(s), into %s; Ctrl-C to stop", r->o.pid,
			 r->meta.nfuncs, into);
	else
		xlp_info("recording %u launch(es) of %s, %u function(s), into %s; Ctrl-C to stop",
			 record_opts__launches(&r->o), r->o.cmd[0], r->meta.nfuncs, into);
	return r->o.cmd ? release_launch(r) : 0;
}

/*
 * The probes go last, once the file is complete: removing them waits for
 * the kernel's grace periods (session.c, flinks_close), and a user who
 * will not wait for that (kill -9) still has the whole recording. The
 * wait is said when it passes a second.
 */
static void detach(struct recorder *r)
{
	uint64_t start = xlp_now_ns(), took;

	session__close(r->sess);
	r->sess = NULL;
	took = xlp_now_ns() - start;
	xlp_dbg("probes removed in %.3f s", took / 1e9);
	if (took > 1000000000ull)
		xlp_warn("removing the probes took %.1f s after %s was complete: the kernel waits "
			 "for RCU grace periods as it removes them, and a loaded machine delays "
			 "those",
			 took / 1e9, r->o.output);
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int preflight(struct recorder *r)
{
	if (!have_caps()) {
		xlp_err("recording needs root (or CAP_BPF and CAP_PERFMON): run it with sudo");
		return -EPERM;
	}
	if (r->o.pid && kill(r->o.pid, 0) && errno == ESRCH) {
		xlp_err("no process with PID %d: check the PID (ps -e)", r->o.pid);
		return -ESRCH;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct recorder r = {};
	int ret;

	ret = record_opts__parse(argc, argv, &r.o);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (r.o.verbose)
		xlp_log_set_level(XLP_LOG_DEBUG);
	xlp_log_setup_libbpf();
	install_signals();
	ret = preflight(&r);
	if (!ret)
		ret = resolve_funcs(&r);
	if (!ret)
		ret = check_output(&r);
	if (!ret)
		ret = setup(&r);
	if (!ret) {
		enum xlp_stop_reason why = run_loop(&r);
		uint64_t stop_ns = xlp_now_ns();

		/* the reader drains what the programs sent before it looks at
		 * the signal: a backlog it is behind on delays the stop */
		if (why == XLP_STOP_SIGNAL && signal_ns)
			xlp_dbg("stopping: %.3f s from the signal to the end of the drain",
				(stop_ns - signal_ns) / 1e9);
		ret = finish(&r, why);
		xlp_dbg("stopping: the file complete in %.3f s", (xlp_now_ns() - stop_ns) / 1e9);
		detach(&r);
	} else {
		/* nothing was recorded: leave no file that looks like a recording
		 * (an older trace of ours at the path stays as it was) */
		trace_writer__discard(r.w);
		r.w = NULL;
		outfile__abort(r.of);
		r.of = NULL;
		ret = 1;
	}
	launch__free(r.child);
	session__close(r.sess);
	usdt_funcs__free(r.usdt);
	sampler__free(r.sampler);
	lag_filter__free(r.lag);
	cpu_avoid__free(r.avoid);
	xlp_trace_meta__free(&r.meta);
	return ret;
}
