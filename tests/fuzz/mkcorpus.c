/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Writes the seed corpus of fuzz_trace into a directory: small synthetic
 * traces from the real writer (interaction runs with recursion, launches,
 * truncated), damaged variants (a chunk cut out, duplicated, swapped, a
 * flipped byte), forged headers (function ids 0xFFFFFFFF, 0x3FFFFFFF), and
 * two traces as record streams (fuzz_trace's records mode).
 * The checked-in corpus (tests/fuzz/corpus/fuzz_trace) was made with it:
 *   make .output/tests/fuzz/mkcorpus && .output/tests/fuzz/mkcorpus DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include "synth.h"
#include "trace.h"

static char dir[256];

/* dir/name; valid until 4 more calls */
static const char *at(const char *name)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/*
 * The same traces in fuzz_trace's records mode: an options byte (bit 0:
 * launches), the features, the records, a flush marker after each chunk.
 */
static int records_seed(const char *from, const char *name, uint8_t opts)
{
	const struct xlp_hdr flush = {.type = 0xffff, .size = 8};
	struct trace_reader *r;
	const struct xlp_hdr *h;
	uint64_t chunks = 0;
	char why[256];
	FILE *o;
	int err;

	err = trace_reader__open(from, &r, why, sizeof(why));
	if (err)
		return err;
	o = fopen(at(name), "wb");
	if (!o) {
		trace_reader__close(r);
		return -1;
	}
	fputc(opts, o);
	fputc((int)(trace_reader__meta(r)->features & 0xff), o);
	while ((err = trace_reader__next(r, &h)) > 0) {
		if (trace_reader__good_chunks(r) != chunks && chunks++)
			fwrite(&flush, sizeof(flush), 1, o);
		fwrite(h, h->size, 1, o);
	}
	trace_reader__close(r);
	return fclose(o) || err ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct synth_scenario runs = {
		.nruns = 5, .slow_frac = 0.4, .slow_func = 2, .factor = SYNTH_NET, .seed = 3};
	struct synth_scenario launches = {.nruns = 4,
					  .slow_frac = 0.5,
					  .slow_func = 1,
					  .factor = SYNTH_DISK,
					  .launches = true,
					  .seed = 4};
	struct synth_scenario cut = {.nruns = 3, .factor = SYNTH_LOCK, .truncate = true, .seed = 5};
	static const int drop[] = {0, 1, 3, 4}, dup[] = {0, 1, 2, 2, 3, 4},
			 swap[] = {0, 2, 1, 3, 4};
	char in[512], lin[512];
	uint8_t *f;
	size_t len;
	FILE *o;

	if (argc != 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	runs.path = at("runs.xlp");
	launches.path = at("launches.xlp");
	cut.path = at("truncated.xlp");
	if (synth__scenario(&runs) || synth__scenario(&launches) || synth__scenario(&cut))
		return 1;
	snprintf(in, sizeof(in), "%s", runs.path);
	snprintf(lin, sizeof(lin), "%s", launches.path);
	if (synth__rechunk(in, at("chunk-missing.xlp"), drop, 4) ||
	    synth__rechunk(in, at("chunk-duplicated.xlp"), dup, 6) ||
	    synth__rechunk(in, at("chunks-swapped.xlp"), swap, 5) ||
	    synth__rechunk(in, at("id-0xffffffff.xlp"), swap, 0) ||
	    synth__forge_id(at("id-0xffffffff.xlp"), 1, 0xffffffffu) ||
	    synth__rechunk(in, at("id-0x3fffffff.xlp"), swap, 0) ||
	    synth__forge_id(at("id-0x3fffffff.xlp"), 1, 0x3fffffffu))
		return 1;
	if (records_seed(in, "records-runs", 0) || records_seed(lin, "records-launches", 1))
		return 1;
	/* stack samples: names, stacks and samples (dataset_samples.c) */
	if (synth__sampled(at("sampled.xlp")) ||
	    records_seed(at("sampled.xlp"), "records-sampled", 0))
		return 1;
	/* record --timeline: scheduling events and a waker's name */
	if (synth__timeline(at("timeline.xlp")) ||
	    records_seed(at("timeline.xlp"), "records-timeline", 0))
		return 1;
	f = synth__slurp(in, &len);
	o = fopen(at("flipped-byte.xlp"), "wb");
	if (!f || !o)
		return 1;
	f[len / 2] ^= 0x10;
	if (fwrite(f, 1, len, o) != len || fclose(o))
		return 1;
	free(f);
	return 0;
}
