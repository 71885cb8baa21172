// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The failure count behind tests/common/check.h.  Checks may fail in
 * several threads at once: the count is atomic and each report is one
 * locked write to stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static int check_failed;

static void check_vreport(const char *file, int line, const char *fmt,
			  va_list ap)
{
	__atomic_add_fetch(&check_failed, 1, __ATOMIC_RELAXED);
	flockfile(stderr);
	fprintf(stderr, "%s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vreport(file, line, fmt, ap);
	va_end(ap);
}

void check_fatal(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vreport(file, line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "stopped after %d failure(s)\n", check_failures());
	exit(CHECK_EXIT_FAIL);
}

int check_failures(void)
{
	return __atomic_load_n(&check_failed, __ATOMIC_RELAXED);
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
