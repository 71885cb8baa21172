/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Between the poll loop (poll.c: phases A and B, the hot path) and the
 * completion of failed and flushed work (poll_error.c: status mapping and
 * phase C, the software flush): the SQ completion state both read and the
 * work-completion writers both use.  Inline, so that the hot path keeps
 * them in its own code.
 */
#ifndef IONIC_POLL_PRIV_H
#define IONIC_POLL_PRIV_H

#include "cq.h"
#include "qp_priv.h"

/* WQEs the device was given and the host has not retired yet. */
static inline uint16_t ionic_sq_outstanding(const struct ionic_sq *sq)
{
	return (sq->pub.prod_rung - sq->q.cons) & sq->q.mask;
}

/* Has the WQE at SQ slot 'cons' completed?  (Outstanding WQEs only.) */
static inline bool ionic_sq_slot_done(const struct ionic_sq *sq, uint16_t cons,
				      uint16_t msn_cons)
{
	const struct ionic_sq_meta *meta = &sq->meta[cons];

	/* a remote WQE is acknowledged once the MSN has moved past it */
	if (meta->remote)
		return meta->seq != msn_cons;
	return meta->local_comp;
}

/* More send WCs can be produced right now (without new CQEs)? */
static inline bool ionic_sq_more(const struct ionic_sq *sq)
{
	return !sq->flush && ionic_sq_outstanding(sq) &&
	       ionic_sq_slot_done(sq, sq->q.cons, sq->msn_cons);
}

static inline void ionic_send_wc(struct ionic_vcq *vcq, struct ionic_qp *qp,
				 const struct ionic_sq_meta *meta,
				 enum ibv_wc_status status, struct ibv_wc *wc)
{
	wc->wr_id = meta->wr_id;
	wc->status = status;
	wc->opcode = meta->ibop;
	wc->vendor_err = status == IBV_WC_SUCCESS ||
					 status == IBV_WC_WR_FLUSH_ERR ?
				 0 :
				 meta->len;
	wc->byte_len = status == IBV_WC_SUCCESS ? meta->len : 0;
	wc->imm_data = 0;
	wc->qp_num = qp->qpid;
	wc->src_qp = 0;
	wc->wc_flags = 0;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	if (vcq->want_ts)
		vcq->cur_ts = meta->ts;
}

static inline void ionic_recv_wc_base(struct ionic_qp *qp, uint64_t wr_id,
				      struct ibv_wc *wc)
{
	wc->wr_id = wr_id;
	wc->opcode = IBV_WC_RECV;
	wc->vendor_err = 0;
	wc->byte_len = 0;
	wc->imm_data = 0;
	wc->qp_num = qp->qpid;
	wc->src_qp = 0;
	wc->wc_flags = 0;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
}

/*
 * poll.c: retire the completed WQEs of qp's SQ in order, writing at most
 * nwc WCs.  Caller holds the CQ lock.
 */
int ionic_poll_send(struct ionic_vcq *vcq, struct ionic_cq *cq,
		    struct ionic_qp *qp, struct ibv_wc *wc, int nwc);

/*
 * poll_error.c: phase C, the software flush of the queues on cq->flush_sq
 * and cq->flush_rq, at most nwc WCs.  Caller holds the CQ lock.
 */
int ionic_poll_phase_c(struct ionic_vcq *vcq, struct ionic_cq *cq,
		       struct ibv_wc *wc, int nwc);

#endif /* IONIC_POLL_PRIV_H */
