/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "trace.h"

static const char usage[] =
	"Usage: xlprobe <command> [options]\n"
	"\n"
	"Cross-layer performance tracer: finds which functions explain the slow\n"
	"runs of an interaction, and which resource explains each function's\n"
	"slowdown (PerfProbe, ICDCS'19).\n"
	"\n"
	"Commands:\n"
	"  record   trace a process (-p PID) or a command (-- CMD) into a trace file\n"
	"  report   analyse one or more trace files: critical functions, resource factors\n"
	"  dump     print every record of a trace file (text or --json)\n"
	"  export   write a trace out: folded stacks, Perfetto trace, JSONL/CSV tables\n"
	"  issues   group the lags of many traces into issues across sessions, hosts, builds\n"
	"  list     list the USDT probes of a binary or a process (list usdt BINARY|-p PID)\n"
	"\n"
	"Run 'xlprobe <command> --help' for the options of a command.\n"
	"Typical session:\n"
	"  sudo xlprobe record -p 4242 --func ./app:decode --interaction ./app:on_click -o s.xlp\n"
	"  xlprobe report s.xlp\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("xlprobe 0.1 (trace format %d)\n", XLP_TRACE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "issues"))
		return cmd_issues(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	xlp_err("unknown command '%s': run 'xlprobe --help' for the list", cmd);
	return 2;
}
