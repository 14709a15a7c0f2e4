/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Asynchronous tasks (issue 22; PersisDroid, "anatomizing" a UI event's
 * latency into the tasks it posts, each split into queue time and
 * execution). record --task-post / --task-run mark where a task is handed
 * off and where one starts running, each with the task's key (an argument's
 * value, a pointer); a task is a post matched with the next start of the
 * same key. Per task: the run that posted it (the run of its process whose
 * window holds the post, on the posting thread if several), its queue time
 * (posted -> started), its execution (the run call: its counters), the
 * worker that ran it, and its function (the first marked call inside the
 * run call, else the run function). A task that waited while the workers
 * ran other tasks has no wakeup linking it to its delay: the tasks whose
 * execution overlapped its queue time are what held it, charged with the
 * overlap.
 */
#ifndef XLP_TASKS_H
#define XLP_TASKS_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"

#define TASKS_NO_RUN UINT32_MAX

struct tasks_task {
	uint64_t key;
	uint64_t post_ns, start_ns, end_ns; /* end_ns: start_ns when its call was not recorded */
	uint32_t run;			    /* the run that posted it, TASKS_NO_RUN: none */
	uint32_t pid, post_tid, run_tid;
	uint32_t func;		  /* its function (dataset), DATASET_NO_FUNC when unknown */
	uint64_t ctr[XLP_NR_CTR]; /* its execution's counters (the run call's, inclusive) */
};

struct tasks_info {
	uint64_t posts, starts; /* events read */
	uint64_t tasks;		/* matched */
	uint64_t unstarted;	/* posted, never started in the trace */
	uint64_t unposted;	/* started with no post seen (posted before the recording) */
	uint64_t no_call;	/* started, but its run call not found (lost) */
};

struct tasks;

/*
 * The tasks of ds; *out NULL (and 0) when no file has task events.
 * Negative errno with a one-line "cause: fix" message on error.
 */
int tasks__build(const struct dataset *ds, struct tasks **out, char *err, size_t errlen);
void tasks__free(struct tasks *t); /* accepts NULL */
const struct tasks_info *tasks__info(const struct tasks *t);
size_t tasks__n(const struct tasks *t);
const struct tasks_task *tasks__task(const struct tasks *t, size_t i); /* by post time */

/*
 * What held task i in its queue: for each other task whose execution
 * overlapped it, fn(ctx, that task, overlap ns).
 */
void tasks__holders(const struct tasks *t, size_t i,
		    void (*fn)(void *ctx, const struct tasks_task *by, double ns), void *ctx);

#endif
