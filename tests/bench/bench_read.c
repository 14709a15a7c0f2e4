/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading forged files is linear (prints timings, no pass/fail; part of
 * make bench): for sizes N, 2N, 4N of each file synth__forge_resync() and
 * synth__forge_nesting() build, the time to read it (the reader alone for
 * resync, dataset__load and the drill-down pass for nesting) and the growth
 * per doubling: 2 for linear work, 4 for quadratic.
 *   bench_read [N_MIB]   (default 4: files of 4, 8 and 16 MiB)
 */
#include <stdio.h>
#include <stdlib.h>
#include "dataset.h"
#include "synth.h"
#include "xlptest.h"
#include "testlib.h"
#include "trace.h"

#define REPS 3

static double now(void)
{
	return tl_now_ns() / 1e9;
}

static int read_file(const char *path)
{
	struct trace_reader *r;
	const struct xlp_hdr *h;
	char why[256];
	int err = trace_reader__open(path, &r, why, sizeof(why));

	while (!err && (err = trace_reader__next(r, &h)) > 0)
		;
	trace_reader__close(r);
	return err;
}

static int load_file(const char *path)
{
	struct dataset *ds = NULL;
	struct nesting *n = NULL;
	uint32_t anc[2] = {0, 1};
	char why[512];
	int err = dataset__load(&path, 1, NULL, &ds, why, sizeof(why));

	err = err ? err : dataset__nesting(ds, anc, 2, &n, why, sizeof(why));
	nesting__free(n);
	dataset__free(ds);
	return err;
}

/* The best of REPS (the machine is shared: the minimum is the least noisy). */
static double best(int (*fn)(const char *), const char *path)
{
	double b = 1e30;

	for (int i = 0; i < REPS; i++) {
		double t0 = now();

		if (fn(path))
			return -1;
		t0 = now() - t0;
		b = t0 < b ? t0 : b;
	}
	return b;
}

static void line(const char *what, const char *unit, const size_t *size, const double *t)
{
	printf("  %-44s", what);
	for (int k = 0; k < 3; k++)
		printf(" %5zu %s: %7.3f s", size[k], unit, t[k]);
	printf("   growth per doubling: %.1fx, %.1fx\n", t[1] / t[0], t[2] / t[1]);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 4, size[3];
	const char *path = xt_tmp_path("forged.xlp");
	double t[3];

	printf("  (2x per doubling is linear, 4x quadratic; best of %d)\n", REPS);
	for (int v = 1; v <= 2; v++) {
		for (int k = 0; k < 3; k++) {
			size[k] = mib << k;
			if (synth__forge_resync(path, v, size[k] << 20)) {
				printf("  resync, version %d: cannot write the file\n", v);
				return 1;
			}
			t[k] = best(read_file, path);
		}
		line(v == 1 ? "resync, version 1 (CHNK every 20 bytes)"
			    : "resync, version 2 (CHNK every 4 bytes)",
		     "MiB", size, t);
	}
	for (int k = 0; k < 3; k++) {
		size[k] = (50000u * mib / 4) << k;
		if (synth__forge_nesting(path, (unsigned)size[k])) {
			printf("  nesting: cannot write the file\n");
			return 1;
		}
		t[k] = best(load_file, path);
	}
	line("nesting (2 x calls, all pending)", "k",
	     (size_t[]){size[0] / 1000, size[1] / 1000, size[2] / 1000}, t);
	return 0;
}
