/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tests/workloads/symtest, the ELF test subject of test_elfsym and
 * test_symbolize: its absolute path, and a REQUIRE that it was built; and
 * readelf's answer for a vaddr's file offset, to check ours against.
 */
#ifndef XLP_TEST_SYMTEST_H
#define XLP_TEST_SYMTEST_H

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"

static inline const char *symtest(void)
{
	static char path[PATH_MAX];

	if (!path[0]) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%s/.output/tests/workloads/symtest", tl_root());
		if (!realpath(rel, path))
			snprintf(path, sizeof(path), "%s", rel);
	}
	return path;
}

#define REQUIRE_SYMTEST()                                                                          \
	REQUIRE(access(symtest(), X_OK) == 0, "%s missing: make .output/tests/workloads/symtest",  \
		symtest())

/* File offset of a vaddr, from readelf's program headers. */
static inline int readelf_offset(const char *bin, uint64_t vaddr, uint64_t *off)
{
	char cmd[PATH_MAX + 64], out[4096], *line, *save = NULL;
	uint64_t o, va, pa, filesz;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s' | grep '^ *LOAD'", bin);
	if (tl_run(cmd, out, sizeof(out)) != 0)
		return -1;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, " LOAD %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &o, &va, &pa,
			   &filesz) == 4 &&
		    vaddr >= va && vaddr - va < filesz) {
			*off = o + vaddr - va;
			return 0;
		}
	}
	return -1;
}

#endif
