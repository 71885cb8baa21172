/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Verbs-through-ionic-sim test harness (H7): assertion macros that print
 * file:line with the failing values, and helpers that open ionic_0, build
 * CQs/QPs, bring an RC or UD pair to RTS inside ONE process (two QPs,
 * GID index 1, looped back through the emulated fabric) and post/poll
 * with timeouts so that nothing can hang.
 *
 * A CHECK failure is counted and the test goes on; a REQUIRE failure ends
 * the program at once.  h_finish() returns the exit status (0 or 1).
 */
#ifndef IONIC_TESTS_VERBS_HARNESS_H
#define IONIC_TESTS_VERBS_HARNESS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

extern int h_failures;
extern const char *h_section;

void h_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void h_fatal(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			h_fail(__FILE__, __LINE__,                             \
			       "CHECK(%s) failed (errno %d %s)", #cond, errno, \
			       strerror(errno));                               \
	} while (0)

#define REQUIRE(cond)                                                      \
	do {                                                               \
		if (!(cond))                                               \
			h_fatal(__FILE__, __LINE__,                        \
				"REQUIRE(%s) failed (errno %d %s)", #cond, \
				errno, strerror(errno));                   \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		long long _a = (long long)(a), _b = (long long)(b);            \
		if (_a != _b)                                                  \
			h_fail(__FILE__, __LINE__,                             \
			       "%s == %s: %lld (0x%llx) != %lld (0x%llx)", #a, \
			       #b, _a, (unsigned long long)_a, _b,             \
			       (unsigned long long)_b);                        \
	} while (0)

#define REQUIRE_EQ(a, b)                                                    \
	do {                                                                \
		long long _a = (long long)(a), _b = (long long)(b);         \
		if (_a != _b)                                               \
			h_fatal(__FILE__, __LINE__,                         \
				"%s == %s: %lld (0x%llx) != %lld (0x%llx)", \
				#a, #b, _a, (unsigned long long)_a, _b,     \
				(unsigned long long)_b);                    \
	} while (0)

#define CHECK_GE(a, b)                                                      \
	do {                                                                \
		long long _a = (long long)(a), _b = (long long)(b);         \
		if (!(_a >= _b))                                            \
			h_fail(__FILE__, __LINE__, "%s >= %s: %lld < %lld", \
			       #a, #b, _a, _b);                             \
	} while (0)

/* A call returning a pointer must fail (NULL) with errno == e. */
#define CHECK_NULL_ERRNO(expr, e)                                              \
	do {                                                                   \
		void *_p;                                                      \
		errno = 0;                                                     \
		_p = (void *)(expr);                                           \
		if (_p)                                                        \
			h_fail(__FILE__, __LINE__,                             \
			       "%s succeeded, expected errno %d (%s)", #expr,  \
			       (int)(e), strerror(e));                         \
		else if (errno != (e))                                         \
			h_fail(__FILE__, __LINE__,                             \
			       "%s: errno %d (%s), expected %d (%s)", #expr,   \
			       errno, strerror(errno), (int)(e), strerror(e)); \
	} while (0)

/* A call returning an int errno must return exactly e. */
#define CHECK_RC(expr, e)                                                      \
	do {                                                                   \
		int _rc = (expr);                                              \
		if (_rc != (e))                                                \
			h_fail(__FILE__, __LINE__,                             \
			       "%s returned %d (%s), expected %d (%s)", #expr, \
			       _rc, strerror(_rc < 0 ? -_rc : _rc), (int)(e),  \
			       strerror(e));                                   \
	} while (0)

#define SECTION(name)                                  \
	do {                                           \
		h_section = (name);                    \
		fprintf(stderr, "-- %s\n", h_section); \
	} while (0)

int h_finish(void);

/* Open ionic_0 (REQUIRE). */
struct ibv_context *h_open(void);
/* Open ionic_0; NULL with errno set if ibv_open_device failed. */
struct ibv_context *h_try_open(void);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t h_now_ms(void);

/* Poll until 'n' completions or 'timeout_ms'; returns the count polled
 * (a poll error is a failure and ends the wait). */
int h_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms);
/* Poll exactly one completion (REQUIRE within timeout) */
void h_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms);
/* No completion arrives within 'ms' (CHECK); returns how many did. */
int h_expect_none(struct ibv_cq *cq, int ms);

struct h_qp_opts {
	enum ibv_qp_type type;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	int sq_sig_all;
	/* RC connection parameters */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t qkey;
};

void h_qp_opts_default(struct h_qp_opts *o, enum ibv_qp_type type);

/* Two QPs in one process, both on 'pd', A sends to B and B to A. */
struct h_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_qp *qp[2];
	struct ibv_qp_cap cap[2]; /* as returned by create */
	struct ibv_ah *ah[2]; /* UD: ah[i] addresses the other side */
	union ibv_gid gid;
	struct h_qp_opts o;
	size_t buf_len;
	uint8_t *buf[2];
	struct ibv_mr *mr[2];
};

/* Create CQs, QPs (RESET), buffers and MRs.  ctx/pd may be given (else
 * opened/allocated and owned by the pair). */
void h_pair_create(struct h_pair *p, struct ibv_context *ctx, struct ibv_pd *pd,
		   const struct h_qp_opts *o, size_t buf_len);
/* Bring both QPs to RTS (RC: connected to each other). */
void h_pair_connect(struct h_pair *p);
/* RC: RESET->INIT->RTR->RTS toward remote qpn; returns 0 or errno. */
int h_rc_to_init(struct ibv_qp *qp);
int h_rc_to_rtr(struct ibv_qp *qp, const union ibv_gid *dgid, uint32_t dqpn,
		const struct h_qp_opts *o);
int h_rc_to_rts(struct ibv_qp *qp, const struct h_qp_opts *o);
int h_ud_to_rts(struct ibv_qp *qp, uint32_t qkey);
struct ibv_ah *h_make_ah(struct ibv_pd *pd, const union ibv_gid *dgid);
void h_pair_destroy(struct h_pair *p);

/* Post one receive of 'len' bytes at buf[i] + off. */
int h_post_recv(struct h_pair *p, int i, uint64_t wr_id, size_t off,
		size_t len);
/* Post one SEND (or SEND_WITH_IMM if imm) from side i of len bytes
 * at buf[i] + off. */
int h_post_send(struct h_pair *p, int i, uint64_t wr_id, size_t off, size_t len,
		unsigned int flags, bool with_imm, uint32_t imm);

void h_fill(uint8_t *b, size_t len, unsigned int seed);

const char *h_wc_status(enum ibv_wc_status s);

#endif
