/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The few steps of the binder protocol the guest test's service and client
 * need, written against the kernel UAPI (<linux/android/binder.h>): no
 * libbinder, no servicemanager. The service makes itself the context
 * manager of a binder device, so the client reaches it through handle 0.
 * Each test creates its own device in binderfs: a device keeps its
 * context manager until the old one's release has run in a kernel worker.
 *
 * The command streams of BINDER_WRITE_READ are a u32 command followed by
 * its payload, not aligned: everything goes through memcpy.
 */
#ifndef XLP_GUEST_BINDER_IO_H
#define XLP_GUEST_BINDER_IO_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/android/binder.h>

/* the buffer space the driver hands out to this process (replies, requests) */
#define BIO_MAP_SIZE (128 * 1024)

/* Transaction codes of the service. */
enum svc_code {
	SVC_CALL = 1,	/* sleep delay_us, then reply */
	SVC_NOTIFY = 2, /* one-way: no reply */
	SVC_EXIT = 3,	/* exit without replying: the caller gets BR_DEAD_REPLY */
};

struct svc_req {
	uint32_t seq;
	uint32_t delay_us;
};

struct bio {
	int fd;
	void *map;
};

static inline int bio_open(struct bio *b, const char *dev, const char *prog)
{
	struct binder_version v = {0};

	b->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (b->fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s (mount binderfs, see tests/guest/init.c)\n",
			prog, dev, strerror(errno));
		return -1;
	}
	if (ioctl(b->fd, BINDER_VERSION, &v) ||
	    v.protocol_version != BINDER_CURRENT_PROTOCOL_VERSION) {
		fprintf(stderr, "%s: %s speaks binder protocol %d, not %d: not a 64-bit binder\n",
			prog, dev, v.protocol_version, BINDER_CURRENT_PROTOCOL_VERSION);
		return -1;
	}
	b->map = mmap(NULL, BIO_MAP_SIZE, PROT_READ, MAP_PRIVATE, b->fd, 0);
	if (b->map == MAP_FAILED) {
		fprintf(stderr, "%s: mmap of %s: %s\n", prog, dev, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * One BINDER_WRITE_READ: sends wlen bytes of commands, then reads up to
 * rlen bytes of returns (blocking when rlen > 0 and nothing is there).
 * 0 or -errno; *rgot is what was read, *wsent what was consumed (after
 * EINTR the commands written are in the kernel, the read is not done).
 */
static inline int bio_write_read(struct bio *b, const void *wbuf, size_t wlen, void *rbuf,
				 size_t rlen, size_t *wsent, size_t *rgot)
{
	struct binder_write_read bwr = {
		.write_size = wlen,
		.write_buffer = (binder_uintptr_t)(uintptr_t)wbuf,
		.read_size = rlen,
		.read_buffer = (binder_uintptr_t)(uintptr_t)rbuf,
	};
	int ret = ioctl(b->fd, BINDER_WRITE_READ, &bwr);

	if (wsent)
		*wsent = bwr.write_consumed;
	if (rgot)
		*rgot = bwr.read_consumed;
	return ret < 0 ? -errno : 0;
}

/* Appends a command and its payload to buf at *len (buf holds 256 bytes). */
static inline void bio_put(uint8_t *buf, size_t *len, uint32_t cmd, const void *arg, size_t n)
{
	memcpy(buf + *len, &cmd, sizeof(cmd));
	*len += sizeof(cmd);
	if (n)
		memcpy(buf + *len, arg, n);
	*len += n;
}

/* Frees a buffer the driver delivered (a request or a reply). */
static inline int bio_free(struct bio *b, binder_uintptr_t buffer)
{
	uint8_t w[16];
	size_t len = 0;

	bio_put(w, &len, BC_FREE_BUFFER, &buffer, sizeof(buffer));
	return bio_write_read(b, w, len, NULL, 0, NULL, NULL);
}

#endif
