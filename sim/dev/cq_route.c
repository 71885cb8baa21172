// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: a QP's CQEs to its CQs - each into the send or the
 * receive hardware CQ of the QP's pipeline, the queue marked errored by
 * an error CQE, an overrun CQ failing the QP, and the flush indicators an
 * errored QP owes its queues (once the host made room).
 */
#include <endian.h>
#include <errno.h>

#include "cqe.h"
#include "qp.h"

int idev_qp_cqe(struct idev_qp *d, bool send, const struct ionic_cqe *cqe,
		bool solicited)
{
	struct idev_cq *cq =
		idev_cq_lookup(d->dev, send ? d->sq_cqid : d->rq_cqid);
	int rc;

	if (!cq)
		return -EINVAL;
	rc = idev_cqe_post(cq, cqe, solicited);
	if (!rc) {
		d->cnt.cqes++;
		/* an error or flush CQE puts the host's queue into flush */
		if (be32toh(cqe->qid_type_flags) & IONIC_CQE_ERROR) {
			if (send)
				d->sq_errored = true;
			else
				d->rq_errored = true;
		}
		return 0;
	}
	/*
	 * The CQ overran: this completion is lost, and its work request
	 * would never complete.  The QP goes to ERR with QP_FATAL and owes
	 * the queue a flush indicator, written once the host has made room
	 * (idev_cq_room), so every outstanding WQE completes as flushed
	 * (docs/device-contract.md §8.1).
	 */
	if (send)
		d->sq_lost = true;
	else
		d->rq_lost = true;
	idev_qp_error(d, IDEV_EQE_QP_ERR);
	return rc;
}

/* Work the host still expects a completion for. */
static bool sq_has_work(const struct idev_qp *d)
{
	return d->sq_lost || (d->swqe && d->req.una != d->sq.db_prod);
}

static bool rq_has_work(const struct idev_qp *d)
{
	return d->rq_lost || (d->resp.copy && d->rq.cons != d->rq.db_prod);
}

void idev_qp_flush_indicators(struct idev_qp *d)
{
	struct ionic_cqe cqe;

	/* idev_qp_cqe marks the queue errored once one is written */
	if (!d->sq_errored && sq_has_work(d)) {
		idev_cqe_flush(&cqe, d->qpn, true);
		idev_qp_cqe(d, true, &cqe, true);
	}
	if (!d->rq_errored && rq_has_work(d)) {
		idev_cqe_flush(&cqe, d->qpn, false);
		idev_qp_cqe(d, false, &cqe, true);
	}
}

void idev_cq_room(struct idev_cq *cq)
{
	struct idev_qp *d;

	for (d = cq->dev->qp_list; d; d = d->next)
		if (d->state == IBV_QPS_ERR &&
		    (d->sq_cqid == cq->cqid || d->rq_cqid == cq->cqid))
			idev_qp_flush_indicators(d);
}
