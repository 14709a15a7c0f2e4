/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness: the input is a jitdump (user/symbols/jitdump.c,
 * jittab.c, jitfile.c), read as the recorder reads one being written: its
 * first part (the first byte says how much), then the rest appended; then
 * looked up at the addresses and times its words hold, with and without a
 * time. Built with clang -fsanitize=fuzzer,address,undefined (make fuzz).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_file.h"
#include "jitdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jit_owner own = {.uid = {getuid()}, .n = 1};
	struct jit_counts c = {};
	struct jitdump *d;
	struct jitsym s;
	size_t split;

	const char *path = fuzz_file("jit-1.dump");

	if (jitdump__new(&d))
		return 0;
	split = size ? data[size - 1] * size / 256 : 0;
	fuzz_file_put(data, split, O_TRUNC);
	jitdump__update(d, path, 0, &own, &c);
	fuzz_file_put(data + split, size - split, O_APPEND);
	jitdump__update(d, path, 0, &own, &c);
	if (jitdump__tail(d) > size)
		abort();
	for (size_t i = 0; i + 16 <= size && i < 4096; i += 8) {
		uint64_t a, t;

		memcpy(&a, data + i, 8);
		memcpy(&t, data + i + 8, 8);
		if (!jitdump__find(d, a, JITTAB_NOW, &s) &&
		    (a < s.start || a - s.start >= s.size || !s.name))
			abort();
		if (!jitdump__find(d, a, t, &s) && (a < s.start || a - s.start >= s.size))
			abort();
	}
	jitdump__free(d);
	return 0;
}
