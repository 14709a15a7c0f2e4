/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The unwinding module (user/symbols/stack_unwind.c) on a snapshot of this process's
 * own registers and stack, taken as the sampling programs take one (the
 * registers in struct pt_regs order, the stack's top bytes from sp): a
 * known chain ut_a -> ut_b -> ut_c -> snap, whose return addresses
 * __builtin_return_address gives independently. No root, no BPF.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "testlib.h"
#include "symbolize.h"
#include "stack_unwind.h"
#include "trace.h"

#if defined(__x86_64__) && defined(XLP_HAVE_LIBDW)

#define SNAP_BYTES 16384

struct snapshot {
	uint64_t regs[XLP_UCOPY_NREGS];
	uint8_t stack[SNAP_BYTES];
	size_t len;
	/* the true return addresses into ut_c, ut_b and ut_a, from the compiler */
	uint64_t ret[3];
};

static struct snapshot snapshot;

/* The end of the mapping that holds addr (/proc/self/maps), or 0. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long lo, hi, end = 0;
	char line[512];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi)
			end = hi;
	if (f)
		fclose(f);
	return end;
}

/*
 * The registers at the instruction after the asm's lea (its own address
 * is the ip), then the stack from that sp up: what the kernel's pt_regs
 * and bpf_probe_read_user would give for a sample taken there. Nothing
 * between the two reads moves sp.
 */
__attribute__((noinline, noipa)) static void snap(struct snapshot *s)
{
	uint64_t *r = s->regs, top;

	__asm__ volatile("movq %%rsp, %c[sp](%0)\n\t"
			 "movq %%rbp, %c[bp](%0)\n\t"
			 "movq %%rbx, %c[bx](%0)\n\t"
			 "movq %%r12, %c[r12](%0)\n\t"
			 "movq %%r13, %c[r13](%0)\n\t"
			 "movq %%r14, %c[r14](%0)\n\t"
			 "movq %%r15, %c[r15](%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, %c[ip](%0)\n\t"
			 :
			 : "r"(r), [sp] "i"(XLP_UREG_SP * 8), [bp] "i"(XLP_UREG_BP * 8),
			   [bx] "i"(XLP_UREG_BX * 8), [r12] "i"(XLP_UREG_R12 * 8),
			   [r13] "i"(XLP_UREG_R13 * 8), [r14] "i"(XLP_UREG_R14 * 8),
			   [r15] "i"(XLP_UREG_R15 * 8), [ip] "i"(XLP_UREG_IP * 8)
			 : "rax", "memory");
	top = mapping_end(r[XLP_UREG_SP]);
	s->len = top > r[XLP_UREG_SP] ? top - r[XLP_UREG_SP] : 0;
	if (s->len > SNAP_BYTES)
		s->len = SNAP_BYTES;
	memcpy(s->stack, (const void *)r[XLP_UREG_SP], s->len);
}

/* each does work after its call: no tail call, every frame stays */
__attribute__((noinline, noipa)) static int ut_c(int v)
{
	snapshot.ret[0] = (uint64_t)__builtin_return_address(0);
	snap(&snapshot);
	return v + (int)snapshot.len;
}

__attribute__((noinline, noipa)) static int ut_b(int v)
{
	snapshot.ret[1] = (uint64_t)__builtin_return_address(0);
	return ut_c(v * 3) + 1;
}

__attribute__((noinline, noipa)) static int ut_a(int v)
{
	snapshot.ret[2] = (uint64_t)__builtin_return_address(0);
	return ut_b(v + 5) * 2;
}

static void take_snapshot(void)
{
	static bool done;
	volatile int v;

	if (done)
		return;
	done = true;
	v = ut_a(1);
	(void)v;
}

static const char *name_of(struct symbolizer *sym, const struct unwind_frame *f, struct xsym *x)
{
	symbolizer__user_ip(sym, getpid(), f->ip - (f->ret ? 1 : 0), x);
	return x->name;
}

static struct unwind_in snapshot_in(struct unwind_copy *c, size_t len, bool cut)
{
	*c = (struct unwind_copy){
		.regs = snapshot.regs, .data = snapshot.stack, .len = len, .cut = cut};
	return (struct unwind_in){.pid = getpid(), .tid = (int)syscall(SYS_gettid), .copy = c};
}

/* The whole snapshot: snap, ut_c, ut_b, ut_a, ... to the outermost frame. */
TEST(cfi_unwinds_the_snapshot_to_its_end)
{
	struct unwinder *u;
	struct symbolizer *sym;
	struct unwind_copy c;
	struct unwind_in in;
	static struct unwind_out out;
	struct xsym x;
	static const char *const chain[] = {"snap", "ut_c", "ut_b", "ut_a"};

	take_snapshot();
	REQUIRE(snapshot.len > 256, "snapshot of %zu bytes", snapshot.len);
	REQUIRE(unwinder__new(&u) == 0 && symbolizer__new(&sym) == 0, "alloc");
	REQUIRE(symbolizer__add_pid(sym, getpid()) == 0, "own maps");
	in = snapshot_in(&c, snapshot.len, snapshot.len == SNAP_BYTES);
	CHECK(unwind__stack(u, &in, &out) == 0, "unwind__stack");
	CHECK(out.method == XLP_UNWIND_CFI, "method %s", trace__unwind_method_name(out.method));
	/* a 16 KiB copy holds this test's stack whole: to _start */
	if (snapshot.len < SNAP_BYTES)
		CHECK(out.stop == XLP_STOP_END, "stopped: %s", trace__unwind_stop_name(out.stop));
	CHECK(out.n >= 6, "%zu frames", out.n);
	for (size_t i = 0; i < 4 && i < out.n; i++)
		CHECK(!strcmp(name_of(sym, &out.f[i], &x), chain[i]), "frame %zu is %s, not %s", i,
		      x.name, chain[i]);
	/* the frames are the exact return addresses, not just the right functions */
	for (size_t i = 0; i < 3 && i + 2 < out.n; i++)
		CHECK(out.f[i + 2].ip == snapshot.ret[i] && out.f[i + 2].ret,
		      "frame %zu at 0x%llx, its return address is 0x%llx", i + 2,
		      (unsigned long long)out.f[i + 2].ip, (unsigned long long)snapshot.ret[i]);
	CHECK(out.f[0].ip == snapshot.regs[XLP_UREG_IP] && !out.f[0].ret, "first frame at the ip");
	CHECK(out.ncfi == out.n, "ncfi %zu of %zu", out.ncfi, out.n);
	/* the outermost frames are the C runtime's: main, then libc's start */
	CHECK(out.n >= 2 && !strcmp(name_of(sym, &out.f[out.n - 1], &x), "_start"),
	      "outermost frame %s", x.name);
	symbolizer__free(sym);
	unwinder__free(u);
}

/* Sizes of the copy: the frames above the copy are not guessed; stop says "copy". */
TEST(a_short_copy_stops_at_its_end_and_says_so)
{
	struct unwinder *u;
	struct unwind_copy c;
	struct unwind_in in;
	static struct unwind_out full, out;
	size_t prev = 0;

	take_snapshot();
	REQUIRE(unwinder__new(&u) == 0, "alloc");
	in = snapshot_in(&c, snapshot.len, snapshot.len == SNAP_BYTES);
	REQUIRE(unwind__stack(u, &in, &full) == 0 && full.n >= 6, "full unwind");
	for (size_t len = 64; len < snapshot.len; len *= 2) {
		in = snapshot_in(&c, len, true);
		CHECK(unwind__stack(u, &in, &out) == 0, "unwind__stack");
		/* no frame pointers given: nothing to go on with */
		CHECK(out.method == XLP_UNWIND_CFI || out.method == XLP_UNWIND_FP, "method %s",
		      trace__unwind_method_name(out.method));
		if (out.method != XLP_UNWIND_CFI)
			continue;
		CHECK(out.n <= full.n, "%zu frames from %zu bytes, %zu from all", out.n, len,
		      full.n);
		CHECK(out.n >= prev, "fewer frames (%zu) from more bytes (%zu)", out.n, len);
		prev = out.n;
		for (size_t i = 0; i < out.n; i++)
			CHECK(out.f[i].ip == full.f[i].ip, "frame %zu differs at %zu bytes", i,
			      len);
		if (out.n < full.n)
			CHECK(out.stop == XLP_STOP_COPY, "%zu bytes: stopped: %s", len,
			      trace__unwind_stop_name(out.stop));
	}
	CHECK(prev >= 4, "even 8 KiB did not reach ut_a (%zu frames)", prev);
	unwinder__free(u);
}

/*
 * A copy that ends mid-stack, with the kernel's frame-pointer walk of the
 * same stack (here: the true frames, as addresses): CFI to the copy's
 * end, then the walk's frames above the last one both have (mixed).
 */
TEST(cfi_then_frame_pointers_beyond_the_copy)
{
	static struct bpf_stack_build_id fp[XLP_STACK_DEPTH];
	static struct unwind_out full, out;
	struct unwinder *u;
	struct unwind_copy c;
	struct unwind_in in;
	size_t len;

	take_snapshot();
	REQUIRE(unwinder__new(&u) == 0, "alloc");
	in = snapshot_in(&c, snapshot.len, snapshot.len == SNAP_BYTES);
	REQUIRE(unwind__stack(u, &in, &full) == 0 && full.n >= 6, "full unwind");
	memset(fp, 0, sizeof(fp));
	for (size_t i = 0; i < full.n; i++) {
		fp[i].status = BPF_STACK_BUILD_ID_IP;
		fp[i].ip = full.f[i].ip;
	}
	/* the smallest copy that yields two frames and stops for its size */
	for (len = 16;; len += 8) {
		REQUIRE(len < snapshot.len, "no copy size stops early");
		in = snapshot_in(&c, len, true);
		REQUIRE(unwind__stack(u, &in, &out) == 0, "unwind__stack");
		if (out.method == XLP_UNWIND_CFI && out.n >= 2 && out.stop == XLP_STOP_COPY)
			break;
	}
	in.fp = fp;
	in.nfp = full.n;
	CHECK(unwind__stack(u, &in, &out) == 0, "unwind__stack");
	CHECK(out.method == XLP_UNWIND_MIXED, "method %s", trace__unwind_method_name(out.method));
	CHECK(out.n == full.n, "%zu frames, %zu in all", out.n, full.n);
	CHECK(out.ncfi >= 2 && out.ncfi < out.n, "ncfi %zu", out.ncfi);
	for (size_t i = 0; i < out.n && i < full.n; i++)
		CHECK(out.f[i].ip == full.f[i].ip, "frame %zu differs", i);
	CHECK(out.stop == XLP_STOP_FP, "stopped: %s", trace__unwind_stop_name(out.stop));

	/* no copy: the walk as it is */
	in.copy = NULL;
	CHECK(unwind__stack(u, &in, &out) == 0 && out.method == XLP_UNWIND_FP && out.n == full.n,
	      "frame pointers alone: %s, %zu frames", trace__unwind_method_name(out.method), out.n);
	unwinder__free(u);
}

#else
/* Built without libdw (make NO_LIBDW=1) or for arm64: a copy changes nothing, the walk stays. */
TEST(without_cfi_the_frame_pointer_walk_stays)
{
	static struct bpf_stack_build_id fp[XLP_STACK_DEPTH];
	static struct unwind_out out;
	uint64_t regs[XLP_UCOPY_NREGS] = {0};
	uint8_t stack[64] = {0};
	struct unwind_copy c = {.regs = regs, .data = stack, .len = sizeof(stack)};
	struct unwind_in in = {.pid = getpid(), .tid = getpid(), .fp = fp, .nfp = 3, .copy = &c};
	struct unwinder *u;

	for (int i = 0; i < 3; i++) {
		fp[i].status = BPF_STACK_BUILD_ID_IP;
		fp[i].ip = 0x1000 * (i + 1);
	}
	REQUIRE(unwinder__new(&u) == 0, "alloc");
	CHECK(unwind__stack(u, &in, &out) == 0 && out.method == XLP_UNWIND_FP && out.n == 3 &&
		      out.f[2].ip == 0x3000 && out.f[2].ret && !out.f[0].ret,
	      "%s, %zu frames", trace__unwind_method_name(out.method), out.n);
	unwinder__free(u);
}
#endif

TEST_MAIN()
