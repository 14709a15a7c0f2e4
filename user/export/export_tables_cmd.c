/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* xlprobe export --jsonl / --csv: the help, the options, the output file (export_tables.c writes).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "export.h"
#include "export_tables_int.h"
#include "log.h"
#include "outfile.h"
#include "trace.h"
#include "util.h"

const char export_tables_help[] =
	"Usage: xlprobe export --jsonl [--table TABLE] [-o FILE] TRACE...\n"
	"       xlprobe export --csv --table TABLE [-o FILE] TRACE...\n"
	"\n"
	"Writes the records of one or more traces as flat tables, for a database\n"
	"holding the data of many machines (DuckDB's read_json_auto and\n"
	"read_csv_auto load them as they are: docs/fleet-tables.md). Each trace is\n"
	"read once and streamed, so any number of files from any number of hosts\n"
	"append into one output. Every row begins with trace_id, host and kernel;\n"
	"trace_id is \"xlp-\" and 16 hex digits, a hash of the whole trace header\n"
	"(host, kernel, start to the ns, command line, functions): the same for\n"
	"every copy of a file, different for any two recordings.\n"
	"\n"
	"Tables (README.md, \"Fleet tables\", describes every column):\n"
	"  runs     one row per run: the run record of an interaction call, with\n"
	"           the process's counters over the run; in a trace recorded with\n"
	"           --repeat and no --interaction, one launch of the command,\n"
	"           with its process's totals\n"
	"  calls    one row per recorded call of a marked function: function,\n"
	"           binary, pid, tid, depth, entry_ns, every counter inclusive\n"
	"           (incl_wall ...) and exclusive (excl_wall ...)\n"
	"  threads  one row per thread record: pid, tid, comm, first_ns, last_ns,\n"
	"           the thread's total of every counter\n"
	"  waits    one row per piece of a wait of a run's thread, from the wait\n"
	"           chains of a trace recorded with --timeline (README, \"Wait\n"
	"           chains\"): run, the waiting thread, the wait, the piece's\n"
	"           start and ns, depth, the blocker's state (ran, cpu_wait,\n"
	"           device, asleep, untraced, cycle, depth_limit), reason,\n"
	"           blocker and first hop (pid, tid, name) and function\n"
	"  traces   one row per trace, after its other rows: file, status\n"
	"           (complete, truncated, damaged), what is damaged, records\n"
	"           read, its rows in each table, and what was lost while\n"
	"           recording: lost_by_reader and every BPF-side statistic\n"
	"           (rb_full, stack_overflow ...)\n"
	"Counters keep the names dump shows (wall, cpu_run, cpu_wait, ...): times\n"
	"in integer ns, the others counts (freq_khz_ns: kHz x ns). Timestamps\n"
	"(start_ns, entry_ns, first_ns, last_ns, end_ns) are the recording host's\n"
	"CLOCK_MONOTONIC in ns; start_unix_ns is ns since 1970-01-01 UTC.\n"
	"\n"
	"  --jsonl            one JSON object per line, \"table\" first; valid UTF-8\n"
	"                     (U+FFFD for bytes that are not), numbers as numbers,\n"
	"                     null for a value the trace lacks. Every table,\n"
	"                     unless --table names one\n"
	"  --csv              RFC 4180: a header row, then a row per line (LF);\n"
	"                     strings always quoted, '\"' doubled, control\n"
	"                     characters and bytes that are not UTF-8 written as\n"
	"                     \\xNN (\\n for a line break); an empty field is null.\n"
	"                     One table: needs --table\n"
	"      --table TABLE  runs, calls, threads, waits or traces\n"
	"  -o, --output FILE  write here (created 0600, put in place once complete;\n"
	"                     default: standard output)\n"
	"  -h, --help         this text\n"
	"\n"
	"A truncated or damaged trace is exported as far as it could be read,\n"
	"with a warning; its traces row says so (status, damage). Export the\n"
	"traces table too, and keep the traces whose status is complete where\n"
	"partial data would mislead.\n"
	"\n"
	"Exit status: 0 written (truncated or damaged traces included); 1 a trace\n"
	"cannot be opened (then nothing is written), or reading or writing\n"
	"failed; 2 usage error.\n"
	"\n"
	"Examples:\n"
	"  xlprobe export --csv --table calls -o calls.csv fleet/*.xlp\n"
	"  xlprobe export --jsonl --table runs fleet/*.xlp > runs.jsonl\n"
	"  duckdb :memory: \"SELECT host, median(latency_ns)\n"
	"                   FROM read_json_auto('runs.jsonl') GROUP BY host\"\n";

bool export_tables__wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--jsonl") || !strcmp(argv[i], "--csv"))
			return true;
	return false;
}

/* The option getopt refused, for the message. */
static void bad_option(int c, char **argv)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		xlp_err("export: %s needs a value: see xlprobe export --help", opt);
	else if (optopt)
		xlp_err("export: unknown option '-%c': see xlprobe export --help", optopt);
	else
		xlp_err("export: unknown option '%s': see xlprobe export --help", opt);
}

/* The exit code when the command is done (help, usage error), else -1. */
static int parse_args(int argc, char **argv, struct tt_args *a)
{
	static const struct option longopts[] = {
		{"jsonl", no_argument, NULL, 'J'},
		{"csv", no_argument, NULL, 'C'},
		{"table", required_argument, NULL, 'T'},
		{"output", required_argument, NULL, 'o'},
		{"lag", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c, opterr_was = opterr, ret = -1;

	/* lag 0: each trace's own --lag, else 100 ms (analysis/issues/issues.h) */
	*a = (struct tt_args){.table = -1, .lag_ns = 0};
	optind = 1;
	opterr = 0; /* one line of ours, not getopt's too */
	while (ret < 0 && (c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == 'J' || c == 'C') {
			*(c == 'J' ? &a->jsonl : &a->csv) = true;
		} else if (c == 'T') {
			a->table = export_tables__table(optarg);
			if (a->table < 0) {
				xlp_err("export: unknown table '%s': choose runs, calls, "
					"threads, waits, traces, lags or issues",
					optarg);
				ret = 2;
			}
		} else if (c == 'o') {
			a->out = optarg;
		} else if (c == 'L') {
			if (xlp_parse_duration(optarg, 0, &a->lag_ns) || !a->lag_ns) {
				xlp_err("export: bad --lag '%s': give a duration with a unit, e.g. "
					"100ms",
					optarg);
				ret = 2;
			}
		} else if (c == 'h') {
			fputs(export_tables_help, stdout);
			ret = 0;
		} else {
			bad_option(c, argv);
			ret = 2;
		}
	}
	opterr = opterr_was;
	if (ret >= 0)
		return ret;
	a->paths = argv + optind;
	a->npaths = argc - optind;
	if (a->jsonl && a->csv) {
		xlp_err("export: --jsonl and --csv exclude each other: run once per format");
		return 2;
	}
	if (a->csv && a->table < 0) {
		xlp_err("export: --csv writes one table: add --table runs, calls, threads, "
			"waits, traces, lags or issues");
		return 2;
	}
	if (!a->npaths) {
		xlp_err("export: no trace file given: run 'xlprobe export --%s ... TRACE...' (see "
			"--help)",
			a->csv ? "csv" : "jsonl");
		return 2;
	}
	return -1;
}

/* Every trace opens (its header is sound) before a row is written. */
static int check_traces(char **paths, int n)
{
	char why[PATH_MAX + 256];

	for (int i = 0; i < n; i++) {
		struct trace_reader *r;

		if (trace_reader__open(paths[i], &r, why, sizeof(why))) {
			xlp_err("%s: %s: nothing exported", paths[i], why);
			return -1;
		}
		trace_reader__close(r);
	}
	return 0;
}

int export_tables__main(int argc, char **argv)
{
	struct outfile *of = NULL;
	char why[PATH_MAX + 256];
	struct tt_args a;
	FILE *f = stdout;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	if (check_traces(a.paths, a.npaths))
		return 1;
	if (a.out) {
		if (outfile__open(a.out, 0, &of, why, sizeof(why))) {
			xlp_err("%s with -o", why);
			return 1;
		}
		f = outfile__stream(of);
		if (!f) {
			xlp_err("cannot write %s: %s: check the free space", a.out,
				strerror(errno));
			outfile__abort(of);
			return 1;
		}
	}
	if (export_tables__write(&a, f)) {
		outfile__abort(of);
		return 1;
	}
	if (of && outfile__commit(of, why, sizeof(why))) {
		xlp_err("%s", why);
		return 1;
	}
	if (!of && fflush(stdout)) {
		xlp_err("cannot write the output: %s: check the free space or the pipe",
			strerror(errno));
		return 1;
	}
	return 0;
}
