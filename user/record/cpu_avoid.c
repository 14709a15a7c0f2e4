/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The recorder off its target's CPUs (see cpu_avoid.h). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_avoid.h"

#define RUN_TIDS 64

struct cpu_avoid {
	cpu_set_t own;	      /* the recorder's CPUs at start */
	cpu_set_t now;	      /* what it runs on now */
	int avoided;	      /* CPUs of own it keeps off now */
	pid_t tids[RUN_TIDS]; /* threads that ran the interaction */
	size_t ntids;
	bool full; /* more of them than tids holds */
};

struct cpu_avoid *cpu_avoid__new(void)
{
	struct cpu_avoid *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (sched_getaffinity(0, sizeof(a->own), &a->own)) {
		free(a);
		return NULL;
	}
	a->now = a->own;
	return a;
}

void cpu_avoid__free(struct cpu_avoid *a)
{
	free(a);
}

int cpu_avoid__count(const struct cpu_avoid *a)
{
	return a ? a->avoided : 0;
}

bool cpu_avoid__note_tid(struct cpu_avoid *a, pid_t tid)
{
	if (!a)
		return false;
	for (size_t i = 0; i < a->ntids; i++)
		if (a->tids[i] == tid)
			return false;
	if (a->ntids < RUN_TIDS)
		a->tids[a->ntids++] = tid;
	else if (!a->full)
		a->full = true;
	else
		return false;
	return true;
}

/* The union of the affinity of the threads that ran the interaction; -ESRCH: none alive. */
static int run_cpus(const struct cpu_avoid *a, cpu_set_t *u)
{
	int n = 0;

	CPU_ZERO(u);
	for (size_t i = 0; i < a->ntids; i++) {
		cpu_set_t m;

		if (sched_getaffinity(a->tids[i], sizeof(m), &m))
			continue;
		CPU_OR(u, u, &m);
		n++;
	}
	return n ? 0 : -ESRCH;
}

/* The union of the affinity of pid's threads into *u; negative errno. */
static int target_cpus(pid_t pid, cpu_set_t *u)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	CPU_ZERO(u);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		cpu_set_t m;

		if (end == e->d_name || *end || tid <= 0)
			continue;
		/* a thread that exited meanwhile has no mask: skip it */
		if (sched_getaffinity((pid_t)tid, sizeof(m), &m))
			continue;
		CPU_OR(u, u, &m);
		n++;
	}
	closedir(d);
	return n ? 0 : -ESRCH;
}

int cpu_avoid__update(struct cpu_avoid *a, pid_t pid)
{
	cpu_set_t used, want;
	int err = a->ntids && !a->full ? run_cpus(a, &used) : -ESRCH;

	if (err)
		err = target_cpus(pid, &used);
	if (err)
		return err;
	/* our CPUs the target cannot run on; none free: all of ours */
	CPU_XOR(&want, &a->own, &used);
	CPU_AND(&want, &want, &a->own);
	if (!CPU_COUNT(&want))
		want = a->own;
	if (CPU_EQUAL(&want, &a->now))
		return 0;
	if (sched_setaffinity(0, sizeof(want), &want))
		return -errno;
	a->now = want;
	a->avoided = CPU_COUNT(&a->own) - CPU_COUNT(&want);
	return 1;
}
