// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The ionic direct-verbs API on real ionic objects under ionic-sim.
 *
 *   verbs-dv --udma N [--expdb Q] [--udma-shift S]
 *     N   pipeline count the run's firmware reports (1 or 2)
 *     Q   expdb_qtypes of the run (bit 0 SQ, bit 1 RQ; default 0)
 *     S   the run's udma_shift: a QP number's pipeline is bit S
 *         (docs/kernel-contract.md §15; default 4, the emulator's default)
 */
#include <infiniband/ionic_dv.h>

#include "verbs_fixture.h"

#define TMO 5000

static struct ibv_context *ctx;
static int udma = 2, expdb, shift = 4;

static unsigned int pipeline_of(const struct ibv_qp *qp)
{
	return (qp->qp_num >> shift) & 1;
}

/* A connected RC pair on 'pd' passes one message each way. */
static void pair_traffic(struct ibv_pd *pd, int want_pipe)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, ctx, pd, &o, 4096);
	if (want_pipe >= 0) {
		CHECK_EQ(pipeline_of(p.qp[0]), want_pipe);
		CHECK_EQ(pipeline_of(p.qp[1]), want_pipe);
	}
	fx_pair_connect(&p);
	for (int i = 0; i < 2; i++) {
		fx_fill(p.buf[i], 777, (unsigned int)i + 5);
		CHECK_RC(fx_post_recv(&p, !i, 10 + i, 1024, 1024), 0);
		CHECK_RC(fx_post_send(&p, i, 20 + i, 0, 777, IBV_SEND_SIGNALED,
				      false, 0),
			 0);
		fx_poll_one(p.scq[i], &wc, TMO);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		fx_poll_one(p.rcq[!i], &wc, TMO);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.byte_len, 777);
		CHECK(!memcmp(p.buf[!i] + 1024, p.buf[i], 777));
	}
	fx_pair_destroy(&p);
}

static void test_ctx(void)
{
	SECTION("context pipeline count and mask");
	CHECK_EQ(ionic_dv_ctx_get_udma_count(ctx), udma);
	CHECK_EQ(ionic_dv_ctx_get_udma_mask(ctx), (1 << udma) - 1);
}

static void test_pd_mask(void)
{
	uint8_t all = (uint8_t)((1 << udma) - 1);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);

	SECTION("PD udma mask get/set");
	REQUIRE(pd);
	CHECK_EQ(ionic_dv_pd_get_udma_mask(pd), all);
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0x1), 0);
	CHECK_EQ(ionic_dv_pd_get_udma_mask(pd), 0x1);
	/* bits outside the device's pipelines: EINVAL, mask unchanged */
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, (uint8_t)(all + 1)), EINVAL);
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0x80), EINVAL);
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0xff), EINVAL);
	CHECK_EQ(ionic_dv_pd_get_udma_mask(pd), 0x1);
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, all), 0);
	CHECK_EQ(ionic_dv_pd_get_udma_mask(pd), all);
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0), 0);
	CHECK_EQ(ionic_dv_pd_get_udma_mask(pd), 0);

	SECTION("parent domain inherits and has its own mask");
	{
		struct ibv_parent_domain_init_attr pa = { .pd = pd };
		struct ibv_pd *par;

		CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0x1), 0);
		par = ibv_alloc_parent_domain(ctx, &pa);
		REQUIRE(par);
		CHECK_EQ(ionic_dv_pd_get_udma_mask(par), 0x1);
		CHECK_RC(ionic_dv_pd_set_udma_mask(par, all), 0);
		CHECK_EQ(ionic_dv_pd_get_udma_mask(par), all);
		CHECK_EQ(ionic_dv_pd_get_udma_mask(pd), 0x1);

		SECTION("mask 0: CQ creation on that parent domain fails");
		CHECK_RC(ionic_dv_pd_set_udma_mask(par, 0), 0);
		{
			struct ibv_cq_init_attr_ex ca = {
				.cqe = 16,
				.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
				.parent_domain = par,
			};
			struct ibv_cq_ex *cq;

			CHECK_NULL_ERRNO(ibv_create_cq_ex(ctx, &ca), EINVAL);
			/* with a pipeline it works */
			CHECK_RC(ionic_dv_pd_set_udma_mask(par, 0x1), 0);
			cq = ibv_create_cq_ex(ctx, &ca);
			CHECK(cq);
			if (cq)
				CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)),
					 0);
		}
		CHECK_RC(ibv_dealloc_pd(par), 0);
	}

	SECTION("mask 0: QPs take any pipeline, traffic flows");
	CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0), 0);
	pair_traffic(pd, -1);

	SECTION("QPs land on the PD's pipeline, traffic flows");
	for (int u = 0; u < udma; u++) {
		CHECK_RC(ionic_dv_pd_set_udma_mask(pd, (uint8_t)(1 << u)), 0);
		/* several creations: the kernel alternates its preference */
		for (int k = 0; k < 3; k++)
			pair_traffic(pd, u);
	}

	if (udma == 2) {
		SECTION("QP on pipeline 0 talks to QP on pipeline 1");
		struct ibv_pd *pd1 = ibv_alloc_pd(ctx);
		struct fx_qp_opts o;
		struct fx_pair p;
		struct ibv_wc wc;

		REQUIRE(pd1);
		fx_qp_opts_default(&o, IBV_QPT_RC);
		CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0x1), 0);
		fx_pair_create(&p, ctx, pd, &o, 4096);
		/* rebuild QP 1 on pipeline 1 */
		CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
		CHECK_RC(ionic_dv_pd_set_udma_mask(pd1, 0x2), 0);
		{
			struct ibv_qp_init_attr ia = {
				.send_cq = p.scq[1],
				.recv_cq = p.rcq[1],
				.qp_type = IBV_QPT_RC,
				.cap = { 8, 8, 1, 1, 0 },
			};

			p.qp[1] = ibv_create_qp(pd1, &ia);
			REQUIRE(p.qp[1]);
		}
		CHECK_EQ(pipeline_of(p.qp[0]), 0);
		CHECK_EQ(pipeline_of(p.qp[1]), 1);
		fx_pair_connect(&p);
		fx_fill(p.buf[0], 500, 3);
		/* qp[1] has no MR of its own PD: use the UD-free path via
		 * an MR on pd1 */
		{
			struct ibv_mr *mr1 = ibv_reg_mr(pd1, p.buf[1], 4096,
							IBV_ACCESS_LOCAL_WRITE);
			struct ibv_sge sge = { (uintptr_t)p.buf[1], 4096, 0 };
			struct ibv_recv_wr rwr = { .wr_id = 1,
						   .sg_list = &sge,
						   .num_sge = 1 },
					   *rbad;

			REQUIRE(mr1);
			sge.lkey = mr1->lkey;
			CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
			CHECK_RC(fx_post_send(&p, 0, 2, 0, 500,
					      IBV_SEND_SIGNALED, false, 0),
				 0);
			fx_poll_one(p.scq[0], &wc, TMO);
			CHECK_EQ(wc.status, IBV_WC_SUCCESS);
			fx_poll_one(p.rcq[1], &wc, TMO);
			CHECK_EQ(wc.status, IBV_WC_SUCCESS);
			CHECK_EQ(wc.byte_len, 500);
			CHECK(!memcmp(p.buf[0], p.buf[1], 500));
			CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
			p.qp[1] = NULL;
			CHECK_RC(ibv_dereg_mr(mr1), 0);
		}
		fx_pair_destroy(&p);

		SECTION("QP whose pipelines miss its CQ's: fails");
		{
			struct ibv_parent_domain_init_attr pa = { .pd = pd };
			struct ibv_pd *par;
			struct ibv_cq_init_attr_ex ca = {
				.cqe = 16,
				.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
			};
			struct ibv_cq_ex *cq0;
			struct ibv_qp *qp;

			CHECK_RC(ionic_dv_pd_set_udma_mask(pd, 0x1), 0);
			par = ibv_alloc_parent_domain(ctx, &pa);
			REQUIRE(par);
			ca.parent_domain = par;
			cq0 = ibv_create_cq_ex(ctx, &ca); /* pipeline 0 only */
			REQUIRE(cq0);
			{
				struct ibv_qp_init_attr ia = {
					.send_cq = ibv_cq_ex_to_cq(cq0),
					.recv_cq = ibv_cq_ex_to_cq(cq0),
					.qp_type = IBV_QPT_RC,
					.cap = { 8, 8, 1, 1, 0 },
				};

				/* pd1 allows pipeline 1 only */
				errno = 0;
				qp = ibv_create_qp(pd1, &ia);
				CHECK(!qp);
				if (qp)
					ibv_destroy_qp(qp);
				else
					CHECK_EQ(errno, EINVAL);
				/* pd (pipeline 0) fits */
				qp = ibv_create_qp(pd, &ia);
				CHECK(qp);
				if (qp) {
					CHECK_EQ(pipeline_of(qp), 0);
					CHECK_RC(ibv_destroy_qp(qp), 0);
				}
			}
			CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cq0)), 0);
			CHECK_RC(ibv_dealloc_pd(par), 0);
		}
		CHECK_RC(ibv_dealloc_pd(pd1), 0);
	}
	CHECK_RC(ibv_dealloc_pd(pd), 0);
}

static void test_cmb(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);

	SECTION("set_sqcmb / set_rqcmb rules");
	REQUIRE(pd);
	for (int q = 0; q < 2; q++) {
		int (*set)(struct ibv_pd *, bool, bool, bool) =
			q ? ionic_dv_pd_set_rqcmb : ionic_dv_pd_set_sqcmb;
		bool has = expdb & (1 << q);

		CHECK_RC(set(pd, false, false, false), 0);
		CHECK_RC(set(pd, false, true, true), 0);
		CHECK_RC(set(pd, true, false, false), 0);
		CHECK_RC(set(pd, true, false, true), 0);
		/* expdb as a wish: dropped if unavailable */
		CHECK_RC(set(pd, true, true, false), 0);
		/* expdb required without the capability: EINVAL */
		CHECK_RC(set(pd, true, true, true), has ? 0 : EINVAL);
	}

	SECTION("QPs still work after CMB preferences (rings may stay in host memory)");
	CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, true, false), 0);
	CHECK_RC(ionic_dv_pd_set_rqcmb(pd, true, true, false), 0);
	pair_traffic(pd, -1);
	CHECK_RC(ionic_dv_pd_set_sqcmb(pd, false, false, false), 0);
	CHECK_RC(ionic_dv_pd_set_rqcmb(pd, false, false, false), 0);
	pair_traffic(pd, -1);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--udma") && i + 1 < argc)
			udma = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--expdb") && i + 1 < argc)
			expdb = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--udma-shift") && i + 1 < argc)
			shift = atoi(argv[++i]);
		else
			check_fatal(__FILE__, __LINE__, "bad argument %s",
				    argv[i]);
	}
	ctx = fx_open();
	test_ctx();
	test_pd_mask();
	test_cmb();
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
