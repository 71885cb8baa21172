// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * State behind tests/support/check.h: the failure count and the current
 * section.  Reports are written under stderr's stream lock so that lines of
 * failures reported from several threads do not interleave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static int failures;
static const char *section = "";

void check_section(const char *name)
{
	__atomic_store_n(&section, name, __ATOMIC_RELAXED);
	fprintf(stderr, "-- %s\n", name);
}

static void report(const char *file, int line, const char *fmt, va_list ap)
{
	const char *s = __atomic_load_n(&section, __ATOMIC_RELAXED);

	flockfile(stderr);
	if (*s)
		fprintf(stderr, "%s:%d: [%s] ", file, line, s);
	else
		fprintf(stderr, "%s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void check_fail_quietly(void)
{
	__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	check_fail_quietly();
	va_start(ap, fmt);
	report(file, line, fmt, ap);
	va_end(ap);
}

void check_fatal(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	check_fail_quietly();
	va_start(ap, fmt);
	report(file, line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "FATAL, %d failure(s) in all\n", check_failures());
	exit(CHECK_EXIT_FAIL);
}

void check_skip(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(CHECK_EXIT_SKIP);
}

int check_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

int check_finish(void)
{
	int n = check_failures();

	if (n) {
		fprintf(stderr, "FAILED: %d check(s)\n", n);
		return CHECK_EXIT_FAIL;
	}
	fprintf(stderr, "PASSED\n");
	return CHECK_EXIT_PASS;
}
