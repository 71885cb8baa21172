/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* verbs-rdma: what its files (rdma_*.c, see rdma_main.c) share. */
#ifndef IONIC_TESTS_VERBS_RDMA_H
#define IONIC_TESTS_VERBS_RDMA_H

#include "verbs_fixture.h"

#define TMO 5000
#define BUF (1 << 17)

#define ACC_ALL                                              \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |  \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
	 IBV_ACCESS_MW_BIND)
#define QP_ACC                                              \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_ATOMIC)

#define EX_RC_OPS                                                         \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |             \
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |       \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |  \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |                              \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | \
	 IBV_QP_EX_WITH_BIND_MW)

/* Shared by the whole program (rdma_main.c opens them). */
extern struct ibv_context *ctx;
extern struct ibv_pd *pd;

/*
 * An RC pair, both QPs signalling every WR.  ex_ops != 0: extended QPs
 * with those send_ops_flags.  mr_acc[i]: access of side i's region;
 * qp_acc1: remote access of QP 1 (the usual responder).
 */
void mkpair(struct fx_pair *p, uint64_t ex_ops, int mr_acc0, int mr_acc1,
	    int qp_acc1);
/* The address of byte 'off' of side i's buffer. */
uint64_t va(struct fx_pair *p, int i, size_t off);
/* Post one WR; returns the errno of ibv_post_send. */
int post(struct ibv_qp *qp, struct ibv_send_wr *wr);
/* The next send completion of side i: wr_id, status, opcode, byte_len. */
void expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status st,
	       enum ibv_wc_opcode op, uint32_t len);
/* An RDMA WRITE/READ work request (not yet posted). */
struct ibv_send_wr rdma_wr(enum ibv_wr_opcode op, uint64_t id,
			   struct ibv_sge *sgl, int n, uint64_t raddr,
			   uint32_t rkey);
/* A WRITE from side 0 to side 1 at 'raddr' through 'rkey'. */
int write_to(struct fx_pair *p, uint64_t id, size_t loff, size_t len,
	     uint64_t raddr, uint32_t rkey);
/* An atomic work request (not yet posted). */
struct ibv_send_wr atomic_wr(enum ibv_wr_opcode op, uint64_t id,
			     struct ibv_sge *sge, uint64_t raddr, uint32_t rkey,
			     uint64_t cmp_add, uint64_t swap);
/* A WRITE that must fail with a remote access error. */
void expect_write_denied(struct fx_pair *p, uint64_t id, uint64_t raddr,
			 uint32_t rkey);

/* rdma_ops.c */
void test_write_read(void);
void test_atomics(void);
/* rdma_errors.c */
void test_post_errors(void);
void test_access_errors(void);
/* rdma_mw.c */
void test_mw_type1(void);
void test_mw_type2(void);
/* rdma_wrx.c */
void test_wrx(void);

#endif
