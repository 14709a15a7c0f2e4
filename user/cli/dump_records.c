/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe dump: the fields of each record type (dump.h), every one of them,
 * and of a type this xlprobe does not know its type and size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "demangle.h"
#include "dump.h"
#include "escape.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void field_func(struct dump *d, uint32_t id)
{
	const struct xlp_trace_meta *m = d->meta;

	dump__u64(d, "func", id);
	if (id < m->nfuncs)
		dump__cstr(d, "sym", m->funcs[id].symbol);
}

static void field_comm(struct dump *d, const char *name, const char *comm)
{
	dump__str(d, name, comm, strnlen(comm, XLP_COMM_LEN));
}

static void rec_call(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_call_rec *r = (const void *)h;

	field_func(d, r->func_id);
	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__u64(d, "depth", r->depth);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_CALL);
	dump__u64(d, "entry_ns", r->entry_ns);
	dump__u64(d, "ipc_peer_pid", r->ipc_peer_pid);
	field_comm(d, "ipc_peer_comm", r->ipc_peer_comm);
	dump__ctrs(d, "incl", r->incl);
	dump__ctrs(d, "excl", r->excl);
}

static void rec_run(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_run_rec *r = (const void *)h;

	field_func(d, r->func_id);
	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__u64(d, "entry_ns", r->entry_ns);
	dump__ctrs(d, "proc", r->proc);
}

static void rec_thread(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_thread_rec *r = (const void *)h;

	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_THREAD);
	dump__u64(d, "first_ns", r->first_ns);
	dump__u64(d, "last_ns", r->last_ns);
	field_comm(d, "comm", r->comm);
	dump__ctrs(d, "tot", r->tot);
}

static void rec_proc(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_proc_rec *r = (const void *)h;

	dump__u64(d, "pid", r->pid);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_THREAD);
	dump__u64(d, "first_ns", r->first_ns);
	dump__u64(d, "last_ns", r->last_ns);
	field_comm(d, "comm", r->comm);
	dump__ctrs(d, "tot", r->tot);
}

static void rec_launch(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_launch_rec *r = (const void *)h;

	dump__u64(d, "run", r->run);
	dump__u64(d, "pid", r->pid);
	dump__s64(d, "exit_code", r->exit_code);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_LAUNCH);
	dump__u64(d, "start_ns", r->start_ns);
	dump__u64(d, "end_ns", r->end_ns);
}

static void rec_fork(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_fork_rec *r = (const void *)h;

	dump__u64(d, "pid", r->pid);
	dump__u64(d, "ppid", r->ppid);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_FORK);
	dump__u64(d, "fork_ns", r->fork_ns);
	dump__u64(d, "probed_ns", r->probed_ns);
}

static void rec_stats(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_stats_rec *r = (const void *)h;

	uint64_t stat[XLP_NR_STAT];

	for (int i = 0; i < XLP_NR_STAT; i++)
		stat[i] = r->stat[i];
	dump__stats(d, stat);
	dump__u64(d, "lost_by_reader", r->lost_by_reader);
}

static void rec_sample(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sample_rec *r = (const void *)h;

	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__cstr(d, "kind",
		   r->kind == XLP_SAMPLE_ON_CPU	   ? "on_cpu"
		   : r->kind == XLP_SAMPLE_OFF_CPU ? "off_cpu"
						   : "unknown");
	/* the wait's counter; traces from before off-CPU samples hold 0 for on-CPU */
	if (r->kind == XLP_SAMPLE_OFF_CPU)
		dump__cstr(d, "reason",
			   r->reason < XLP_NR_CTR && xlp_ctr_names[r->reason]
				   ? xlp_ctr_names[r->reason]
				   : "unknown");
	dump__u64(d, "time_ns", r->time_ns);
	dump__u64(d, "weight_ns", r->weight_ns);
	/* the trace's stack ids + 1, 0 for none (then the error says why) */
	dump__u64(d, "ustack", r->ustack);
	dump__s64(d, "ustack_err", r->ustack_err);
	dump__u64(d, "kstack", r->kstack);
	dump__s64(d, "kstack_err", r->kstack_err);
}

static void rec_sampling(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sampling_rec *r = (const void *)h;

	dump__u64(d, "start_ns", r->start_ns);
	dump__u64(d, "end_ns", r->end_ns);
	dump__u64(d, "period_ns", r->period_ns);
	dump__u64(d, "next_period_ns", r->next_period_ns);
	dump__u64(d, "cost_ns", r->cost_ns);
	dump__u64(d, "on_samples", r->on_samples);
	dump__u64(d, "off_captures", r->off_captures);
	dump__u64(d, "off_samples", r->off_samples);
	dump__u64(d, "cpu_ns", r->cpu_ns);
	dump__u64(d, "bound_ppm", r->bound_ppm);
	dump__u64(d, "off_every", r->off_every);
	dump__u64(d, "next_off_every", r->next_off_every);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_SAMPLING);
}

static void rec_stack(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_stack_rec *r = (const void *)h;
	size_t room = (h->size - sizeof(*r)) / sizeof(r->frames[0]), n = r->nframes, used = 0;
	char buf[XLP_STACK_DEPTH * 2 * 24 + 32];

	dump__u64(d, "id", r->id);
	dump__flags(d, "flags", r->flags & ~(XLP_STACK_METHOD_MASK | XLP_STACK_STOP_MASK),
		    TRACE_FLAGS_STACK);
	/* how a user stack was unwound and why it stopped (user/symbols/stack_unwind.c) */
	if (!(r->flags & XLP_STACK_KERNEL)) {
		dump__cstr(d, "unwound",
			   trace__unwind_method_name((r->flags & XLP_STACK_METHOD_MASK) >>
						     XLP_STACK_METHOD_SHIFT));
		dump__cstr(d, "stopped",
			   trace__unwind_stop_name((r->flags & XLP_STACK_STOP_MASK) >>
						   XLP_STACK_STOP_SHIFT));
	}
	dump__u64(d, "nframes", r->nframes);
	/* untrusted: never past the record, never past the buffer */
	if (n > room) {
		dump__cstr(d, "frames", "(malformed: more frames than the record holds)");
		return;
	}
	buf[0] = 0;
	for (size_t i = 0; i < n && used + 48 < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%u+0x%llx",
					 i ? " " : "", r->frames[i].sym,
					 (unsigned long long)r->frames[i].offset);
	dump__cstr(d, "frames", buf); /* symbol id + offset, innermost first */
}

/*
 * dump is the raw view: names as the trace holds them (name=, sym=,
 * symbol=), and beside a mangled one its demangled form (demangled=), the
 * name every other output prints.
 */
static void demangled(struct dump *d, const char *s, size_t n)
{
	char raw[DEMANGLE_MAX_IN + 1], out[DEMANGLE_MAX_OUT];

	if (n > DEMANGLE_MAX_IN || memchr(s, 0, n))
		return;
	memcpy(raw, s, n);
	raw[n] = 0;
	if (demangle__name(raw, out, sizeof(out)))
		dump__cstr(d, "demangled", out);
}

static void rec_sym(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sym_rec *r = (const void *)h;
	const char *src;

	dump__u64(d, "id", r->id);
	dump__u64(d, "kind", r->kind);
	if ((size_t)r->module_len + r->name_len > h->size - sizeof(*r)) {
		dump__cstr(d, "name", "(malformed: text longer than the record)");
		return;
	}
	dump__str(d, "module", r->text, r->module_len);
	dump__str(d, "name", r->text + r->module_len, r->name_len);
	/* 0: a trace older than the field, or a frame nothing named */
	src = trace__sym_source_name(r->source);
	if (src)
		dump__cstr(d, "source", src);
	else
		dump__u64(d, "source", r->source);
	demangled(d, r->text + r->module_len, r->name_len);
}

static void rec_sched(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sched_rec *r = (const void *)h;
	const char *kind = trace__sched_kind_name(r->kind), *state;

	if (kind)
		dump__cstr(d, "kind", kind);
	else
		dump__u64(d, "kind", r->kind);
	dump__u64(d, "time_ns", r->time_ns);
	dump__u64(d, r->kind == XLP_SCHED_FREQ ? "cpu_id" : "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	switch (r->kind) {
	case XLP_SCHED_OUT:
		state = trace__sched_state_name(r->detail);
		if (state)
			dump__cstr(d, "state", state);
		else
			dump__u64(d, "state", r->detail);
		break;
	case XLP_SCHED_WAKEUP:
		dump__u64(d, "waker_tid", r->arg);
		/* 0: not known (a thread woke it: its own reason is the waker's) */
		if (!r->detail)
			dump__cstr(d, "reason", "unknown");
		else if (r->detail < XLP_NR_CTR)
			dump__cstr(d, "reason", xlp_ctr_names[r->detail]);
		else
			dump__u64(d, "reason", r->detail);
		break;
	case XLP_SCHED_BLOCK_ISSUE:
	case XLP_SCHED_BLOCK_DONE:
		dump__u64(d, "bytes", r->arg);
		break;
	case XLP_SCHED_FREQ:
		dump__u64(d, "khz", r->arg);
		break;
	}
}

static void rec_task(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_task_rec *r = (const void *)h;

	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	field_comm(d, "comm", r->comm);
}

/* cpusched: a switch, wakeup or new task of any thread on a traced CPU */
static void rec_cpusched(struct dump *d, const struct xlp_hdr *h)
{
	static const char *const kinds[][3] = {
		[XLP_CPUS_SWITCH] = {"switch", "prev", "next"},
		[XLP_CPUS_WAKING] = {"waking", "waker", "woken"},
		[XLP_CPUS_NEWTASK] = {"newtask", "parent", "child"},
	};
	const struct xlp_cpusched_rec *r = (const void *)h;
	const char *const *k =
		r->kind < ARRAY_SIZE(kinds) && kinds[r->kind][0] ? kinds[r->kind] : NULL;
	char name[32];

	if (k)
		dump__cstr(d, "kind", k[0]);
	else
		dump__u64(d, "kind", r->kind);
	dump__u64(d, "time_ns", r->time_ns);
	for (int i = 0; i < 2; i++) {
		const struct xlp_cpusched_task *t = i ? &r->b : &r->a;
		const char *who = k ? k[1 + i] : i ? "b" : "a";

		snprintf(name, sizeof(name), "%s_tid", who);
		dump__u64(d, name, t->tid);
		snprintf(name, sizeof(name), "%s_pid", who);
		dump__u64(d, name, t->pid);
		snprintf(name, sizeof(name), "%s_prio", who);
		dump__s64(d, name, t->prio);
		snprintf(name, sizeof(name), "%s_comm", who);
		field_comm(d, name, t->comm);
	}
	dump__u64(d,
		  r->kind == XLP_CPUS_SWITCH   ? "prev_state"
		  : r->kind == XLP_CPUS_WAKING ? "target_cpu"
					       : "clone_flags",
		  r->arg);
}

static void rec_taskev(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_taskev_rec *r = (const void *)h;

	dump__cstr(d, "kind",
		   r->kind == XLP_TASKEV_POST	 ? "post"
		   : r->kind == XLP_TASKEV_RUN	 ? "run"
		   : r->kind == XLP_TASKEV_BEGIN ? "begin"
		   : r->kind == XLP_TASKEV_END	 ? "end"
		   : r->kind == XLP_TASKEV_SIZE	 ? "size"
						 : "unknown");
	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__u64(d, "entry_ns", r->entry_ns);
	dump__u64(d, "key", r->key);
	dump__u64(d, "func_id", r->func_id);
	dump__u64(d, "arg", r->arg);
}

static void rec_size(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_size_rec *r = (const void *)h;

	dump__u64(d, "size", r->size);
	dump__flags(d, "flags", r->flags, TRACE_FLAGS_SIZE);
	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__u64(d, "run", r->run);
	dump__u64(d, "time_ns", r->time_ns);
}

/* record --lag: what the recorder wrote of the runs, and left out */
static void rec_lag(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_lag_rec *r = (const void *)h;

	dump__u64(d, "threshold_ns", r->threshold_ns);
	dump__u64(d, "keep", r->keep);
	dump__u64(d, "runs", r->runs);
	dump__u64(d, "lagging", r->lagging);
	dump__u64(d, "sampled", r->sampled);
	dump__u64(d, "summarized", r->summarized);
	dump__u64(d, "written_through", r->written_through);
	dump__u64(d, "records_left_out", r->records_left_out);
	dump__u64(d, "bytes_left_out", r->bytes_left_out);
	dump__u64(d, "spills", r->spills);
}

/* who held the CPU while a traced thread waited for it */
static void rec_thief(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_thief_rec *r = (const void *)h;
	uint32_t n = xlp_thief_count(r);

	dump__u64(d, "pid", r->pid);
	dump__u64(d, "tid", r->tid);
	dump__u64(d, "end_ns", r->end_ns);
	dump__u64(d, "wait_ns", r->wait_ns);
	dump__u64(d, "here_ns", r->here_ns);
	dump__u64(d, "idle_ns", r->idle_ns);
	dump__u64(d, "irq_ns", r->irq_ns);
	dump__u64(d, "steal_ns", r->steal_ns);
	dump__u64(d, "other_ns", r->other_ns);
	dump__u64(d, "unlogged_ns", r->unlogged_ns);
	if (d->json)
		jsonw__begin_arr(&d->jw, "thieves");
	for (uint32_t i = 0; i < n; i++) {
		const struct xlp_thief *x = &r->thieves[i];

		if (d->json)
			jsonw__begin_obj(&d->jw, NULL);
		else
			fprintf(d->out, " thief%u[", i);
		dump__u64(d, "tid", x->tid);
		dump__u64(d, "pid", x->pid);
		dump__str(d, "comm", x->comm, strnlen(x->comm, sizeof(x->comm)));
		dump__u64(d, "ns", x->ns);
		dump__flags(d, "flags", x->flags, TRACE_FLAGS_THIEF);
		if (d->json)
			jsonw__end_obj(&d->jw);
		else
			fputs(" ]", d->out);
	}
	if (d->json)
		jsonw__end_arr(&d->jw);
}

/* marker: specs: the trace-marker lines seen, and those skipped by reason */
static void rec_marker(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_marker_rec *r = (const void *)h;

	dump__u64(d, "lines", r->lines);
	dump__u64(d, "sections", r->sections);
	for (int i = 0; i < XLP_MARKER_NR_SKIP; i++)
		dump__u64(d, xlp_marker_skip_names[i], r->skip[i]);
}

struct rec_kind {
	const char *name;
	size_t size;
	void (*print)(struct dump *d, const struct xlp_hdr *h);
};

static const struct rec_kind kinds[] = {
	[XLP_R_CALL] = {"call", sizeof(struct xlp_call_rec), rec_call},
	[XLP_R_RUN] = {"run", sizeof(struct xlp_run_rec), rec_run},
	[XLP_R_THREAD] = {"thread", sizeof(struct xlp_thread_rec), rec_thread},
	[XLP_R_PROC] = {"proc", sizeof(struct xlp_proc_rec), rec_proc},
	[XLP_R_LAUNCH] = {"launch", sizeof(struct xlp_launch_rec), rec_launch},
	[XLP_R_STATS] = {"stats", sizeof(struct xlp_stats_rec), rec_stats},
	[XLP_R_FORK] = {"fork", sizeof(struct xlp_fork_rec), rec_fork},
	[XLP_R_SAMPLE] = {"sample", sizeof(struct xlp_sample_rec), rec_sample},
	[XLP_R_STACK] = {"stack", sizeof(struct xlp_stack_rec), rec_stack},
	[XLP_R_SYM] = {"sym", sizeof(struct xlp_sym_rec), rec_sym},
	[XLP_R_SAMPLING] = {"sampling", sizeof(struct xlp_sampling_rec), rec_sampling},
	[XLP_R_SCHED] = {"sched", sizeof(struct xlp_sched_rec), rec_sched},
	[XLP_R_TASK] = {"task", sizeof(struct xlp_task_rec), rec_task},
	[XLP_R_TASKEV] = {"taskev", sizeof(struct xlp_taskev_rec), rec_taskev},
	[XLP_R_SIZE] = {"size", sizeof(struct xlp_size_rec), rec_size},
	[XLP_R_LAG] = {"lag", sizeof(struct xlp_lag_rec), rec_lag},
	[XLP_R_THIEF] = {"thief", sizeof(struct xlp_thief_rec), rec_thief},
	[XLP_R_MARKER] = {"marker", sizeof(struct xlp_marker_rec), rec_marker},
	[XLP_R_CPUSCHED] = {"cpusched", sizeof(struct xlp_cpusched_rec), rec_cpusched},
};

void dump__record(struct dump *d, const struct xlp_hdr *h)
{
	const struct rec_kind *k = h->type < ARRAY_SIZE(kinds) ? &kinds[h->type] : NULL;

	d->nrec++;
	/* the reader guarantees the size of known types; check anyway */
	if (!k || !k->name || h->size < k->size) {
		if (!d->json) {
			fprintf(d->out, "unknown record type %u (size %u)\n", h->type, h->size);
			return;
		}
		jsonw__begin_obj(&d->jw, NULL);
		jsonw__str(&d->jw, "type", "unknown");
		jsonw__uint(&d->jw, "type_id", h->type);
		jsonw__uint(&d->jw, "size", h->size);
		jsonw__end_obj(&d->jw);
		return;
	}
	if (d->json) {
		jsonw__begin_obj(&d->jw, NULL);
		jsonw__str(&d->jw, "type", k->name);
		jsonw__uint(&d->jw, "cpu", h->cpu);
	} else {
		fprintf(d->out, "%s cpu=%u", k->name, h->cpu);
	}
	k->print(d, h);
	if (d->json)
		jsonw__end_obj(&d->jw);
	else
		fputs("\n", d->out);
}
