/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness for everything that reads a trace: `xlprobe dump`
 * (text or JSON) and the report path (dataset loader, the analysis, text,
 * JSON and HTML writers), with inclusive or exclusive times. Two kinds of
 * input:
 *
 *  - a trace file (it starts with the magic "XLPROBE\0"): the framing,
 *    the header, damage, resync, chunk numbers, the footer;
 *  - anything else is a stream of records, written into a valid trace by
 *    the real writer: byte 0 holds options (bit 0: launches instead of
 *    interaction runs, bit 1: exclusive times), byte 1 the features, then
 *    records back to back, each an xlp_hdr and its payload (h.size rounded
 *    down to 8, raised to its type's size, cut at the end of the input);
 *    a record of type 0xffff ends a chunk. CRCs and zlib keep mutations of
 *    whole files from reaching record contents: this way the dataset and
 *    the analysis see any pid, tid, depth, time or counter.
 *
 * Output goes to /dev/null; run with -close_fd_mask=3 to silence the
 * warnings. Built with clang -fsanitize=fuzzer,address,undefined
 * (make fuzz). The choice between dump formats comes from the input's
 * length, and so does the choice of report writer, so every byte stays
 * the file's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diagnosis.h"
#include "commands.h"
#include "dataset.h"
#include "report.h"
#include "trace.h"
#include "trace_format.h"

#define FLUSH_TYPE 0xffff

static char dir[64], path[80];
static FILE *null;

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

/* A private directory for the one file each input becomes. */
static int setup(void)
{
	/* tmpfs when there is one: ext4 flushes a file truncated to 0 at close */
	snprintf(dir, sizeof(dir), "%s/xlp-fuzz-trace-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		return -errno;
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/t.xlp", dir);
	null = fopen("/dev/null", "w");
	return null ? 0 : -errno;
}

static int write_file(const uint8_t *data, size_t size)
{
	int fd, err = 0;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, data, size) != (ssize_t)size)
		err = -EIO;
	close(fd);
	return err;
}

/* Records mode: a valid trace holding the input's records. */
static int write_records(const uint8_t *data, size_t size)
{
	static char bin[] = "/opt/app/bin/app";
	/* two C++ names: the demangler (user/lib/demangle.c) runs on them, and
	 * on every frame name of the input's records that looks mangled */
	static char *names[] = {"handle_request",
				"parse_input",
				"load_config",
				"_ZN2db5Query3runEPKci",
				"_ZN4node12_GLOBAL__N_16Parser7ExecuteEPKcm",
				"compress",
				"send_reply"};
	static uint64_t rec[65536 / 8];
	struct xlp_func_info funcs[7];
	struct xlp_trace_meta m = {.ncpus = 2,
				   .clock_id = 1,
				   .features = size > 1 ? data[1] : 0,
				   .host = "fuzz",
				   .kernel = "6.18.0",
				   .cmdline = "app",
				   .notes = "",
				   .funcs = funcs};
	bool launches = size && (data[0] & 1);
	struct xlp_trace_footer ft = {.end_ns = ~0ull};
	struct trace_writer *w;
	size_t off = 2;
	int err;

	for (int i = launches; i < 7; i++)
		funcs[m.nfuncs] = (struct xlp_func_info){.id = m.nfuncs,
							 .flags = i ? 0 : XLP_FUNC_INTERACTION,
							 .offset = 0x1000u + 16 * i,
							 .binary = bin,
							 .symbol = names[i],
							 .build_id = ""},
		m.nfuncs++;
	m.repeat = launches ? 8 : 0;
	m.target_pid = launches ? 0 : 7;
	unlink(path);
	err = trace_writer__open(path, &m, &w);
	if (err)
		return err;
	while (!err && off + sizeof(struct xlp_hdr) <= size) {
		struct xlp_hdr h;
		size_t n;

		memcpy(&h, data + off, sizeof(h));
		if (h.type == FLUSH_TYPE) {
			err = trace_writer__flush(w);
			off += sizeof(h);
			continue;
		}
		n = h.size & ~7u;
		if (n < trace_rec_min_size(h.type))
			n = trace_rec_min_size(h.type);
		if (n > size - off)
			break;
		memcpy(rec, data + off, n);
		((struct xlp_hdr *)rec)->size = (uint16_t)n;
		err = trace_writer__append(w, (struct xlp_hdr *)rec);
		off += n;
	}
	if (err) {
		trace_writer__abort(w);
		return err;
	}
	return trace_writer__close(w, &ft);
}

/* One report writer per input (chosen by `which`): all three on every
 * input tripled the output work for no coverage the corpus lacks. */
static void report(bool exclusive, unsigned which)
{
	struct diagnosis_opts ao = DIAGNOSIS_OPTS_DEFAULT;
	struct dataset_opts dopt = {.exclusive = exclusive};
	const char *paths[] = {path};
	struct diagnosis *res = NULL;
	struct dataset *ds = NULL;
	char err[512];

	/* small inputs: a few runs reach the tree, step 2 and the drill-down */
	ao.min_runs = 3;
	if (dataset__load(paths, 1, &dopt, &ds, err, sizeof(err)))
		return;
	if (!diagnosis__run(ds, &ao, &res, err, sizeof(err))) {
		if (which == 0)
			report__text(null, ds, res);
		else if (which == 1)
			report__json(null, ds, res);
		else
			report__html(null, ds, res);
	}
	diagnosis__free(res);
	dataset__free(ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {"dump", path, (size & 1) ? "--json" : NULL, NULL};
	char *pargv[] = {"export", "--perfetto", path, "-o", "/dev/null", NULL};
	bool file = size >= 8 && !memcmp(data, XLP_TRACE_MAGIC, 8);

	if (!null && setup())
		abort();
	if (file ? write_file(data, size) : write_records(data, size))
		return 0;
	cmd_dump((size & 1) ? 3 : 2, argv);
	if (size & 4)
		cmd_export_perfetto(5, pargv);
	report(file ? size & 2 : size && (data[0] & 2), (unsigned)(size >> 2) % 3);
	return 0;
}
