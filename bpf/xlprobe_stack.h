/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The stack sampling records of the BPF <-> user-space contract
 * (bpf/xlprobe.h includes them): samples, the user stack copies sent for
 * unwinding with CFI, the sampler's windows, and the stacks and frame
 * names the recorder writes. A concern of its own, read by the sampler,
 * the unwinder and symbolizer, and the readers of samples.
 */
#ifndef XLPROBE_STACK_H
#define XLPROBE_STACK_H

#include "xlprobe_format.h"

/*
 * ustack_err of an off-CPU sample whose user side was deferred to the
 * thread's return to user space (cfg_offcpu_lazy) and could not be taken
 * then: Linux errno values (BPF has no <errno.h>; user space checks them).
 */
#define XLP_ERR_SRCH                                                                               \
	3		  /* ESRCH: the thread exited, recording stopped, or it left the           \
			     CPU again from another user context first */
#define XLP_ERR_NOSPC 28  /* ENOSPC: more waits crossed a tick than XLP_OFF_PEND before it */
#define XLP_ERR_STALE 116 /* ESTALE: its user registers moved before the return */

/*
 * Stack sampling (record --sample, bpf/sample.bpf.c). The programs send a
 * sample with the kernel's stack-map ids; the recorder names the frames at
 * once (user/symbols/symbolize.h) and writes, before the first sample that needs
 * them, one xlp_sym_rec per distinct name and one xlp_stack_rec per
 * distinct stack, and in the sample the trace's stack ids instead.
 */
#define XLP_STACK_DEPTH 64 /* frames kept per stack (user and kernel each) */

enum xlp_sample_kind {
	XLP_SAMPLE_ON_CPU = 0, /* a timer tick (cpu-clock) found the thread on a CPU */
	/*
	 * Time off the CPU: a wait (runqueue or sleep, its reason in
	 * xlp_sample_rec.reason) that crossed weight_ns / period ticks of a
	 * virtual clock with the sampling period, charged as it ended with
	 * the stacks the thread had when it left the CPU. Off-CPU time is so
	 * sampled on the same grid as on-CPU time: a wait of d ns stands for
	 * d ns on average, and no more records come than ticks.
	 */
	XLP_SAMPLE_OFF_CPU = 1,
};

struct xlp_sample_rec {
	struct xlp_hdr h;
	__u32 pid; /* tgid */
	__u32 tid;
	__u64 time_ns;	 /* CLOCK_MONOTONIC */
	__u64 weight_ns; /* the time it stands for: the sampling period */
	/* In the trace, a stack id + 1 (0: no stack); from the programs, the
	 * kernel's stack-map id + 1. */
	__u32 ustack;
	__u32 kstack;
	/* 0, or why there is no stack: the negative errno of bpf_get_stackid
	 * (-EFAULT: no user stack, a kernel thread; -EEXIST: its hash bucket
	 * held another stack; -ENOMEM), or of reading it back, or for an
	 * off-CPU user stack to be taken late, why it was not (XLP_ERR_*) */
	__s32 ustack_err;
	__s32 kstack_err;
	__u32 kind;   /* enum xlp_sample_kind */
	__u32 reason; /* off-CPU: enum xlp_ctr of the wait (CPU_WAIT, DISK .. OTHER); on-CPU:
			 CPU_RUN */
};

/*
 * A sample as the programs send it (ring buffer only, h.size = 64): with
 * the return address a frame-pointer walk skipped (leaf_caller in
 * bpf/xlprobe.bpf.h), or 0. The recorder puts it into the user stack it
 * writes (XLP_FRAME_RECOVERED) and writes the xlp_sample_rec alone.
 */
struct xlp_sample_ev {
	struct xlp_sample_rec r;
	__u64 ucaller;
	__u64 useq; /* the xlp_ucopy_rec of its user stack (its seq), or 0 */
};

/*
 * The user stack as a sample found it, for unwinding with the binaries'
 * own CFI (.eh_frame, .debug_frame) at record time (user/symbols/stack_unwind.h): the
 * thread's user registers (those the kernel saved at its entry, x86-64
 * struct pt_regs order) and the stack's top len bytes from regs' sp. Ring
 * buffer only: sent just before its on-CPU sample, or at the switch-out
 * whose off-CPU sample (at the wait's end) names it by seq. A thread's
 * copies and samples arrive in order, so the recorder keeps its last one.
 */
#define XLP_UCOPY_MAX 16384 /* bytes: the copy size the recorder may choose */
#define XLP_UCOPY_NREGS 21  /* x86-64 struct pt_regs */
enum xlp_ucopy_reg {	    /* indices into xlp_ucopy_rec.regs */
		     XLP_UREG_R15 = 0,
		     XLP_UREG_R14,
		     XLP_UREG_R13,
		     XLP_UREG_R12,
		     XLP_UREG_BP,
		     XLP_UREG_BX,
		     XLP_UREG_R11,
		     XLP_UREG_R10,
		     XLP_UREG_R9,
		     XLP_UREG_R8,
		     XLP_UREG_AX,
		     XLP_UREG_CX,
		     XLP_UREG_DX,
		     XLP_UREG_SI,
		     XLP_UREG_DI,
		     XLP_UREG_ORIG_AX,
		     XLP_UREG_IP,
		     XLP_UREG_CS,
		     XLP_UREG_FLAGS,
		     XLP_UREG_SP,
		     XLP_UREG_SS,
};

/* xlp_sample_ev.useq when no copy was sent because the ring buffer was a
 * quarter full: the copies, the largest records, must not crowd out the
 * others (seqs of copies are at least 4096) */
#define XLP_UCOPY_SKIPPED 1

/* struct xlp_ucopy_rec.flags */
/* the copy stopped at the size asked (the stack may go on above it); else
 * at the first unreadable page: the stack's end, or a page not in memory */
#define XLP_UCOPY_CUT (1u << 0)

/*
 * A marked call's pending uretprobe: the return address it took (ret, put
 * back into the copy) and the function's entry (func). A function entered
 * by a tail call has no frame of its own, but its uretprobe is pending:
 * the unwinder puts it back between its caller and the code it jumped to.
 */
#define XLP_UCOPY_URET_MAX 8
struct xlp_ucopy_uret {
	__u64 ret;
	__u64 func;
};

struct xlp_ucopy_rec {
	struct xlp_hdr h; /* h.size: the header and len bytes */
	__u32 pid;
	__u32 tid;
	__u64 seq; /* != 0; unique in the recording */
	__u64 regs[XLP_UCOPY_NREGS];
	__u32 len;   /* bytes of the stack copied, from regs[XLP_UREG_SP] up */
	__u32 flags; /* XLP_UCOPY_* */
	__u32 nuret; /* uret[] entries, newest first */
	__u32 __pad;
	struct xlp_ucopy_uret uret[XLP_UCOPY_URET_MAX];
	/* then len bytes */
};

/*
 * The sampler's measured cost over one window of the recording and the
 * period it chose for the next (PerfProbe, section III-B): written by the
 * recorder at every change of period and at the end, so a reader knows
 * what every sample stood for and what sampling cost the traced threads.
 */
struct xlp_sampling_rec {
	struct xlp_hdr h;
	__u64 start_ns, end_ns; /* the window, CLOCK_MONOTONIC */
	__u64 period_ns;	/* the period during the window */
	__u64 next_period_ns;	/* the period chosen for what follows */
	__u64 cost_ns;		/* time the sampling programs took on traced threads */
	__u64 on_samples;	/* on-CPU samples taken */
	__u64 off_captures;	/* stacks taken as traced threads left a CPU */
	__u64 off_samples;	/* off-CPU samples sent */
	__u64 cpu_ns;		/* the traced threads' CPU time the bound is a share of */
	__u32 bound_ppm;	/* the overhead bound T, parts per million */
	__u32 flags;		/* XLP_SAMPLING_* */
	__u32 off_every;	/* a switch-out's stacks were taken with chance 1 / this */
	__u32 next_off_every;	/* and will be */
};

/* struct xlp_sampling_rec.flags */
#define XLP_SAMPLING_LAST (1u << 0) /* the recording's last window */
/* the bound could not be met: the off-CPU stacks cost more at the lowest rate */
#define XLP_SAMPLING_OVER (1u << 1)

/* struct xlp_stack_rec.flags */
#define XLP_STACK_KERNEL (1u << 0) /* kernel frames, else user frames */
/* the stack filled all XLP_STACK_DEPTH frames: outer frames may be cut */
#define XLP_STACK_FULL (1u << 1)
/*
 * How a user stack was unwound (bits 2-3; 0 in traces that predate it:
 * frame pointers) and where its unwinding stopped (bits 4-7; 0: not said).
 * user/symbols/stack_unwind.h tells the rules.
 */
#define XLP_STACK_METHOD_SHIFT 2
#define XLP_STACK_METHOD_MASK (3u << XLP_STACK_METHOD_SHIFT)
#define XLP_STACK_STOP_SHIFT 4
#define XLP_STACK_STOP_MASK (15u << XLP_STACK_STOP_SHIFT)
enum xlp_stack_method {
	XLP_UNWIND_FP = 0,    /* the kernel's frame-pointer walk */
	XLP_UNWIND_CFI = 1,   /* the binaries' CFI over the copied stack, to its last frame */
	XLP_UNWIND_MIXED = 2, /* CFI to the copy's end, then the frame-pointer walk */
};
enum xlp_stack_stop {
	XLP_STOP_UNSAID = 0,
	XLP_STOP_END = 1,    /* the outermost frame: its return address is undefined */
	XLP_STOP_COPY = 2,   /* the next frame lies above the copied bytes */
	XLP_STOP_NO_CFI = 3, /* a frame's code has no CFI, or is in no known file */
	XLP_STOP_BAD = 4,    /* a frame's CFI led nowhere (an unreadable or absurd address) */
	XLP_STOP_DEPTH = 5,  /* XLP_STACK_DEPTH frames */
	XLP_STOP_FP = 6,     /* the frame-pointer walk ended (a null or unreadable frame) */
	XLP_STOP_NR,
};

/* struct xlp_stack_frame.flags */
/* not from the frame-pointer walk: the return address it skipped, found on
 * the stack just above a frameless function's (leaf_caller) */
#define XLP_FRAME_RECOVERED (1u << 0)

struct xlp_stack_frame {
	__u32 sym;    /* xlp_sym_rec id */
	__u32 flags;  /* XLP_FRAME_* (0 in traces that predate them) */
	__u64 offset; /* from the symbol's start (or in the file, see xlp_sym_rec.kind) */
};

/* A distinct stack, innermost frame first. h.size covers nframes frames. */
struct xlp_stack_rec {
	struct xlp_hdr h;
	__u32 id;
	__u16 nframes;
	__u16 flags; /* XLP_STACK_* */
	struct xlp_stack_frame frames[];
};

/* struct xlp_sym_rec.kind (user/symbols/symbolize.h's enum xsym_kind) */
#define XLP_SYM_FUNCTION 0 /* a function; frames' offsets from its start */
#define XLP_SYM_FILE 1	   /* a file without a symbol there: "[base+0xOFF]" */
#define XLP_SYM_UNKNOWN 2  /* nothing known: "[unknown]" */

/*
 * struct xlp_sym_rec.source: what named the frame (user/symbols/private/elfsym_int.h
 * says where each is looked for). 0 in traces that predate the field, and
 * for frames nothing named (XLP_SYM_FILE, XLP_SYM_UNKNOWN).
 */
#define XLP_SYM_SRC_UNSAID 0
#define XLP_SYM_SRC_SYMTAB 1	    /* the file's own .symtab */
#define XLP_SYM_SRC_DYNSYM 2	    /* the file's .dynsym (exported functions only) */
#define XLP_SYM_SRC_BUILD_ID 3	    /* /usr/lib/debug/.build-id/xx/yyyy.debug */
#define XLP_SYM_SRC_DEBUGLINK 4	    /* the file .gnu_debuglink names */
#define XLP_SYM_SRC_DEBUGINFOD 5    /* the debuginfod client's cache */
#define XLP_SYM_SRC_MINIDEBUGINFO 6 /* .gnu_debugdata: the xz-compressed ELF inside the file */
#define XLP_SYM_SRC_KALLSYMS 7	    /* /proc/kallsyms (kernel frames) */
#define XLP_SYM_SRC_JITDUMP 8	    /* a JIT runtime's jitdump (jit-PID.dump) */
#define XLP_SYM_SRC_PERFMAP 9	    /* a JIT runtime's perf map (/tmp/perf-PID.map) */

/*
 * A frame's name: text holds module_len bytes of the module (a file's
 * basename, or "[kernel]" / a kernel module's name), then name_len bytes
 * of the name, neither NUL-terminated; h.size covers them, padded to 8.
 */
struct xlp_sym_rec {
	struct xlp_hdr h;
	__u32 id;
	__u16 kind;
	__u16 module_len;
	__u16 name_len;
	__u16 source; /* XLP_SYM_SRC_* */
	__u16 __pad[2];
	char text[];
};

#ifndef __cplusplus
_Static_assert(sizeof(struct xlp_sample_rec) == 56, "xlp_sample_rec layout");
_Static_assert(sizeof(struct xlp_sample_ev) == 72, "xlp_sample_ev layout");
_Static_assert(sizeof(struct xlp_ucopy_rec) ==
		       8 + 16 + 8 * XLP_UCOPY_NREGS + 16 + 16 * XLP_UCOPY_URET_MAX,
	       "xlp_ucopy_rec layout");
_Static_assert(sizeof(struct xlp_ucopy_rec) + XLP_UCOPY_MAX < 65536, "a copy fits xlp_hdr.size");
_Static_assert(sizeof(struct xlp_sampling_rec) == 96, "xlp_sampling_rec layout");
_Static_assert(sizeof(struct xlp_stack_frame) == 16, "xlp_stack_frame layout");
_Static_assert(sizeof(struct xlp_stack_rec) == 16, "xlp_stack_rec layout");
_Static_assert(sizeof(struct xlp_sym_rec) == 24, "xlp_sym_rec layout");
_Static_assert(__builtin_offsetof(struct xlp_sym_rec, source) == 18,
	       "xlp_sym_rec.source: the first reserved u16 of older files");
_Static_assert(sizeof(struct xlp_stack_rec) + 2 * XLP_STACK_DEPTH * sizeof(struct xlp_stack_frame) <
		       65536,
	       "a stack record fits xlp_hdr.size");
#endif

#endif /* XLPROBE_STACK_H */
