/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "log.h"

static enum xlp_log_level cur_level = XLP_LOG_INFO;

void xlp_log_set_level(enum xlp_log_level lvl)
{
	cur_level = lvl;
}

enum xlp_log_level xlp_log_level(void)
{
	return cur_level;
}

void xlp_log(enum xlp_log_level lvl, const char *fmt, ...)
{
	static const char *const prefix[] = {"", "warning: ", "", "debug: "};
	va_list ap;
	size_t n = strlen(fmt);

	if (lvl > cur_level)
		return;
	fprintf(stderr, "xlprobe: %s", prefix[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (!n || fmt[n - 1] != '\n')
		fputc('\n', stderr);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf warns about every optional program that fails to load; we
	 * report feature gaps ourselves, so its text is only shown with -v. */
	if (cur_level < XLP_LOG_DEBUG)
		return 0;
	fprintf(stderr, "libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

void xlp_log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
