/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A sampled user stack's frames, however they were found (record
 * --sample). Two unwinders behind one call, unwind__stack():
 *
 * - frame pointers: the kernel's walk (bpf_get_stackid, BPF_F_USER_STACK),
 *   frames as build-id + file offset. Fast, and right in code built with
 *   frame pointers; it stops or skips callers in code built without them
 *   (Debian's glibc, nginx, redis) and in frameless leaves.
 * - CFI: the thread's user registers and the top of its stack, copied by
 *   the sampling programs (struct xlp_ucopy_rec), unwound here with the
 *   binaries' own .eh_frame / .debug_frame through elfutils' libdw (one
 *   Dwfl per process, its modules from /proc/PID/maps). Where the copy
 *   ends before the stack does, the frame-pointer walk's frames above the
 *   last frame both found are appended (mixed).
 *
 * The result says which (enum xlp_stack_method) and why the unwinding
 * stopped (enum xlp_stack_stop). Built without libdw (make NO_LIBDW=1, the
 * static builds), only the frame pointers remain.
 */
#ifndef XLP_STACK_UNWIND_H
#define XLP_STACK_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "xlprobe.h"

enum unwind_frame_kind {
	UNWIND_ADDR = 0,     /* ip: an address in the process */
	UNWIND_BUILD_ID = 1, /* build_id + offset: a file and the offset in it */
};

struct unwind_frame {
	enum unwind_frame_kind kind;
	/* a return address (every frame but an interrupted one): the call is
	 * just before it, and that is where to look its function up */
	bool ret;
	uint64_t ip;
	unsigned char build_id[BPF_BUILD_ID_SIZE];
	uint64_t offset;
};

/* The copied stack (xlp_ucopy_rec): registers in its order, len bytes from regs' sp. */
struct unwind_copy {
	const uint64_t *regs; /* XLP_UCOPY_NREGS */
	const uint8_t *data;
	size_t len;
	bool cut; /* XLP_UCOPY_CUT: the stack may go on above the copy */
	/* the thread's pending uretprobes, newest first (xlp_ucopy_rec.uret) */
	const struct xlp_ucopy_uret *uret;
	size_t nuret;
};

struct unwind_in {
	int pid, tid;
	/* the kernel's frame-pointer walk, innermost first; NULL if none */
	const struct bpf_stack_build_id *fp;
	size_t nfp;
	const struct unwind_copy *copy; /* NULL if none */
};

struct unwind_out {
	struct unwind_frame f[XLP_STACK_DEPTH];
	size_t n;
	enum xlp_stack_method method;
	enum xlp_stack_stop stop;
	size_t ncfi;		      /* of the n frames, the first ncfi came from CFI */
	enum xlp_stack_stop cfi_stop; /* why CFI stopped (mixed: before the walk went on) */
};

struct unwinder;

/* Returns 0 or -ENOMEM. */
int unwinder__new(struct unwinder **out);
void unwinder__free(struct unwinder *u); /* NULL is fine */

/*
 * Read pid's mappings and load the CFI of every module now, so that the
 * first samples do not pay for it: done at attach, before the target is
 * released, it keeps that cost out of the first runs (the recorder then
 * loads ELF files for tens of ms, on whatever CPU, beside the target).
 * 0, or -ESRCH when pid's mappings cannot be read.
 */
int unwinder__prepare(struct unwinder *u, int pid);

/* Whether CFI unwinding was built in (libdw). */
bool unwinder__has_cfi(void);

/*
 * The frames of in's stack into *out: by CFI from in->copy when there is
 * one and its first frame unwinds, else the frame-pointer walk. Returns 0
 * (out->n may be 0: nothing known), -ENOMEM.
 */
int unwind__stack(struct unwinder *u, const struct unwind_in *in, struct unwind_out *out);

#endif
