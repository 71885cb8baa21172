/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The fixture of every test that runs under ionic-sim: open the emulated
 * ionic_0, build CQs and QPs, bring an RC or UD pair to RTS inside ONE
 * process (two QPs, GID index 1, looped back through the emulated fabric)
 * and post/poll with timeouts, so that nothing can hang.  Failures are
 * reported through tests/support/check.h, which it includes.
 */
#ifndef IONIC_TESTS_VERBS_FIXTURE_H
#define IONIC_TESTS_VERBS_FIXTURE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"

/* Open ionic_0 (REQUIRE). */
struct ibv_context *fx_open(void);
/* Open ionic_0; NULL with errno set if ibv_open_device failed. */
struct ibv_context *fx_try_open(void);
/* The same for the device called 'name' (ionic_1 with --nics 2). */
struct ibv_context *fx_try_open_named(const char *name);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t fx_now_ms(void);

/* Poll until 'n' completions or 'timeout_ms'; returns the count polled
 * (a poll error is a failure and ends the wait). */
int fx_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms);
/* Poll exactly one completion (REQUIRE within timeout) */
void fx_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms);
/* No completion arrives within 'ms' (CHECK); returns how many did. */
int fx_expect_none(struct ibv_cq *cq, int ms);

struct fx_qp_opts {
	enum ibv_qp_type type;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	int sq_sig_all;
	/* the send CQs' completion channel (NULL: none) */
	struct ibv_comp_channel *send_channel;
	/* RC connection parameters */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t qkey;
};

void fx_qp_opts_default(struct fx_qp_opts *o, enum ibv_qp_type type);

/* Two QPs in one process, both on 'pd', A sends to B and B to A. */
struct fx_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_qp *qp[2];
	struct ibv_qp_cap cap[2]; /* as returned by create */
	struct ibv_ah *ah[2]; /* UD: ah[i] addresses the other side */
	union ibv_gid gid;
	struct fx_qp_opts o;
	size_t buf_len;
	uint8_t *buf[2];
	struct ibv_mr *mr[2];
	bool own_ctx, own_pd; /* opened/allocated by fx_pair_create */
};

/* Create CQs, QPs (RESET), buffers and MRs.  ctx/pd may be given (else
 * opened/allocated by the pair, which then owns them). */
void fx_pair_create(struct fx_pair *p, struct ibv_context *ctx,
		    struct ibv_pd *pd, const struct fx_qp_opts *o,
		    size_t buf_len);
/* Bring both QPs to RTS (RC: connected to each other). */
void fx_pair_connect(struct fx_pair *p);
/* RC: both QPs, in INIT, to RTR toward each other and then to RTS. */
void fx_pair_rc_rtr_rts(struct fx_pair *p);
/* RC: RESET->INIT->RTR->RTS toward remote qpn; returns 0 or errno. */
int fx_rc_to_init(struct ibv_qp *qp);
int fx_rc_to_rtr(struct ibv_qp *qp, const union ibv_gid *dgid, uint32_t dqpn,
		 const struct fx_qp_opts *o);
int fx_rc_to_rts(struct ibv_qp *qp, const struct fx_qp_opts *o);
int fx_ud_to_rts(struct ibv_qp *qp, uint32_t qkey);
struct ibv_ah *fx_make_ah(struct ibv_pd *pd, const union ibv_gid *dgid);
/* Destroy what the pair created, the context and PD only if it owns them. */
void fx_pair_destroy(struct fx_pair *p);

/* Post one receive of 'len' bytes at buf[i] + off. */
int fx_post_recv(struct fx_pair *p, int i, uint64_t wr_id, size_t off,
		 size_t len);
/* Post one SEND (or SEND_WITH_IMM if imm) from side i of len bytes
 * at buf[i] + off. */
int fx_post_send(struct fx_pair *p, int i, uint64_t wr_id, size_t off,
		 size_t len, unsigned int flags, bool with_imm, uint32_t imm);

void fx_fill(uint8_t *b, size_t len, unsigned int seed);

/* What a test that looks for leaks compares: the open file descriptors
 * of this process, and the lines of a text file (/proc/self/maps). */
long fx_open_fds(void);
long fx_file_lines(const char *path);
/* A kB figure of /proc/self/status ("VmRSS", "VmSize"), or -1 */
long fx_status_kb(const char *field);

const char *fx_wc_status(enum ibv_wc_status s);

#endif
