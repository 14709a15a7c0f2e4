/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JavaScript frames named from node's own files for profilers (issue 34):
 * a Node.js HTTP server written here, whose handler runs burnTheCpuXlp in
 * about 1 request in 4 (chosen at random), recorded with -p, -i on the
 * object holding node's HTTP parser (llhttp_execute: node itself, or
 * libnode.so on Debian 12) and --sample while a client sends 200
 * requests. Once with --perf-basic-prof (/tmp/perf-PID.map), once with
 * --perf-prof alone (a jitdump in the server's working directory, found
 * through the process's mapping of it: no perf map then), once in its own
 * pid and mount namespace with a private /tmp (unshare -pfm --mount-proc:
 * the map is /tmp/perf-1.map there, seen only through /proc/PID/root).
 * Each time, the trace must name burnTheCpuXlp as a "[jit]" frame of its
 * sampled stacks. Needs node (tools/install-deps.sh: nodejs).
 */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json.h"
#include "testlib.h"
#include "xlptest.h"

#define NODE "/usr/bin/node"

static const char server_js[] =
	"const http = require('http');\n"
	"function burnTheCpuXlp(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i);\n"
	"  return s;\n"
	"}\n"
	"const share = +(process.env.XLP_BURN_SHARE || 0.25);\n"
	"const srv = http.createServer((req, res) => {\n"
	"  const r = Math.random() < share ? burnTheCpuXlp(2e6) : 0;\n"
	"  res.end('ok ' + r + '\\n');\n"
	"});\n"
	"srv.listen(0, '127.0.0.1', () => console.log('PORT ' + srv.address().port));\n";

static const char client_js[] =
	"const http = require('http');\n"
	"const port = +process.argv[2], n = +process.argv[3];\n"
	"let done = 0;\n"
	"function one() {\n"
	"  if (done === n) return;\n"
	"  http.get({host: '127.0.0.1', port, path: '/', agent: false}, (res) => {\n"
	"    res.resume();\n"
	"    res.on('end', () => { done++; one(); });\n"
	"  }).on('error', (e) => { console.error(e.message); process.exit(1); });\n"
	"}\n"
	"one();\n";

/* The first child of pid (unshare -f's), or -1 after timeout_ms. */
static int child_of(int pid, int timeout_ms)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	for (int waited = 0; waited < timeout_ms; waited += 50) {
		FILE *f = fopen(path, "r");
		int c = -1;

		if (f) {
			if (fgets(buf, sizeof(buf), f))
				c = atoi(buf);
			fclose(f);
		}
		if (c > 0)
			return c;
		usleep(50 * 1000);
	}
	return -1;
}

/* The object pid maps that defines llhttp_execute (node, or libnode.so), into obj. */
static int llhttp_object(int pid, char *obj, size_t len)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "for f in $(awk '$2 ~ /x/ && $6 ~ /^\\// {print $6}' /proc/%d/maps | sort -u); do "
		 "if nm -D --defined-only \"$f\" 2>/dev/null | grep -qw llhttp_execute || "
		 "nm --defined-only \"$f\" 2>/dev/null | grep -qw llhttp_execute; then "
		 "printf %%s \"$f\"; exit 0; fi; done; exit 1",
		 pid);
	return tl_run(cmd, obj, len) == 0 && obj[0] ? 0 : -1;
}

/*
 * The server started with flags (a shell fragment) in its own directory,
 * recorded while the client runs; 0 and the trace's path in trace, or -1
 * after a failed check. ns: in its own pid and mount namespace.
 */
static int record_server(const char *name, const char *flags, bool ns, char *trace, size_t tlen,
			 int *node_pid)
{
	char dir[256], script[1024], xl[4096], obj[1024], line[256], err[4096], port[16];
	char server[300], client[300];
	struct xt_proc srv = {.pid = -1}, x = {.pid = -1};
	int pid, rc = -1;

	*node_pid = -1;
	xt_out("xlprobe", xl, sizeof(xl));
	snprintf(dir, sizeof(dir), "%s", xt_tmp_path(name));
	snprintf(server, sizeof(server), "%s/server.js", dir);
	snprintf(client, sizeof(client), "%s/client.js", dir);
	snprintf(trace, tlen, "%s/t.xlp", dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		CHECK(0, "mkdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (xt_write_file(server, server_js) || xt_write_file(client, client_js)) {
		CHECK(0, "writing the scripts in %s", dir);
		return -1;
	}
	/*
	 * A private /tmp in the namespace: the map is there, not in ours. The
	 * script is read from stdin, opened relative to the working directory
	 * that the tmpfs hides (node would resolve server.js to a path under it).
	 */
	if (ns)
		snprintf(script, sizeof(script),
			 "cd '%s' && exec unshare -pfm --mount-proc sh -c "
			 "'mount -t tmpfs xlp-test-tmp /tmp && exec " NODE " %s - < server.js'",
			 dir, flags);
	else
		snprintf(script, sizeof(script), "cd '%s' && exec " NODE " %s server.js", dir,
			 flags);
	{
		char *argv[] = {"/bin/sh", "-c", script, NULL};

		if (xt_spawn(argv, &srv)) {
			CHECK(0, "spawn %s", script);
			return -1;
		}
	}
	if (xt_read_line(srv.out_fd, line, sizeof(line), 30000) ||
	    sscanf(line, "PORT %15s", port) != 1) {
		CHECK(0, "the server did not start: %s", line);
		goto out;
	}
	pid = ns ? child_of(srv.pid, 5000) : srv.pid;
	*node_pid = pid;
	if (pid <= 0 || llhttp_object(pid, obj, sizeof(obj))) {
		CHECK(0, "no object of node (pid %d) defines llhttp_execute", pid);
		goto out;
	}
	{
		char pidarg[16], spec[1100];
		char *argv[] = {xl,   "record",	  "-p", pidarg, "-i",
				spec, "--sample", "-o", trace,	NULL};

		snprintf(pidarg, sizeof(pidarg), "%d", pid);
		snprintf(spec, sizeof(spec), "%s:llhttp_execute", obj);
		if (xt_spawn(argv, &x)) {
			CHECK(0, "spawn %s", xl);
			x.pid = -1;
			goto out;
		}
	}
	if (xt_wait_attached(&x, 60000)) {
		CHECK(0, "xlprobe record -p %d did not attach", pid);
		goto out;
	}
	{
		char *argv[] = {NODE, client, port, "200", NULL};
		char out[256], cerr[1024];

		rc = xt_run(argv, 300000, out, sizeof(out), cerr, sizeof(cerr));
		CHECK(rc == 0, "client: %d %s", rc, cerr);
	}
	kill(x.pid, SIGINT);
	rc = xt_wait(&x, 120000, NULL, 0, err, sizeof(err));
	x.pid = -1;
	CHECK(rc == 0, "xlprobe record: %d\n%s", rc, err);
	fprintf(stderr, "  %s: %s", name,
		strstr(err, "xlprobe: JIT") ? strstr(err, "xlprobe: JIT") : err);
	rc = rc ? -1 : 0;
out:
	if (x.pid > 0)
		xt_kill(&x);
	if (*node_pid > 0 && *node_pid != srv.pid)
		kill(*node_pid, SIGKILL);
	if (srv.pid > 0)
		xt_kill(&srv);
	return rc;
}

/*
 * Whether the trace names burnTheCpuXlp as a "[jit]" frame that a sampled
 * stack holds: the count of such stacks in *stacks.
 */
static void check_named(const char *trace, const char *what)
{
	char xl[4096], cmd[8192], out[4096];
	int rc;

	xt_out("xlprobe", xl, sizeof(xl));
	/* the sym ids of the function's [jit] names, then the stacks holding one */
	snprintf(cmd, sizeof(cmd),
		 "'%s' dump '%s' > '%s.dump' && "
		 "ids=$(sed -n 's/^sym .* id=\\([0-9]*\\) kind=0 module=\"\\[jit\\]\" "
		 "name=\".*burnTheCpuXlp.*/\\1/p' '%s.dump') && [ -n \"$ids\" ] && "
		 "for i in $ids; do grep -E \"^stack .*frames=\\\"([^\\\"]* )?$i\\+\" '%s.dump'; "
		 "done "
		 "| wc -l",
		 xl, trace, trace, trace, trace);
	rc = tl_run(cmd, out, sizeof(out));
	CHECK(rc == 0 && atoi(out) > 0,
	      "%s: no sampled stack holds burnTheCpuXlp as a [jit] frame (rc %d, %s stacks); "
	      "its [jit] names: see %s.dump",
	      what, rc, out, trace);
}

/*
 * What an unperturbed twin may be accused of: nothing but the runqueue
 * wait the load client causes. The client runs on the same two CPUs and
 * the server's writev wakes it, which preempts the server right there
 * (CI: writevGeneric accused of cpu_wait > 641 us in its slow runs). That
 * is a true answer when it names the client as who held the CPU: a cpu_wait
 * factor whose largest thief is a process other than the server. Anything
 * else (cpu_run, burnTheCpuXlp, a wait with no thief or the server's own
 * thread as the thief) is a false alarm.
 */
static void check_twin_accused(const struct json *c, int srv_pid, const char *what,
			       const char *verdict)
{
	const char *f = json__str(json__get(c, "function")) ?: "";
	const char *fac = json__str(json__get(json__at(json__get(c, "factors"), 0), "factor"));
	const struct json *top = json__at(json__get(c, "cpu_thieves.thieves"), 0);

	CHECK(!strstr(f, "burnTheCpuXlp"), "%s: unperturbed, yet burnTheCpuXlp accused: %s", what,
	      verdict);
	CHECK(fac && !strcmp(fac, "cpu_wait") && top &&
		      (int)json__num(json__get(top, "pid")) != srv_pid &&
		      json__bool(json__get(top, "own_process")) != 1,
	      "%s: unperturbed, yet %s accused of %s, not of a wait for another process's "
	      "CPU time (server pid %d): %s",
	      what, f, fac ?: "nothing", srv_pid, verdict);
}

/*
 * The report's verdict on the trace: with burn, burnTheCpuXlp (a [jit]
 * frame) is a critical function whose first factor is cpu_run; without,
 * nothing is accused (the unperturbed twin).
 */
static void check_verdict(const char *trace, bool burn, int srv_pid, const char *what)
{
	char xl[4096], js[600];
	char *rep[] = {xl, "report", "--json", "-o", js, (char *)trace, NULL};
	const struct json *crit;
	struct json *j;
	bool found = false;

	xt_out("xlprobe", xl, sizeof(xl));
	snprintf(js, sizeof(js), "%s.json", trace);
	j = xt_report_file(rep, js, 120000);
	REQUIRE(j, "%s: no report", what);
	crit = json__get(j, "critical_functions");
	fprintf(stderr, "  %s: verdict: %s\n", what, json__str(json__get(j, "verdict")));
	for (size_t i = 0; i < json__len(crit); i++) {
		const struct json *c = json__at(crit, i);
		const char *f = json__str(json__get(c, "function")) ?: "";
		const char *fac =
			json__str(json__get(json__at(json__get(c, "factors"), 0), "factor"));

		found |= strstr(f, "burnTheCpuXlp") && json__str_is(c, "binary", "[jit]") && fac &&
			 !strcmp(fac, "cpu_run");
	}
	/*
	 * or the whole run's answer, cpu_run, whose samples reach it as the
	 * application's frame (a loaded machine's runqueue waits can make
	 * cpu_wait the function's larger factor, and its own evidence thin)
	 */
	found |= json__bool(json__get(j, "whole_run.holds")) &&
		 json__str_is(j, "whole_run.factor", "cpu_run") &&
		 strstr(json__str(json__get(j, "whole_run.app_frame.function")) ?: "",
			"burnTheCpuXlp");
	if (burn)
		CHECK(found, "%s: the verdict does not name burnTheCpuXlp with cpu_run: %s", what,
		      json__str(json__get(j, "verdict")));
	else
		for (size_t i = 0; i < json__len(crit); i++)
			check_twin_accused(json__at(crit, i), srv_pid, what,
					   json__str(json__get(j, "verdict")));
	json__free(j);
}

/* Removes the perf map node leaves behind (pid <= 0: none). */
static void drop_map(int pid)
{
	char map[64];

	snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
	if (pid > 0)
		unlink(map);
}

/*
 * One server recorded (flags: node's), then its checks: the JavaScript
 * function named in the stacks (named), the verdict on it (burn: it must
 * be accused; else nothing may be). ns: in its own namespaces.
 */
static void one_server(const char *name, const char *flags, bool ns, bool named, bool burn,
		       bool no_map)
{
	char trace[512], map[64];
	struct stat st;
	int pid;

	REQUIRE(!access(NODE, X_OK), "%s missing: install nodejs (tools/install-deps.sh)", NODE);
	if (!record_server(name, flags, ns, trace, sizeof(trace), &pid)) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
		/* the names came from the jitdump: no perf map was written */
		if (no_map)
			CHECK(stat(map, &st) != 0, "%s exists: the names may be the map's", map);
		if (named)
			check_named(trace, name);
		if (!ns)
			check_verdict(trace, burn, pid, name);
	}
	if (!ns)
		drop_map(pid);
}

#define FLAGS_MAP "--perf-basic-prof --interpreted-frames-native-stack"
#define FLAGS_JITDUMP "--perf-prof --interpreted-frames-native-stack"

TEST(perf_basic_prof)
{
	one_server("basic", FLAGS_MAP, false, true, true, false);
}

TEST(perf_prof_jitdump)
{
	one_server("jitdump", FLAGS_JITDUMP, false, true, true, true);
}

/* The same server whose handler never burns: nothing accused but the client taking the CPU. */
TEST(unperturbed_twin_accuses_only_the_clients_cpu)
{
	setenv("XLP_BURN_SHARE", "0", 1);
	one_server("twin", FLAGS_MAP, false, false, false, false);
	unsetenv("XLP_BURN_SHARE");
}

TEST(namespaced)
{
	one_server("ns", FLAGS_MAP, true, true, true, false);
}

TEST_MAIN()
