/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "reaper.h"

struct reaper {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct bpf_link **queue;
	size_t n, cap;
	bool stop;
};

static void *reaper_main(void *arg)
{
	struct reaper *rp = arg;

	pthread_mutex_lock(&rp->lock);
	for (;;) {
		while (!rp->n && !rp->stop)
			pthread_cond_wait(&rp->more, &rp->lock);
		if (!rp->n)
			break;
		struct bpf_link *l = rp->queue[--rp->n];

		pthread_mutex_unlock(&rp->lock);
		bpf_link__destroy(l);
		pthread_mutex_lock(&rp->lock);
	}
	pthread_mutex_unlock(&rp->lock);
	return NULL;
}

int reaper__new(struct reaper **out)
{
	struct reaper *rp = calloc(1, sizeof(*rp));
	int err;

	*out = NULL;
	if (!rp)
		return -ENOMEM;
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->more, NULL);
	err = -pthread_create(&rp->thread, NULL, reaper_main, rp);
	if (err) {
		free(rp);
		return err;
	}
	*out = rp;
	return 0;
}

void reaper__put(struct reaper *rp, struct bpf_link *link)
{
	if (!link)
		return;
	pthread_mutex_lock(&rp->lock);
	if (rp->n == rp->cap) {
		size_t cap = rp->cap ? 2 * rp->cap : 64;
		struct bpf_link **q = realloc(rp->queue, cap * sizeof(*q));

		if (!q) {
			pthread_mutex_unlock(&rp->lock);
			bpf_link__destroy(link);
			return;
		}
		rp->queue = q;
		rp->cap = cap;
	}
	rp->queue[rp->n++] = link;
	pthread_cond_signal(&rp->more);
	pthread_mutex_unlock(&rp->lock);
}

void reaper__free(struct reaper *rp)
{
	if (!rp)
		return;
	pthread_mutex_lock(&rp->lock);
	rp->stop = true;
	pthread_cond_signal(&rp->more);
	pthread_mutex_unlock(&rp->lock);
	pthread_join(rp->thread, NULL);
	pthread_mutex_destroy(&rp->lock);
	pthread_cond_destroy(&rp->more);
	free(rp->queue);
	free(rp);
}
