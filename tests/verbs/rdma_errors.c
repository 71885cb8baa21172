// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-rdma, refused and failing operations: per-opcode send_flags and
 * SGE rules, RC-only opcodes on UD, send_ops_flags at creation (positive
 * errno, nothing produced); remote access errors of MRs and QPs.
 */
#include "rdma.h"

/* Invalid WRs: positive errno, *bad_wr, nothing produced. */
void test_post_errors(void)
{
	struct fx_pair p;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr;
	struct ibv_mw *mw;
	uint32_t rkey;

	SECTION("per-opcode rules of ibv_post_send");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	rkey = p.mr[1]->rkey;
	sge[0] = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
	sge[1] = (struct ibv_sge){ va(&p, 0, 8), 8, p.mr[0]->lkey };

	wr = rdma_wr(IBV_WR_RDMA_WRITE, 1, sge, 1, va(&p, 1, 0), rkey);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr = rdma_wr(IBV_WR_RDMA_READ, 1, sge, 1, va(&p, 1, 0), rkey);
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);

	wr = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 1, sge, va(&p, 1, 0), rkey,
		       1, 0);
	wr.num_sge = 2; /* exactly one SGE */
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.num_sge = 0;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.num_sge = 1;
	sge[0].length = 4; /* of exactly 8 bytes */
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	sge[0].length = 16;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	sge[0].length = 8;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);

	wr = (struct ibv_send_wr){ .wr_id = 1,
				   .opcode = IBV_WR_LOCAL_INV,
				   .send_flags = IBV_SEND_SOLICITED };
	wr.invalidate_rkey = rkey;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.opcode = IBV_WR_TSO;
	wr.send_flags = 0;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
#if IONIC_IBVERBS_RDMA_CORE >= 44 /* IBV_WR_ATOMIC_WRITE */
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
#endif
#if IONIC_IBVERBS_RDMA_CORE >= 45 /* IBV_WR_FLUSH */
	wr.opcode = IBV_WR_FLUSH;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
#endif

	/* windows: type 1 is not bound through the send queue, and a type-2
	 * window needs a length */
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	wr = (struct ibv_send_wr){ .wr_id = 1, .opcode = IBV_WR_BIND_MW };
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info =
		(struct ibv_mw_bind_info){ p.mr[1], va(&p, 1, 0), 64,
					   IBV_ACCESS_REMOTE_WRITE };
	CHECK_RC(post(p.qp[1], &wr), EINVAL);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.length = 0;
	CHECK_RC(post(p.qp[1], &wr), EINVAL);
	/* a new rkey naming another window */
	wr.bind_mw.bind_info.length = 64;
	wr.bind_mw.rkey = mw->rkey ^ 0x100;
	CHECK_RC(post(p.qp[1], &wr), EINVAL);
	{
		struct ibv_mw_bind b = {
			.wr_id = 1,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = { p.mr[1], va(&p, 1, 0), 64,
				       IBV_ACCESS_REMOTE_WRITE },
		};

		/* ibv_bind_mw is for type-1 windows only */
		CHECK(ibv_bind_mw(p.qp[1], mw, &b) != 0);
	}
	CHECK_RC(ibv_dealloc_mw(mw), 0);

	/* none of it reached the device; the QPs still work */
	fx_expect_none(p.scq[0], 20);
	fx_expect_none(p.scq[1], 20);
	fx_fill(p.buf[0], 64, 3);
	CHECK_RC(write_to(&p, 9, 0, 64, va(&p, 1, 0), rkey), 0);
	expect_wc(p.scq[0], 9, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	CHECK(!memcmp(p.buf[0], p.buf[1], 64));
	fx_pair_destroy(&p);

	SECTION("UD: SEND and SEND_WITH_IMM only");
	{
		struct fx_qp_opts o;
		static const enum ibv_wr_opcode rc_only[] = {
			IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM,
			IBV_WR_RDMA_READ,
			IBV_WR_ATOMIC_CMP_AND_SWP,
			IBV_WR_ATOMIC_FETCH_AND_ADD,
			IBV_WR_LOCAL_INV,
			IBV_WR_SEND_WITH_INV,
		};

		fx_qp_opts_default(&o, IBV_QPT_UD);
		fx_pair_create(&p, ctx, pd, &o, 4096);
		fx_pair_connect(&p);
		sge[0] = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
		for (size_t i = 0; i < sizeof(rc_only) / sizeof(rc_only[0]);
		     i++) {
			wr = rdma_wr(rc_only[i], 1, sge, 1, va(&p, 1, 0),
				     p.mr[1]->rkey);
			wr.wr.ud.ah = p.ah[0];
			CHECK_RC(post(p.qp[0], &wr), EINVAL);
		}
		fx_expect_none(p.scq[0], 20);
		fx_pair_destroy(&p);
	}
}

void test_access_errors(void)
{
	struct fx_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	SECTION("remote access errors");
	/* region without REMOTE_WRITE */
	mkpair(&p, 0, ACC_ALL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
	       QP_ACC);
	memset(p.buf[1], 0x5a, 64);
	expect_write_denied(&p, 1, va(&p, 1, 0), p.mr[1]->rkey);
	CHECK_EQ(p.buf[1][0], 0x5a);
	fx_pair_destroy(&p);

	/* responder QP without any remote access */
	mkpair(&p, 0, ACC_ALL, ACC_ALL, 0);
	memset(p.buf[1], 0x5a, 64);
	expect_write_denied(&p, 2, va(&p, 1, 0), p.mr[1]->rkey);
	CHECK_EQ(p.buf[1][0], 0x5a);
	fx_pair_destroy(&p);

	/* region without REMOTE_ATOMIC: the atomic fails, memory intact */
	mkpair(&p, 0, ACC_ALL, ACC_ALL & ~IBV_ACCESS_REMOTE_ATOMIC, QP_ACC);
	*(uint64_t *)p.buf[1] = 42;
	sge = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
	wr = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 3, &sge, va(&p, 1, 0),
		       p.mr[1]->rkey, 1, 0);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 3, IBV_WC_REM_ACCESS_ERR, IBV_WC_FETCH_ADD, 0);
	CHECK_EQ(*(uint64_t *)p.buf[1], 42);
	fx_pair_destroy(&p);

	/* a READ with a wrong rkey */
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	sge = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
	wr = rdma_wr(IBV_WR_RDMA_READ, 4, &sge, 1, va(&p, 1, 0),
		     p.mr[1]->rkey + 0x100);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 4, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ, 0);
	fx_pair_destroy(&p);
}
