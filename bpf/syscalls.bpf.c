/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Syscall entry and exit of traced threads: the first witness of why a
 * thread sleeps. Entry only notes the number and two arguments; the fd is
 * looked at if and when the thread blocks (bpf/reasons.bpf.h), since most
 * syscalls never do. These fire for every syscall on the machine, so the
 * untraced path is the bitmap test and nothing else.
 */
#include "reasons.bpf.h"

SEC("tp_btf/sys_enter")
int BPF_PROG(xlp_sys_enter, struct pt_regs *regs, long id)
{
	struct xlp_thread *t = thread_get((__u32)bpf_get_current_pid_tgid());

	if (!t)
		return 0;
	ev_sys_enter(t, id, PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs));
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(xlp_sys_exit, struct pt_regs *regs, long ret)
{
	struct xlp_thread *t = thread_get((__u32)bpf_get_current_pid_tgid());

	if (!t)
		return 0;
	ev_sys_exit(t, proc_get(t), ret, true);
	return 0;
}
