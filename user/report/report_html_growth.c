/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report --growth --html: per function, its per-size medians and fitted
 * curve on log-log axes, out to the predicted size; the table of models.
 * Each plot is an <svg data-plot="growth" data-points=N data-curve=M>.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "escape.h"
#include "report.h"
#include "report_html.h"
#include "growth.h"

#define GW 440
#define GH 240
#define GL 62 /* left margin: the y labels */
#define GR 14
#define GT 30
#define GB 36
#define NCURVE 48

struct loglog {
	double x0, x1, y0, y1; /* log10 bounds */
};

static double px(const struct loglog *s, double x)
{
	return GL + (log10(x) - s->x0) / (s->x1 - s->x0) * (GW - GL - GR);
}

static double py(const struct loglog *s, double y)
{
	return GH - GB - (log10(y) - s->y0) / (s->y1 - s->y0) * (GH - GT - GB);
}

static void bounds(const struct growth_result *r, const struct growth_series *s, double pred,
		   struct loglog *b)
{
	double lo = INFINITY, hi = 0;

	for (size_t k = 0; k < r->nsizes; k++)
		if (s->med[k] > 0) {
			lo = fmin(lo, s->med[k]);
			hi = fmax(hi, s->med[k]);
		}
	if (pred > 0 && isfinite(pred))
		hi = fmax(hi, pred);
	if (!(lo <= hi))
		lo = hi = 1;
	b->x0 = floor(log10(r->sizes[0]));
	b->x1 = ceil(log10(fmax(r->predict_size, r->sizes[r->nsizes - 1])));
	b->y0 = floor(log10(lo));
	b->y1 = ceil(log10(hi));
	if (b->x1 <= b->x0)
		b->x1 = b->x0 + 1;
	if (b->y1 <= b->y0)
		b->y1 = b->y0 + 1;
}

static void axes(FILE *f, const struct loglog *b, bool ns)
{
	char t[32];

	fputs("<g class=\"axis\">", f);
	for (double e = b->x0; e <= b->x1; e++) {
		double x = px(b, pow(10, e));

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x,
			GT, x, GH - GB);
		snprintf(t, sizeof(t), "%.0e", pow(10, e));
		svg_text(f, x, GH - GB + 14, "middle", NULL, t);
	}
	for (double e = b->y0; e <= b->y1; e++) {
		double y = py(b, pow(10, e));

		fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", GL,
			y, GW - GR, y);
		if (ns)
			report__dur(pow(10, e), t, sizeof(t));
		else
			snprintf(t, sizeof(t), "%.0e", pow(10, e));
		svg_text(f, GL - 4, y + 4, "end", NULL, t);
	}
	fputs("</g>", f);
	svg_text(f, (GL + GW - GR) / 2.0, GH - 6, "middle", "alabel", "workload size (log)");
}

static void plot(FILE *f, const struct growth_result *r, const struct growth_series *s, double pred,
		 const char *name, size_t id)
{
	char title[256], data[96], sid[32], term[64];
	struct loglog b;
	size_t npts = 0, ncurve = 0;
	bool ns = s->metric != GROWTH_M_CALLS;

	if (s->fit.model >= GROWTH_NMODELS)
		return;
	for (size_t k = 0; k < r->nsizes; k++)
		npts += s->med[k] > 0;
	bounds(r, s, pred, &b);
	snprintf(title, sizeof(title), "%s: %s, %s", name, report__growth_metric(s->metric),
		 report__growth_term(s, term, sizeof(term)));
	snprintf(sid, sizeof(sid), "growth-%zu", id);
	/* the curve's points that fall inside the plot */
	for (int i = 0; i < NCURVE; i++) {
		double x = pow(10, log10(r->sizes[0]) +
					   i * (log10(r->predict_size) - log10(r->sizes[0])) /
						   (NCURVE - 1));
		double y = growth__predict(&s->fit, x);

		ncurve += y > 0 && isfinite(y) && log10(y) <= b.y1 && log10(y) >= b.y0;
	}
	snprintf(data, sizeof(data), "data-points=\"%zu\" data-curve=\"%zu\"", npts, ncurve);
	svg_begin(f, sid, "growth", data, GW, GH, title);
	axes(f, &b, ns);
	fputs("<polyline fill=\"none\" stroke=\"#3367d6\" stroke-width=\"1.5\" points=\"", f);
	for (int i = 0; i < NCURVE; i++) {
		double x = pow(10, log10(r->sizes[0]) +
					   i * (log10(r->predict_size) - log10(r->sizes[0])) /
						   (NCURVE - 1));
		double y = growth__predict(&s->fit, x);

		if (y > 0 && isfinite(y) && log10(y) <= b.y1 && log10(y) >= b.y0)
			fprintf(f, "%.1f,%.1f ", px(&b, x), py(&b, y));
	}
	fputs("\"/>", f);
	for (size_t k = 0; k < r->nsizes; k++)
		if (s->med[k] > 0)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#222\"/>",
				px(&b, r->sizes[k]), py(&b, s->med[k]));
	if (pred > 0 && isfinite(pred))
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\"/>",
			px(&b, r->predict_size), py(&b, pred), HTML_SLOW_COLOR);
	svg_end(f, "dots: per-size medians; line: the model; ring: the prediction");
}

int report__growth_html(FILE *f, const struct dataset *ds, const struct growth_result *r)
{
	char v[1024], name[160];
	size_t id = 0;

	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>xlprobe report "
		"--growth</title><style>%s</style></head><body>\n<h1>xlprobe report "
		"--growth</h1>\n",
		html_style);
	report__growth_verdict(ds, r, v, sizeof(v));
	fputs("<p class=\"verdict\">", f);
	html_esc(f, v);
	fputs("</p>\n<h2>Sizes</h2><table><tr><th>size</th><th>runs</th></tr>", f);
	for (size_t k = 0; k < r->nsizes; k++)
		fprintf(f, "<tr><td>%.6g</td><td>%zu</td></tr>", r->sizes[k], r->runs[k]);
	fputs("</table>\n", f);
	if (!r->refused) {
		fputs("<h2>The run and the functions that take most of it at the predicted "
		      "size</h2>\n",
		      f);
		plot(f, r, &r->latency, r->latency.predicted, "the run's latency", id++);
		for (size_t i = 0; i < r->nfuncs && i < 6; i++) {
			const struct growth_func *fn = &r->funcs[i];

			xlp_text(dataset__func(ds, r->func_ids[fn->func])->name, name,
				 sizeof(name));
			plot(f, r, &r->series[fn->time], fn->predicted, name, id++);
			if (fn->calls >= 0)
				plot(f, r, &r->series[fn->calls], r->series[fn->calls].predicted,
				     name, id++);
		}
		fputs("<h2>Models</h2><pre>", f);
		/* the text report's table, escaped */
		{
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);

			if (m) {
				report__growth_text(m, ds, r);
				fclose(m);
				html_esc(f, buf);
			}
			free(buf);
		}
		fputs("</pre>\n", f);
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
