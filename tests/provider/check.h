/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * CHECK(cond) for the device-free provider tests: report the failed
 * condition with its line and count it in 'failures'; main() returns 1 if
 * any failed.  One copy per test program (static).
 */
#ifndef IONIC_TEST_PROVIDER_CHECK_H
#define IONIC_TEST_PROVIDER_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                    \
	do {                                                           \
		if (!(cond)) {                                         \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, \
				__LINE__, #cond);                      \
			failures++;                                    \
		}                                                      \
	} while (0)

#endif /* IONIC_TEST_PROVIDER_CHECK_H */
