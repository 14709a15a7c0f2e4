/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a thread sleeps: every sleep interval gets exactly one reason among
 * disk, net, ipc, lock, timer and other. Witnesses, in order of trust:
 *   1. the syscall the thread sleeps in, read from its saved user registers
 *      when it blocks, and the type of its fd (from task->files): a read on
 *      a socket of family AF_INET is network whoever wakes it;
 *   2. the waker (bpf/waker.bpf.c): an expiring hrtimer, the NET or BLOCK
 *      softirq, a thread of our own or of another process, a kernel thread;
 *      with block requests in flight, a kernel-context wakeup is I/O;
 *   3. the sleep state: uninterruptible outside a syscall is a page fault
 *      waiting for I/O.
 * The reason is decided at the wakeup, when the waker is known, and charged
 * with the sleep. No syscall tracepoint is involved: raw_syscalls would put
 * every syscall of the machine on the kernel's slow path (~100 ns each
 * here, uretprobe returns included: docs/overhead.md), for a number the
 * registers of a blocked task still hold. The helpers take scalars so that
 * bpf/selftest.bpf.c can drive them with bpf_prog_test_run_opts.
 */
#ifndef XLP_REASONS_BPF_H
#define XLP_REASONS_BPF_H

#include "xlprobe.bpf.h"
#include "syscalls.bpf.h"

#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define S_IFREG 0100000
#define S_IFBLK 0060000
#define S_IFCHR 0020000
#define S_IFIFO 0010000
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define PF_KTHREAD 0x00200000
#define TF_ONE_WAY 0x01

static __always_inline bool name_has(const char *buf, const char *word, int wlen)
{
	for (int i = 0; i < 4; i++) {
		bool match = true;

		for (int j = 0; j < wlen; j++) {
			if (buf[i + j] != word[j]) {
				match = false;
				break;
			}
		}
		if (match)
			return true;
	}
	return false;
}

/* The reason a file's type implies, or XLP_SC_WAKER when it implies none. */
static __always_inline __u32 file_class(struct file *f)
{
	struct socket *sock;
	char name[16] = {};
	__u16 family;
	umode_t mode;

	mode = BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT;
	if (mode == S_IFREG || mode == S_IFBLK)
		return XLP_C_DISK;
	if (mode == S_IFIFO)
		return XLP_C_IPC;
	if (mode == S_IFSOCK) {
		sock = BPF_CORE_READ(f, private_data);
		family = BPF_CORE_READ(sock, sk, __sk_common.skc_family);
		if (family == AF_UNIX)
			return XLP_C_IPC;
		if (family == AF_INET || family == AF_INET6)
			return XLP_C_NET;
		return XLP_SC_WAKER;
	}
	/* binder devices (binder, hwbinder, vndbinder) and timerfd by name:
	 * neither has a type of its own in i_mode */
	bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(f, f_path.dentry, d_name.name));
	if (mode == S_IFCHR && name_has(name, "binder", 6))
		return XLP_C_IPC;
	if (name_has(name, "[timerfd", 8))
		return XLP_C_TIMER;
	return XLP_SC_WAKER;
}

/*
 * The class of fd in current's table. The last file classified is cached per
 * thread: a thread that blocks on the same socket or pipe again and again
 * pays one read of its fd table entry, not the walk to the socket family.
 */
static __always_inline __u32 fd_class(struct xlp_thread *t, int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	struct file *f = NULL;
	__u64 key;

	if (!fdt || fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return XLP_SC_WAKER;
	bpf_probe_read_kernel(&f, sizeof(f), fdt->fd + fd);
	if (!f)
		return XLP_SC_WAKER;
	/* keyed by file and inode: a freed file's memory may come back as
	 * another kind of file */
	key = (__u64)f ^ ((__u64)BPF_CORE_READ(f, f_inode) << 1);
	if (key != t->sys.fd_file) {
		t->sys.fd_class = file_class(f);
		t->sys.fd_file = key;
	}
	return t->sys.fd_class;
}

static __always_inline __u32 futex_class(__u64 op)
{
	/* FUTEX_WAIT, FUTEX_LOCK_PI, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI,
	 * FUTEX_LOCK_PI2, without the PRIVATE / CLOCK_REALTIME flags */
	switch (op & 127) {
	case 0:
	case 6:
	case 9:
	case 11:
	case 13:
		return XLP_SC_FUTEX;
	}
	return XLP_SC_WAKER;
}

/*
 * The syscall task (current, about to sleep) is in, and its first two
 * arguments, from the registers saved at kernel entry: -1 when it is not in
 * a syscall. The entry of an exception sets orig_ax (x86) / syscallno
 * (arm64) to -1, so a page fault, even one taken inside a syscall's copy
 * to user space, is told apart (the outermost entry is the one saved here).
 */
static __always_inline long task_syscall(struct task_struct *task, __u64 *a0, __u64 *a1)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	if (!regs)
		return -1;
	*a0 = SYS_ARG0(regs);
	*a1 = SYS_ARG1(regs);
	return SYS_NR(regs);
}

/*
 * Classifies syscall nr (arguments a0, a1) that current sleeps in. A global
 * function, verified once: its walk from the task to the file (see
 * xlp_rq_clock) and its name matching, inlined, were verified again on
 * each path of the switch program that reached them.
 */
__weak __noinline __u32 xlp_sys_class(struct xlp_thread *t, long nr, __u64 a0, __u64 a1)
{
	int fd0 = -1;

	if (!t)
		return XLP_SC_WAKER;
	if (sc_is_fd_io(nr))
		return fd_class(t, (int)a0);
	if (sc_is_disk(nr))
		return XLP_C_DISK;
	if (sc_is_timer(nr))
		return XLP_C_TIMER;
	if (sc_is_ipc(nr))
		return XLP_C_IPC;
	if (nr == XLP_NR_futex)
		return futex_class(a1);
	if (nr == XLP_NR_futex_waitv)
		return XLP_SC_FUTEX;
	if (nr == XLP_NR_flock || (nr == XLP_NR_fcntl && (a1 == 7 || a1 == 38)))
		return XLP_C_LOCK; /* F_SETLKW, F_OFD_SETLKW */
	/* poll/ppoll: the first pollfd's fd stands for the set */
	if (sc_has_pollfds(nr) && a1 && !bpf_probe_read_user(&fd0, sizeof(fd0), (void *)a0))
		return fd_class(t, fd0);
	return XLP_SC_WAKER;
}

/* What the waker alone says. */
static __always_inline __u32 waker_reason(struct xlp_thread *t)
{
	__u16 dev = waker_device_reason(t->waker.kind);

	if (t->waker.kind == XLP_W_OTHER_PROC)
		return XLP_C_IPC;
	return dev ? dev : XLP_C_OTHER;
}

/* Reason of a sleep inside a syscall, as far as its waker is known. */
static __always_inline __u32 sys_reason(struct xlp_thread *t)
{
	__u32 cls = t->sys.class;

	/* the transaction's own ioctl; any other sleep while it is open (a
	 * signal handler's nanosleep) is what that sleep is */
	if (t->ipc.binder_wait && t->sys.nr1 == XLP_NR_ioctl + 1)
		return XLP_C_IPC;
	/* a poll-like call woken by an expiring timer timed out, whatever
	 * its fds are */
	if ((t->sys.flags & XLP_SYS_POLL) && t->waker.kind == XLP_W_TIMER)
		return XLP_C_TIMER;
	/*
	 * Woken by a block completion, or by a kernel context while the
	 * thread's own requests were in flight (ev_waker()): it waited for the
	 * disk, whichever fd the syscall names. sendfile, splice and
	 * copy_file_range from a file to a socket, or a page fault inside a
	 * socket write, sleep on the file's pages with a socket for an fd.
	 */
	if (t->waker.kind == XLP_W_BLOCK || (t->sys.flags & XLP_SYS_IOWAIT))
		return XLP_C_DISK;
	if (cls >= XLP_C_DISK && cls <= XLP_C_TIMER)
		return cls;
	if (cls == XLP_SC_FUTEX)
		/* a futex shared with another process is IPC, not a lock of ours */
		return t->waker.kind == XLP_W_OTHER_PROC ? XLP_C_IPC : XLP_C_LOCK;
	return waker_reason(t);
}

/* Reason of a sleep outside any syscall, as far as its waker is known. */
static __always_inline __u32 nosys_reason(struct xlp_thread *t)
{
	__u32 r = waker_reason(t);

	/* uninterruptible with no syscall: a page fault (or swap-in) waiting
	 * for the disk, unless the waker says otherwise */
	if ((t->acct.state == XLP_T_SLEEP_D && r == XLP_C_OTHER) || (t->sys.flags & XLP_SYS_IOWAIT))
		return XLP_C_DISK;
	return r;
}

static __always_inline void note_ipc_peer(struct xlp_thread *t)
{
	if (t->ipc.binder_wait && t->ipc.binder_peer) {
		t->ipc.peer_pid = t->ipc.binder_peer;
		__builtin_memcpy(t->ipc.peer_comm, t->ipc.binder_comm, sizeof(t->ipc.peer_comm));
	} else if (t->waker.kind == XLP_W_OTHER_PROC) {
		t->ipc.peer_pid = t->waker.pid;
		__builtin_memcpy(t->ipc.peer_comm, t->waker.comm, sizeof(t->ipc.peer_comm));
	}
}

/* ---- events, as scalars ---- */

/*
 * Switch-out into a sleep state, in syscall nr (-1: none) of class cls
 * (xlp_sys_class; the self-test gives it). Until the wakeup says more, the
 * sleep's reason is the one it would get with no waker known, which is
 * what a thread still asleep when recording stops is charged with.
 */
static __always_inline void ev_block(struct xlp_thread *t, bool d_state, long nr, __u32 cls)
{
	blk_sleep_mark(t);
	t->acct.c[XLP_C_NVCSW]++;
	t->acct.state = d_state ? XLP_T_SLEEP_D : XLP_T_SLEEP_S;
	t->waker.kind = XLP_W_NONE;
	t->sys.nr1 = nr >= 0 ? (__u32)(nr + 1) : 0;
	t->sys.class = cls;
	t->sys.flags = nr >= 0 && sc_is_poll(nr) ? XLP_SYS_POLL : 0;
	t->acct.wait_reason = t->sys.nr1 ? sys_reason(t) : nosys_reason(t);
}

/*
 * The sleep just begun is one the kernel calls an I/O wait: io_schedule()
 * sets in_iowait (what iowait in /proc/stat counts) around waits for a page
 * being read (folio_wait_bit), a bio, writeback throttling. It is disk,
 * whichever fd the syscall names, also when the requests are not the
 * thread's own: blk-throttle dispatches held reads from a kernel worker, so
 * the thread issued none of the requests it waits for (nginx's sendfile of
 * cold files under a read limit: 170 of its 171 D-state sleeps).
 */
static __always_inline void ev_block_iowait(struct xlp_thread *t)
{
	t->sys.flags |= XLP_SYS_IOWAIT;
	t->acct.wait_reason = XLP_C_DISK;
}

/* A kernel-context waker: block requests in flight would make it their completion. */
static __always_inline bool waker_may_be_io(__u32 kind)
{
	return kind >= XLP_W_KTHREAD && kind != XLP_W_TIMER && kind != XLP_W_NET &&
	       kind != XLP_W_BLOCK;
}

/*
 * The waker of a sleep; io: the thread's own block requests were in flight
 * during it (blk_during_sleep(), asked only when waker_may_be_io(kind)).
 */
static __always_inline void ev_waker(struct xlp_thread *t, __u32 kind, __u32 pid, bool io)
{
	/* a kernel-context wakeup with our block requests in flight, or just
	 * completed, is their completion (loop devices complete from a
	 * kworker, virtio-blk from its interrupt) */
	if (io && waker_may_be_io(kind))
		kind = XLP_W_BLOCK;
	t->waker.kind = kind;
	t->waker.pid = pid;
}

/*
 * The reason of a sleep that ends, from what is known by now (the syscall,
 * the waker); also where the wakeup itself was missed (thread_recover()).
 */
static __always_inline void wake_decide(struct xlp_thread *t)
{
	t->acct.wait_reason = t->sys.nr1 ? sys_reason(t) : nosys_reason(t);
	if (t->acct.wait_reason == XLP_C_IPC)
		note_ipc_peer(t);
}

/*
 * A thread's own uprobe finds it not running: its switch-in was missed,
 * and its wakeup too if it was asleep; or running, with switches since
 * the last event that no event told of (ksw_unseen()). exec, delay_total:
 * the kernel's figures now; run_min: its on-CPU time since the switch-in,
 * at least; rest_ran: what the figures leave was on a CPU (see
 * thread_recover()).
 */
static __always_inline void ev_sync_missed(struct xlp_thread *t, struct xlp_proc *p, __u64 now,
					   __u64 exec, __u64 delay_total, __u64 run_min,
					   bool rest_ran)
{
	if (t->acct.state == XLP_T_SLEEP_S || t->acct.state == XLP_T_SLEEP_D)
		wake_decide(t);
	thread_recover(t, p, now, exec, delay_total, rest_ran, run_min);
	t->sys.nr1 = 0;
}

static __always_inline void ev_wakeup(struct xlp_thread *t, struct xlp_proc *p, __u64 now)
{
	if (t->acct.state == XLP_T_RUNNING || t->acct.state == XLP_T_RUNNABLE)
		return;
	if (t->acct.state == XLP_T_SLEEP_S || t->acct.state == XLP_T_SLEEP_D) {
		wake_decide(t);
		offcpu_charge(t, t->acct.ts, now, t->acct.wait_reason);
	}
	thread_account(t, p, now);
	t->sys.nr1 = 0;
	t->acct.state = XLP_T_RUNNABLE;
}

/* comm: the target process's name, XLP_COMM_LEN bytes, or NULL (unknown) */
static __always_inline void ev_binder_txn(struct xlp_thread *t, bool reply, __u32 flags,
					  __u32 to_pid, const char *comm)
{
	if (reply || (flags & TF_ONE_WAY))
		return;
	t->ipc.binder_wait = 1;
	t->ipc.binder_peer = to_pid;
	if (comm)
		__builtin_memcpy(t->ipc.binder_comm, comm, sizeof(t->ipc.binder_comm));
	else
		__builtin_memset(t->ipc.binder_comm, 0, sizeof(t->ipc.binder_comm));
	t->acct.c[XLP_C_BINDER_TXN]++;
}

/*
 * Replies that end a transaction without a BR_REPLY, so that no
 * binder_transaction_received follows (drivers/android/binder.c;
 * uapi/linux/android/binder.h: _IO('r', 5), _IO('r', 17), _IO('r', 18)).
 */
#define XLP_BR_DEAD_REPLY 0x7205u
#define XLP_BR_FAILED_REPLY 0x7211u
#define XLP_BR_FROZEN_REPLY 0x7212u

static __always_inline void ev_binder_return(struct xlp_thread *t, __u32 cmd)
{
	if (cmd == XLP_BR_DEAD_REPLY || cmd == XLP_BR_FAILED_REPLY || cmd == XLP_BR_FROZEN_REPLY)
		t->ipc.binder_wait = 0;
}

static __always_inline void ev_binder_recv(struct xlp_thread *t)
{
	/* the reply (or a nested incoming call) arrived: its wakeup, which
	 * came first, charged the wait to IPC */
	t->ipc.binder_wait = 0;
}

#endif
