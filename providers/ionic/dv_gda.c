// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Direct verbs for GPU-initiated networking (ionic_dv.h; facts in
 * docs/gpu-direct-verbs.md §2-§4): descriptors of the doorbell page and of
 * the rings, so that code outside the provider can post work requests,
 * ring doorbells and poll completions itself, and GDA mode, in which the
 * provider writes work requests but leaves the doorbell to the
 * application (publish.h, IONIC_PUB_GDA).
 *
 * All exported at IONIC_1.0 and IONIC_1.1 (dv_priv.h).
 */
#include <errno.h>
#include <string.h>

#include "dv_priv.h"

/* ---- GDA mode -------------------------------------------------------- */

static bool dv_queue_is_expdb(const struct ionic_pub *pub)
{
	return (pub->mode & ~IONIC_PUB_GDA) == IONIC_PUB_EXPDB;
}

/*
 * Both requests are checked before either queue changes, so a refused
 * call changes nothing.  The placement of a queue is fixed at creation,
 * so the check needs no lock; the mode byte is changed under the queue
 * lock, which every publish holds.
 */
static int dv_qp_set_gda(struct ibv_qp *ibqp, bool enable_send,
			 bool enable_recv)
{
	struct ionic_qp *qp = ionic_dv_qp(ibqp);

	if (!qp)
		return EPERM;
	if ((enable_send && dv_queue_is_expdb(&qp->sq.pub)) ||
	    (enable_recv && dv_queue_is_expdb(&qp->rq.pub)))
		return EINVAL;

	ionic_lock(&qp->sq.lock);
	ionic_pub_set_gda(&qp->sq.pub, enable_send);
	ionic_unlock(&qp->sq.lock);

	ionic_lock(&qp->rq.lock);
	ionic_pub_set_gda(&qp->rq.pub, enable_recv);
	ionic_unlock(&qp->rq.lock);
	return 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_qp_set_gda, dv_qp_set_gda);

/*
 * The value of the doorbell that publishes everything the provider has
 * published (or held back) so far on the send ('sq') or receive queue:
 * the producer index of the last completed post, never that of an
 * ibv_wr_* batch still being built (the batch holds the SQ lock).
 */
static int dv_qp_get_dbell_data(struct ibv_qp *ibqp, bool sq, uint64_t *dbdata)
{
	struct ionic_qp *qp = ionic_dv_qp(ibqp);
	struct ionic_lock *lock;
	const struct ionic_pub *pub;
	const struct ionic_queue *q;

	if (!qp)
		return EPERM;
	if (!dbdata)
		return EINVAL;

	lock = sq ? &qp->sq.lock : &qp->rq.lock;
	pub = sq ? &qp->sq.pub : &qp->rq.pub;
	q = sq ? &qp->sq.q : &qp->rq.q;
	ionic_lock(lock);
	*dbdata = ionic_pub_dbell_val(q, pub->prod_rung);
	ionic_unlock(lock);
	return 0;
}

static int dv_qp_get_send_dbell_data(struct ibv_qp *ibqp, uint64_t *dbdata)
{
	return dv_qp_get_dbell_data(ibqp, true, dbdata);
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_qp_get_send_dbell_data,
			    dv_qp_get_send_dbell_data);

static int dv_qp_get_recv_dbell_data(struct ibv_qp *ibqp, uint64_t *dbdata)
{
	return dv_qp_get_dbell_data(ibqp, false, dbdata);
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_qp_get_recv_dbell_data,
			    dv_qp_get_recv_dbell_data);

/* ---- descriptors ----------------------------------------------------- */

static int dv_get_ctx(struct ionic_dv_ctx *dvctx, struct ibv_context *ibctx)
{
	struct ionic_ctx *ctx = ionic_dv_ctx(ibctx);

	if (!ctx)
		return EPERM;
	if (!dvctx)
		return EINVAL;

	memset(dvctx, 0, sizeof(*dvctx));
	dvctx->db_page = ctx->dbpage_map;
	dvctx->db_ptr = (uint64_t *)ctx->dbpage;
	dvctx->sq_qtype = ctx->sq_qtype;
	dvctx->rq_qtype = ctx->rq_qtype;
	dvctx->cq_qtype = ctx->cq_qtype;
	return 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_get_ctx, dv_get_ctx);

/* One ring as the device sees it, at 'ptr' (host ring or CMB window). */
static void dv_fill_queue(struct ionic_dv_queue *dq,
			  const struct ionic_queue *q, void *ptr)
{
	memset(dq, 0, sizeof(*dq));
	dq->ptr = ptr;
	dq->size = q->size;
	dq->db_val = q->dbell;
	dq->mask = q->mask;
	dq->depth_log2 = q->depth_log2;
	dq->stride_log2 = q->stride_log2;
}

static int dv_get_cq(struct ionic_dv_cq *dvcq, struct ibv_cq *ibcq,
		     uint8_t udma_idx)
{
	struct ionic_vcq *vcq = ionic_dv_vcq(ibcq);
	struct ionic_cq *cq;

	if (!vcq)
		return EPERM;
	if (!dvcq || udma_idx >= IONIC_MAX_UDMA ||
	    !(vcq->udma_mask & (1u << udma_idx)))
		return EINVAL;

	cq = &vcq->cq[udma_idx];
	dv_fill_queue(&dvcq->q, &cq->q, cq->q.ptr);
	return 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_get_cq, dv_get_cq);

/*
 * A queue in controller memory is read by the device from its window, so
 * that is the ring to describe; the host ring is only the provider's
 * staging copy.
 */
static void *dv_device_ring(const struct ionic_pub *pub,
			    const struct ionic_queue *q)
{
	return pub->win ? (void *)pub->win : q->ptr;
}

static int dv_get_qp(struct ionic_dv_qp *dvqp, struct ibv_qp *ibqp)
{
	struct ionic_qp *qp = ionic_dv_qp(ibqp);

	if (!qp)
		return EPERM;
	if (!dvqp)
		return EINVAL;

	dv_fill_queue(&dvqp->rq, &qp->rq.q,
		      dv_device_ring(&qp->rq.pub, &qp->rq.q));
	dv_fill_queue(&dvqp->sq, &qp->sq.q,
		      dv_device_ring(&qp->sq.pub, &qp->sq.q));
	return 0;
}
IONIC_DV_EXPORT_1_0_AND_1_1(ionic_dv_get_qp, dv_get_qp);
