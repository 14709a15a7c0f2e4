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
#include "log.h"
#include "trace.h"

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
	"  status   complete, or truncated when the recording did not finish\n"
	"\n"
	"Options:\n"
	"  --json       print one JSON document instead:\n"
	"                 {\"meta\":{...}, \"records\":[...], \"footer\":{...} or null,\n"
	"                  \"status\":\"complete\"|\"truncated\", \"bad_chunks\":N}\n"
	"               every counter is present in every record, zero or not\n"
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
	"dump goes on with the next one. Records of a type this xlprobe does not\n"
	"know are shown as \"unknown record type T (size S)\".\n"
	"\n"
	"Exit status:\n"
	"  0  the whole file was read (a truncated file gives a warning, still 0)\n"
	"  1  the file is missing, not an xlprobe trace, has a damaged header, or\n"
	"     had damaged chunks that were skipped; or the output failed\n"
	"  2  usage error\n"
	"\n"
	"Examples:\n"
	"  xlprobe dump session.xlp | less\n"
	"  xlprobe dump session.xlp --json | jq '.records[] | select(.type == \"call\")'\n";

static const char *const ctr_names[XLP_NR_CTR] = {
	[XLP_C_WALL] = "wall",
	[XLP_C_CPU_RUN] = "cpu_run",
	[XLP_C_CPU_WAIT] = "cpu_wait",
	[XLP_C_SLEEP_S] = "sleep_s",
	[XLP_C_SLEEP_D] = "sleep_d",
	[XLP_C_DISK] = "disk",
	[XLP_C_NET] = "net",
	[XLP_C_IPC] = "ipc",
	[XLP_C_LOCK] = "lock",
	[XLP_C_TIMER] = "timer",
	[XLP_C_OTHER] = "other",
	[XLP_C_FREQ_KHZ_NS] = "freq_khz_ns",
	[XLP_C_NVCSW] = "nvcsw",
	[XLP_C_NIVCSW] = "nivcsw",
	[XLP_C_MIGRATIONS] = "migrations",
	[XLP_C_DISK_RQ] = "disk_rq",
	[XLP_C_DISK_BYTES] = "disk_bytes",
	[XLP_C_BINDER_TXN] = "binder_txn",
};

static const char *const stat_names[XLP_NR_STAT] = {
	[XLP_S_RB_FULL] = "rb_full",
	[XLP_S_STACK_OVERFLOW] = "stack_overflow",
	[XLP_S_STACK_MISMATCH] = "stack_mismatch",
	[XLP_S_MIN_DUR] = "min_dur",
	[XLP_S_THREADS_FULL] = "threads_full",
	[XLP_S_PROCS_FULL] = "procs_full",
	[XLP_S_SCHED_EVENTS] = "sched_events",
	[XLP_S_CALLS] = "calls",
	[XLP_S_UNKNOWN_STATE] = "unknown_state",
	[XLP_S_UNFINISHED] = "unfinished",
	[XLP_S_SCHED_MISSED] = "sched_missed",
	[XLP_S_LAUNCH_UNTIMED] = "launch_untimed",
};

/* Reserved slots have no name: shown as ctrN / statN, and only when set. */
#define NAMED_CTRS (XLP_C_BINDER_TXN + 1)
#define NAMED_STATS (XLP_S_LAUNCH_UNTIMED + 1)

struct flag_name {
	uint32_t bit;
	const char *name;
};

static const struct flag_name feat_names[] = {
	{XLP_FEAT_BTF, "btf"},		 {XLP_FEAT_SCHED, "sched"},
	{XLP_FEAT_UPROBES, "uprobes"},	 {XLP_FEAT_CPUFREQ, "cpufreq"},
	{XLP_FEAT_BINDER, "binder"},	 {XLP_FEAT_BLOCK, "block"},
	{XLP_FEAT_SYSCALLS, "syscalls"}, {XLP_FEAT_DELAYACCT, "delayacct"},
};

static const struct flag_name func_flag_names[] = {
	{XLP_FUNC_INTERACTION, "interaction"},
};

static const struct flag_name call_flag_names[] = {
	{XLP_CALL_INTERACTION, "interaction"},
	{XLP_CALL_IPC_PEER, "ipc_peer"},
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
	const struct xlp_trace_meta *meta;
	uint64_t nrec;
};

/* ---- strings ---- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4   ? 4
		     : s[0] >= 0xe0		    ? 3
		     : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
						    : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong, surrogate and beyond-U+10FFFF forms */
	if ((len == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (len == 3 && s[0] == 0xed && s[1] > 0x9f) ||
	    (len == 4 && s[0] == 0xf0 && s[1] < 0x90) || (len == 4 && s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/* JSON string; bytes that are not UTF-8 (comm can hold anything) become U+FFFD. */
static void json_str(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		size_t u;

		if (s[i] == '"' || s[i] == '\\') {
			fprintf(f, "\\%c", s[i]);
		} else if (s[i] == '\n') {
			fputs("\\n", f);
		} else if (s[i] == '\t') {
			fputs("\\t", f);
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			fprintf(f, "\\u%04x", s[i]);
		} else if (s[i] < 0x80) {
			fputc(s[i], f);
		} else if ((u = utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, u, f);
			i += u - 1;
		} else {
			fputs("\\ufffd", f);
		}
	}
	fputc('"', f);
}

/* Text string on one line: quotes, backslashes and control bytes escaped. */
static void text_str(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			fprintf(f, "\\%c", s[i]);
		else if (s[i] == '\n')
			fputs("\\n", f);
		else if (s[i] < 0x20 || s[i] == 0x7f)
			fprintf(f, "\\x%02x", s[i]);
		else
			fputc(s[i], f);
	}
	fputc('"', f);
}

static void put_str(const struct dump *d, const char *s, size_t n)
{
	if (d->json)
		json_str(d->out, s, n);
	else
		text_str(d->out, s, n);
}

static void put_cstr(const struct dump *d, const char *s)
{
	put_str(d, s ? s : "", s ? strlen(s) : 0);
}

/* ---- fields: "name=value" in text, "name":value in JSON ---- */

static void key(const struct dump *d, const char *name)
{
	if (d->json)
		fprintf(d->out, ",\"%s\":", name);
	else
		fprintf(d->out, " %s=", name);
}

static void field_u64(const struct dump *d, const char *name, uint64_t v)
{
	key(d, name);
	fprintf(d->out, "%" PRIu64, v);
}

static void field_s64(const struct dump *d, const char *name, int64_t v)
{
	key(d, name);
	fprintf(d->out, "%" PRId64, v);
}

static void field_str(const struct dump *d, const char *name, const char *s, size_t n)
{
	key(d, name);
	put_str(d, s, n);
}

/* Flags as names ("a|b" in text, ["a","b"] in JSON); unknown bits in hex. */
static void put_flags(const struct dump *d, uint32_t v, const struct flag_name *names,
		      size_t nnames)
{
	const char *sep = d->json ? "," : "|";
	bool first = true;

	fputs(d->json ? "[" : "", d->out);
	for (size_t i = 0; i < nnames; i++) {
		if (!(v & names[i].bit))
			continue;
		fprintf(d->out, d->json ? "%s\"%s\"" : "%s%s", first ? "" : sep, names[i].name);
		first = false;
		v &= ~names[i].bit;
	}
	if (v)
		fprintf(d->out, d->json ? "%s\"0x%x\"" : "%s0x%x", first ? "" : sep, v);
	else if (first && !d->json)
		fputs("0", d->out);
	fputs(d->json ? "]" : "", d->out);
}

static void field_flags(const struct dump *d, const char *name, uint32_t v,
			const struct flag_name *names, size_t nnames)
{
	key(d, name);
	put_flags(d, v, names, nnames);
}

static void put_ctr(const struct dump *d, bool first, int i, __u64 v)
{
	const char *fmt = d->json ? "%s\"%s\":%" PRIu64 : "%s%s=%" PRIu64;
	char name[16];

	if (i < NAMED_CTRS)
		snprintf(name, sizeof(name), "%s", ctr_names[i]);
	else
		snprintf(name, sizeof(name), "ctr%d", i);
	fprintf(d->out, fmt, first ? "" : d->json ? "," : " ", name, (uint64_t)v);
}

/* Counters: the non-zero ones in text, all named ones in JSON (stable keys). */
static void field_ctrs(const struct dump *d, const char *name, const __u64 *c)
{
	bool first = true;

	fprintf(d->out, d->json ? ",\"%s\":{" : " %s[", name);
	for (int i = 0; i < XLP_NR_CTR; i++) {
		if (!c[i] && (!d->json || i >= NAMED_CTRS))
			continue;
		put_ctr(d, first, i, c[i]);
		first = false;
	}
	fputs(d->json ? "}" : "]", d->out);
}

/* Every named statistic, and reserved ones when they are set. */
static void field_stats(const struct dump *d, const uint64_t *stat, int from)
{
	char name[16];

	for (int i = from; i < XLP_NR_STAT; i++) {
		if (i < NAMED_STATS)
			field_u64(d, stat_names[i], stat[i]);
		else if (stat[i] && snprintf(name, sizeof(name), "stat%d", i) > 0)
			field_u64(d, name, stat[i]);
	}
}

/* ---- records ---- */

static void field_func(const struct dump *d, uint32_t id)
{
	const struct xlp_trace_meta *m = d->meta;

	field_u64(d, "func", id);
	if (id < m->nfuncs)
		field_str(d, "sym", m->funcs[id].symbol, strlen(m->funcs[id].symbol));
}

static void field_comm(const struct dump *d, const char *name, const char *comm)
{
	field_str(d, name, comm, strnlen(comm, XLP_COMM_LEN));
}

static void rec_call(const struct dump *d, const struct xlp_hdr *h)
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

static void rec_run(const struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_run_rec *r = (const void *)h;

	field_func(d, r->func_id);
	field_u64(d, "pid", r->pid);
	field_u64(d, "tid", r->tid);
	field_u64(d, "entry_ns", r->entry_ns);
	field_ctrs(d, "proc", r->proc);
}

static void rec_thread(const struct dump *d, const struct xlp_hdr *h)
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

static void rec_proc(const struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_proc_rec *r = (const void *)h;

	field_u64(d, "pid", r->pid);
	field_flags(d, "flags", r->flags, thread_flag_names, ARRAY_SIZE(thread_flag_names));
	field_u64(d, "first_ns", r->first_ns);
	field_u64(d, "last_ns", r->last_ns);
	field_comm(d, "comm", r->comm);
	field_ctrs(d, "tot", r->tot);
}

static void rec_launch(const struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_launch_rec *r = (const void *)h;

	field_u64(d, "run", r->run);
	field_u64(d, "pid", r->pid);
	field_s64(d, "exit_code", r->exit_code);
	field_flags(d, "flags", r->flags, launch_flag_names, ARRAY_SIZE(launch_flag_names));
	field_u64(d, "start_ns", r->start_ns);
	field_u64(d, "end_ns", r->end_ns);
}

static void rec_stats(const struct dump *d, const struct xlp_hdr *h)
{
	const struct xlp_stats_rec *r = (const void *)h;

	uint64_t stat[XLP_NR_STAT];

	for (int i = 0; i < XLP_NR_STAT; i++)
		stat[i] = r->stat[i];
	field_stats(d, stat, 0);
	field_u64(d, "lost_by_reader", r->lost_by_reader);
}

struct rec_kind {
	const char *name;
	size_t size;
	void (*print)(const struct dump *d, const struct xlp_hdr *h);
};

static const struct rec_kind kinds[] = {
	[XLP_R_CALL] = {"call", sizeof(struct xlp_call_rec), rec_call},
	[XLP_R_RUN] = {"run", sizeof(struct xlp_run_rec), rec_run},
	[XLP_R_THREAD] = {"thread", sizeof(struct xlp_thread_rec), rec_thread},
	[XLP_R_PROC] = {"proc", sizeof(struct xlp_proc_rec), rec_proc},
	[XLP_R_LAUNCH] = {"launch", sizeof(struct xlp_launch_rec), rec_launch},
	[XLP_R_STATS] = {"stats", sizeof(struct xlp_stats_rec), rec_stats},
};

static void dump__record(struct dump *d, const struct xlp_hdr *h)
{
	const struct rec_kind *k = h->type < ARRAY_SIZE(kinds) ? &kinds[h->type] : NULL;
	const char *sep = d->nrec ? "," : "";

	d->nrec++;
	/* the reader guarantees the size of known types; check anyway */
	if (!k || !k->name || h->size < k->size) {
		if (d->json)
			fprintf(d->out, "%s{\"type\":\"unknown\",\"type_id\":%u,\"size\":%u}\n",
				sep, h->type, h->size);
		else
			fprintf(d->out, "unknown record type %u (size %u)\n", h->type, h->size);
		return;
	}
	if (d->json)
		fprintf(d->out, "%s{\"type\":\"%s\",\"cpu\":%u", sep, k->name, h->cpu);
	else
		fprintf(d->out, "%s cpu=%u", k->name, h->cpu);
	k->print(d, h);
	fputs(d->json ? "}\n" : "\n", d->out);
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

static const char *stop_name(uint32_t reason)
{
	switch (reason) {
	case XLP_STOP_SIGNAL:
		return "signal";
	case XLP_STOP_DURATION:
		return "duration";
	case XLP_STOP_TARGET_EXIT:
		return "target_exit";
	case XLP_STOP_ERROR:
		return "error";
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

static void dump__func(const struct dump *d, const struct xlp_func_info *f)
{
	if (d->json)
		fprintf(d->out, "{\"id\":%u", f->id);
	else
		fprintf(d->out, "  func %u", f->id);
	field_str(d, "binary", f->binary, strlen(f->binary));
	field_str(d, "symbol", f->symbol, strlen(f->symbol));
	key(d, "offset");
	fprintf(d->out, d->json ? "%" PRIu64 : "0x%" PRIx64, f->offset);
	field_str(d, "build_id", f->build_id, strlen(f->build_id));
	field_flags(d, "flags", f->flags, func_flag_names, ARRAY_SIZE(func_flag_names));
	fputs(d->json ? "}" : "\n", d->out);
}

static void dump__meta_json(const struct dump *d, const struct xlp_trace_meta *m)
{
	char start[64];

	fmt_realtime(start, sizeof(start), m->boot_offset_ns, m->start_ns);
	fprintf(d->out, "{\"meta\":{\"format_version\":%u", m->format_version);
	field_str(d, "host", m->host, strlen(m->host));
	field_str(d, "kernel", m->kernel, strlen(m->kernel));
	field_u64(d, "ncpus", m->ncpus);
	field_u64(d, "clock_id", m->clock_id);
	field_flags(d, "features", m->features, feat_names, ARRAY_SIZE(feat_names));
	field_s64(d, "boot_offset_ns", m->boot_offset_ns);
	field_u64(d, "start_ns", m->start_ns);
	field_str(d, "start_time", start, strlen(start));
	field_u64(d, "min_dur_ns", m->min_dur_ns);
	field_u64(d, "target_pid", m->target_pid);
	field_u64(d, "repeat", m->repeat);
	field_str(d, "cmdline", m->cmdline, strlen(m->cmdline));
	field_str(d, "notes", m->notes, strlen(m->notes));
	fputs(",\"functions\":[", d->out);
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		fputs(i ? "," : "", d->out);
		dump__func(d, &m->funcs[i]);
	}
	fputs("]},\n\"records\":[\n", d->out);
}

static void dump__meta_text(const struct dump *d, const char *path, const struct xlp_trace_meta *m)
{
	char start[64];
	FILE *f = d->out;

	fmt_realtime(start, sizeof(start), m->boot_offset_ns, m->start_ns);
	fprintf(f, "file: %s\nformat version: %u\nhost: ", path, m->format_version);
	put_cstr(d, m->host);
	fputs("\nkernel: ", f);
	put_cstr(d, m->kernel);
	fprintf(f, "\nncpus: %u\nclock: %s (%u)\nfeatures: ", m->ncpus, clock_name(m->clock_id),
		m->clock_id);
	put_flags(d, m->features, feat_names, ARRAY_SIZE(feat_names));
	fprintf(f, " (0x%x)\n", m->features);
	fprintf(f, "start: %s (%s %" PRIu64 " ns, boot offset %" PRId64 " ns)\n", start,
		clock_name(m->clock_id), m->start_ns, m->boot_offset_ns);
	fprintf(f, "min duration: %" PRIu64 " ns\n", m->min_dur_ns);
	if (m->target_pid)
		fprintf(f, "target: pid %u\n", m->target_pid);
	else
		fprintf(f, "target: command, %u launch(es)\n", m->repeat);
	fputs("cmdline: ", f);
	put_cstr(d, m->cmdline);
	fputs("\nnotes: ", f);
	put_cstr(d, m->notes);
	fprintf(f, "\nfunctions: %u\n", m->nfuncs);
	for (uint32_t i = 0; i < m->nfuncs; i++)
		dump__func(d, &m->funcs[i]);
	fputs("records:\n", f);
}

static void dump__footer(const struct dump *d, const struct xlp_trace_footer *ft)
{
	if (d->json)
		fputs("],\n\"footer\":", d->out);
	if (!ft) {
		fputs(d->json ? "null" : "footer: none\n", d->out);
		return;
	}
	fprintf(d->out, d->json ? "{\"end_ns\":%" PRIu64 : "footer: end_ns=%" PRIu64, ft->end_ns);
	field_u64(d, "records", ft->nrecords);
	field_u64(d, "chunks", ft->nchunks);
	key(d, "stop_reason");
	fprintf(d->out, d->json ? "\"%s\"" : "%s", stop_name(ft->stop_reason));
	field_u64(d, "lost_by_reader", ft->lost_by_reader);
	/* same names as the stats records, one level down in JSON */
	if (d->json)
		fprintf(d->out, ",\"stats\":{\"%s\":%" PRIu64, stat_names[0], ft->stat[0]);
	else
		fputs("\nstats:", d->out);
	field_stats(d, ft->stat, d->json ? 1 : 0);
	fputs(d->json ? "}}" : "\n", d->out);
}

static void dump__status(const struct dump *d, const struct trace_reader *r)
{
	const char *st = trace_reader__status(r) == TRACE_COMPLETE ? "complete" : "truncated";
	uint64_t bad = trace_reader__bad_chunks(r), good = trace_reader__good_chunks(r);

	if (d->json) {
		fprintf(d->out, ",\n\"status\":\"%s\",\"bad_chunks\":%" PRIu64 "}\n", st, bad);
		return;
	}
	fprintf(d->out,
		"status: %s: %" PRIu64 " records read from %" PRIu64 " chunks, %" PRIu64
		" corrupt chunks skipped\n",
		st, d->nrec, good, bad);
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
	const char *path;
	char why[256];
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
	if (d.json)
		dump__meta_json(&d, d.meta);
	else
		dump__meta_text(&d, path, d.meta);
	err = dump__records(&d, r, path) ? 1 : 0;
	dump__footer(&d, trace_reader__footer(r));
	dump__status(&d, r);
	if (trace_reader__status(r) == TRACE_TRUNCATED)
		xlp_warn("%s is truncated (recording did not finish): read %" PRIu64
			 " records from %" PRIu64 " chunks",
			 path, d.nrec, trace_reader__good_chunks(r));
	if (trace_reader__bad_chunks(r)) {
		xlp_warn("%s: %" PRIu64 " corrupt chunk(s) skipped", path,
			 trace_reader__bad_chunks(r));
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
