// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The DV API through the real libionic.so.1, with objects that are not
 * ionic: a plain (non-extended) context, an extended context of "another
 * provider", and NULL, with a PD, CQ and QP on each.  Ownership tests
 * must say false, getters return 0, setters and descriptor getters
 * EPERM, ionic_dv_create_cq_ex EPERM and ionic_dv_create_qp_ex EINVAL
 * (docs/gpu-direct-verbs.md §3), and nothing may be read beyond what every
 * libibverbs object owns.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <infiniband/ionic_dv.h>

#include "check.h"

static struct ibv_pd *
other_alloc_parent_domain(struct ibv_context *c,
			  struct ibv_parent_domain_init_attr *a)
{
	(void)c;
	(void)a;
	return NULL;
}

/* Every DV call on objects of 'ctx', which is not an ionic context. */
static void check_foreign(struct ibv_context *ctx, struct ibv_pd *pd,
			  struct ibv_cq *cq, struct ibv_qp *qp)
{
	struct ibv_cq_init_attr_ex cattr = { .cqe = 16 };
	struct ionic_cq_init_attr_ex ccqe = {
		.comp_mask = IONIC_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IONIC_CQ_INIT_ATTR_CCQE,
	};
	struct ibv_qp_init_attr_ex qattr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { 8, 8, 1, 1, 0 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ionic_dv_qp_init_attr_ex qex = {
		.comp_mask = IONIC_DV_QP_INIT_ATTR_MASK_FLAGS,
		.ionic_flags = IONIC_DV_CREATE_QP_TYPE_RCCL,
	};
	struct ionic_dv_ctx dctx;
	struct ionic_dv_cq dcq;
	struct ionic_dv_qp dqp;
	uint64_t v = 7;

	CHECK(!ionic_dv_is_ionic_ctx(ctx));
	CHECK(!ionic_dv_is_ionic_pd(pd));
	CHECK(!ionic_dv_is_ionic_cq(cq));
	CHECK(!ionic_dv_is_ionic_qp(qp));

	CHECK(ionic_dv_ctx_get_udma_count(ctx) == 0);
	CHECK(ionic_dv_ctx_get_udma_mask(ctx) == 0);
	CHECK(ionic_dv_pd_get_udma_mask(pd) == 0);
	CHECK(ionic_dv_cq_get_udma_mask(cq) == 0);
	CHECK(ionic_dv_qp_get_udma_idx(qp) == 0);
	CHECK(ionic_dv_pd_set_udma_mask(pd, 1) == EPERM);
	CHECK(ionic_dv_pd_set_udma_mask(pd, 0) == EPERM);
	CHECK(ionic_dv_pd_set_sqcmb(pd, true, true, true) == EPERM);
	CHECK(ionic_dv_pd_set_sqcmb(pd, false, false, false) == EPERM);
	CHECK(ionic_dv_pd_set_rqcmb(pd, true, false, false) == EPERM);
	CHECK(ionic_dv_pd_set_expdb_mask(pd, IONIC_EXPDB_64) == EPERM);

	CHECK(ionic_dv_qp_set_gda(qp, true, true) == EPERM);
	CHECK(ionic_dv_qp_set_gda(qp, false, false) == EPERM);
	CHECK(ionic_dv_qp_get_send_dbell_data(qp, &v) == EPERM);
	CHECK(ionic_dv_qp_get_recv_dbell_data(qp, &v) == EPERM);
	CHECK_EQ(v, 7); /* untouched */
	CHECK(ionic_dv_get_ctx(&dctx, ctx) == EPERM);
	CHECK(ionic_dv_get_cq(&dcq, cq, 0) == EPERM);
	CHECK(ionic_dv_get_qp(&dqp, qp) == EPERM);
	/* EPERM comes first, even for a NULL descriptor */
	CHECK(ionic_dv_get_ctx(NULL, ctx) == EPERM);

	errno = 0;
	CHECK(!ionic_dv_create_cq_ex(ctx, &cattr, NULL));
	CHECK_EQ(errno, EPERM);
	errno = 0;
	CHECK(!ionic_dv_create_cq_ex(ctx, &cattr, &ccqe));
	CHECK_EQ(errno, EPERM);
	/* the QP creator says EINVAL for a foreign context (the proposal's rule) */
	errno = 0;
	CHECK(!ionic_dv_create_qp_ex(ctx, &qattr, &qex));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(!ionic_dv_create_qp_ex(ctx, &qattr, NULL));
	CHECK_EQ(errno, EINVAL);
}

int main(void)
{
	struct verbs_context *vctx;
	struct ibv_context plain;
	struct ibv_pd pd;
	struct ibv_cq cq;
	struct ibv_qp qp;

	/* a legacy context: not extended, so never ionic */
	memset(&plain, 0, sizeof(plain));
	memset(&pd, 0, sizeof(pd));
	memset(&cq, 0, sizeof(cq));
	memset(&qp, 0, sizeof(qp));
	pd.context = cq.context = qp.context = &plain;
	qp.pd = &pd;
	qp.send_cq = qp.recv_cq = &cq;
	check_foreign(&plain, &pd, &cq, &qp);

	/* an extended context whose ops belong to someone else */
	vctx = calloc(1, sizeof(*vctx));
	if (!vctx)
		return 1;
	vctx->sz = sizeof(*vctx);
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->alloc_parent_domain = other_alloc_parent_domain;
	pd.context = cq.context = qp.context = &vctx->context;
	check_foreign(&vctx->context, &pd, &cq, &qp);

	/* an extended context with no parent-domain op at all */
	vctx->alloc_parent_domain = NULL;
	check_foreign(&vctx->context, &pd, &cq, &qp);

	/* NULL objects */
	check_foreign(NULL, NULL, NULL, NULL);

	free(vctx);
	return check_finish();
}
