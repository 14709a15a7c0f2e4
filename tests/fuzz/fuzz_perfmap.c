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
#include "fuzz_file.h"
#include "perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jit_owner own = {.uid = {getuid()}, .n = 1};
	struct jit_counts c = {};
	struct perfmap *m;
	struct jitsym s;
	size_t split;

	const char *path = fuzz_file("perf-1.map");

	if (perfmap__new(&m))
		return 0;
	split = size ? data[0] * size / 256 : 0;
	fuzz_file_put(data, split, O_TRUNC);
	perfmap__update(m, path, &own, &c);
	fuzz_file_put(data + split, size - split, O_APPEND);
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
