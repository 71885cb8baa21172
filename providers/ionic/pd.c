// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Protection domains, thread domains and parent domains.
 *
 * Only a root PD exists in the kernel.  A parent domain is a userspace
 * object carrying the root PD's handle plus provider choices: the UDMA
 * mask and CMB preferences (copied from the PD it was made from), an
 * optional thread domain (which makes its QPs and CQs lock-free) and
 * optional ring allocators.  Nesting collapses to the root PD.
 *
 * Unlike upstream, a root PD and a thread domain count the parent domains
 * using them and refuse to go away (EBUSY) while any exists, so a parent
 * domain never points at freed memory.
 */
#include <errno.h>
#include <stdlib.h>

#include "ionic.h"

/* Default CMB preference (docs/device-contract.md §11.4): ask, with express
 * doorbell if any. */
static uint8_t ionic_default_cmb(bool expdb)
{
	return IONIC_CMB_ENABLE | (expdb ? IONIC_CMB_EXPDB : 0);
}

void ionic_pd_init_root(struct ionic_pd *pd, const struct ionic_ctx *ctx)
{
	pd->root = pd;
	pd->refcnt = 1;
	pd->udma_mask = ctx->udma_mask;
	pd->sq_cmb = ionic_default_cmb(ctx->sq_expdb);
	pd->rq_cmb = ionic_default_cmb(ctx->rq_expdb);
	/* express doorbells for the smallest WQE size only, unless asked */
	pd->expdb_mask = ctx->expdb_mask & IONIC_EXPDB_64;
}

struct ibv_pd *ionic_alloc_pd(struct ibv_context *ibctx)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ionic_pd *pd;
	int rc;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	rc = ibv_cmd_alloc_pd(ibctx, &pd->ibpd, &cmd, sizeof(cmd), &resp,
			      sizeof(resp));
	if (rc) {
		free(pd);
		errno = rc;
		return NULL;
	}

	ionic_pd_init_root(pd, ctx);
	return &pd->ibpd;
}

int ionic_dealloc_pd(struct ibv_pd *ibpd)
{
	struct ionic_pd *pd = to_ionic_pd(ibpd);
	int rc;

	if (pd->root != pd) {
		/* parent domain: purely userspace; queues keep copies of
		 * its free callback, so nothing refers to it afterwards */
		if (pd->td)
			ionic_ref_put(&pd->td->refcnt);
		ionic_ref_put(&pd->root->refcnt);
		free(pd);
		return 0;
	}

	if (!ionic_ref_put_last(&pd->refcnt))
		return EBUSY; /* parent domains still use it */

	rc = ibv_cmd_dealloc_pd(ibpd);
	if (rc) {
		pd->refcnt = 1; /* still alive in the kernel */
		return rc;
	}

	free(pd);
	return 0;
}

struct ibv_td *ionic_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr)
{
	struct ionic_td *td;

	if (attr && attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}

	td->ibtd.context = ibctx;
	td->refcnt = 1;
	return &td->ibtd;
}

int ionic_dealloc_td(struct ibv_td *ibtd)
{
	struct ionic_td *td = to_ionic_td(ibtd);

	if (!ionic_ref_put_last(&td->refcnt))
		return EBUSY; /* parent domains still use it */

	free(td);
	return 0;
}

#define IONIC_PARENT_DOMAIN_MASK                  \
	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
	 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

struct ibv_pd *
ionic_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr)
{
	struct ionic_pd *from, *pd;
	struct ionic_td *td = NULL;

	if (!attr || !attr->pd || attr->pd->context != ibctx ||
	    (attr->comp_mask & ~(uint32_t)IONIC_PARENT_DOMAIN_MASK)) {
		errno = EINVAL;
		return NULL;
	}

	/* A ring allocated by 'alloc' must be given back to 'free'. */
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc != !attr->free)) {
		errno = EINVAL;
		return NULL;
	}

	if (attr->td) {
		if (attr->td->context != ibctx) {
			errno = EINVAL;
			return NULL;
		}
		td = to_ionic_td(attr->td);
	}

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	from = to_ionic_pd(attr->pd);
	pd->root = from->root;
	pd->ibpd.context = pd->root->ibpd.context;
	pd->ibpd.handle = pd->root->ibpd.handle;
	pd->udma_mask = from->udma_mask;
	pd->sq_cmb = from->sq_cmb;
	pd->rq_cmb = from->rq_cmb;
	pd->expdb_mask = from->expdb_mask;

	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;

	if (td) {
		ionic_ref_get(&td->refcnt);
		pd->td = td;
	}
	ionic_ref_get(&pd->root->refcnt);

	return &pd->ibpd;
}
