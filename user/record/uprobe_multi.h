/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * BPF uprobe_multi links (Linux 6.6, BPF_TRACE_UPROBE_MULTI) through the
 * raw bpf() syscall: the libbpf and kernel headers of the distributions we
 * build on (libbpf 1.1, linux-libc-dev 6.1) do not know them yet.
 */
#ifndef XLP_UPROBE_MULTI_H
#define XLP_UPROBE_MULTI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The attach type a program must be loaded with to run from such a link. */
#define XLP_TRACE_UPROBE_MULTI 48

struct btf;

/* The running kernel has the link (its BTF has the link's type). */
bool uprobe_multi__supported(struct btf *vmlinux);

/*
 * One link: prog_fd on cnt file offsets of binary (cookies[i] for
 * offsets[i]), return probes when ret, in process pid only (its threads,
 * across exec; 0: every process). Its fd, or negative errno.
 */
int uprobe_multi__attach(int prog_fd, const char *binary, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t cnt, bool ret, pid_t pid);

#endif
