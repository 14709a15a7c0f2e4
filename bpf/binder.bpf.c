/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Android binder: a client's synchronous transaction waits until its reply
 * is received; that wait is IPC with the target process as the peer. The
 * programs load only where the kernel has the binder tracepoints (user
 * space switches autoload off otherwise). The binder types are not in every
 * kernel's BTF, so the fields used are declared here for CO-RE.
 */
#include "reasons.bpf.h"

struct binder_proc___xlp {
	int pid;
	struct task_struct *tsk;
} __attribute__((preserve_access_index));

struct binder_transaction___xlp {
	struct binder_proc___xlp *to_proc;
	unsigned int flags;
} __attribute__((preserve_access_index));

SEC("raw_tp/binder_transaction")
int BPF_PROG(xlp_binder_txn, bool reply, struct binder_transaction___xlp *txn, void *node)
{
	struct xlp_thread *t = thread_get_current();
	char comm[XLP_COMM_LEN] = {};
	__u32 flags;

	if (!t)
		return 0;
	flags = BPF_CORE_READ(txn, flags);
	/* a reply's or a one-way's target is no wait's peer: read it only
	 * when it may be */
	if (!reply && !(flags & TF_ONE_WAY))
		BPF_CORE_READ_STR_INTO(&comm, txn, to_proc, tsk, comm);
	ev_binder_txn(t, reply, flags, BPF_CORE_READ(txn, to_proc, pid), comm);
	return 0;
}

SEC("raw_tp/binder_transaction_received")
int BPF_PROG(xlp_binder_recv, struct binder_transaction___xlp *txn)
{
	struct xlp_thread *t = thread_get_current();

	if (t)
		ev_binder_recv(t);
	return 0;
}

/* A dead or failed reply ends the wait: no transaction is received then. */
SEC("raw_tp/binder_return")
int BPF_PROG(xlp_binder_return, __u32 cmd)
{
	struct xlp_thread *t = thread_get_current();

	if (t)
		ev_binder_return(t, cmd);
	return 0;
}
