/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The checks every C test under tests/ uses, so that all of them report a
 * failure the same way and end with the same exit codes:
 *
 *   CHECK*    a failed check prints "file:line: [section] what, with the
 *             values" (CHECK_MSG: a message of its own), is counted, and
 *             the test goes on;
 *   REQUIRE*  the same, then the program ends at once (exit 1): for results
 *             that later steps cannot do without;
 *   check_skip()    ends the program with CHECK_EXIT_SKIP (77), which
 *             cmake/IonicTesting.cmake registers as ctest's "skipped";
 *   check_finish()  what main() returns: CHECK_EXIT_PASS (0) when no check
 *             failed, CHECK_EXIT_FAIL (1) otherwise.
 *
 * These are plain code, not assert(): they check in every build type,
 * NDEBUG or not.  Failures may be reported from any thread.
 */
#ifndef IONIC_TESTS_COMMON_CHECK_H
#define IONIC_TESTS_COMMON_CHECK_H

#include <errno.h>
#include <string.h>

#define CHECK_EXIT_PASS 0
#define CHECK_EXIT_FAIL 1
#define CHECK_EXIT_SKIP 77

/* Count one failure and print "file:line: [section] <message>". */
void check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Count one failure without printing (a test that caps its own output). */
void check_fail_quietly(void);
/* check_fail(), then exit(CHECK_EXIT_FAIL). */
void check_fatal(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* Print "SKIP: <message>" and exit(CHECK_EXIT_SKIP). */
void check_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Failures counted so far. */
int check_failures(void);
/* Print the verdict; the exit status for main(). */
int check_finish(void);
/* Name the part of the test that runs now: failures carry it, and it is
 * printed as "-- name" so that the log shows how far the test got. */
void check_section(const char *name);

#define SECTION(name) check_section(name)

#define CHECK_REPORT_(fatal, ...)                                     \
	do {                                                          \
		if (fatal)                                            \
			check_fatal(__FILE__, __LINE__, __VA_ARGS__); \
		check_fail(__FILE__, __LINE__, __VA_ARGS__);          \
	} while (0)

#define CHECK_COND_(fatal, kind, cond)                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			int _e = errno;                                        \
			CHECK_REPORT_(fatal, kind "(%s) failed (errno %d %s)", \
				      #cond, _e, strerror(_e));                \
		}                                                              \
	} while (0)

/* Both sides are compared as long long and printed in decimal and hex. */
#define CHECK_CMP_(fatal, kind, a, op, b)                                     \
	do {                                                                  \
		long long _a = (long long)(a), _b = (long long)(b);           \
		if (!(_a op _b))                                              \
			CHECK_REPORT_(fatal,                                  \
				      kind "(%s, %s): %lld (0x%llx) vs %lld " \
					   "(0x%llx)",                        \
				      #a, #b, _a, (unsigned long long)_a, _b, \
				      (unsigned long long)_b);                \
	} while (0)

#define CHECK(cond) CHECK_COND_(0, "CHECK", cond)
/* CHECK with a printf message of its own instead of the errno. */
#define CHECK_MSG(cond, ...)                                         \
	do {                                                         \
		if (!(cond))                                         \
			check_fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define REQUIRE(cond) CHECK_COND_(1, "REQUIRE", cond)
#define CHECK_EQ(a, b) CHECK_CMP_(0, "CHECK_EQ", a, ==, b)
#define REQUIRE_EQ(a, b) CHECK_CMP_(1, "REQUIRE_EQ", a, ==, b)
#define CHECK_NE(a, b) CHECK_CMP_(0, "CHECK_NE", a, !=, b)
#define CHECK_GE(a, b) CHECK_CMP_(0, "CHECK_GE", a, >=, b)

/* A call returning a pointer must fail (NULL) with errno == e. */
#define CHECK_NULL_ERRNO(expr, e)                                          \
	do {                                                               \
		const void *_p;                                            \
		int _e;                                                    \
		errno = 0;                                                 \
		_p = (const void *)(expr);                                 \
		_e = errno;                                                \
		if (_p)                                                    \
			check_fail(__FILE__, __LINE__,                     \
				   "%s succeeded, expected errno %d (%s)", \
				   #expr, (int)(e), strerror(e));          \
		else if (_e != (e))                                        \
			check_fail(__FILE__, __LINE__,                     \
				   "%s: errno %d (%s), expected %d (%s)",  \
				   #expr, _e, strerror(_e), (int)(e),      \
				   strerror(e));                           \
	} while (0)

/* A call returning an errno as int (0 on success) must return exactly e. */
#define CHECK_RC(expr, e)                                                      \
	do {                                                                   \
		int _rc = (expr);                                              \
		if (_rc != (e))                                                \
			check_fail(__FILE__, __LINE__,                         \
				   "%s returned %d (%s), expected %d (%s)",    \
				   #expr, _rc, strerror(_rc < 0 ? -_rc : _rc), \
				   (int)(e), strerror(e));                     \
	} while (0)

/* A call with the kernel's convention - a count (bytes, a handle, 0) or a
 * negative errno, as write(), ioctl() and mmap handlers return - must
 * return exactly 'want'; both are printed with the errno name when
 * negative. */
#define CHECK_RET(expr, want)                                                 \
	do {                                                                  \
		long long _r = (long long)(expr), _w = (long long)(want);     \
		if (_r != _w)                                                 \
			check_fail(__FILE__, __LINE__,                        \
				   "%s returned %lld%s%s, expected %lld%s%s", \
				   #expr, _r, _r < 0 ? " " : "",              \
				   _r < 0 ? strerror((int)-_r) : "", _w,      \
				   _w < 0 ? " " : "",                         \
				   _w < 0 ? strerror((int)-_w) : "");         \
	} while (0)

#endif
