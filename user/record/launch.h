/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Launching the traced command: forked, held before exec until every probe
 * is attached, then released; exec failures are reported by the parent.
 */
#ifndef XLP_LAUNCH_H
#define XLP_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct launch;

/* Forks; the child waits. Negative errno on failure. */
int launch__fork(char *const argv[], struct launch **out);
/*
 * Remembers the current RLIMIT_NOFILE and nice value: launched commands
 * get them back before exec, whatever the recorder raised its own to.
 */
void launch__save_fd_limit(void);
pid_t launch__pid(const struct launch *l);
/* A pidfd of the child, readable (POLLIN) once it has exited, to wake a
 * poll loop at once; -1 where the kernel has no pidfd_open. */
int launch__pidfd(const struct launch *l);
/* Lets the child exec. Returns negative errno, with a one-line reason in
 * err, when exec failed (e.g. no such command). */
int launch__release(struct launch *l, char *err, size_t errlen);
/* Non-blocking (block = 0) or blocking reap; 1 when reaped, with the exit
 * code (>= 0) or -signal in *code; 0 when still running. */
int launch__reap(struct launch *l, int block, int *code);
/* SIGTERM then reap; for a child that must not outlive a failed record. */
void launch__kill(struct launch *l);
void launch__free(struct launch *l); /* accepts NULL; kills an unreleased child */

#endif
