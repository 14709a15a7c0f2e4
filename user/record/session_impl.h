/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The session's state, shared by the files that implement struct session
 * (session.c: open, targets, drain, stop; session_funcs.c: the uprobes and
 * USDT probes; session_counts.c: the programs' counters; session_sample.c:
 * stack sampling). Private to them: the rest of the recorder sees
 * session.h only.
 */
#ifndef XLP_SESSION_IMPL_H
#define XLP_SESSION_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <bpf/libbpf.h>
#include "xlprobe.h"
#include "xlprobe.skel.h"
#include "session.h"

#define MAX_LINKS 64
#define ITER_BUF (96 * 1024) /* > bpf_seq_read's 8 pages + the largest record (64 KiB) */

/* A perf-event uprobe's libbpf link, or a uprobe_multi link's fd. */
struct func_link {
	struct bpf_link *link;
	int fd;
	pid_t pid;
};

struct session {
	struct xlprobe_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[MAX_LINKS]; /* tracepoints, for the whole session */
	int nlinks;
	/* record --sample: a perf event per CPU, owned by its link */
	struct bpf_link **sample_links;
	int *sample_fds; /* their perf events, whose period the sampler adapts */
	int nsample;
	struct func_link *flinks; /* uprobes, until detached */
	size_t nflinks, cap_flinks;
	bool umulti; /* uprobes through uprobe_multi links */
	uint32_t features;
	char notes[1024];
	session_record_fn on_record;
	void *ctx;
	uint64_t rb_records, rb_bytes; /* delivered by the ring buffer so far */
};

#endif
