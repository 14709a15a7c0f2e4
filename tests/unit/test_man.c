/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The man page, user/xlprobe.1: it renders through man(1) without a roff
 * warning; every option a --help text prints is in it, and those a
 * command's help lists as its own (usage lines and option lines) are in
 * an item of that command's "<COMMAND> OPTIONS" section; every command of
 * `xlprobe --help` has its sections; `make install` puts the page beside
 * the binary. The lists come from the --help texts themselves, so an
 * option added to a command fails this test until the page documents it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>
#include "testlib.h"
#include "xlptest.h"

#define PAGE_MAX (1 << 20)
#define HELP_MAX (1 << 16)
#define MAX_OPTS 256
#define OPT_LEN 64
#define MAX_CMDS 32

struct opts {
	int n;
	char name[MAX_OPTS][OPT_LEN];
	bool own[MAX_OPTS]; /* on a usage or option line: must be an item */
};

static char page[PAGE_MAX];

__attribute__((format(printf, 3, 4))) static int shell(char *out, size_t outlen, const char *fmt,
						       ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return tl_run(cmd, out, outlen);
}

/*
 * The page as a reader sees it, in plain text: a groff other than
 * Debian's may print option dashes as U+2010 or U+2212, and a terminal
 * setting may keep overstrike or SGR bold; none of it should decide
 * whether an option is found.
 */
static void plain_text(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		if (!strncmp(r, "\xe2\x80\x90", 3) || !strncmp(r, "\xe2\x80\x91", 3) ||
		    !strncmp(r, "\xe2\x88\x92", 3)) {
			*w++ = '-';
			r += 3;
		} else if (*r == '\b') {
			if (w > s)
				w--;
			r++;
		} else if (r[0] == '\x1b' && r[1] == '[') {
			r += 2;
			while (*r && *r != 'm')
				r++;
			if (*r)
				r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
}

/* man(1) as a user runs it, from the tree; hyphenation and justification
 * off so a line break never splits or pads an option name */
#define MAN_CMD                                                                                    \
	"cd '%s' && env -u MAN_KEEP_FORMATTING LC_ALL=C.UTF-8 MANWIDTH=100 MANPAGER=cat "          \
	"PAGER=cat man --nh --nj --warnings=w -l user/xlprobe.1"

/* Renders the page into page[] once; false (and said) when man fails. */
static bool render(void)
{
	static bool done, ok;
	int rc;

	if (done)
		return ok;
	done = true;
	rc = shell(page, sizeof(page), MAN_CMD " 2>/dev/null", tl_root());
	ok = rc == 0 && strlen(page) > 1000;
	if (!ok)
		fprintf(stderr, "  man -l user/xlprobe.1: rc %d, %zu bytes\n", rc, strlen(page));
	plain_text(page);
	return ok;
}

static bool opt_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

static bool letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* s[0..len) with neither an option character just before nor just after it */
static bool whole_at(const char *start, const char *s, size_t len)
{
	return (s == start || !opt_char(s[-1])) && !opt_char(s[len]);
}

/* Whether opt occurs as a whole word in [s, end). */
static bool has_opt(const char *s, const char *end, const char *opt)
{
	size_t len = strlen(opt);

	for (const char *p = s; p + len <= end; p++)
		if (!strncmp(p, opt, len) && whole_at(s, p, len))
			return true;
	return false;
}

static void add_opt(struct opts *o, const char *s, size_t len, bool own)
{
	if (len >= OPT_LEN)
		len = OPT_LEN - 1;
	for (int i = 0; i < o->n; i++) {
		if (strlen(o->name[i]) == len && !strncmp(o->name[i], s, len)) {
			o->own[i] |= own;
			return;
		}
	}
	if (o->n == MAX_OPTS)
		return;
	memcpy(o->name[o->n], s, len);
	o->name[o->n][len] = 0;
	o->own[o->n++] = own;
}

/*
 * Every --long and -x a help text prints. Own: the usage block (up to the
 * first empty line) and the lines of an option list, which start with the
 * option, a little indented; the rest is prose that may name other
 * commands' options (also when a wrapped line begins with one, deeper).
 */
static void help_opts(const char *help, struct opts *o)
{
	bool usage = true, own;

	memset(o, 0, sizeof(*o));
	for (const char *line = help; *line;) {
		const char *end = strchr(line, '\n'), *first = line;

		if (!end)
			end = line + strlen(line);
		while (first < end && *first == ' ')
			first++;
		if (first == end)
			usage = false;
		own = usage || (*first == '-' && first - line <= 8);
		for (const char *p = line; p < end; p++) {
			size_t len;

			if (*p != '-' || (p > line && opt_char(p[-1])))
				continue;
			if (p[1] == '-' && letter(p[2])) {
				for (len = 3; p + len < end && opt_char(p[len]); len++)
					;
				while (p[len - 1] == '-')
					len--;
				add_opt(o, p, len, own);
				p += len - 1;
			} else if (letter(p[1]) && (p + 2 == end || !opt_char(p[2]))) {
				add_opt(o, p, 2, own);
			}
		}
		line = *end ? end + 1 : end;
	}
}

static const char *next_line(const char *l, const char *end)
{
	const char *nl = memchr(l, '\n', (size_t)(end - l));

	return nl ? nl + 1 : end;
}

/* Whether a line of [s, end), without its indent, is text. */
static bool has_line(const char *s, const char *end, const char *text)
{
	size_t len = strlen(text);

	for (const char *l = s; l < end; l = next_line(l, end)) {
		while (l < end && *l == ' ')
			l++;
		if (l + len <= end && !strncmp(l, text, len) && (l + len == end || l[len] == '\n'))
			return true;
	}
	return false;
}

/*
 * The text of the section titled title: from its heading, a line of its
 * own at column 0, to the next line at column 0 (the next heading, or the
 * page's footer).
 */
static bool section(const char *title, const char **start, const char **end)
{
	const char *page_end = page + strlen(page);
	size_t len = strlen(title);

	for (const char *l = page; l < page_end; l = next_line(l, page_end)) {
		if (strncmp(l, title, len) || l[len] != '\n')
			continue;
		*start = l + len + 1;
		for (*end = *start; *end < page_end; *end = next_line(*end, page_end))
			if (**end != ' ' && **end != '\n')
				break;
		return true;
	}
	return false;
}

/* Whether opt heads a line of [s, end): an item's tag (.TP), not a mention. */
static bool has_item(const char *s, const char *end, const char *opt)
{
	for (const char *l = s; l < end; l = next_line(l, end)) {
		const char *nl = next_line(l, end), *first = l;

		while (first < nl && *first == ' ')
			first++;
		if (first < nl && *first == '-' && has_opt(l, nl, opt))
			return true;
	}
	return false;
}

/*
 * Checks help against the page: returns how many options are missing,
 * each said on stderr when say. cmd NULL: the top-level help, checked
 * against the whole page only.
 */
static int check_help(const char *cmd, const char *help, bool say)
{
	static struct opts o;
	const char *page_end = page + strlen(page), *s = NULL, *e = NULL;
	char title[64];
	int missing = 0;

	help_opts(help, &o);
	if (cmd) {
		snprintf(title, sizeof(title), "%s OPTIONS", cmd);
		for (char *t = title; *t; t++)
			*t = (char)(*t >= 'a' && *t <= 'z' ? *t - 'a' + 'A' : *t);
		if (!section(title, &s, &e)) {
			if (say)
				fprintf(stderr, "  no section \"%s\" in the page\n", title);
			return o.n ? o.n : 1;
		}
	}
	for (int i = 0; i < o.n; i++) {
		if (!has_opt(page, page_end, o.name[i])) {
			if (say)
				fprintf(stderr, "  xlprobe %s --help prints %s: not in the page\n",
					cmd ? cmd : "", o.name[i]);
			missing++;
		} else if (cmd && o.own[i] && !has_item(s, e, o.name[i])) {
			if (say)
				fprintf(stderr,
					"  xlprobe %s --help lists %s: no item for it in %s\n", cmd,
					o.name[i], title);
			missing++;
		}
	}
	return missing;
}

static int run_help(const char *cmd, char *out, size_t len)
{
	char bin[PATH_MAX];

	xt_out("xlprobe", bin, sizeof(bin));
	return shell(out, len, "'%s' %s --help 2>&1", bin, cmd ? cmd : "");
}

/* The command names of the "Commands:" block of `xlprobe --help`. */
static int list_commands(const char *help, char cmds[MAX_CMDS][32])
{
	const char *l = strstr(help, "\nCommands:\n");
	int n = 0;

	if (!l)
		return 0;
	for (l = strchr(l + 1, '\n') + 1; *l == ' ' && n < MAX_CMDS;) {
		if (sscanf(l, "%31s", cmds[n]) == 1)
			n++;
		l = strchr(l, '\n');
		if (!l)
			break;
		l++;
	}
	return n;
}

/* Commands by name or by a prefix that names one alone, as bpftool takes them. */
TEST(commands_by_unique_prefix)
{
	char out[8192], bin[PATH_MAX];
	int rc;

	xt_out("xlprobe", bin, sizeof(bin));
	rc = shell(out, sizeof(out), "'%s' rep --help 2>&1", bin);
	CHECK(rc == 0 && !strncmp(out, "Usage: xlprobe report", 21), "rep: %d %s", rc, out);
	rc = shell(out, sizeof(out), "'%s' re 2>&1", bin);
	CHECK(rc == 2 && strstr(out, "command 're' is ambiguous"), "re: %d %s", rc, out);
	rc = shell(out, sizeof(out), "'%s' nosuch 2>&1", bin);
	CHECK(rc == 2 && strstr(out, "unknown command 'nosuch'"), "nosuch: %d %s", rc, out);
	rc = run_help(NULL, out, sizeof(out));
	CHECK(rc == 0 && strstr(out, "\n  export   "), "the table in the usage: %s", out);
}

TEST(renders_without_warnings)
{
	static char warn[HELP_MAX];
	const char *s, *e;
	int rc;

	rc = shell(warn, sizeof(warn), MAN_CMD " 2>&1 >/dev/null", tl_root());
	CHECK(rc == 0 && !warn[0], "man warned (rc %d):\n%s", rc, warn);
	REQUIRE(render(), "the page does not render");
	for (const char *t = "NAME\0SYNOPSIS\0DESCRIPTION\0COMMANDS\0EXIT STATUS\0FILES\0"
			     "EXAMPLES\0SEE ALSO\0";
	     *t; t += strlen(t) + 1)
		CHECK(section(t, &s, &e), "no section %s", t);
	CHECK(section("SEE ALSO", &s, &e) && has_opt(s, e, "perf(1)") &&
		      has_opt(s, e, "bpftrace(8)"),
	      "SEE ALSO must name perf(1) and bpftrace(8)");
}

/* The checker itself finds what is missing: else the test below proves nothing. */
TEST(checker_finds_missing_options)
{
	static const char fake[] =
		"Usage: xlprobe dump FILE [--xlp-not-in-page]\n"
		"\n"
		"  --json          documented\n"
		"  -Q, --quux      not documented\n"
		"Prose naming --help, a non-option (x-y) and --xlp-absent-too.\n";
	static struct opts o;

	help_opts(fake, &o);
	CHECK(o.n == 6, "%d options found in the sample", o.n);
	for (int i = 0; i < o.n; i++)
		CHECK(o.own[i] == (strcmp(o.name[i], "--help") &&
				   strcmp(o.name[i], "--xlp-absent-too")),
		      "%s: own %d", o.name[i], o.own[i]);
	REQUIRE(render(), "the page does not render");
	CHECK(check_help("dump", fake, false) == 4,
	      "--xlp-not-in-page, -Q, --quux, --xlp-absent-too");
	/* an option of another command's section is no item of this one */
	CHECK(check_help("dump", "Usage: xlprobe dump --pid\n", false) == 1, "--pid is record's");
}

TEST(every_help_option_documented)
{
	static char help[HELP_MAX], sub[HELP_MAX];
	char cmds[MAX_CMDS][32];
	const char *s, *e;
	int n, rc;

	REQUIRE(render(), "the page does not render");
	rc = run_help(NULL, help, sizeof(help));
	REQUIRE(rc == 0, "xlprobe --help: rc %d: %s", rc, help);
	CHECK(check_help(NULL, help, true) == 0, "xlprobe --help");
	n = list_commands(help, cmds);
	REQUIRE(n >= 4, "%d commands in xlprobe --help", n);
	for (int i = 0; i < n; i++) {
		struct opts o;
		char want[64];

		rc = run_help(cmds[i], sub, sizeof(sub));
		CHECK(rc == 0, "xlprobe %s --help: rc %d", cmds[i], rc);
		help_opts(sub, &o);
		CHECK(o.n > 0 && has_opt(sub, sub + strlen(sub), "--help"),
		      "xlprobe %s --help prints no option (%d)", cmds[i], o.n);
		CHECK(check_help(cmds[i], sub, true) == 0, "xlprobe %s --help", cmds[i]);
		/* the command's own paragraph, synopsis and exit status */
		snprintf(want, sizeof(want), "xlprobe %s", cmds[i]);
		CHECK(section("COMMANDS", &s, &e) && has_line(s, e, want),
		      "COMMANDS has no subsection \"%s\"", want);
		CHECK(section("SYNOPSIS", &s, &e) && has_opt(s, e, want), "SYNOPSIS has no \"%s\"",
		      want);
		CHECK(section("EXIT STATUS", &s, &e) && has_opt(s, e, want),
		      "EXIT STATUS has no \"%s\"", want);
	}
}

static bool file_mode(const char *path, mode_t want)
{
	struct stat st;

	if (lstat(path, &st)) {
		fprintf(stderr, "  %s: missing\n", path);
		return false;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != want) {
		fprintf(stderr, "  %s: mode %o, want a regular file of %o\n", path,
			(unsigned)st.st_mode, (unsigned)want);
		return false;
	}
	return true;
}

TEST(make_install_puts_page_beside_binary)
{
	/* xt_tmpdir() is a short /tmp name */
	char dest[256], bin[PATH_MAX], page_dst[PATH_MAX], out[8192], built[PATH_MAX];
	int rc;

	snprintf(dest, sizeof(dest), "%s/install", xt_tmpdir());
	snprintf(bin, sizeof(bin), "%s/usr/local/bin/xlprobe", dest);
	snprintf(page_dst, sizeof(page_dst), "%s/usr/local/share/man/man1/xlprobe.1", dest);
	/* a make running this test must not hand its jobserver or level down */
	rc = shell(out, sizeof(out),
		   "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C '%s' "
		   "install DESTDIR='%s' 2>&1",
		   tl_root(), dest);
	CHECK(rc == 0, "make install DESTDIR=%s: rc %d:\n%s", dest, rc, out);
	CHECK(file_mode(bin, 0755), "binary");
	CHECK(file_mode(page_dst, 0644), "page");
	CHECK(shell(NULL, 0, "cmp -s '%s' '%s'", xt_out("xlprobe", built, sizeof(built)), bin) == 0,
	      "%s differs from .output/xlprobe", bin);
	CHECK(shell(NULL, 0, "cmp -s '%s/user/xlprobe.1' '%s'", tl_root(), page_dst) == 0,
	      "%s differs from user/xlprobe.1", page_dst);
	CHECK(shell(NULL, 0, "rm -rf -- '%s'", dest) == 0, "cannot remove %s", dest);
}

TEST_MAIN()
