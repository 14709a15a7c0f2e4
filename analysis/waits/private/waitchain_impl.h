/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the wait-chain files share (waitchain.c: the timeline and the
 * walk; waitchain_thief.c: who ran while a blocker waited for a CPU;
 * waitchain_blockers.c: the pieces summed per blocker). Not an API.
 */
#ifndef XLP_WAITCHAIN_IMPL_H
#define XLP_WAITCHAIN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dataset.h"
#include "waitchain.h"

/* One thief record (struct xlp_thief_rec) of a file, its thieves in place. */
struct waitchain_thief_rec {
	uint32_t tid, pid;
	uint64_t start, end; /* the wait: [end - wait_ns, end) */
	uint32_t n;
	struct xlp_thief t[XLP_THIEF_MAX];
};

enum seg_state { SEG_UNKNOWN = 0, SEG_RUN, SEG_RUNNABLE, SEG_SLEEP };

struct ev {
	uint64_t t;
	uint32_t tid, pid, arg;
	uint32_t seq; /* file order: ties keep it */
	uint16_t kind, detail;
};

struct seg {
	uint64_t start, end;
	uint32_t waker;	 /* SEG_SLEEP ended by a wakeup: its waker tid */
	uint16_t state;	 /* enum seg_state */
	uint16_t reason; /* SEG_SLEEP: the wakeup's reason */
	bool woken;	 /* SEG_SLEEP: ended by a wakeup (else by a switch-in, or never) */
};

struct thr {
	uint32_t tid, pid;
	size_t off, n;	 /* segs[off .. off + n) */
	size_t coff, nc; /* calls[coff .. coff + nc) */
};

/* A marked call of a thread on the timeline. */
struct call {
	uint64_t entry, end;
	uint32_t tid;
	uint32_t func;	 /* dataset function */
	uint32_t parent; /* index of the nearest call enclosing it, DATASET_NONE: none */
};

struct name {
	uint32_t pid, tid, seq;
	char comm[XLP_COMM_LEN];
};

/* One file's timeline. */
struct tl {
	struct ev *ev;
	size_t nev, evcap;
	struct seg *segs;
	size_t nsegs, segcap;
	struct thr *thr;
	size_t nthr;
	struct name *names;
	size_t nnames, namecap;
	struct call *calls;
	size_t ncalls, callcap;
	/* the thief records of the file (waitchain_thief.c), by tid then end */
	struct waitchain_thief_rec *trecs;
	size_t ntrecs, trecap;
	uint32_t *forked; /* pids the traced processes forked */
	size_t nforked, forkcap;
	const struct dataset *ds;
	size_t fi; /* the file of the calls */
};

struct waitchain {
	struct waitchain_info info;
	size_t nruns;
	size_t *poff, *woff; /* per run + 1: pieces, waits */
	struct waitchain_piece *pieces;
	size_t npieces, pcap;
	struct waitchain_wait *waits;
	size_t nwaits, wcap;
	struct dataset_thief *thieves; /* the cpu_wait pieces' (waitchain_piece.thief_first) */
	size_t nthieves, tcap;
};

/* The walk of one run. */
struct walk {
	struct waitchain *wc;
	const struct tl *tl;
	unsigned max_depth;
	uint32_t tid;	/* the run's thread */
	uint32_t waker; /* first hop of the current sleep */
	uint32_t chain[WAITCHAIN_MAX_DEPTH + 2];
	size_t nchain;
	size_t run_first; /* first piece of the run */
};

/* realloc to hold need elements (doubling); NULL on ENOMEM (p kept) */
void *waitchain__grow(void *p, size_t *cap, size_t need, size_t size);
/* A new last element of *arr (*n of them, room for *cap): its address, NULL on ENOMEM. */
void *waitchain__push(void **arr, size_t *n, size_t *cap, size_t size);
#define PUSH(arr, n, cap) waitchain__push((void **)&(arr), &(n), &(cap), sizeof(*(arr)))

/* waitchain_thief.c: a thief or fork record of the file into tl (others: 0) */
int waitchain_thief__record(struct tl *tl, const struct xlp_hdr *h);
/* once the file is read: the records in order */
void waitchain_thief__sort(struct tl *tl);
/* the thieves of the cpu_wait pieces [first, wc->npieces) */
int waitchain_thief__pieces(struct waitchain *wc, const struct tl *tl, size_t first);
void waitchain_thief__free(struct tl *tl);

#endif
