// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// A Java program whose slow runs spend their time in one JIT-compiled
// method (tests/root/test_java.c, issue 34). Each run is a call of the
// native JitWork.run (jitwork_jni.c, the interaction xlprobe marks), which
// calls back JitWork.work on the same thread: most runs parse a little,
// one in four chosen at random also runs heavyChecksum. Both methods are
// compiled before the first run (a warm-up the runs do not count).
//
//   java -XX:+PreserveFramePointer -Djava.library.path=DIR -cp DIR JitWork RUNS
public class JitWork {
	static volatile long sink;

	static long lightParse(int n) {
		long h = 7;
		for (int i = 0; i < n; i++)
			h = h * 31 + (i ^ (h >>> 7));
		return h;
	}

	static long heavyChecksum(int n) {
		long h = 1469598103934665603L;
		for (int i = 0; i < n; i++) {
			h ^= i;
			h *= 1099511628211L;
		}
		return h;
	}

	// called back from Java_JitWork_run
	static void work(int heavy) {
		sink += lightParse(20000);
		if (heavy != 0)
			sink += heavyChecksum(20000000);
	}

	static native void run(int heavy);

	public static void main(String[] args) throws Exception {
		int runs = Integer.parseInt(args[0]);
		java.util.Random r = new java.util.Random(42);

		System.loadLibrary("xlpjni");
		for (int i = 0; i < 200; i++) { // warm-up: compiled before the runs
			sink += lightParse(20000);
			sink += heavyChecksum(200000);
		}
		Thread.sleep(300); // a tracer that launched us is still starting
		for (int i = 0; i < runs; i++) {
			run(r.nextInt(4) == 0 ? 1 : 0);
			Thread.sleep(2);
		}
		System.out.println("DONE " + runs);
	}
}
