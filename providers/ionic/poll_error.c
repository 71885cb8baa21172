// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Completions of failed and flushed work, the cold side of ibv_poll_cq
 * (poll.c is the hot loop): the device status of an error CQE as an
 * ibv_wc_status, and phase C, the software flush of queues in error
 * (docs/device-contract.md §12.3).
 *
 * A queue flushes in software once an error WC, a device flush indicator
 * or modify_qp(ERR) put it on its CQ's flush list: every WQE still
 * outstanding then gets exactly one WR_FLUSH_ERR WC, oldest first, and
 * gives its CQ credit back.  Phase C runs under the CQ lock and takes the
 * queue's own lock too, since posters may still be writing to it.
 */
#include "poll_priv.h"

enum ibv_wc_status ionic_map_status(uint32_t sts)
{
	static const uint8_t map[] = {
		[IONIC_STS_OK] = IBV_WC_SUCCESS,
		[IONIC_STS_LOCAL_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
		[IONIC_STS_LOCAL_QP_OPER_ERR] = IBV_WC_LOC_QP_OP_ERR,
		[IONIC_STS_LOCAL_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
		[IONIC_STS_WQE_FLUSHED_ERR] = IBV_WC_WR_FLUSH_ERR,
		[IONIC_STS_MEM_MGMT_OPER_ERR] = IBV_WC_MW_BIND_ERR,
		[IONIC_STS_BAD_RESP_ERR] = IBV_WC_BAD_RESP_ERR,
		[IONIC_STS_LOCAL_ACC_ERR] = IBV_WC_LOC_ACCESS_ERR,
		[IONIC_STS_REMOTE_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
		[IONIC_STS_REMOTE_ACC_ERR] = IBV_WC_REM_ACCESS_ERR,
		[IONIC_STS_REMOTE_OPER_ERR] = IBV_WC_REM_OP_ERR,
		[IONIC_STS_RETRY_EXCEEDED] = IBV_WC_RETRY_EXC_ERR,
		[IONIC_STS_RNR_RETRY_EXCEEDED] = IBV_WC_RNR_RETRY_EXC_ERR,
		[IONIC_STS_XRC_VIO_ERR] = IBV_WC_GENERAL_ERR,
		/* as the kernel does; upstream says GENERAL_ERR
		 * (docs/upstream-defects.md D25) */
		[IONIC_STS_LOCAL_SGL_INV_ERR] = IBV_WC_LOC_QP_OP_ERR,
	};

	if (sts >= sizeof(map) / sizeof(map[0]))
		return IBV_WC_GENERAL_ERR;
	/* an error CQE must never read as success */
	return sts == IONIC_STS_OK ? IBV_WC_GENERAL_ERR : map[sts];
}

/* ---- send side ------------------------------------------------------ */

/* Flush: one WR_FLUSH_ERR WC for every outstanding WQE, oldest first. */
static int ionic_flush_send(struct ionic_vcq *vcq, struct ionic_cq *cq,
			    struct ionic_qp *qp, struct ibv_wc *wc, int nwc)
{
	struct ionic_sq *sq = &qp->sq;
	int npolled = 0;

	while (npolled < nwc && !ionic_queue_empty(&sq->q)) {
		const struct ionic_sq_meta *meta = &sq->meta[sq->q.cons];

		sq->q.cons = ionic_queue_next(&sq->q, sq->q.cons);
		/* flushed WQEs return their credit too (upstream:
		 * docs/upstream-defects.md D15) */
		ionic_cq_credit(&cq->pub, 1);
		ionic_send_wc(vcq, qp, meta, IBV_WC_WR_FLUSH_ERR,
			      &wc[npolled++]);
	}
	return npolled;
}

/* ---- receive side --------------------------------------------------- */

/* Flush: one WR_FLUSH_ERR WC per posted receive, oldest first. */
static int ionic_flush_recv(struct ionic_cq *cq, struct ionic_qp *qp,
			    struct ibv_wc *wc, int nwc)
{
	struct ionic_rq *rq = &qp->rq;
	unsigned int scanned = 0;
	uint16_t pos;
	int npolled = 0;

	/*
	 * Posted slots are [cons, prod) unless the device once completed
	 * out of order; then they can be anywhere in the ring, oldest first
	 * starting just after prod.  Either way one WC per posted slot.
	 */
	pos = rq->ooo ? ionic_queue_next(&rq->q, rq->q.prod) : rq->q.cons;

	while (npolled < nwc && !ionic_queue_empty(&rq->q)) {
		struct ionic_rq_meta *meta = &rq->meta[pos];

		/* never spin: a whole lap without a posted slot is a bug */
		if (unlikely(scanned++ > rq->q.mask)) {
			rq->q.cons = rq->q.prod;
			break;
		}
		pos = ionic_queue_next(&rq->q, pos);
		if (!meta->posted)
			continue;

		meta->posted = false;
		rq->q.cons = ionic_queue_next(&rq->q, rq->q.cons);
		ionic_cq_credit(&cq->pub, 1);
		ionic_recv_wc_base(qp, meta->wr_id, &wc[npolled]);
		wc[npolled++].status = IBV_WC_WR_FLUSH_ERR;
	}
	if (ionic_queue_empty(&rq->q))
		rq->ooo = false;
	return npolled;
}

/* ---- phase C -------------------------------------------------------- */

/*
 * Phase C, one QP's SQ: a queue that went to ERR by modify_qp first
 * reports what phase B found complete (flush_req), then flushes the rest.
 * A flush that an error CQE or a device flush indicator started after the
 * modify serves the request as well: without clearing it the QP would
 * never be done and would block every QP behind it on the list.
 * *done once it has nothing left to report.
 */
static int ionic_flush_sq_step(struct ionic_vcq *vcq, struct ionic_cq *cq,
			       struct ionic_qp *qp, struct ibv_wc *wc, int nwc,
			       bool *done)
{
	struct ionic_sq *sq = &qp->sq;
	int npolled = 0;

	ionic_lock(&sq->lock);
	if (sq->flush_req && !sq->flush) {
		npolled += ionic_poll_send(vcq, cq, qp, wc, nwc);
		if (!ionic_sq_more(sq)) {
			sq->flush_req = false;
			sq->flush = true;
		}
	}
	if (sq->flush) {
		sq->flush_req = false;
		npolled += ionic_flush_send(vcq, cq, qp, wc + npolled,
					    nwc - npolled);
	}
	*done = !sq->flush_req && (!sq->flush || ionic_queue_empty(&sq->q));
	ionic_unlock(&sq->lock);
	return npolled;
}

/*
 * Phase C, one QP's RQ.  Receives complete in phase B directly, so an RQ
 * that went to ERR has nothing to report first: it flushes at once.
 */
static int ionic_flush_rq_step(struct ionic_cq *cq, struct ionic_qp *qp,
			       struct ibv_wc *wc, int nwc, bool *done)
{
	struct ionic_rq *rq = &qp->rq;
	int npolled = 0;

	ionic_lock(&rq->lock);
	if (rq->flush_req) {
		rq->flush_req = false;
		rq->flush = true;
	}
	if (rq->flush)
		npolled = ionic_flush_recv(cq, qp, wc, nwc);
	*done = !rq->flush || ionic_queue_empty(&rq->q);
	ionic_unlock(&rq->lock);
	return npolled;
}

/*
 * Phase C over the QPs on cq->flush_sq ('send') or cq->flush_rq, oldest
 * first.  A QP leaves the list once done; the first one that is not (or
 * a full output) stops the walk and keeps the CQ flagged for next time.
 */
static int ionic_flush_qps(struct ionic_vcq *vcq, struct ionic_cq *cq,
			   bool send, struct ibv_wc *wc, int nwc)
{
	struct ionic_list *head = send ? &cq->flush_sq : &cq->flush_rq;
	struct ionic_list *pos, *next;
	int npolled = 0;

	for (pos = head->next; pos != head; pos = next) {
		struct ionic_qp *qp;
		bool done;

		next = pos->next;
		if (npolled >= nwc)
			break;
		if (send) {
			qp = container_of(pos, struct ionic_qp, cq_flush_sq);
			npolled += ionic_flush_sq_step(vcq, cq, qp,
						       wc + npolled,
						       nwc - npolled, &done);
		} else {
			qp = container_of(pos, struct ionic_qp, cq_flush_rq);
			npolled += ionic_flush_rq_step(cq, qp, wc + npolled,
						       nwc - npolled, &done);
		}
		if (!done)
			break;
		ionic_list_del(pos);
	}
	if (pos != head)
		ionic_cq_flag_set(&cq->flush, true);
	return npolled;
}

/* Phase C: software flush of the send side, then the receive side. */
int ionic_poll_phase_c(struct ionic_vcq *vcq, struct ionic_cq *cq,
		       struct ibv_wc *wc, int nwc)
{
	int npolled;

	ionic_cq_flag_set(&cq->flush, false);
	npolled = ionic_flush_qps(vcq, cq, true, wc, nwc);
	npolled += ionic_flush_qps(vcq, cq, false, wc + npolled, nwc - npolled);
	return npolled;
}
