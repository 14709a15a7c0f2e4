/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the app workload's files share (tests/e2e/workloads/app.c: the
 * marked functions, the runs, options and main; app/env.c: the processes
 * and threads it sets up around them: server, peer, hogs, disk readers,
 * cache). The app is described at the top of app.c.
 */
#ifndef XLP_E2E_APP_H
#define XLP_E2E_APP_H

#include "../../../workloads/wl.h" /* first: it defines _GNU_SOURCE */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DISK_CHUNK (128 * 1024)
#define BG_CHUNK (1024 * 1024)
#define BG_FILE_SIZE (16 * 1024 * 1024)
#define REQ_SIZE 16
#define REPLY_SIZE 4096
#define PEER_REPLY_SIZE 64
#define SERVER_THINK_MS 1
#define PEER_WORK_NS (500 * 1000)
#define TICK_MS 2
#define RENDER_MS 1
#define CACHE_WORK_NS (500 * 1000)
#define CACHE_SIZE (64 * 1024)
#define CACHE_BG_PERIOD_MS 10
#define MAX_GANG 16
#define MAX_CHILDREN 4
/* Background CPU noise of bg_disk_cpu: up to NOISE_MAX_MS per run on the
 * helper CPU, started with the run; the run's whole-run window sees the
 * part that overlaps it. */
#define NOISE_MAX_MS 40
#define DRAIN_MAX_CHUNKS 256
/* a read this slow was surely held back by the throttle, not by the CPU */
#define DRAIN_SLOW_NS (20 * NS_PER_MS)

enum pert {
	P_NET = 1 << 0,
	P_CPU = 1 << 1,
	P_HOG = 1 << 2,
	P_DISK = 1 << 3,
	P_IPC = 1 << 4,
	P_LOCK = 1 << 5,
	P_TIMER = 1 << 6,
	P_BGDISK = 1 << 7,
};

struct scenario {
	const char *name;
	unsigned int pert;
	bool alternate; /* perturbed runs alternate between the two bits */
	bool hog_in_process;
};

struct opts {
	int runs;
	uint64_t seed;
	const struct scenario *sc;
	double rate;
	int interval_ms;
	bool wait_signal;
	bool verbose;
	const char *disk_file;
	const char *bg_disk_file;
	int server_port; /* 0: fork our own server */
	int serve_port;	 /* >= 0: only run the server */
	int disk_kib;
	int disk_mult;
	int compute_ms;
	int cpu_mult;
	int delay_ms;
	int hogs;
	int bg_readers;
	int cpu;      /* worker CPU, -1: no pinning */
	int slice_us; /* worker's scheduler slice, 0: the default */
};

/*
 * A gang of threads that run work() in a loop while switched on. The last
 * thread to start and the last to stop write a byte to ack_wr, so the
 * switcher knows the gang is really running (or really quiet) before a run
 * starts (or the next one does).
 */
struct gang {
	const char *name;
	int n;
	int cpu;
	void (*work)(void);
	int ack_rd, ack_wr;
	int ctl_wr; /* gang in a child process: its control pipe, else -1 */
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	atomic_int on;
	atomic_int running;
};

enum { NR_STEPS = 7 }; /* functions handle_request calls */

struct app {
	struct opts o;
	int helper_cpu;
	uint64_t passes_per_ms;
	unsigned int *plan; /* perturbation bits per run */
	int disk_fd;
	void *disk_buf;
	int bg_fd;
	uint16_t port;
	int peer_req, peer_rep;
	pthread_mutex_t cache_mtx;
	char *cache;
	sem_t hold_req, held, go;
	atomic_bool quit;
	struct gang hog, readers;
	atomic_uint bg_seq;
	sem_t noise_go, noise_done; /* bg_cpu: one burn per run */
	uint64_t noise_ns;
	uint64_t dur[NR_STEPS];
	double sum[2][NR_STEPS + 1];
	int count[2];
};

extern struct app g;
extern pid_t main_pid;
extern volatile pid_t children[MAX_CHILDREN];
extern volatile uint32_t sink; /* keeps CPU work from being optimized out */
extern uint8_t crunch_buf[4096];

/* ---- app/env.c ---- */

void *alloc_aligned(size_t size);
void burn_cpu_ns(uint64_t ns);
void cache_touch(size_t len);
uint64_t calibrate(void);
size_t config_bytes(unsigned int pert);
uint32_t crunch(uint64_t passes);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void disk_read(int fd, void *buf, size_t chunk, uint64_t off, size_t bytes);
uint64_t file_size(int fd);
void gang_switch(struct gang *gg, bool on);
int listen_on(int port);
void net_roundtrip(char flag);
int open_direct(const char *path, const char *tag, size_t need);
void peer_roundtrip(char flag);
void pin_self(int cpu);
void reap_children(void);
void server_loop(void *arg);
void set_slice(uint64_t us);
void start_bg_readers(void);
void start_cache(void);
void start_hogs(void);
void start_noise(void);
void start_peer(void);
void start_server(void);

#endif
