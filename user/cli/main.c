/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The xlprobe binary: one table of commands, as bpftool's cmds[] (its
 * main.c): a command is taken by its name or an unambiguous prefix of it
 * ("rep" is report, "re" is record or report: refused), and the usage
 * lists the table. Each command's entry point lives in the layer it
 * belongs to (commands.h).
 */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "trace.h"

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{"record", cmd_record, "trace a process (-p PID) or a command (-- CMD) into a trace file"},
	{"report", cmd_report,
	 "analyse one or more trace files: critical functions, resource factors"},
	{"dump", cmd_dump, "print every record of a trace file (text or --json)"},
	{"export", cmd_export,
	 "write a trace out: folded stacks, pprof, Perfetto trace, JSONL/CSV tables"},
	{"issues", cmd_issues,
	 "group the lags of many traces into issues across sessions, hosts, builds"},
	{"list", cmd_list,
	 "list the USDT probes of a binary or a process (list usdt BINARY|-p PID)"},
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	fputs("Usage: xlprobe <command> [options]\n"
	      "\n"
	      "Cross-layer performance tracer: finds which functions explain the slow\n"
	      "runs of an interaction, and which resource explains each function's\n"
	      "slowdown (PerfProbe, ICDCS'19).\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fputs("\n"
	      "A command may be given by a prefix that names it alone ('rep' is report).\n"
	      "Run 'xlprobe <command> --help' for the options of a command.\n"
	      "Typical session:\n"
	      "  sudo xlprobe record -p 4242 --func ./app:decode --interaction ./app:on_click -o "
	      "s.xlp\n"
	      "  xlprobe report s.xlp\n",
	      f);
}

/* The command named name, or by a prefix of one name only; NULL, *ambiguous when several. */
static const struct cmd *cmd_find(const char *name, int *ambiguous)
{
	const struct cmd *hit = NULL;
	size_t len = strlen(name);

	*ambiguous = 0;
	for (size_t i = 0; i < NCMDS; i++) {
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
		if (len && !strncmp(name, cmds[i].name, len)) {
			*ambiguous += hit != NULL;
			hit = &cmds[i];
		}
	}
	return *ambiguous ? NULL : hit;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct cmd *c;
	int ambiguous;

	if (!name || !strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		usage(name ? stdout : stderr);
		return name ? 0 : 2;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("xlprobe 0.1 (trace format %d)\n", XLP_TRACE_VERSION);
		return 0;
	}
	c = cmd_find(name, &ambiguous);
	if (c)
		return c->run(argc - 1, argv + 1);
	if (ambiguous)
		xlp_err("command '%s' is ambiguous (a prefix of %d commands): give more of its "
			"name "
			"('xlprobe --help' lists them)",
			name, ambiguous + 1);
	else
		xlp_err("unknown command '%s': run 'xlprobe --help' for the list", name);
	return 2;
}
