// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * DV and parent/thread-domain semantics without a device: the provider's
 * dv.c and pd.c on an ionic context and root PD built by the unit-test
 * support (tests/support/provider_fixture.h) as alloc_context and alloc_pd would leave
 * them, so no kernel command is ever sent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/ionic_dv.h>

#include "provider_fixture.h"

static struct unit_dev *dev;

/* A fresh context with its root PD, as alloc_context and alloc_pd leave them. */
static void setup(uint8_t udma_count, bool sq_expdb, bool rq_expdb)
{
	struct unit_dev_opts o = { .udma_count = udma_count,
				   .sq_expdb = sq_expdb,
				   .rq_expdb = rq_expdb };

	if (dev)
		unit_dev_destroy(dev);
	dev = unit_dev_create(&o);
}

static void test_udma(void)
{
	setup(2, false, false);
	CHECK(ionic_is_ionic_ctx(&dev->ctx.vctx.context));
	CHECK(ionic_dv_ctx_get_udma_count(&dev->ctx.vctx.context) == 2);
	CHECK(ionic_dv_ctx_get_udma_mask(&dev->ctx.vctx.context) == 3);
	CHECK(ionic_dv_pd_get_udma_mask(&dev->pd.ibpd) == 3);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 4) == EINVAL);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 0x83) == EINVAL);
	CHECK(ionic_dv_pd_get_udma_mask(&dev->pd.ibpd) == 3);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 2) == 0);
	CHECK(ionic_dv_pd_get_udma_mask(&dev->pd.ibpd) == 2);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 0) == 0);
	CHECK(ionic_dv_pd_get_udma_mask(&dev->pd.ibpd) == 0);

	setup(1, false, false);
	CHECK(ionic_dv_ctx_get_udma_mask(&dev->ctx.vctx.context) == 1);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 2) == EINVAL);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 1) == 0);
}

static void test_cmb(void)
{
	/* device: express doorbells for the SQ only */
	setup(2, true, false);

	CHECK(ionic_dv_pd_set_sqcmb(&dev->pd.ibpd, false, true, true) == 0);
	CHECK(dev->pd.sq_cmb == 0);
	CHECK(ionic_dv_pd_set_sqcmb(&dev->pd.ibpd, true, false, false) == 0);
	CHECK(dev->pd.sq_cmb == IONIC_CMB_ENABLE);
	CHECK(ionic_dv_pd_set_sqcmb(&dev->pd.ibpd, true, true, false) == 0);
	CHECK(dev->pd.sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_EXPDB));
	CHECK(ionic_dv_pd_set_sqcmb(&dev->pd.ibpd, true, true, true) == 0);
	CHECK(dev->pd.sq_cmb ==
	      (IONIC_CMB_ENABLE | IONIC_CMB_EXPDB | IONIC_CMB_REQUIRE));
	CHECK(ionic_dv_pd_set_sqcmb(&dev->pd.ibpd, true, false, true) == 0);
	CHECK(dev->pd.sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_REQUIRE));

	/* RQ has no express doorbell: a wish is dropped, a demand fails */
	CHECK(ionic_dv_pd_set_rqcmb(&dev->pd.ibpd, true, true, false) == 0);
	CHECK(dev->pd.rq_cmb == IONIC_CMB_ENABLE);
	dev->pd.rq_cmb = 0x55;
	CHECK(ionic_dv_pd_set_rqcmb(&dev->pd.ibpd, true, true, true) == EINVAL);
	CHECK(dev->pd.rq_cmb == 0x55); /* unchanged on failure */
	CHECK(ionic_dv_pd_set_rqcmb(&dev->pd.ibpd, false, false, false) == 0);
	CHECK(dev->pd.rq_cmb == 0);
}

static void *fake_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t alignment, uint64_t resource_type)
{
	(void)pd;
	(void)pd_context;
	(void)size;
	(void)alignment;
	(void)resource_type;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void fake_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t resource_type)
{
	(void)pd;
	(void)pd_context;
	(void)ptr;
	(void)resource_type;
}

static void test_parent_domain(void)
{
	struct ibv_parent_domain_init_attr attr;
	struct ibv_td_init_attr td_attr = { 0 };
	struct ibv_pd *pd1, *pd2;
	struct ionic_pd *p1, *p2;
	struct ibv_td *td;
	int cookie;

	setup(2, true, true);
	CHECK(ionic_dv_pd_set_udma_mask(&dev->pd.ibpd, 1) == 0);
	CHECK(ionic_dv_pd_set_rqcmb(&dev->pd.ibpd, false, false, false) == 0);

	td_attr.comp_mask = 1;
	errno = 0;
	CHECK(ionic_alloc_td(&dev->ctx.vctx.context, &td_attr) == NULL);
	CHECK(errno == EOPNOTSUPP);
	td_attr.comp_mask = 0;
	td = ionic_alloc_td(&dev->ctx.vctx.context, &td_attr);
	CHECK(td != NULL);
	if (!td)
		return;

	memset(&attr, 0, sizeof(attr));
	errno = 0;
	CHECK(ionic_alloc_parent_domain(&dev->ctx.vctx.context, &attr) == NULL);
	CHECK(errno == EINVAL); /* no PD */

	attr.pd = &dev->pd.ibpd;
	attr.comp_mask = 1u << 5; /* unknown bit */
	errno = 0;
	CHECK(ionic_alloc_parent_domain(&dev->ctx.vctx.context, &attr) == NULL);
	CHECK(errno == EINVAL);

	attr.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	attr.alloc = fake_alloc; /* alloc without free */
	errno = 0;
	CHECK(ionic_alloc_parent_domain(&dev->ctx.vctx.context, &attr) == NULL);
	CHECK(errno == EINVAL);

	attr.free = fake_free;
	attr.comp_mask |= IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	attr.pd_context = &cookie;
	attr.td = td;
	pd1 = ionic_alloc_parent_domain(&dev->ctx.vctx.context, &attr);
	CHECK(pd1 != NULL);
	if (!pd1)
		return;
	p1 = to_ionic_pd(pd1);
	CHECK(p1->root == &dev->pd);
	CHECK(pd1->handle == UNIT_PD_HANDLE &&
	      pd1->context == &dev->ctx.vctx.context);
	CHECK(p1->udma_mask == 1);
	CHECK(p1->rq_cmb == 0);
	CHECK(p1->sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_EXPDB));
	CHECK(p1->alloc == fake_alloc && p1->free == fake_free);
	CHECK(p1->pd_context == &cookie);
	CHECK(ionic_pd_lockfree(pd1));
	CHECK(!ionic_pd_lockfree(&dev->pd.ibpd));
	CHECK(ionic_root_ibpd(pd1) == &dev->pd.ibpd);
	CHECK(ionic_dv_pd_get_udma_mask(pd1) == 1);

	/* nesting collapses to the root; no TD, no allocators */
	memset(&attr, 0, sizeof(attr));
	attr.pd = pd1;
	pd2 = ionic_alloc_parent_domain(&dev->ctx.vctx.context, &attr);
	CHECK(pd2 != NULL);
	if (!pd2)
		return;
	p2 = to_ionic_pd(pd2);
	CHECK(p2->root == &dev->pd && !p2->td && !p2->alloc);
	CHECK(!ionic_pd_lockfree(pd2));

	/* the DV setters work on parent domains independently */
	CHECK(ionic_dv_pd_set_udma_mask(pd2, 2) == 0);
	CHECK(ionic_dv_pd_get_udma_mask(pd2) == 2);
	CHECK(ionic_dv_pd_get_udma_mask(pd1) == 1);

	/* in use: the TD and the root PD refuse to go */
	CHECK(ionic_dealloc_td(td) == EBUSY);
	CHECK(ionic_dealloc_pd(&dev->pd.ibpd) == EBUSY);
	CHECK(dev->pd.refcnt == 3);

	CHECK(ionic_dealloc_pd(pd1) == 0);
	CHECK(ionic_dealloc_td(td) == 0);
	CHECK(ionic_dealloc_pd(pd2) == 0);
	CHECK(dev->pd.refcnt == 1);
}

int main(void)
{
	test_udma();
	test_cmb();
	test_parent_domain();
	unit_dev_destroy(dev);
	return check_finish();
}
