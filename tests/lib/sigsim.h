/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The operating characteristic of the evidence rules (analysis/stats/stats_tests.h,
 * analysis/diagnosis/significance.c): seeded synthetic traces of natural shapes (no
 * cause: every resource of the function grows in proportion to its time)
 * and of perturbed ones (a cause adds a resource, grows one, or grows the
 * CPU time in some runs), each written with the real trace writer and run
 * through the whole analysis (dataset__load, diagnosis__run), as a user's
 * trace would be. A natural trial is a false accusation when any function
 * is accused; a perturbed one is detected when the slowed function is.
 * tests/unit/test_sigsim.c runs a fast version against the targets;
 * tests/bench/bench_significance.c prints the full table (make bench).
 */
#ifndef XLP_SIGSIM_H
#define XLP_SIGSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum sigsim_kind {
	SIGSIM_LOGNORMAL, /* a: sigma of log(time) */
	SIGSIM_PARETO,	  /* a: tail index alpha */
	SIGSIM_MIX,	  /* 10 calls a run, each a times slower with probability b,
			   * each spread by a lognormal sigma c */
	SIGSIM_AR1,	  /* lognormal sigma a, AR(1) coefficient b over the runs */
};

enum sigsim_cause {
	SIGSIM_NATURAL = 0, /* no cause */
	SIGSIM_ADD,	    /* the slowed runs wait on a lock the others never take */
	SIGSIM_GROW,	    /* the slowed runs wait longer on the disk they always read */
	SIGSIM_CPU,	    /* the slowed runs run longer on the CPU (nothing else changes) */
	/* the slowed runs' CPU time, every function's, x times longer: a slower
	 * CPU (a busy host, a lower clock), no cause in any function; a shape
	 * of the natural table (an accusation is false) */
	SIGSIM_MACHINE,
};

enum sigsim_slowdown {
	SIGSIM_STEP,	   /* x times slower */
	SIGSIM_CONTINUOUS, /* log-uniform between 1.3 and x times slower */
	SIGSIM_WINDOW,	   /* x times slower, the runs one window of time (a random start) */
};

struct sigsim_shape {
	const char *name;
	enum sigsim_kind kind;
	double a, b;
	bool cpu_only; /* the function only runs on the CPU (no disk in proportion) */
	/* perturbed shapes: which runs (frac of them, at random), how much, through what */
	enum sigsim_cause cause;
	enum sigsim_slowdown slowdown;
	double frac, x;
	/* why the rules cannot tell this shape from the other kind (the table
	 * says so; the targets leave it out), or NULL */
	const char *alike;
	double c;      /* SIGSIM_MIX: each call's spread */
	double rest_x; /* SIGSIM_MACHINE: the rest of the run's factor (0: x, the same) */
};

struct sigsim_trial {
	bool any;    /* some function accused */
	bool target; /* the function the shape slows ("work") accused */
	/* which rules held for it (else for the first function accused) */
	bool mode, bursts, resource, beyond;
};

/* Over trials: accusations (natural) or detections (perturbed), and by which rule. */
struct sigsim_count {
	unsigned hits, mode, bursts, resource, beyond;
};

/* Writes the trace of one trial (to look at it with xlprobe report). */
int sigsim__write(const char *path, const struct sigsim_shape *s, unsigned nruns, uint64_t seed);
/* One trial: nruns runs of shape s drawn from seed, analysed. 0 or negative errno. */
int sigsim__trial(const struct sigsim_shape *s, unsigned nruns, uint64_t seed,
		  struct sigsim_trial *out);

/* Natural and perturbed shapes of the table. */
extern const struct sigsim_shape sigsim_natural[];
extern const size_t sigsim_nnatural;
extern const struct sigsim_shape sigsim_perturbed[];
extern const size_t sigsim_nperturbed;

/*
 * Counts over trials seeds seed0.. of shape s at nruns: accusations
 * (natural) or detections (perturbed). Negative errno on failure.
 */
int sigsim__rate(const struct sigsim_shape *s, unsigned nruns, unsigned trials, uint64_t seed0,
		 struct sigsim_count *c);

#endif
