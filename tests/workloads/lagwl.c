/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An interactive program's event loop for xlprobe issues (tests/root/
 * test_issues.c): `lagwl MODE N` handles N events, each on_event ->
 * render (3 ms on a CPU) then load (2 ms on a CPU); every 5th event lags
 * past 100 ms, by MODE:
 *   cpu    render computes 150 ms more (the lag's culprit: render, cpu_run)
 *   sleep  load sleeps 150 ms (load, timer_sleep)
 *   none   nothing lags
 * `lagwl MODE N MS`: the lag's extra time is MS ms instead (a recording
 * with record --lag below 100 ms).
 * Built twice (the Makefile: tests/workloads/lagwl and, with
 * -DLAGWL_BUILD2, tests/workloads/build2/lagwl): the second build has
 * other code before the marked functions, so other addresses and another
 * build-id, as a rebuild of the same program has.
 */
#include "wl.h"

#ifdef LAGWL_BUILD2
/* code before the marked functions: every address after it moves */
MARKED int lagwl_build2_padding(int x)
{
	volatile int v = x;

	for (int i = 0; i < 64; i++)
		v = v * 3 + i;
	return v;
}
#endif

static const char *mode = "none";
static long extra_ms = 150;

MARKED void render(int i)
{
	wl_burn_cpu_ns(3 * NS_PER_MS);
	if (!strcmp(mode, "cpu") && i % 5 == 4)
		wl_burn_cpu_ns((uint64_t)extra_ms * NS_PER_MS);
}

MARKED void load(int i)
{
	wl_burn_cpu_ns(2 * NS_PER_MS);
	if (!strcmp(mode, "sleep") && i % 5 == 4)
		wl_sleep_ns((uint64_t)extra_ms * NS_PER_MS);
}

MARKED void on_event(int i)
{
	render(i);
	load(i);
}

int main(int argc, char **argv)
{
	int n;

	if ((argc != 3 && argc != 4) ||
	    (strcmp(argv[1], "cpu") && strcmp(argv[1], "sleep") && strcmp(argv[1], "none"))) {
		fprintf(stderr, "usage: lagwl cpu|sleep|none N [MS]\n");
		return 2;
	}
	mode = argv[1];
	n = atoi(argv[2]);
	if (argc == 4)
		extra_ms = atol(argv[3]);
	/* a tracer that launched us is still starting: the events come after */
	wl_sleep_ns(300 * NS_PER_MS);
	for (int i = 0; i < n; i++) {
		on_event(i);
		wl_sleep_ns(2 * NS_PER_MS); /* between events: the user */
	}
	printf("DONE %d\n", n);
#ifdef LAGWL_BUILD2
	return lagwl_build2_padding(n) == -1;
#else
	return 0;
#endif
}
