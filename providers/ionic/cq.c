// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * CQ verbs: create (legacy and extended), destroy, arm, and the CQE
 * cleaning used when a QP is reset or destroyed (docs/device-contract.md §5.8,
 * §8, §10, §16.9).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cq.h"
#include "cq_priv.h"

IBV_DRV_CMD(ionic_cmd_create_cq, ibv_create_cq, ionic_cq_req,
	    ib_uverbs_create_cq_resp, ionic_cq_resp);

/* The standard wc_flags the provider can report (exactly these nine). */
#define IONIC_CQ_WC_FLAGS_TS                   \
	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
#define IONIC_CQ_WC_FLAGS                                                      \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |                        \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | \
	 IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS |                   \
	 IONIC_CQ_WC_FLAGS_TS)

#define IONIC_CQ_COMP_MASK \
	(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)
#define IONIC_CQ_CREATE_FLAGS \
	(IBV_CREATE_CQ_ATTR_SINGLE_THREADED | IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)

static void ionic_vcq_init_arm(struct ionic_vcq *vcq);

void ionic_vcq_free(struct ionic_vcq *vcq)
{
	int i;

	/* reverse pipeline order, as they were created */
	for (i = IONIC_MAX_UDMA - 1; i >= 0; i--) {
		if (!(vcq->udma_mask & (1u << i)))
			continue;
		ionic_queue_free(&vcq->cq[i].q);
	}
	free(vcq);
}

static int ionic_cq_init_one(struct ionic_ctx *ctx, struct ionic_cq *cq,
			     int cqe, struct ionic_pd *pd, bool lockfree)
{
	int rc;

	/* the grace slots hold CQEs not tied to a WQE (flush indicators) */
	rc = ionic_queue_geometry(&cq->q, (uint32_t)cqe + IONIC_CQ_GRACE,
				  IONIC_CQE_SIZE, ctx->page_shift);
	if (rc)
		return rc;

	rc = ionic_queue_alloc(&cq->q, pd, IONIC_PD_TAG_CQ);
	if (rc)
		return rc;

	ionic_lock_init(&cq->lock);
	cq->lockfree = lockfree;

	/* a zeroed ring holds no valid CQE while colour 1 is expected */
	cq->color = htobe32(IONIC_CQE_COLOR);
	cq->last_qid = UINT32_MAX; /* no 24-bit QP number */
	cq->last_qp = NULL;
	ionic_cq_pub_init(&cq->pub, &cq->q, ctx->dbpage, ctx->cq_qtype);
	ionic_list_init(&cq->poll_sq);
	ionic_list_init(&cq->flush_sq);
	ionic_list_init(&cq->flush_rq);
	return 0;
}

static int ionic_vcq_check_attr(struct ionic_ctx *ctx,
				const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)IONIC_CQ_COMP_MASK)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IONIC_CQ_CREATE_FLAGS))
		return EOPNOTSUPP;
	if (attr->wc_flags & ~(uint64_t)IONIC_CQ_WC_FLAGS)
		return EOPNOTSUPP;
	/* device timestamps mean nothing without the PHC page to read them */
	if ((attr->wc_flags & IONIC_CQ_WC_FLAGS_TS) && !ctx->phc)
		return EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > 0xffff - IONIC_CQ_GRACE)
		return EINVAL;
	if (attr->comp_vector >= (uint32_t)ctx->vctx.context.num_comp_vectors)
		return EINVAL;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    !attr->parent_domain)
		return EINVAL;
	return 0;
}

int ionic_vcq_alloc(struct ionic_ctx *ctx,
		    const struct ibv_cq_init_attr_ex *attr,
		    struct ionic_vcq **out)
{
	struct ionic_vcq *vcq;
	struct ionic_pd *pd = NULL;
	uint8_t mask;
	int i, rc;

	rc = ionic_vcq_check_attr(ctx, attr);
	if (rc)
		return rc;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		pd = to_ionic_pd(attr->parent_domain);

	mask = (pd ? pd->udma_mask : ctx->udma_mask) & ctx->udma_mask;
	if (!mask)
		return EINVAL;

	vcq = calloc(1, sizeof(*vcq));
	if (!vcq)
		return ENOMEM;
	vcq->ctx = ctx;
	vcq->qp_table = ctx->qp_table;
	vcq->udma_mask = 0;

	for (i = 0; i < IONIC_MAX_UDMA; i++) {
		if (!(mask & (1u << i)))
			continue;
		rc = ionic_cq_init_one(ctx, &vcq->cq[i], (int)attr->cqe, pd,
				       pd && pd->td);
		if (rc) {
			ionic_vcq_free(vcq);
			return rc;
		}
		vcq->udma_mask |= 1u << i;
	}

	vcq->want_ts = !!(attr->wc_flags & IONIC_CQ_WC_FLAGS_TS);
	vcq->want_wallclock = !!(attr->wc_flags &
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	ionic_vcq_init_poll(vcq);
	ionic_vcq_init_arm(vcq);
	*out = vcq;
	return 0;
}

void ionic_vcq_bind(struct ionic_vcq *vcq, const uint32_t *cqid)
{
	int i;

	for (i = 0; i < IONIC_MAX_UDMA; i++) {
		if (!(vcq->udma_mask & (1u << i)))
			continue;
		vcq->cq[i].cqid = cqid[i];
		vcq->cq[i].q.dbell = ionic_dbell_val(cqid[i], 0, 0);
	}
}

static struct ionic_vcq *ionic_vcq_create(struct ibv_context *ibctx,
					  struct ibv_cq_init_attr_ex *attr)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);
	struct ionic_cmd_create_cq cmd;
	struct ionic_cmd_create_cq_resp resp;
	struct ionic_vcq *vcq;
	int i, rc;

	rc = ionic_vcq_alloc(ctx, attr, &vcq);
	if (rc)
		goto err;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	for (i = 0; i < IONIC_MAX_UDMA; i++)
		if (vcq->udma_mask & (1u << i))
			ionic_queue_qdesc(&vcq->cq[i].q,
					  &cmd.drv_payload.cq[i]);
	cmd.drv_payload.udma_mask = vcq->udma_mask;

	rc = ibv_cmd_create_cq(ibctx, (int)attr->cqe, attr->channel,
			       (int)attr->comp_vector, &vcq->vcq.cq,
			       &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
			       sizeof(resp));
	if (rc)
		goto err_rings;

	/* the CQE routing of every QP relies on exactly these pipelines */
	if (resp.drv_payload.udma_mask != vcq->udma_mask) {
		verbs_err(&ctx->vctx, "CQ udma mask %#x, asked for %#x",
			  resp.drv_payload.udma_mask, vcq->udma_mask);
		ibv_cmd_destroy_cq(&vcq->vcq.cq);
		rc = EINVAL;
		goto err_rings;
	}

	ionic_vcq_bind(vcq, resp.drv_payload.cqid);
	return vcq;

err_rings:
	ionic_vcq_free(vcq);
err:
	errno = rc;
	return NULL;
}

struct ibv_cq *ionic_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = (uint32_t)cqe,
		.channel = channel,
		.comp_vector = (uint32_t)comp_vector,
	};
	struct ionic_vcq *vcq;

	/* negative values would wrap into large unsigned ones */
	if (cqe < 1 || comp_vector < 0) {
		errno = EINVAL;
		return NULL;
	}

	vcq = ionic_vcq_create(ibctx, &attr);
	return vcq ? &vcq->vcq.cq : NULL;
}

struct ibv_cq_ex *ionic_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct ionic_vcq *vcq;

	vcq = ionic_vcq_create(ibctx, attr);
	if (!vcq)
		return NULL;

	ionic_vcq_init_ex(vcq, attr->wc_flags);
	return &vcq->vcq.cq_ex;
}

int ionic_destroy_cq(struct ibv_cq *ibcq)
{
	struct ionic_vcq *vcq = to_ionic_vcq(ibcq);
	int rc;

	rc = ibv_cmd_destroy_cq(ibcq);
	if (rc)
		return rc;

	ionic_vcq_free(vcq);
	return 0;
}

/*
 * Arm at once, as the kernel driver does (upstream defers the doorbell to
 * the next poll or post, so an application that arms and then sleeps can
 * hang: defect docs/upstream-defects.md D10).  The ring-0 sync first tells the
 * device how far the host has read, so a CQE already past that point raises the
 * event immediately; then ring 1 (any) or 2 (solicited only).
 */
int ionic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct ionic_vcq *vcq = to_ionic_vcq(ibcq);

	/*
	 * Without a completion channel no event can ever be delivered:
	 * nothing to arm, and success, as mlx5 and rxe answer, so portable
	 * code that arms every CQ works here too (upstream returns -ENOENT;
	 * docs/upstream-defects.md D10 gives the reasons).
	 */
	if (unlikely(!ibcq->channel))
		return 0;
	/* a dead device raises no event: an arm would wait forever */
	if (unlikely(ionic_ctx_fatal(to_ionic_ctx(ibcq->context))))
		return ENODEV;

	/* a tail call: the variant's 0 is the verb's */
	return vcq->arm(vcq, solicited_only);
}

/* One hardware CQ, under its lock unless it has none. */
static inline __attribute__((always_inline)) void
ionic_cq_arm_one(struct ionic_cq *cq, int solicited_only, bool lockfree)
{
	if (!lockfree)
		ionic_lock(&cq->lock);
	ionic_cq_arm(&cq->pub, &cq->q, solicited_only);
	if (!lockfree)
		ionic_unlock(&cq->lock);
}

/* The variants of vcq->arm: one pipeline or both, locks or none. */
static int ionic_vcq_arm_one_locked(struct ionic_vcq *vcq, int sol)
{
	ionic_cq_arm_one(&vcq->cq[vcq->poll_idx], sol, false);
	return 0;
}

static int ionic_vcq_arm_one_nolock(struct ionic_vcq *vcq, int sol)
{
	ionic_cq_arm_one(&vcq->cq[vcq->poll_idx], sol, true);
	return 0;
}

static int ionic_vcq_arm_two_locked(struct ionic_vcq *vcq, int sol)
{
	ionic_cq_arm_one(&vcq->cq[0], sol, false);
	ionic_cq_arm_one(&vcq->cq[1], sol, false);
	return 0;
}

static int ionic_vcq_arm_two_nolock(struct ionic_vcq *vcq, int sol)
{
	ionic_cq_arm_one(&vcq->cq[0], sol, true);
	ionic_cq_arm_one(&vcq->cq[1], sol, true);
	return 0;
}

/* After ionic_vcq_init_poll(), which knows the pipeline of a lone one. */
static void ionic_vcq_init_arm(struct ionic_vcq *vcq)
{
	bool lockfree = vcq->cq[vcq->poll_idx].lockfree;

	if (vcq->udma_mask == 0x3)
		vcq->arm = lockfree ? ionic_vcq_arm_two_nolock :
				      ionic_vcq_arm_two_locked;
	else
		vcq->arm = lockfree ? ionic_vcq_arm_one_nolock :
				      ionic_vcq_arm_one_locked;
}

void ionic_cq_clean(struct ionic_cq *cq, uint32_t qpid)
{
	const uint32_t clean =
		htobe32(IONIC_CQE_QID_CLEANED << IONIC_CQE_QID_SHIFT);
	uint16_t pos = cq->q.prod;
	uint32_t color = cq->color;
	unsigned int n;

	/* every CQE the device has written but the host not yet read */
	for (n = 0; n <= cq->q.mask; n++) {
		struct ionic_cqe *cqe = ionic_queue_at(&cq->q, pos);
		uint32_t qtf;

		if (!ionic_cqe_valid(cqe, color))
			break;
		ionic_from_device_barrier();
		qtf = be32toh(cqe->qid_type_flags);
		if (((qtf >> IONIC_CQE_QID_SHIFT) & IONIC_CQE_QID_MASK) == qpid)
			cqe->qid_type_flags |= clean;

		pos = ionic_queue_next(&cq->q, pos);
		if (!pos)
			color ^= htobe32(IONIC_CQE_COLOR);
	}
}
