/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe dump: every record of a trace file, as text or one JSON document.
 * Meant for debugging the recorder and for scripts, so it prints all the
 * fields and keeps going past anything it does not understand.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "demangle.h"
#include "escape.h"
#include "jsonw.h"
#include "log.h"
#include "trace.h"
#include "dump.h"

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

/* ---- fields: "name=value" in text, "name":value in JSON ---- */

void dump__u64(struct dump *d, const char *name, uint64_t v)
{
	if (d->json)
		jsonw__uint(&d->jw, name, v);
	else
		fprintf(d->out, " %s=%" PRIu64, name, v);
}

void dump__s64(struct dump *d, const char *name, int64_t v)
{
	if (d->json)
		jsonw__int(&d->jw, name, v);
	else
		fprintf(d->out, " %s=%" PRId64, name, v);
}

/* Strings come from the file: escaped for the terminal, or for JSON. */
void dump__str(struct dump *d, const char *name, const char *s, size_t n)
{
	if (d->json) {
		jsonw__strn(&d->jw, name, s, n);
		return;
	}
	fprintf(d->out, " %s=\"", name);
	xlp_fput_text(d->out, s, n, true);
	fputc('"', d->out);
}

void dump__cstr(struct dump *d, const char *name, const char *s)
{
	dump__str(d, name, s ? s : "", s ? strlen(s) : 0);
}

/* Flags as names ("a|b" in text, ["a","b"] in JSON); unknown bits in hex. */
void dump__flags(struct dump *d, const char *name, uint32_t v, enum trace_flags field)
{
	size_t nnames;
	const struct trace_flag_name *names = trace__flag_names(field, &nnames);
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
void dump__ctrs(struct dump *d, const char *name, const __u64 *c)
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
void dump__stats(struct dump *d, const uint64_t *stat)
{
	char name[16];

	for (int i = 0; i < XLP_NR_STAT; i++) {
		if (xlp_stat_names[i])
			dump__u64(d, xlp_stat_names[i], stat[i]);
		else if (stat[i] && snprintf(name, sizeof(name), "stat%d", i) > 0)
			dump__u64(d, name, stat[i]);
	}
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
	dump__cstr(d, "binary", f->binary);
	dump__cstr(d, "symbol", f->symbol);
	if (f->name && f->symbol && strcmp(f->name, f->symbol))
		dump__cstr(d, "demangled", f->name);
	if (d->json)
		jsonw__uint(&d->jw, "offset", f->offset);
	else
		fprintf(d->out, " offset=0x%" PRIx64, f->offset);
	dump__cstr(d, "build_id", f->build_id);
	/* the size's argument apart: a number, not flags */
	dump__flags(d, "flags", f->flags & ~XLP_FUNC_SIZE_ARG(7), TRACE_FLAGS_FUNC);
	if (f->flags & XLP_FUNC_SIZE)
		dump__u64(d, "size_arg", XLP_FUNC_SIZE_ARG_OF(f->flags));
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
	dump__cstr(d, "host", m->host);
	dump__cstr(d, "kernel", m->kernel);
	jsonw__fields_of(w, m, meta_cpu_f);
	dump__flags(d, "features", m->features, TRACE_FLAGS_FEATURES);
	jsonw__fields_of(w, m, meta_start_f);
	dump__cstr(d, "start_time", start);
	jsonw__fields_of(w, m, meta_target_f);
	dump__cstr(d, "cmdline", m->cmdline);
	dump__cstr(d, "notes", m->notes);
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
	dump__flags(d, NULL, m->features, TRACE_FLAGS_FEATURES);
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
	dump__u64(d, "records", ft->nrecords);
	dump__u64(d, "chunks", ft->nchunks);
	if (d->json)
		jsonw__str(&d->jw, "stop_reason", trace_stop_name(ft->stop_reason));
	else
		fprintf(d->out, " stop_reason=%s", trace_stop_name(ft->stop_reason));
	dump__u64(d, "lost_by_reader", ft->lost_by_reader);
	/* same names as the stats records, one level down in JSON */
	if (d->json)
		jsonw__begin_obj(&d->jw, "stats");
	else
		fputs("\nstats:", d->out);
	dump__stats(d, ft->stat);
	if (d->json) {
		jsonw__end_obj(&d->jw);
		jsonw__end_obj(&d->jw);
	} else {
		fputs("\n", d->out);
	}
}

static void dump__integrity_json(struct dump *d, const struct trace_integrity *in)
{
	/* the counts, in the order of struct trace_integrity */
	static const struct {
		const char *name;
		size_t off;
	} counts[] = {
#define COUNT(f) {#f, offsetof(struct trace_integrity, f)}
		COUNT(chunks),		COUNT(records),	      COUNT(bad),	COUNT(damaged),
		COUNT(missing),		COUNT(duplicate),     COUNT(reordered), COUNT(extra_chunks),
		COUNT(missing_records), COUNT(extra_records),
#undef COUNT
	};
	struct jsonw *w = &d->jw;

	jsonw__begin_obj(w, "integrity");
	jsonw__bool(w, "sequenced", in->sequenced);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		jsonw__uint(w, counts[i].name,
			    *(const uint64_t *)((const char *)in + counts[i].off));
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
