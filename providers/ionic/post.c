// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_post_send, ibv_bind_mw, ibv_post_recv (docs/device-contract.md §16.4,
 * §16.6).
 *
 * Hot path: no allocation, no system call, no logging.  WQEs are built
 * under the queue lock (wqe.c); the CQ lock is then taken respecting the
 * CQ -> SQ/RQ order (try-lock, else back off), and publish.h spends the
 * CQ credits and publishes every WQE of the call at once.
 */
#include <errno.h>
#include <string.h>

#include "qp.h"
#include "qp_priv.h"

static int ionic_post_send_path(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr, bool send_path)
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
		rc = ionic_prep_send_path(qp, wr, send_path);
		if (unlikely(rc))
			break;
	}

	ionic_lock_cq_held(cq, &sq->lock);
	/* WQEs before a failing WR are still rung and will complete */
	ionic_sq_publish(qp);
	ionic_unlock(&sq->lock);
	ionic_unlock(&cq->lock);

	*bad_wr = wr;
	return rc;
}

int ionic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	return ionic_post_send_path(ibqp, wr, bad_wr, true);
}

/*
 * ibv_bind_mw (type-1 windows; libibverbs already refused other types):
 * a BIND_MW WQE through the send path, flagged as coming from here.  The
 * new rkey is the next key byte, unchanged for a zero-length unbind; it
 * is stored in the window once the WQE is posted, not at completion
 * (as other providers do: docs/upstream-defects.md D24).
 */
int ionic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	uint32_t rkey;
	int rc;

	if (!mw || !mw_bind)
		return EINVAL;

	rkey = mw_bind->bind_info.length ? ibv_inc_rkey(mw->rkey) : mw->rkey;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = mw_bind->bind_info;

	rc = ionic_post_send_path(ibqp, &wr, &bad, false);
	if (!rc)
		mw->rkey = rkey;
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
	ionic_rq_publish(qp);
	ionic_unlock(&rq->lock);
	ionic_unlock(&cq->lock);

	*bad_wr = wr;
	return rc;
}
