/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JitWork.run (JitWork.java): one run of the Java workload, the function
 * xlprobe marks as the interaction; it calls JitWork.work back on the same
 * thread, so the run holds the JIT-compiled Java code it runs.
 */
#include <jni.h>

JNIEXPORT void JNICALL Java_JitWork_run(JNIEnv *env, jclass cls, jint heavy)
{
	jmethodID work = (*env)->GetStaticMethodID(env, cls, "work", "(I)V");

	if (work)
		(*env)->CallStaticVoidMethod(env, cls, work, heavy);
}
