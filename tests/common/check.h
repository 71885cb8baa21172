/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Checks for the C tests: a failed CHECK prints "file:line: what failed"
 * with the values, is counted, and the test goes on; a failed REQUIRE
 * ends the program at once.  main() returns check_finish(): 0 when no
 * check failed, 1 otherwise (77, "skipped" for ctest, is for the test).
 *
 * Plain code, not assert(): the checks run in every build type.
 */
#ifndef IONIC_TESTS_CHECK_H
#define IONIC_TESTS_CHECK_H

#define CHECK_EXIT_PASS 0
#define CHECK_EXIT_FAIL 1
#define CHECK_EXIT_SKIP 77

/* Count one failure and print "file:line: <message>". */
void check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* check_fail(), then exit(CHECK_EXIT_FAIL). */
void check_fatal(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* Failures counted so far. */
int check_failures(void);
/* Print the verdict; the exit status for main(). */
int check_finish(void);

#define CHECK_COND_(report, kind, cond)                                        \
	do {                                                                   \
		if (!(cond))                                                   \
			report(__FILE__, __LINE__, kind "(%s) failed", #cond); \
	} while (0)

/* Both sides compare as long long; printed in decimal and hex. */
#define CHECK_CMP_(report, kind, a, op, b)                                 \
	do {                                                               \
		long long _a = (long long)(a), _b = (long long)(b);        \
		if (!(_a op _b))                                           \
			report(__FILE__, __LINE__,                         \
			       kind                                        \
			       "(%s, %s): %lld (0x%llx) vs %lld (0x%llx)", \
			       #a, #b, _a, (unsigned long long)_a, _b,     \
			       (unsigned long long)_b);                    \
	} while (0)

#define CHECK(cond) CHECK_COND_(check_fail, "CHECK", cond)
#define REQUIRE(cond) CHECK_COND_(check_fatal, "REQUIRE", cond)
#define CHECK_EQ(a, b) CHECK_CMP_(check_fail, "CHECK_EQ", a, ==, b)
#define REQUIRE_EQ(a, b) CHECK_CMP_(check_fatal, "REQUIRE_EQ", a, ==, b)
#define CHECK_NE(a, b) CHECK_CMP_(check_fail, "CHECK_NE", a, !=, b)

#endif /* IONIC_TESTS_CHECK_H */
