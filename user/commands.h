/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Sub-commands of the xlprobe binary; each returns the process exit code. */
#ifndef XLP_COMMANDS_H
#define XLP_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_issues(int argc, char **argv);		/* user/issues_cmd.c */
int cmd_export_perfetto(int argc, char **argv); /* export --perfetto (user/export_perfetto.c) */

#endif
