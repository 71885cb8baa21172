// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Creation with ionic attributes under ionic-sim (docs/gpu-direct-verbs.md
 * §2.3, §2.4, §3, §5, §6): ionic_dv_create_cq_ex (ring mode works, CCQE
 * and unknown bits refused), ionic_dv_create_qp_ex (RCCL's vendor flags
 * accepted, what the kernel ABI cannot carry refused), and the vendor
 * bits RCCL and its network plugin put in sq_sig_all: bit 0 alone decides
 * whether every request is signalled.
 */
#include "dv_link.h"

#define TMO 5000

static struct ibv_context *ctx, *ctx2;
static struct ibv_pd *pd, *pd2;

static void test_cq(void)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 64 };
	struct ionic_cq_init_attr_ex ia = { 0 };
	struct ibv_cq_ex *cq;

	SECTION("ionic_dv_create_cq_ex: ring mode");
	cq = ionic_dv_create_cq_ex(ctx, &ca, NULL);
	REQUIRE(cq);
	CHECK_EQ(ionic_dv_cq_get_udma_mask(ibv_cq_ex_to_cq(cq)),
		 ionic_dv_ctx_get_udma_mask(ctx));
	CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	/* an empty ionic attribute (rocm-xio) and FLAGS with no flag */
	cq = ionic_dv_create_cq_ex(ctx, &ca, &ia);
	CHECK(cq);
	if (cq)
		CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	ia.comp_mask = IONIC_CQ_INIT_ATTR_MASK_FLAGS;
	cq = ionic_dv_create_cq_ex(ctx, &ca, &ia);
	CHECK(cq);
	if (cq)
		CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);

	SECTION("ionic_dv_create_cq_ex: refused");
	/* compact CQEs: the kernel ABI cannot ask for them */
	ia.flags = IONIC_CQ_INIT_ATTR_CCQE;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EOPNOTSUPP);
	ca.cqe = 1; /* MORI's CCQE size */
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EOPNOTSUPP);
	ca.cqe = 64;
	ia.flags = 1u << 1;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EOPNOTSUPP);
	ia.flags = 0;
	ia.comp_mask = 1u << 1;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EOPNOTSUPP);
	/* what ibv_create_cq_ex refuses */
	ia.comp_mask = 0;
	ca.wc_flags = IBV_WC_EX_WITH_TM_INFO;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EOPNOTSUPP);
	ca.wc_flags = 0;
	ca.comp_mask = 1u << 7; /* no such ibv_cq_init_attr_mask bit */
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EOPNOTSUPP);
	ca.comp_mask = 0;
	ca.cqe = 0;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EINVAL);
	/* the ring holds cqe + 100 (the grace) and indexes are 16-bit */
	ca.cqe = 0xffff - 100 + 1;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, &ia), EINVAL);
	ca.cqe = 64;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, NULL, &ia), EINVAL);
	/* a parent domain of another context */
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = pd2;
	CHECK_NULL_ERRNO(ionic_dv_create_cq_ex(ctx, &ca, NULL), EINVAL);
}

/* One SEND each way between qp and a fresh peer: the QP works. */
static void check_works(struct ibv_qp *qp, struct ibv_cq *cq)
{
	struct dvl_opts o = { .udma = 0, .depth = 8, .buf_len = 4096 };
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .sg_list = &sge,
				  .num_sge = 1 },
			   *bad;
	struct dvl_link l;
	struct ibv_wc wc;

	/* a link only for its peer and buffers; its own QP stays idle */
	dvl_create(&l, ctx, pd, &o);
	REQUIRE_EQ(fx_rc_to_init(qp), 0);
	{
		struct fx_qp_opts ho;

		fx_qp_opts_default(&ho, IBV_QPT_RC);
		REQUIRE_EQ(fx_rc_to_init(l.peer), 0);
		REQUIRE_EQ(fx_rc_to_rtr(qp, &l.gid, l.peer->qp_num, &ho), 0);
		REQUIRE_EQ(fx_rc_to_rtr(l.peer, &l.gid, qp->qp_num, &ho), 0);
		REQUIRE_EQ(fx_rc_to_rts(qp, &ho), 0);
		REQUIRE_EQ(fx_rc_to_rts(l.peer, &ho), 0);
	}
	fx_fill(l.buf, 256, 9);
	CHECK_RC(dvl_peer_recv(&l, 1, 0, 256), 0);
	sge = (struct ibv_sge){ (uintptr_t)l.buf, 256, l.mr->lkey };
	CHECK_RC(ibv_post_send(qp, &wr, &bad), 0);
	fx_poll_one(cq, &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	fx_poll_one(l.peer_cq, &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK(!memcmp(l.peer_buf, l.buf, 256));
	dvl_destroy(&l);
}

/* ionic_dv_create_qp_ex with 'a'; expect errno 'e' (0: success). */
static void qp_case(struct ibv_qp_init_attr_ex *qa,
		    struct ionic_dv_qp_init_attr_ex *a, int e, bool traffic)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ionic_dv_create_qp_ex(ctx, qa, a);
	if (e) {
		CHECK(!qp);
		CHECK_EQ(errno, e);
	} else {
		CHECK(qp);
	}
	if (!qp)
		return;
	if (traffic)
		check_works(qp, qa->send_cq);
	CHECK_RC(ibv_destroy_qp(qp), 0);
}

static void test_qp(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_cq *cq2 = ibv_create_cq(ctx2, 32, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { 8, 8, 1, 1, 0 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ionic_dv_qp_init_attr_ex a = {
		.comp_mask = IONIC_DV_QP_INIT_ATTR_MASK_FLAGS,
		.ionic_flags = IONIC_DV_CREATE_QP_TYPE_RCCL |
			       IONIC_DV_CREATE_QP_RCCL_DATA |
			       IONIC_DV_CREATE_QP_RCCL_RDFENCE |
			       IONIC_DV_CREATE_QP_RCCL_RX_OFFLOAD,
	};

	REQUIRE(cq && cq2);
	qa.send_cq = qa.recv_cq = cq;

	SECTION("ionic_dv_create_qp_ex: RCCL's flags, plain RC otherwise");
	qp_case(&qa, &a, 0, true);
	qp_case(&qa, NULL, 0, false);
	a.comp_mask |= IONIC_DV_QP_INIT_ATTR_MASK_TRANSPORT_MODE |
		       IONIC_DV_QP_INIT_ATTR_MASK_NUM_RCQ_PATHS;
	a.transport_mode = IONIC_DV_QPT_TRANSPORT_ROCE_V2;
	qp_case(&qa, &a, 0, false);
	a.transport_mode = IONIC_DV_QPT_TRANSPORT_DEFAULT;
	qp_case(&qa, &a, 0, false);

	SECTION("ionic_dv_create_qp_ex: refused");
	a.transport_mode = IONIC_DV_QPT_TRANSPORT_MRC;
	qp_case(&qa, &a, EOPNOTSUPP, false);
	a.transport_mode = (enum ionic_dv_qp_transport_mode)7;
	qp_case(&qa, &a, EINVAL, false);
	a.transport_mode = IONIC_DV_QPT_TRANSPORT_DEFAULT;
	a.num_rcq_paths = 2;
	qp_case(&qa, &a, EOPNOTSUPP, false);
	a.num_rcq_paths = 0;
	/* ignored without their comp_mask bits */
	a.comp_mask = IONIC_DV_QP_INIT_ATTR_MASK_FLAGS;
	a.transport_mode = IONIC_DV_QPT_TRANSPORT_MRC;
	a.num_rcq_paths = 2;
	qp_case(&qa, &a, 0, false);
	a.ionic_flags |= IONIC_DV_CREATE_QP_RCCL_RCQ;
	qp_case(&qa, &a, EINVAL, false);
	a.ionic_flags = 1u << 20;
	qp_case(&qa, &a, EOPNOTSUPP, false);
	a.ionic_flags = 1u << 0;
	qp_case(&qa, &a, EOPNOTSUPP, false);
	a.ionic_flags = 0;
	a.comp_mask = 1u << 3;
	qp_case(&qa, &a, EOPNOTSUPP, false);
	a.comp_mask = 0;
	qa.qp_type = IBV_QPT_UD;
	qp_case(&qa, &a, EINVAL, false);
	qa.qp_type = IBV_QPT_RC;
	qa.pd = pd2; /* another context's */
	qp_case(&qa, &a, EINVAL, false);
	qa.pd = pd;
	/* a CQ of another context, as send or as receive CQ */
	qa.send_cq = cq2;
	qp_case(&qa, &a, EINVAL, false);
	qa.send_cq = cq;
	qa.recv_cq = cq2;
	qp_case(&qa, &a, EINVAL, false);
	qa.recv_cq = cq;
	CHECK_NULL_ERRNO(ionic_dv_create_qp_ex(ctx, NULL, &a), EINVAL);
	CHECK_RC(ibv_destroy_cq(cq2), 0);
	CHECK_RC(ibv_destroy_cq(cq), 0);
}

/* Send 3 unsignalled and 1 signalled SENDs; how many WCs arrive. */
static int wcs_for(int sq_sig_all, int *query_sig_all)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc[8];
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	int n;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.sq_sig_all = sq_sig_all;
	fx_pair_create(&p, ctx, pd, &o, 4096);
	fx_pair_connect(&p);
	for (int i = 0; i < 4; i++) {
		CHECK_RC(fx_post_recv(&p, 1, 10 + i, 512 * i, 512), 0);
		CHECK_RC(fx_post_send(&p, 0, 20 + i, 512 * i, 100,
				      i == 3 ? IBV_SEND_SIGNALED : 0, false, 0),
			 0);
	}
	CHECK_EQ(fx_poll(p.rcq[1], wc, 4, TMO), 4);
	n = fx_poll(p.scq[0], wc, 4, 200);
	for (int i = 0; i < n; i++)
		CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
	if (n)
		CHECK_EQ(wc[n - 1].wr_id, 23);
	CHECK_RC(ibv_query_qp(p.qp[0], &attr, IBV_QP_STATE, &init), 0);
	*query_sig_all = init.sq_sig_all;
	fx_pair_destroy(&p);
	return n;
}

static void test_sig_all(void)
{
	int q;

	SECTION("sq_sig_all: vendor bits 16-19 never signal every request");
	/* RCCL/ANP: bit 16 always, 17 data QPs, 18 read fence, 19 offload */
	CHECK_EQ(wcs_for(0x50000, &q), 1);
	CHECK_EQ(q, 0);
	CHECK_EQ(wcs_for(0xf0000, &q), 1);
	CHECK_EQ(q, 0);
	CHECK_EQ(wcs_for(0, &q), 1);
	CHECK_EQ(q, 0);
	SECTION("sq_sig_all: bit 0 keeps its meaning");
	CHECK_EQ(wcs_for(0x50001, &q), 4);
	CHECK_EQ(q, 1);
	CHECK_EQ(wcs_for(1, &q), 4);
	CHECK_EQ(q, 1);
}

int main(void)
{
	ctx = fx_open();
	ctx2 = fx_open();
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx2);
	REQUIRE(pd && pd2);
	test_cq();
	test_qp();
	test_sig_all();
	CHECK_RC(ibv_dealloc_pd(pd2), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx2), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
