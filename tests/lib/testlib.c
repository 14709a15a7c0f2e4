/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include "testlib.h"
#include <limits.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int tl_failed_checks;
static struct tl_test *tl_head, **tl_tail = &tl_head;

void tl_register(struct tl_test *t)
{
	*tl_tail = t;
	tl_tail = &t->next;
}

/* Runs every test, or those named on the command line. */
int tl_main(int argc, char **argv)
{
	int failed = 0, passed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct tl_test *t = tl_head; t; t = t->next) {
		int want = argc < 2;

		for (int i = 1; i < argc; i++)
			want |= !strcmp(argv[i], t->name);
		if (!want)
			continue;
		tl_failed_checks = 0;
		fprintf(stderr, "RUN  %s\n", t->name);
		t->fn();
		if (tl_failed_checks) {
			printf("FAIL %s: %d check(s) failed\n", t->name, tl_failed_checks);
			failed++;
		} else {
			printf("PASS %s\n", t->name);
			passed++;
		}
	}
	return failed ? 1 : 0;
}

int tl_run(const char *cmd, char *out, size_t outlen)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int st;

	if (!p)
		return -1;
	if (out && outlen) {
		n = fread(out, 1, outlen - 1, p);
		out[n] = 0;
	}
	/* drain what did not fit so the child never blocks on a full pipe */
	char sink[4096];
	while (fread(sink, 1, sizeof(sink), p) > 0)
		;
	st = pclose(p);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int tl_runf(char *out, size_t outlen, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	return tl_run(cmd, out, outlen);
}

const char *tl_root(void)
{
	static char root[PATH_MAX];
	const char *env = getenv("XLP_ROOT");

	if (env)
		return env;
	if (!root[0] && !getcwd(root, sizeof(root)))
		strcpy(root, ".");
	return root;
}

uint64_t tl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double tl_rnd01(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	/* the top 53 bits: every double in [0, 1) a multiple of 2^-53 */
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

char *tl_replace(const char *s, const char *from, const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	char *out, *o;

	for (const char *p = strstr(s, from); p; p = strstr(p + lf, from))
		n++;
	out = malloc(strlen(s) + n * lt + 1);
	if (!out)
		abort();
	for (o = out; *s;) {
		if (!strncmp(s, from, lf)) {
			memcpy(o, to, lt);
			o += lt;
			s += lf;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
	return out;
}
