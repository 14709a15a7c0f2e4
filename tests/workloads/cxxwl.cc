// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cxxwl: a C++ program for the demangled names (tests/root/test_demangle.c,
 * tests/unit/test_elfsym.c): a method of a class in a namespace called in
 * a loop, the runs; in the slow ones it spends its CPU time in a function
 * template, in the others in a function of an anonymous namespace, so the
 * samples name both.
 *
 *   cxxwl [--calls N] [--slow-every K]
 *
 * Calls shop::Checkout::handle(int) N times (default 60): i % K == 0
 * (default K 4) runs shop::crunch<long>() for 20 ms of CPU, the others
 * shop::(anonymous namespace)::tally() for 2 ms; each then sleeps 5 ms.
 * shop::Checkout::handle(double), an overload, and
 * shop::Checkout::note(char const*), a pointer parameter, are called once. Prints
 *   CALLS handle=N slow=S
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */

namespace shop
{
namespace
{
MARKED long tally(long i)
{
	wl_burn_cpu_ns(2 * NS_PER_MS);
	return i;
}
} // namespace

template <typename T> MARKED T crunch(T i)
{
	wl_burn_cpu_ns(20 * NS_PER_MS);
	return i;
}

class Checkout
{
      public:
	explicit Checkout(long every) : every_(every)
	{
	}
	MARKED long handle(int i);
	MARKED long handle(double x);
	MARKED long note(const char *s);

      private:
	long every_;
};

long Checkout::handle(int i)
{
	long r = every_ && i % every_ == 0 ? crunch<long>(i) : tally(i);

	wl_sleep_ns(5 * NS_PER_MS);
	return r;
}

long Checkout::handle(double x)
{
	return (long)x;
}

long Checkout::note(const char *s)
{
	return (long)strlen(s);
}
} // namespace shop

int main(int argc, char **argv)
{
	long calls = 60, every = 4, nslow = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atol(argv[++i]);
		else if (!strcmp(argv[i], "--slow-every") && i + 1 < argc)
			every = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: cxxwl [--calls N] [--slow-every K]\n");
			return 2;
		}
	}
	shop::Checkout c(every);
	c.handle(0.5);
	c.note("start");
	for (long i = 0; i < calls; i++) {
		c.handle((int)i);
		nslow += every && i % every == 0;
	}
	printf("CALLS handle=%ld slow=%ld\n", calls, nslow);
	return 0;
}
