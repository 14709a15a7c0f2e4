// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cpuwork: a CPU-bound request loop with a window of extra work (issue 36,
 * rule 2: more work or a slower CPU; tests/root/test_cpuwork.c).
 *
 *   handle_request()   the interaction: compute_batch() then finish_step()
 *   compute_batch()    a fixed amount of arithmetic (no clock decides how
 *                      much: a slower CPU would stretch it, more work adds
 *                      to it); in the window it also calls checksum_pass()
 *   checksum_pass()    the window's new code path, called nowhere else:
 *                      extra arithmetic, about --extra % of a request's
 *                      CPU time, its own loop: the frame the samples of
 *                      the added time hold
 *   finish_step()      half of compute_batch's usual work, never more:
 *                      the rest of the request's computation
 *
 *   cpuwork [--requests N] [--window FIRST:LAST] [--extra PCT] [--units U] [--rt]
 *
 * Requests FIRST..LAST (default 40..59 of 100) run checksum_pass: one
 * window of time, as a feature switched on for a while. --units sets the
 * usual work (compute_batch's units of mix_rows; default 40, ~2 ms here).
 * Between requests the loop sleeps 2 ms (the recorder's and the
 * machine's chance to run elsewhere). --rt runs it SCHED_FIFO 1: on a
 * machine shared with builds, their tasks would otherwise take its CPU
 * for tens of ms at a time, a tail of cpu_wait that swamps a window of
 * 0.7 ms more CPU work per request (the test is about the work, not about
 * who else ran; test_thief is about them).
 * stdout: "REQ <i> <extra> <ns> <cpu_ns>" per request (its time and its
 * thread's CPU time by the workload's clocks), then DONE.
 */
#include "wl.h"

#define ROW_ITERS 20000

static volatile uint64_t sink;

/* One unit of work: a fixed loop of integer arithmetic. */
MARKED uint64_t mix_rows(uint64_t seed, long units)
{
	uint64_t h = seed;

	for (long u = 0; u < units; u++)
		for (int i = 0; i < ROW_ITERS; i++)
			h = (h ^ (uint64_t)i) * 0x100000001b3ULL + (h >> 29);
	return h;
}

MARKED uint64_t checksum_pass(uint64_t seed, long units)
{
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ULL;

	for (long u = 0; u < units; u++)
		for (int i = 0; i < ROW_ITERS; i++)
			h = (h + (uint64_t)i) * 0xff51afd7ed558ccdULL ^ (h >> 31);
	return h;
}

MARKED void compute_batch(long units, long extra_units)
{
	uint64_t h = mix_rows(1, units);

	if (extra_units)
		h ^= checksum_pass(h, extra_units);
	sink = h;
}

MARKED void finish_step(long units)
{
	sink ^= mix_rows(sink, units);
}

MARKED void handle_request(long units, long extra_units)
{
	compute_batch(units, extra_units);
	finish_step(units / 2);
}

int main(int argc, char **argv)
{
	long requests = 100, first = 40, last = 59, pct = 30, units = 40, extra;
	struct sched_param sp = {.sched_priority = 1};
	bool rt = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--requests") && i + 1 < argc)
			requests = atol(argv[++i]);
		else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
			if (sscanf(argv[++i], "%ld:%ld", &first, &last) != 2)
				goto usage;
		} else if (!strcmp(argv[i], "--extra") && i + 1 < argc)
			pct = atol(argv[++i]);
		else if (!strcmp(argv[i], "--units") && i + 1 < argc)
			units = atol(argv[++i]);
		else if (!strcmp(argv[i], "--rt"))
			rt = true;
		else
			goto usage;
	}
	if (requests < 1 || units < 2 || pct < 0 || first > last)
		goto usage;
	if (rt && sched_setscheduler(0, SCHED_FIFO, &sp))
		wl_die("sched_setscheduler SCHED_FIFO");
	/* pct of the request's usual work (units + units / 2) */
	extra = (units + units / 2) * pct / 100;
	for (long i = 0; i < requests; i++) {
		long x = i >= first && i <= last ? extra : 0;
		uint64_t t0 = wl_now_ns(), c0 = wl_cpu_ns();

		handle_request(units, x);
		printf("REQ %ld %d %llu %llu\n", i, x > 0, (unsigned long long)(wl_now_ns() - t0),
		       (unsigned long long)(wl_cpu_ns() - c0));
		wl_sleep_ns(2 * NS_PER_MS);
	}
	printf("DONE\n");
	fflush(stdout);
	return 0;
usage:
	fprintf(stderr, "usage: cpuwork [--requests N] [--window FIRST:LAST] [--extra PCT] "
			"[--units U] [--rt]\n");
	return 2;
}
