/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for sampled stack frames, found at record time so that a trace
 * stays readable after its processes exit (record --sample).
 *
 * User frames come from the kernel's build-id stack map
 * (BPF_F_USER_BUILD_ID): a GNU build-id and a file offset, valid after the
 * process is gone. The symbolizer learns which file has which build-id
 * from the files it is shown (symbolizer__add_file, symbolizer__add_pid:
 * every file a live process maps), and reads each file's .symtab/.dynsym
 * (and its separate debug file or MiniDebugInfo: the sources elfsym.h
 * lists) once, on first use. A frame the kernel could resolve only to an address
 * (its build-id page was not in memory) is named through the mappings of
 * its process, if symbolizer__add_pid saw them. Kernel frames come from
 * /proc/kallsyms.
 *
 * A frame in no file mapping is looked up in the names the process's JIT
 * runtime wrote for profilers (its jitdump, then its perf map: jitproc.h),
 * named with module XSYM_JIT_MODULE.
 *
 * Nothing is invented: a frame without a symbol is "[file+0xOFF]" (the
 * file's basename and the offset), one without a file "[unknown]", and
 * struct xsym says which.
 */
#ifndef XLP_SYMBOLIZE_H
#define XLP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "jitfile.h"

#define XLP_BUILD_ID_LEN 20 /* the kernel's BUILD_ID_SIZE_MAX */

enum xsym_kind {
	XSYM_SYMBOL = 0, /* name is a function: "name" (offset: from its start) */
	XSYM_FILE,	 /* file known, no symbol covers it: name is "[base+0xOFF]" */
	XSYM_UNKNOWN,	 /* nothing known: name is "[unknown]" */
};

/*
 * The module of a frame named from a JIT runtime's perf map or jitdump:
 * managed code (JavaScript, Java, Python), the application's own code as
 * its runtime compiled it. Nothing else has this module.
 */
#define XSYM_JIT_MODULE "[jit]"

struct xsym {
	enum xsym_kind kind;
	char name[1024];  /* function name (cut; C++ ones reach 500), or the bracketed form */
	char module[128]; /* file basename ("libc.so.6"), "[kernel]", a kernel module's name
			     ("ext4"), or "" if unknown */
	uint64_t offset;  /* from the function's start (SYMBOL), in the file (FILE) */
	/* XLP_SYM_SRC_* (bpf/xlprobe.h): what named it; 0 unless SYMBOL */
	unsigned char source;
};

struct symbolizer;

/* Returns 0 or -ENOMEM. */
int symbolizer__new(struct symbolizer **out);
void symbolizer__free(struct symbolizer *s); /* NULL is fine */

/*
 * A file that may appear in stacks (the launched command, a --func
 * binary). Its build-id is read now; a file without one, or not an ELF
 * file, is ignored (returns -ENOENT / -ENOEXEC, harmless).
 */
int symbolizer__add_file(struct symbolizer *s, const char *path);

/*
 * Every file pid maps now (/proc/PID/maps): their build-ids, and the
 * mappings kept for frames known only by address. Call it while the
 * process lives (a new process seen, a frame that no mapping covers).
 * Returns 0, or -ESRCH when the process is gone (or maps no file: a
 * kernel thread), -EACCES, -ENOMEM.
 */
int symbolizer__add_pid(struct symbolizer *s, int pid);

/*
 * Load now what pid's frames will need (/proc/kallsyms, the symbol table of
 * every file it maps, its JIT runtime's perf map and jitdump; symbolizer__add_pid first), so that
 * the first samples do not pay for it: done at attach, before the target is released, it keeps tens
 * of ms of reading out of the first runs. 0, or -ESRCH when pid is not known.
 */
int symbolizer__prepare(struct symbolizer *s, int pid);

/* A user frame by build-id and file offset. Always fills *out; 0 if kind is XSYM_SYMBOL. */
int symbolizer__user_build_id(struct symbolizer *s, const unsigned char id[XLP_BUILD_ID_LEN],
			      uint64_t file_offset, struct xsym *out);

/* A user frame by address in pid's address space. Always fills *out; 0 if XSYM_SYMBOL. */
int symbolizer__user_ip(struct symbolizer *s, int pid, uint64_t ip, struct xsym *out);

/*
 * The time (CLOCK_MONOTONIC ns: a sample's) of the frames named next: a
 * jitdump names an address by the code loaded there by then. UINT64_MAX
 * (the start): the code loaded last.
 */
void symbolizer__set_time(struct symbolizer *s, uint64_t ns);

/*
 * Called when a frame in no file is not in its process's JIT files (after
 * they were read again): the caller may make the runtime write them now
 * (a JVM asked for its perf map, user/record/jvm_attach.h) and return
 * true, and they are read again at once. NULL: none.
 */
typedef bool (*symbolizer_jit_miss_fn)(void *ctx, int pid);
void symbolizer__on_jit_miss(struct symbolizer *s, symbolizer_jit_miss_fn fn, void *ctx);

/* What the JIT runtimes' files gave and what of them was refused or skipped (jitfile.h). */
void symbolizer__jit_counts(const struct symbolizer *s, struct jit_counts *out);

/*
 * A kernel frame (/proc/kallsyms, read once; module names from it). Always
 * fills *out; 0 if kind is XSYM_SYMBOL, else -ENOENT, or the error of
 * reading kallsyms (-EACCES when its addresses are hidden).
 */
int symbolizer__kernel(struct symbolizer *s, uint64_t ip, struct xsym *out);

#endif
