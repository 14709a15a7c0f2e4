// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf_micro: what the building blocks of xlprobe's BPF programs cost on
 * this machine. Loads tests/bench/micro/bpf_micro.bpf.c (every program on
 * tp_btf/sys_enter, gated on our tgid), makes N getppid() calls on one
 * CPU with run-time stats on, and prints each program's average per event
 * (the gate-only programs are the floor the others add to):
 *
 *   bpf_micro [N]        (default 300000)
 *
 * stdout: one line per program, "<name> <run_cnt> <avg_ns>".
 * Built by the Makefile (.output/tests/bench/micro/bpf_micro), run by
 * tools/bench.sh; needs root.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf_micro.skel.h"

#define MAX_PROGS 32

static int on_rec(void *ctx, void *data, size_t size)
{
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000;
	struct bpf_micro_bpf *skel;
	struct ring_buffer *rb = NULL;
	struct bpf_program *p;
	void *value = NULL;
	__u32 tid = (__u32)syscall(SYS_gettid);
	int stats_fd, pidfd = -1, ret = 1;

	skel = bpf_micro_bpf__open();
	if (!skel) {
		fprintf(stderr, "bpf_micro: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->cfg_tgid = (__u32)getpid();
	if (bpf_micro_bpf__load(skel)) {
		fprintf(stderr, "bpf_micro: load: %s\n", strerror(errno));
		goto out;
	}
	value = calloc(1, bpf_map__value_size(skel->maps.threads));
	if (!value || bpf_map_update_elem(bpf_map__fd(skel->maps.threads), &tid, value, BPF_ANY)) {
		fprintf(stderr, "bpf_micro: map update: %s\n", strerror(errno));
		goto out;
	}
	/* task storage is keyed by a pidfd from user space */
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0 ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.tstore), &pidfd, value, BPF_ANY)) {
		fprintf(stderr, "bpf_micro: task storage: %s\n", strerror(errno));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_rec, NULL, NULL);
	if (!rb || bpf_micro_bpf__attach(skel)) {
		fprintf(stderr, "bpf_micro: attach: %s\n", strerror(errno));
		goto out;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bpf_micro: enable stats: %s\n", strerror(errno));
		goto out;
	}
	for (long i = 0; i < n; i++) {
		syscall(SYS_getppid);
		/* 1000 x (376 + 376 + 64 bytes) fits the 8 MB ring easily */
		if (i % 1000 == 999)
			ring_buffer__consume(rb);
	}
	bpf_object__for_each_program(p, skel->obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		/* bpf_obj_get_info_by_fd: libbpf 1.1 has no bpf_prog_get_info_by_fd */
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		printf("%s %llu %.1f\n", bpf_program__name(p), (unsigned long long)info.run_cnt,
		       info.run_cnt ? (double)info.run_time_ns / info.run_cnt : 0.0);
	}
	close(stats_fd);
	ret = 0;
out:
	if (pidfd >= 0)
		close(pidfd);
	ring_buffer__free(rb);
	bpf_micro_bpf__destroy(skel);
	free(value);
	return ret;
}
