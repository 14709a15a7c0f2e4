/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A process's JIT code names (jitproc.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jitdump.h"
#include "xlprobe.h" /* XLP_SYM_SRC_* */
#include "jitproc.h"
#include "perfmap.h"
#include "util.h"

struct jitproc {
	int pid, nspid;
	struct jit_owner own;
	struct perfmap *map;
	struct jitdump *dump;
	char *dump_path; /* as the process sees it */
	ino_t dump_ino;
	bool map_refused, dump_refused; /* not read again: counted once */
	uint64_t last_read;		/* CLOCK_MONOTONIC; 0: never */
};

/* Uid: and NSpid: of /proc/PID/status. */
static int status_read(struct jitproc *j)
{
	char path[64], line[512];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", j->pid);
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT ? -ESRCH : -errno;
	j->nspid = j->pid;
	while (fgets(line, sizeof(line), fp)) {
		unsigned u[4];
		char *p, *last = NULL, *save = NULL;
		int n;

		if (!strncmp(line, "Uid:", 4)) {
			n = sscanf(line + 4, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]);
			for (int i = 0; i < n; i++)
				j->own.uid[i] = (uid_t)u[i];
			j->own.n = n > 0 ? (size_t)n : 0;
		} else if (!strncmp(line, "NSpid:", 6)) {
			/* the last is the pid in the process's own namespace */
			for (p = strtok_r(line + 6, " \t\n", &save); p;
			     p = strtok_r(NULL, " \t\n", &save))
				last = p;
			if (last && atoi(last) > 0)
				j->nspid = atoi(last);
		}
	}
	fclose(fp);
	return j->own.n ? 0 : -ESRCH;
}

int jitproc__new(int pid, struct jitproc **out)
{
	struct jitproc *j = calloc(1, sizeof(*j));
	int err;

	*out = NULL;
	if (!j)
		return -ENOMEM;
	j->pid = pid;
	err = status_read(j);
	if (!err && perfmap__new(&j->map))
		err = -ENOMEM;
	if (err) {
		jitproc__free(j);
		return err;
	}
	*out = j;
	return 0;
}

void jitproc__free(struct jitproc *j)
{
	if (!j)
		return;
	perfmap__free(j->map);
	jitdump__free(j->dump);
	free(j->dump_path);
	free(j);
}

int jitproc__set_dump(struct jitproc *j, const char *path, ino_t ino)
{
	char *p;

	if (j->dump_path && !strcmp(j->dump_path, path) && j->dump_ino == ino)
		return 0;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	if (!j->dump && jitdump__new(&j->dump)) {
		free(p);
		return -ENOMEM;
	}
	free(j->dump_path);
	j->dump_path = p;
	j->dump_ino = ino;
	j->dump_refused = false;
	j->last_read = 0;
	return 0;
}

uint64_t jitproc__tail(const struct jitproc *j)
{
	return j->dump ? jitdump__tail(j->dump) : 0;
}

/* Reads what the files added since the last time. */
static void reread(struct jitproc *j, struct jit_counts *c)
{
	char path[PATH_MAX + 64];

	if (j->dump && !j->dump_refused &&
	    snprintf(path, sizeof(path), "/proc/%d/root%s", j->pid, j->dump_path) <
		    (int)sizeof(path))
		j->dump_refused = jitdump__update(j->dump, path, j->dump_ino, &j->own, c) == -EPERM;
	if (!j->map_refused) {
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", j->pid, j->nspid);
		j->map_refused = perfmap__update(j->map, path, &j->own, c) == -EPERM;
	}
}

void jitproc__read(struct jitproc *j, struct jit_counts *c)
{
	j->last_read = xlp_now_ns();
	reread(j, c);
}

static int lookup(struct jitproc *j, uint64_t addr, uint64_t time, struct jitsym *out)
{
	if (j->dump && !jitdump__find(j->dump, addr, time, out)) {
		out->source = XLP_SYM_SRC_JITDUMP;
		return 0;
	}
	if (perfmap__find(j->map, addr, out))
		return -ENOENT;
	out->source = XLP_SYM_SRC_PERFMAP;
	return 0;
}

int jitproc__find(struct jitproc *j, uint64_t addr, uint64_t time, struct jit_counts *c,
		  struct jitsym *out)
{
	uint64_t now;

	if (!lookup(j, addr, time, out))
		return 0;
	now = xlp_now_ns();
	if (j->last_read && now - j->last_read < JITPROC_REREAD_NS)
		return -ENOENT;
	j->last_read = now;
	reread(j, c);
	return lookup(j, addr, time, out);
}
