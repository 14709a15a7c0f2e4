/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading perf maps (perfmap.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfmap.h"

#define CHUNK (64u << 10) /* at least PERFMAP_LINE_MAX: each read consumes a line or more */

struct perfmap {
	struct jittab *tab;
	uint64_t off; /* the bytes of the file read: complete lines */
	dev_t dev;
	ino_t ino;
	bool seen;     /* dev and ino are the file's */
	bool skipping; /* inside a line too long, until its end */
	bool full;     /* cut off: nothing more read from this file */
	char *buf;
	/* the last bytes read (up to off): a file rewritten in place (a JVM's
	 * Compiler.perfmap truncates and writes its map again, same inode)
	 * no longer has them there */
	char tail[64];
	size_t ntail;
};

int perfmap__new(struct perfmap **out)
{
	struct perfmap *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m || jittab__new(&m->tab) || !(m->buf = malloc(CHUNK))) {
		perfmap__free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void perfmap__free(struct perfmap *m)
{
	if (!m)
		return;
	jittab__free(m->tab);
	free(m->buf);
	free(m);
}

size_t perfmap__len(const struct perfmap *m)
{
	return jittab__len(m->tab);
}

int perfmap__find(struct perfmap *m, uint64_t addr, struct jitsym *out)
{
	return jittab__find(m->tab, addr, JITTAB_NOW, out);
}

/* Hex digits at *p, with or without "0x": 0 and *v, or -EINVAL (none, or more than 64 bits). */
static int hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	size_t n = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; s < end; s++, n++) {
		char ch = *s;
		unsigned d = ch >= '0' && ch <= '9'   ? (unsigned)(ch - '0')
			     : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
			     : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10)
						      : 16;

		if (d == 16)
			break;
		if (*v >> 60)
			return -EINVAL;
		*v = *v << 4 | d;
	}
	*p = s;
	return n ? 0 : -EINVAL;
}

/* One line, without its '\n': 0 (added), -EINVAL (malformed), -E2BIG, -ENOMEM. */
static int line_add(struct perfmap *m, const char *s, const char *end)
{
	uint64_t start, size;
	int err;

	if (end > s && end[-1] == '\r')
		end--;
	if (hex(&s, end, &start) || s == end || *s != ' ')
		return -EINVAL;
	while (s < end && *s == ' ')
		s++;
	if (hex(&s, end, &size) || s == end || *s != ' ')
		return -EINVAL;
	s++;
	if (s == end || !*s)
		return -EINVAL;
	err = jittab__add(m->tab, start, size, s, (size_t)(end - s), 0);
	return err;
}

size_t perfmap__parse(struct perfmap *m, const char *buf, size_t len, struct jit_counts *c)
{
	size_t used = 0;

	while (used < len && !m->full) {
		const char *s = buf + used, *nl = memchr(s, '\n', len - used);
		int err;

		if (m->skipping) {
			if (!nl)
				return len;
			m->skipping = false;
			used = (size_t)(nl - buf) + 1;
			continue;
		}
		if (!nl || nl - s > PERFMAP_LINE_MAX) {
			if (len - used < PERFMAP_LINE_MAX)
				break; /* the rest of it may come */
			c->skipped++;
			m->skipping = true;
			continue;
		}
		err = line_add(m, s, nl);
		if (err == -ENOMEM)
			break;
		if (err == -E2BIG) {
			c->cut++;
			m->full = true;
			break;
		}
		if (err)
			c->skipped++;
		else
			c->entries++;
		used = (size_t)(nl - buf) + 1;
	}
	return used;
}

/* Whether the bytes before off are still those read there. */
static bool same_tail(const struct perfmap *m, int fd)
{
	char now[sizeof(m->tail)];

	if (!m->ntail)
		return true;
	return pread(fd, now, m->ntail, (off_t)(m->off - m->ntail)) == (ssize_t)m->ntail &&
	       !memcmp(now, m->tail, m->ntail);
}

static void keep_tail(struct perfmap *m, int fd)
{
	size_t n = m->off < sizeof(m->tail) ? (size_t)m->off : sizeof(m->tail);

	m->ntail = n && pread(fd, m->tail, n, (off_t)(m->off - n)) == (ssize_t)n ? n : 0;
}

int perfmap__update(struct perfmap *m, const char *path, const struct jit_owner *own,
		    struct jit_counts *c)
{
	struct stat st;
	int fd, err = jitfile__open(path, own, &fd, &st, c);

	if (err)
		return err;
	/* another file there (the process exec'd, the map rewritten): from the start */
	if (!m->seen || st.st_dev != m->dev || st.st_ino != m->ino ||
	    (uint64_t)st.st_size < m->off || !same_tail(m, fd)) {
		if (m->seen)
			jittab__clear(m->tab);
		m->seen = true;
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		m->off = 0;
		m->skipping = m->full = false;
		c->files++;
	}
	while (!m->full) {
		size_t want = CHUNK, used;
		ssize_t n;

		if (m->off >= PERFMAP_MAX_BYTES) {
			c->cut++;
			m->full = true;
			break;
		}
		if (want > PERFMAP_MAX_BYTES - m->off)
			want = (size_t)(PERFMAP_MAX_BYTES - m->off);
		n = pread(fd, m->buf, want, (off_t)m->off);
		if (n < 0) {
			err = errno == EINTR ? 0 : -errno;
			if (err)
				break;
			continue;
		}
		used = perfmap__parse(m, m->buf, (size_t)n, c);
		m->off += used;
		/* the end, or a line still being written */
		if (!n || !used)
			break;
	}
	if (!err)
		keep_tail(m, fd);
	close(fd);
	return err;
}
