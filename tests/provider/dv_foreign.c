// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The DV API through the real libionic.so.1, with objects that are not
 * ionic: a plain (non-extended) context, an extended context of "another
 * provider", and NULL.  Getters must return 0, setters EPERM, and nothing
 * may be read beyond what every libibverbs context owns.
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

static void check_foreign(struct ibv_context *ctx, struct ibv_pd *pd)
{
	CHECK(ionic_dv_ctx_get_udma_count(ctx) == 0);
	CHECK(ionic_dv_ctx_get_udma_mask(ctx) == 0);
	CHECK(ionic_dv_pd_get_udma_mask(pd) == 0);
	CHECK(ionic_dv_pd_set_udma_mask(pd, 1) == EPERM);
	CHECK(ionic_dv_pd_set_udma_mask(pd, 0) == EPERM);
	CHECK(ionic_dv_pd_set_sqcmb(pd, true, true, true) == EPERM);
	CHECK(ionic_dv_pd_set_sqcmb(pd, false, false, false) == EPERM);
	CHECK(ionic_dv_pd_set_rqcmb(pd, true, false, false) == EPERM);
}

int main(void)
{
	struct verbs_context *vctx;
	struct ibv_context plain;
	struct ibv_pd pd;

	/* a legacy context: not extended, so never ionic */
	memset(&plain, 0, sizeof(plain));
	memset(&pd, 0, sizeof(pd));
	pd.context = &plain;
	check_foreign(&plain, &pd);

	/* an extended context whose ops belong to someone else */
	vctx = calloc(1, sizeof(*vctx));
	if (!vctx)
		return 1;
	vctx->sz = sizeof(*vctx);
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->alloc_parent_domain = other_alloc_parent_domain;
	pd.context = &vctx->context;
	check_foreign(&vctx->context, &pd);

	/* an extended context with no parent-domain op at all */
	vctx->alloc_parent_domain = NULL;
	check_foreign(&vctx->context, &pd);

	/* NULL objects */
	check_foreign(NULL, NULL);

	free(vctx);
	return check_finish();
}
