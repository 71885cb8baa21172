// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-misuse: the calls of the table's rows for the device, PDs, MRs,
 * memory windows, CQs, completion channels, thread and parent domains,
 * and the verbs ionic does not offer.
 */
#include "misuse.h"
#include "misuse_calls.h"

/* ---- device and port ------------------------------------------------- */

/* a = port number */
int mu_query_port(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_port_attr pa;

	return ibv_query_port(e->ctx, (uint8_t)r->a, &pa);
}

/* ibv_query_gid_ex: a = index (an empty one, or beyond the table) */
int mu_query_gid_ex(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_gid_entry g;

	return ibv_query_gid_ex(e->ctx, 1, (uint32_t)r->a, &g, 0);
}

/* ---- PDs, MRs, memory windows ---------------------------------------- */

int mu_dealloc_pd_busy(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_pd *pd = ibv_alloc_pd(e->ctx);
	struct ibv_mr *mr;
	int rc;

	(void)r;
	REQUIRE(pd);
	mr = ibv_reg_mr(pd, e->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(mr);
	rc = ibv_dealloc_pd(pd);
	CHECK_RC(ibv_dereg_mr(mr), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	return rc;
}

/* a = access flags, b = length (0: 4096) */
int mu_reg_mr(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, e->buf,
				       r->b ? (size_t)r->b : 4096, (int)r->a);

	MU_CREATED(mr, ibv_dereg_mr);
}

int mu_reg_dmabuf_mr(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_mr *mr;

	(void)r;
	mr = ibv_reg_dmabuf_mr(e->pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
	MU_CREATED(mr, ibv_dereg_mr);
}

/* a = MW type */
int mu_alloc_mw(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, (enum ibv_mw_type)r->a);

	MU_CREATED(mw, ibv_dealloc_mw);
}

/* ibv_bind_mw on a type-1 window of an RTS QP: a = 0 a region without
 * MW_BIND (only the device can tell: the bind completes with
 * MW_BIND_ERR), 1 no region but a length (docs/upstream-defects.md D12),
 * 2 a type-2 window (only the send path binds those) */
int mu_bind_mw(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp *qp = mu_qp(e, IBV_QPT_RC, IBV_QPS_RTS);
	struct ibv_mw *mw =
		ibv_alloc_mw(e->pd, r->a == 2 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1);
	struct ibv_mw_bind bind = {
		.wr_id = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = e->mr,
			       .addr = (uintptr_t)e->buf,
			       .length = 4096,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};
	struct ibv_mr *plain = NULL;
	struct ibv_wc wc[4];
	int rc;

	REQUIRE(mw);
	if (r->a == 0) {
		plain = ibv_reg_mr(e->pd, e->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
		REQUIRE(plain);
		bind.bind_info.mr = plain;
	} else if (r->a == 1) {
		bind.bind_info.mr = NULL;
	}
	rc = ibv_bind_mw(qp, mw, &bind);
	/* a bind the verb took completes; wait for it before tearing down */
	if (!rc) {
		fx_poll_one(e->cq, wc, MU_TMO);
		CHECK_EQ(wc[0].status,
			 r->a == 0 ? IBV_WC_MW_BIND_ERR : IBV_WC_SUCCESS);
	}
	CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	if (plain)
		CHECK_RC(ibv_dereg_mr(plain), 0);
	while (ibv_poll_cq(e->cq, 4, wc) > 0)
		;
	return rc;
}

/* ---- CQs and channels ------------------------------------------------ */

/* a = cqe (MU_ABOVE_MAX: the device's max_cqe + 1), b = comp_vector
 * (MU_ABOVE_MAX: the context's vector count) */
int mu_create_cq(struct mu_env *e, const struct mu_row *r)
{
	int cqe = r->a == MU_ABOVE_MAX ? e->dev.max_cqe + 1 : (int)r->a;
	int vec = r->b == MU_ABOVE_MAX ? e->ctx->num_comp_vectors : (int)r->b;
	struct ibv_cq *cq = ibv_create_cq(e->ctx, cqe, NULL, NULL, vec);

	MU_CREATED(cq, ibv_destroy_cq);
}

/* ibv_create_cq_ex: a = wc_flags, b = flags (with the FLAGS comp_mask) */
int mu_create_cq_ex(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = (uint64_t)r->a,
		.comp_mask = r->b ? IBV_CQ_INIT_ATTR_MASK_FLAGS : 0,
		.flags = (uint32_t)r->b,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(e->ctx, &ca);

	MU_CREATED(ibv_cq_ex_to_cq(cq), ibv_destroy_cq);
}

int mu_destroy_cq_busy(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = mu_qp_attr(e, IBV_QPT_RC);
	struct ibv_qp *qp;
	int rc;

	(void)r;
	REQUIRE(cq);
	ia.send_cq = cq;
	qp = ibv_create_qp(e->pd, &ia);
	REQUIRE(qp);
	rc = ibv_destroy_cq(cq);
	CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	return rc;
}

int mu_resize_cq(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	int rc;

	(void)r;
	REQUIRE(cq);
	rc = ibv_resize_cq(cq, 64);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	return rc;
}

/* a = solicited_only; without a completion channel */
int mu_req_notify_no_channel(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	int rc;

	REQUIRE(cq);
	rc = ibv_req_notify_cq(cq, (int)r->a);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	return rc;
}

int mu_destroy_channel_busy(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(e->ctx);
	struct ibv_cq *cq;
	int rc;

	(void)r;
	REQUIRE(ch);
	cq = ibv_create_cq(e->ctx, 16, NULL, ch, 0);
	REQUIRE(cq);
	rc = ibv_destroy_comp_channel(ch);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	CHECK_RC(ibv_destroy_comp_channel(ch), 0);
	return rc;
}

/* ---- thread and parent domains --------------------------------------- */

int mu_alloc_td(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_td_init_attr ta = { .comp_mask = (uint32_t)r->a };
	struct ibv_td *td = ibv_alloc_td(e->ctx, &ta);

	MU_CREATED(td, ibv_dealloc_td);
}

int mu_dealloc_td_busy(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_td *td = ibv_alloc_td(e->ctx, &ta);
	struct ibv_parent_domain_init_attr pa = { .pd = e->pd };
	struct ibv_pd *ppd;
	int rc;

	(void)r;
	REQUIRE(td);
	pa.td = td;
	ppd = ibv_alloc_parent_domain(e->ctx, &pa);
	REQUIRE(ppd);
	rc = ibv_dealloc_td(td);
	CHECK_RC(ibv_dealloc_pd(ppd), 0);
	CHECK_RC(ibv_dealloc_td(td), 0);
	return rc;
}

static void *mu_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t alignment, uint64_t resource_type)
{
	(void)pd;
	(void)pd_context;
	(void)size;
	(void)alignment;
	(void)resource_type;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

/* a = 0: an allocator without a free; 1: an unknown comp_mask bit */
int mu_parent_domain(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = e->pd,
		.comp_mask = r->a ? 1u << 7 :
				    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
		.alloc = mu_alloc,
	};
	struct ibv_pd *ppd = ibv_alloc_parent_domain(e->ctx, &pa);

	MU_CREATED(ppd, ibv_dealloc_pd);
}

/* ---- not offered ----------------------------------------------------- */

int mu_create_srq(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_srq_init_attr sa = { .attr = { 16, 1, 0 } };
	struct ibv_srq *srq = ibv_create_srq(e->pd, &sa);

	(void)r;
	MU_CREATED(srq, ibv_destroy_srq);
}

int mu_open_xrcd(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
						      IBV_XRCD_INIT_ATTR_OFLAGS,
					 .fd = -1,
					 .oflags = O_CREAT };
	struct ibv_xrcd *x = ibv_open_xrcd(e->ctx, &xa);

	(void)r;
	MU_CREATED(x, ibv_close_xrcd);
}

int mu_alloc_dm(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_alloc_dm_attr da = { .length = 4096 };
	struct ibv_dm *dm = ibv_alloc_dm(e->ctx, &da);

	(void)r;
	MU_CREATED(dm, ibv_free_dm);
}

int mu_attach_mcast(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp *qp = mu_qp(e, IBV_QPT_UD, IBV_QPS_RTS);
	union ibv_gid mgid = { .raw = { 0xff, 0x0e } };
	int rc = ibv_attach_mcast(qp, &mgid, 0);

	(void)r;
	CHECK_RC(ibv_destroy_qp(qp), 0);
	return rc;
}
