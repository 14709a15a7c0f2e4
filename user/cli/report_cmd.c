/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* xlprobe report: options, then dataset -> analysis -> text / JSON / HTML. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnosis.h"
#include "commands.h"
#include "dataset.h"
#include "log.h"
#include "outfile.h"
#include "report.h"
#include "growth.h"
#include "util.h"

static const char usage[] =
	"Usage: xlprobe report [options] FILE...\n"
	"\n"
	"Explains why some runs of an interaction are slower than others, the way\n"
	"PerfProbe (ICDCS'19) does: step 1 finds the critical functions, whose time\n"
	"separates slow runs from fast ones (one line per slowdown precondition);\n"
	"step 2 finds, for each critical function, the resource that explains its\n"
	"slowdown: cpu_run, cpu_wait, cpu_freq, disk_block, net_block, ipc_wait,\n"
	"lock_wait, timer_sleep or other_sleep. The same step 2 on the resource usage\n"
	"of whole runs is shown as a baseline, with whether it agrees.\n"
	"\n"
	"A run is one call of the --interaction function of 'xlprobe record', or\n"
	"one launch of a 'record --repeat N' session. Several FILEs are analysed as\n"
	"one set of runs; functions are matched by symbol and binary file name.\n"
	"\n"
	"Output:\n"
	"  --json              JSON (schema \"xlprobe-report/3\") instead of text\n"
	"  -o, --output FILE   write the report to FILE instead of standard output\n"
	"  --html FILE         also write a self-contained HTML page to FILE\n"
	"\n"
	"Which runs are slow:\n"
	"  --slow-sigma K      latency > median + K standard deviations (default 1)\n"
	"  --slow DUR          latency > DUR, with a unit: 250ms, 1.5s, 800us, 90000ns\n"
	"  --slow auto         two classes splitting the latencies with the largest\n"
	"                      between-class variance (Otsu)\n"
	"  --min-slowdown F    with median + K sigma or auto, explain the slow runs only\n"
	"                      when their median latency exceeds the fast runs' by the\n"
	"                      fraction F (default 0: off; the evidence decides); an\n"
	"                      explicit --slow is trusted\n"
	"\n"
	"What is accused (see README, The analysis):\n"
	"  --evidence-alpha P  a function is accused only when its slow runs form a\n"
	"                      distinct mode, come in bursts, or a resource grew out\n"
	"                      of proportion, each test counting at p <= P\n"
	"                      (default 0.001)\n"
	"\n"
	"Decision trees (both steps):\n"
	"  --top-k K           candidates: union of every run's K longest functions\n"
	"                      (default 10)\n"
	"  --alpha A           prune a feature when mean(slow) - mean(fast) <\n"
	"                      A * (p95 - p5) (default 0.1)\n"
	"  --max-depth D       at most D tests from the root to a leaf (default 4)\n"
	"  --min-samples N     do not split a node of fewer than N runs (default 4)\n"
	"  --min-gap F         split only where the closest slow and fast values on\n"
	"                      either side are F * (p95 - p5) apart (default 0.05)\n"
	"  --min-time F        do not split on a function (resource) whose mean on the\n"
	"                      slow side is below F times the median latency (the\n"
	"                      function's median time) (default 0.05)\n"
	"  --exclusive         exclusive times: without nested marked calls\n"
	"\n"
	"How each function grows with the workload (ΔInfer, SUNCAT):\n"
	"  --growth            fit per function its calls, time, self time and\n"
	"                      resources against the runs' workload sizes (record\n"
	"                      --size, --sizes, --size-arg) with the models 1, log n,\n"
	"                      n, n log n, n^2, n^3, 2^n, and predict which function\n"
	"                      takes the run over; needs 4 or more sizes spanning 8x\n"
	"  --predict-size N    the size to predict (default 10x the largest measured)\n"
	"\n"
	"  -h, --help          show this help\n"
	"\n"
	"The report lists the runs (count, median, p90, max, how many are slow and by\n"
	"which rule), each slowdown precondition, each critical function with its\n"
	"resource factor, the evidence (medians in slow and fast runs, threshold, how\n"
	"many runs it separates) and a slow-vs-fast breakdown of every resource, the\n"
	"baseline, what the recording could not measure and what it lost. A trace cut\n"
	"short is analysed up to its last whole chunk, with a warning.\n"
	"\n"
	"Exit status: 0 report written, 1 unusable input (missing, empty or newer\n"
	"trace, no runs), 2 bad option or no FILE.\n"
	"\n"
	"Examples:\n"
	"  xlprobe report session.xlp\n"
	"  xlprobe report --slow 250ms --json -o report.json day1.xlp day2.xlp\n"
	"  xlprobe report --html report.html session.xlp\n"
	"  xlprobe report --growth --predict-size 1000000 sizes.xlp\n";

enum {
	OPT_JSON = 256,
	OPT_HTML,
	OPT_SLOW,
	OPT_SIGMA,
	OPT_TOPK,
	OPT_ALPHA,
	OPT_DEPTH,
	OPT_MINS,
	OPT_GAP,
	OPT_MINTIME,
	OPT_MINSLOW,
	OPT_EVALPHA,
	OPT_EXCL,
	OPT_GROWTH,
	OPT_PREDICT,
};

static const struct option longopts[] = {
	{"json", no_argument, NULL, OPT_JSON},
	{"output", required_argument, NULL, 'o'},
	{"html", required_argument, NULL, OPT_HTML},
	{"slow", required_argument, NULL, OPT_SLOW},
	{"slow-sigma", required_argument, NULL, OPT_SIGMA},
	{"top-k", required_argument, NULL, OPT_TOPK},
	{"alpha", required_argument, NULL, OPT_ALPHA},
	{"max-depth", required_argument, NULL, OPT_DEPTH},
	{"min-samples", required_argument, NULL, OPT_MINS},
	{"min-gap", required_argument, NULL, OPT_GAP},
	{"min-time", required_argument, NULL, OPT_MINTIME},
	{"min-slowdown", required_argument, NULL, OPT_MINSLOW},
	{"evidence-alpha", required_argument, NULL, OPT_EVALPHA},
	{"exclusive", no_argument, NULL, OPT_EXCL},
	{"growth", no_argument, NULL, OPT_GROWTH},
	{"predict-size", required_argument, NULL, OPT_PREDICT},
	{"help", no_argument, NULL, 'h'},
	{0},
};

struct report_opts {
	bool json, exclusive, growth;
	double predict_size; /* 0: ten times the largest measured */
	const char *out, *html;
	struct diagnosis_opts a;
};

static int parse_num(const char *opt, const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || isnan(*v) || *v < lo || *v > hi) {
		xlp_err("invalid %s '%s': give a number from %g to %g", opt, s, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *v)
{
	double d;

	if (parse_num(opt, s, lo, hi, &d))
		return -EINVAL;
	if (d != floor(d)) {
		xlp_err("invalid %s '%s': give a whole number from %u to %u", opt, s, lo, hi);
		return -EINVAL;
	}
	*v = (unsigned)d;
	return 0;
}

static int parse_slow(const char *s, struct labels_rule *rule)
{
	size_t n = strlen(s);
	uint64_t ns;

	if (!strcmp(s, "auto")) {
		rule->kind = LABELS_AUTO;
		return 0;
	}
	/* a unit is required: "--slow 250" could mean ns or ms */
	if (!n || !(s[n - 1] >= 'a' && s[n - 1] <= 'z') || xlp_parse_duration(s, 1, &ns) || !ns) {
		xlp_err("invalid --slow '%s': give a duration with a unit (250ms, 1.5s, 800us) or "
			"'auto'",
			s);
		return -EINVAL;
	}
	rule->kind = LABELS_FIXED;
	rule->threshold_ns = (double)ns;
	return 0;
}

/* A flag option: sets *flag. */
static int set_flag(bool *flag)
{
	*flag = true;
	return 0;
}

static int parse_opt(int c, const char *arg, struct report_opts *o)
{
	struct diagnosis_opts *a = &o->a;

	switch (c) {
	case OPT_JSON:
		return set_flag(&o->json);
	case 'o':
		o->out = arg;
		return 0;
	case OPT_HTML:
		o->html = arg;
		return 0;
	case OPT_SLOW:
		return parse_slow(arg, &a->rule);
	case OPT_SIGMA:
		a->rule.kind = LABELS_SIGMA;
		return parse_num("--slow-sigma", arg, 0, 100, &a->rule.k);
	case OPT_TOPK:
		return parse_uint("--top-k", arg, 1, 100000, &a->top_k);
	case OPT_ALPHA:
		return parse_num("--alpha", arg, 0, 1, &a->tree.alpha);
	case OPT_DEPTH:
		return parse_uint("--max-depth", arg, 1, 32, &a->tree.max_depth);
	case OPT_MINS:
		return parse_uint("--min-samples", arg, 2, 1000000, &a->tree.min_samples);
	case OPT_GAP:
		return parse_num("--min-gap", arg, 0, 1, &a->tree.gap_frac);
	case OPT_MINTIME:
		return parse_num("--min-time", arg, 0, 1, &a->sig_frac);
	case OPT_MINSLOW:
		return parse_num("--min-slowdown", arg, 0, 100, &a->min_slowdown);
	case OPT_EVALPHA:
		return parse_num("--evidence-alpha", arg, 0, 1, &a->alpha_evidence);
	case OPT_EXCL:
		return set_flag(&o->exclusive);
	case OPT_GROWTH:
		return set_flag(&o->growth);
	case OPT_PREDICT:
		return parse_num("--predict-size", arg, 1, 1e15, &o->predict_size);
	}
	return -EINVAL;
}

/* 0: go on, 1: help shown, < 0: bad option (reported). */
static int parse_args(int argc, char **argv, struct report_opts *o)
{
	struct diagnosis_opts def = DIAGNOSIS_OPTS_DEFAULT;
	int c;

	memset(o, 0, sizeof(*o));
	o->a = def;
	optind = 0; /* glibc: 0 also resets its state, so tests can call us again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 1;
		}
		if (c == '?') {
			xlp_err("unknown option '%s': see 'xlprobe report --help'",
				argv[optind - 1]);
			return -EINVAL;
		}
		if (c == ':') {
			xlp_err("option '%s' needs a value: see 'xlprobe report --help'",
				argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_opt(c, optarg, o))
			return -EINVAL;
	}
	return 0;
}

static void warn_truncated(const struct dataset *ds)
{
	for (size_t i = 0; i < dataset__nfiles(ds); i++) {
		const struct dataset_file_info *fi = dataset__file(ds, i);

		if (fi->truncated)
			xlp_warn("%s is truncated (no valid footer): analysing the %llu records "
				 "that "
				 "were read",
				 fi->path, (unsigned long long)fi->nrecords);
		if (fi->damage)
			xlp_warn("%s is damaged: %s: analysing the %llu records that were read",
				 fi->path, fi->damage, (unsigned long long)fi->nrecords);
	}
}

/* What a report is written from: PerfProbe's analysis, or --growth's. */
struct report_job {
	const struct dataset *ds;
	const struct diagnosis *r;
	const struct growth_result *g;
};

typedef int (*writer_fn)(FILE *f, const struct report_job *j);

/* The writer of the report layer for one form: fn of the job's analysis, res (r or g). */
#define WRITER(name, fn, res)                                                                      \
	static int name(FILE *f, const struct report_job *j)                                       \
	{                                                                                          \
		return fn(f, j->ds, j->res);                                                       \
	}

WRITER(text_w, report__text, r)
WRITER(json_w, report__json, r)
WRITER(html_w, report__html, r)
WRITER(growth_text_w, report__growth_text, g)
WRITER(growth_json_w, report__growth_json, g)
WRITER(growth_html_w, report__growth_html, g)

/* The writers of a report's kind: text, JSON, HTML. */
static const writer_fn analysis_w[3] = {text_w, json_w, html_w};
static const writer_fn growth_w[3] = {growth_text_w, growth_json_w, growth_html_w};

/*
 * Opens an output file before any work, so a bad path fails at once. The
 * report goes to a file of its own (user/lib/outfile.h), put under the name
 * only when complete.
 */
static int open_output(const char *path, const char *opt, struct outfile **of)
{
	char err[PATH_MAX + 256];
	int ret;

	*of = NULL;
	if (!path)
		return 0;
	ret = outfile__open(path, 0, of, err, sizeof(err));
	if (ret)
		xlp_err("%s with %s", err, opt);
	return ret;
}

/* Writes one output (of, or stdout when NULL) and commits it; frees of. */
static int write_to(struct outfile *of, const char *path, writer_fn fn, const struct report_job *j)
{
	char msg[PATH_MAX + 256];
	FILE *f = of ? outfile__stream(of) : stdout;
	int err;

	if (!f) {
		err = -errno;
		xlp_err("cannot write %s: %s: check the free memory", path, strerror(-err));
		outfile__abort(of);
		return err;
	}
	err = fn(f, j);
	if (!err && !of && fflush(f))
		err = -errno;
	if (err) {
		xlp_err("cannot write %s: %s: check the free space", of ? path : "the report",
			strerror(-err));
		outfile__abort(of);
		return err;
	}
	if (!of)
		return 0;
	err = outfile__commit(of, msg, sizeof(msg));
	if (err)
		xlp_err("%s", msg);
	return err;
}

/*
 * The report to -o (text or JSON, w[0] or w[1]) and, once that is written,
 * to --html (w[2]): both files are the writers' afterwards.
 */
static int write_report(struct outfile *out, struct outfile *html, const struct report_opts *o,
			const struct report_job *j, const writer_fn w[3])
{
	int ret = write_to(out, o->out, w[o->json], j);

	if (!ret && html)
		ret = write_to(html, o->html, w[2], j);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct dataset_opts dopt = {0};
	struct outfile *out = NULL, *html = NULL;
	struct diagnosis *res = NULL;
	struct growth_result *growth = NULL;
	struct report_job job = {0};
	struct dataset *ds = NULL;
	struct report_opts o;
	char err[512] = "";
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (o.predict_size > 0 && !o.growth) {
		xlp_err("--predict-size needs --growth: xlprobe report --growth --predict-size N "
			"FILE...");
		return 2;
	}
	/* a usage error, as for dump and export: exit 2, not 1 (unusable input) */
	if (optind >= argc) {
		xlp_err("report: no trace file given: run 'xlprobe report FILE...' (see --help)");
		return 2;
	}
	ret = open_output(o.out, "-o", &out);
	if (!ret)
		ret = open_output(o.html, "--html", &html);
	if (ret)
		goto cleanup;
	dopt.exclusive = o.exclusive;
	ret = dataset__load((const char *const *)argv + optind, (size_t)(argc - optind), &dopt, &ds,
			    err, sizeof(err));
	if (ret)
		goto fail;
	warn_truncated(ds);
	job.ds = ds;
	if (o.growth)
		ret = growth__from_dataset(ds, o.predict_size, &growth, err, sizeof(err));
	else
		ret = diagnosis__run(ds, &o.a, &res, err, sizeof(err));
	if (ret)
		goto fail;
	job.g = growth;
	job.r = res;
	ret = write_report(out, html, &o, &job, o.growth ? growth_w : analysis_w);
	out = html = NULL;
	goto cleanup;
fail:
	xlp_err("%s", err);
cleanup:
	outfile__abort(out);
	outfile__abort(html);
	diagnosis__free(res);
	growth__free(growth);
	dataset__free(ds);
	return ret ? 1 : 0;
}
