/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared by the files of the direct-verbs API (dv.c, dv_gda.c,
 * dv_create.c): the ownership checks every entry point starts with, and
 * the export of one function at two symbol versions.
 *
 * Symbol versions (libionic.map, docs/gpu-direct-verbs.md §1): the
 * functions of the GPU-initiated networking API are found at IONIC_1.0,
 * where the AMD-built callers (RCCL, its network plugin, the MRC shim)
 * bind them, and at IONIC_1.1, where the rdma-core proposal puts them; the
 * IONIC_1.1 one is the default that plain dlsym() and new links get.  Both
 * are the same code.
 */
#ifndef IONIC_DV_PRIV_H
#define IONIC_DV_PRIV_H

#include <infiniband/ionic_dv.h>

#include "ionic.h"
#include "qp_priv.h"

/*
 * Export 'name' (declared in ionic_dv.h) as name@IONIC_1.0 and
 * name@@IONIC_1.1, both served by 'impl', a static function of the same
 * type in the same file.  The version script lists 'name' in both nodes.
 * Linked statically (unit tests), a call to 'name' binds the default.
 */
#define IONIC_DV_EXPORT_1_0_AND_1_1(name, impl)                            \
	extern __typeof__(name) name##_v1_0 __attribute__((alias(#impl))); \
	extern __typeof__(name) name##_v1_1 __attribute__((alias(#impl))); \
	__asm__(".symver " #name "_v1_0, " #name "@IONIC_1.0");            \
	__asm__(".symver " #name "_v1_1, " #name "@@IONIC_1.1")

/* The ionic object behind a verbs object, or NULL if it is not ionic. */
static inline struct ionic_ctx *ionic_dv_ctx(struct ibv_context *ibctx)
{
	return ionic_is_ionic_ctx(ibctx) ? to_ionic_ctx(ibctx) : NULL;
}

static inline struct ionic_pd *ionic_dv_pd(struct ibv_pd *ibpd)
{
	return ibpd && ionic_is_ionic_ctx(ibpd->context) ? to_ionic_pd(ibpd) :
							   NULL;
}

static inline struct ionic_vcq *ionic_dv_vcq(struct ibv_cq *ibcq)
{
	return ibcq && ionic_is_ionic_ctx(ibcq->context) ? to_ionic_vcq(ibcq) :
							   NULL;
}

static inline struct ionic_qp *ionic_dv_qp(struct ibv_qp *ibqp)
{
	return ibqp && ionic_is_ionic_ctx(ibqp->context) ? to_ionic_qp(ibqp) :
							   NULL;
}

#endif /* IONIC_DV_PRIV_H */
