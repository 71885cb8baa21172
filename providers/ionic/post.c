// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_post_send / ibv_post_recv (ionic-device.md §16.4, §16.6).
 *
 * Hot path: no allocation, no system call, no logging.  WQEs are built
 * under the queue lock (wqe.c); the CQ lock is then taken respecting the
 * CQ -> SQ/RQ order (try-lock, else back off), CQ credits are spent, and
 * one doorbell publishes every WQE of the call.
 */
#include <errno.h>

#include "qp.h"
#include "qp_priv.h"

int ionic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	struct ionic_sq *sq = &qp->sq;
	struct ionic_cq *cq = qp->send_cq;
	int rc = 0;

	if (unlikely(!bad_wr))
		return EINVAL;

	/* RTS, SQD, SQE and ERR accept WQEs (ERR flushes them) */
	if (unlikely(ibqp->state < IBV_QPS_RTS)) {
		*bad_wr = wr;
		return EINVAL;
	}

	ionic_lock(&sq->lock);

	for (; wr; wr = wr->next) {
		if (unlikely(ionic_queue_full(&sq->q))) {
			rc = ENOMEM;
			break;
		}
		rc = ionic_prep_send(qp, wr);
		if (unlikely(rc))
			break;
	}

	ionic_lock_cq_held(cq, &sq->lock);

	/* WQEs before a failing WR are still rung and will complete */
	ionic_ring_queue(qp->ctx, cq, &sq->q, &sq->prod_rung,
			 qp->ctx->sq_qtype);

	/* a flushing SQ completes new WQEs in software at the next poll */
	if (unlikely(sq->flush))
		ionic_qp_queue_sq_flush(qp);

	ionic_unlock(&sq->lock);
	ionic_unlock(&cq->lock);

	*bad_wr = wr;
	return rc;
}

int ionic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	struct ionic_rq *rq = &qp->rq;
	struct ionic_cq *cq = qp->recv_cq;
	int rc = 0;

	if (unlikely(!bad_wr))
		return EINVAL;

	/* receive buffers may be posted from INIT on, never in RESET */
	if (unlikely(ibqp->state == IBV_QPS_RESET)) {
		*bad_wr = wr;
		return EINVAL;
	}

	ionic_lock(&rq->lock);

	for (; wr; wr = wr->next) {
		if (unlikely(ionic_queue_full(&rq->q))) {
			rc = ENOMEM;
			break;
		}
		rc = ionic_prep_recv(qp, wr);
		if (unlikely(rc))
			break;
	}

	ionic_lock_cq_held(cq, &rq->lock);

	ionic_ring_queue(qp->ctx, cq, &rq->q, &rq->prod_rung,
			 qp->ctx->rq_qtype);

	if (unlikely(rq->flush))
		ionic_qp_queue_rq_flush(qp);

	ionic_unlock(&rq->lock);
	ionic_unlock(&cq->lock);

	*bad_wr = wr;
	return rc;
}
