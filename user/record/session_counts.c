/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the programs counted, read from their maps: the statistics, the
 * marker's counts, the ring buffer's deliveries, the launches' times.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "marker.h"
#include "session_impl.h"

void session__rb_counts(const struct session *s, uint64_t *records, uint64_t *bytes)
{
	*records = s->rb_records;
	*bytes = s->rb_bytes;
}

uint64_t session__stat(struct session *s, enum xlp_stat i)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;
	uint32_t key = i;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stats), &key, vals))
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
	free(vals);
	return sum;
}

int session__marker_counts(struct session *s, struct xlp_marker_rec *out)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(s->skel->maps.marker_counts);
	uint64_t *vals;

	memset(out, 0, sizeof(*out));
	out->h = (struct xlp_hdr){XLP_R_MARKER, sizeof(*out), 0};
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	/* bpf/marker.bpf.c: lines, sections, then the skips */
	for (uint32_t k = 0; k < 2 + XLP_MARKER_NR_SKIP; k++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
		if (k == 0)
			out->lines = sum;
		else if (k == 1)
			out->sections = sum;
		else
			out->skip[k - 2] = sum;
	}
	free(vals);
	return 0;
}

int session__stats(struct session *s, uint64_t stat[XLP_NR_STAT])
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(s->skel->maps.stats);
	uint64_t *vals;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t i = 0; i < XLP_NR_STAT; i++) {
		stat[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			stat[i] += vals[c];
	}
	free(vals);
	return 0;
}
