/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness: the input is a trace file. It goes through everything
 * that reads a trace: `xlprobe dump` (text or JSON) and the report path
 * (dataset loader, the analysis, text, JSON and HTML writers), with
 * inclusive or exclusive times. Output goes to /dev/null; run with
 * -close_fd_mask=3 to silence the warnings.
 * Built with clang -fsanitize=fuzzer,address,undefined (make fuzz).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis.h"
#include "commands.h"
#include "dataset.h"
#include "report.h"

static char dir[64], path[80];
static int fd = -1;

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}
static FILE *null;

/* One private file rewritten per input: the reader wants a path. */
static int setup(void)
{
	/* tmpfs when there is one: ext4 flushes a file truncated to 0 at close */
	snprintf(dir, sizeof(dir), "%s/xlp-fuzz-trace-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		return -errno;
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/t.xlp", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	null = fopen("/dev/null", "w");
	return fd >= 0 && null ? 0 : -errno;
}

static void report(bool exclusive)
{
	struct analysis_opts ao = ANALYSIS_OPTS_DEFAULT;
	struct dataset_opts dopt = {.exclusive = exclusive};
	const char *paths[] = {path};
	struct xa_result *res = NULL;
	struct dataset *ds = NULL;
	char err[512];

	if (dataset__load(paths, 1, &dopt, &ds, err, sizeof(err)))
		return;
	if (!analysis__run(ds, &ao, &res, err, sizeof(err))) {
		report__text(null, ds, res);
		report__json(null, ds, res);
		report__html(null, ds, res);
	}
	analysis__free(res);
	dataset__free(ds);
}

/*
 * The input's length picks the dump format and inclusive or exclusive
 * times: every byte stays the file's, and each input runs the reader
 * four times, not six (speed is coverage).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {"dump", path, (size & 1) ? "--json" : NULL, NULL};

	if (fd < 0 && setup())
		abort();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	cmd_dump((size & 1) ? 3 : 2, argv);
	report(size & 2);
	return 0;
}
