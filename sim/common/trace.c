// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim tracing: one formatted line per event appended to the file
 * named by $IONIC_SIM_TRACE.
 *
 * Open and write go through the system-call gate (sys.h), so tracing never
 * re-enters the preload's own open()/write() interposers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "sys.h"
#include "trace.h"

int isim_trace_state = -1;
bool isim_trace_raw;
static int trace_fd = -1;
/* $IONIC_SIM_TRACE_ONLY as ",CAT,CAT,", or empty for every category */
static char trace_only[128];
static pid_t trace_pid;
static pthread_mutex_t trace_init_lock = PTHREAD_MUTEX_INITIALIZER;
/* initial-exec: the preload is loaded at start-up, so its TLS is static
 * and safe to touch from any context. */
static __thread pid_t trace_tid __attribute__((tls_model("initial-exec")));

int isim_trace_init(void)
{
	const char *path;
	int fd, state = 0;

	pthread_mutex_lock(&trace_init_lock);
	if (isim_trace_state >= 0) {
		state = isim_trace_state;
		goto out;
	}
	path = getenv(ISIM_ENV_TRACE);
	if (path && *path) {
		fd = isim_sys_open(
			path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0) {
			const char *raw = getenv(ISIM_ENV_TRACE_RAW);

			const char *only = getenv(ISIM_ENV_TRACE_ONLY);

			if (only && *only)
				snprintf(trace_only, sizeof(trace_only), ",%s,",
					 only);
			trace_fd = fd;
			state = 1;
			isim_trace_raw = raw && *raw && strcmp(raw, "0");
		}
	}
	__atomic_store_n(&isim_trace_state, state, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&trace_init_lock);
	return state;
}

void isim_trace_atfork_child(void)
{
	trace_pid = 0;
	trace_tid = 0;
}

/* Is 'cat' left out by $IONIC_SIM_TRACE_ONLY? */
static bool trace_skips(const char *cat)
{
	char key[40];

	if (!trace_only[0])
		return false;
	snprintf(key, sizeof(key), ",%s,", cat);
	return !strstr(trace_only, key);
}

static size_t trace_prefix(char *buf, size_t len, const char *cat)
{
	struct timespec ts;
	int n;

	if (!trace_pid)
		trace_pid = syscall(SYS_getpid);
	if (!trace_tid)
		trace_tid = syscall(SYS_gettid);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(buf, len, "%d %d t=%ld.%06ld %s ", (int)trace_pid,
		     (int)trace_tid, (long)ts.tv_sec, ts.tv_nsec / 1000, cat);
	return n < 0 ? 0 : (size_t)n;
}

static void trace_emit(char *buf, size_t used, size_t len)
{
	if (used >= len - 1) { /* truncated: mark it, keep the newline */
		used = len - 1;
		memcpy(buf + used - 4, "...", 3);
		buf[used - 1] = '\n';
	} else {
		buf[used++] = '\n';
	}
	/* One write per line; O_APPEND keeps lines whole across processes. */
	isim_sys_write(trace_fd, buf, used);
}

void isim_trace(const char *cat, const char *fmt, ...)
{
	int saved_errno = errno;
	char buf[2048];
	size_t used;
	va_list ap;
	int n;

	if (!isim_trace_enabled() || trace_skips(cat))
		return;
	used = trace_prefix(buf, sizeof(buf), cat);
	va_start(ap, fmt);
	n = vsnprintf(buf + used, sizeof(buf) - used, fmt, ap);
	va_end(ap);
	if (n > 0)
		used += n;
	trace_emit(buf, used, sizeof(buf));
	errno = saved_errno;
}

void isim_trace_hex(const char *cat, const char *prefix, const void *data,
		    size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;
	int saved_errno = errno;
	char buf[2048];
	size_t used, shown = len > 256 ? 256 : len;
	int n;

	if (!isim_trace_enabled() || trace_skips(cat))
		return;
	used = trace_prefix(buf, sizeof(buf), cat);
	n = snprintf(buf + used, sizeof(buf) - used, "%s", prefix);
	if (n > 0)
		used += n;
	for (size_t i = 0; i < shown && used + 4 < sizeof(buf); i++) {
		if (i % 8 == 0)
			buf[used++] = ' ';
		buf[used++] = hex[p[i] >> 4];
		buf[used++] = hex[p[i] & 15];
	}
	if (shown < len && used + 4 < sizeof(buf)) {
		memcpy(buf + used, " ...", 4);
		used += 4;
	}
	trace_emit(buf, used, sizeof(buf));
	errno = saved_errno;
}
