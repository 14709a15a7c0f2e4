/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Syscall entry and exit of traced threads: the first witness of why a
 * thread sleeps. Entry only notes the number and two arguments; the fd is
 * looked at if and when the thread blocks (bpf/reasons.bpf.h), since most
 * syscalls never do. These fire for every syscall on the machine, so the
 * untraced path is the bitmap test and nothing else.
 */
#include "reasons.bpf.h"

/* The syscall's first two arguments: direct loads from the typed regs. */
#if defined(__TARGET_ARCH_x86)
#define SYS_ARG0(regs) ((regs)->di)
#define SYS_ARG1(regs) ((regs)->si)
#define SYS_NR(regs) ((long)(regs)->orig_ax)
#else
#define SYS_ARG0(regs) PT_REGS_PARM1_CORE_SYSCALL(regs)
#define SYS_ARG1(regs) PT_REGS_PARM2_CORE_SYSCALL(regs)
#define SYS_NR(regs) (-1L)
#endif

SEC("tp_btf/sys_enter")
int BPF_PROG(xlp_sys_enter, struct pt_regs *regs, long id)
{
	struct xlp_thread *t;

	/* uretprobes return through a syscall of their own (since 6.11): one
	 * per marked call, and never a wait */
	if (id == XLP_NR_uretprobe)
		return 0;
	t = thread_get_current();
	if (!t)
		return 0;
	ev_sys_enter(t, id, SYS_ARG0(regs), SYS_ARG1(regs));
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(xlp_sys_exit, struct pt_regs *regs, long ret)
{
	struct xlp_thread *t;

	if (SYS_NR(regs) == XLP_NR_uretprobe)
		return 0;
	t = thread_get_current();
	if (!t)
		return 0;
	ev_sys_exit(t, proc_get(t), ret, true);
	return 0;
}
