/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The session's function probes: uprobe and uretprobe pairs (perf-event
 * links, or one uprobe_multi pair per binary), USDT probes, and their
 * detach, whose grace periods are waited for in parallel.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "session_impl.h"
#include "uprobe_multi.h"

/* Room for n more uprobe links. */
static int flinks_reserve(struct session *s, size_t n)
{
	size_t cap = s->cap_flinks ? s->cap_flinks : 64;
	struct func_link *l;

	while (cap < s->nflinks + n)
		cap *= 2;
	if (cap == s->cap_flinks)
		return 0;
	l = realloc(s->flinks, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->flinks = l;
	s->cap_flinks = cap;
	return 0;
}

static void flink_close(struct func_link *l)
{
	if (l->link)
		bpf_link__destroy(l->link);
	else
		close(l->fd);
}

/* Closes the links from index from on: what a failed attach had set. */
static void flinks_truncate(struct session *s, size_t from)
{
	while (s->nflinks > from)
		flink_close(&s->flinks[--s->nflinks]);
}

/* Per function, a perf-event uprobe and uretprobe (kernels before 6.6). */
static int attach_perf(struct session *s, const struct session_func *f, pid_t pid, char *err,
		       size_t errlen)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = XLP_COOKIE(f->id, f->flags));

	/*
	 * Return probe first: a return whose entry was not seen is ignored
	 * (bpf/calls.bpf.c), an entry whose return is not seen would leave a
	 * frame behind, in a process that runs while we attach.
	 */
	for (int ret = 1; ret >= 0; ret--) {
		struct bpf_program *p =
			ret ? s->skel->progs.xlp_func_return : s->skel->progs.xlp_func_entry;
		struct bpf_link *l;

		uo.retprobe = ret;
		l = bpf_program__attach_uprobe_opts(p, pid, f->binary, (size_t)f->offset, &uo);
		if (!l) {
			int e = -errno;

			snprintf(err, errlen, "cannot place a uprobe on %s at 0x%llx: %s",
				 f->binary, (unsigned long long)f->offset, strerror(-e));
			return e;
		}
		s->flinks[s->nflinks++] = (struct func_link){.link = l, .fd = -1, .pid = pid};
	}
	return 0;
}

/*
 * The n functions of one binary (idx into f) through two uprobe_multi
 * links, returns first (as attach_perf). When the kernel refuses them,
 * each function is tried alone, so that the message names the one it
 * refused.
 */
static int attach_multi(struct session *s, const struct session_func *f, const size_t *idx,
			size_t n, pid_t pid, char *err, size_t errlen)
{
	uint64_t *off = calloc(n, sizeof(*off)), *cookie = calloc(n, sizeof(*cookie));
	const char *bin = f[idx[0]].binary;
	int e = 0;

	if (!off || !cookie) {
		e = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		off[i] = f[idx[i]].offset;
		cookie[i] = XLP_COOKIE(f[idx[i]].id, f[idx[i]].flags);
	}
	for (int ret = 1; ret >= 0 && !e; ret--) {
		struct bpf_program *p = ret ? s->skel->progs.xlp_func_return_multi
					    : s->skel->progs.xlp_func_entry_multi;
		int fd = uprobe_multi__attach(bpf_program__fd(p), bin, off, cookie, (uint32_t)n,
					      ret, pid);

		if (fd >= 0) {
			s->flinks[s->nflinks++] = (struct func_link){.fd = fd, .pid = pid};
			continue;
		}
		e = fd;
		for (size_t i = 0; i < n && n > 1; i++) {
			fd = uprobe_multi__attach(bpf_program__fd(p), bin, &off[i], &cookie[i], 1,
						  ret, pid);
			if (fd < 0) {
				e = fd;
				snprintf(err, errlen, "cannot place a uprobe on %s at 0x%llx: %s",
					 bin, (unsigned long long)off[i], strerror(-e));
				goto cleanup;
			}
			close(fd);
		}
		snprintf(err, errlen, "cannot place %zu uprobes on %s: %s", n, bin, strerror(-e));
	}
cleanup:
	free(off);
	free(cookie);
	return e;
}

int session__attach_funcs(struct session *s, const struct session_func *f, size_t n, pid_t pid,
			  char *err, size_t errlen)
{
	size_t from = s->nflinks, *idx = NULL;
	bool *done = NULL;
	int e = 0;

	for (size_t i = 0; i < n; i++)
		if (f[i].id >= XLP_MAX_FUNCS) {
			snprintf(err, errlen, "too many functions: at most %d", XLP_MAX_FUNCS);
			return -E2BIG;
		}
	/* two links per function at most (per-function links) */
	idx = calloc(n ? n : 1, sizeof(*idx));
	done = calloc(n ? n : 1, sizeof(*done));
	if (!idx || !done || flinks_reserve(s, 2 * n)) {
		snprintf(err, errlen, "out of memory");
		e = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n && !e; i++) {
		size_t k = 0;

		if (!s->umulti) {
			e = attach_perf(s, &f[i], pid, err, errlen);
			continue;
		}
		if (done[i])
			continue;
		/* every function of this binary: one pair of links */
		for (size_t j = i; j < n; j++)
			if (!done[j] && !strcmp(f[j].binary, f[i].binary)) {
				done[j] = true;
				idx[k++] = j;
			}
		e = attach_multi(s, f, idx, k, pid, err, errlen);
	}
	if (e)
		flinks_truncate(s, from);
cleanup:
	free(idx);
	free(done);
	return e;
}

#define MAX_CLOSERS 32

struct closer {
	struct func_link *l;
	size_t n, first, step;
};

static void *closer_run(void *arg)
{
	const struct closer *c = arg;

	for (size_t i = c->first; i < c->n; i += c->step)
		flink_close(&c->l[i]);
	return NULL;
}

/*
 * Each close waits for the kernel's grace periods (two uprobe_multi
 * links: ~40 ms each here, a perf-event uprobe ~110 ms); closes waiting
 * at the same time wait for the same ones. So the links are closed by
 * up to MAX_CLOSERS threads at once, this one included; a thread that
 * cannot be created leaves its share to this one.
 */
static void flinks_close(struct func_link *l, size_t n)
{
	size_t nt = n < MAX_CLOSERS ? n : MAX_CLOSERS;
	struct closer c[MAX_CLOSERS];
	pthread_t t[MAX_CLOSERS];
	bool started[MAX_CLOSERS] = {};

	for (size_t k = 0; k < nt; k++)
		c[k] = (struct closer){.l = l, .n = n, .first = k, .step = nt};
	for (size_t k = 1; k < nt; k++)
		started[k] = !pthread_create(&t[k], NULL, closer_run, &c[k]);
	for (size_t k = 0; k < nt; k++)
		if (!started[k])
			closer_run(&c[k]);
	for (size_t k = 1; k < nt; k++)
		if (started[k])
			pthread_join(t[k], NULL);
}

int session__attach_usdt(struct session *s, uint32_t id, uint32_t flags, const char *binary,
			 const char *provider, const char *begin, const char *end, int filter_arg,
			 const char *filter, pid_t pid, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_usdt_opts, uo);
	struct xlp_usdt_filter f = {0};
	int ret;

	if (id >= XLP_MAX_FUNCS) {
		snprintf(err, errlen, "too many functions: at most %d", XLP_MAX_FUNCS);
		return -E2BIG;
	}
	if (!bpf_program__autoload(s->skel->progs.xlp_usdt_point)) {
		snprintf(err, errlen, "USDT probe %s:%s: the session was opened without USDT",
			 provider, begin);
		return -EINVAL;
	}
	if (filter_arg >= 0) {
		f.arg = (uint32_t)filter_arg;
		f.len = (uint32_t)strnlen(filter, sizeof(f.s) - 1);
		memcpy(f.s, filter, f.len);
		flags |= XLP_COOKIE_USDT_FILTER;
		ret = bpf_map__update_elem(s->skel->maps.usdt_filters, &id, sizeof(id), &f,
					   sizeof(f), BPF_ANY);
		if (ret) {
			snprintf(err, errlen, "cannot set the filter of %s:%s: %s", provider, begin,
				 strerror(-ret));
			return ret;
		}
	}
	if (flinks_reserve(s, 2)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	uo.usdt_cookie = (long)XLP_COOKIE(id, flags);
	/* the end first, as attach_perf's return probe */
	for (int i = end ? 1 : 0; i >= 0; i--) {
		struct bpf_program *p = i     ? s->skel->progs.xlp_usdt_end
					: end ? s->skel->progs.xlp_usdt_begin
					      : s->skel->progs.xlp_usdt_point;
		const char *name = i ? end : begin;
		struct bpf_link *l = bpf_program__attach_usdt(p, pid, binary, provider, name, &uo);

		if (!l) {
			ret = -errno;
			snprintf(err, errlen, "cannot attach USDT probe %s:%s of %s: %s", provider,
				 name, binary, strerror(-ret));
			return ret;
		}
		s->flinks[s->nflinks++] = (struct func_link){.link = l, .pid = pid};
	}
	return 0;
}

void session__detach_funcs(struct session *s, pid_t pid)
{
	size_t kept = 0, n = s->nflinks;
	struct func_link *gone = malloc((n ? n : 1) * sizeof(*gone));
	size_t ngone = 0;

	/* closing a link unregisters its uprobes: the process's breakpoints
	 * go with them */
	for (size_t i = 0; i < n; i++) {
		if (pid && s->flinks[i].pid != pid)
			s->flinks[kept++] = s->flinks[i];
		else if (gone)
			gone[ngone++] = s->flinks[i];
		else
			flink_close(&s->flinks[i]); /* out of memory: one at a time */
	}
	s->nflinks = kept;
	flinks_close(gone, ngone);
	free(gone);
}
