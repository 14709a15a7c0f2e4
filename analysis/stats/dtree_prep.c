/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-feature preparation, done once per fit: the sorted order of the
 * samples and the pruning statistics of PerfProbe section IV-B.
 */
#include <math.h>
#include <string.h>
#include "dtree_impl.h"

/* Maps a double to a u64 whose unsigned order is the numeric order. */
static uint64_t sort_key(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	return (b >> 63) ? ~b : b | (1ull << 63);
}

/*
 * LSD radix sort, 8 bits a pass: stable, so equal keys keep the index
 * order, and O(n) per pass. Passes where every key has the same byte are
 * skipped (times share their high bytes).
 */
void dtree_presort(const double *x, size_t n, uint32_t *ord, uint32_t *tmp_idx, uint64_t *tmp_key)
{
	uint64_t *key = tmp_key, *key2 = tmp_key + n;
	uint32_t *idx = ord, *idx2 = tmp_idx;

	for (size_t i = 0; i < n; i++) {
		idx[i] = (uint32_t)i;
		key[i] = sort_key(x[i]);
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t cnt[257] = {0};
		uint64_t *tk;
		uint32_t *ti;

		for (size_t i = 0; i < n; i++)
			cnt[((key[i] >> shift) & 0xff) + 1]++;
		if (n && cnt[((key[0] >> shift) & 0xff) + 1] == n)
			continue;
		for (int b = 0; b < 256; b++)
			cnt[b + 1] += cnt[b];
		for (size_t i = 0; i < n; i++) {
			size_t pos = cnt[(key[i] >> shift) & 0xff]++;

			key2[pos] = key[i];
			idx2[pos] = idx[i];
		}
		tk = key, key = key2, key2 = tk;
		ti = idx, idx = idx2, idx2 = ti;
	}
	if (idx != ord)
		memcpy(ord, idx, n * sizeof(*ord));
}

static double sorted_quantile(const double *x, const uint32_t *ord, size_t n, double q)
{
	double pos = q * (double)(n - 1), frac;
	size_t lo = (size_t)pos;

	if (lo + 1 >= n)
		return x[ord[n - 1]];
	frac = pos - (double)lo;
	return x[ord[lo]] + frac * (x[ord[lo + 1]] - x[ord[lo]]);
}

/*
 * Relative difference (PerfProbe IV-B): difference of the class means over
 * the central range p95 - p5. When p95 == p5 but the values are not all
 * equal (e.g. a function that only runs in the few slow runs), the
 * central range hides the very samples we look for, so the full range
 * max - min stands in for it; a feature with max == min is constant.
 */
void dtree_feat_prepare(const double *x, const uint8_t *slow, const uint32_t *ord, size_t n,
			const struct dtree_feature *feat, double alpha, struct dtree_feat_stats *fs)
{
	double s_sum = 0, f_sum = 0, diff;
	size_t ns = 0, nf = 0;

	memset(fs, 0, sizeof(*fs));
	for (size_t k = 0; k < n; k++) {
		uint32_t i = ord[k];

		if (slow[i]) {
			s_sum += x[i];
			ns++;
		} else {
			f_sum += x[i];
			nf++;
		}
	}
	fs->m_slow = ns ? s_sum / (double)ns : 0;
	fs->m_fast = nf ? f_sum / (double)nf : 0;
	if (n) {
		fs->p5 = sorted_quantile(x, ord, n, 0.05);
		fs->p95 = sorted_quantile(x, ord, n, 0.95);
		fs->range = fs->p95 - fs->p5;
		if (!(fs->range > 0))
			fs->range = x[ord[n - 1]] - x[ord[0]];
	}
	diff = fs->m_slow - fs->m_fast;
	if (feat && feat->dir == DTREE_LOW)
		diff = -diff;
	else if (feat && feat->dir == DTREE_ANY)
		diff = fabs(diff);
	fs->reldiff = fs->range > 0 ? diff / fs->range : 0;
	if (feat && feat->disabled)
		fs->pruned = DTREE_PRUNED_DISABLED;
	else if (!ns || !nf)
		fs->pruned = DTREE_PRUNED_ONE_CLASS;
	else if (!(fs->range > 0))
		fs->pruned = DTREE_PRUNED_CONSTANT;
	else if (diff < alpha * fs->range)
		fs->pruned = DTREE_PRUNED_ALPHA;
}
