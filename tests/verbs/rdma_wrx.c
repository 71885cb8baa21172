// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-rdma, the extended send API (ibv_wr_*): every RC opcode, and the
 * opcodes the QP was not created for.
 */
#include <arpa/inet.h>

#include "rdma.h"

/* Every RC builder of the extended API, in one batch where possible. */
void test_wrx(void)
{
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_qp_ex *qx;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct fx_pair p;
	uint64_t *res, *tgt;
	uint32_t rkey;

	SECTION("ibv_wr_*: RDMA and atomic builders");
	mkpair(&p, EX_RC_OPS, ACC_ALL, ACC_ALL, QP_ACC);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	REQUIRE(qx);
	rkey = p.mr[1]->rkey;
	fx_fill(p.buf[0], 8192, 7);
	fx_fill(p.buf[1], BUF, 8);
	res = (uint64_t *)(p.buf[0] + 65536);
	tgt = (uint64_t *)(p.buf[1] + 65536);
	*tgt = 100;

	sge = (struct ibv_sge){ va(&p, 1, 0), 16, p.mr[1]->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 70,
				    .sg_list = &sge,
				    .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);

	ibv_wr_start(qx);
	qx->wr_flags = 0;
	qx->wr_id = 1;
	ibv_wr_rdma_write(qx, rkey, va(&p, 1, 4096));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 0), 3000);
	qx->wr_id = 2;
	ibv_wr_rdma_write(qx, rkey, va(&p, 1, 8000));
	ibv_wr_set_inline_data(qx, p.buf[0] + 3000, 33);
	qx->wr_id = 3;
	ibv_wr_rdma_write_imm(qx, rkey, va(&p, 1, 9000), htonl(1234));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 4000), 2000);
	qx->wr_id = 4;
	ibv_wr_rdma_read(qx, rkey, va(&p, 1, 20000));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 30000), 5000);
	qx->wr_id = 5;
	ibv_wr_rdma_read(qx, rkey, va(&p, 1, 0));
	ibv_wr_set_sge_list(qx, 0, NULL);
	qx->wr_id = 6;
	ibv_wr_atomic_fetch_add(qx, rkey, (uintptr_t)tgt, 11);
	ibv_wr_set_sge(qx, p.mr[0]->lkey, (uintptr_t)res, 8);
	qx->wr_id = 7;
	ibv_wr_atomic_cmp_swp(qx, rkey, (uintptr_t)tgt, 111, 7777);
	ibv_wr_set_sge(qx, p.mr[0]->lkey, (uintptr_t)(res + 1), 8);
	CHECK_RC(ibv_wr_complete(qx), 0);

	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 3000);
	expect_wc(p.scq[0], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 33);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 2000);
	expect_wc(p.scq[0], 4, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 5000);
	expect_wc(p.scq[0], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 0);
	expect_wc(p.scq[0], 6, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 8);
	expect_wc(p.scq[0], 7, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
	CHECK(!memcmp(p.buf[1] + 4096, p.buf[0], 3000));
	CHECK(!memcmp(p.buf[1] + 8000, p.buf[0] + 3000, 33));
	CHECK(!memcmp(p.buf[1] + 9000, p.buf[0] + 4000, 2000));
	CHECK(!memcmp(p.buf[0] + 30000, p.buf[1] + 20000, 5000));
	CHECK_EQ(res[0], 100);
	CHECK_EQ(res[1], 111);
	CHECK_EQ(*tgt, 7777);
	fx_poll_one(p.rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(ntohl(wc.imm_data), 1234);
	CHECK_EQ(wc.byte_len, 2000);

	SECTION("ibv_wr_*: errors discard the batch");
	/* an atomic with a 4-byte SGE, after a good WRITE */
	memset(p.buf[1] + 100, 0x33, 16);
	ibv_wr_start(qx);
	qx->wr_id = 8;
	ibv_wr_rdma_write(qx, rkey, va(&p, 1, 100));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 0), 16);
	ibv_wr_atomic_fetch_add(qx, rkey, (uintptr_t)tgt, 1);
	ibv_wr_set_sge(qx, p.mr[0]->lkey, (uintptr_t)res, 4);
	CHECK_RC(ibv_wr_complete(qx), EINVAL);
	/* READ with inline data */
	ibv_wr_start(qx);
	ibv_wr_rdma_read(qx, rkey, va(&p, 1, 100));
	ibv_wr_set_inline_data(qx, p.buf[0], 8);
	CHECK_RC(ibv_wr_complete(qx), EINVAL);
	/* builders the device has no opcode for, in the releases that have
	 * them (the ibv_qp_ex slots of newer releases) */
#if IONIC_IBVERBS_RDMA_CORE >= 44
	ibv_wr_start(qx);
	ibv_wr_atomic_write(qx, rkey, va(&p, 1, 100), p.buf[0]);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
#endif
#if IONIC_IBVERBS_RDMA_CORE >= 45
	ibv_wr_start(qx);
	ibv_wr_flush(qx, rkey, va(&p, 1, 100), 8, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
#endif
	ibv_wr_start(qx);
	ibv_wr_send_tso(qx, p.buf[0], 8, 64);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
	fx_expect_none(p.scq[0], 30);
	CHECK_EQ(p.buf[1][100], 0x33);
	fx_pair_destroy(&p);

	SECTION("ibv_wr_*: only the operations of send_ops_flags");
	mkpair(&p, IBV_QP_EX_WITH_SEND, ACC_ALL, ACC_ALL, QP_ACC);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	ibv_wr_start(qx);
	ibv_wr_rdma_write(qx, p.mr[1]->rkey, va(&p, 1, 0));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 0), 8);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
	fx_expect_none(p.scq[0], 20);
	fx_pair_destroy(&p);

	SECTION("send_ops_flags at creation");
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_RC,
			.cap = { 8, 8, 1, 1, 0 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			.send_ops_flags = EX_RC_OPS,
		};
		struct ibv_qp *qp;

		REQUIRE(cq);
		ia.send_cq = ia.recv_cq = cq;
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
#if IONIC_IBVERBS_RDMA_CORE >= 44
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_ATOMIC_WRITE;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
#endif
#if IONIC_IBVERBS_RDMA_CORE >= 45
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_FLUSH;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
#endif
		ia.send_ops_flags = IBV_QP_EX_WITH_TSO;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
		ia.qp_type = IBV_QPT_UD;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_SEND_WITH_IMM;
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_WRITE;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
		CHECK_RC(ibv_destroy_cq(cq), 0);
	}
}
