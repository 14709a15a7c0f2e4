/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Syscall numbers the wait classification needs, and where a task's saved
 * registers hold the number and arguments. They are ABI, not BTF, so
 * CO-RE cannot relocate them: one table per architecture (x86-64 from
 * arch/x86/entry/syscalls/syscall_64.tbl, arm64 from the generic
 * include/uapi/asm-generic/unistd.h). -1: the architecture lacks it.
 */
#ifndef XLP_SYSCALLS_BPF_H
#define XLP_SYSCALLS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* the number (-1 outside a syscall) and first two arguments of the
 * syscall a task is in, from its saved user registers; direct loads */
#if defined(__TARGET_ARCH_x86)
#define SYS_NR(regs) ((long)(regs)->orig_ax)
#define SYS_ARG0(regs) ((regs)->di)
#define SYS_ARG1(regs) ((regs)->si)
#elif defined(__TARGET_ARCH_arm64)
#define SYS_NR(regs) ((long)(regs)->syscallno)
#define SYS_ARG0(regs) ((regs)->orig_x0) /* x0 becomes the return value */
#define SYS_ARG1(regs) ((regs)->regs[1])
#endif

/* clang-format off */
#if defined(__TARGET_ARCH_x86)
enum {
	XLP_NR_read = 0, XLP_NR_write = 1, XLP_NR_poll = 7, XLP_NR_ioctl = 16,
	XLP_NR_pread64 = 17, XLP_NR_pwrite64 = 18, XLP_NR_readv = 19, XLP_NR_writev = 20,
	XLP_NR_select = 23, XLP_NR_nanosleep = 35, XLP_NR_sendfile = 40, XLP_NR_connect = 42,
	XLP_NR_accept = 43, XLP_NR_sendto = 44, XLP_NR_recvfrom = 45, XLP_NR_sendmsg = 46,
	XLP_NR_recvmsg = 47, XLP_NR_wait4 = 61, XLP_NR_semop = 65, XLP_NR_msgrcv = 70,
	XLP_NR_fcntl = 72, XLP_NR_flock = 73, XLP_NR_fsync = 74, XLP_NR_fdatasync = 75,
	XLP_NR_sync = 162, XLP_NR_futex = 202, XLP_NR_io_getevents = 208,
	XLP_NR_semtimedop = 220, XLP_NR_clock_nanosleep = 230, XLP_NR_epoll_wait = 232,
	XLP_NR_mq_timedreceive = 243, XLP_NR_waitid = 247, XLP_NR_pselect6 = 270,
	XLP_NR_ppoll = 271, XLP_NR_splice = 275, XLP_NR_sync_file_range = 277,
	XLP_NR_epoll_pwait = 281, XLP_NR_accept4 = 288, XLP_NR_preadv = 295,
	XLP_NR_pwritev = 296, XLP_NR_recvmmsg = 299, XLP_NR_syncfs = 306, XLP_NR_sendmmsg = 307,
	XLP_NR_preadv2 = 327, XLP_NR_pwritev2 = 328, XLP_NR_epoll_pwait2 = 441,
	XLP_NR_futex_waitv = 449,
};
#elif defined(__TARGET_ARCH_arm64)
enum {
	XLP_NR_read = 63, XLP_NR_write = 64, XLP_NR_poll = -1, XLP_NR_ioctl = 29,
	XLP_NR_pread64 = 67, XLP_NR_pwrite64 = 68, XLP_NR_readv = 65, XLP_NR_writev = 66,
	XLP_NR_select = -1, XLP_NR_nanosleep = 101, XLP_NR_sendfile = 71, XLP_NR_connect = 203,
	XLP_NR_accept = 202, XLP_NR_sendto = 206, XLP_NR_recvfrom = 207, XLP_NR_sendmsg = 211,
	XLP_NR_recvmsg = 212, XLP_NR_wait4 = 260, XLP_NR_semop = 193, XLP_NR_msgrcv = 188,
	XLP_NR_fcntl = 25, XLP_NR_flock = 32, XLP_NR_fsync = 82, XLP_NR_fdatasync = 83,
	XLP_NR_sync = 81, XLP_NR_futex = 98, XLP_NR_io_getevents = 4, XLP_NR_semtimedop = 192,
	XLP_NR_clock_nanosleep = 115, XLP_NR_epoll_wait = -1, XLP_NR_mq_timedreceive = 183,
	XLP_NR_waitid = 95, XLP_NR_pselect6 = 72, XLP_NR_ppoll = 73, XLP_NR_splice = 76,
	XLP_NR_sync_file_range = 84, XLP_NR_epoll_pwait = 22, XLP_NR_accept4 = 242,
	XLP_NR_preadv = 69, XLP_NR_pwritev = 70, XLP_NR_recvmmsg = 243, XLP_NR_syncfs = 267,
	XLP_NR_sendmmsg = 269, XLP_NR_preadv2 = 286, XLP_NR_pwritev2 = 287,
	XLP_NR_epoll_pwait2 = 441, XLP_NR_futex_waitv = 449,
};
#else
#error "syscall numbers: add a table for this architecture"
#endif
/* clang-format on */

/* read/write-like: the first argument is the fd blocked on */
static __always_inline bool sc_is_fd_io(long nr)
{
	return nr == XLP_NR_read || nr == XLP_NR_write || nr == XLP_NR_pread64 ||
	       nr == XLP_NR_pwrite64 || nr == XLP_NR_readv || nr == XLP_NR_writev ||
	       nr == XLP_NR_preadv || nr == XLP_NR_pwritev || nr == XLP_NR_preadv2 ||
	       nr == XLP_NR_pwritev2 || nr == XLP_NR_recvfrom || nr == XLP_NR_sendto ||
	       nr == XLP_NR_recvmsg || nr == XLP_NR_sendmsg || nr == XLP_NR_recvmmsg ||
	       nr == XLP_NR_sendmmsg || nr == XLP_NR_accept || nr == XLP_NR_accept4 ||
	       nr == XLP_NR_connect || nr == XLP_NR_splice || nr == XLP_NR_sendfile ||
	       nr == XLP_NR_ioctl;
}

static __always_inline bool sc_is_disk(long nr)
{
	return nr == XLP_NR_fsync || nr == XLP_NR_fdatasync || nr == XLP_NR_sync_file_range ||
	       nr == XLP_NR_sync || nr == XLP_NR_syncfs || nr == XLP_NR_io_getevents;
}

static __always_inline bool sc_is_timer(long nr)
{
	return nr == XLP_NR_nanosleep || nr == XLP_NR_clock_nanosleep;
}

/* System V / POSIX IPC, and waiting for another process to exit */
static __always_inline bool sc_is_ipc(long nr)
{
	return nr == XLP_NR_semop || nr == XLP_NR_semtimedop || nr == XLP_NR_msgrcv ||
	       nr == XLP_NR_mq_timedreceive || nr == XLP_NR_wait4 || nr == XLP_NR_waitid;
}

static __always_inline bool sc_is_poll(long nr)
{
	return nr == XLP_NR_poll || nr == XLP_NR_ppoll || nr == XLP_NR_select ||
	       nr == XLP_NR_pselect6 || nr == XLP_NR_epoll_wait || nr == XLP_NR_epoll_pwait ||
	       nr == XLP_NR_epoll_pwait2;
}

static __always_inline bool sc_has_pollfds(long nr)
{
	return nr == XLP_NR_poll || nr == XLP_NR_ppoll;
}

#endif
