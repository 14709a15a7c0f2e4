/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What naming JIT frames costs the recorder per sample (make bench,
 * tools/bench.sh section "JIT symbols", issue 34): a perf map and a
 * jitdump of ENTRIES entries each (100 000 by default: a large Java or
 * Node.js service), read once (the recorder reads them on the first miss
 * and then only what was added), then SAMPLES samples of FRAMES frames,
 * each frame looked up at a random address inside a random entry (the
 * jitdump's by a sample time after every load). Prints, for each file:
 * the read, the lookups, and the cost per sample with the read spread over
 * the samples, in ns; tools/bench.sh divides perf report's time by its
 * samples on a recording of the same number of samples beside it.
 *
 *   bench_jitsym [ENTRIES [SAMPLES [FRAMES]]]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "jitdump.h"
#include "jitfile.h"
#include "perfmap.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct buf {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct buf *d, const void *p, size_t len)
{
	if (d->n + len > d->cap) {
		d->cap = (d->n + len) * 2 + 4096;
		d->b = realloc(d->b, d->cap);
		if (!d->b) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(d->b + d->n, p, len);
	d->n += len;
}

static void u32(struct buf *d, uint32_t v)
{
	put(d, &v, 4);
}

static void u64(struct buf *d, uint64_t v)
{
	put(d, &v, 8);
}

static int write_file(const char *path, const struct buf *d)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < d->n) {
		ssize_t w = write(fd, d->b + off, d->n - off);

		if (w <= 0) {
			close(fd);
			return -EIO;
		}
		off += (size_t)w;
	}
	close(fd);
	return 0;
}

#define BASE UINT64_C(0x7f0000000000)
#define STRIDE UINT64_C(0x400) /* each entry 1 KiB of code */

/* Names as node writes them: "JS:*fnNNNN /srv/app/moduleMM.js:L:C". */
static int name_of(char *out, size_t len, size_t i)
{
	return snprintf(out, len, "JS:*handler%zu /srv/app/module%zu.js:%zu:%zu", i, i % 97,
			i % 1000, i % 80);
}

static void report(const char *what, uint64_t read_ns, uint64_t lookup_ns, size_t samples,
		   size_t frames, size_t named)
{
	printf("%-8s read %8.2f ms; %zu lookups %.1f ns each (%zu named); per sample of %zu "
	       "frames %.0f ns (the read spread over %zu samples: %.0f ns)\n",
	       what, read_ns / 1e6, samples * frames,
	       (double)lookup_ns / (double)(samples * frames), named, frames,
	       (double)lookup_ns / (double)samples, samples,
	       (double)(lookup_ns + read_ns) / (double)samples);
}

static int bench_map(const char *path, size_t entries, size_t samples, size_t frames)
{
	struct jit_owner own = {.uid = {getuid()}, .n = 1};
	struct jit_counts c = {0};
	struct perfmap *m;
	uint64_t t0, t1, t2, s = 88172645463325252ull;
	size_t named = 0, n;
	struct jitsym js;

	if (perfmap__new(&m))
		return -ENOMEM;
	t0 = now_ns();
	if (perfmap__update(m, path, &own, &c)) {
		fprintf(stderr, "bench_jitsym: cannot read %s: %s\n", path, c.why);
		perfmap__free(m);
		return -EIO;
	}
	t1 = now_ns();
	n = perfmap__len(m);
	for (size_t k = 0; k < samples * frames; k++) {
		uint64_t a = BASE + (rnd(&s) % entries) * STRIDE + rnd(&s) % STRIDE;

		named += !perfmap__find(m, a, &js);
	}
	t2 = now_ns();
	printf("perf map: %zu entries\n", n);
	report("map", t1 - t0, t2 - t1, samples, frames, named);
	perfmap__free(m);
	return 0;
}

int main(int argc, char **argv)
{
	size_t entries = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	size_t samples = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	size_t frames = argc > 3 ? strtoul(argv[3], NULL, 10) : 16;
	char map[] = "/tmp/xlp-bench-map.XXXXXX", dump[] = "/tmp/xlp-bench-dump.XXXXXX";
	struct jit_owner own = {.uid = {getuid()}, .n = 1};
	struct buf b = {0};
	struct jit_counts c = {0};
	struct jitdump *d;
	uint64_t t0, t1, t2, s = 88172645463325252ull;
	size_t named = 0, dump_bytes;
	struct jitsym js;
	char name[128];
	int fd;

	if (!entries || !samples || !frames) {
		fprintf(stderr, "usage: bench_jitsym [ENTRIES [SAMPLES [FRAMES]]]\n");
		return 2;
	}
	/* the perf map: one line an entry, as a runtime appends them */
	for (size_t i = 0; i < entries; i++) {
		char line[256];
		int l;

		name_of(name, sizeof(name), i);
		l = snprintf(line, sizeof(line), "%" PRIx64 " %" PRIx64 " %s\n", BASE + i * STRIDE,
			     STRIDE, name);
		put(&b, line, (size_t)l);
	}
	fd = mkstemp(map);
	if (fd < 0 || (close(fd), write_file(map, &b))) {
		perror("bench_jitsym: the map");
		return 1;
	}
	bench_map(map, entries, samples, frames);
	unlink(map);
	/* the jitdump: the header, then one load an entry (64 bytes of code each) */
	b.n = 0;
	u32(&b, JITDUMP_MAGIC);
	u32(&b, 1);
	u32(&b, 40);
	u32(&b, 62);
	u32(&b, 0);
	u32(&b, (uint32_t)getpid());
	u64(&b, 1);
	u64(&b, 0);
	for (size_t i = 0; i < entries; i++) {
		size_t nl = (size_t)name_of(name, sizeof(name), i) + 1;
		static const uint8_t code[64];

		u32(&b, 0);
		u32(&b, (uint32_t)(56 + nl + sizeof(code)));
		u64(&b, 1000 + i);
		u32(&b, 1);
		u32(&b, 1);
		u64(&b, BASE + i * STRIDE);
		u64(&b, BASE + i * STRIDE);
		u64(&b, STRIDE);
		u64(&b, i);
		put(&b, name, nl);
		put(&b, code, sizeof(code));
	}
	fd = mkstemp(dump);
	if (fd < 0 || (close(fd), write_file(dump, &b))) {
		perror("bench_jitsym: the jitdump");
		return 1;
	}
	dump_bytes = b.n;
	free(b.b);
	if (jitdump__new(&d))
		return 1;
	{
		struct stat st;

		if (stat(dump, &st))
			return 1;
		t0 = now_ns();
		if (jitdump__update(d, dump, st.st_ino, &own, &c)) {
			fprintf(stderr, "bench_jitsym: cannot read the jitdump: %s\n", c.why);
			return 1;
		}
	}
	t1 = now_ns();
	for (size_t k = 0; k < samples * frames; k++) {
		uint64_t a = BASE + (rnd(&s) % entries) * STRIDE + rnd(&s) % STRIDE;

		named += !jitdump__find(d, a, 1000 + entries, &js);
	}
	t2 = now_ns();
	printf("jitdump: %zu loads, %zu bytes\n", jitdump__len(d), dump_bytes);
	report("jitdump", t1 - t0, t2 - t1, samples, frames, named);
	jitdump__free(d);
	unlink(dump);
	return 0;
}
