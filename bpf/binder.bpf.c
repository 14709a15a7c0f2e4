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
} __attribute__((preserve_access_index));

struct binder_transaction___xlp {
	struct binder_proc___xlp *to_proc;
	unsigned int flags;
} __attribute__((preserve_access_index));

SEC("raw_tp/binder_transaction")
int BPF_PROG(xlp_binder_txn, bool reply, struct binder_transaction___xlp *txn, void *node)
{
	struct xlp_thread *t = thread_get_current();

	if (!t)
		return 0;
	ev_binder_txn(t, reply, BPF_CORE_READ(txn, flags), BPF_CORE_READ(txn, to_proc, pid));
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
