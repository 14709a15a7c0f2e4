/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one logging module. Errors a user can cause are one line on stderr,
 * "xlprobe: <cause>: <fix>", printed with xlp_err().
 */
#ifndef XLP_LOG_H
#define XLP_LOG_H

enum xlp_log_level { XLP_LOG_ERR = 0, XLP_LOG_WARN, XLP_LOG_INFO, XLP_LOG_DEBUG };

void xlp_log_set_level(enum xlp_log_level lvl);
enum xlp_log_level xlp_log_level(void);
void xlp_log(enum xlp_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Routes libbpf's messages through xlp_log (warnings only unless -v). */
void xlp_log_setup_libbpf(void);

#define xlp_err(...) xlp_log(XLP_LOG_ERR, __VA_ARGS__)
#define xlp_warn(...) xlp_log(XLP_LOG_WARN, __VA_ARGS__)
#define xlp_info(...) xlp_log(XLP_LOG_INFO, __VA_ARGS__)
#define xlp_dbg(...) xlp_log(XLP_LOG_DEBUG, __VA_ARGS__)

#endif
