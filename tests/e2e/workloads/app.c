// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * app: the app-like workload of the perturbation suite.
 *
 * Each run is one call of handle_request(run), the interaction. It calls
 * seven functions in this order, each using one resource in normal amounts:
 *
 *   load_config       O_DIRECT read of --disk-kib (128) KiB   disk
 *   fetch_remote      TCP request to process "netserver"     network
 *                     (1 ms think time, 4 KiB reply)
 *   ask_peer          request over pipes to process          IPC
 *                     "peerproc" (0.5 ms of its CPU)
 *   wait_tick         2 ms nanosleep                         timer
 *   update_cache      mutex shared with thread "cache_bg"    lock
 *                     (which takes it briefly every 10 ms)
 *   render            1 ms of CPU                            CPU
 *   compute_checksum  --compute-ms (10) ms of CPU            CPU
 *
 * --perturb SCENARIO slows exactly one function through exactly one
 * resource in round(--rate * --runs) runs picked by a PRNG seeded with
 * --seed, by --delay-ms (50) or the like:
 *
 *   net            netserver answers fetch_remote 50 ms later
 *   cpu            compute_checksum does --cpu-mult (6) times the work
 *   bgload         --hogs (5) busy threads of process "hog" pinned to the
 *                  worker's CPU: compute_checksum waits in the runqueue
 *   bgload_thread  the same with the hogs as threads of this process
 *   disk           load_config reads --disk-mult (8) times more. Only slow
 *                  on a throttled device (tests/e2e/setup.sh throttle; 8
 *                  MiB/s makes 1 MiB take ~100 ms, one throttle slice)
 *   ipc            peerproc sleeps 50 ms before answering ask_peer
 *   lock           cache_bg holds the mutex 50 ms as update_cache starts
 *   timer          wait_tick sleeps 50 ms instead of 2 ms
 *   two            net and cpu, alternating over the perturbed runs
 *   bg_disk_cpu    cpu, plus --bg-readers (2) threads "bg_disk" of this
 *                  process reading 1 MiB blocks with O_DIRECT from a file
 *                  on another device (--bg-disk-file, default a scratch
 *                  file in /var/tmp) for the whole run: the whole-run
 *                  resources look disk-bound, the function is CPU-bound.
 *                  A thread "bg_cpu" also burns 0-40 ms of CPU (seeded)
 *                  at the start of every run, as background work does,
 *                  so whole-run CPU time separates slow runs less cleanly
 *                  than the readers' disk time (PerfProbe V-D)
 *   none           nothing
 *
 * stdout: "READY <pid>" (with --wait-signal, then SIGUSR1 starts the
 * runs), per run "PERTURB <i> <kind>" (perturbed runs only) and
 * "RUN <i> perturbed=0|1 <latency_ns>", and with --verbose
 * "FUNC <i> <name> <ns>" per function plus a SUMMARY of mean durations.
 *
 * Whatever sets a perturbation up (waking the hogs, handing the mutex to
 * cache_bg, using up the disk throttle's credit) happens between runs,
 * never inside handle_request. The worker (main thread) is pinned to --cpu
 * (default 1), every helper to the other CPU, so helpers never delay the
 * worker except through their resource. Children die with the app
 * (PR_SET_PDEATHSIG) and are killed on exit, SIGTERM, SIGINT and SIGHUP;
 * scratch files are unlinked as soon as they are open.
 */
#include "app/app.h" /* first: wl.h defines _GNU_SOURCE */

static const struct scenario scenarios[] = {
	{"none", 0, false, false},
	{"net", P_NET, false, false},
	{"cpu", P_CPU, false, false},
	{"bgload", P_HOG, false, false},
	{"bgload_thread", P_HOG, false, true},
	{"disk", P_DISK, false, false},
	{"ipc", P_IPC, false, false},
	{"lock", P_LOCK, false, false},
	{"timer", P_TIMER, false, false},
	{"two", P_NET | P_CPU, true, false},
	{"bg_disk_cpu", P_CPU | P_BGDISK, false, false},
};

struct app g;
pid_t main_pid;
volatile pid_t children[MAX_CHILDREN];
volatile uint32_t sink; /* keeps CPU work from being optimized out */
uint8_t crunch_buf[4096];

/* ------------------------------------------------- the marked functions */

MARKED void load_config(unsigned int pert)
{
	disk_read(g.disk_fd, g.disk_buf, DISK_CHUNK, 0, config_bytes(pert));
}

MARKED void compute_checksum(unsigned int pert)
{
	uint64_t passes = g.passes_per_ms * g.o.compute_ms;

	if (pert & P_CPU)
		passes *= g.o.cpu_mult;
	sink += crunch(passes);
}

MARKED void fetch_remote(unsigned int pert)
{
	net_roundtrip(pert & P_NET ? '1' : '0');
}

MARKED void ask_peer(unsigned int pert)
{
	peer_roundtrip(pert & P_IPC ? '1' : '0');
}

MARKED void update_cache(unsigned int pert)
{
	if (pert & P_LOCK)
		sem_post(&g.go); /* cache_bg holds the mutex: let it go on */
	pthread_mutex_lock(&g.cache_mtx);
	cache_touch(CACHE_SIZE);
	burn_cpu_ns(CACHE_WORK_NS);
	pthread_mutex_unlock(&g.cache_mtx);
}

MARKED void wait_tick(unsigned int pert)
{
	wl_sleep_ns((pert & P_TIMER ? g.o.delay_ms : TICK_MS) * NS_PER_MS);
}

MARKED void render(unsigned int pert)
{
	sink += crunch(g.passes_per_ms * RENDER_MS);
}

/*
 * CPU work comes last: a worker that just used CPU next to bgload's hogs
 * has negative EEVDF lag and waits long after every wakeup, so sleeping
 * steps after a CPU step would be slowed too (measured: fetch_remote
 * +13 ms after compute_checksum, under 1 ms before it).
 */
static const struct step {
	void (*fn)(unsigned int pert);
	const char *name;
} steps[NR_STEPS] = {
	{load_config, "load_config"},
	{fetch_remote, "fetch_remote"},
	{ask_peer, "ask_peer"},
	{wait_tick, "wait_tick"},
	{update_cache, "update_cache"},
	{render, "render"},
	{compute_checksum, "compute_checksum"},
};

/* The interaction: one run. */
MARKED void handle_request(int run)
{
	unsigned int pert = g.plan[run];

	for (int i = 0; i < NR_STEPS; i++) {
		uint64_t t0 = wl_now_ns();

		steps[i].fn(pert);
		g.dur[i] = wl_now_ns() - t0;
	}
}

/* ------------------------------------------------------------------- runs */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Exactly round(rate * runs) perturbed runs, picked by a seeded partial
 * Fisher-Yates shuffle, so a test never gets zero by bad luck.
 */
static void make_plan(void)
{
	int n = g.o.runs;
	int k = (int)(g.o.rate * n + 0.5);
	int *idx = calloc(n, sizeof(*idx));
	uint64_t s = g.o.seed;

	g.plan = calloc(n, sizeof(*g.plan));
	if (!idx || !g.plan)
		die("calloc");
	if (!g.o.sc->pert)
		k = 0;
	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int i = 0; i < k; i++) {
		int j = i + (int)(splitmix64(&s) % (uint64_t)(n - i));
		int t = idx[i];
		unsigned int pert = g.o.sc->pert;

		idx[i] = idx[j];
		idx[j] = t;
		if (g.o.sc->alternate)
			pert = i % 2 ? P_CPU : P_NET;
		g.plan[idx[i]] = pert;
	}
	free(idx);
}

/*
 * blk-throttle (v1) hands out a whole throttle slice (100 ms) of bytes at
 * once, plus credit a group left unused, so a read right after quiet runs
 * often passes unthrottled. Spend that credit before a disk-perturbed run:
 * read until one read is held back. load_config's bigger read then waits
 * for the next slice in every perturbed run (measured: 1 MiB at 8 MiB/s,
 * 92-108 ms), not only when the credit happens to be low. Without a limit
 * this gives up after DRAIN_MAX_CHUNKS fast reads.
 */
static void drain_disk_credit(void)
{
	uint64_t size = file_size(g.disk_fd) / DISK_CHUNK * DISK_CHUNK;

	for (int i = 0; size && i < DRAIN_MAX_CHUNKS; i++) {
		uint64_t t0 = wl_now_ns();

		disk_read(g.disk_fd, g.disk_buf, DISK_CHUNK, i * DISK_CHUNK % size, DISK_CHUNK);
		if (wl_now_ns() - t0 > DRAIN_SLOW_NS)
			break;
	}
}

static void perturb_begin(unsigned int pert)
{
	if (pert & P_HOG)
		gang_switch(&g.hog, true);
	if (pert & P_BGDISK)
		gang_switch(&g.readers, true);
	if (pert & P_DISK)
		drain_disk_credit();
	if (pert & P_LOCK) {
		sem_post(&g.hold_req);
		while (sem_wait(&g.held))
			;
	}
}

static void perturb_end(unsigned int pert)
{
	if (pert & P_HOG)
		gang_switch(&g.hog, false);
	if (pert & P_BGDISK)
		gang_switch(&g.readers, false);
}

static const char *pert_kind(unsigned int pert)
{
	if (g.o.sc->alternate)
		return pert & P_NET ? "net" : "cpu";
	return g.o.sc->name;
}

static void report_run(int run, uint64_t latency)
{
	unsigned int pert = g.plan[run];
	int p = pert != 0;

	if (pert)
		printf("PERTURB %d %s\n", run, pert_kind(pert));
	printf("RUN %d perturbed=%d %llu\n", run, p, (unsigned long long)latency);
	g.count[p]++;
	g.sum[p][NR_STEPS] += latency;
	for (int i = 0; i < NR_STEPS; i++) {
		g.sum[p][i] += g.dur[i];
		if (g.o.verbose)
			printf("FUNC %d %s %llu\n", run, steps[i].name,
			       (unsigned long long)g.dur[i]);
	}
	fflush(stdout);
}

static void print_summary(void)
{
	for (int i = 0; i <= NR_STEPS; i++) {
		const char *name = i < NR_STEPS ? steps[i].name : "handle_request";
		double n = g.count[0] ? g.sum[0][i] / g.count[0] / 1e6 : 0;
		double p = g.count[1] ? g.sum[1][i] / g.count[1] / 1e6 : 0;

		printf("SUMMARY %-16s normal_ms=%.2f perturbed_ms=%.2f\n", name, n, p);
	}
}

static void run_all(void)
{
	uint64_t noise_seed = g.o.seed ^ 0x5eedULL;
	bool noise = g.o.sc->pert & P_BGDISK;

	for (int i = 0; i < g.o.runs; i++) {
		uint64_t t0;

		wl_sleep_ns(g.o.interval_ms * NS_PER_MS);
		perturb_begin(g.plan[i]);
		if (noise) {
			g.noise_ns = splitmix64(&noise_seed) % (NOISE_MAX_MS * NS_PER_MS);
			sem_post(&g.noise_go);
		}
		t0 = wl_now_ns();
		handle_request(i);
		t0 = wl_now_ns() - t0;
		if (noise)
			while (sem_wait(&g.noise_done))
				;
		perturb_end(g.plan[i]);
		report_run(i, t0);
	}
	if (g.o.verbose)
		print_summary();
}

/* ------------------------------------------------------------------- setup */

static void usage(void)
{
	fprintf(stderr, "usage: app [--runs N] [--seed S] [--perturb SCENARIO] [--rate R]\n"
			"           [--interval-ms MS] [--wait-signal] [--verbose]\n"
			"           [--disk-file PATH] [--disk-kib K] [--disk-mult M]\n"
			"           [--bg-disk-file PATH] [--bg-readers N] [--server-port P]\n"
			"           [--compute-ms MS] [--cpu-mult M] [--delay-ms MS] [--hogs N]\n"
			"           [--cpu C | --no-pin] [--slice-us US]\n"
			"       app --serve PORT    (only the TCP server, in the foreground)\n"
			"scenarios:");
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

static const struct scenario *find_scenario(const char *name)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	fprintf(stderr, "app: unknown scenario '%s'\n", name);
	usage();
	return NULL;
}

/* Options that take an int: name, place in struct opts, default. */
static const struct int_opt {
	const char *name;
	size_t off;
	int def;
} int_opts[] = {
	{"--runs", offsetof(struct opts, runs), 40},
	{"--interval-ms", offsetof(struct opts, interval_ms), 10},
	{"--disk-kib", offsetof(struct opts, disk_kib), 128},
	{"--disk-mult", offsetof(struct opts, disk_mult), 8},
	{"--bg-readers", offsetof(struct opts, bg_readers), 2},
	{"--server-port", offsetof(struct opts, server_port), 0},
	{"--serve", offsetof(struct opts, serve_port), -1},
	{"--compute-ms", offsetof(struct opts, compute_ms), 10},
	{"--cpu-mult", offsetof(struct opts, cpu_mult), 6},
	{"--delay-ms", offsetof(struct opts, delay_ms), 50},
	{"--hogs", offsetof(struct opts, hogs), 5},
	{"--cpu", offsetof(struct opts, cpu), -1},
	{"--slice-us", offsetof(struct opts, slice_us), 300},
};

static void set_defaults(struct opts *o)
{
	*o = (struct opts){.seed = 1, .sc = &scenarios[0], .rate = 0.25};
	for (size_t i = 0; i < sizeof(int_opts) / sizeof(int_opts[0]); i++)
		*(int *)((char *)o + int_opts[i].off) = int_opts[i].def;
	/* the worker on CPU 1 when there is one */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		o->cpu = 1;
}

static int parse_int(const char *name, const char *val)
{
	char *end;
	long v = strtol(val, &end, 0);

	if (*end || end == val || v < -1 || v > 1000000000) {
		fprintf(stderr, "app: bad value '%s' for %s\n", val, name);
		usage();
	}
	return (int)v;
}

static bool parse_int_opt(struct opts *o, const char *name, const char *val)
{
	for (size_t i = 0; i < sizeof(int_opts) / sizeof(int_opts[0]); i++) {
		if (!strcmp(name, int_opts[i].name)) {
			*(int *)((char *)o + int_opts[i].off) = parse_int(name, val);
			return true;
		}
	}
	return false;
}

/* true if name is an option that takes val */
static bool parse_value_opt(struct opts *o, const char *name, const char *val)
{
	if (!strcmp(name, "--perturb"))
		o->sc = find_scenario(val);
	else if (!strcmp(name, "--seed"))
		o->seed = strtoull(val, NULL, 0);
	else if (!strcmp(name, "--rate"))
		o->rate = atof(val);
	else if (!strcmp(name, "--disk-file"))
		o->disk_file = val;
	else if (!strcmp(name, "--bg-disk-file"))
		o->bg_disk_file = val;
	else
		return parse_int_opt(o, name, val);
	return true;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	set_defaults(o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--wait-signal"))
			o->wait_signal = true;
		else if (!strcmp(a, "--verbose"))
			o->verbose = true;
		else if (!strcmp(a, "--no-pin"))
			o->cpu = -1;
		else if (i + 1 < argc && parse_value_opt(o, a, argv[i + 1]))
			i++;
		else
			usage();
	}
	if (o->runs < 0 || o->rate < 0 || o->rate > 1 || o->disk_kib < 4 || o->disk_kib % 4 ||
	    o->disk_mult < 1 || o->cpu_mult < 1 || o->compute_ms < 1)
		usage();
}

/* kill() and waitpid() are async-signal-safe: children are gone first. */
static void on_fatal_signal(int sig)
{
	reap_children();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_fatal_signal};

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* blocked before any thread exists, so sigwait() gets it */
	wl_block_usr1();
}

/* One use of every resource, so that run 0 pays no first-time costs. */
static void warm_up(void)
{
	disk_read(g.disk_fd, g.disk_buf, DISK_CHUNK, 0, config_bytes(0));
	net_roundtrip('0');
	peer_roundtrip('0');
	cache_touch(CACHE_SIZE);
}

static void setup(void)
{
	size_t need = (size_t)g.o.disk_kib * 1024 * g.o.disk_mult;

	g.helper_cpu = g.o.cpu < 0 ? -1 : g.o.cpu == 0 ? 1 : 0;
	g.passes_per_ms = calibrate();
	g.disk_fd = open_direct(g.o.disk_file, "config", need);
	g.disk_buf = alloc_aligned(DISK_CHUNK);
	/* children first: fork() before this process has threads */
	start_server();
	start_peer();
	if (g.o.sc->pert & P_HOG)
		start_hogs();
	pin_self(g.o.cpu);
	set_slice(g.o.slice_us);
	start_cache();
	if (g.o.sc->pert & P_BGDISK) {
		start_bg_readers();
		start_noise();
	}
	make_plan();
	warm_up();
}

static void serve_forever(int port)
{
	int lfd = listen_on(port);

	printf("PORT %u\n", g.port);
	fflush(stdout);
	server_loop(&lfd);
}

int main(int argc, char **argv)
{
	main_pid = getpid();
	parse_args(argc, argv, &g.o);
	install_signals();
	if (g.o.serve_port >= 0)
		serve_forever(g.o.serve_port);
	setup();
	if (g.o.wait_signal)
		wl_announce_wait("READY");
	run_all();
	atomic_store(&g.quit, true);
	sem_post(&g.hold_req);
	reap_children();
	return 0;
}
