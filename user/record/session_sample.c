/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * record --sample's side of the session: a cpu-clock perf event per CPU
 * running the sampling program, its period and off-CPU rate as the
 * sampler adapts them, what sampling cost, and the stacks it took.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "session_impl.h"

int session__start_sampling(struct session *s, char *err, size_t errlen)
{
	uint64_t period = s->skel->bss->sample_period_ns;
	int ncpu = libbpf_num_possible_cpus(), e = 0;

	if (!period || ncpu <= 0) {
		snprintf(err, errlen, "sampling was not configured when the session opened");
		return -EINVAL;
	}
	s->sample_links = calloc(ncpu, sizeof(*s->sample_links));
	s->sample_fds = calloc(ncpu, sizeof(*s->sample_fds));
	if (!s->sample_links || !s->sample_fds)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		/* software cpu-clock: there is no PMU in these VMs, nor on many devices */
		struct perf_event_attr a = {.size = sizeof(a),
					    .type = PERF_TYPE_SOFTWARE,
					    .config = PERF_COUNT_SW_CPU_CLOCK,
					    .sample_period = period};
		int fd = (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;

		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* a possible CPU that is offline */
			e = -errno;
			snprintf(err, errlen, "cannot open a cpu-clock perf event on CPU %d: %s%s",
				 cpu, strerror(errno),
				 errno == EACCES ? " (kernel.perf_event_paranoid, or run as root)"
						 : "");
			return e;
		}
		l = bpf_program__attach_perf_event(s->skel->progs.xlp_sample, fd);
		if (!l) {
			e = -errno;
			close(fd);
			snprintf(err, errlen, "cannot attach the sampling program on CPU %d: %s",
				 cpu, strerror(-e));
			return e;
		}
		s->sample_fds[s->nsample] = fd;
		s->sample_links[s->nsample++] = l;
	}
	return 0;
}

uint64_t session__sample_period(struct session *s)
{
	return s->skel->bss->sample_period_ns;
}

int session__set_sample_period(struct session *s, uint64_t period_ns)
{
	int err = 0;

	/* the programs' weight first: a tick of the new period is never
	 * weighed with the old one for long (one tick per CPU at most) */
	s->skel->bss->sample_period_ns = period_ns;
	for (int i = 0; i < s->nsample; i++)
		if (ioctl(s->sample_fds[i], PERF_EVENT_IOC_PERIOD, &period_ns) && !err)
			err = -errno;
	return err;
}

int session__set_offcpu_every(struct session *s, uint32_t every)
{
	s->skel->data->offcpu_every = every ? every : 1;
	return 0;
}

uint32_t session__offcpu_every(struct session *s)
{
	return s->skel->data->offcpu_every;
}

int session__sample_cost(struct session *s, struct xlp_sample_cost *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xlp_sample_cost *v;
	uint32_t zero = 0;
	int err = 0;

	memset(sum, 0, sizeof(*sum));
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map__lookup_elem(s->skel->maps.sample_cost, &zero, sizeof(zero), v,
				 ncpu * sizeof(*v), 0)) {
		err = -errno;
		goto cleanup;
	}
	for (int i = 0; i < ncpu; i++) {
		sum->cost_ns += v[i].cost_ns;
		sum->on_samples += v[i].on_samples;
		sum->off_captures += v[i].off_captures;
		sum->off_samples += v[i].off_samples;
		sum->off_cost_ns += v[i].off_cost_ns;
		sum->off_deferred += v[i].off_deferred;
		sum->cpu_ns += v[i].cpu_ns;
	}
cleanup:
	free(v);
	return err;
}

int session__read_stack(struct session *s, bool kernel, uint32_t id, void *buf, size_t len)
{
	const struct bpf_map *m = kernel ? s->skel->maps.kstacks : s->skel->maps.ustacks;

	if (len != bpf_map__value_size(m))
		return -EINVAL;
	memset(buf, 0, len);
	return bpf_map__lookup_elem(m, &id, sizeof(id), buf, len, 0) ? -errno : 0;
}
