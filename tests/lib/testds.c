/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <string.h>
#include "stats_tests.h"
#include "testds.h"
#include "testlib.h"

struct dataset *tds_load_paths(const char *const *paths, size_t n, bool exclusive)
{
	struct dataset_opts o = {.exclusive = exclusive};
	struct dataset *ds = NULL;
	char err[512];
	int ret = dataset__load(paths, n, &o, &ds, err, sizeof(err));

	CHECK(!ret, "dataset__load: %s", err);
	return ds;
}

struct dataset *tds_load(const char *path)
{
	return tds_load_paths(&path, 1, false);
}

int tds_func(const struct dataset *ds, const char *sym)
{
	for (size_t f = 0; f < dataset__nfuncs(ds); f++)
		if (!strcmp(dataset__func(ds, f)->symbol, sym))
			return (int)f;
	return -1;
}

double tds_qnorm(double p)
{
	double lo = -10, hi = 10;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (stats__norm_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
