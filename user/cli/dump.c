/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe dump: every record of a trace file, as text or one JSON document.
 * Meant for debugging the recorder and for scripts, so it prints all the
 * fields and keeps going past anything it does not understand.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "demangle.h"
#include "escape.h"
#include "jsonw.h"
#include "log.h"
#include "trace.h"
#include "stack_unwind.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char usage[] =
	"Usage: xlprobe dump FILE [--json]\n"
	"\n"
	"Prints everything an xlprobe trace file holds, for debugging and scripts.\n"
	"\n"
	"Text output (the default) has four parts:\n"
	"  header   format version, host, kernel, CPUs, kernel features seen, start\n"
	"           time, target, and the function table (id, binary, symbol, file\n"
	"           offset, build-id, flags)\n"
	"  records  one line per record: its type and every field; counters are\n"
	"           shown as name=value, only the non-zero ones\n"
	"  footer   end time, record and chunk totals, stop reason, and every\n"
	"           BPF-side counter by name\n"
	"  status   complete; truncated when the recording did not finish; or\n"
	"           damaged, with a damage line saying what is missing or was\n"
	"           skipped (\"chunks 4-5 missing (lost 2 chunks)\")\n"
	"Strings from the file are quoted, control characters escaped (\\x1b).\n"
	"\n"
	"Options:\n"
	"  --json       print one JSON document instead:\n"
	"                 {\"meta\":{...}, \"records\":[...], \"footer\":{...} or null,\n"
	"                  \"status\":\"complete\"|\"truncated\"|\"damaged\", \"bad_chunks\":N,\n"
	"                  \"damage\":\"...\" or null, \"integrity\":{...}}\n"
	"               every counter is present in every record, zero or not;\n"
	"               always valid UTF-8 (U+FFFD for bytes that are not)\n"
	"  -h, --help   print this help and exit\n"
	"\n"
	"Counters (wall to other are ns, freq_khz_ns is kHz x ns, the rest counts):\n"
	"  wall cpu_run cpu_wait sleep_s sleep_d disk net ipc lock timer other\n"
	"  freq_khz_ns nvcsw nivcsw migrations disk_rq disk_bytes binder_txn\n"
	"BPF-side statistics:\n"
	"  rb_full stack_overflow stack_mismatch min_dur threads_full procs_full\n"
	"  sched_events calls unknown_state unfinished sched_missed\n"
	"  launch_untimed (counted by the recorder: launches whose exec or exit\n"
	"  the kernel did not time)\n"
	"\n"
	"A truncated file (the recorder was killed, or the disk filled up) is\n"
	"dumped up to its last whole chunk. A damaged chunk is skipped and the\n"
	"dump goes on with the next one; a chunk read already (a duplicate) or\n"
	"coming after a later one is skipped too, and the footer's counts are\n"
	"checked. Records of a type this xlprobe does not know are shown as\n"
	"\"unknown record type T (size S)\".\n"
	"\n"
	"Exit status:\n"
	"  0  the whole file was read (a truncated file gives a warning, still 0)\n"
	"  1  the file is missing, not an xlprobe trace, has a damaged header, or\n"
	"     is damaged (chunks damaged, missing, duplicated or out of order,\n"
	"     or counts that differ from the footer's); or the output failed\n"
	"  2  usage error\n"
	"\n"
	"Examples:\n"
	"  xlprobe dump session.xlp | less\n"
	"  xlprobe dump session.xlp --json | jq '.records[] | select(.type == \"call\")'\n";

struct flag_name {
	uint32_t bit;
	const char *name;
};

static const struct flag_name feat_names[] = {
	{XLP_FEAT_BTF, "btf"},		 {XLP_FEAT_SCHED, "sched"},
	{XLP_FEAT_UPROBES, "uprobes"},	 {XLP_FEAT_CPUFREQ, "cpufreq"},
	{XLP_FEAT_BINDER, "binder"},	 {XLP_FEAT_BLOCK, "block"},
	{XLP_FEAT_SYSCALLS, "syscalls"}, {XLP_FEAT_DELAYACCT, "delayacct"},
	{XLP_FEAT_SAMPLE, "sample"},	 {XLP_FEAT_TIMELINE, "timeline"},
	{XLP_FEAT_PREWAKE, "prewake"},
};

static const struct flag_name func_flag_names[] = {
	{XLP_FUNC_INTERACTION, "interaction"},
	{XLP_FUNC_SIZE, "size"},
	{XLP_FUNC_MARKER, "marker"},
};

static const struct flag_name call_flag_names[] = {
	{XLP_CALL_INTERACTION, "interaction"},
	{XLP_CALL_IPC_PEER, "ipc_peer"},
	{XLP_CALL_SUMMARY, "summary"},
	{XLP_CALL_ASYNC, "async"},
};

static const struct flag_name launch_flag_names[] = {
	{XLP_LAUNCH_EXEC_TIME, "exec_time"},
	{XLP_LAUNCH_EXIT_TIME, "exit_time"},
};

static const struct flag_name thread_flag_names[] = {
	{XLP_THREAD_EXITED, "exited"},
	{XLP_THREAD_AT_STOP, "at_stop"},
	{XLP_THREAD_PARTIAL, "partial"},
};

struct dump {
	FILE *out;
	bool json;
	struct jsonw jw;
	const struct xlp_trace_meta *meta;
	uint64_t nrec;
};

/* ---- fields: "name=value" in text, "name":value in JSON ---- */

static void field_u64(struct dump *d, const char *name, uint64_t v)
{
	if (d->json)
		jsonw__uint(&d->jw, name, v);
	else
		fprintf(d->out, " %s=%" PRIu64, name, v);
}

static void field_s64(struct dump *d, const char *name, int64_t v)
{
	if (d->json)
		jsonw__int(&d->jw, name, v);
	else
		fprintf(d->out, " %s=%" PRId64, name, v);
}

/* Strings come from the file: escaped for the terminal, or for JSON. */
static void field_str(struct dump *d, const char *name, const char *s, size_t n)
{
	if (d->json) {
		jsonw__strn(&d->jw, name, s, n);
		return;
	}
	fprintf(d->out, " %s=\"", name);
	xlp_fput_text(d->out, s, n, true);
	fputc('"', d->out);
}

static void field_cstr(struct dump *d, const char *name, const char *s)
{
	field_str(d, name, s ? s : "", s ? strlen(s) : 0);
}

/* Flags as names ("a|b" in text, ["a","b"] in JSON); unknown bits in hex. */
static void field_flags(struct dump *d, const char *name, uint32_t v, const struct flag_name *names,
			size_t nnames)
{
	bool first = true;
	char hex[16];

	if (d->json)
		jsonw__begin_arr(&d->jw, name);
	else if (name)
		fprintf(d->out, " %s=", name);
	for (size_t i = 0; i < nnames; i++) {
		if (!(v & names[i].bit))
			continue;
		if (d->json)
			jsonw__str(&d->jw, NULL, names[i].name);
		else
			fprintf(d->out, "%s%s", first ? "" : "|", names[i].name);
		first = false;
		v &= ~names[i].bit;
	}
	snprintf(hex, sizeof(hex), "0x%x", v);
	if (v && d->json)
		jsonw__str(&d->jw, NULL, hex);
	else if (v)
		fprintf(d->out, "%s%s", first ? "" : "|", hex);
	else if (first && !d->json)
		fputs("0", d->out);
	if (d->json)
		jsonw__end_arr(&d->jw);
}

/* Counters: the non-zero ones in text, all named ones in JSON (stable keys). */
static void field_ctrs(struct dump *d, const char *name, const __u64 *c)
{
	bool first = true;
	char cname[16];

	if (d->json)
		jsonw__begin_obj(&d->jw, name);
	else
		fprintf(d->out, " %s[", name);
	for (int i = 0; i < XLP_NR_CTR; i++) {
		if (!c[i] && (!d->json || !xlp_ctr_names[i]))
			continue;
		if (xlp_ctr_names[i])
			snprintf(cname, sizeof(cname), "%s", xlp_ctr_names[i]);
		else
			snprintf(cname, sizeof(cname), "ctr%d", i);
		if (d->json)
			jsonw__uint(&d->jw, cname, c[i]);
		else
			fprintf(d->out, "%s%s=%" PRIu64, first ? "" : " ", cname, (uint64_t)c[i]);
		first = false;
	}
	if (d->json)
		jsonw__end_obj(&d->jw);
	else
		fputs("]", d->out);
}

/* Every named statistic, and reserved ones when they are set. */
static void field_stats(struct dump *d, const uint64_t *stat)
{
	char name[16];

	for (int i = 0; i < XLP_NR_STAT; i++) {
		if (xlp_stat_names[i])
			field_u64(d, xlp_stat_names[i], stat[i]);
		else if (stat[i] && snprintf(name, sizeof(name), "stat%d", i) > 0)
			field_u64(d, name, stat[i]);
	}
}

/* ---- records ---- */

static void field_func(struct dump *d, uint32_t id)
{
	const struct xlp_trace_meta *m = d->meta;

	field_u64(d, "func", id);
	if (id < m->nfuncs)
		field_cstr(d, "sym", m->funcs[id].symbol);
}

static void field_comm(struct dump *d, const char *name, const char *comm)
{
	field_str(d, name, comm, strnlen(comm, XLP_COMM_LEN));
}

static void rec_call(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_call_rec *r = (const void *)h;

	field_func(d, r->func_id);
	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_u64(d, "depth", r->depth);
	field_flags(d, "flags", r->flags, call_flag_names, ARRAY_SIZE(call_flag_names));
	field_u64(d, "entry_ns", r->entry_ns);
	field_u64(d, "ipc_peer_pid", r->ipc_peer_pid);
	field_comm(d, "ipc_peer_comm", r->ipc_peer_comm);
	field_ctrs(d, "incl", r->incl);
	field_ctrs(d, "excl", r->excl);
}

static void rec_run(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_run_rec *r = (const void *)h;

	field_func(d, r->func_id);
	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_u64(d, "entry_ns", r->entry_ns);
	field_ctrs(d, "proc", r->proc);
}

static void rec_thread(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_thread_rec *r = (const void *)h;

	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_flags(d, "flags", r->flags, thread_flag_names, ARRAY_SIZE(thread_flag_names));
	field_u64(d, "first_ns", r->first_ns);
	field_u64(d, "last_ns", r->last_ns);
	field_comm(d, "comm", r->comm);
	field_ctrs(d, "tot", r->tot);
}

static void rec_proc(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_proc_rec *r = (const void *)h;

	field_u64(d, "pid", r->pid);
	field_flags(d, "flags", r->flags, thread_flag_names, ARRAY_SIZE(thread_flag_names));
	field_u64(d, "first_ns", r->first_ns);
	field_u64(d, "last_ns", r->last_ns);
	field_comm(d, "comm", r->comm);
	field_ctrs(d, "tot", r->tot);
}

static void rec_launch(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_launch_rec *r = (const void *)h;

	field_u64(d, "run", r->run);
	field_u64(d, "pid", r->pid);
	field_s64(d, "exit_code", r->exit_code);
	field_flags(d, "flags", r->flags, launch_flag_names, ARRAY_SIZE(launch_flag_names));
	field_u64(d, "start_ns", r->start_ns);
	field_u64(d, "end_ns", r->end_ns);
}

static const struct flag_name fork_flag_names[] = {
	{XLP_FORK_PROBED, "probed"},
	{XLP_FORK_PROBED_ALREADY, "probed_already"},
	{XLP_FORK_GONE, "gone"},
	{XLP_FORK_PROBE_FAILED, "probe_failed"},
};

static void rec_fork(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_fork_rec *r = (const void *)h;

	field_u64(d, "pid", r->pid);
	field_u64(d, "ppid", r->ppid);
	field_flags(d, "flags", r->flags, fork_flag_names, ARRAY_SIZE(fork_flag_names));
	field_u64(d, "fork_ns", r->fork_ns);
	field_u64(d, "probed_ns", r->probed_ns);
}

static void rec_stats(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_stats_rec *r = (const void *)h;

	uint64_t stat[XLP_NR_STAT];

	for (int i = 0; i < XLP_NR_STAT; i++)
		stat[i] = r->stat[i];
	field_stats(d, stat);
	field_u64(d, "lost_by_reader", r->lost_by_reader);
}

static const struct flag_name stack_flag_names[] = {
	{XLP_STACK_KERNEL, "kernel"},
	{XLP_STACK_FULL, "full"},
};

static void rec_sample(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sample_rec *r = (const void *)h;

	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_cstr(d, "kind",
		   r->kind == XLP_SAMPLE_ON_CPU	   ? "on_cpu"
		   : r->kind == XLP_SAMPLE_OFF_CPU ? "off_cpu"
						   : "unknown");
	/* the wait's counter; traces from before off-CPU samples hold 0 for on-CPU */
	if (r->kind == XLP_SAMPLE_OFF_CPU)
		field_cstr(d, "reason",
			   r->reason < XLP_NR_CTR && xlp_ctr_names[r->reason]
				   ? xlp_ctr_names[r->reason]
				   : "unknown");
	field_u64(d, "time_ns", r->time_ns);
	field_u64(d, "weight_ns", r->weight_ns);
	/* the trace's stack ids + 1, 0 for none (then the error says why) */
	field_u64(d, "ustack", r->ustack);
	field_s64(d, "ustack_err", r->ustack_err);
	field_u64(d, "kstack", r->kstack);
	field_s64(d, "kstack_err", r->kstack_err);
}

static const struct flag_name sampling_flag_names[] = {
	{XLP_SAMPLING_LAST, "last"},
	{XLP_SAMPLING_OVER, "over"},
};

static void rec_sampling(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sampling_rec *r = (const void *)h;

	field_u64(d, "start_ns", r->start_ns);
	field_u64(d, "end_ns", r->end_ns);
	field_u64(d, "period_ns", r->period_ns);
	field_u64(d, "next_period_ns", r->next_period_ns);
	field_u64(d, "cost_ns", r->cost_ns);
	field_u64(d, "on_samples", r->on_samples);
	field_u64(d, "off_captures", r->off_captures);
	field_u64(d, "off_samples", r->off_samples);
	field_u64(d, "cpu_ns", r->cpu_ns);
	field_u64(d, "bound_ppm", r->bound_ppm);
	field_u64(d, "off_every", r->off_every);
	field_u64(d, "next_off_every", r->next_off_every);
	field_flags(d, "flags", r->flags, sampling_flag_names, ARRAY_SIZE(sampling_flag_names));
}

static void rec_stack(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_stack_rec *r = (const void *)h;
	size_t room = (h->size - sizeof(*r)) / sizeof(r->frames[0]), n = r->nframes, used = 0;
	char buf[XLP_STACK_DEPTH * 2 * 24 + 32];

	field_u64(d, "id", r->id);
	field_flags(d, "flags", r->flags & ~(XLP_STACK_METHOD_MASK | XLP_STACK_STOP_MASK),
		    stack_flag_names, ARRAY_SIZE(stack_flag_names));
	/* how a user stack was unwound and why it stopped (user/symbols/stack_unwind.h) */
	if (!(r->flags & XLP_STACK_KERNEL)) {
		field_cstr(d, "unwound",
			   unwind__method_name((r->flags & XLP_STACK_METHOD_MASK) >>
					       XLP_STACK_METHOD_SHIFT));
		field_cstr(d, "stopped",
			   unwind__stop_name((r->flags & XLP_STACK_STOP_MASK) >>
					     XLP_STACK_STOP_SHIFT));
	}
	field_u64(d, "nframes", r->nframes);
	/* untrusted: never past the record, never past the buffer */
	if (n > room) {
		field_cstr(d, "frames", "(malformed: more frames than the record holds)");
		return;
	}
	buf[0] = 0;
	for (size_t i = 0; i < n && used + 48 < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%u+0x%llx",
					 i ? " " : "", r->frames[i].sym,
					 (unsigned long long)r->frames[i].offset);
	field_cstr(d, "frames", buf); /* symbol id + offset, innermost first */
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
		field_cstr(d, "demangled", out);
}

static void rec_sym(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sym_rec *r = (const void *)h;
	const char *src;

	field_u64(d, "id", r->id);
	field_u64(d, "kind", r->kind);
	if ((size_t)r->module_len + r->name_len > h->size - sizeof(*r)) {
		field_cstr(d, "name", "(malformed: text longer than the record)");
		return;
	}
	field_str(d, "module", r->text, r->module_len);
	field_str(d, "name", r->text + r->module_len, r->name_len);
	/* 0: a trace older than the field, or a frame nothing named */
	src = trace__sym_source_name(r->source);
	if (src)
		field_cstr(d, "source", src);
	else
		field_u64(d, "source", r->source);
	demangled(d, r->text + r->module_len, r->name_len);
}

static void rec_sched(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_sched_rec *r = (const void *)h;
	const char *kind = trace__sched_kind_name(r->kind), *state;

	if (kind)
		field_cstr(d, "kind", kind);
	else
		field_u64(d, "kind", r->kind);
	field_u64(d, "time_ns", r->time_ns);
	field_u64(d, r->kind == XLP_SCHED_FREQ ? "cpu_id" : "pid", r->pid);
	field_u64(d, "tid", r->tid);
	switch (r->kind) {
	case XLP_SCHED_OUT:
		state = trace__sched_state_name(r->detail);
		if (state)
			field_cstr(d, "state", state);
		else
			field_u64(d, "state", r->detail);
		break;
	case XLP_SCHED_WAKEUP:
		field_u64(d, "waker_tid", r->arg);
		/* 0: not known (a thread woke it: its own reason is the waker's) */
		if (!r->detail)
			field_cstr(d, "reason", "unknown");
		else if (r->detail < XLP_NR_CTR)
			field_cstr(d, "reason", xlp_ctr_names[r->detail]);
		else
			field_u64(d, "reason", r->detail);
		break;
	case XLP_SCHED_BLOCK_ISSUE:
	case XLP_SCHED_BLOCK_DONE:
		field_u64(d, "bytes", r->arg);
		break;
	case XLP_SCHED_FREQ:
		field_u64(d, "khz", r->arg);
		break;
	}
}

static void rec_task(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_task_rec *r = (const void *)h;

	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
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
		field_cstr(d, "kind", k[0]);
	else
		field_u64(d, "kind", r->kind);
	field_u64(d, "time_ns", r->time_ns);
	for (int i = 0; i < 2; i++) {
		const struct xlp_cpusched_task *t = i ? &r->b : &r->a;
		const char *who = k ? k[1 + i] : i ? "b" : "a";

		snprintf(name, sizeof(name), "%s_tid", who);
		field_u64(d, name, t->tid);
		snprintf(name, sizeof(name), "%s_pid", who);
		field_u64(d, name, t->pid);
		snprintf(name, sizeof(name), "%s_prio", who);
		field_s64(d, name, t->prio);
		snprintf(name, sizeof(name), "%s_comm", who);
		field_comm(d, name, t->comm);
	}
	field_u64(d,
		  r->kind == XLP_CPUS_SWITCH   ? "prev_state"
		  : r->kind == XLP_CPUS_WAKING ? "target_cpu"
					       : "clone_flags",
		  r->arg);
}

static void rec_taskev(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_taskev_rec *r = (const void *)h;

	field_cstr(d, "kind",
		   r->kind == XLP_TASKEV_POST	 ? "post"
		   : r->kind == XLP_TASKEV_RUN	 ? "run"
		   : r->kind == XLP_TASKEV_BEGIN ? "begin"
		   : r->kind == XLP_TASKEV_END	 ? "end"
		   : r->kind == XLP_TASKEV_SIZE	 ? "size"
						 : "unknown");
	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_u64(d, "entry_ns", r->entry_ns);
	field_u64(d, "key", r->key);
	field_u64(d, "func_id", r->func_id);
	field_u64(d, "arg", r->arg);
}

static const struct flag_name size_flag_names[] = {
	{XLP_SIZE_RECORDING, "recording"},
	{XLP_SIZE_LAUNCH, "launch"},
};

static void rec_size(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_size_rec *r = (const void *)h;

	field_u64(d, "size", r->size);
	field_flags(d, "flags", r->flags, size_flag_names, ARRAY_SIZE(size_flag_names));
	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_u64(d, "run", r->run);
	field_u64(d, "time_ns", r->time_ns);
}

/* record --lag: what the recorder wrote of the runs, and left out */
static void rec_lag(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_lag_rec *r = (const void *)h;

	field_u64(d, "threshold_ns", r->threshold_ns);
	field_u64(d, "keep", r->keep);
	field_u64(d, "runs", r->runs);
	field_u64(d, "lagging", r->lagging);
	field_u64(d, "sampled", r->sampled);
	field_u64(d, "summarized", r->summarized);
	field_u64(d, "written_through", r->written_through);
	field_u64(d, "records_left_out", r->records_left_out);
	field_u64(d, "bytes_left_out", r->bytes_left_out);
	field_u64(d, "spills", r->spills);
}

static const struct flag_name thief_flag_names[] = {
	{XLP_THIEF_KTHREAD, "kthread"},
	{XLP_THIEF_NAME_STALE, "name_stale"},
};

/* who held the CPU while a traced thread waited for it */
static void rec_thief(struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_thief_rec *r = (const void *)h;
	uint32_t n = xlp_thief_count(r);

	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_u64(d, "end_ns", r->end_ns);
	field_u64(d, "wait_ns", r->wait_ns);
	field_u64(d, "here_ns", r->here_ns);
	field_u64(d, "idle_ns", r->idle_ns);
	field_u64(d, "irq_ns", r->irq_ns);
	field_u64(d, "steal_ns", r->steal_ns);
	field_u64(d, "other_ns", r->other_ns);
	field_u64(d, "unlogged_ns", r->unlogged_ns);
	if (d->json)
		jsonw__begin_arr(&d->jw, "thieves");
	for (uint32_t i = 0; i < n; i++) {
		const struct xlp_thief *x = &r->thieves[i];

		if (d->json)
			jsonw__begin_obj(&d->jw, NULL);
		else
			fprintf(d->out, " thief%u[", i);
		field_u64(d, "tid", x->tid);
		field_u64(d, "pid", x->pid);
		field_str(d, "comm", x->comm, strnlen(x->comm, sizeof(x->comm)));
		field_u64(d, "ns", x->ns);
		field_flags(d, "flags", x->flags, thief_flag_names, ARRAY_SIZE(thief_flag_names));
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

	field_u64(d, "lines", r->lines);
	field_u64(d, "sections", r->sections);
	for (int i = 0; i < XLP_MARKER_NR_SKIP; i++)
		field_u64(d, xlp_marker_skip_names[i], r->skip[i]);
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

static void dump__record(struct dump *d, const struct xlp_hdr *h)
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

/* ---- header and footer ---- */

static const char *clock_name(uint32_t id)
{
	switch (id) {
	case CLOCK_REALTIME:
		return "realtime";
	case CLOCK_MONOTONIC:
		return "monotonic";
	case CLOCK_MONOTONIC_RAW:
		return "monotonic_raw";
	case CLOCK_BOOTTIME:
		return "boottime";
	default:
		return "unknown";
	}
}

/* Wall-clock time of a monotonic timestamp, ISO 8601 UTC. */
static void fmt_realtime(char *buf, size_t len, int64_t boot_offset_ns, uint64_t mono_ns)
{
	/* unsigned sum: garbage fields must not overflow a signed type */
	int64_t ns = (int64_t)((uint64_t)boot_offset_ns + mono_ns);
	time_t sec = ns / 1000000000;
	struct tm tm;
	size_t n;

	if (ns < 0 || !gmtime_r(&sec, &tm) || !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, len, "unknown");
		return;
	}
	snprintf(buf + n, len - n, ".%09" PRId64 "Z", ns % 1000000000);
}

static void dump__func(struct dump *d, const struct xlp_func_info *f)
{
	if (d->json) {
		jsonw__begin_obj(&d->jw, NULL);
		jsonw__uint(&d->jw, "id", f->id);
	} else {
		fprintf(d->out, "  func %u", f->id);
	}
	field_cstr(d, "binary", f->binary);
	field_cstr(d, "symbol", f->symbol);
	if (f->name && f->symbol && strcmp(f->name, f->symbol))
		field_cstr(d, "demangled", f->name);
	if (d->json)
		jsonw__uint(&d->jw, "offset", f->offset);
	else
		fprintf(d->out, " offset=0x%" PRIx64, f->offset);
	field_cstr(d, "build_id", f->build_id);
	/* the size's argument apart: a number, not flags */
	field_flags(d, "flags", f->flags & ~XLP_FUNC_SIZE_ARG(7), func_flag_names,
		    ARRAY_SIZE(func_flag_names));
	if (f->flags & XLP_FUNC_SIZE)
		field_u64(d, "size_arg", XLP_FUNC_SIZE_ARG_OF(f->flags));
	if (d->json)
		jsonw__end_obj(&d->jw);
	else
		fputs("\n", d->out);
}

/* the header's numbers, in the order of docs/trace-format.md, around its strings */
static const struct jsonw_field meta_cpu_f[] = {
	JSONW_F(struct xlp_trace_meta, ncpus, "ncpus"),
	JSONW_F(struct xlp_trace_meta, clock_id, "clock_id"),
};

static const struct jsonw_field meta_start_f[] = {
	JSONW_F(struct xlp_trace_meta, boot_offset_ns, "boot_offset_ns"),
	JSONW_F(struct xlp_trace_meta, start_ns, "start_ns"),
};

static const struct jsonw_field meta_target_f[] = {
	JSONW_F(struct xlp_trace_meta, min_dur_ns, "min_dur_ns"),
	JSONW_F(struct xlp_trace_meta, target_pid, "target_pid"),
	JSONW_F(struct xlp_trace_meta, repeat, "repeat"),
};

static void dump__meta_json(struct dump *d, const struct xlp_trace_meta *m)
{
	struct jsonw *w = &d->jw;
	char start[64];

	fmt_realtime(start, sizeof(start), m->boot_offset_ns, m->start_ns);
	jsonw__begin_obj(w, NULL);
	jsonw__begin_obj(w, "meta");
	jsonw__uint(w, "format_version", m->format_version);
	field_cstr(d, "host", m->host);
	field_cstr(d, "kernel", m->kernel);
	jsonw__fields_of(w, m, meta_cpu_f);
	field_flags(d, "features", m->features, feat_names, ARRAY_SIZE(feat_names));
	jsonw__fields_of(w, m, meta_start_f);
	field_cstr(d, "start_time", start);
	jsonw__fields_of(w, m, meta_target_f);
	field_cstr(d, "cmdline", m->cmdline);
	field_cstr(d, "notes", m->notes);
	jsonw__begin_arr(w, "functions");
	for (uint32_t i = 0; i < m->nfuncs; i++)
		dump__func(d, &m->funcs[i]);
	jsonw__end_arr(w);
	jsonw__end_obj(w);
	jsonw__begin_arr(w, "records");
}

/* "name: value\n", the value quoted and escaped for the terminal. */
static void text_line(struct dump *d, const char *name, const char *v)
{
	fprintf(d->out, "%s: \"", name);
	xlp_fput_text(d->out, v ? v : "", v ? strlen(v) : 0, true);
	fputs("\"\n", d->out);
}

static void dump__meta_text(struct dump *d, const char *path, const struct xlp_trace_meta *m)
{
	char start[64];
	FILE *f = d->out;

	fmt_realtime(start, sizeof(start), m->boot_offset_ns, m->start_ns);
	fputs("file: ", f);
	xlp_fputs_text(f, path);
	fprintf(f, "\nformat version: %u%s\n", m->format_version,
		m->format_version < 2 ? " (no chunk sequence numbers)" : "");
	text_line(d, "host", m->host);
	text_line(d, "kernel", m->kernel);
	fprintf(f, "ncpus: %u\nclock: %s (%u)\nfeatures: ", m->ncpus, clock_name(m->clock_id),
		m->clock_id);
	field_flags(d, NULL, m->features, feat_names, ARRAY_SIZE(feat_names));
	fprintf(f, " (0x%x)\n", m->features);
	fprintf(f, "start: %s (%s %" PRIu64 " ns, boot offset %" PRId64 " ns)\n", start,
		clock_name(m->clock_id), m->start_ns, m->boot_offset_ns);
	fprintf(f, "min duration: %" PRIu64 " ns\n", m->min_dur_ns);
	if (m->target_pid)
		fprintf(f, "target: pid %u\n", m->target_pid);
	else
		fprintf(f, "target: command, %u launch(es)\n", m->repeat);
	text_line(d, "cmdline", m->cmdline);
	text_line(d, "notes", m->notes);
	fprintf(f, "functions: %u\n", m->nfuncs);
	for (uint32_t i = 0; i < m->nfuncs; i++)
		dump__func(d, &m->funcs[i]);
	fputs("records:\n", f);
}

static void dump__footer(struct dump *d, const struct xlp_trace_footer *ft)
{
	if (d->json)
		jsonw__end_arr(&d->jw);
	if (!ft) {
		if (d->json)
			jsonw__null(&d->jw, "footer");
		else
			fputs("footer: none\n", d->out);
		return;
	}
	if (d->json) {
		jsonw__begin_obj(&d->jw, "footer");
		jsonw__uint(&d->jw, "end_ns", ft->end_ns);
	} else {
		fprintf(d->out, "footer: end_ns=%" PRIu64, ft->end_ns);
	}
	field_u64(d, "records", ft->nrecords);
	field_u64(d, "chunks", ft->nchunks);
	if (d->json)
		jsonw__str(&d->jw, "stop_reason", trace_stop_name(ft->stop_reason));
	else
		fprintf(d->out, " stop_reason=%s", trace_stop_name(ft->stop_reason));
	field_u64(d, "lost_by_reader", ft->lost_by_reader);
	/* same names as the stats records, one level down in JSON */
	if (d->json)
		jsonw__begin_obj(&d->jw, "stats");
	else
		fputs("\nstats:", d->out);
	field_stats(d, ft->stat);
	if (d->json) {
		jsonw__end_obj(&d->jw);
		jsonw__end_obj(&d->jw);
	} else {
		fputs("\n", d->out);
	}
}

static void dump__integrity_json(struct dump *d, const struct trace_integrity *in)
{
	struct jsonw *w = &d->jw;

	jsonw__begin_obj(w, "integrity");
	jsonw__bool(w, "sequenced", in->sequenced);
	jsonw__uint(w, "chunks", in->chunks);
	jsonw__uint(w, "records", in->records);
	jsonw__uint(w, "bad", in->bad);
	jsonw__uint(w, "damaged", in->damaged);
	jsonw__uint(w, "missing", in->missing);
	jsonw__uint(w, "duplicate", in->duplicate);
	jsonw__uint(w, "reordered", in->reordered);
	jsonw__uint(w, "extra_chunks", in->extra_chunks);
	jsonw__uint(w, "missing_records", in->missing_records);
	jsonw__uint(w, "extra_records", in->extra_records);
	jsonw__bool(w, "gave_up", in->gave_up);
	jsonw__end_obj(w);
}

static void dump__status(struct dump *d, const struct trace_reader *r, const char *damage)
{
	const char *st = trace_status_name(trace_reader__status(r));
	uint64_t bad = trace_reader__bad_chunks(r), good = trace_reader__good_chunks(r);

	if (d->json) {
		jsonw__str(&d->jw, "status", st);
		jsonw__uint(&d->jw, "bad_chunks", bad);
		jsonw__str(&d->jw, "damage", damage[0] ? damage : NULL);
		dump__integrity_json(d, trace_reader__integrity(r));
		jsonw__end_obj(&d->jw);
		return;
	}
	fprintf(d->out,
		"status: %s: %" PRIu64 " records read from %" PRIu64 " chunks, %" PRIu64
		" corrupt chunks skipped\n",
		st, d->nrec, good, bad);
	if (damage[0])
		fprintf(d->out, "damage: %s\n", damage);
}

/* ---- command ---- */

/* The exit code when the command is done (help, usage error), else -1. */
static int dump__parse_args(int argc, char **argv, const char **path, bool *json)
{
	*path = NULL;
	*json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			xlp_err("dump: unknown option '%s': run 'xlprobe dump --help'", argv[i]);
			return 2;
		} else if (*path) {
			xlp_err("dump: one trace file at a time ('%s' and '%s'): run it once per "
				"file",
				*path, argv[i]);
			return 2;
		} else {
			*path = argv[i];
		}
	}
	if (!*path) {
		xlp_err("dump: no trace file given: run 'xlprobe dump FILE' (see --help)");
		return 2;
	}
	return -1;
}

static int dump__records(struct dump *d, struct trace_reader *r, const char *path)
{
	const struct xlp_hdr *h;
	int err;

	while ((err = trace_reader__next(r, &h)) > 0)
		dump__record(d, h);
	if (err < 0)
		xlp_err("%s: read error after %" PRIu64 " records: %s: check the disk", path,
			d->nrec, strerror(-err));
	return err;
}

int cmd_dump(int argc, char **argv)
{
	struct trace_reader *r = NULL;
	struct dump d = {.out = stdout};
	char why[256], damage[512];
	const char *path;
	int err;

	err = dump__parse_args(argc, argv, &path, &d.json);
	if (err >= 0)
		return err;
	err = trace_reader__open(path, &r, why, sizeof(why));
	if (err) {
		xlp_err("%s: %s", path, why);
		return 1;
	}
	d.meta = trace_reader__meta(r);
	/* one record a line: the top-level keys and the records start lines */
	jsonw__init_compact(&d.jw, d.out, 2);
	if (d.json)
		dump__meta_json(&d, d.meta);
	else
		dump__meta_text(&d, path, d.meta);
	err = dump__records(&d, r, path) ? 1 : 0;
	trace_reader__describe(r, damage, sizeof(damage));
	dump__footer(&d, trace_reader__footer(r));
	dump__status(&d, r, damage);
	if (trace_reader__status(r) == TRACE_TRUNCATED)
		xlp_warn("%s is truncated (recording did not finish): read %" PRIu64
			 " records from %" PRIu64 " chunks",
			 path, d.nrec, trace_reader__good_chunks(r));
	if (damage[0]) {
		xlp_warn("%s: %s", path, damage);
		err = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		xlp_err("cannot write the dump: %s: check the output's disk or pipe",
			strerror(errno));
		err = 1;
	}
	trace_reader__close(r);
	return err;
}
