/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness: the input is an ELF file, resolved the ways --func
 * does (user/elfsym*.c, elf_read.c): every function by glob, a name that is probably
 * missing (suggestions, imported libraries from version records), a file
 * offset, and the build-id. Built with clang
 * -fsanitize=fuzzer,address,undefined (make fuzz).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elfsym.h"

static char dir[64], path[80];
static int fd = -1;

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

/* A private directory: .gnu_debuglink names are looked up next to the file. */
static int setup(void)
{
	/* tmpfs when there is one: ext4 flushes a file truncated to 0 at close */
	snprintf(dir, sizeof(dir), "%s/xlp-fuzz-elf-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		return -errno;
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/bin", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	return fd >= 0 ? 0 : -errno;
}

static void resolve(const char *sym)
{
	struct elfsym_target *t = NULL;
	char spec[128], err[512];
	size_t n = 0;

	snprintf(spec, sizeof(spec), "%s:%s", path, sym);
	if (!elfsym__resolve(spec, 0, &t, &n, err, sizeof(err)))
		elfsym__free_targets(t, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hex[41];

	if (fd < 0 && setup())
		abort();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	resolve("*");
	resolve("main");
	resolve("0x1040");
	elfsym__build_id(path, hex, sizeof(hex));
	elfsym__needs_single_step(data, size < 16 ? size : 16);
	return 0;
}
