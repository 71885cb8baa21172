// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-rdma, memory windows: type 1 by ibv_bind_mw, type 2 by
 * ibv_post_send and ibv_wr_bind_mw; writes through a window land in the
 * region, and after unbind, invalidation or dealloc they fail.
 */
#include "rdma.h"

/* Type 1: ibv_bind_mw on side 1's QP over side 1's region. */
static int bind1(struct fx_pair *p, struct ibv_mw *mw, uint64_t id,
		 struct ibv_mr *mr, size_t off, size_t len, int acc)
{
	struct ibv_mw_bind b = {
		.wr_id = id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { mr, mr ? va(p, 1, off) : 0, len, (unsigned)acc },
	};

	return ibv_bind_mw(p->qp[1], mw, &b);
}

void test_mw_type1(void)
{
	struct fx_pair p;
	struct ibv_mw *mw;
	uint32_t old;

	SECTION("MW type 1: ibv_bind_mw, write, unbind");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	old = mw->rkey;
	CHECK_RC(bind1(&p, mw, 21, p.mr[1], 4096, 8192,
		       IBV_ACCESS_REMOTE_WRITE),
		 0);
	CHECK_EQ(mw->rkey, ibv_inc_rkey(old));
	expect_wc(p.scq[1], 21, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);

	fx_fill(p.buf[0], 4096, 4);
	CHECK_RC(write_to(&p, 1, 0, 4096, va(&p, 1, 4096 + 100), mw->rkey), 0);
	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 4096);
	CHECK(!memcmp(p.buf[1] + 4196, p.buf[0], 4096));

	/* rebinding moves the key on; the old key is dead */
	old = mw->rkey;
	CHECK_RC(bind1(&p, mw, 22, p.mr[1], 0, 4096, IBV_ACCESS_REMOTE_WRITE),
		 0);
	CHECK_EQ(mw->rkey, ibv_inc_rkey(old));
	expect_wc(p.scq[1], 22, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	CHECK_RC(write_to(&p, 2, 0, 64, va(&p, 1, 8), mw->rkey), 0);
	expect_wc(p.scq[0], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	CHECK(!memcmp(p.buf[1] + 8, p.buf[0], 64));

	/* unbind: zero length and no region (upstream crashed:
	 * docs/upstream-defects.md D12) */
	old = mw->rkey;
	CHECK_RC(bind1(&p, mw, 23, NULL, 0, 0, 0), 0);
	CHECK_EQ(mw->rkey, old);
	expect_wc(p.scq[1], 23, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	expect_write_denied(&p, 3, va(&p, 1, 8), mw->rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	fx_pair_destroy(&p);

	SECTION("MW type 1: unbind with a region, dealloc");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	CHECK_RC(bind1(&p, mw, 24, p.mr[1], 0, 4096, IBV_ACCESS_REMOTE_WRITE),
		 0);
	expect_wc(p.scq[1], 24, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	CHECK_RC(bind1(&p, mw, 25, p.mr[1], 0, 0, 0), 0);
	expect_wc(p.scq[1], 25, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	expect_write_denied(&p, 4, va(&p, 1, 0), mw->rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	fx_pair_destroy(&p);

	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	CHECK_RC(bind1(&p, mw, 26, p.mr[1], 0, 4096, IBV_ACCESS_REMOTE_WRITE),
		 0);
	expect_wc(p.scq[1], 26, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	CHECK_RC(write_to(&p, 5, 0, 64, va(&p, 1, 0), mw->rkey), 0);
	expect_wc(p.scq[0], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	old = mw->rkey;
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	expect_write_denied(&p, 6, va(&p, 1, 0), old);
	fx_pair_destroy(&p);
}

/* Type 2 by ibv_post_send on side 1; returns the new rkey. */
static uint32_t bind2_post(struct fx_pair *p, struct ibv_mw *mw, uint64_t id,
			   size_t off, size_t len, int acc)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_BIND_MW };
	uint32_t rkey = ibv_inc_rkey(mw->rkey);

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){ p->mr[1],
							  va(p, 1, off), len,
							  (unsigned)acc };
	CHECK_RC(post(p->qp[1], &wr), 0);
	expect_wc(p->scq[1], id, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	return rkey;
}

void test_mw_type2(void)
{
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct fx_pair p;
	struct ibv_mw *mw;
	uint32_t rkey;

	SECTION("MW type 2: bind by post_send, LOCAL_INV");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	rkey = bind2_post(&p, mw, 31, 1000, 5000,
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	fx_fill(p.buf[0], 5000, 5);
	CHECK_RC(write_to(&p, 1, 0, 5000, va(&p, 1, 1000), rkey), 0);
	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 5000);
	CHECK(!memcmp(p.buf[1] + 1000, p.buf[0], 5000));
	/* a second bind of a bound type-2 window is refused by the device */

	wr = (struct ibv_send_wr){ .wr_id = 32, .opcode = IBV_WR_LOCAL_INV };
	wr.invalidate_rkey = rkey;
	CHECK_RC(post(p.qp[1], &wr), 0);
	expect_wc(p.scq[1], 32, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, 0);

	/* the free window binds again under a key the application picks;
	 * mw->rkey still holds the key it was allocated with */
	wr = (struct ibv_send_wr){ .wr_id = 33, .opcode = IBV_WR_BIND_MW };
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(rkey);
	wr.bind_mw.bind_info =
		(struct ibv_mw_bind_info){ p.mr[1], va(&p, 1, 0), 4096,
					   IBV_ACCESS_REMOTE_WRITE };
	CHECK_RC(post(p.qp[1], &wr), 0);
	expect_wc(p.scq[1], 33, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	fx_fill(p.buf[0], 64, 6);
	CHECK_RC(write_to(&p, 3, 0, 64, va(&p, 1, 0), ibv_inc_rkey(rkey)), 0);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	CHECK(!memcmp(p.buf[1], p.buf[0], 64));

	/* the key invalidated before stays dead */
	expect_write_denied(&p, 2, va(&p, 1, 1000), rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	fx_pair_destroy(&p);

	SECTION("MW type 2: ibv_wr_bind_mw, SEND_WITH_INV");
	mkpair(&p, EX_RC_OPS, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	{
		struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(p.qp[1]);
		struct ibv_mw_bind_info bi = { p.mr[1], va(&p, 1, 0), 8192,
					       IBV_ACCESS_REMOTE_WRITE };

		REQUIRE(qx);
		rkey = ibv_inc_rkey(mw->rkey);
		ibv_wr_start(qx);
		qx->wr_id = 41;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(qx, mw, rkey, &bi);
		CHECK_RC(ibv_wr_complete(qx), 0);
		expect_wc(p.scq[1], 41, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	}
	fx_fill(p.buf[0], 256, 6);
	CHECK_RC(write_to(&p, 3, 0, 256, va(&p, 1, 512), rkey), 0);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 256);
	CHECK(!memcmp(p.buf[1] + 512, p.buf[0], 256));

	/* side 0 sends with invalidate: side 1's window dies */
	sge = (struct ibv_sge){ va(&p, 1, 16384), 64, p.mr[1]->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 60,
				    .sg_list = &sge,
				    .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	{
		struct ibv_sge s = { va(&p, 0, 0), 16, p.mr[0]->lkey };

		wr = (struct ibv_send_wr){ .wr_id = 4,
					   .sg_list = &s,
					   .num_sge = 1,
					   .opcode = IBV_WR_SEND_WITH_INV };
		wr.invalidate_rkey = rkey;
		CHECK_RC(post(p.qp[0], &wr), 0);
	}
	expect_wc(p.scq[0], 4, IBV_WC_SUCCESS, IBV_WC_SEND, 16);
	fx_poll_one(p.rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 60);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, 16);
	CHECK(wc.wc_flags & IBV_WC_WITH_INV);
	CHECK_EQ(wc.invalidated_rkey, rkey);
	CHECK(!memcmp(p.buf[1] + 16384, p.buf[0], 16));
	expect_write_denied(&p, 5, va(&p, 1, 512), rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	fx_pair_destroy(&p);

	SECTION("MW type 2: window without REMOTE_WRITE, dealloc");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	rkey = bind2_post(&p, mw, 33, 0, 4096, IBV_ACCESS_LOCAL_WRITE);
	expect_write_denied(&p, 6, va(&p, 1, 0), rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	fx_pair_destroy(&p);

	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	rkey = bind2_post(&p, mw, 34, 0, 4096, IBV_ACCESS_REMOTE_WRITE);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	expect_write_denied(&p, 7, va(&p, 1, 0), rkey);
	fx_pair_destroy(&p);
}
