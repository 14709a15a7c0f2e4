/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Java's JIT-compiled methods named in stacks: the recorder asks a HotSpot
 * JVM (JDK 17 and later) to write /tmp/perf-PID.map, the file `perf`
 * reads, as `jcmd PID Compiler.perfmap` does, through the JVM's attach
 * mechanism and as the JVM's own user (jvm_attach.c tells the protocol).
 * The symbolizer then reads the map (user/symbols/perfmap.c).
 */
#ifndef XLP_JVM_ATTACH_H
#define XLP_JVM_ATTACH_H

#include <stdbool.h>
#include <stddef.h>

/* Whether pid maps HotSpot's libjvm.so. */
bool jvm_attach__is_jvm(int pid);

/*
 * Asks pid's JVM to write its perf map now (it lists the methods compiled
 * so far; the JVM rewrites the whole file each time). Blocks until the JVM
 * answers, 10 s at most. 0, or a negative errno with a one-line reason in
 * err ("it does not catch SIGQUIT (started with -Xrs?)").
 */
int jvm_attach__perfmap(int pid, char *err, size_t errlen);

#endif
