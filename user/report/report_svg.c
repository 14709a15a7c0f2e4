/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Escaping and the SVG building blocks of the HTML report's plots. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "escape.h"
#include "report.h"
#include "report_html.h"

/*
 * Text from traces (symbols, comm) in HTML: markup characters as entities,
 * control characters as visible "\xNN" (a page shown with cat must not
 * drive the terminal either), bytes that are not UTF-8 as U+FFFD (the page
 * is UTF-8). max counts characters so that a cut never splits one.
 */
static void esc_n(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = str ? strlen(str) : 0, chars = 0;

	for (size_t i = 0; i < n; chars++) {
		size_t u = xlp_utf8_len(s + i, n - i);

		if (chars == max) {
			fputs("\u2026", f);
			return;
		}
		if (s[i] == '<')
			fputs("&lt;", f);
		else if (s[i] == '>')
			fputs("&gt;", f);
		else if (s[i] == '&')
			fputs("&amp;", f);
		else if (s[i] == '"')
			fputs("&quot;", f);
		else if (s[i] == '\n' || s[i] == '\t')
			fputc(s[i], f);
		else if (s[i] < 0x20 || s[i] == 0x7f || (u == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0))
			xlp_fput_text(f, (const char *)s + i, u, false);
		else if (!u)
			fputs("&#xfffd;", f);
		else
			fwrite(s + i, 1, u, f);
		i += u ? u : 1;
	}
}

void html_esc(FILE *f, const char *s)
{
	esc_n(f, s, SIZE_MAX);
}

void html_esc_cut(FILE *f, const char *s, size_t max)
{
	esc_n(f, s, max);
}

/*
 * CPU work warm, waits on the CPU yellow, sleeps cool; slow and fast runs
 * (red, light blue) are not among them, so a bar's colour never reads as
 * both a resource and a class of runs.
 */
static const char *const feat_colors[DIAGNOSIS_NFEAT] = {
	[DIAGNOSIS_CPU_RUN] = "#f28e2b",  [DIAGNOSIS_CPU_WAIT] = "#edc948",
	[DIAGNOSIS_CPU_FREQ] = "#ff9da7", [DIAGNOSIS_SLEEP_S] = "#d4a6c8",
	[DIAGNOSIS_SLEEP_D] = "#9d7660",  [DIAGNOSIS_DISK] = "#4e79a7",
	[DIAGNOSIS_NET] = "#59a14f",	  [DIAGNOSIS_IPC] = "#b07aa1",
	[DIAGNOSIS_LOCK] = "#9c2f6e",	  [DIAGNOSIS_TIMER] = "#76b7b2",
	[DIAGNOSIS_OTHER] = "#bab0ac",	  [DIAGNOSIS_CPU_STEAL] = "#8c6d31",
};

const char *html_feat_color(enum diagnosis_feat k)
{
	return k < DIAGNOSIS_NFEAT ? feat_colors[k] : "#cccccc";
}

enum diagnosis_feat html_ctr_feat(int ctr)
{
	switch (ctr) {
	case XLP_C_CPU_RUN:
		return DIAGNOSIS_CPU_RUN;
	case XLP_C_CPU_WAIT:
		return DIAGNOSIS_CPU_WAIT;
	case XLP_C_SLEEP_S:
		return DIAGNOSIS_SLEEP_S;
	case XLP_C_SLEEP_D:
		return DIAGNOSIS_SLEEP_D;
	case XLP_C_DISK:
		return DIAGNOSIS_DISK;
	case XLP_C_NET:
		return DIAGNOSIS_NET;
	case XLP_C_IPC:
		return DIAGNOSIS_IPC;
	case XLP_C_LOCK:
		return DIAGNOSIS_LOCK;
	case XLP_C_TIMER:
		return DIAGNOSIS_TIMER;
	case XLP_C_OTHER:
		return DIAGNOSIS_OTHER;
	case XLP_C_CPU_STEAL:
		return DIAGNOSIS_CPU_STEAL;
	}
	return DIAGNOSIS_NFEAT;
}

double svg_map(const struct svg_scale *s, double v)
{
	double span = s->hi - s->lo;

	return span > 0 ? s->a + (v - s->lo) * (s->b - s->a) / span : s->a;
}

/* A round step near range / n: 1, 2 or 5 times a power of ten. */
static double tick_step(double range, int n)
{
	double raw = range / n, p, m;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

double svg_nice_max(double hi)
{
	double step;

	if (!(hi > 0) || !isfinite(hi))
		return 1;
	step = tick_step(hi, 5);
	return ceil(hi / step - 1e-9) * step;
}

void svg_begin(FILE *f, const char *id, const char *kind, const char *data, int w, int h,
	       const char *title)
{
	fprintf(f,
		"<figure class=\"plot\"><svg id=\"%s\" data-plot=\"%s\" %s width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
		id, kind, data, w, h, w, h);
	html_esc(f, title);
	fputs("</title>", f);
	svg_text(f, 8, 18, "start", "ptitle", title);
}

void svg_end(FILE *f, const char *cap)
{
	fputs("</svg>", f);
	if (cap) {
		fputs("<figcaption>", f);
		html_esc(f, cap);
		fputs("</figcaption>", f);
	}
	fputs("</figure>\n", f);
}

void svg_text_cut(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s,
		  size_t max)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputc('>', f);
	html_esc_cut(f, s, max);
	fputs("</text>", f);
}

void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s)
{
	svg_text_cut(f, x, y, anchor, cls, s, SIZE_MAX);
}

static const char *tick_label(enum svg_unit u, double v, char *buf, size_t len)
{
	if (u == SVG_DUR)
		return report__dur(v, buf, len);
	snprintf(buf, len, "%.0f", v);
	return buf;
}

/* Ticks of s at round values; counts only at whole numbers. */
static double ticks(const struct svg_scale *s, enum svg_unit u, double *first)
{
	double step = tick_step(s->hi - s->lo, 6);

	if (u == SVG_COUNT && step < 1)
		step = 1;
	/* + 0.0: a first tick of -0 would be written "-0" */
	*first = ceil(s->lo / step - 1e-9) * step + 0.0;
	return step;
}

void svg_xaxis(FILE *f, const struct svg_scale *x, double y, enum svg_unit u, const char *label)
{
	double v, step = ticks(x, u, &v);
	char b[32];

	fprintf(f, "<g class=\"axis x\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
		x->a, y, x->b, y);
	for (int i = 0; v <= x->hi + step * 1e-9 && i < 50 && v + step > v; v += step, i++) {
		double px = svg_map(x, v);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, y, px,
			y + 4);
		svg_text(f, px, y + 16, "middle", NULL, tick_label(u, v, b, sizeof(b)));
	}
	svg_text(f, (x->a + x->b) / 2, y + 34, "middle", "alabel", label);
	fputs("</g>", f);
}

void svg_yaxis(FILE *f, const struct svg_scale *y, double x, double x2, enum svg_unit u,
	       const char *label)
{
	double v, step = ticks(y, u, &v), mid = (y->a + y->b) / 2;
	char b[32];

	fprintf(f, "<g class=\"axis y\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x,
		y->a, x, y->b);
	for (int i = 0; v <= y->hi + step * 1e-9 && i < 50 && v + step > v; v += step, i++) {
		double py = svg_map(y, v);

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			x, py, x2, py);
		svg_text(f, x - 5, py + 4, "end", NULL, tick_label(u, v, b, sizeof(b)));
	}
	fprintf(f,
		"<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" class=\"alabel\" "
		"transform=\"rotate(-90 14 %.1f)\">",
		mid, mid);
	html_esc(f, label);
	fputs("</text></g>", f);
}

void svg_hline(FILE *f, double y, double x1, double x2, const char *label)
{
	fprintf(f,
		"<g class=\"threshold\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke-dasharray=\"5 3\"/>",
		x1, y, x2, y);
	svg_text(f, x2, y - 4, "end", NULL, label);
	fputs("</g>", f);
}

double svg_legend(FILE *f, double x, double y, const struct svg_key *k, size_t n)
{
	fputs("<g class=\"legend\">", f);
	for (size_t i = 0; i < n; i++) {
		/* the stroke: pale swatches (the trees' fast leaves) on white */
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\" "
			"stroke=\"#999\" stroke-width=\".5\"/>",
			x, y - 9, k[i].color);
		svg_text(f, x + 14, y, "start", NULL, k[i].name);
		/* names are ours (resource names), short and ASCII: ~6.5 px a character */
		x += 26 + 6.5 * (double)strlen(k[i].name);
	}
	fputs("</g>", f);
	return x;
}
