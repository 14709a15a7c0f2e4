/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* xlprobe issues: options, then each trace -> lags -> issues -> text / JSON / HTML. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "issues.h"
#include "log.h"
#include "outfile.h"
#include "report.h"
#include "util.h"

static const char usage[] =
	"Usage: xlprobe issues [--lag DUR] [--json] [-o FILE] [--html FILE] TRACE...\n"
	"\n"
	"Groups the lags of any number of traces, from any number of hosts and\n"
	"builds, into issues (LagHunter, OOPSLA'11). A run of a landmark (record's\n"
	"interaction function) lags when it takes DUR or more; each lag gets a\n"
	"culprit (the deepest critical function of the session's analysis that\n"
	"holds in it, or the whole run's answer, or the deepest function holding\n"
	"half of it) and a factor, and a fingerprint of landmark, culprit and\n"
	"factor by name, not address: the same issue links across rebuilds and\n"
	"hosts. Per issue: sessions, hosts, builds (build-ids), lags, lag p50,\n"
	"p95 and max, first and last seen, total perceptible lag (the ranking)\n"
	"and the longest lags as (trace, run) to open with report or Perfetto.\n"
	"\n"
	"  --lag DUR          the perceptible threshold (default: each trace's\n"
	"                     record --lag, else 100ms)\n"
	"  --json             JSON (schema \"xlprobe-issues/1\") instead of text\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"  --html FILE        also write an HTML page to FILE\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 written, 1 unusable input, 2 bad option.\n"
	"\n"
	"Examples:\n"
	"  xlprobe issues monday-*.xlp thursday-*.xlp\n"
	"  xlprobe issues --lag 250ms --json -o issues.json fleet/*.xlp\n";

enum { OPT_JSON = 256, OPT_HTML, OPT_LAG };

struct issues_opts {
	bool json;
	const char *out, *html;
	uint64_t lag_ns;
};

static int parse_args(int argc, char **argv, struct issues_opts *o)
{
	static const struct option longopts[] = {
		{"lag", required_argument, NULL, OPT_LAG},
		{"json", no_argument, NULL, OPT_JSON},
		{"output", required_argument, NULL, 'o'},
		{"html", required_argument, NULL, OPT_HTML},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->lag_ns = 0; /* each trace's own (analysis/issues/issues.h) */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'o':
			o->out = optarg;
			break;
		case OPT_HTML:
			o->html = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_LAG:
			if (xlp_parse_duration(optarg, 0, &o->lag_ns) || !o->lag_ns) {
				xlp_err("issues: bad --lag '%s': give a duration with a unit, e.g. "
					"100ms",
					optarg);
				return -EINVAL;
			}
			break;
		case ':':
			xlp_err("issues: option '%s' needs a value: see 'xlprobe issues --help'",
				argv[optind - 1]);
			return -EINVAL;
		default:
			xlp_err("issues: unknown option '%s': see 'xlprobe issues --help'",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		xlp_err("issues: no trace file given: run 'xlprobe issues TRACE...' (see 'xlprobe "
			"issues --help')");
		return -EINVAL;
	}
	return 0;
}

static int text_to(FILE *f, const void *s)
{
	return report__issues_text(f, s);
}

static int json_to(FILE *f, const void *s)
{
	return report__issues_json(f, s);
}

static int html_to(FILE *f, const void *s)
{
	return report__issues_html(f, s);
}

int cmd_issues(int argc, char **argv)
{
	struct issues_opts o;
	struct issues *s = NULL;
	char err[512] = "";
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	ret = issues__new((double)o.lag_ns, &s);
	for (int i = optind; !ret && i < argc; i++) {
		ret = issues__add(s, argv[i], err, sizeof(err));
		if (ret)
			xlp_err("%s", err);
	}
	if (!ret)
		ret = issues__finish(s);
	if (!ret)
		ret = outfile__write_with(o.out, "-o", o.json ? json_to : text_to, s);
	if (!ret && o.html)
		ret = outfile__write_with(o.html, "--html", html_to, s);
	issues__free(s);
	return ret ? 1 : 0;
}
