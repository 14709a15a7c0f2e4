/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Escaping untrusted strings for text and JSON output (see escape.h). */
#include <string.h>
#include "escape.h"

size_t xlp_utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80		    ? 1
		     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
		     : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		     : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
						    : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong, surrogate and beyond-U+10FFFF forms */
	if ((len == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (len == 3 && s[0] == 0xed && s[1] > 0x9f) ||
	    (len == 4 && s[0] == 0xf0 && s[1] < 0x90) || (len == 4 && s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/* A C1 control character (U+0080..U+009F) written as UTF-8. */
static bool is_c1(const unsigned char *s, size_t u)
{
	return u == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

/*
 * The text form of the character at s (one of n bytes left) into out
 * (at least 8 bytes, NUL-terminated); returns the bytes of s it stands for.
 */
static size_t text_char(const unsigned char *s, size_t n, bool quoted, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t u = xlp_utf8_len(s, n);

	if (quoted && (s[0] == '"' || s[0] == '\\')) {
		out[0] = '\\', out[1] = (char)s[0], out[2] = 0;
	} else if (s[0] == '\n') {
		strcpy(out, "\\n");
	} else if (s[0] < 0x20 || s[0] == 0x7f || !u) {
		out[0] = '\\', out[1] = 'x', out[2] = hex[s[0] >> 4], out[3] = hex[s[0] & 15];
		out[4] = 0;
		u = 1;
	} else if (is_c1(s, u)) {
		strcpy(out, "\\u00");
		out[4] = hex[s[1] >> 4], out[5] = hex[s[1] & 15], out[6] = 0;
	} else {
		memcpy(out, s, u);
		out[u] = 0;
	}
	return u;
}

void xlp_fput_text(FILE *f, const char *str, size_t n, bool quoted)
{
	const unsigned char *s = (const unsigned char *)str;
	char out[8];

	for (size_t i = 0; i < n;) {
		i += text_char(s + i, n - i, quoted, out);
		fputs(out, f);
	}
}

void xlp_fputs_text(FILE *f, const char *s)
{
	if (s)
		xlp_fput_text(f, s, strlen(s), false);
}

const char *xlp_text(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = str ? strlen(str) : 0, used = 0;
	char out[8];

	if (!len)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; i < n;) {
		size_t k;

		i += text_char(s + i, n - i, false, out);
		k = strlen(out);
		if (used + k >= len)
			break;
		memcpy(buf + used, out, k + 1);
		used += k;
	}
	return buf;
}

void xlp_fput_json(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		size_t u = xlp_utf8_len(s + i, n - i);

		if (s[i] == '"' || s[i] == '\\')
			fprintf(f, "\\%c", s[i]);
		else if (s[i] == '\n')
			fputs("\\n", f);
		else if (s[i] == '\t')
			fputs("\\t", f);
		else if (s[i] < 0x20 || s[i] == 0x7f)
			fprintf(f, "\\u%04x", s[i]);
		else if (!u)
			fputs("\\ufffd", f);
		else if (is_c1(s + i, u))
			fprintf(f, "\\u%04x", s[i + 1]);
		else
			fwrite(s + i, 1, u, f);
		i += u ? u : 1;
	}
	fputc('"', f);
}

void xlp_fput_csv(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char out[8];

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		if (s[i] == '"') {
			fputs("\"\"", f);
			i++;
			continue;
		}
		i += text_char(s + i, n - i, false, out);
		fputs(out, f);
	}
	fputc('"', f);
}

void xlp_clean_utf8(char *dst, size_t cap, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;

	for (size_t i = 0; i < n && s[i] && o + 5 <= cap;) {
		size_t u = xlp_utf8_len(s + i, n - i);

		if (!u || s[i] < 0x20 || s[i] == 0x7f) {
			dst[o++] = '?';
			i++;
			continue;
		}
		memcpy(dst + o, s + i, u);
		o += u;
		i += u;
	}
	dst[o] = '\0';
}
