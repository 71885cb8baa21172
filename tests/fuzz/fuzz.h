/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared by the libFuzzer targets of tests/fuzz/ (docs/testing.md §5):
 * a reader that turns the fuzzer's bytes into the choices of one run, and
 * the oracle's check.
 *
 * Every target defines LLVMFuzzerTestOneInput().  It is linked either
 * with libFuzzer (clang, -fsanitize=fuzzer: `./build.sh fuzz`) or with
 * tests/fuzz/replay.c, which feeds it the files of a corpus once each, so
 * the checked-in corpus is a regression test in every build.
 *
 * A broken invariant is a finding: FUZZ_CHECK prints what broke and
 * aborts, which libFuzzer records as a crash (and saves the input) and
 * which fails the replay test.
 */
#ifndef IONIC_FUZZ_H
#define IONIC_FUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input, consumed front to back.  Past its end every read returns
 * zeros, so any prefix of an input is a valid (shorter) run.
 */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline bool fuzz_more(const struct fuzz_in *in)
{
	return in->n != 0;
}

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

/* 'len' bytes into 'dst', zero-filled past the end of the input. */
static inline void fuzz_bytes(struct fuzz_in *in, void *dst, size_t len)
{
	size_t take = len < in->n ? len : in->n;

	memcpy(dst, in->p, take);
	memset((uint8_t *)dst + take, 0, len - take);
	in->p += take;
	in->n -= take;
}

/* A pointer to the next 'len' bytes (fewer at the end), consumed. */
static inline const uint8_t *fuzz_take(struct fuzz_in *in, size_t *len)
{
	const uint8_t *p = in->p;

	if (*len > in->n)
		*len = in->n;
	in->p += *len;
	in->n -= *len;
	return p;
}

__attribute__((format(printf, 3, 4), noreturn)) static inline void
fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* FUZZ_CHECK(cond, "format", args...): the format says what broke. */
#define FUZZ_CHECK(cond, ...)                                                \
	do {                                                                 \
		if (!(cond))                                                 \
			fuzz_fail(__FILE__, __LINE__,                        \
				  "check (" #cond ") failed: " __VA_ARGS__); \
	} while (0)

#endif /* IONIC_FUZZ_H */
