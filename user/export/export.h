/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The formats of xlprobe export besides --folded, each in a file of its
 * own; user/export/export.c parses the command line far enough to pick one.
 */
#ifndef XLP_EXPORT_H
#define XLP_EXPORT_H

#include <stdbool.h>

/* The command: --folded here, the other formats below (user/export/export.c). */
int cmd_export(int argc, char **argv);
/* export --perfetto (user/export/export_perfetto.c) */
int cmd_export_perfetto(int argc, char **argv);
/* export --pprof (user/export/export_pprof.c) */
int cmd_export_pprof(int argc, char **argv);

/* ---- --jsonl / --csv: fleet tables (user/export/export_tables.c) ---- */

/* The --help text of the tables, printed after --folded's. */
extern const char export_tables_help[];
/* argv (export's, from its name on) asks for --jsonl or --csv. */
bool export_tables__wanted(int argc, char **argv);
/* The whole command for those formats: options, traces, output. Exit code. */
int export_tables__main(int argc, char **argv);

#endif
