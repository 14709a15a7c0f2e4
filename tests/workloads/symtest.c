/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbol-resolution fixture for tests/unit/test_elfsym.c: known global,
 * static and aliased functions, a data object and an import (printf).
 * Built with -O1 -fno-omit-frame-pointer -fcf-protection=none. GCC still
 * sets up no frame in a leaf function that needs no stack, so the ones
 * that must start with push %rbp (parse_*, compute) either call another
 * function or keep a local on the stack; scale() is left a frameless
 * leaf, the fixture for a prologue the kernel single-steps.
 * Run it to exercise the functions:
 *   symtest [ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>

int some_data = 42;

int parse_alpha(const char *s)
{
	volatile int n = 0; /* a stack slot, hence a frame: push %rbp */

	while (*s)
		n += *s++;
	return n;
}

int parse_beta(const char *s)
{
	return parse_alpha(s) * 2 + some_data;
}

int parse_gamma(const char *s)
{
	return parse_beta(s) ^ 0x5a;
}

/*
 * static: only in .symtab, so it is found only in an unstripped binary.
 * A frameless leaf: its first instruction is not push %rbp.
 */
static int scale(int v)
{
	return v * 3 + some_data;
}

int compute(int v)
{
	return scale(v) + parse_gamma("xlprobe");
}

/*
 * Aliases at compute's address: a glob yields one target, "compute" (not
 * the underscored name, not the local one though it sorts first).
 */
extern int __compute(int v) __attribute__((alias("compute")));
static int acompute(int v) __attribute__((alias("compute"), used));

/* hand-written assembly without .size: exact names find it, globs skip it */
__asm__(".text\n"
	".globl asm_entry\n"
	".type asm_entry, @function\n"
	"asm_entry:\n"
	"\tpush %rbp\n"
	"\tpop %rbp\n"
	"\tret\n");

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	int acc = 0;

	for (long i = 0; i < iters; i++)
		acc += compute((int)i) + __compute(1);
	printf("symtest: %d\n", acc);
	return 0;
}
