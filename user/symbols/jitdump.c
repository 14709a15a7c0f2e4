/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading jitdumps (jitdump.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jitdump.h"
#include "util.h"

#define HDR_SIZE 40u	  /* the file header as version 1 has it */
#define HDR_MAX 4096u	  /* a longer header is not believed */
#define REC_HDR 16u	  /* id, total_size, timestamp */
#define LOAD_FIXED 56u	  /* the record header, pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_SIZE 64u	  /* the record header, pid, tid, vma, old and new code_addr, size, index */
#define FLAG_ARCH_TS 1ull /* JITDUMP_FLAGS_ARCH_TIMESTAMP: the CPU's counter, not a clock */
#define FUTURE (60ull * 1000000000ull) /* a timestamp this far past now is not CLOCK_MONOTONIC */
/* The bytes of a record read to name it: a load's fixed part and its name, cut. */
#define PREFIX (LOAD_FIXED + JITTAB_NAME_MAX + 1)
#define CHUNK (1u << 20)

enum {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_CLOSE = 3,
};

struct jitdump {
	struct jittab *tab;
	uint64_t off, tail;
	dev_t dev;
	ino_t ino;
	bool seen;   /* dev and ino are the file's */
	bool header; /* read */
	bool untimed;
	bool done; /* closed, corrupt or cut off: nothing more read */
	uint8_t *buf;
};

int jitdump__new(struct jitdump **out)
{
	struct jitdump *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d || jittab__new(&d->tab) || !(d->buf = malloc(CHUNK))) {
		jitdump__free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void jitdump__free(struct jitdump *d)
{
	if (!d)
		return;
	jittab__free(d->tab);
	free(d->buf);
	free(d);
}

size_t jitdump__len(const struct jitdump *d)
{
	return jittab__len(d->tab);
}

bool jitdump__timed(const struct jitdump *d)
{
	return d->header && !d->untimed;
}

uint64_t jitdump__tail(const struct jitdump *d)
{
	return d->tail;
}

int jitdump__find(struct jitdump *d, uint64_t addr, uint64_t time, struct jitsym *out)
{
	return jittab__find(d->tab, addr, d->untimed ? JITTAB_NOW : time, out);
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void corrupt(struct jitdump *d, struct jit_counts *c, const char *cause)
{
	char why[128];

	snprintf(why, sizeof(why), "%s at byte %llu: read no further", cause,
		 (unsigned long long)d->off);
	c->corrupt++;
	jitfile__blame(c, "jitdump", why);
	d->done = true;
}

/* The header: its size, 0 to wait for more of it, or done set. */
static uint64_t header_read(struct jitdump *d, const uint8_t *p, size_t len, uint64_t left,
			    struct jit_counts *c)
{
	uint32_t magic, version, size;

	if (len < HDR_SIZE)
		return 0;
	magic = u32_at(p);
	version = u32_at(p + 4);
	size = u32_at(p + 8);
	if (magic != JITDUMP_MAGIC) {
		corrupt(d, c,
			magic == __builtin_bswap32(JITDUMP_MAGIC)
				? "written in the other byte order"
				: "not a jitdump (no \"JiTD\" magic)");
		return 0;
	}
	if (version != 1 || size < HDR_SIZE || size > HDR_MAX) {
		corrupt(d, c, version != 1 ? "not version 1" : "a header size out of bounds");
		return 0;
	}
	if (size > left)
		return 0;
	d->untimed = u64_at(p + 32) & FLAG_ARCH_TS;
	d->header = true;
	return size;
}

/* Adds code at [start, start + size) to the table, counted: cut at its bound, skipped if bad. */
static void add_counted(struct jitdump *d, uint64_t start, uint64_t size, const char *name,
			size_t n, uint64_t time, struct jit_counts *c)
{
	int err = jittab__add(d->tab, start, size, name, n, time);

	if (err == -E2BIG) {
		c->cut++;
		d->done = true;
	} else if (err) {
		c->skipped += err == -EINVAL;
	} else {
		c->entries++;
	}
}

/* A JIT_CODE_LOAD whose first len of size bytes are at p (len >= min(size, PREFIX)). */
static void load_read(struct jitdump *d, const uint8_t *p, size_t len, uint32_t size, uint64_t time,
		      struct jit_counts *c)
{
	const char *name = (const char *)p + LOAD_FIXED;
	size_t room = (len < size ? len : size) - LOAD_FIXED, n;

	n = strnlen(name, room);
	/* a name must end inside its record; one longer than kept is cut */
	if (n == room && (len >= size || room <= JITTAB_NAME_MAX)) {
		c->skipped++;
		return;
	}
	if (u64_at(p + 40) > JITDUMP_CODE_MAX) {
		c->skipped++;
		return;
	}
	add_counted(d, u64_at(p + 32), u64_at(p + 40), name, n, time, c);
}

/* A JIT_CODE_MOVE: the code loaded at the old address, now at the new one. */
static void move_read(struct jitdump *d, const uint8_t *p, uint64_t time, struct jit_counts *c)
{
	char name[JITTAB_NAME_MAX + 1];
	uint64_t size = u64_at(p + 48);
	struct jitsym old;

	if (jittab__at_start(d->tab, u64_at(p + 32), &old) || size > JITDUMP_CODE_MAX) {
		c->skipped++;
		return;
	}
	/* the table's names move as it grows */
	snprintf(name, sizeof(name), "%s", old.name);
	add_counted(d, u64_at(p + 40), size, name, strlen(name), time, c);
}

uint64_t jitdump__parse(struct jitdump *d, const uint8_t *buf, size_t len, uint64_t left,
			struct jit_counts *c)
{
	uint64_t used = 0, now = xlp_now_ns();

	if (!d->header && !d->done) {
		used = header_read(d, buf, len, left, c);
		if (!used)
			return 0;
		d->off += used;
	}
	while (!d->done && used < len && len - used >= REC_HDR) {
		const uint8_t *p = buf + used;
		uint32_t id = u32_at(p), size = u32_at(p + 4);
		uint64_t time = u64_at(p + 8);
		size_t avail = len - used;

		if (size < REC_HDR || size > JITDUMP_RECORD_MAX) {
			corrupt(d, c,
				size < REC_HDR ? "a record shorter than its header"
					       : "a record of more than 256 MiB");
			break;
		}
		/* still being written, or lying: left for a later update */
		if (size > left - used)
			break;
		/* what naming needs of it is not in buf: read again from here */
		if (avail < (size < PREFIX ? size : PREFIX))
			break;
		if (time > now + FUTURE)
			d->untimed = true;
		if (id == JIT_CODE_LOAD && size > LOAD_FIXED)
			load_read(d, p, avail, size, time, c);
		else if (id == JIT_CODE_MOVE && size >= MOVE_SIZE)
			move_read(d, p, time, c);
		else if (id == JIT_CODE_LOAD || id == JIT_CODE_MOVE)
			c->skipped++;
		else if (id == JIT_CODE_CLOSE)
			d->done = true;
		used += size;
		d->off += size;
	}
	return used;
}

int jitdump__update(struct jitdump *d, const char *path, ino_t ino, const struct jit_owner *own,
		    struct jit_counts *c)
{
	struct stat st;
	uint64_t size;
	bool over;
	int fd, err = jitfile__open(path, own, &fd, &st, c);

	if (err)
		return err;
	if (ino && st.st_ino != ino) {
		close(fd);
		c->refused++;
		jitfile__blame(c, path, "not the file the process maps (replaced since): not read");
		return -EPERM;
	}
	size = (uint64_t)st.st_size;
	if (!d->seen || st.st_dev != d->dev || st.st_ino != d->ino || size < d->off) {
		if (d->seen)
			jittab__clear(d->tab);
		d->seen = true;
		d->dev = st.st_dev;
		d->ino = st.st_ino;
		d->off = 0;
		d->header = d->untimed = d->done = false;
		c->files++;
	}
	over = size > JITDUMP_MAX_BYTES;
	if (over)
		size = JITDUMP_MAX_BYTES;
	while (!d->done && d->off < size) {
		uint64_t at = d->off, used;
		size_t want = size - at < CHUNK ? (size_t)(size - at) : CHUNK;
		ssize_t n = pread(fd, d->buf, want, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		used = jitdump__parse(d, d->buf, (size_t)n, size - at, c);
		if (!used)
			break;
	}
	if (over && !d->done) {
		c->cut++;
		d->done = true;
	}
	d->tail = d->done ? 0 : size - d->off;
	close(fd);
	return err;
}
