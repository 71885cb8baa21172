/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * verbs-datapath: one program in several files, one per concern
 * (datapath_*.c); datapath_main.c runs them in order.
 */
#ifndef IONIC_TESTS_VERBS_DATAPATH_H
#define IONIC_TESTS_VERBS_DATAPATH_H

#include "verbs_fixture.h"

#define TMO 5000 /* ms: generous bound for anything that must happen */
#define GRH 40

/* Shared by the whole program (datapath_main.c opens them). */
extern struct ibv_context *ctx;
extern struct ibv_pd *pd;

/* An RC or UD pair on ctx/pd, connected, with 8 SGEs a side. */
void pair(struct fx_pair *p, enum ibv_qp_type t, int sig_all, size_t len);
/* The WC has this wr_id and status (and, on success, this opcode). */
void check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_status st,
	      enum ibv_wc_opcode op, const char *what);

/* datapath_send.c */
void test_send(enum ibv_qp_type t);
void test_inline(enum ibv_qp_type t);
void test_sgl(enum ibv_qp_type t);
void test_signaling(enum ibv_qp_type t);
void test_ud_header_type(void);
/* datapath_post_errors.c */
void test_post_state(void);
void test_too_many_sge(enum ibv_qp_type t);
void test_full_queues(void);
/* datapath_flush.c */
void test_bad_lkey(void);
void test_short_recv(void);
void test_modify_err(enum ibv_qp_type t);
void test_flush_after_recycle(enum ibv_qp_type t);
void test_err_after_done(void);
void test_partial_chain(enum ibv_qp_type t);
void test_recv_bad_lkey(void);
void test_clean_on_destroy(void);
/* datapath_transport.c */
void test_rnr(void);
void test_retry_exceeded(void);
void test_ud_qkey(void);

#endif
