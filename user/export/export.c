/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * xlprobe export --folded: the stack samples of a trace as folded stacks
 * ("comm;outer;...;inner count" per line), the input of flamegraph.pl,
 * speedscope and Perfetto's importer. Every byte of the trace is
 * untrusted: ids must come in the order the recorder writes them, frames
 * stay inside their record, names are cleaned of the separators.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "export.h"
#include "log.h"
#include "outfile.h"
#include "trace.h"
#include "util.h"

static const char help[] =
	"Usage: xlprobe export --folded [-o FILE] [--no-kernel] TRACE\n"
	"       xlprobe export --perfetto [-o FILE] TRACE   (see --perfetto --help)\n"
	"       xlprobe export --pprof [-o FILE.pb.gz] TRACE...   (see --pprof --help)\n"
	"       xlprobe export --jsonl [--table T] [-o FILE] TRACE...\n"
	"       xlprobe export --csv --table T [-o FILE] TRACE...\n"
	"\n"
	"Writes the stack samples of a trace recorded with --sample (the default\n"
	"without --func) as folded stacks: one line per distinct stack, its frames\n"
	"from the process's name to the innermost, separated by ';', then the\n"
	"number of samples. Kernel frames follow the user frames, suffixed _[k].\n"
	"Time off the CPU ends in a frame naming the wait, e.g. [off-cpu: disk],\n"
	"and counts the sampling ticks it spanned, so one graph shows where the\n"
	"threads ran and where they waited. flamegraph.pl, speedscope and\n"
	"ui.perfetto.dev read it.\n"
	"\n"
	"  -o, --output FILE   write here (created 0600; default: standard output)\n"
	"      --no-kernel     user frames only\n"
	"      --on-cpu        on-CPU samples only\n"
	"      --off-cpu       off-CPU samples only\n"
	"      --weight        sampled time in ns instead of the number of samples\n"
	"  -h, --help          this text\n"
	"\n"
	"Example:\n"
	"  xlprobe export --folded s.xlp | flamegraph.pl > s.svg\n";

struct ex_sym {
	char *name; /* demangled, cleaned, with _[k] for kernel ones added at use */
};

struct ex_stack {
	uint32_t *syms; /* innermost first */
	uint16_t n;
	bool kernel, full;
};

struct ex_sample {
	uint32_t pid, ustack, kstack; /* stack ids + 1, 0: none */
	uint32_t wait;		      /* off-CPU: the wait's counter + 1; 0: on-CPU */
	uint64_t weight, ticks;
};

struct ex_proc {
	uint32_t pid;
	char comm[XLP_COMM_LEN + 1];
};

struct exporter {
	struct ex_sym *syms;
	size_t nsyms, cap_syms;
	struct ex_stack *stacks;
	size_t nstacks, cap_stacks;
	struct ex_sample *samples;
	size_t nsamples, cap_samples;
	struct ex_proc *procs;
	size_t nprocs, cap_procs;
	uint64_t malformed; /* records skipped: ids out of order, frames past the end */
	uint64_t no_ustack; /* samples without a user stack */
	uint64_t period;    /* weight of the last on-CPU sample: the period then */
	bool kernel, weight, on_cpu, off_cpu;
};

/* Separators and control bytes of a name from the file become '?'. */
static char *clean(const char *s, size_t n)
{
	char *o = malloc(n + 1);

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		o[i] = c < 0x20 || c == 0x7f || c == ';' ? '?' : (char)c;
	}
	o[n] = 0;
	if (!n) {
		free(o);
		o = strdup("[unnamed]");
	}
	return o;
}

/* A frame's name as users write it (demangled), cleaned; once per name. */
static char *demangled(const char *s, size_t n)
{
	char raw[DEMANGLE_MAX_IN + 1], out[DEMANGLE_MAX_OUT];

	if (n > DEMANGLE_MAX_IN || memchr(s, 0, n))
		return clean(s, n);
	memcpy(raw, s, n);
	raw[n] = 0;
	return demangle__name(raw, out, sizeof(out)) ? clean(out, strlen(out)) : clean(s, n);
}

static int add_sym(struct exporter *e, const struct xlp_sym_rec *r)
{
	char *name;

	if (!trace__sym_ok(r, (uint32_t)e->nsyms)) {
		e->malformed++;
		return 0;
	}
	if (xlp_grow((void **)&e->syms, &e->cap_syms, e->nsyms, sizeof(*e->syms)))
		return -ENOMEM;
	name = demangled(r->text + r->module_len, r->name_len);
	if (!name)
		return -ENOMEM;
	e->syms[e->nsyms++].name = name;
	return 0;
}

static int add_stack(struct exporter *e, const struct xlp_stack_rec *r)
{
	struct ex_stack *s;

	/* names come before their stacks */
	if (!trace__stack_ok(r, (uint32_t)e->nstacks, (uint32_t)e->nsyms)) {
		e->malformed++;
		return 0;
	}
	if (xlp_grow((void **)&e->stacks, &e->cap_stacks, e->nstacks, sizeof(*e->stacks)))
		return -ENOMEM;
	s = &e->stacks[e->nstacks];
	s->syms = trace__stack_syms(r);
	if (!s->syms)
		return -ENOMEM;
	s->n = r->nframes;
	s->kernel = r->flags & XLP_STACK_KERNEL;
	s->full = r->flags & XLP_STACK_FULL;
	e->nstacks++;
	return 0;
}

static int add_sample(struct exporter *e, const struct xlp_sample_rec *r)
{
	uint32_t u = r->ustack, k = r->kstack;

	/* stacks come before their samples, each of its kind */
	if (u > e->nstacks || k > e->nstacks || (u && e->stacks[u - 1].kernel) ||
	    (k && !e->stacks[k - 1].kernel)) {
		e->malformed++;
		return 0;
	}
	if (r->kind == XLP_SAMPLE_ON_CPU && r->weight_ns)
		e->period = r->weight_ns;
	if (r->kind == XLP_SAMPLE_ON_CPU ? !e->on_cpu : !e->off_cpu)
		return 0;
	e->no_ustack += !u;
	if (xlp_grow((void **)&e->samples, &e->cap_samples, e->nsamples, sizeof(*e->samples)))
		return -ENOMEM;
	e->samples[e->nsamples++] = (struct ex_sample){
		.pid = r->pid,
		.ustack = u,
		.kstack = k,
		.wait = r->kind == XLP_SAMPLE_OFF_CPU && r->reason < XLP_NR_CTR ? r->reason + 1 : 0,
		.weight = r->weight_ns,
		/* an off-CPU sample spans weight / period ticks; the period
		 * in force is the last on-CPU sample's weight (one tick) */
		.ticks = r->kind == XLP_SAMPLE_OFF_CPU && e->period
				 ? (r->weight_ns + e->period / 2) / e->period
				 : 1};
	if (!e->samples[e->nsamples - 1].ticks)
		e->samples[e->nsamples - 1].ticks = 1;
	return 0;
}

static int add_proc(struct exporter *e, const struct xlp_proc_rec *r)
{
	struct ex_proc *p;

	if (xlp_grow((void **)&e->procs, &e->cap_procs, e->nprocs, sizeof(*e->procs)))
		return -ENOMEM;
	p = &e->procs[e->nprocs++];
	p->pid = r->pid;
	memcpy(p->comm, r->comm, XLP_COMM_LEN);
	p->comm[XLP_COMM_LEN] = 0;
	for (char *c = p->comm; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == ';' || *c == 0x7f)
			*c = '?';
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct ex_sample *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->ustack != y->ustack)
		return x->ustack < y->ustack ? -1 : 1;
	if (x->kstack != y->kstack)
		return x->kstack < y->kstack ? -1 : 1;
	return (x->wait > y->wait) - (x->wait < y->wait);
}

static void put_comm(const struct exporter *e, FILE *f, uint32_t pid)
{
	for (size_t i = e->nprocs; i-- > 0;) {
		if (e->procs[i].pid == pid && e->procs[i].comm[0]) {
			fputs(e->procs[i].comm, f);
			return;
		}
	}
	fprintf(f, "pid %" PRIu32, pid);
}

/* outermost first; a user stack that filled every slot may be cut above */
static void put_stack(const struct exporter *e, FILE *f, uint32_t id1)
{
	const struct ex_stack *s = &e->stacks[id1 - 1];

	if (!s->kernel && s->full)
		fputs(";[truncated]", f);
	for (size_t i = s->n; i-- > 0;)
		fprintf(f, ";%s%s", e->syms[s->syms[i]].name, s->kernel ? "_[k]" : "");
}

struct ex_line {
	char *text; /* the frames, as written */
	uint64_t total;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct ex_line *)a)->text, ((const struct ex_line *)b)->text);
}

/*
 * Stacks that differ only in offsets inside the same functions are one
 * line: each group of samples with the same stacks is written out, then
 * the lines merged by their text.
 */
static int write_folded(struct exporter *e, FILE *f);

static int folded_to(FILE *f, const void *e)
{
	return write_folded((struct exporter *)e, f);
}

static int write_folded(struct exporter *e, FILE *f)
{
	struct ex_line *lines = NULL;
	size_t nlines = 0, cap = 0;
	int err = 0;

	xlp_sort(e->samples, e->nsamples, sizeof(*e->samples), cmp_sample);
	for (size_t i = 0; i < e->nsamples && !err;) {
		const struct ex_sample *s = &e->samples[i];
		uint64_t total = 0;
		size_t j = i, len;
		FILE *m;

		for (; j < e->nsamples && !cmp_sample(s, &e->samples[j]); j++)
			total += e->weight ? e->samples[j].weight : e->samples[j].ticks;
		i = j;
		if (xlp_grow((void **)&lines, &cap, nlines, sizeof(*lines))) {
			err = -ENOMEM;
			break;
		}
		m = open_memstream(&lines[nlines].text, &len);
		if (!m) {
			err = -ENOMEM;
			break;
		}
		put_comm(e, m, s->pid);
		if (s->ustack)
			put_stack(e, m, s->ustack);
		else
			fputs(";[no user stack]", m);
		if (e->kernel && s->kstack)
			put_stack(e, m, s->kstack);
		if (s->wait)
			fprintf(m, ";[off-cpu: %s]",
				xlp_ctr_names[s->wait - 1] ? xlp_ctr_names[s->wait - 1]
							   : "unknown");
		if (fclose(m)) {
			err = -ENOMEM;
			break;
		}
		lines[nlines++].total = total;
	}
	if (!err)
		xlp_sort(lines, nlines, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nlines && !err;) {
		uint64_t total = 0;
		size_t j = i;

		for (; j < nlines && !strcmp(lines[i].text, lines[j].text); j++)
			total += lines[j].total;
		fprintf(f, "%s %" PRIu64 "\n", lines[i].text, total);
		i = j;
	}
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	return err ? err : ferror(f) ? -EIO : 0;
}

static void exporter__free(struct exporter *e)
{
	for (size_t i = 0; i < e->nsyms; i++)
		free(e->syms[i].name);
	for (size_t i = 0; i < e->nstacks; i++)
		free(e->stacks[i].syms);
	free(e->syms);
	free(e->stacks);
	free(e->samples);
	free(e->procs);
}

static int exporter__read(struct exporter *e, struct trace_reader *r)
{
	const struct xlp_hdr *h;
	int err, ret = 0;

	while (!ret && (err = trace_reader__next(r, &h)) > 0) {
		/* the reader guarantees each known type's fixed part */
		if (h->type == XLP_R_SYM)
			ret = add_sym(e, (const void *)h);
		else if (h->type == XLP_R_STACK)
			ret = add_stack(e, (const void *)h);
		else if (h->type == XLP_R_SAMPLE)
			ret = add_sample(e, (const void *)h);
		else if (h->type == XLP_R_PROC)
			ret = add_proc(e, (const void *)h);
	}
	return ret ? ret : err;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"folded", no_argument, NULL, 'F'},    {"output", required_argument, NULL, 'o'},
		{"no-kernel", no_argument, NULL, 'K'}, {"weight", no_argument, NULL, 'W'},
		{"on-cpu", no_argument, NULL, 'C'},    {"off-cpu", no_argument, NULL, 'Z'},
		{"help", no_argument, NULL, 'h'},      {},
	};
	struct exporter e = {.kernel = true};
	struct trace_reader *r = NULL;
	const char *out = NULL;
	char why[PATH_MAX + 256];
	bool folded = false;
	int c, err, ret = 1;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--perfetto"))
			return cmd_export_perfetto(argc, argv);
		else if (!strcmp(argv[i], "--pprof"))
			return cmd_export_pprof(argc, argv);
	if (export_tables__wanted(argc, argv))
		return export_tables__main(argc, argv);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			folded = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'K':
			e.kernel = false;
			break;
		case 'W':
			e.weight = true;
			break;
		case 'C':
			e.on_cpu = true;
			break;
		case 'Z':
			e.off_cpu = true;
			break;
		case 'h':
			printf("%s\n%s", help, export_tables_help);
			return 0;
		default:
			xlp_err("export: bad usage: see xlprobe export --help");
			return 2;
		}
	}
	if (!folded || optind != argc - 1) {
		xlp_err("export: %s: run 'xlprobe export --folded TRACE' (see --help)",
			!folded ? "no format given (--folded, --pprof, --perfetto, --jsonl or "
				  "--csv)"
				: "one trace file expected");
		return 2;
	}
	if (!e.on_cpu && !e.off_cpu)
		e.on_cpu = e.off_cpu = true;
	err = trace_reader__open(argv[optind], &r, why, sizeof(why));
	if (err) {
		xlp_err("%s: %s", argv[optind], why);
		return 1;
	}
	err = exporter__read(&e, r);
	if (err < 0) {
		xlp_err("%s: %s after %zu samples: check the disk and the memory", argv[optind],
			strerror(-err), e.nsamples);
		goto cleanup;
	}
	if (!e.nsamples) {
		xlp_err("%s has no stack samples: record with --sample (or without --func)",
			argv[optind]);
		goto cleanup;
	}
	if (trace_reader__status(r) == TRACE_TRUNCATED)
		xlp_warn("%s is truncated (recording did not finish): exporting the %zu samples "
			 "read",
			 argv[optind], e.nsamples);
	else if (trace_reader__status(r) != TRACE_COMPLETE)
		xlp_warn("%s is damaged (%s): exporting the %zu samples read", argv[optind],
			 trace_reader__describe(r, why, sizeof(why)), e.nsamples);
	if (e.malformed)
		xlp_warn("%s: %" PRIu64 " malformed sample, stack or name records skipped",
			 argv[optind], e.malformed);
	if (e.no_ustack)
		xlp_warn("%" PRIu64 " of %zu samples have no user stack (the kernel could not keep "
			 "it: see 'xlprobe dump', ustack_err)",
			 e.no_ustack, e.nsamples);
	if (!outfile__write_with(out, "-o", folded_to, &e))
		ret = 0;
cleanup:
	trace_reader__close(r);
	exporter__free(&e);
	return ret;
}
