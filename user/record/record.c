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

#include "recorder.h"

volatile sig_atomic_t recorder_stop_signal;

static volatile uint64_t signal_ns; /* when it came (CLOCK_MONOTONIC) */

static void on_signal(int sig)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
	signal_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	recorder_stop_signal = sig;
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
int recorder__write(void *ctx, const struct xlp_hdr *h)
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

int recorder__on_record(void *ctx, const struct xlp_hdr *h)
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
		recorder__write(r, h);
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

/*
 * The prewake (bpf/prewake.bpf.h) only where a run can begin: a wakeup
 * arms it, and an armed thread's runqueue waits are traced to who held the
 * CPU (a thief record each, bpf/thief.bpf.h) in case a run's handler comes
 * next. Without a function that starts runs or tasks no handler comes:
 * record -p PID -f F wrote one such record per wakeup (a pipe ping-pong:
 * one per round trip), for nothing.
 */
static bool prewake_on(const struct recorder *r)
{
	const uint32_t starts = XLP_FUNC_INTERACTION | XLP_FUNC_RUN_BEGIN | XLP_FUNC_RUN_END |
				XLP_FUNC_TASK_POST | XLP_FUNC_TASK_RUN;

	if (r->o.no_prewake)
		return false;
	for (uint32_t i = 0; i < r->meta.nfuncs; i++)
		if (r->meta.funcs[i].flags & starts)
			return true;
	return false;
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
		      (prewake_on(r) ? XLP_FEAT_PREWAKE : 0);
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
int recorder__attach_funcs(struct recorder *r, pid_t pid)
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
				  .prewake = prewake_on(r),
				  /* built without libdw: nothing could unwind a copy */
				  .stack_copy = unwinder__has_cfi() ? r->o.stack_copy : 0,
				  .markers = r->markers,
				  .nmarkers = r->nmarkers,
				  .usdt = r->usdt != NULL,
				  .on_record = recorder__on_record,
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
			ret = recorder__start_launch(r);
	} else {
		ret = session__add_target(r->sess, r->o.pid);
		if (ret == -ESRCH)
			xlp_err("PID %d exited while xlprobe was attaching: nothing was recorded",
				r->o.pid);
	}
	if (ret)
		return ret;
	if (r->o.probe_forks)
		ret = recorder__attach_funcs(r, -1);
	else if (r->o.pid)
		ret = recorder__attach_funcs(r, r->o.pid);
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
		recorder__write_size(r, XLP_SIZE_RECORDING, 0, r->o.size);
	if (r->o.lag_ns) {
		ret = lag_filter__new(r->o.lag_ns, r->o.lag_keep, recorder__write, r, &r->lag);
		if (ret) {
			xlp_err("out of memory: cannot record with --lag");
			return ret;
		}
	}
	if (r->o.sample_hz) {
		ret = sampler__new(r->sess, recorder__write, r, &r->sampler);
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
		recorder__realtime(r, r->o.realtime, xlp_now_ns());
	else if (r->o.realtime == XLP_RT_AUTO)
		recorder__nice(r);
	recorder__off_target(r);
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
	return r->o.cmd ? recorder__release_launch(r) : 0;
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
		enum xlp_stop_reason why = recorder__run(&r);
		uint64_t stop_ns = xlp_now_ns();

		/* the reader drains what the programs sent before it looks at
		 * the signal: a backlog it is behind on delays the stop */
		if (why == XLP_STOP_SIGNAL && signal_ns)
			xlp_dbg("stopping: %.3f s from the signal to the end of the drain",
				(stop_ns - signal_ns) / 1e9);
		ret = recorder__finish(&r, why);
		xlp_dbg("stopping: the file complete in %.3f s", (xlp_now_ns() - stop_ns) / 1e9);
		recorder__detach(&r, why == XLP_STOP_SIGNAL && signal_ns ? signal_ns : stop_ns);
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
