/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness: the input is a perf map (user/symbols/perfmap.c,
 * jittab.c, jitfile.c), read as the recorder reads one that grows: its
 * first part (the first byte says how much), then the rest appended, then
 * looked up at the addresses it names and around them. Built with clang
 * -fsanitize=fuzzer,address,undefined (make fuzz).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfmap.h"

static char dir[64], path[80];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "%s/xlp-fuzz-map-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		return -errno;
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	return 0;
}

static void put(const uint8_t *data, size_t size, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jit_owner own = {.uid = {getuid()}, .n = 1};
	struct jit_counts c = {};
	struct perfmap *m;
	struct jitsym s;
	size_t split;

	if (!dir[0] && setup())
		abort();
	if (perfmap__new(&m))
		return 0;
	split = size ? data[0] * size / 256 : 0;
	put(data, split, O_TRUNC);
	perfmap__update(m, path, &own, &c);
	put(data + split, size - split, O_APPEND);
	perfmap__update(m, path, &own, &c);
	/* addresses from the input: the start of each hex word, and next to it */
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		if (!perfmap__find(m, a, &s) && (a < s.start || a - s.start >= s.size || !s.name))
			abort();
		perfmap__find(m, a & 0xffffff, &s);
	}
	if (c.entries < perfmap__len(m))
		abort();
	perfmap__free(m);
	return 0;
}
