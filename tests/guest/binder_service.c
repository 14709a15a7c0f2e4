// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * binder_service: the service side of the guest's binder test. Makes
 * itself the context manager of a binder device, prints "READY <pid>" and
 * serves transactions on one thread until killed:
 *   SVC_CALL    sleeps the request's delay_us, then replies (the client
 *               waits for the reply: that wait is what xlprobe must see)
 *   SVC_NOTIFY  one-way: nothing to reply, no sleep
 *   SVC_EXIT    exits at once without replying (the caller gets
 *               BR_DEAD_REPLY when the driver releases this process)
 *
 *   binder_service --device /dev/binderfs/NAME
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include "binder_io.h"

static const char *prog = "binder_service";

static void sleep_us(uint32_t us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Handles one incoming transaction; 1 when the service must exit. */
static int serve(struct bio *b, const struct binder_transaction_data *tr)
{
	struct svc_req req = {0};
	uint8_t w[256];
	size_t len = 0;
	uint32_t seq;
	struct binder_transaction_data rep = {0};
	binder_uintptr_t buffer = tr->data.ptr.buffer;

	if (tr->data_size >= sizeof(req))
		memcpy(&req, (const void *)(uintptr_t)buffer, sizeof(req));
	if (tr->code == SVC_EXIT)
		return 1;
	if (tr->code == SVC_CALL)
		sleep_us(req.delay_us);
	bio_put(w, &len, BC_FREE_BUFFER, &buffer, sizeof(buffer));
	if (!(tr->flags & TF_ONE_WAY)) {
		seq = req.seq;
		rep.data_size = sizeof(seq);
		rep.data.ptr.buffer = (binder_uintptr_t)(uintptr_t)&seq;
		bio_put(w, &len, BC_REPLY, &rep, sizeof(rep));
	}
	if (bio_write_read(b, w, len, NULL, 0, NULL, NULL)) {
		fprintf(stderr, "%s: reply to call %u: %s\n", prog, req.seq, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	uint8_t w[16], r[1024];
	size_t len = 0;
	struct bio b;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			dev = argv[++i];
		} else {
			fprintf(stderr, "usage: %s --device /dev/binderfs/NAME\n", prog);
			return 2;
		}
	}
	if (!dev) {
		fprintf(stderr, "usage: %s --device /dev/binderfs/NAME\n", prog);
		return 2;
	}
	if (bio_open(&b, dev, prog))
		return 1;
	if (ioctl(b.fd, BINDER_SET_CONTEXT_MGR, 0)) {
		fprintf(stderr,
			"%s: cannot become the context manager of %s: %s (another service owns it: "
			"use a device of your own)\n",
			prog, dev, strerror(errno));
		return 1;
	}
	bio_put(w, &len, BC_ENTER_LOOPER, NULL, 0);
	if (bio_write_read(&b, w, len, NULL, 0, NULL, NULL)) {
		fprintf(stderr, "%s: BC_ENTER_LOOPER: %s\n", prog, strerror(errno));
		return 1;
	}
	printf("READY %d\n", getpid());
	fflush(stdout);
	for (;;) {
		size_t got = 0, off = 0;
		int ret = bio_write_read(&b, NULL, 0, r, sizeof(r), NULL, &got);

		if (ret == -EINTR)
			continue;
		if (ret) {
			fprintf(stderr, "%s: read: %s\n", prog, strerror(-ret));
			return 1;
		}
		while (off + sizeof(uint32_t) <= got) {
			struct binder_transaction_data tr;
			uint32_t cmd;

			memcpy(&cmd, r + off, sizeof(cmd));
			off += sizeof(cmd);
			if (cmd == BR_TRANSACTION) {
				memcpy(&tr, r + off, sizeof(tr));
				ret = serve(&b, &tr);
				if (ret > 0)
					_exit(0); /* no reply, no cleanup: the driver releases us */
				if (ret < 0)
					return 1;
			}
			/* BR_NOOP, BR_TRANSACTION_COMPLETE (of our replies),
			 * BR_SPAWN_LOOPER...: nothing to do but skip the payload */
			off += _IOC_SIZE(cmd);
		}
	}
}
