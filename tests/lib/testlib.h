/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Minimal test harness. A test binary defines tests with TEST(name) and
 * runs them with TEST_MAIN(). Each test prints one line, "PASS name" or
 * "FAIL name: reason" (tests/run-tests.sh counts them); CHECK() failures
 * print the file:line and the failed condition, and the test goes on so
 * one run shows every broken assertion.
 */
#ifndef XLP_TESTLIB_H
#define XLP_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_test {
	const char *name;
	void (*fn)(void);
	struct tl_test *next;
};

extern int tl_failed_checks;
void tl_register(struct tl_test *t);
int tl_main(int argc, char **argv);

#define TEST(name)                                                                                 \
	static void test_##name(void);                                                             \
	static struct tl_test tl_t_##name = {#name, test_##name, NULL};                            \
	__attribute__((constructor)) static void tl_reg_##name(void)                               \
	{                                                                                          \
		tl_register(&tl_t_##name);                                                         \
	}                                                                                          \
	static void test_##name(void)

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			tl_failed_checks++;                                                        \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, " " __VA_ARGS__);                                          \
			fprintf(stderr, "\n");                                                     \
		}                                                                                  \
	} while (0)

/* Stops the current test (after a failed precondition). */
#define REQUIRE(cond, ...)                                                                         \
	do {                                                                                       \
		int tl_before_ = tl_failed_checks;                                                 \
		CHECK(cond, __VA_ARGS__);                                                          \
		if (tl_failed_checks != tl_before_)                                                \
			return;                                                                    \
	} while (0)

#define TEST_MAIN()                                                                                \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		return tl_main(argc, argv);                                                        \
	}

/* Runs a shell command, returns its exit status (or -1), output in buf. */
int tl_run(const char *cmd, char *out, size_t outlen);
/* tl_run of the command printf makes, its stderr with its stdout. */
int tl_runf(char *out, size_t outlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* s with every from replaced by to (malloc'd; aborts without memory). */
char *tl_replace(const char *s, const char *from, const char *to);
/* Absolute path of a build output, e.g. tl_path(".output/xlprobe"). */
const char *tl_root(void);
/* CLOCK_MONOTONIC in ns, the clock of xlprobe's timestamps and of the workloads' lines. */
uint64_t tl_now_ns(void);
/*
 * The next number in [0, 1) of the splitmix64 sequence in *state: the
 * tests' one deterministic generator, so a seed draws the same numbers in
 * every test, synthetic trace and benchmark.
 */
double tl_rnd01(uint64_t *state);

#endif
