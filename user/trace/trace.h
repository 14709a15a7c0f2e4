/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The xlprobe trace file: a header, zlib-compressed chunks of records
 * (struct xlp_hdr + payload, as defined in bpf/xlprobe.h), a footer.
 * See docs/trace-format.md, "Trace file format", for the byte layout.
 */
#ifndef XLP_TRACE_H
#define XLP_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "xlprobe.h"
#include "marker.h"

#define XLP_TRACE_MAGIC "XLPROBE\0" /* 8 bytes */

/*
 * Version of the file: its framing (header, chunks, footer;
 * docs/trace-format.md) and the record layouts of bpf/xlprobe.h, whose own
 * XLP_FORMAT_VERSION counts only the latter. Version 2 numbers the chunks
 * and gives each chunk header its own CRC; version 3 adds the compact call
 * record (XLP_R_CALL_COMPACT), which the reader expands: an older reader
 * would skip it as an unknown type, and must refuse the file instead.
 * Versions 1 and 2 still read. A record type that an older reader may
 * skip without misreading the rest (XLP_R_FORK) needs no new version.
 */
#define XLP_TRACE_VERSION 3
_Static_assert(XLP_FORMAT_VERSION == 2,
	       "the record layout changed: bump XLP_TRACE_VERSION and teach the reader");

/*
 * The names of enum xlp_ctr and enum xlp_stat (user/trace/trace_names.c, from the
 * one list in bpf/xlprobe.h): what dump, the reports and their JSON keys
 * show. NULL for a reserved slot.
 */
extern const char *const xlp_ctr_names[XLP_NR_CTR];
extern const char *const xlp_stat_names[XLP_NR_STAT];
/* why trace-marker lines were skipped (struct xlp_marker_rec.skip, bpf/marker.h) */
extern const char *const xlp_marker_skip_names[XLP_MARKER_NR_SKIP];

/* struct xlp_trace_meta.features: what the kernel let us see */
#define XLP_FEAT_BTF (1u << 0)
#define XLP_FEAT_SCHED (1u << 1) /* scheduler tracepoints attached */
#define XLP_FEAT_UPROBES (1u << 2)
#define XLP_FEAT_CPUFREQ (1u << 3)  /* cpufreq driver present: frequency is real */
#define XLP_FEAT_BINDER (1u << 4)   /* binder tracepoints attached */
#define XLP_FEAT_BLOCK (1u << 5)    /* block_rq_* attached */
#define XLP_FEAT_SYSCALLS (1u << 6) /* wait reasons from syscalls and their fds */
#define XLP_FEAT_DELAYACCT (1u << 7)
#define XLP_FEAT_SAMPLE (1u << 8)   /* stack samples (record --sample) */
#define XLP_FEAT_TIMELINE (1u << 9) /* scheduling events (record --timeline) */
/* runs hold the runqueue wait since their thread's wakeup (queued; record
 * without --no-prewake, bpf/prewake.bpf.h) */
#define XLP_FEAT_PREWAKE (1u << 10)

/*
 * A recording that lost more than this share of the records the programs
 * sent (rb_full + lost_by_reader, of those and the records in the file the
 * programs produced) is a partial sample: record says what to change and
 * report puts it first in its verdict. A reporting threshold, not a
 * detection rule: at median + 1 sigma about 16 % of the runs are slow, and
 * a full ring buffer loses records in the busiest periods, where the slow
 * runs are, so 2 % lost could be an eighth of the slow runs (docs/recording.md,
 * "Keeping up").
 */
#define XLP_LOSS_CAVEAT 0.02

/* Records the BPF programs produce (the others are the recorder's own:
 * names, stacks, statistics, launches, sizes, --lag counts). A --size-arg size is an
 * XLP_R_TASKEV: the programs'. */
static inline bool xlp_rec_from_programs(uint16_t type)
{
	switch (type) {
	case XLP_R_CALL:
	case XLP_R_CALL_COMPACT:
	case XLP_R_RUN:
	case XLP_R_THREAD:
	case XLP_R_PROC:
	case XLP_R_FORK:
	case XLP_R_SAMPLE:
	case XLP_R_SCHED:
	case XLP_R_TASK:
	case XLP_R_TASKEV:
	case XLP_R_THIEF:
	case XLP_R_CPUSCHED:
		return true;
	default:
		return false;
	}
}

/* The thieves a record holds: nthieves, as far as h.size and XLP_THIEF_MAX allow. */
static inline uint32_t xlp_thief_count(const struct xlp_thief_rec *r)
{
	uint32_t room = (uint32_t)((r->h.size - sizeof(*r)) / sizeof(r->thieves[0]));

	if (r->h.size < sizeof(*r))
		return 0;
	room = room < XLP_THIEF_MAX ? room : XLP_THIEF_MAX;
	return r->nthieves < room ? r->nthieves : room;
}

/* struct xlp_func_info.flags */
#define XLP_FUNC_INTERACTION (1u << 0)
#define XLP_FUNC_TASK_POST (1u << 1) /* record --task-post: hands a task off */
#define XLP_FUNC_TASK_RUN (1u << 2)  /* record --task-run: runs a task */
#define XLP_FUNC_RUN_BEGIN (1u << 3) /* the interaction, with --until: a keyed run begins */
#define XLP_FUNC_RUN_END (1u << 4)   /* record --until: a keyed run ends */
/* the task's key is argument N (0: the first) */
#define XLP_FUNC_TASK_ARG(n) ((uint32_t)(n) << 8)
#define XLP_FUNC_TASK_ARG_OF(flags) (((flags) >> 8) & 7)
/* record --size-arg N: the interaction's argument N is each run's size */
#define XLP_FUNC_SIZE (1u << 5)
#define XLP_FUNC_SIZE_ARG(n) ((uint32_t)(n) << 12)
#define XLP_FUNC_SIZE_ARG_OF(flags) (((flags) >> 12) & 7)
/* record --func usdt:...: USDT probes (user/symbols/usdt.h), symbol "provider:name" */
#define XLP_FUNC_USDT (1u << 6)
/*
 * A trace-marker section (record --func marker:NAME): no binary, no
 * offset; binary is "[trace_marker]", symbol "marker:NAME" (NAME may be a
 * glob), what every output shows.
 */
#define XLP_FUNC_MARKER (1u << 7)

struct xlp_func_info {
	uint32_t id; /* == index in the table, == func_id in records */
	uint32_t flags;
	uint64_t offset; /* file offset of the symbol in binary */
	char *binary;	 /* absolute path as resolved at record time */
	char *symbol;	 /* as in the binary (mangled) */
	char *build_id;	 /* hex, "" when the ELF has none */
	/* symbol as users write it (demangled, user/lib/demangle.h), what the
	 * outputs print: set by the reader, NULL in a header being written */
	char *name;
};

/* Session description written once at the start of the file. */
struct xlp_trace_meta {
	uint32_t format_version; /* filled by the writer */
	uint32_t ncpus;
	uint32_t clock_id;	/* CLOCK_MONOTONIC: the clock of every *_ns field */
	uint32_t features;	/* XLP_FEAT_* */
	int64_t boot_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
	uint64_t start_ns;	/* CLOCK_MONOTONIC at attach */
	uint64_t min_dur_ns;
	uint32_t target_pid; /* 0 when launching a command */
	uint32_t repeat;     /* launches requested (0 when attaching to a PID) */
	char *host;
	char *kernel;  /* uname -r */
	char *cmdline; /* target command line, args joined by spaces */
	char *notes;   /* free text: e.g. "binder: tracepoints absent" lines */
	uint32_t nfuncs;
	struct xlp_func_info *funcs;
};

/* Written last; its presence (with a valid CRC) marks a complete file. */
struct xlp_trace_footer {
	uint64_t end_ns;
	uint64_t nrecords; /* records in all chunks */
	uint64_t nchunks;
	uint64_t stat[XLP_NR_STAT]; /* BPF-side counters summed over CPUs */
	uint64_t lost_by_reader;    /* records user space failed to store */
	uint32_t stop_reason;	    /* enum xlp_stop_reason */
	uint32_t __pad;
};

enum xlp_stop_reason {
	XLP_STOP_SIGNAL = 1,  /* SIGINT / SIGTERM */
	XLP_STOP_DURATION,    /* -d elapsed */
	XLP_STOP_TARGET_EXIT, /* target (or last launch) exited */
	XLP_STOP_ERROR,	      /* e.g. disk full: what was written is valid */
};

/* ---- writer ---- */
struct trace_writer;

/*
 * Creates path (user/lib/outfile.h, OUTFILE_CRASH_SAFE: never through a link,
 * mode 0600, an older file of ours replaced at close) and writes the
 * header. Negative errno on error.
 */
int trace_writer__open(const char *path, const struct xlp_trace_meta *meta,
		       struct trace_writer **out);
/* Writes the header to fd, which stays the caller's to close or commit. */
int trace_writer__open_fd(int fd, const struct xlp_trace_meta *meta, struct trace_writer **out);
/* Buffers one record (rec->size bytes); flushes a chunk when it is large. */
int trace_writer__append(struct trace_writer *w, const struct xlp_hdr *rec);
/* Compresses and writes the buffered records as one chunk, if any. */
int trace_writer__flush(struct trace_writer *w);
/* Flushes and writes the footer; a file opened by path is then synced and
 * put in place. Frees w, even on error. */
int trace_writer__close(struct trace_writer *w, const struct xlp_trace_footer *footer);
/* Flushes, without a footer (the file reads as truncated), and keeps the
 * file like __close. Accepts NULL. */
void trace_writer__abort(struct trace_writer *w);
/* Frees w without flushing; a file opened by path is removed. Accepts NULL. */
void trace_writer__discard(struct trace_writer *w);
uint64_t trace_writer__nrecords(const struct trace_writer *w);
uint64_t trace_writer__bytes(const struct trace_writer *w);

/* ---- reader ---- */
struct trace_reader;

enum trace_status {
	TRACE_COMPLETE = 0, /* valid footer, and every chunk it counts read once */
	TRACE_TRUNCATED,    /* no valid footer: read up to the last whole chunk */
	TRACE_DAMAGED,	    /* valid footer, but chunks or records are missing, damaged,
			       duplicated or out of order (trace_reader__describe) */
};

/* What reading the chunks found, compared with the footer when there is one. */
struct trace_integrity {
	bool sequenced;		  /* chunks carry sequence numbers (format version >= 2) */
	bool footer;		  /* a valid footer was read: the footer_* counts are known */
	bool gave_up;		  /* too much damage to re-synchronise: the rest is unread */
	uint64_t chunks, records; /* read and returned by trace_reader__next */
	uint64_t bad;		  /* damaged regions skipped (CRC, zlib, record sizes) */
	uint64_t damaged;	  /* of those, the ones whose chunk number is known */
	uint64_t missing;	  /* chunk numbers never found (cut out, or lost to damage) */
	uint64_t duplicate;	  /* chunks skipped: their number was read already */
	uint64_t reordered;	  /* chunks skipped: found after a chunk numbered higher */
	uint64_t extra_chunks;	  /* beyond the footer's count (version 1: a duplicate?) */
	uint64_t footer_chunks, footer_records;
	uint64_t missing_records; /* the footer counts more records than were read */
	uint64_t extra_records;	  /* more records were read than the footer counts */
};

/*
 * Opens and validates the header. On error returns negative errno and, when
 * errbuf is not NULL, a one-line reason (e.g. "not an xlprobe trace",
 * "format version 7 is newer than this xlprobe (1): upgrade xlprobe").
 */
int trace_reader__open(const char *path, struct trace_reader **out, char *errbuf, size_t errlen);
const struct xlp_trace_meta *trace_reader__meta(const struct trace_reader *r);
/*
 * Next record: 1 and *rec set (valid until the next call), 0 at the end,
 * negative errno on an I/O error. A chunk with a bad CRC or bad zlib data
 * is skipped and counted; records of unknown type are returned as they are
 * (readers skip types they do not know, by h.size). A compact call record
 * (XLP_R_CALL_COMPACT) is returned expanded, as the XLP_R_CALL it stands for.
 */
int trace_reader__next(struct trace_reader *r, const struct xlp_hdr **rec);
/* Valid once __next returned 0. */
enum trace_status trace_reader__status(const struct trace_reader *r);
/* NULL when the file has no valid footer (TRACE_TRUNCATED). */
const struct xlp_trace_footer *trace_reader__footer(const struct trace_reader *r);
uint64_t trace_reader__bad_chunks(const struct trace_reader *r);
uint64_t trace_reader__good_chunks(const struct trace_reader *r);
/* Valid once __next returned 0. */
const struct trace_integrity *trace_reader__integrity(const struct trace_reader *r);
/*
 * Once __next returned 0: one line saying what is missing or was skipped,
 * e.g. "chunks 4-5 missing (lost 2 chunks); chunk 7 duplicated (skipped)",
 * or "" when the file is complete. Returns buf.
 */
const char *trace_reader__describe(const struct trace_reader *r, char *buf, size_t len);
void trace_reader__close(struct trace_reader *r); /* accepts NULL */

/* record --timeline: a scheduling event's kind, a switch-out's state; NULL if unknown */
const char *trace__sched_kind_name(unsigned int kind);
const char *trace__sched_state_name(unsigned int state);
/* A frame name's source (XLP_SYM_SRC_*): "symtab", "minidebuginfo"...; NULL if unknown */
const char *trace__sym_source_name(unsigned int source);
/* A user stack's unwinding (XLP_UNWIND_*, XLP_STOP_*): "fp", "cfi"...; "?" if unknown */
const char *trace__unwind_method_name(unsigned int method);
const char *trace__unwind_stop_name(unsigned int stop);

/* The names of a flags field's bits, as dump shows them. */
struct trace_flag_name {
	uint32_t bit;
	const char *name;
};

enum trace_flags {
	TRACE_FLAGS_FEATURES, /* the header's features (XLP_FEAT_*) */
	TRACE_FLAGS_FUNC,     /* a function of the header (XLP_FUNC_*) */
	TRACE_FLAGS_CALL,     /* a call record (XLP_CALL_*) */
	TRACE_FLAGS_LAUNCH,   /* a launch record (XLP_LAUNCH_*) */
	TRACE_FLAGS_THREAD,   /* a thread or process record (XLP_THREAD_*) */
	TRACE_FLAGS_FORK,     /* a fork record (XLP_FORK_*) */
	TRACE_FLAGS_STACK,    /* a stack record, less its method and stop (XLP_STACK_*) */
	TRACE_FLAGS_SAMPLING, /* a sampling record (XLP_SAMPLING_*) */
	TRACE_FLAGS_SIZE,     /* a size record (XLP_SIZE_*) */
	TRACE_FLAGS_THIEF,    /* a thief record's entry (XLP_THIEF_*) */
	TRACE_NR_FLAGS,
};

/* The names of the bits of one flags field: *n of them (NULL and 0 if unknown). */
const struct trace_flag_name *trace__flag_names(enum trace_flags field, size_t *n);

/*
 * A stack-sampling name or stack record as the recorder writes it: ids
 * 0, 1, 2... in order (next: the id expected), its text or frames inside
 * the record, frames naming names already read (nsyms). r is at least its
 * struct's size (trace_reader__next checks every record's minimum).
 */
bool trace__sym_ok(const struct xlp_sym_rec *r, uint32_t next);
bool trace__stack_ok(const struct xlp_stack_rec *r, uint32_t next, uint32_t nsyms);
/*
 * The symbol ids of a stack record's frames (checked by trace__stack_ok),
 * malloc'd, one zero past the last: the readers' own copy. NULL on ENOMEM.
 */
uint32_t *trace__stack_syms(const struct xlp_stack_rec *r);

/* What dump and export call them: "signal", "duration", "target_exit",
 * "error" ("unknown" otherwise); "complete", "truncated", "damaged". */
const char *trace_stop_name(uint32_t reason);
const char *trace_status_name(enum trace_status st);

/* Helpers for struct xlp_trace_meta owned by callers (free every string). */
void xlp_trace_meta__free(struct xlp_trace_meta *m);
/*
 * Appends a function to m's table (its id the next index): 0 and *out,
 * -E2BIG past XLP_MAX_FUNCS (the caller says what to narrow), -ENOMEM.
 */
int xlp_trace_meta__add_func(struct xlp_trace_meta *m, uint32_t flags, uint64_t offset,
			     const char *binary, const char *symbol, const char *build_id,
			     struct xlp_func_info **out);

#endif /* XLP_TRACE_H */
