/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The pprof profile written: profile.proto's fields, then gzipped (export_pprof_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <zlib.h>
#include "export_pprof_int.h"

static const char *name_of(const struct pp_name *a, size_t n, uint32_t file, uint32_t id)
{
	for (size_t i = n; i-- > 0;)
		if (a[i].file == file && a[i].id == id)
			return a[i].comm;
	return NULL;
}

static void label_str(struct pp *pp, struct pbw *w, const char *key, const char *v)
{
	size_t m = pbw__begin(w, F_SMP_LABEL);

	pbw__varint(w, F_LBL_KEY, pp__str_id(pp, key));
	pbw__varint(w, F_LBL_STR, pp__str_id(pp, v));
	pbw__end(w, m);
}

static void label_num(struct pp *pp, struct pbw *w, const char *key, uint64_t v)
{
	size_t m = pbw__begin(w, F_SMP_LABEL);

	pbw__varint(w, F_LBL_KEY, pp__str_id(pp, key));
	pbw__varint(w, F_LBL_NUM, v);
	pbw__end(w, m);
}

static void value_type(struct pp *pp, struct pbw *w, uint32_t field, const char *type,
		       const char *unit)
{
	size_t m = pbw__begin(w, field);

	pbw__varint(w, F_VT_TYPE, pp__str_id(pp, type));
	pbw__varint(w, F_VT_UNIT, pp__str_id(pp, unit));
	pbw__end(w, m);
}

static void put_sample(struct pp *pp, struct pbw *w, const struct pp_sample *s)
{
	const char *thread = name_of(pp->threads, pp->nthreads, s->file, s->tid),
		   *proc = name_of(pp->procs, pp->nprocs, s->file, s->pid);
	uint64_t v[NR_V] = {s->ticks, s->on_cpu ? s->weight : 0, s->on_cpu ? 0 : s->weight};
	size_t m = pbw__begin(w, F_PROF_SAMPLE), p;
	char buf[32];

	p = pbw__begin(w, F_SMP_LOCATION);
	for (uint32_t i = 0; i < s->nlocs; i++)
		pbw__packed_varint(w, pp->stk[s->locs + i]);
	pbw__end(w, p);
	p = pbw__begin(w, F_SMP_VALUE);
	for (int i = 0; i < NR_V; i++)
		pbw__packed_varint(w, v[i]);
	pbw__end(w, p);
	if (!proc) {
		snprintf(buf, sizeof(buf), "pid %" PRIu32, s->pid);
		proc = buf;
	}
	label_str(pp, w, "thread", thread ? thread : proc);
	label_num(pp, w, "tid", s->tid);
	label_num(pp, w, "pid", s->pid);
	label_str(pp, w, "process", proc);
	if (pp->hosts[s->file])
		label_str(pp, w, "host", pp->hosts[s->file]);
	label_str(pp, w, "state", s->on_cpu ? "on_cpu" : "off_cpu");
	if (!s->on_cpu)
		label_str(pp, w, "reason",
			  s->reason < XLP_NR_CTR && xlp_ctr_names[s->reason]
				  ? xlp_ctr_names[s->reason]
				  : "unknown");
	if (s->run >= 0) {
		label_num(pp, w, "run", pp->run_num[s->run]);
		if (pp->labeled)
			label_str(pp, w, "run_class", pp->slow[s->run] ? "slow" : "fast");
	}
	pbw__end(w, m);
}

void pp__encode(struct pp *pp, struct pbw *w, const char *comment)
{
	size_t m, l;

	value_type(pp, w, F_PROF_SAMPLE_TYPE, "samples", "count");
	value_type(pp, w, F_PROF_SAMPLE_TYPE, "cpu", "nanoseconds");
	value_type(pp, w, F_PROF_SAMPLE_TYPE, "off_cpu", "nanoseconds");
	for (size_t i = 0; i < pp->nsamples; i++)
		if (pp__kept(pp, &pp->samples[i]))
			put_sample(pp, w, &pp->samples[i]);
	for (size_t i = 0; i < pp->nmaps; i++) {
		m = pbw__begin(w, F_PROF_MAPPING);
		pbw__varint(w, F_MAP_ID, i + 1);
		pbw__varint(w, F_MAP_START, 0);
		pbw__varint(w, F_MAP_LIMIT, UINT64_MAX);
		pbw__varint(w, F_MAP_OFFSET, 0);
		pbw__varint(w, F_MAP_FILENAME, pp->maps[i].filename);
		pbw__varint(w, F_MAP_BUILD_ID, pp->maps[i].build_id);
		/* named at record time: nothing for pprof to symbolize */
		pbw__varint(w, F_MAP_HAS_FUNCTIONS, 1);
		pbw__end(w, m);
	}
	for (size_t i = 0; i < pp->nlocs; i++) {
		m = pbw__begin(w, F_PROF_LOCATION);
		pbw__varint(w, F_LOC_ID, i + 1);
		if (pp->locs[i].mapping)
			pbw__varint(w, F_LOC_MAPPING, pp->locs[i].mapping);
		if (pp->locs[i].address)
			pbw__varint(w, F_LOC_ADDRESS, pp->locs[i].address);
		l = pbw__begin(w, F_LOC_LINE);
		pbw__varint(w, F_LINE_FUNCTION, pp->locs[i].fn);
		pbw__end(w, l);
		pbw__end(w, m);
	}
	for (size_t i = 0; i < pp->nfns; i++) {
		m = pbw__begin(w, F_PROF_FUNCTION);
		pbw__varint(w, F_FN_ID, i + 1);
		pbw__varint(w, F_FN_NAME, pp->fns[i].name);
		pbw__varint(w, F_FN_SYSTEM_NAME, pp->fns[i].system_name);
		pbw__varint(w, F_FN_FILENAME, pp->fns[i].filename);
		pbw__end(w, m);
	}
	if (pp->time_ns)
		pbw__varint(w, F_PROF_TIME, pp->time_ns);
	if (pp->end_ns > pp->time_ns && pp->time_ns)
		pbw__varint(w, F_PROF_DURATION, pp->end_ns - pp->time_ns);
	value_type(pp, w, F_PROF_PERIOD_TYPE, "cpu", "nanoseconds");
	pbw__varint(w, F_PROF_PERIOD, pp->period_max);
	pbw__varint(w, F_PROF_COMMENT, pp__str_id(pp, comment));
	pbw__varint(w, F_PROF_DEFAULT_TYPE, pp__str_id(pp, "cpu"));
	/* last: every string above is in the table by now */
	pbw__bytes(w, F_PROF_STRING, "", 0);
	for (size_t i = 0; i < pp->strs.n; i++)
		pbw__str(w, F_PROF_STRING, pp->str_list[i]);
}

/* The profile, gzipped (pprof's own files are). */
int pp__gzip_to(FILE *f, const void *ctx)
{
	const struct pbw *w = ((const struct pp_out *)ctx)->w;
	unsigned char buf[1 << 16];
	z_stream z = {0};
	int zr;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -ENOMEM;
	z.next_in = w->buf;
	z.avail_in = (uInt)w->len; /* checked against UINT_MAX by the caller */
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR ||
		    fwrite(buf, 1, sizeof(buf) - z.avail_out, f) != sizeof(buf) - z.avail_out) {
			deflateEnd(&z);
			return -EIO;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(f) ? -EIO : 0;
}
