// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-datapath, posting refused: post_send in a state that cannot send,
 * too many SGEs, a full SQ or RQ; errno and *bad_wr, nothing posted.
 */
#include "datapath.h"

void test_post_state(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr, wr2, *bad;
	struct ibv_recv_wr rwr, *rbad;

	SECTION("post_send in RESET/INIT/RTR: EINVAL, *bad_wr == wr");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, ctx, pd, &o, 4096);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 16, p.mr[0]->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 1,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED,
				   .next = &wr2 };
	wr2 = wr;
	wr2.next = NULL;
	rwr = (struct ibv_recv_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1 };

	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[0], &rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr);

	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_RC(fx_rc_to_init(p.qp[1]), 0);
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	/* receives are fine from INIT on */
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	CHECK(rbad == NULL);

	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, p.qp[1]->qp_num, &o), 0);
	CHECK_RC(fx_rc_to_rtr(p.qp[1], &p.gid, p.qp[0]->qp_num, &o), 0);
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	fx_expect_none(p.scq[0], 20);

	/* NULL bad_wr is refused too */
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), 0);
	CHECK_RC(fx_rc_to_rts(p.qp[1], &o), 0);
	CHECK_RC(ibv_post_send(p.qp[0], &wr2, NULL), EINVAL);

	/* and now it works; the receive posted in INIT is used */
	{
		struct ibv_wc wc;

		bad = NULL;
		CHECK_RC(ibv_post_send(p.qp[0], &wr2, &bad), 0);
		CHECK(bad == NULL);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, "after RTS");
		fx_poll_one(p.rcq[1], &wc, TMO);
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV, "recv from INIT");
	}
	fx_pair_destroy(&p);
}

void test_too_many_sge(enum ibv_qp_type t)
{
	struct fx_pair p;
	struct ibv_sge sge[64];
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;

	SECTION("too many SGEs: EINVAL, *bad_wr == wr");
	pair(&p, t, 1, 4096);
	for (int i = 0; i < 64; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[0] + i, 1,
					   p.mr[0]->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 1,
				   .sg_list = sge,
				   .num_sge = (int)p.cap[0].max_send_sge + 1,
				   .opcode = IBV_WR_SEND };
	if (t == IBV_QPT_UD) {
		wr.wr.ud.ah = p.ah[0];
		wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
		wr.wr.ud.remote_qkey = p.o.qkey;
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	rwr = (struct ibv_recv_wr){ .wr_id = 1,
				    .sg_list = sge,
				    .num_sge = (int)p.cap[1].max_recv_sge + 1 };
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr);
	fx_expect_none(p.scq[0], 20);
	fx_expect_none(p.rcq[1], 0);
	/* the QP is still usable */
	CHECK_RC(fx_post_recv(&p, 1, 5, 0, 4096), 0);
	CHECK_RC(fx_post_send(&p, 0, 6, 0, 8, 0, false, 0), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 6, IBV_WC_SUCCESS, IBV_WC_SEND, "after bad sge");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RECV, "after bad sge");
	fx_pair_destroy(&p);
}

void test_full_queues(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr *wrs, *bad;
	struct ibv_recv_wr *rwrs, *rbad;
	struct ibv_wc wc[256];
	uint32_t sq, rq;
	int n;

	SECTION("full SQ: ENOMEM at max_send_wr + 1; full RQ likewise");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.max_send_wr = 16;
	o.max_recv_wr = 100;
	o.sq_sig_all = 1;
	fx_pair_create(&p, ctx, pd, &o, 4096);
	fx_pair_connect(&p);
	sq = p.cap[0].max_send_wr;
	rq = p.cap[1].max_recv_wr;
	CHECK_GE(sq, 16);
	CHECK_GE(rq, 100);
	REQUIRE(sq < 200 && rq < 200);

	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 8, p.mr[0]->lkey };
	rwrs = calloc(rq + 1, sizeof(*rwrs));
	wrs = calloc(sq + 1, sizeof(*wrs));
	REQUIRE(rwrs && wrs);
	for (uint32_t i = 0; i <= rq; i++) {
		rwrs[i].wr_id = 500 + i;
		rwrs[i].sg_list = &sge;
		rwrs[i].num_sge = 1;
		rwrs[i].next = i < rq ? &rwrs[i + 1] : NULL;
	}
	/* receive sge may use buf[1]'s key: post on qp[1] */
	{
		struct ibv_sge rs = { (uintptr_t)p.buf[1], 64, p.mr[1]->lkey };

		for (uint32_t i = 0; i <= rq; i++)
			rwrs[i].sg_list = &rs;
		rbad = NULL;
		CHECK_RC(ibv_post_recv(p.qp[1], rwrs, &rbad), ENOMEM);
		CHECK(rbad == &rwrs[rq]);
	}
	for (uint32_t i = 0; i <= sq; i++) {
		wrs[i].wr_id = i;
		wrs[i].sg_list = &sge;
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_SEND;
		wrs[i].next = i < sq ? &wrs[i + 1] : NULL;
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], wrs, &bad), ENOMEM);
	CHECK(bad == &wrs[sq]);
	/* the WRs before the failing one were posted and complete once each */
	n = fx_poll(p.scq[0], wc, (int)sq, TMO);
	CHECK_EQ(n, sq);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_SEND,
			 "full sq");
	n = fx_poll(p.rcq[1], wc, (int)sq, TMO);
	CHECK_EQ(n, sq);
	fx_expect_none(p.scq[0], 30);
	/* after reaping there is room again */
	bad = NULL;
	wrs[sq].next = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wrs[sq], &bad), 0);
	fx_poll(p.scq[0], wc, 1, TMO);
	check_wc(&wc[0], sq, IBV_WC_SUCCESS, IBV_WC_SEND, "after full");
	free(wrs);
	free(rwrs);
	fx_pair_destroy(&p);
}
