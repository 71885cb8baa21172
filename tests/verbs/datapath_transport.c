// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-datapath, transport errors: RNR and transport retries exhausted
 * (RC), wrong qkeys, unknown QPs and oversized messages (UD).
 */
#include "datapath.h"

void test_rnr(void)
{
	static const uint8_t counts[] = { 0, 1, 3, 6 };
	struct ibv_wc wc;

	for (unsigned int k = 0; k < sizeof(counts); k++) {
		struct fx_qp_opts o;
		struct fx_pair p;
		uint64_t t0;
		char name[64];

		snprintf(name, sizeof(name), "RNR retry %u exhausted",
			 counts[k]);
		SECTION(name);
		fx_qp_opts_default(&o, IBV_QPT_RC);
		o.rnr_retry = counts[k];
		o.min_rnr_timer = 1; /* 0.01 ms */
		fx_pair_create(&p, ctx, pd, &o, 4096);
		fx_pair_connect(&p);
		t0 = fx_now_ms();
		CHECK_RC(fx_post_send(&p, 0, 77, 0, 16, IBV_SEND_SIGNALED,
				      false, 0),
			 0);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, 77, IBV_WC_RNR_RETRY_EXC_ERR, 0, "rnr");
		CHECK(fx_now_ms() - t0 < TMO);
		fx_expect_none(p.rcq[1], 0);
		fx_pair_destroy(&p);
	}
}

void test_retry_exceeded(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION("peer QP destroyed: RETRY_EXC_ERR");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 1; /* the emulator clamps to 10 ms */
	o.retry_cnt = 1;
	fx_pair_create(&p, ctx, pd, &o, 4096);
	fx_pair_connect(&p);
	CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
	p.qp[1] = NULL;
	CHECK_RC(fx_post_send(&p, 0, 88, 0, 16, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 88, IBV_WC_RETRY_EXC_ERR, 0, "peer gone");
	fx_pair_destroy(&p);

	SECTION("peer never connected (RESET): RETRY_EXC_ERR");
	fx_pair_create(&p, ctx, pd, &o, 4096);
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, p.qp[1]->qp_num, &o), 0);
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), 0);
	CHECK_RC(fx_post_send(&p, 0, 89, 0, 16, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 89, IBV_WC_RETRY_EXC_ERR, 0, "peer in RESET");
	fx_expect_none(p.rcq[1], 0);
	fx_pair_destroy(&p);

	SECTION("QP number that does not exist: RETRY_EXC_ERR");
	fx_pair_create(&p, ctx, pd, &o, 4096);
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, 0xfffff0, &o), 0);
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), 0);
	CHECK_RC(fx_post_send(&p, 0, 90, 0, 16, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 90, IBV_WC_RETRY_EXC_ERR, 0, "no such QP");
	fx_pair_destroy(&p);
}

void test_ud_qkey(void)
{
	struct fx_pair p;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;

	SECTION("UD wrong qkey: no receive completion");
	pair(&p, IBV_QPT_UD, 1, 4096);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, 512), 0);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 32, p.mr[0]->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 2,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	};
	wr.wr.ud.ah = p.ah[0];
	wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
	wr.wr.ud.remote_qkey = p.o.qkey ^ 0x1;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, "wrong qkey send");
	fx_expect_none(p.rcq[1], 300);
	/* the right qkey is received, by the same receive WR */
	wr.wr_id = 3;
	wr.wr.ud.remote_qkey = p.o.qkey;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 3, IBV_WC_SUCCESS, IBV_WC_SEND, "right qkey send");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV, "right qkey recv");
	CHECK_EQ(wc.byte_len, GRH + 32);

	SECTION("UD to a QP number that does not exist: sender succeeds");
	wr.wr_id = 4;
	wr.wr.ud.remote_qpn = 0xfffff0;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 4, IBV_WC_SUCCESS, IBV_WC_SEND, "UD to nowhere");

	SECTION("UD message larger than the path MTU: refused, nothing arrives");
	{
		struct ibv_sge big = { (uintptr_t)p.buf[0], 2000,
				       p.mr[0]->lkey };
		int rc;

		CHECK_RC(fx_post_recv(&p, 1, 6, 0, 4096), 0);
		wr.wr_id = 5;
		wr.sg_list = &big;
		wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
		bad = NULL;
		rc = ibv_post_send(p.qp[0], &wr, &bad);
		if (rc) {
			CHECK_EQ(rc, EINVAL);
		} else {
			fx_poll_one(p.scq[0], &wc, TMO);
			check_wc(&wc, 5, IBV_WC_LOC_LEN_ERR, 0, "UD > MTU");
		}
		fx_expect_none(p.rcq[1], 200);
		wr.sg_list = &sge;
	}

	SECTION("UD post without AH: EINVAL");
	wr.wr.ud.ah = NULL;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	SECTION("UD RDMA WRITE: EINVAL");
	wr.wr.ud.ah = p.ah[0];
	wr.opcode = IBV_WR_RDMA_WRITE;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	fx_expect_none(p.scq[0], 20);
	fx_pair_destroy(&p);
}
