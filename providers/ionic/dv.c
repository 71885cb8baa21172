// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Direct-verbs API (include/infiniband/ionic_dv.h), exported in version
 * node IONIC_1.0.  Every entry accepts objects of other providers, since
 * an application may hold contexts of several devices: ownership is
 * checked before any ionic field is read.
 */
#include <errno.h>
#include <infiniband/ionic_dv.h>

#include "ionic.h"

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

static struct ionic_ctx *ionic_dv_ctx(struct ibv_context *ibctx)
{
	return ionic_is_ionic_ctx(ibctx) ? to_ionic_ctx(ibctx) : NULL;
}

static struct ionic_pd *ionic_dv_pd(struct ibv_pd *ibpd)
{
	return ibpd && ionic_is_ionic_ctx(ibpd->context) ? to_ionic_pd(ibpd) :
							   NULL;
}

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
