/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* xlprobe record: the command (user/record/record.c). */
#ifndef XLP_RECORD_H
#define XLP_RECORD_H

/* The whole command: options, session, record loop. Exit code. */
int cmd_record(int argc, char **argv);

#endif
