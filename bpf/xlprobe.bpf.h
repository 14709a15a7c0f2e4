/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every program of the product may use, one header per concern:
 *   maps.bpf.h      every map and global (state.bpf.c defines them)
 *   stat.bpf.h      the statistics
 *   bitmap.bpf.h    per-tid bits (traced, block I/O to fold)
 *   emit.bpf.h      records to the ring buffer, batches, totals
 *   blkfold.bpf.h   block I/O counted by others, folded into the thread
 *   thread.bpf.h    thread and process state: find, create, delete
 *   cpuclock.bpf.h  frequency integral and steal clock
 *   ucopy.bpf.h     user-stack copies for CFI unwinding
 *   offcpu.bpf.h    the off-CPU capture and its samples
 *   account.bpf.h   the per-thread accounting
 * Each compiles on its own (make check-layers).
 */
#ifndef XLP_BPF_H
#define XLP_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"
#include "bitmap.bpf.h"
#include "emit.bpf.h"
#include "blkfold.bpf.h"
#include "thread.bpf.h"
#include "cpuclock.bpf.h"
#include "ucopy.bpf.h"
#include "offcpu.bpf.h"
#include "account.bpf.h"

#endif
