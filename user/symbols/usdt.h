/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes (<sys/sdt.h>, DTRACE_PROBE / STAP_PROBE): the notes of a
 * binary's .note.stapsdt read for listing them, for checking a spec and
 * for suggesting names. Attaching and decoding the arguments is libbpf's
 * (bpf_program__attach_usdt(), usdt.bpf.h), not ours.
 *
 * A spec is usdt:BINARY:PROVIDER:NAME[,END][:argN=STRING]:
 *   NAME alone       a point: each hit is a call of no length
 *   NAME,END         a call from probe NAME to probe END on the same thread
 *                    (query__start,query__done; function__entry,function__return)
 *   :argN=STRING     only the hits whose argument N (0: the first) is a
 *                    string equal to STRING (at most XLP_USDT_STR_MAX - 1
 *                    bytes), on both probes: a Python function by its name
 * BINARY is found as --func's (a path, or a library the process maps).
 */
#ifndef XLP_USDT_H
#define XLP_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct usdt_note {
	char *provider;
	char *name;
	uint64_t pc;   /* link-time address of the probe (adjusted for .stapsdt.base) */
	uint64_t sema; /* link-time address of its semaphore, 0 if none */
	int nargs;     /* argument specs in the note */
};

struct usdt_target {
	char *binary;	/* absolute path */
	char *provider; /* as in the note */
	char *begin;	/* the probe (entry of the call) */
	char *end;	/* the end probe, NULL for a point */
	char *label;	/* "provider:begin", "...:argN=STRING": the name users know */
	int filter_arg; /* -1: every hit */
	char filter[64];
	int nargs;	 /* arguments of begin (and of end: the fewer of the two) */
	uint64_t offset; /* file offset of begin's first location */
	bool semaphore;	 /* begin or end is guarded by a semaphore */
	char build_id[41];
};

/* Whether a --func / --interaction / --until spec names USDT probes. */
static inline bool usdt__is_spec(const char *spec)
{
	return spec && !strncmp(spec, "usdt:", 5);
}

/*
 * The notes of the ELF file at path into *notes / *n (malloc'd, free with
 * usdt__free_notes). 0, also with no notes (*n 0); -errno with a one-line
 * message in err for a file that cannot be read or a malformed note.
 */
int usdt__read_notes(const char *path, struct usdt_note **notes, size_t *n, char *err,
		     size_t errlen);
void usdt__free_notes(struct usdt_note *notes, size_t n);

/*
 * Resolves a usdt: spec for process pid (0: none) into *t. -errno with a
 * one-line "cause: fix" message: bad syntax, no such file, no
 * .note.stapsdt, no such probe (with the closest names), argN past the
 * probe's arguments.
 */
int usdt__resolve(const char *spec, int pid, struct usdt_target *t, char *err, size_t errlen);
/* Argument argn of t (--key, --size-arg) exists on its probes; else why not. */
int usdt__check_arg(const struct usdt_target *t, int argn, const char *what, char *err,
		    size_t errlen);
void usdt__free_target(struct usdt_target *t);

/*
 * xlprobe list usdt: one line per probe, "usdt:PATH:PROVIDER:NAME" as
 * bpftrace -l prints them, of the binary at path or (path NULL) of every
 * ELF file process pid maps. Returns the number listed or -errno (err).
 */
int usdt__list(FILE *out, const char *path, int pid, char *err, size_t errlen);

#endif
