// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-soak: the churn thread (see soak.h).  One cycle creates every kind
 * of object - a context now and then, PD, MR, memory window, CQ (with a
 * completion channel every other time), an RC QP brought to RTS toward
 * itself, a UD QP and an address handle - sends one message around the
 * RC loop, checks it, and destroys everything again, in another order
 * each time.  Whatever a cycle leaks shows in the fd, mapping and memory
 * counts the main thread samples.
 */
#include "soak.h"

static void churn_cycle(struct soak_run *run, uint64_t *rng)
{
	bool own_ctx = soak_rand(rng) % 8 == 0;
	struct ibv_context *ctx = own_ctx ? fx_open() : run->ctx;
	struct ibv_comp_channel *ch = NULL;
	struct ibv_qp *rc, *ud;
	struct fx_qp_opts o;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_cq *cq;
	struct ibv_ah *ah;
	union ibv_gid gid;
	struct ibv_wc wc;
	uint8_t *buf;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	REQUIRE_EQ(ibv_query_gid(ctx, 1, 1, &gid), 0);
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	buf = aligned_alloc(4096, 8192);
	REQUIRE(buf);
	memset(buf, 0, 8192);
	mr = ibv_reg_mr(pd, buf, 8192,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_MW_BIND);
	REQUIRE(mr);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	if (soak_rand(rng) % 2) {
		ch = ibv_create_comp_channel(ctx);
		REQUIRE(ch);
	}
	cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	REQUIRE(cq);
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { 4, 4, 1, 1, 0 },
		};

		rc = ibv_create_qp(pd, &ia);
		REQUIRE(rc);
		ia.qp_type = IBV_QPT_UD;
		ud = ibv_create_qp(pd, &ia);
		REQUIRE(ud);
	}
	ah = fx_make_ah(pd, &gid);
	REQUIRE(ah);

	/* one message around the RC loop */
	REQUIRE_EQ(fx_rc_to_init(rc), 0);
	REQUIRE_EQ(fx_rc_to_rtr(rc, &gid, rc->qp_num, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(rc, &o), 0);
	{
		struct ibv_sge s = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_sge r = { (uintptr_t)buf + 4096, 64, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1,
					   .sg_list = &r,
					   .num_sge = 1 },
				   *rbad;
		struct ibv_send_wr wr = { .wr_id = 2,
					  .sg_list = &s,
					  .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED },
				   *bad;

		fx_fill(buf, 64, (unsigned int)soak_rand(rng));
		REQUIRE_EQ(ibv_post_recv(rc, &rwr, &rbad), 0);
		REQUIRE_EQ(ibv_post_send(rc, &wr, &bad), 0);
		for (int i = 0; i < 2; i++) {
			fx_poll_one(cq, &wc, SOAK_TMO);
			CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		}
		CHECK(!memcmp(buf, buf + 4096, 64));
	}

	/* QPs and AH first, then the rest, the order of the two QPs and of
	 * MW/MR varying */
	if (soak_rand(rng) % 2) {
		CHECK_RC(ibv_destroy_qp(rc), 0);
		CHECK_RC(ibv_destroy_qp(ud), 0);
	} else {
		CHECK_RC(ibv_destroy_qp(ud), 0);
		CHECK_RC(ibv_destroy_qp(rc), 0);
	}
	CHECK_RC(ibv_destroy_ah(ah), 0);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	if (ch)
		CHECK_RC(ibv_destroy_comp_channel(ch), 0);
	if (soak_rand(rng) % 2) {
		CHECK_RC(ibv_dealloc_mw(mw), 0);
		CHECK_RC(ibv_dereg_mr(mr), 0);
	} else {
		CHECK_RC(ibv_dereg_mr(mr), 0);
		CHECK_RC(ibv_dealloc_mw(mw), 0);
	}
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	free(buf);
	if (own_ctx)
		CHECK_RC(ibv_close_device(ctx), 0);
}

void soak_churn_epoch(struct soak_run *run, struct soak_stats *st)
{
	static uint64_t rng = 0xc4u;

	while (fx_now_ms() < run->end_ms && !check_failures()) {
		churn_cycle(run, &rng);
		st->churn++;
	}
}
