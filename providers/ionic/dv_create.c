// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * CQ and QP creation with ionic attributes (ionic_dv.h;
 * docs/gpu-direct-verbs.md §2.3, §2.4, §3, §5, §6).
 *
 * What the mainline kernel ABI (kernel-headers/rdma/ionic-abi.h) can
 * carry decides what is honoured:
 *  - compact CQEs (CCQE): the CQ request has no field for it, and a ring
 *    of one slot is refused by the kernel's ring validation, so a CCQE CQ
 *    cannot exist; it is refused with EOPNOTSUPP instead of handing out
 *    an ordinary ring the caller would poll the wrong way;
 *  - vendor QP flags 16-19: firmware hints without a field in the QP
 *    request; accepted and recorded (as in sq_sig_all, qp_priv.h), the QP
 *    is an ordinary RC QP;
 *  - the reorder completion queue, the MRC transport and RCQ paths change
 *    what the QP does on the wire and in its CQ, and need a context the
 *    kernel does not describe (no RCQ sign bit): refused.
 *
 * ionic_dv_create_qp_ex exists with two attribute layouts: the caller's
 * symbol version says which one it passes (IONIC_1.3 the AMD one, the
 * default; IONIC_1.1 that of the rdma-core proposal).
 */
#include <errno.h>

#include "cq.h"
#include "dv_priv.h"
#include "qp.h"

/* ---- CQ -------------------------------------------------------------- */

struct ibv_cq_ex *ionic_dv_create_cq_ex(struct ibv_context *ibctx,
					struct ibv_cq_init_attr_ex *ex,
					struct ionic_cq_init_attr_ex *ionic_ex)
{
	struct ionic_ctx *ctx = ionic_dv_ctx(ibctx);
	int rc = EINVAL;

	if (!ctx) {
		rc = EPERM;
		goto err;
	}
	if (!ex)
		goto err;

	if (ionic_ex) {
		if (ionic_ex->comp_mask &
		    ~(uint32_t)IONIC_CQ_INIT_ATTR_MASK_FLAGS) {
			rc = EOPNOTSUPP;
			goto err;
		}
		if ((ionic_ex->comp_mask & IONIC_CQ_INIT_ATTR_MASK_FLAGS) &&
		    ionic_ex->flags) {
			if (ionic_ex->flags & IONIC_CQ_INIT_ATTR_CCQE)
				verbs_warn(
					&ctx->vctx,
					"compact CQEs need kernel support this kernel ABI lacks");
			rc = EOPNOTSUPP;
			goto err;
		}
	}

	/* a parent domain of another device would be read as ours */
	if ((ex->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) && ex->parent_domain &&
	    ex->parent_domain->context != ibctx)
		goto err;

	return ionic_create_cq_ex(ibctx, ex);

err:
	errno = rc;
	return NULL;
}

/* ---- QP -------------------------------------------------------------- */

#define IONIC_DV_QP_MASK_1_3                         \
	(IONIC_DV_QP_INIT_ATTR_MASK_FLAGS |          \
	 IONIC_DV_QP_INIT_ATTR_MASK_TRANSPORT_MODE | \
	 IONIC_DV_QP_INIT_ATTR_MASK_NUM_RCQ_PATHS)
#define IONIC_DV_QP_MASK_1_1 IONIC_DV_QP_INIT_ATTR_MASK_FLAGS

/* The ionic attributes of either layout, after the comp_mask is applied. */
struct dv_qp_attr {
	uint64_t comp_mask;
	uint32_t flags;
	uint32_t transport_mode;
	uint8_t num_rcq_paths;
};

static int dv_qp_check(struct ibv_context *ibctx,
		       const struct ibv_qp_init_attr_ex *ex,
		       const struct dv_qp_attr *a, uint64_t known_mask)
{
	if (!ionic_dv_ctx(ibctx) || !ex)
		return EINVAL;
	if (a->comp_mask & ~known_mask)
		return EOPNOTSUPP;
	if (a->flags &
	    ~(uint32_t)(IONIC_QP_VENDOR_FLAGS | IONIC_DV_CREATE_QP_RCCL_RCQ))
		return EOPNOTSUPP;
	if (a->flags & IONIC_DV_CREATE_QP_RCCL_RCQ)
		return EINVAL; /* the context reports no RCQ sign bit */
	if (a->transport_mode > IONIC_DV_QPT_TRANSPORT_MRC)
		return EINVAL;
	if (a->transport_mode == IONIC_DV_QPT_TRANSPORT_MRC || a->num_rcq_paths)
		return EOPNOTSUPP;
	if (ex->qp_type != IBV_QPT_RC)
		return EINVAL;

	/* objects of another device would be read as ours */
	if ((ex->comp_mask & IBV_QP_INIT_ATTR_PD) && ex->pd &&
	    ex->pd->context != ibctx)
		return EINVAL;
	if ((ex->send_cq && ex->send_cq->context != ibctx) ||
	    (ex->recv_cq && ex->recv_cq->context != ibctx))
		return EINVAL;
	return 0;
}

static struct ibv_qp *dv_create_qp(struct ibv_context *ibctx,
				   struct ibv_qp_init_attr_ex *ex,
				   const struct dv_qp_attr *a,
				   uint64_t known_mask)
{
	struct ibv_qp *ibqp;
	int rc;

	rc = dv_qp_check(ibctx, ex, a, known_mask);
	if (rc) {
		errno = rc;
		return NULL;
	}

	ibqp = ionic_create_qp_ex(ibctx, ex);
	if (ibqp)
		to_ionic_qp(ibqp)->vendor_flags |= a->flags;
	return ibqp;
}

static struct ibv_qp *
dv_create_qp_ex_1_3(struct ibv_context *ibctx, struct ibv_qp_init_attr_ex *ex,
		    struct ionic_dv_qp_init_attr_ex *ionic_ex)
{
	struct dv_qp_attr a = { 0 };

	if (ionic_ex) {
		a.comp_mask = ionic_ex->comp_mask;
		if (a.comp_mask & IONIC_DV_QP_INIT_ATTR_MASK_FLAGS)
			a.flags = ionic_ex->ionic_flags;
		if (a.comp_mask & IONIC_DV_QP_INIT_ATTR_MASK_TRANSPORT_MODE)
			a.transport_mode = (uint32_t)ionic_ex->transport_mode;
		if (a.comp_mask & IONIC_DV_QP_INIT_ATTR_MASK_NUM_RCQ_PATHS)
			a.num_rcq_paths = ionic_ex->num_rcq_paths;
	}
	return dv_create_qp(ibctx, ex, &a, IONIC_DV_QP_MASK_1_3);
}

static struct ibv_qp *
dv_create_qp_ex_1_1(struct ibv_context *ibctx, struct ibv_qp_init_attr_ex *ex,
		    struct ionic_dv_qp_init_attr_ex_1_1 *ionic_ex)
{
	struct dv_qp_attr a = { 0 };

	if (ionic_ex) {
		a.comp_mask = ionic_ex->comp_mask;
		if (a.comp_mask & IONIC_DV_QP_INIT_ATTR_MASK_FLAGS)
			a.flags = ionic_ex->ionic_flags;
	}
	return dv_create_qp(ibctx, ex, &a, IONIC_DV_QP_MASK_1_1);
}

/*
 * ionic_dv_create_qp_ex@@IONIC_1.3 (the prototype of ionic_dv.h) and
 * ionic_dv_create_qp_ex@IONIC_1.1 (the proposal's layout); libionic.map
 * lists the name in both nodes.
 */
extern __typeof__(ionic_dv_create_qp_ex) ionic_dv_create_qp_ex_v1_3
	__attribute__((alias("dv_create_qp_ex_1_3")));
__asm__(".symver ionic_dv_create_qp_ex_v1_3, ionic_dv_create_qp_ex@@IONIC_1.3");

struct ibv_qp *
ionic_dv_create_qp_ex_v1_1(struct ibv_context *ibctx,
			   struct ibv_qp_init_attr_ex *ex,
			   struct ionic_dv_qp_init_attr_ex_1_1 *ionic_ex)
	__attribute__((alias("dv_create_qp_ex_1_1")));
__asm__(".symver ionic_dv_create_qp_ex_v1_1, ionic_dv_create_qp_ex@IONIC_1.1");
