// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device rules, end to end through the real engine thread and
 * fabric but without the provider or the kernel layer (dev_fixture.h):
 * RDMA WRITE and READ across many packets, a pipelined mix with a fence,
 * atomics executed once with the result in host order, SQD draining with
 * its event, remote access and invalid-request errors.
 */
#include <stdlib.h>
#include <string.h>

#include "dev_fixture.h"

static uint8_t rbuf[4][4096];
static uint8_t big_src[20000], big_dst[20000];
static uint64_t atomic_target[2] __attribute__((aligned(8)));

static void test_rc_rdma(void)
{
	struct hcq *cq_a = make_cq(6), *cq_b = make_cq(7);
	struct hqp *a = make_qp(40, IBV_QPT_RC, cq_a, cq_a);
	struct hqp *b = make_qp(41, IBV_QPT_RC, cq_b, cq_b);
	uint32_t lsrc =
		mr_key(big_src, sizeof(big_src), IBV_ACCESS_LOCAL_WRITE);
	uint32_t rdst =
		mr_key(big_dst, sizeof(big_dst),
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	uint32_t ratom =
		mr_key(atomic_target, sizeof(atomic_target),
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	uint32_t rnone = mr_key(rbuf[2], 4096, IBV_ACCESS_LOCAL_WRITE);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	static uint64_t result;
	uint32_t lres = mr_key(&result, sizeof(result), IBV_ACCESS_LOCAL_WRITE);
	enum ionic_status st;
	struct ionic_cqe c;
	size_t i;

	for (i = 0; i < sizeof(big_src); i++)
		big_src[i] = (uint8_t)(i * 13 + 5);
	a->attr.max_rd_atomic = 4;
	bring_up(a, 41, 7, 7, 14);
	bring_up(b, 40, 7, 7, 14);

	/* WRITE of 20000 bytes (20 packets), then READ it back elsewhere. */
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE, big_src, 20000, lsrc, big_dst,
		  rdst, 0);
	CHECK(wait_msn(cq_a, 1, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(big_src, big_dst, 20000));
	memset(big_src, 0, 20000);
	post_rdma(a, IONIC_V2_OP_RDMA_READ, big_src, 20000, lsrc, big_dst, rdst,
		  IONIC_WQE_FLAG_SIG);
	CHECK(wait_msn(cq_a, 2, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(big_src, big_dst, 20000));
	CHECK(!poll_cqe(cq_b, &c, 10)); /* no CQE at the target */

	/* Mixed, pipelined: SEND, READ, WRITE_IMM, READ (one MSN sequence). */
	post_recv(b, rbuf[0], 4096, rkey);
	post_recv(b, rbuf[1], 4096, rkey);
	post_send(a, IONIC_V2_OP_SEND, big_src, 100, lsrc, 0, 0, 0, 0);
	post_rdma(a, IONIC_V2_OP_RDMA_READ, big_src + 1000, 3000, lsrc, big_dst,
		  rdst, 0);
	/* Its source overlaps the READ's destination: fenced. */
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE_IMM, big_src, 5000, lsrc,
		  big_dst + 10000, rdst,
		  IONIC_WQE_FLAG_SIG | IONIC_WQE_FLAG_FENCE);
	post_rdma(a, IONIC_V2_OP_RDMA_READ, big_src + 8000, 1, lsrc,
		  big_dst + 7, rdst, 0);
	CHECK(wait_msn(cq_a, 6, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(big_src + 1000, big_dst, 3000));
	CHECK(big_src[8000] == big_dst[7]);
	CHECK(poll_cqe(cq_b, &c, 2000) && cqe_status_len(&c) == 100);
	CHECK(poll_cqe(cq_b, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c) &&
	      cqe_status_len(&c) == 5000 &&
	      ((be32toh(c.recv.src_qpn_op) >> 24) & 0x1f) ==
		      IONIC_CQE_RECV_OP_RDMA_IMM &&
	      c.recv.imm_data_rkey == htobe32(0x5eed0000 | 4) &&
	      (le64toh(c.recv.wqe_idx_timestamp) & 0xffff) == 1);
	CHECK(!memcmp(big_src, big_dst + 10000, 5000));

	/* Atomics: result in host order, executed once. */
	atomic_target[0] = 40;
	post_atomic(a, IONIC_V2_OP_ATOMIC_FA, &result, lres, &atomic_target[0],
		    ratom, 2, 0);
	CHECK(wait_msn(cq_a, 7, &st) && st == IONIC_STS_OK);
	CHECK(result == 40 && atomic_target[0] == 42);
	post_atomic(a, IONIC_V2_OP_ATOMIC_CS, &result, lres, &atomic_target[0],
		    ratom, 7, 42);
	CHECK(wait_msn(cq_a, 8, &st) && st == IONIC_STS_OK);
	CHECK(result == 42 && atomic_target[0] == 7);
	post_atomic(a, IONIC_V2_OP_ATOMIC_CS, &result, lres, &atomic_target[0],
		    ratom, 9, 42);
	CHECK(wait_msn(cq_a, 9, &st) && st == IONIC_STS_OK);
	CHECK(result == 7 && atomic_target[0] == 7);

	/* SQD with nothing in flight: drained at once, one SQ_DRAINED event;
	 * WQEs posted while draining wait for RTS. */
	a->attr.en_sqd_async_notify = 1;
	fx_ev.qp_async = fx_ev.sq_drained = 0;
	modify_attrs(a, IBV_QPS_SQD, IBV_QP_EN_SQD_ASYNC_NOTIFY);
	CHECK(fx_ev.qp_async == 1 && fx_ev.sq_drained == 1 &&
	      !qp_query(a).sq_draining);
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE, big_src, 8, lsrc, big_dst, rdst,
		  0);
	CHECK(!poll_cqe(cq_a, &c, 20));
	modify(a, IBV_QPS_RTS);
	CHECK(wait_msn(cq_a, 10, &st) && st == IONIC_STS_OK);

	/* WRITE without REMOTE_WRITE: REMOTE_ACC_ERR for the requester
	 * (msg_msn = seq + 1), the target QP in ERR with an access event. */
	fx_ev.qp_async = 0;
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE, big_src, 8, lsrc, rbuf[2], rnone,
		  0);
	CHECK(!wait_msn(cq_a, 11, &st) || st == IONIC_STS_REMOTE_ACC_ERR);
	CHECK(st == IONIC_STS_REMOTE_ACC_ERR);
	CHECK(qp_query(a).state == IBV_QPS_ERR &&
	      qp_query(b).state == IBV_QPS_ERR);
	CHECK(fx_ev.qp_async == 1);

	/* A misaligned atomic is an invalid request. */
	modify(a, IBV_QPS_RESET);
	modify(b, IBV_QPS_RESET);
	bring_up(a, 41, 7, 7, 14);
	bring_up(b, 40, 7, 7, 14);
	post_atomic(a, IONIC_V2_OP_ATOMIC_FA, &result, lres,
		    (uint64_t *)((uint8_t *)atomic_target + 4), ratom, 1, 0);
	CHECK(!wait_msn(cq_a, 1, &st) || st);
	CHECK(st == IONIC_STS_REMOTE_INV_REQ_ERR);

	destroy_qp(a);
	destroy_qp(b);
	destroy_cq(cq_a);
	destroy_cq(cq_b);
}

int main(void)
{
	if (fx_start())
		return 1;
	test_rc_rdma();
	return fx_stop();
}
