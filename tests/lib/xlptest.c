/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "json.h"
#include "testlib.h"
#include "xlptest.h"

char *xt_out(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/.output/%s", tl_root(), rel);
	return buf;
}

char xt_xl[XT_PATH], xt_xlt[XT_PATH], xt_wl[XT_PATH];

void xt_paths(const char *workload)
{
	char rel[128];

	xt_out("xlprobe", xt_xl, sizeof(xt_xl));
	xt_out("xlprobe-test", xt_xlt, sizeof(xt_xlt));
	snprintf(rel, sizeof(rel), "tests/workloads/%s", workload);
	xt_out(rel, xt_wl, sizeof(xt_wl));
}

int xt_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

char xt_proc_state(int pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	/* the comm may hold ')': the state follows the last one */
	if (xt_read_file(path, buf, sizeof(buf)) || !(p = strrchr(buf, ')')) || p[1] != ' ' ||
	    !p[2])
		return '?';
	return p[2];
}

int xt_child_of(int parent)
{
	struct dirent *de;
	int found = -1;
	DIR *d = opendir("/proc");

	while (d && found < 0 && (de = readdir(d))) {
		char path[300], buf[1024], *p;
		int ppid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (xt_read_file(path, buf, sizeof(buf)))
			continue;
		/* the comm may hold ')': the fields follow the last one */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == parent)
			found = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

int xt_cmd(int (*cmd)(int, char **), int argc, char **argv, const char *out, const char *err)
{
	int so, se, fo, fe, rc;

	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fo = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	fe = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (so < 0 || se < 0 || fo < 0 || fe < 0)
		abort();
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);
	rc = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	return rc;
}

static char tmpdir[64];

static void rm_tmpdir(void)
{
	char cmd[128];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

const char *xt_tmpdir(void)
{
	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/xlptest.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
		/* XLP_KEEP_TMP=1 keeps traces and logs to look at after a failure */
		if (getenv("XLP_KEEP_TMP"))
			fprintf(stderr, "keeping %s\n", tmpdir);
		else
			atexit(rm_tmpdir);
	}
	return tmpdir;
}

const char *xt_tmp_path(const char *name)
{
	static char buf[64][PATH_MAX];
	static int i;

	i = (i + 1) % 64;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", xt_tmpdir(), name);
	return buf[i];
}

int xt_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

int xt_spawn(char *const argv[], struct xt_proc *p)
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (!p->pid) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	p->out_fd = out[0];
	p->err_fd = err[0];
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int xt_read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	struct timespec t0;
	size_t n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n + 1 < len) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		long left = timeout_ms - ms_since(&t0);
		char c;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		if (read(fd, &c, 1) != 1)
			return -EIO;
		if (c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = 0;
	return 0;
}

/* Appends what fd has to buf without blocking for long. */
static void slurp(int fd, char *buf, size_t len, size_t *used)
{
	char sink[4096];
	ssize_t r;

	if (fd < 0)
		return;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while ((r = read(fd, sink, sizeof(sink))) > 0) {
		size_t room = buf && len > *used + 1 ? len - *used - 1 : 0;
		size_t k = (size_t)r < room ? (size_t)r : room;

		if (k) {
			memcpy(buf + *used, sink, k);
			*used += k;
			buf[*used] = 0;
		}
	}
}

int xt_wait(struct xt_proc *p, int timeout_ms, char *out, size_t outlen, char *err, size_t errlen)
{
	struct timespec t0;
	size_t uo = 0, ue = 0;
	int st, rc = -1;

	if (out && outlen)
		out[0] = 0;
	if (err && errlen)
		err[0] = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(p->pid, &st, WNOHANG);

		slurp(p->out_fd, out, outlen, &uo);
		slurp(p->err_fd, err, errlen, &ue);
		if (r == p->pid) {
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (ms_since(&t0) > timeout_ms) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &st, 0);
			break;
		}
		usleep(5000);
	}
	slurp(p->out_fd, out, outlen, &uo);
	slurp(p->err_fd, err, errlen, &ue);
	close(p->out_fd);
	close(p->err_fd);
	p->out_fd = p->err_fd = -1;
	return rc;
}

int xt_spawn_ready(char *const argv[], struct xt_proc *p, int timeout_ms)
{
	char line[256];
	int pid;

	if (xt_spawn(argv, p))
		return -1;
	while (!xt_read_line(p->out_fd, line, sizeof(line), timeout_ms))
		if (sscanf(line, "READY %d", &pid) == 1 && pid > 0)
			return pid;
	return -1;
}

int xt_wait_attached(struct xt_proc *x, int timeout_ms)
{
	char line[512];

	while (!xt_read_line(x->err_fd, line, sizeof(line), timeout_ms))
		if (strstr(line, "recording"))
			return 0;
	return -1;
}

int xt_run(char *const argv[], int timeout_ms, char *out, size_t outlen, char *err, size_t errlen)
{
	struct xt_proc p;

	if (xt_spawn(argv, &p))
		return -1;
	return xt_wait(&p, timeout_ms, out, outlen, err, errlen);
}

void xt_kill(struct xt_proc *p)
{
	kill(p->pid, SIGKILL);
	xt_wait(p, 5000, NULL, 0, NULL, 0);
}

int xt_record_start(char *const xargv[], struct xt_proc *x, struct xt_proc *w, int timeout_ms)
{
	if (xt_spawn(xargv, x)) {
		xt_kill(w);
		return -1;
	}
	if (xt_wait_attached(x, timeout_ms)) {
		xt_kill(x);
		xt_kill(w);
		return -1;
	}
	kill(w->pid, SIGUSR1);
	return 0;
}

#define XT_PUSH(arr, n, rec)                                                                       \
	do {                                                                                       \
		void *np_ = realloc((arr), ((n) + 1) * sizeof(*(arr)));                            \
		if (!np_)                                                                          \
			return -ENOMEM;                                                            \
		(arr) = np_;                                                                       \
		memcpy(&(arr)[(n)++], (rec), sizeof(*(arr)));                                      \
	} while (0)

static int keep(struct xt_trace *t, const struct xlp_hdr *h)
{
	switch (h->type) {
	case XLP_R_CALL:
		XT_PUSH(t->calls, t->ncalls, h);
		break;
	case XLP_R_THREAD:
		XT_PUSH(t->threads, t->nthreads, h);
		break;
	case XLP_R_PROC:
		XT_PUSH(t->procs, t->nprocs, h);
		break;
	case XLP_R_LAUNCH:
		XT_PUSH(t->launches, t->nlaunches, h);
		break;
	case XLP_R_RUN:
		XT_PUSH(t->runs, t->nruns, h);
		break;
	case XLP_R_FORK:
		XT_PUSH(t->forks, t->nforks, h);
		break;
	}
	return 0;
}

int xt_trace_load(const char *path, struct xt_trace *t)
{
	const struct xlp_hdr *h;
	char err[256];
	int ret;

	memset(t, 0, sizeof(*t));
	ret = trace_reader__open(path, &t->r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "  cannot read %s: %s\n", path, err);
		return ret;
	}
	t->meta = trace_reader__meta(t->r);
	while ((ret = trace_reader__next(t->r, &h)) > 0) {
		ret = keep(t, h);
		if (ret)
			return ret;
	}
	t->status = trace_reader__status(t->r);
	t->footer = trace_reader__footer(t->r);
	t->bad_chunks = trace_reader__bad_chunks(t->r);
	return ret;
}

void xt_trace_free(struct xt_trace *t)
{
	trace_reader__close(t->r);
	free(t->calls);
	free(t->threads);
	free(t->procs);
	free(t->launches);
	free(t->runs);
	free(t->forks);
	memset(t, 0, sizeof(*t));
}

int xt_func_id(const struct xt_trace *t, const char *symbol)
{
	for (uint32_t i = 0; i < t->meta->nfuncs; i++)
		if (!strcmp(t->meta->funcs[i].symbol, symbol))
			return (int)t->meta->funcs[i].id;
	return -1;
}

const struct xlp_thread_rec *xt_thread(const struct xt_trace *t, uint32_t tid)
{
	const struct xlp_thread_rec *found = NULL;

	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			found = &t->threads[i];
	return found;
}

int xt_parse_calls(char *out, struct xt_wl_call *c, int max)
{
	char *save = NULL;
	int n = 0;

	for (char *l = strtok_r(out, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, "CALL %31s %u %llu %llu", c[n].func, &c[n].tid, &c[n].start,
			   &c[n].end) == 4) {
			/* a fifth field: the caller's clock before the call */
			if (sscanf(l, "CALL %*s %*u %*u %*u %llu", &c[n].before) != 1)
				c[n].before = 0;
			n++;
		}
	return n;
}

const struct xlp_call_rec *xt_match_call(const struct xt_trace *t, const struct xt_wl_call *c,
					 unsigned long long within_ns)
{
	int fid = xt_func_id(t, c->func);

	for (size_t i = 0; i < t->ncalls; i++) {
		const struct xlp_call_rec *r = &t->calls[i];
		/* a run's start moves back by its prewake: the handler's own
		 * entry is after it (bpf/prewake.bpf.h) */
		uint64_t entry = r->entry_ns + r->incl[XLP_C_QUEUED];

		/* between the caller's clock before the call and the function's
		 * own first reading when the workload gives both: how long the
		 * entry probe takes, longer on a slower machine, does not matter */
		if ((int)r->func_id == fid && r->tid == c->tid && entry <= c->start &&
		    (c->before ? entry >= c->before : c->start - entry < within_ns))
			return r;
	}
	return NULL;
}

struct json *xt_report_json(const char *xl, const char *trace, int timeout_ms)
{
	char *argv[] = {(char *)xl, "report", "--json", (char *)trace, NULL};
	static char out[1 << 20];
	char err[4096], perr[256];
	struct json *j;
	int rc = xt_run(argv, timeout_ms, out, sizeof(out), err, sizeof(err));

	if (rc) {
		fprintf(stderr, "  report exited %d: %s\n", rc, err);
		return NULL;
	}
	j = json__parse(out, perr, sizeof(perr));
	if (!j)
		fprintf(stderr, "  report JSON: %s\n", perr);
	return j;
}

int xt_spawn_waiting(char *const wargv[], struct xt_proc *w, char pidarg[16], int timeout_ms)
{
	int pid = xt_spawn_ready(wargv, w, timeout_ms);

	CHECK(pid > 0, "%s never said READY", wargv[0]);
	if (pid > 0)
		snprintf(pidarg, 16, "%d", pid);
	return pid > 0 ? pid : -1;
}

int xt_record_to_end(char *const xargv[], struct xt_proc *w, const char *trace, struct xt_trace *t,
		     int timeout_ms)
{
	char err[16384];
	struct xt_proc x;
	int rc;

	if (xt_record_start(xargv, &x, w, timeout_ms)) {
		CHECK(0, "xlprobe did not attach");
		return -1;
	}
	rc = xt_wait(w, timeout_ms, NULL, 0, NULL, 0);
	CHECK(rc == 0, "the workload exited %d", rc);
	rc = xt_wait(&x, timeout_ms, NULL, 0, err, sizeof(err));
	CHECK(rc == 0, "xlprobe exit %d: %s", rc, err);
	if (xt_trace_load(trace, t)) {
		CHECK(0, "cannot load %s", trace);
		return -1;
	}
	CHECK(t->status == TRACE_COMPLETE);
	return 0;
}

void xt_specs(const char *wl, size_t len, ...)
{
	va_list ap;
	char *buf;

	va_start(ap, len);
	while ((buf = va_arg(ap, char *)))
		snprintf(buf, len, "%s:%s", wl, va_arg(ap, const char *));
	va_end(ap);
}

int xt_argv(char **argv, int n, ...)
{
	va_list ap;
	char *a;

	va_start(ap, n);
	while ((a = va_arg(ap, char *)))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return n;
}

struct json *xt_report_file(char *const rep[], const char *js, int timeout_ms)
{
	static char out[1 << 16], err[1 << 16];
	char jerr[256];
	struct json *j;
	int rc = xt_run(rep, timeout_ms, out, sizeof(out), err, sizeof(err));

	CHECK(rc == 0, "%s exit %d: %s", rep[1], rc, err);
	if (rc)
		return NULL;
	j = json__load(js, jerr, sizeof(jerr));
	CHECK(j, "report JSON: %s", jerr);
	return j;
}

unsigned long long xt_sleep_of(const __u64 *c)
{
	return c[XLP_C_SLEEP_S] + c[XLP_C_SLEEP_D];
}

unsigned long long xt_reasons_sum(const __u64 *c)
{
	return c[XLP_C_DISK] + c[XLP_C_NET] + c[XLP_C_IPC] + c[XLP_C_LOCK] + c[XLP_C_TIMER] +
	       c[XLP_C_OTHER];
}

const char *xt_fmt_reasons(const __u64 *c)
{
	static char buf[4][256];
	static int k;
	size_t len = 0;

	k = (k + 1) % 4;
	buf[k][0] = 0;
	for (int i = XLP_C_DISK; i <= XLP_C_OTHER; i++)
		if (c[i])
			len += snprintf(buf[k] + len, sizeof(buf[k]) - len, " %s=%llu",
					xlp_ctr_names[i], (unsigned long long)c[i]);
	return len ? buf[k] : " (none)";
}

int xt_record(const char *trace, char *const opts[], const char *prog, char *const pargs[],
	      int timeout_ms, char *out, size_t outlen, char *err, size_t errlen)
{
	char *argv[64] = {xt_xl, "record", "-q", "-o", (char *)trace};
	int n = 5;

	for (int i = 0; opts && opts[i] && n < 40; i++)
		argv[n++] = opts[i];
	if (prog) {
		argv[n++] = "--";
		argv[n++] = (char *)prog;
	}
	for (int i = 0; prog && pargs && pargs[i] && n < 63; i++)
		argv[n++] = pargs[i];
	argv[n] = NULL;
	return xt_run(argv, timeout_ms, out, outlen, err, errlen);
}

int xt_record_stop(struct xt_proc *x, struct xt_proc *w, char *err, size_t errlen)
{
	int rc;

	kill(x->pid, SIGINT);
	rc = xt_wait(x, 60000, NULL, 0, err, errlen);
	kill(w->pid, SIGUSR1);
	xt_wait(w, 30000, NULL, 0, NULL, 0);
	return rc;
}

int xt_record_cxxwl(const char *trace, char *out, size_t outlen, char *err, size_t errlen)
{
	char spec[XT_PATH + 64], *opts[] = {"-i", spec, "--sample", NULL};
	char *wargs[] = {"--calls", "40", NULL};

	xt_paths("cxxwl");
	if (access(xt_wl, X_OK)) {
		snprintf(err, errlen, "%s missing: make build-tests", xt_wl);
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s:shop::Checkout::handle*", xt_wl);
	return xt_record(trace, opts, xt_wl, wargs, 120000, out, outlen, err, errlen);
}
