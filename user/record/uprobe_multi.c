/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <bpf/btf.h>
#include "uprobe_multi.h"

#define XLP_F_UPROBE_MULTI_RETURN 1u /* BPF_F_UPROBE_MULTI_RETURN */

/*
 * union bpf_attr's link_create with its uprobe_multi member (Linux 6.6,
 * include/uapi/linux/bpf.h): the kernel reads the attribute up to the size
 * given and requires zeroes past what it knows, so this prefix of the
 * union is enough.
 */
struct umulti_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path __attribute__((aligned(8)));
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umulti_flags;
	uint32_t pid;
};

_Static_assert(offsetof(struct umulti_attr, pid) == 56, "layout of link_create.uprobe_multi");

bool uprobe_multi__supported(struct btf *vmlinux)
{
	return btf__find_by_name_kind(vmlinux, "bpf_uprobe_multi_link", BTF_KIND_STRUCT) >= 0;
}

int uprobe_multi__attach(int prog_fd, const char *binary, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t cnt, bool ret, pid_t pid)
{
	struct umulti_attr a;
	int fd;

	memset(&a, 0, sizeof(a)); /* the padding too: the kernel checks it */
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = XLP_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)binary;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = cnt;
	a.umulti_flags = ret ? XLP_F_UPROBE_MULTI_RETURN : 0;
	a.pid = pid > 0 ? (uint32_t)pid : 0;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}
