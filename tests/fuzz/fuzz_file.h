/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The file a file-reading harness feeds its reader (fuzz_perfmap.c,
 * fuzz_jitdump.c): one path in a private directory on a tmpfs when there
 * is one, written again for each input (O_TRUNC) or appended to
 * (O_APPEND), removed at exit.
 */
#ifndef XLP_FUZZ_FILE_H
#define XLP_FUZZ_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_dir[64], fuzz_path[96];

static void fuzz_file_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

/* The path of a file named name (perf-1.map) in a directory of its own; aborts on failure. */
static const char *fuzz_file(const char *name)
{
	if (fuzz_dir[0])
		return fuzz_path;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/xlp-fuzz-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(fuzz_dir))
		abort();
	atexit(fuzz_file_cleanup);
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/%s", fuzz_dir, name);
	return fuzz_path;
}

/* size bytes of data into the file, truncated first (O_TRUNC) or appended (O_APPEND). */
static void fuzz_file_put(const uint8_t *data, size_t size, int flags)
{
	int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

#endif
