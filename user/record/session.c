/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF session: the skeleton opened, configured and attached to what
 * the kernel can run, targets added, the ring buffer drained, the state
 * at stop collected (session_funcs.c, session_counts.c and
 * session_sample.c hold the rest of struct session).
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "marker.h"
#include "log.h"
#include "testhooks.h"
#include "trace.h"
#include "uprobe_multi.h"
#include "session_impl.h"
#include "util.h"

/* Scheduler tracepoints every recording needs, by their BTF typedef. */
static const char *const required_tps[] = {
	"sched_switch",	      "sched_wakeup",	    "sched_wakeup_new",
	"sched_process_fork", "sched_process_exit",
};

/* A sample holds one record, or a thread's batch of compact call records. */
static int rb_cb(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;
	size_t off = 0;
	int err = 0;

	/* the ring buffer's own 8-byte header, rounded as the kernel does */
	s->rb_bytes += (size + 8 + 7) & ~(size_t)7;

	while (!err && size - off >= sizeof(struct xlp_hdr)) {
		const struct xlp_hdr *h = (const void *)((char *)data + off);

		if (h->size < sizeof(*h) || h->size > size - off)
			break; /* cannot happen with our programs; never pass it on */
		err = s->on_record(s->ctx, h);
		off += h->size;
		s->rb_records++;
	}
	return err;
}

/*
 * The test hooks BTF and HIDE_TP (test build only, testhooks.h) let tests
 * exercise the messages for kernels without BTF or without a tracepoint on
 * a kernel that has both.
 */
static int check_kernel(struct btf **vmlinux, char *err, size_t errlen)
{
	const char *btf_path = xlp_test_hook("BTF") ?: "/sys/kernel/btf/vmlinux";
	const char *hide = xlp_test_hook("HIDE_TP") ?: "";
	char name[64];

	if (access(btf_path, R_OK)) {
		snprintf(err, errlen,
			 "kernel has no BTF (/sys/kernel/btf/vmlinux missing): use a kernel built "
			 "with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOTSUP;
	}
	*vmlinux = btf__load_vmlinux_btf();
	if (!*vmlinux) {
		snprintf(err, errlen, "cannot read the kernel's BTF: %s", strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < sizeof(required_tps) / sizeof(required_tps[0]); i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", required_tps[i]);
		if (!strcmp(hide, required_tps[i]) ||
		    btf__find_by_name_kind(*vmlinux, name, BTF_KIND_TYPEDEF) < 0) {
			snprintf(err, errlen,
				 "kernel lacks the %s tracepoint: xlprobe needs CONFIG_TRACEPOINTS "
				 "and a scheduler that provides it",
				 required_tps[i]);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* Runs one SEC("syscall") program of bpf/control.bpf.c; its err, or -errno. */
static int ctl_run(struct bpf_program *prog, struct xlp_ctl *a)
{
	/* a syscall program's context is copied back to ctx_in */
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = a, .ctx_size_in = sizeof(*a));

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o))
		return -errno;
	return a->err;
}

/*
 * Runs a task iterator of bpf/control.bpf.c to its end; each record it
 * writes goes to the session's callback (when on_record is set).
 */
static int iter_run(struct session *s, struct bpf_program *prog, bool records)
{
	struct bpf_link *link = bpf_program__attach_iter(prog, NULL);
	size_t have = 0;
	char *buf = NULL;
	int fd = -1, err = 0;
	ssize_t n;

	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	buf = malloc(ITER_BUF);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* the kernel hands out whole records; a partial one waits for the rest */
	while ((n = read(fd, buf + have, ITER_BUF - have)) > 0) {
		size_t off = 0;

		have += (size_t)n;
		while (have - off >= sizeof(struct xlp_hdr)) {
			const struct xlp_hdr *h = (const void *)(buf + off);

			if (h->size < sizeof(*h)) {
				err = -EPROTO; /* cannot happen with our programs */
				goto cleanup;
			}
			if (have - off < h->size)
				break;
			if (records && !err)
				err = s->on_record(s->ctx, h);
			off += h->size;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
	if (n < 0 && !err)
		err = -errno;
cleanup:
	free(buf);
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	return err;
}

/*
 * Programs the recording can do without, and the tracepoints they need.
 * Each is named by its skeleton field (offsetof into struct xlprobe_bpf):
 * a misspelt or removed program fails to compile.
 */
struct opt_prog {
	size_t prog; /* offsetof(struct xlprobe_bpf, progs.<name>) */
	const char *tps[3];
	uint32_t feature; /* set when every program with this feature attached */
	const char *note; /* why it matters, when it cannot run */
};

#define OPT_PROG(name) offsetof(struct xlprobe_bpf, progs.name)

static const struct opt_prog optional_progs[] = {
	{OPT_PROG(xlp_sched_waking),
	 {"sched_waking"},
	 0,
	 "sched_waking absent: wakers unknown, sleep reasons from syscalls only"},
	{OPT_PROG(xlp_sched_exec),
	 {"sched_process_exec"},
	 0,
	 "sched_process_exec absent: launches start when xlprobe releases them, not at exec"},
	{OPT_PROG(xlp_irq_entry),
	 {"irq_handler_entry"},
	 0,
	 "irq tracepoints absent: wakers less precise"},
	{OPT_PROG(xlp_irq_exit),
	 {"irq_handler_exit"},
	 0,
	 "irq tracepoints absent: wakers less precise"},
	{OPT_PROG(xlp_softirq_entry), {"softirq_entry"}, 0, "softirq tracepoints absent"},
	{OPT_PROG(xlp_softirq_exit), {"softirq_exit"}, 0, "softirq tracepoints absent"},
	{OPT_PROG(xlp_hrtimer_entry), {"hrtimer_expire_entry"}, 0, "hrtimer tracepoints absent"},
	{OPT_PROG(xlp_hrtimer_exit), {"hrtimer_expire_exit"}, 0, "hrtimer tracepoints absent"},
	{OPT_PROG(xlp_bio_queue),
	 {"block_bio_queue"},
	 XLP_FEAT_BLOCK,
	 "block tracepoints absent: no per-thread disk request counts"},
	{OPT_PROG(xlp_rq_issue),
	 {"block_rq_issue"},
	 XLP_FEAT_BLOCK,
	 "block tracepoints absent: no per-thread disk request counts"},
	{OPT_PROG(xlp_rq_complete),
	 {"block_rq_complete"},
	 XLP_FEAT_BLOCK,
	 "block tracepoints absent: no per-thread disk request counts"},
	{OPT_PROG(xlp_cpu_frequency),
	 {"cpu_frequency"},
	 0,
	 "power/cpu_frequency absent: CPU frequency unavailable"},
	{OPT_PROG(xlp_binder_txn),
	 {"binder_transaction"},
	 XLP_FEAT_BINDER,
	 "binder: tracepoints absent in this kernel (no CONFIG_ANDROID_BINDER_IPC)"},
	{OPT_PROG(xlp_binder_recv),
	 {"binder_transaction_received"},
	 XLP_FEAT_BINDER,
	 "binder: tracepoints absent in this kernel (no CONFIG_ANDROID_BINDER_IPC)"},
	{OPT_PROG(xlp_binder_return),
	 {"binder_return"},
	 XLP_FEAT_BINDER,
	 "binder: tracepoints absent in this kernel (no CONFIG_ANDROID_BINDER_IPC)"},
};

#define NR_OPT_PROGS (sizeof(optional_progs) / sizeof(optional_progs[0]))

static struct bpf_program *opt_prog(const struct session *s, const struct opt_prog *o)
{
	return *(struct bpf_program **)((char *)s->skel + o->prog);
}

static void add_note(struct session *s, const char *note)
{
	size_t len = strlen(s->notes);

	if (strstr(s->notes, note))
		return;
	snprintf(s->notes + len, sizeof(s->notes) - len, "%s\n", note);
}

/*
 * A tracepoint of a module (binder built as binder_linux.ko, as Debian's
 * arm64 kernel has it) is typed in the module's own BTF, split from
 * vmlinux's, in /sys/kernel/btf/<module>.
 */
static bool module_has_type(struct btf *vmlinux, const char *name)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		char path[320];
		struct btf *mod;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		mod = btf__parse_split(path, vmlinux);
		if (!mod)
			continue;
		found = btf__find_by_name_kind(mod, name, BTF_KIND_TYPEDEF) >= 0;
		btf__free(mod);
	}
	if (d)
		closedir(d);
	return found;
}

static bool have_tp(struct btf *vmlinux, const char *tp)
{
	char name[96];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) >= 0 ||
	       module_has_type(vmlinux, name);
}

/*
 * Parameters of the tracepoint's BTF prototype, its __data first: 5 for
 * sched_switch with prev_state (Linux 5.18 and later), 4 before. -1 if
 * the type is not what tracepoints have.
 */
static int tp_nparams(struct btf *vmlinux, const char *tp)
{
	char name[96];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, id));
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -1;
}

/*
 * One sched_switch program of two: the tracepoint's prev_state argument
 * where it has one, the task's state re-read otherwise
 * (bpf/core_fixes.bpf.h). XLPROBE_TEST_OLD_SWITCH forces the second here.
 */
static void select_switch(struct session *s, struct btf *vmlinux, bool cpu_sched)
{
	bool old = tp_nparams(vmlinux, "sched_switch") < 5 || xlp_test_hook("OLD_SWITCH");
	struct xlprobe_bpf *k = s->skel;

	bpf_program__set_autoload(old ? k->progs.xlp_sched_switch : k->progs.xlp_sched_switch_old,
				  false);
	/* record --timeline's every switch of the traced CPUs: its programs or none */
	bpf_program__set_autoload(k->progs.xlp_cpu_switch, cpu_sched && !old);
	bpf_program__set_autoload(k->progs.xlp_cpu_switch_old, cpu_sched && old);
	bpf_program__set_autoload(k->progs.xlp_cpu_waking, cpu_sched);
	bpf_program__set_autoload(k->progs.xlp_cpu_newtask, cpu_sched);
	if (old)
		add_note(s, "sched_switch has no prev_state argument (kernel before 5.18): a "
			    "sleep that ends as it begins may count as a preemption");
}

/* record's marker: specs (bpf/marker.bpf.c); without any, its programs stay unloaded */
static void configure_markers(struct session *s, const struct session_opts *o)
{
	uint32_t n = o->nmarkers < XLP_MARKER_SPECS ? o->nmarkers : XLP_MARKER_SPECS;

	if (!n) {
		bpf_program__set_autoload(s->skel->progs.xlp_marker_write, false);
		bpf_program__set_autoload(s->skel->progs.xlp_marker_pwrite, false);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		memcpy((void *)s->skel->rodata->cfg_marker_pat[i], o->markers[i].pat,
		       sizeof(o->markers[i].pat));
		s->skel->rodata->cfg_marker_len[i] = o->markers[i].len;
		s->skel->rodata->cfg_marker_func[i] = o->markers[i].func_id;
		s->skel->rodata->cfg_marker_flags[i] = o->markers[i].flags;
	}
	s->skel->rodata->cfg_marker_nspecs = n;
}

/*
 * The marked functions' programs: the uprobe_multi pair where the kernel
 * has the link (bpf/calls.bpf.c says why), the perf-event pair otherwise.
 * XLPROBE_TEST_NO_UPROBE_MULTI forces the second here.
 */
static void select_uprobes(struct session *s, struct btf *vmlinux)
{
	struct xlprobe_bpf *k = s->skel;

	s->umulti = uprobe_multi__supported(vmlinux) && !xlp_test_hook("NO_UPROBE_MULTI");
	if (!s->umulti) {
		add_note(s, "uprobe_multi links absent (kernel before 6.6): stopping waits for the "
			    "kernel about 0.2 s per marked function");
		return;
	}
	bpf_program__set_autoload(k->progs.xlp_func_entry, false);
	bpf_program__set_autoload(k->progs.xlp_func_return, false);
	bpf_program__set_autoload(k->progs.xlp_func_entry_multi, true);
	bpf_program__set_autoload(k->progs.xlp_func_return_multi, true);
	bpf_program__set_expected_attach_type(k->progs.xlp_func_entry_multi,
					      (enum bpf_attach_type)XLP_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(k->progs.xlp_func_return_multi,
					      (enum bpf_attach_type)XLP_TRACE_UPROBE_MULTI);
}

/* Before load: programs whose tracepoints the kernel lacks stay unloaded. */
static void select_programs(struct session *s, struct btf *vmlinux, bool cpu_sched,
			    uint32_t *wanted)
{
	const char *hide = xlp_test_hook("HIDE_TP") ?: "";

	select_switch(s, vmlinux, cpu_sched);
	select_uprobes(s, vmlinux);

	*wanted = XLP_FEAT_BLOCK | XLP_FEAT_BINDER;
	for (size_t i = 0; i < NR_OPT_PROGS; i++) {
		const struct opt_prog *o = &optional_progs[i];
		bool ok = true;

		for (int k = 0; k < 3 && o->tps[k]; k++)
			ok &= have_tp(vmlinux, o->tps[k]) && strcmp(hide, o->tps[k]);
		if (ok)
			continue;
		bpf_program__set_autoload(opt_prog(s, o), false);
		*wanted &= ~o->feature;
		add_note(s, o->note);
	}
}

/*
 * Whether the kernel's BPF JIT is off (a kernel built without
 * CONFIG_BPF_JIT_ALWAYS_ON, with net.core.bpf_jit_enable at 0): its
 * interpreter refuses programs with callbacks, so the switch program's
 * bpf_loop (bpf/thief.bpf.h) fails to load with only "Invalid argument".
 */
static bool jit_off(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "re");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '0';
}

/* Attached by the session's own calls (uprobes) or run, never attached. */
static bool is_manual(const struct bpf_program *p)
{
	enum bpf_prog_type t = bpf_program__type(p);

	return t == BPF_PROG_TYPE_KPROBE /* uprobes */ || t == BPF_PROG_TYPE_SYSCALL ||
	       t == BPF_PROG_TYPE_PERF_EVENT /* session__start_sampling */ ||
	       (t == BPF_PROG_TYPE_TRACING &&
		bpf_program__expected_attach_type(p) == BPF_TRACE_ITER);
}

static int attach_programs(struct session *s, uint32_t wanted, char *err, size_t errlen)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, s->skel->obj)
	{
		const struct opt_prog *o = NULL;
		struct bpf_link *l;

		if (!bpf_program__autoload(p) || is_manual(p))
			continue;
		if (s->nlinks >= MAX_LINKS) {
			snprintf(err, errlen, "too many BPF programs: raise MAX_LINKS");
			return -E2BIG;
		}
		l = bpf_program__attach(p);
		if (l) {
			s->links[s->nlinks++] = l;
			continue;
		}
		for (size_t i = 0; i < NR_OPT_PROGS && !o; i++)
			if (opt_prog(s, &optional_progs[i]) == p)
				o = &optional_progs[i];
		if (!o) {
			int e = -errno;

			snprintf(err, errlen, "cannot attach %s: %s", bpf_program__name(p),
				 strerror(-e));
			return e;
		}
		/* optional: say what is missing, record without it */
		add_note(s, o->note);
		wanted &= ~o->feature;
	}
	/* syscalls: read from a blocking thread's registers, no program of their own */
	s->features |=
		XLP_FEAT_BTF | XLP_FEAT_SCHED | XLP_FEAT_UPROBES | XLP_FEAT_SYSCALLS | wanted;
	return 0;
}

/* Seeds every CPU's frequency from cpufreq sysfs; none: frequency unknown. */
static void seed_frequencies(struct session *s)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t now = xlp_now_ns();
	int seeded = 0;

	for (uint32_t cpu = 0; cpu < (uint32_t)ncpu && cpu < 1024; cpu++) {
		struct xlp_ctl a = {.cpu = cpu, .now = now};
		unsigned long long khz;
		char path[96];
		FILE *fp;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq", cpu);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		if (fscanf(fp, "%llu", &khz) == 1 && khz) {
			a.khz = khz;
			seeded += !ctl_run(s->skel->progs.xlp_set_freq, &a);
		}
		fclose(fp);
	}
	if (seeded)
		s->features |= XLP_FEAT_CPUFREQ;
	else
		add_note(s, "CPU frequency: unavailable (no cpufreq driver)");
}

int session__open(const struct session_opts *opts, struct session **out, char *err, size_t errlen)
{
	struct btf *vmlinux = NULL;
	uint32_t wanted = 0;
	struct session *s;
	const char *drop;
	bool lazy;
	int err_ = 0;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->on_record = opts->on_record;
	s->ctx = opts->ctx;
	err_ = check_kernel(&vmlinux, err, errlen);
	if (err_)
		goto cleanup;
	s->skel = xlprobe_bpf__open();
	if (!s->skel) {
		err_ = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		goto cleanup;
	}
	s->skel->rodata->cfg_min_dur_ns = opts->min_dur_ns;
	s->skel->rodata->cfg_timeline = opts->timeline;
	s->skel->rodata->cfg_tl_history = opts->timeline && opts->waker_history;
	s->skel->rodata->cfg_prewake = opts->prewake;
	/* test build: every Nth preemption of a traced thread goes unseen */
	drop = xlp_test_hook("DROP_SWITCH");
	if (drop)
		s->skel->rodata->cfg_test_drop_switch = (__u32)strtoul(drop, NULL, 10);
	/* test build: no CPU's log, no thief record (make bench section 1's reference) */
	s->skel->rodata->cfg_test_no_cpulog = !!xlp_test_hook("NO_CPULOG");
	select_programs(s, vmlinux, opts->timeline && opts->cpu_sched, &wanted);
	configure_markers(s, opts);
	/* the verifier's time is most of a start (the three take 0.25 s of
	 * its 1 s here): programs nothing will attach are not loaded */
	if (!opts->usdt) {
		bpf_program__set_autoload(s->skel->progs.xlp_usdt_begin, false);
		bpf_program__set_autoload(s->skel->progs.xlp_usdt_end, false);
		bpf_program__set_autoload(s->skel->progs.xlp_usdt_point, false);
	}
	/* off-CPU user stacks taken as the thread returns to user space: see
	 * cfg_offcpu_lazy; without the tracepoint, at every switch-out */
	lazy = opts->sample_hz && have_tp(vmlinux, "rseq_update") && !xlp_test_hook("EAGER_OFFCPU");
	s->skel->rodata->cfg_offcpu_lazy = lazy;
	if (!lazy)
		bpf_program__set_autoload(s->skel->progs.xlp_rseq_update, false);
	if (opts->sample_hz) {
		s->skel->bss->sample_period_ns = 1000000000ull / opts->sample_hz;
		s->skel->rodata->cfg_ucopy_bytes = opts->stack_copy;
	} else {
		/* the stack maps are preallocated: 16 MB that nothing would use */
		bpf_program__set_autoload(s->skel->progs.xlp_sample, false);
		bpf_map__set_max_entries(s->skel->maps.ustacks, 1);
		bpf_map__set_max_entries(s->skel->maps.kstacks, 1);
	}
	if (opts->ringbuf_bytes) {
		bpf_map__set_max_entries(s->skel->maps.rb, opts->ringbuf_bytes);
		/* a wakeup well before it is full, however small it is */
		if (s->skel->rodata->cfg_rb_wakeup_bytes > opts->ringbuf_bytes / 4)
			s->skel->rodata->cfg_rb_wakeup_bytes = opts->ringbuf_bytes / 4;
	}
	err_ = xlprobe_bpf__load(s->skel);
	if (err_) {
		if (jit_off())
			snprintf(err, errlen,
				 "the kernel rejected xlprobe's BPF programs: its BPF JIT is off "
				 "(net.core.bpf_jit_enable = 0), and its interpreter runs no "
				 "program with bpf_loop; turn it on: sysctl "
				 "net.core.bpf_jit_enable=1");
		else
			snprintf(err, errlen,
				 "the kernel rejected xlprobe's BPF programs (%s): run with -v for "
				 "the verifier log",
				 strerror(-err_));
		goto cleanup;
	}
	seed_frequencies(s);
	err_ = attach_programs(s, wanted, err, errlen);
	if (err_)
		goto cleanup;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.rb), rb_cb, s, NULL);
	if (!s->rb) {
		err_ = -errno;
		snprintf(err, errlen, "cannot open the ring buffer: %s", strerror(errno));
		goto cleanup;
	}
	*out = s;
	s = NULL;
cleanup:
	btf__free(vmlinux);
	session__close(s);
	return err_;
}

uint32_t session__features(const struct session *s)
{
	return s->features;
}

const char *session__notes(const struct session *s)
{
	return s->notes;
}

/* A process slot (its counters) and the targets entry that follows its forks. */
static int add_proc(struct session *s, uint32_t pid)
{
	struct xlp_ctl a = {.pid = pid};

	return ctl_run(s->skel->progs.xlp_add_proc, &a);
}

int session__add_target(struct session *s, pid_t pid)
{
	int err;

	if (kill(pid, 0) && errno == ESRCH)
		return -ESRCH;
	/* after the targets entry exists, the fork program catches new threads */
	err = add_proc(s, (uint32_t)pid);
	if (err)
		return err;
	s->skel->bss->add_pid = (uint32_t)pid;
	err = iter_run(s, s->skel->progs.xlp_add_threads, false);
	return err ? err : (kill(pid, 0) && errno == ESRCH ? -ESRCH : 0);
}

int session__follow_children(struct session *s)
{
	/* the slot stays unused: only forked children get threads, with
	 * slots of their own (bpf/sched.bpf.c, xlp_sched_fork) */
	return add_proc(s, (uint32_t)getpid());
}

int session__poll(struct session *s, int wake_fd, int timeout_ms)
{
	/* the ring buffer's own epoll fd is readable when a program wakes us */
	struct pollfd fds[2] = {{.fd = ring_buffer__epoll_fd(s->rb), .events = POLLIN},
				{.fd = wake_fd, .events = POLLIN}};
	int n = poll(fds, wake_fd >= 0 ? 2 : 1, timeout_ms);

	if (n < 0 && errno != EINTR)
		return -errno;
	/* the programs skip wakeups for small batches: drain what is there */
	n = ring_buffer__consume(s->rb);
	return n < 0 && n != -EINTR ? n : 0;
}

int session__watch_launch(struct session *s, pid_t pid)
{
	struct xlp_launch_time lt = {};
	uint32_t key = (uint32_t)pid;

	/* BPF_ANY: a stale entry of a reused pid starts over */
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.launch_times), &key, &lt, BPF_ANY))
		return -errno;
	return 0;
}

int session__launch_times(struct session *s, pid_t pid, uint64_t *exec_ns, uint64_t *exit_ns)
{
	int fd = bpf_map__fd(s->skel->maps.launch_times), err = 0;
	struct xlp_launch_time lt = {};
	uint32_t key = (uint32_t)pid;

	if (bpf_map_lookup_elem(fd, &key, &lt))
		err = -errno;
	bpf_map_delete_elem(fd, &key);
	*exec_ns = lt.exec_ns;
	*exit_ns = lt.exit_ns;
	return err;
}

int session__emit_live(struct session *s, uint64_t now)
{
	int err;

	/* threads first: closing their intervals adds to their processes' */
	s->skel->bss->flush_ns = now;
	err = iter_run(s, s->skel->progs.xlp_flush_threads, true);
	if (!err)
		err = iter_run(s, s->skel->progs.xlp_flush_procs, true);
	/* what threads sent from their batches before the iterator reached
	 * them (it stops them: nothing comes twice) */
	if (!err)
		err = ring_buffer__consume(s->rb) < 0 ? -EIO : 0;
	return err;
}

void session__close(struct session *s)
{
	if (!s)
		return;
	/* first: a busy target stops trapping as soon as it can */
	session__detach_funcs(s, 0);
	free(s->flinks);
	for (int i = s->nsample - 1; i >= 0; i--)
		bpf_link__destroy(s->sample_links[i]); /* closes its perf event */
	free(s->sample_links);
	free(s->sample_fds);
	ring_buffer__free(s->rb);
	for (int i = s->nlinks - 1; i >= 0; i--)
		bpf_link__destroy(s->links[i]);
	xlprobe_bpf__destroy(s->skel);
	free(s);
}
