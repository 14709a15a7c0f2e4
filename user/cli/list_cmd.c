/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* xlprobe list usdt: the USDT probes a binary or a process holds, as bpftrace -l prints them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "usdt.h"

static const char usage[] =
	"Usage: xlprobe list usdt BINARY\n"
	"       xlprobe list usdt -p PID\n"
	"\n"
	"Lists the USDT probes (<sys/sdt.h>, .note.stapsdt) of BINARY, or of every\n"
	"executable file process PID maps (the program and its libraries), one per\n"
	"line as usdt:PATH:PROVIDER:NAME, the spec record's --func, --interaction\n"
	"and --until take, as bpftrace lists them. BINARY is a path\n"
	"or, with -p, a library the process maps.\n"
	"\n"
	"  -p, --pid PID   the probes of a running process's files\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit status: 0 listed, 1 nothing to list (no such file, no probes), 2 bad\n"
	"option.\n"
	"\n"
	"Examples:\n"
	"  xlprobe list usdt /usr/lib/postgresql/15/bin/postgres\n"
	"  xlprobe list usdt -p $(pgrep -o postgres)\n";

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	const char *path = NULL;
	char err[1024] = "", *end;
	long pid = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || pid <= 0 || pid > 0x7fffffff) {
				xlp_err("bad --pid '%s': expected a process id, e.g. -p 4242",
					optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	/* the kind of probe first; options may come before or after it */
	if (optind >= argc || strcmp(argv[optind], "usdt")) {
		xlp_err("xlprobe list: expected 'usdt', the kind of probe to list, e.g. xlprobe "
			"list usdt /usr/bin/python3.11");
		return 2;
	}
	optind++;
	while ((c = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		if (c != 'p') {
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
		errno = 0;
		pid = strtol(optarg, &end, 10);
		if (errno || *end || end == optarg || pid <= 0 || pid > 0x7fffffff) {
			xlp_err("bad --pid '%s': expected a process id, e.g. -p 4242", optarg);
			return 2;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc || (!path && !pid)) {
		xlp_err("xlprobe list usdt: give one BINARY or -p PID, e.g. xlprobe list usdt "
			"/usr/bin/python3.11");
		return 2;
	}
	ret = usdt__list(stdout, path, (int)pid, err, sizeof(err));
	if (ret < 0) {
		xlp_err("%s", err);
		return 1;
	}
	if (!ret && !path) {
		xlp_err("process %ld maps no file with USDT probes (.note.stapsdt): its program "
			"and libraries were built without <sys/sdt.h> probes",
			pid);
		return 1;
	}
	return 0;
}
