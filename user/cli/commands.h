/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Sub-commands of the xlprobe binary; each returns the process exit code. */
#ifndef XLP_COMMANDS_H
#define XLP_COMMANDS_H

/*
 * Where each command's entry point lives (README.md, "Where a command
 * lives"): a command whose layer exists for it alone in that layer, in the
 * file named after it (record, export); every other one, which reads
 * traces and composes layers, in user/cli/NAME_cmd.c.
 */
#include "export.h"
#include "record.h"

int cmd_dump(int argc, char **argv);   /* user/cli/dump_cmd.c */
int cmd_report(int argc, char **argv); /* user/cli/report_cmd.c */
int cmd_issues(int argc, char **argv); /* user/cli/issues_cmd.c */
int cmd_list(int argc, char **argv);   /* user/cli/list_cmd.c */

#endif
