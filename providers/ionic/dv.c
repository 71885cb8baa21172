// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Direct-verbs API (include/infiniband/ionic_dv.h): ownership tests, UDMA
 * pipelines, controller-memory and express-doorbell preferences.  The
 * GPU-initiated networking half is in dv_gda.c, creation with ionic
 * attributes in dv_create.c; dv_priv.h explains the symbol versions.
 *
 * Every entry accepts objects of other providers, since an application
 * may hold contexts of several devices: ownership is checked before any
 * ionic field is read.
 */
#include <errno.h>

#include "dv_priv.h"

/*
 * An ibv_context is ours iff it is an extended context whose
 * alloc_parent_domain slot holds our function.  Only memory every
 * libibverbs context owns is read, so foreign contexts are safe.
 */
bool ionic_is_ionic_ctx(struct ibv_context *ibctx)
{
	struct verbs_context *vctx;

	if (!ibctx)
		return false;

	vctx = verbs_get_ctx(ibctx);
	return vctx && vctx->alloc_parent_domain == ionic_alloc_parent_domain;
}

/* ---- ownership tests (IONIC_1.0 and IONIC_1.1) ---------------------- */

static bool dv_is_ionic_ctx(struct ibv_context *ibctx)
{
	return ionic_is_ionic_ctx(ibctx);
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_is_ionic_ctx, dv_is_ionic_ctx);

static bool dv_is_ionic_pd(struct ibv_pd *ibpd)
{
	return ionic_dv_pd(ibpd);
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_is_ionic_pd, dv_is_ionic_pd);

static bool dv_is_ionic_cq(struct ibv_cq *ibcq)
{
	return ionic_dv_vcq(ibcq);
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_is_ionic_cq, dv_is_ionic_cq);

static bool dv_is_ionic_qp(struct ibv_qp *ibqp)
{
	return ionic_dv_qp(ibqp);
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_is_ionic_qp, dv_is_ionic_qp);

/* ---- UDMA pipelines ------------------------------------------------- */

uint8_t ionic_dv_ctx_get_udma_count(struct ibv_context *ibctx)
{
	struct ionic_ctx *ctx = ionic_dv_ctx(ibctx);

	return ctx ? ctx->udma_count : 0;
}

uint8_t ionic_dv_ctx_get_udma_mask(struct ibv_context *ibctx)
{
	struct ionic_ctx *ctx = ionic_dv_ctx(ibctx);

	return ctx ? ctx->udma_mask : 0;
}

uint8_t ionic_dv_pd_get_udma_mask(struct ibv_pd *ibpd)
{
	struct ionic_pd *pd = ionic_dv_pd(ibpd);

	return pd ? pd->udma_mask : 0;
}

int ionic_dv_pd_set_udma_mask(struct ibv_pd *ibpd, uint8_t udma_mask)
{
	struct ionic_pd *pd = ionic_dv_pd(ibpd);

	if (!pd)
		return EPERM;

	if (udma_mask & ~to_ionic_ctx(ibpd->context)->udma_mask)
		return EINVAL;

	pd->udma_mask = udma_mask;
	return 0;
}

static uint8_t dv_cq_get_udma_mask(struct ibv_cq *ibcq)
{
	struct ionic_vcq *vcq = ionic_dv_vcq(ibcq);

	return vcq ? vcq->udma_mask : 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_cq_get_udma_mask, dv_cq_get_udma_mask);

static uint8_t dv_qp_get_udma_idx(struct ibv_qp *ibqp)
{
	struct ionic_qp *qp = ionic_dv_qp(ibqp);

	return qp ? qp->udma_idx : 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_qp_get_udma_idx, dv_qp_get_udma_idx);

/* ---- controller memory and express doorbells ------------------------ */

/*
 * The CMB preference byte for one queue type; 'dev_expdb' says whether
 * the device offers express doorbells for it.  0 or EINVAL.
 */
static int ionic_dv_cmb_pref(bool enable, bool expdb, bool require,
			     bool dev_expdb, uint8_t *pref)
{
	if (!enable) {
		*pref = 0;
		return 0;
	}

	if (expdb && !dev_expdb) {
		if (require)
			return EINVAL;
		expdb = false; /* only a wish: drop it */
	}

	*pref = IONIC_CMB_ENABLE | (expdb ? IONIC_CMB_EXPDB : 0) |
		(require ? IONIC_CMB_REQUIRE : 0);
	return 0;
}

/* The CMB preference of the SQs ('sq') or RQs created with 'ibpd'. */
static int ionic_dv_pd_set_cmb(struct ibv_pd *ibpd, bool sq, bool enable,
			       bool expdb, bool require)
{
	struct ionic_pd *pd = ionic_dv_pd(ibpd);
	struct ionic_ctx *ctx;

	if (!pd)
		return EPERM;

	ctx = to_ionic_ctx(ibpd->context);
	return ionic_dv_cmb_pref(enable, expdb, require,
				 sq ? ctx->sq_expdb : ctx->rq_expdb,
				 sq ? &pd->sq_cmb : &pd->rq_cmb);
}

int ionic_dv_pd_set_sqcmb(struct ibv_pd *ibpd, bool enable, bool expdb,
			  bool require)
{
	return ionic_dv_pd_set_cmb(ibpd, true, enable, expdb, require);
}

int ionic_dv_pd_set_rqcmb(struct ibv_pd *ibpd, bool enable, bool expdb,
			  bool require)
{
	return ionic_dv_pd_set_cmb(ibpd, false, enable, expdb, require);
}

#define IONIC_DV_EXPDB_ALL \
	(IONIC_EXPDB_64 | IONIC_EXPDB_128 | IONIC_EXPDB_256 | IONIC_EXPDB_512)

/*
 * Only the four size bits mean anything; sizes the device lacks are
 * dropped when a QP is created (qp.c ANDs in the context's mask), so a
 * later device query is not needed here.
 */
static int dv_pd_set_expdb_mask(struct ibv_pd *ibpd, uint8_t mask)
{
	struct ionic_pd *pd = ionic_dv_pd(ibpd);

	if (!pd)
		return EPERM;

	pd->expdb_mask = mask & IONIC_DV_EXPDB_ALL;
	return 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_pd_set_expdb_mask, dv_pd_set_expdb_mask);
