// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The extended send API (ibv_wr_*) through ionic-sim, RC and UD: batches
 * arrive intact, wr_abort leaves no trace (and later WRs still complete
 * correctly: producer index, MSN and colour restored, upstream
 * docs/upstream-defects.md D3), wr_complete errors (RESET QP, full SQ: upstream
 * D4, missing UD address, too many SGEs, unsupported opcode) discard the batch.
 */
#include "verbs_fixture.h"

#define TMO 5000
#define GRH 40

static struct ibv_context *ctx;
static struct ibv_pd *pd;

/* A pair whose QPs are extended QPs with SEND and SEND_WITH_IMM. */
static void xpair(struct fx_pair *p, enum ibv_qp_type t, uint32_t swr,
		  struct ibv_qp_ex *qx[2])
{
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, t);
	o.max_send_wr = 128; /* sizes the CQs; the QPs are rebuilt */
	o.sq_sig_all = 1;
	fx_pair_create(p, ctx, pd, &o, 1 << 15);
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = p->scq[i],
			.recv_cq = p->rcq[i],
			.qp_type = t,
			.sq_sig_all = 1,
			.cap = { swr, 64, 4, 4, 64 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			.send_ops_flags = IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_SEND_WITH_IMM,
		};

		CHECK_RC(ibv_destroy_qp(p->qp[i]), 0);
		p->qp[i] = ibv_create_qp_ex(ctx, &ia);
		REQUIRE(p->qp[i]);
		p->cap[i] = ia.cap;
		qx[i] = ibv_qp_to_qp_ex(p->qp[i]);
		REQUIRE(qx[i]);
	}
}

static void ud_addr(struct fx_pair *p, struct ibv_qp_ex *qx)
{
	if (p->o.type == IBV_QPT_UD)
		ibv_wr_set_ud_addr(qx, p->ah[0], p->qp[1]->qp_num, p->o.qkey);
}

static void test_batch(enum ibv_qp_type t)
{
	bool ud = t == IBV_QPT_UD;
	size_t g = ud ? GRH : 0;
	struct ibv_qp_ex *qx[2];
	struct ibv_wc wc[8];
	struct fx_pair p;
	uint8_t inl[3][20];
	struct ibv_data_buf bufs[3];
	struct ibv_sge sl[3];
	int n;

	SECTION(ud ? "UD ibv_wr_* batch" : "RC ibv_wr_* batch");
	xpair(&p, t, 32, qx);
	fx_pair_connect(&p);
	fx_fill(p.buf[0], 4096, 1);
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_recv(&p, 1, 100 + i, 4096 * i, 4096), 0);

	ibv_wr_start(qx[0]);
	/* 1: plain send, one SGE */
	qx[0]->wr_id = 1;
	qx[0]->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx[0]);
	ud_addr(&p, qx[0]);
	ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 300);
	/* 2: send with immediate, three SGEs */
	qx[0]->wr_id = 2;
	ibv_wr_send_imm(qx[0], htobe32(0xabcd));
	ud_addr(&p, qx[0]);
	for (int i = 0; i < 3; i++)
		sl[i] = (struct ibv_sge){ (uintptr_t)p.buf[0] + 1000 * i, 100,
					  p.mr[0]->lkey };
	ibv_wr_set_sge_list(qx[0], 3, sl);
	/* 3: inline list, the source changes right after */
	qx[0]->wr_id = 3;
	ibv_wr_send(qx[0]);
	ud_addr(&p, qx[0]);
	for (int i = 0; i < 3; i++) {
		memset(inl[i], 'a' + i, sizeof(inl[i]));
		bufs[i] = (struct ibv_data_buf){ inl[i], sizeof(inl[i]) };
	}
	ibv_wr_set_inline_data_list(qx[0], 3, bufs);
	CHECK_RC(ibv_wr_complete(qx[0]), 0);
	memset(inl, 0, sizeof(inl));

	n = fx_poll(p.scq[0], wc, 3, TMO);
	CHECK_EQ(n, 3);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(wc[i].wr_id, i + 1);
		CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[i].opcode, IBV_WC_SEND);
	}
	n = fx_poll(p.rcq[1], wc, 3, TMO);
	CHECK_EQ(n, 3);
	if (n == 3) {
		CHECK_EQ(wc[0].byte_len, 300 + g);
		CHECK(!memcmp(p.buf[1] + g, p.buf[0], 300));
		CHECK_EQ(wc[1].byte_len, 300 + g);
		CHECK(wc[1].wc_flags & IBV_WC_WITH_IMM);
		CHECK_EQ(wc[1].imm_data, htobe32(0xabcd));
		for (int i = 0; i < 3; i++)
			CHECK(!memcmp(p.buf[1] + 4096 + g + 100 * i,
				      p.buf[0] + 1000 * i, 100));
		CHECK_EQ(wc[2].byte_len, 60 + g);
		for (int i = 0; i < 60; i++)
			if (p.buf[1][8192 + g + i] != 'a' + i / 20) {
				check_fail(__FILE__, __LINE__, "inline byte %d",
					   i);
				break;
			}
		if (ud)
			CHECK_EQ(wc[0].src_qp, p.qp[0]->qp_num);
	}

	SECTION(ud ? "UD wr_abort leaves no trace" :
		     "RC wr_abort leaves no trace");
	for (int round = 0; round < 3; round++) {
		ibv_wr_start(qx[0]);
		for (int i = 0; i < 5; i++) {
			qx[0]->wr_id = 50 + i;
			ibv_wr_send(qx[0]);
			ud_addr(&p, qx[0]);
			ibv_wr_set_sge(qx[0], p.mr[0]->lkey,
				       (uintptr_t)p.buf[0], 10);
		}
		ibv_wr_abort(qx[0]);
		fx_expect_none(p.scq[0], 20);
		/* a real batch afterwards completes exactly */
		CHECK_RC(fx_post_recv(&p, 1, 200 + round, 0, 4096), 0);
		ibv_wr_start(qx[0]);
		qx[0]->wr_id = 60 + round;
		ibv_wr_send(qx[0]);
		ud_addr(&p, qx[0]);
		ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 33);
		CHECK_RC(ibv_wr_complete(qx[0]), 0);
		fx_poll_one(p.scq[0], wc, TMO);
		CHECK_EQ(wc[0].wr_id, 60 + round);
		CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
		fx_poll_one(p.rcq[1], wc, TMO);
		CHECK_EQ(wc[0].wr_id, 200 + round);
		CHECK_EQ(wc[0].byte_len, 33 + g);
	}

	SECTION(ud ? "UD wr_complete errors discard the batch" :
		     "RC wr_complete errors discard the batch");
	/* too many SGEs in the middle of a batch */
	{
		struct ibv_sge many[32];

		for (int i = 0; i < 32; i++)
			many[i] = (struct ibv_sge){ (uintptr_t)p.buf[0], 1,
						    p.mr[0]->lkey };
		ibv_wr_start(qx[0]);
		qx[0]->wr_id = 70;
		ibv_wr_send(qx[0]);
		ud_addr(&p, qx[0]);
		ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
		qx[0]->wr_id = 71;
		ibv_wr_send(qx[0]);
		ud_addr(&p, qx[0]);
		ibv_wr_set_sge_list(qx[0], p.cap[0].max_send_sge + 1, many);
		CHECK_RC(ibv_wr_complete(qx[0]), EINVAL);
		fx_expect_none(p.scq[0], 30);
	}
	/* the SQ holds max_send_wr: one more in a batch is ENOMEM
	 * (docs/upstream-defects.md D4) */
	ibv_wr_start(qx[0]);
	for (uint32_t i = 0; i <= p.cap[0].max_send_wr; i++) {
		qx[0]->wr_id = 1000 + i;
		ibv_wr_send(qx[0]);
		ud_addr(&p, qx[0]);
		ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
	}
	CHECK_RC(ibv_wr_complete(qx[0]), ENOMEM);
	fx_expect_none(p.scq[0], 30);
	fx_expect_none(p.rcq[1], 0);
	/* exactly max_send_wr fits */
	for (uint32_t i = 0; i < p.cap[0].max_send_wr; i++)
		CHECK_RC(fx_post_recv(&p, 1, 2000 + i, 0, 4096), 0);
	ibv_wr_start(qx[0]);
	for (uint32_t i = 0; i < p.cap[0].max_send_wr; i++) {
		qx[0]->wr_id = 3000 + i;
		ibv_wr_send(qx[0]);
		ud_addr(&p, qx[0]);
		ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
	}
	CHECK_RC(ibv_wr_complete(qx[0]), 0);
	{
		struct ibv_wc big[64];

		REQUIRE(p.cap[0].max_send_wr <= 64);
		n = fx_poll(p.scq[0], big, (int)p.cap[0].max_send_wr, TMO);
		CHECK_EQ(n, p.cap[0].max_send_wr);
		for (int i = 0; i < n; i++) {
			CHECK_EQ(big[i].wr_id, 3000 + i);
			CHECK_EQ(big[i].status, IBV_WC_SUCCESS);
		}
		CHECK_EQ(fx_poll(p.rcq[1], big, (int)p.cap[0].max_send_wr, TMO),
			 p.cap[0].max_send_wr);
	}
	if (ud) {
		/* UD without an address */
		ibv_wr_start(qx[0]);
		qx[0]->wr_id = 80;
		ibv_wr_send(qx[0]);
		ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
		CHECK_RC(ibv_wr_complete(qx[0]), EINVAL);
		fx_expect_none(p.scq[0], 30);
	} else if (qx[0]->wr_rdma_write) {
		/* an opcode the QP was not created for */
		ibv_wr_start(qx[0]);
		qx[0]->wr_id = 81;
		ibv_wr_rdma_write(qx[0], p.mr[1]->rkey, (uintptr_t)p.buf[1]);
		ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
		CHECK(ibv_wr_complete(qx[0]) != 0);
		fx_expect_none(p.scq[0], 30);
	}
	fx_pair_destroy(&p);
}

static void test_reset(void)
{
	struct ibv_qp_ex *qx[2];
	struct fx_pair p;

	SECTION("wr_complete on a RESET / INIT QP: EINVAL");
	xpair(&p, IBV_QPT_RC, 8, qx);
	ibv_wr_start(qx[0]);
	qx[0]->wr_id = 1;
	ibv_wr_send(qx[0]);
	ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
	CHECK_RC(ibv_wr_complete(qx[0]), EINVAL);
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	ibv_wr_start(qx[0]);
	qx[0]->wr_id = 2;
	ibv_wr_send(qx[0]);
	ibv_wr_set_sge(qx[0], p.mr[0]->lkey, (uintptr_t)p.buf[0], 8);
	CHECK_RC(ibv_wr_complete(qx[0]), EINVAL);
	fx_expect_none(p.scq[0], 30);
	fx_pair_destroy(&p);
}

int main(void)
{
	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	test_batch(IBV_QPT_RC);
	test_batch(IBV_QPT_UD);
	test_reset();
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
