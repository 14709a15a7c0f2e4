/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "escape.h"
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
	char *msg = NULL;
	va_list ap;
	int n;

	if (lvl > cur_level)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "xlprobe: %s", prefix[lvl]);
	if (n < 0) {
		fprintf(stderr, "(out of memory formatting the message '%s')\n", fmt);
		return;
	}
	if (n > 0 && msg[n - 1] == '\n')
		n--;
	/* messages quote paths, symbols and names read from files: escaped, so
	 * none of them reaches the terminal as a control sequence or a line */
	xlp_fput_text(stderr, msg, (size_t)n, false);
	fputc('\n', stderr);
	free(msg);
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
