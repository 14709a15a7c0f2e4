/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A command that times its own life, for tests/root/test_launch.c, on
 * CLOCK_MONOTONIC (the clock of every xlprobe timestamp):
 *   timed [--sleep] DURATION [FILE]
 * busy-loops (or, with --sleep, sleeps) for DURATION (5ms, 300ms, 1500us),
 * then prints one line on stdout, or appends it to FILE:
 *   timed pid=P entry_ns=E main_ns=M end_ns=T elapsed_ns=T-E
 * E is read at the process's first instruction, M at main's start, T just
 * before exit; the line is written after T, in one write(), so writing it
 * lies outside the measured life, like exit itself.
 *
 * Why from the first instruction and not from main: the C runtime's
 * start-up before main is the command's life too (`time` counts it), and on
 * this project's VMs it is long: 0.6-0.8 ms for static glibc's init, and as
 * much for ld.so in a dynamic binary (measured with and without xlprobe), most
 * of the 1 ms the test allows. So the Makefile links this program static,
 * with timed_entry below as its ELF entry point: it reads the clock with a
 * raw syscall (no vDSO before libc is set up) and jumps to the C runtime's
 * _start with the registers the kernel gave it (the stack pointer, and the
 * rtld_fini argument in rdx / x0) as they were.
 */
#include "wl.h" /* first: it defines _GNU_SOURCE */
#include <fcntl.h>
#include <sys/syscall.h>

#define STR_(x) #x
#define STR(x) STR_(x)

struct timespec timed_entry_ts; /* written by timed_entry */

#if defined(__x86_64__)
/* the syscall clobbers rax, rcx, r11 only; _start reads rsp and rdx */
__asm__(".text\n"
	".globl timed_entry\n"
	".type timed_entry, @function\n"
	"timed_entry:\n"
	"	mov $" STR(
		SYS_clock_gettime) ", %eax\n"
				   "	mov $" STR(
					   CLOCK_MONOTONIC) ", %edi\n"
							    "	lea timed_entry_ts(%rip), %rsi\n"
							    "	syscall\n"
							    "	jmp _start\n");
#elif defined(__aarch64__)
/* the syscall returns in x0, where _start expects rtld_fini: keep it */
__asm__(".text\n"
	".globl timed_entry\n"
	".type timed_entry, %function\n"
	"timed_entry:\n"
	"	mov x19, x0\n"
	"	mov x8, #" STR(
		SYS_clock_gettime) "\n"
				   "	mov x0, #" STR(
					   CLOCK_MONOTONIC) "\n"
							    "	adrp x1, timed_entry_ts\n"
							    "	add x1, x1, :lo12:timed_entry_ts\n"
							    "	svc #0\n"
							    "	mov x0, x19\n"
							    "	b _start\n");
#else
#error "timed: entry point written for x86-64 and arm64 only (as xlprobe itself)"
#endif

static unsigned long long ts_ns(const struct timespec *ts)
{
	return (unsigned long long)ts->tv_sec * NS_PER_S + (unsigned long long)ts->tv_nsec;
}

static int parse_dur(const char *s, unsigned long long *ns)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return -1;
	if (!strcmp(end, "ms"))
		*ns = v * 1000000ull;
	else if (!strcmp(end, "us"))
		*ns = v * 1000ull;
	else if (!strcmp(end, "s"))
		*ns = v * 1000000000ull;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0 = wl_now_ns(), entry = ts_ns(&timed_entry_ts), dur, t1;
	int sleep_mode = 0, i = 1, fd = STDOUT_FILENO, n;
	char line[192];

	if (i < argc && !strcmp(argv[i], "--sleep")) {
		sleep_mode = 1;
		i++;
	}
	if (i >= argc || parse_dur(argv[i], &dur) || !entry) {
		fprintf(stderr, "usage: timed [--sleep] DURATION [FILE] (entry point: %s)\n",
			entry ? "ok" : "not run: link with -Wl,-e,timed_entry");
		return 2;
	}
	/* the duration counts from main: what the command itself does */
	if (sleep_mode) {
		struct timespec until = {.tv_sec = (time_t)((t0 + dur) / 1000000000ull),
					 .tv_nsec = (long)((t0 + dur) % 1000000000ull)};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL))
			;
	} else {
		while (wl_now_ns() - t0 < dur)
			;
	}
	t1 = wl_now_ns();
	n = snprintf(line, sizeof(line),
		     "timed pid=%d entry_ns=%llu main_ns=%llu end_ns=%llu elapsed_ns=%llu\n",
		     (int)getpid(), entry, t0, t1, t1 - entry);
	if (i + 1 < argc)
		fd = open(argv[i + 1], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		return 1;
	return 0;
}
