/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Java's JIT-compiled methods named in the stacks and in the verdict
 * (issue 34): tests/workloads/java/JitWork.java, launched by xlprobe on
 * HotSpot with -XX:+PreserveFramePointer, each run a call of the native
 * Java_JitWork_run (its JNI library, built here) that calls the Java code
 * back; one run in four (at random) also runs heavyChecksum. Recorded
 * with -i on the JNI function and --sample: xlprobe asks the JVM for its
 * perf map itself (user/record/jvm_attach.c, as jcmd PID Compiler.perfmap
 * does), walks the JIT frames by their frame pointers and CFI again below
 * them (user/symbols/stack_unwind.c), and the verdict must name
 * JitWork.heavyChecksum, a [jit] frame, with cpu_run. Needs a JDK
 * (tools/install-deps.sh: openjdk-17-jdk-headless). Root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "testlib.h"
#include "xlptest.h"

static char xl[4096], out[1 << 16], err[1 << 16];

/* Builds JitWork.class and libxlpjni.so in dir; 0 or a failed check. */
static int build(const char *dir)
{
	char cmd[4096], o[4096];
	int rc;

	snprintf(
		cmd, sizeof(cmd),
		"set -e; jdk=$(dirname \"$(dirname \"$(readlink -f \"$(command -v javac)\")\")\"); "
		"cp '%s/tests/workloads/java/JitWork.java' '%s/tests/workloads/java/jitwork_jni.c' "
		"'%s/'; cd '%s'; javac JitWork.java 2>&1; "
		"gcc -shared -fPIC -O2 -I\"$jdk/include\" -I\"$jdk/include/linux\" "
		"jitwork_jni.c -o libxlpjni.so 2>&1",
		tl_root(), tl_root(), dir, dir);
	rc = tl_run(cmd, o, sizeof(o));
	CHECK(rc == 0,
	      "building the Java workload (javac from openjdk-17-jdk-headless, "
	      "tools/install-deps.sh): %s",
	      o);
	return rc;
}

TEST(jit_method_named_in_stacks_and_verdict)
{
	const char *dir = xt_tmp_path("java"), *trace = xt_tmp_path("java/j.xlp"),
		   *js = xt_tmp_path("java/j.json");
	char spec[600], lib[600], cp[600], dump[4096], cmd[8192];
	char *rec[] = {xl,   "record",	 "-o", (char *)trace, "-i",
		       spec, "--sample", "--", "java",	      "-XX:+PreserveFramePointer",
		       lib,  "-cp",	 cp,   "JitWork",     "200",
		       NULL};
	char *rep[] = {xl, "report", "--json", "-o", (char *)js, (char *)trace, NULL};
	const struct json *crit;
	struct json *j;
	bool found = false;
	int rc;

	xt_out("xlprobe", xl, sizeof(xl));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	REQUIRE(!tl_run(cmd, dump, sizeof(dump)), "mkdir %s", dir);
	REQUIRE(!build(dir), "-");
	snprintf(spec, sizeof(spec), "%s/libxlpjni.so:Java_JitWork_run", dir);
	snprintf(lib, sizeof(lib), "-Djava.library.path=%s", dir);
	snprintf(cp, sizeof(cp), "%s", dir);
	rc = xt_run(rec, 300000, out, sizeof(out), err, sizeof(err));
	REQUIRE(rc == 0, "record exit %d: %s", rc, err);
	CHECK(strstr(err, "JVMs wrote their perf maps"), "xlprobe did not ask the JVM: %s", err);
	/* a sampled stack holds the method as a [jit] frame named by the perf map */
	snprintf(cmd, sizeof(cmd),
		 "'%s' dump '%s' | grep -c '^sym .*module=\"\\[jit\\]\" "
		 "name=\"long JitWork.heavyChecksum(int)\" source=\"perfmap\"'",
		 xl, trace);
	rc = tl_run(cmd, dump, sizeof(dump));
	CHECK(rc == 0 && atoi(dump) > 0, "no [jit] frame named JitWork.heavyChecksum: %s", dump);
	j = xt_report_file(rep, js, 120000);
	REQUIRE(j, "no report");
	fprintf(stderr, "  verdict: %s\n", json__str(json__get(j, "verdict")));
	crit = json__get(j, "critical_functions");
	for (size_t i = 0; i < json__len(crit); i++) {
		const struct json *c = json__at(crit, i);
		const char *f = json__str(json__get(c, "function")) ?: "";
		const char *fac =
			json__str(json__get(json__at(json__get(c, "factors"), 0), "factor"));

		found |= strstr(f, "JitWork.heavyChecksum") && json__str_is(c, "binary", "[jit]") &&
			 fac && !strcmp(fac, "cpu_run");
	}
	CHECK(found, "the verdict does not name JitWork.heavyChecksum with cpu_run: %s",
	      json__str(json__get(j, "verdict")));
	json__free(j);
}

TEST_MAIN()
