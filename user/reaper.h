/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Destroys BPF links on a thread of its own. Closing a uprobe's perf event
 * waits for the kernel to know that no CPU still runs its handler (an RCU
 * grace period: 100-160 ms each on this VM), and the recorder must not
 * wait that long between ring buffer reads: a process forked meanwhile
 * would go unprobed.
 */
#ifndef XLP_REAPER_H
#define XLP_REAPER_H

struct bpf_link;
struct reaper;

/* 0 or a negative errno. */
int reaper__new(struct reaper **out);
/* Destroys link soon; at once, on the caller's thread, if that fails. */
void reaper__put(struct reaper *rp, struct bpf_link *link);
/* Destroys what is queued, then stops the thread. NULL is accepted. */
void reaper__free(struct reaper *rp);

#endif
