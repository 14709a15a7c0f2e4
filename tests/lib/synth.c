/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "commands.h"
#include "json.h"
#include "synth.h"
#include "xlptest.h"
#include "testlib.h"

struct synth {
	struct trace_writer *w;
	uint64_t ncalls;
};

int synth__open(const char *path, uint32_t features, uint32_t repeat,
		const struct synth_func *funcs, size_t nfuncs, struct synth **out)
{
	return synth__open_on(path, features, repeat, funcs, nfuncs,
			      &(struct synth_host){"synth", "", 0x1000}, out);
}

int synth__open_on(const char *path, uint32_t features, uint32_t repeat,
		   const struct synth_func *funcs, size_t nfuncs, const struct synth_host *h,
		   struct synth **out)
{
	struct xlp_func_info fi[XLP_MAX_FUNCS];
	struct xlp_trace_meta m = {
		.ncpus = 2,
		.clock_id = 1,
		.features = features,
		.start_ns = 1000000000ull,
		.repeat = repeat,
		.host = (char *)h->host,
		.kernel = "6.18.0",
		.cmdline = "app --serve",
		.notes = "",
		.nfuncs = (uint32_t)nfuncs,
		.funcs = fi,
	};
	struct synth *s;
	int err;

	*out = NULL;
	if (nfuncs > XLP_MAX_FUNCS)
		return -EINVAL;
	for (size_t i = 0; i < nfuncs; i++)
		fi[i] = (struct xlp_func_info){
			.id = (uint32_t)i,
			.flags = (funcs[i].interaction ? XLP_FUNC_INTERACTION : 0) | funcs[i].flags,
			.offset = h->offset + 16 * i,
			.binary = (char *)funcs[i].binary,
			.symbol = (char *)funcs[i].symbol,
			.build_id = (char *)h->build_id};
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = trace_writer__open(path, &m, &s->w);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

/*
 * Appends one record whose header is still to fill: every writer below
 * builds its record and hands it here, so the header is set in one place.
 */
static int put(struct synth *s, uint16_t type, struct xlp_hdr *h, size_t size)
{
	h->type = type;
	h->size = (uint16_t)size;
	return trace_writer__append(s->w, h);
}

static int put_call(struct synth *s, struct xlp_call_rec *c, const uint64_t *incl,
		    const uint64_t *excl)
{
	memcpy(c->incl, incl, sizeof(c->incl));
	memcpy(c->excl, excl ? excl : incl, sizeof(c->excl));
	s->ncalls++;
	return put(s, XLP_R_CALL, &c->h, sizeof(*c));
}

int synth__call(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint16_t depth,
		uint64_t entry_ns, const uint64_t *incl, const uint64_t *excl, uint32_t peer_pid,
		const char *peer_comm)
{
	struct xlp_call_rec c = {
		.func_id = func, .pid = pid, .tid = tid, .depth = depth, .entry_ns = entry_ns};

	if (peer_comm) {
		c.flags |= XLP_CALL_IPC_PEER;
		c.ipc_peer_pid = peer_pid;
		strncpy(c.ipc_peer_comm, peer_comm, sizeof(c.ipc_peer_comm) - 1);
	}
	return put_call(s, &c, incl, excl);
}

int synth__call_flags(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint16_t depth,
		      uint64_t entry_ns, const uint64_t *incl, uint16_t flags)
{
	struct xlp_call_rec c = {
		.func_id = func, .pid = pid, .tid = tid, .depth = depth, .entry_ns = entry_ns};

	c.flags = flags;
	return put_call(s, &c, incl, NULL);
}

int synth__lag(struct synth *s, const struct xlp_lag_rec *lag)
{
	struct xlp_lag_rec l = *lag;

	return put(s, XLP_R_LAG, &l.h, sizeof(l));
}

int synth__run(struct synth *s, uint32_t func, uint32_t pid, uint32_t tid, uint64_t entry_ns,
	       const uint64_t *proc)
{
	struct xlp_run_rec r = {.func_id = func, .pid = pid, .tid = tid, .entry_ns = entry_ns};

	memcpy(r.proc, proc, sizeof(r.proc));
	return put(s, XLP_R_RUN, &r.h, sizeof(r));
}

int synth__launch(struct synth *s, uint32_t run, uint32_t pid, uint64_t start_ns, uint64_t end_ns)
{
	struct xlp_launch_rec l = {.run = run, .pid = pid, .start_ns = start_ns, .end_ns = end_ns};

	return put(s, XLP_R_LAUNCH, &l.h, sizeof(l));
}

int synth__proc(struct synth *s, uint32_t pid, const uint64_t *tot)
{
	struct xlp_proc_rec p = {.pid = pid, .flags = XLP_THREAD_EXITED, .comm = "app"};

	memcpy(p.tot, tot, sizeof(p.tot));
	return put(s, XLP_R_PROC, &p.h, sizeof(p));
}

int synth__thread(struct synth *s, uint32_t pid, uint32_t tid, uint32_t flags, const char *comm,
		  const uint64_t *tot)
{
	struct xlp_thread_rec t = {.pid = pid,
				   .tid = tid,
				   .flags = flags,
				   .first_ns = 1000000000ull + tid,
				   .last_ns = 9000000000ull - tid};

	/* up to all 16 bytes, unterminated then, as the kernel's comm can be */
	memcpy(t.comm, comm, strnlen(comm, sizeof(t.comm)));
	memcpy(t.tot, tot, sizeof(t.tot));
	return put(s, XLP_R_THREAD, &t.h, sizeof(t));
}

int synth__sym(struct synth *s, uint32_t id, uint16_t kind, const char *module, const char *name)
{
	_Alignas(8) char buf[sizeof(struct xlp_sym_rec) + 512];
	struct xlp_sym_rec *r = (void *)buf;
	size_t m = strlen(module), n = strlen(name);

	if (m + n > 500)
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	r->id = id;
	r->kind = kind;
	r->module_len = (uint16_t)m;
	r->name_len = (uint16_t)n;
	memcpy(r->text, module, m);
	memcpy(r->text + m, name, n);
	return put(s, XLP_R_SYM, &r->h, (sizeof(*r) + m + n + 7) & ~(size_t)7);
}

/* A stack of user (flags 0) or kernel (XLP_STACK_KERNEL) frames. */
static int put_stack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n, uint16_t flags)
{
	_Alignas(8) char buf[sizeof(struct xlp_stack_rec) +
			     XLP_STACK_DEPTH * sizeof(struct xlp_stack_frame)];
	struct xlp_stack_rec *r = (void *)buf;

	if (n > XLP_STACK_DEPTH)
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	r->id = id;
	r->nframes = n;
	r->flags = flags;
	for (uint16_t i = 0; i < n; i++)
		r->frames[i].sym = syms[i];
	return put(s, XLP_R_STACK, &r->h, sizeof(*r) + n * sizeof(r->frames[0]));
}

int synth__stack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n)
{
	return put_stack(s, id, syms, n, 0);
}

int synth__kstack(struct synth *s, uint32_t id, const uint32_t *syms, uint16_t n)
{
	return put_stack(s, id, syms, n, XLP_STACK_KERNEL);
}

int synth__ksample(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time_ns,
		   uint64_t weight_ns, uint32_t ustack, uint32_t kstack, uint32_t reason)
{
	struct xlp_sample_rec r = {
		.pid = pid,
		.tid = tid,
		.time_ns = time_ns,
		.weight_ns = weight_ns,
		.kind = reason == XLP_C_CPU_RUN ? XLP_SAMPLE_ON_CPU : XLP_SAMPLE_OFF_CPU,
		.reason = reason,
		.ustack = ustack,
		.kstack = kstack,
	};

	return put(s, XLP_R_SAMPLE, &r.h, sizeof(r));
}

/* A sample with no kernel stack (id 0). */
int synth__sample(struct synth *s, uint32_t pid, uint32_t tid, uint64_t time_ns, uint64_t weight_ns,
		  uint32_t ustack, uint32_t reason)
{
	return synth__ksample(s, pid, tid, time_ns, weight_ns, ustack, 0, reason);
}

int synth__stats(struct synth *s, const uint64_t *stat, uint64_t lost)
{
	struct xlp_stats_rec r = {.lost_by_reader = lost};

	memcpy(r.stat, stat, sizeof(r.stat));
	return put(s, XLP_R_STATS, &r.h, sizeof(r));
}

int synth__finish(struct synth *s, int err)
{
	if (err) {
		synth__abort(s);
		return err;
	}
	return synth__close(s, NULL, 0);
}

int synth__close(struct synth *s, const uint64_t *stat, uint64_t lost)
{
	struct xlp_trace_footer f = {.end_ns = 9000000000ull, .stop_reason = XLP_STOP_SIGNAL};
	int err;

	if (stat)
		memcpy(f.stat, stat, sizeof(f.stat));
	f.stat[XLP_S_CALLS] += s->ncalls;
	f.lost_by_reader = lost;
	err = trace_writer__close(s->w, &f);
	free(s);
	return err;
}

int synth__flush(struct synth *s)
{
	return trace_writer__flush(s->w);
}

void synth__abort(struct synth *s)
{
	if (!s)
		return;
	trace_writer__abort(s->w);
	free(s);
}

void synth__counters(const struct synth_usage *u, uint64_t *ctr)
{
	uint64_t run = (uint64_t)llround(u->cpu_run);

	memset(ctr, 0, XLP_NR_CTR * sizeof(*ctr));
	ctr[XLP_C_CPU_RUN] = run;
	ctr[XLP_C_CPU_WAIT] = (uint64_t)llround(u->cpu_wait);
	ctr[XLP_C_DISK] = (uint64_t)llround(u->disk);
	ctr[XLP_C_NET] = (uint64_t)llround(u->net);
	ctr[XLP_C_IPC] = (uint64_t)llround(u->ipc);
	ctr[XLP_C_LOCK] = (uint64_t)llround(u->lock);
	ctr[XLP_C_TIMER] = (uint64_t)llround(u->timer);
	ctr[XLP_C_OTHER] = (uint64_t)llround(u->other);
	/* the recorder's invariant: SLEEP_S + SLEEP_D == the wait reasons */
	ctr[XLP_C_SLEEP_D] = ctr[XLP_C_DISK];
	ctr[XLP_C_SLEEP_S] = ctr[XLP_C_NET] + ctr[XLP_C_IPC] + ctr[XLP_C_LOCK] + ctr[XLP_C_TIMER] +
			     ctr[XLP_C_OTHER];
	ctr[XLP_C_WALL] = run + ctr[XLP_C_CPU_WAIT] + ctr[XLP_C_SLEEP_S] + ctr[XLP_C_SLEEP_D];
	ctr[XLP_C_FREQ_KHZ_NS] = (uint64_t)llround(u->khz * (double)run);
	ctr[XLP_C_NVCSW] = ctr[XLP_C_SLEEP_S] / 100000 + ctr[XLP_C_SLEEP_D] / 100000;
	ctr[XLP_C_NIVCSW] = ctr[XLP_C_CPU_WAIT] / 200000;
}

/* A command run in-process (xt_cmd), its output read back into out and err. */
static int run_cmd(int (*cmd)(int, char **), char **argv, char *out, size_t outlen, char *err,
		   size_t errlen, const char *arg, va_list ap)
{
	const char *o = xt_tmp_path("cmd.out"), *e = xt_tmp_path("cmd.err");
	int argc = 1, rc;

	for (const char *a = arg; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	argv[argc] = NULL;
	rc = xt_cmd(cmd, argc, argv, o, e);
	if (out && outlen)
		xt_read_file(o, out, outlen);
	if (err && errlen)
		xt_read_file(e, err, errlen);
	return rc;
}

/* synth__report and synth__dump: a command's name and function around run_cmd */
#define SYNTH_CMD(fn, cmd, name)                                                                   \
	int fn(char *out, size_t outlen, char *err, size_t errlen, const char *arg, ...)           \
	{                                                                                          \
		char *argv[64] = {name};                                                           \
		va_list ap;                                                                        \
		int rc;                                                                            \
                                                                                                   \
		va_start(ap, arg);                                                                 \
		rc = run_cmd(cmd, argv, out, outlen, err, errlen, arg, ap);                        \
		va_end(ap);                                                                        \
		return rc;                                                                         \
	}
SYNTH_CMD(synth__report, cmd_report, "report")
SYNTH_CMD(synth__dump, cmd_dump, "dump")

struct json *synth__report_json(const char *trace, const char *opt1, const char *opt2)
{
	const char *out = xt_tmp_path("report.json");
	char err[4096], jerr[256];
	struct json *j;
	int rc = synth__report(NULL, 0, err, sizeof(err), "--json", "-o", out, trace, opt1, opt2,
			       NULL);

	CHECK(rc == 0, "report exited %d: %s", rc, err);
	if (rc)
		return NULL;
	j = json__load(out, jerr, sizeof(jerr));
	CHECK(j, "report JSON: %s", jerr);
	return j;
}

static int tl_ev(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint32_t arg,
		 uint16_t detail, uint64_t t)
{
	struct xlp_sched_rec r = {
		.time_ns = t, .pid = pid, .tid = tid, .arg = arg, .kind = kind, .detail = detail};

	return put(s, XLP_R_SCHED, &r.h, sizeof(r));
}

int synth__sampling(struct synth *s, uint64_t start_ns, uint64_t end_ns, uint64_t period_ns,
		    uint64_t cost_ns, uint64_t on_samples, uint64_t off_captures)
{
	struct xlp_sampling_rec r = {.start_ns = start_ns,
				     .end_ns = end_ns,
				     .period_ns = period_ns,
				     .next_period_ns = period_ns,
				     .off_every = 1,
				     .next_off_every = 1,
				     .cost_ns = cost_ns,
				     .on_samples = on_samples,
				     .off_captures = off_captures};

	return put(s, XLP_R_SAMPLING, &r.h, sizeof(r));
}

int synth__sched(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint32_t arg,
		 uint16_t detail, uint64_t t)
{
	return tl_ev(s, kind, pid, tid, arg, detail, t);
}

int synth__task(struct synth *s, uint32_t pid, uint32_t tid, const char *comm)
{
	struct xlp_task_rec k = {.pid = pid, .tid = tid};

	strncpy(k.comm, comm, sizeof(k.comm) - 1);
	return put(s, XLP_R_TASK, &k.h, sizeof(k));
}

int synth__taskev(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid, uint64_t entry_ns,
		  uint64_t key, uint32_t func)
{
	struct xlp_taskev_rec k = {.pid = pid, .tid = tid, .entry_ns = entry_ns, .key = key};

	k.func_id = func;
	k.kind = kind;

	return put(s, XLP_R_TASKEV, &k.h, sizeof(k));
}

int synth__size(struct synth *s, uint32_t flags, uint32_t pid, uint64_t time_ns, uint64_t size)
{
	struct xlp_size_rec z = {.pid = pid, .time_ns = time_ns, .size = size, .flags = flags};

	return put(s, XLP_R_SIZE, &z.h, sizeof(z));
}

int synth__fork(struct synth *s, uint32_t pid, uint32_t ppid, uint64_t fork_ns, uint32_t flags)
{
	struct xlp_fork_rec f = {.pid = pid, .ppid = ppid, .fork_ns = fork_ns, .flags = flags};

	return put(s, XLP_R_FORK, &f.h, sizeof(f));
}

int synth__thief(struct synth *s, struct xlp_thief_rec *w)
{
	return put(s, XLP_R_THIEF, &w->h, sizeof(*w) + w->nthieves * sizeof(w->thieves[0]));
}

int synth__cpusched(struct synth *s, struct xlp_cpusched_rec *r)
{
	return put(s, XLP_R_CPUSCHED, &r->h, sizeof(*r));
}

int synth__timeline(const char *path)
{
	static const struct synth_func f[] = {{"/usr/bin/app", "on_click", true}};
	struct xlp_task_rec peer = {
		.h = {.type = XLP_R_TASK, .size = sizeof(peer)}, .pid = 30, .tid = 20};
	uint64_t c[XLP_NR_CTR];
	struct synth *s = NULL;
	int err = synth__open(path, XLP_FEAT_SYSCALLS | XLP_FEAT_TIMELINE, 0, f, 1, &s);

	if (err)
		return err;
	memcpy(peer.comm, "peer", 5);
	err |= trace_writer__append(s->w, &peer.h);
	err |= tl_ev(s, XLP_SCHED_FREQ, 1, 0, 2000000, 0, 500000000ull);
	for (uint64_t i = 0; i < 6; i++) {
		uint64_t t = (i + 1) * 1000000000ull, w = i == 5 ? 80000000 : 20000000;

		err |= tl_ev(s, XLP_SCHED_IN, 10, 10, 0, 0, t);
		err |= tl_ev(s, XLP_SCHED_OUT, 10, 10, 0, XLP_SCHED_SLEEP_S, t + 1000000);
		if (i == 2) {
			err |= tl_ev(s, XLP_SCHED_BLOCK_ISSUE, 0, 10, 4096, 0, t + 1000100);
			err |= tl_ev(s, XLP_SCHED_BLOCK_DONE, 0, 10, 4096, 0, t + 5000000);
		}
		err |= tl_ev(s, XLP_SCHED_WAKEUP, 10, 10, 20, XLP_C_IPC, t + 1000000 + w);
		err |= tl_ev(s, XLP_SCHED_IN, 10, 10, 0, 0, t + 1100000 + w);
		err |= tl_ev(s, XLP_SCHED_OUT, 10, 10, 0, XLP_SCHED_RUNNABLE, t + 2000000 + w);
		synth__counters(&(struct synth_usage){.cpu_run = 2000000, .ipc = (double)w}, c);
		err |= synth__call(s, 0, 10, 10, 0, t, c, NULL, 0, NULL);
	}
	/* the CPU's other switches (bpf/cpusched.bpf.c): a wakeup, a switch, a fork */
	for (uint32_t k = 1; k <= 3; k++) {
		struct xlp_cpusched_rec r = {
			.h.cpu = 1,
			.time_ns = 6500000000ull + k * 1000,
			.kind = k,
			.arg = k == XLP_CPUS_SWITCH ? 1 : 0,
			.a = {.tid = 10, .pid = 10, .prio = 120, .comm = "app"},
			.b = {.tid = 20, .pid = 30, .prio = 120, .comm = "peer"}};

		err |= synth__cpusched(s, &r);
	}
	err |= tl_ev(s, 99, 10, 10, 0, 0, 7000000000ull);
	err |= tl_ev(s, XLP_SCHED_OUT, 40, 40, 0, 77, 7100000000ull);
	err |= synth__close(s, NULL, 0);
	return err ? -EIO : 0;
}

const struct synth_func synth_event_funcs[SYNTH_EV_NFUNCS] = {
	[SYNTH_EV_ON_EVENT] = {"/usr/bin/app", "on_event", true},
	[SYNTH_EV_RENDER] = {"/usr/bin/app", "render", false},
	[SYNTH_EV_LOAD] = {"/usr/bin/app", "load", false},
};

int synth__event(struct synth *s, uint64_t t, const struct synth_usage *render,
		 const struct synth_usage *load, bool run)
{
	uint64_t c[XLP_NR_CTR], r[XLP_NR_CTR], l[XLP_NR_CTR];
	int err = 0;

	synth__counters(render, r);
	synth__counters(load, l);
	for (int k = 0; k < XLP_NR_CTR; k++)
		c[k] = r[k] + l[k];
	err |= synth__call(s, SYNTH_EV_RENDER, 10, 10, 1, t, r, NULL, 0, NULL);
	err |= synth__call(s, SYNTH_EV_LOAD, 10, 10, 1, t + r[XLP_C_WALL], l, NULL, 0, NULL);
	err |= synth__call(s, SYNTH_EV_ON_EVENT, 10, 10, 0, t, c, NULL, 0, NULL);
	if (run)
		err |= synth__run(s, SYNTH_EV_ON_EVENT, 10, 10, t, c);
	return err;
}
