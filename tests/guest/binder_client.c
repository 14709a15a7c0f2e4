// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * binder_client: the client side of the guest's binder test. Each run
 * (handle_request, the interaction) prepares a request, calls the service
 * through binder (call_service: one synchronous transaction, the function
 * the report must accuse in slow runs), optionally sends a one-way
 * notification, and pauses 2 ms on a timer (pause_briefly: a sleep that is
 * never IPC, whatever binder did before it).
 *
 *   binder_client --device DEV [--runs N] [--slow-every K] [--slow-us U]
 *                 [--fast-us F] [--oneway] [--interrupt-us T]
 *                 [--backoff-us B] [--die-at I]
 *
 * --slow-every K: runs K-1, 2K-1, ... ask the service to take U µs
 *   (default 50000) instead of F (default 1000).
 * --oneway: each run also sends a one-way transaction (notify_service).
 * --interrupt-us T: a SIGALRM T µs into each call wakes the waiting
 *   client before the reply (the ioctl fails with EINTR); the client reads
 *   again and gets the reply later. With --backoff-us B, in odd runs it
 *   first sleeps B µs in backoff() (a timer sleep inside the call).
 * --die-at I: run I asks the service to exit without replying (the driver
 *   answers BR_DEAD_REPLY); later calls fail at once, the runs go on.
 * At the end: "calls C replies R dead D interrupted E".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include "binder_io.h"

static const char *prog = "binder_client";
static struct bio b;
static int runs = 40, slow_every, die_at = -1;
static uint32_t slow_us = 50000, fast_us = 1000, interrupt_us, backoff_us;
static int oneway;
static int calls, replies, dead, interrupted;
static volatile sig_atomic_t alarms;
static volatile uint64_t sink;

static void on_alarm(int sig)
{
	alarms++;
}

static void sleep_us(uint32_t us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void arm_alarm(uint32_t us)
{
	struct itimerval it = {{0, 0}, {us / 1000000, us % 1000000}};

	setitimer(ITIMER_REAL, &it, NULL);
}

static uint64_t mix(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ull ^ (x >> 29);
}

/* Not a leaf: a leaf function gets no frame-pointer prologue, and a uprobe
 * on its first instruction is single-stepped (docs/overhead.md). */
void prepare_request(int seq)
{
	for (int i = 0; i < 20000; i++)
		sink += mix((uint64_t)i * (uint64_t)seq);
}

void backoff(void)
{
	sleep_us(backoff_us);
}

/* Sends one transaction to handle 0; for a synchronous one waits for the
 * answer: 0 (a reply), 1 (BR_DEAD_REPLY or BR_FAILED_REPLY), -1 (error). */
static int transact(uint32_t code, uint32_t flags, uint32_t seq, uint32_t delay_us)
{
	struct svc_req req = {seq, delay_us};
	struct binder_transaction_data tr = {0};
	uint8_t w[256], r[512];
	size_t wlen = 0, wsent = 0, got = 0;
	int ret;

	tr.target.handle = 0;
	tr.code = code;
	tr.flags = flags;
	tr.data_size = sizeof(req);
	tr.data.ptr.buffer = (binder_uintptr_t)(uintptr_t)&req;
	bio_put(w, &wlen, BC_TRANSACTION, &tr, sizeof(tr));
	if (interrupt_us && !(flags & TF_ONE_WAY))
		arm_alarm(interrupt_us);
	for (;;) {
		size_t off = 0;

		ret = bio_write_read(&b, w, wlen, r, sizeof(r), &wsent, &got);
		if (ret == -EINTR) {
			/* woken by the signal, not by the reply: the transaction
			 * is sent (the write part is consumed), read again */
			interrupted++;
			wlen = 0;
			if (backoff_us && (seq & 1))
				backoff();
			continue;
		}
		if (ret) {
			fprintf(stderr, "%s: call %u: %s\n", prog, seq, strerror(-ret));
			return -1;
		}
		wlen = 0;
		while (off + sizeof(uint32_t) <= got) {
			uint32_t cmd;

			memcpy(&cmd, r + off, sizeof(cmd));
			off += sizeof(cmd);
			if (cmd == BR_REPLY) {
				struct binder_transaction_data rep;

				memcpy(&rep, r + off, sizeof(rep));
				arm_alarm(0);
				return bio_free(&b, rep.data.ptr.buffer) ? -1 : 0;
			}
			if (cmd == BR_DEAD_REPLY || cmd == BR_FAILED_REPLY) {
				arm_alarm(0);
				return 1;
			}
			if (cmd == BR_TRANSACTION_COMPLETE && (flags & TF_ONE_WAY))
				return 0;
			off += _IOC_SIZE(cmd);
		}
	}
}

/* The calling function: one synchronous binder transaction. */
int call_service(int seq, uint32_t delay_us)
{
	int ret = transact(SVC_CALL, 0, (uint32_t)seq, delay_us);

	calls++;
	replies += ret == 0;
	dead += ret == 1;
	return ret;
}

int notify_service(int seq)
{
	return transact(SVC_NOTIFY, TF_ONE_WAY, (uint32_t)seq, 0);
}

int ask_service_to_exit(int seq)
{
	int ret = transact(SVC_EXIT, 0, (uint32_t)seq, 0);

	calls++;
	dead += ret == 1;
	return ret;
}

void pause_briefly(void)
{
	sleep_us(2000);
}

int handle_request(int seq)
{
	int slow = slow_every && seq % slow_every == slow_every - 1;
	int ret;

	prepare_request(seq);
	if (seq == die_at)
		ret = ask_service_to_exit(seq) == 1 ? 0 : -1;
	else
		ret = call_service(seq, slow ? slow_us : fast_us) < 0 ? -1 : 0;
	if (!ret && oneway)
		ret = notify_service(seq);
	pause_briefly();
	return ret;
}

static uint32_t num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || end == s || v > 100000000ul) {
		fprintf(stderr, "%s: bad number %s\n", prog, s);
		exit(2);
	}
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct sigaction sa = {0};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--oneway")) {
			oneway = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "%s: unknown option or missing value: %s\n", prog, a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--device"))
			dev = v;
		else if (!strcmp(a, "--runs"))
			runs = (int)num(v);
		else if (!strcmp(a, "--slow-every"))
			slow_every = (int)num(v);
		else if (!strcmp(a, "--slow-us"))
			slow_us = num(v);
		else if (!strcmp(a, "--fast-us"))
			fast_us = num(v);
		else if (!strcmp(a, "--interrupt-us"))
			interrupt_us = num(v);
		else if (!strcmp(a, "--backoff-us"))
			backoff_us = num(v);
		else if (!strcmp(a, "--die-at"))
			die_at = (int)num(v);
		else {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			return 2;
		}
	}
	if (!dev) {
		fprintf(stderr, "%s: --device /dev/binderfs/NAME is required\n", prog);
		return 2;
	}
	/* no SA_RESTART: the alarm must end the wait in the driver (EINTR) */
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	if (bio_open(&b, dev, prog))
		return 1;
	for (int i = 0; i < runs; i++) {
		if (handle_request(i)) {
			fprintf(stderr, "%s: run %d failed\n", prog, i);
			return 1;
		}
	}
	printf("calls %d replies %d dead %d interrupted %d alarms %d\n", calls, replies, dead,
	       interrupted, (int)alarms);
	return 0;
}
