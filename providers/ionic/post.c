// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_post_send, ibv_bind_mw, ibv_post_recv (ionic-device.md §16.4, §16.6),
 * and the copy of posted WQEs to queues in controller memory (§11.4).
 *
 * Hot path: no allocation, no system call, no logging.  WQEs are built
 * under the queue lock (wqe.c); the CQ lock is then taken respecting the
 * CQ -> SQ/RQ order (try-lock, else back off), CQ credits are spent, and
 * one doorbell publishes every WQE of the call.
 */
#include <errno.h>
#include <string.h>

#include "qp.h"
#include "qp_priv.h"

/* Copy slots [from, to) of the host ring to the same offsets of 'win'. */
static void ionic_cmb_copy_slots(const struct ionic_queue *q,
				 volatile uint64_t *win, uint16_t from,
				 uint16_t to)
{
	unsigned int qw_log2 = q->stride_log2 - 3; /* 64-bit words a slot */
	const uint64_t *ring = q->ptr;

	if (to < from) {
		/* wrapped: the tail of the ring first, then from slot 0 */
		ionic_cmb_copy(win + ((size_t)from << qw_log2),
			       ring + ((size_t)from << qw_log2),
			       ((size_t)q->mask + 1 - from) << qw_log2);
		from = 0;
	}
	ionic_cmb_copy(win + ((size_t)from << qw_log2),
		       ring + ((size_t)from << qw_log2),
		       (size_t)(to - from) << qw_log2);
}

/*
 * Express doorbells (ionic-device.md §11.3-11.4): every WQE is copied in
 * 64-byte chunks in ascending order, each chunk ordered after the earlier
 * ones; writing the last chunk, whose trailer (pre-filled at creation)
 * names the queue and the next producer index, is that WQE's doorbell.
 * A WC mapping is drained before each last chunk, and once more after
 * the final one so the batch cannot linger in the WC buffers (D17).
 */
static void ionic_cmb_copy_expdb(const struct ionic_queue *q,
				 const struct ionic_cmb *cmb, uint16_t from,
				 uint16_t to)
{
	size_t chunks = ionic_queue_stride(q) / IONIC_CMB_CHUNK;
	volatile uint64_t *win = cmb->ptr;
	const uint64_t *ring = q->ptr;
	const size_t qw = IONIC_CMB_CHUNK / sizeof(uint64_t);

	for (uint16_t pos = from; pos != to; pos = ionic_queue_next(q, pos)) {
		size_t base =
			((size_t)pos << q->stride_log2) / sizeof(uint64_t);

		for (size_t c = 0; c < chunks; c++) {
			ionic_to_device_barrier();
			if (c == chunks - 1 && cmb->wc)
				ionic_wc_flush();
			ionic_cmb_copy(win + base + c * qw,
				       ring + base + c * qw, qw);
		}
	}
	if (cmb->wc)
		ionic_wc_flush();
}

/*
 * The express-doorbell trailer of every slot, in the host ring, once
 * (ionic-device.md §11.2, §11.4): WQE preparation leaves the last 8 bytes
 * alone, and the copy to the window carries the trailer along.  Its index
 * is the producer index after that WQE.
 */
void ionic_expdb_prefill(struct ionic_queue *q, unsigned int qtype,
			 uint32_t qpid)
{
	size_t stride = ionic_queue_stride(q);
	uint64_t val;

	for (uint32_t pos = 0; pos <= q->mask; pos++) {
		val = ((uint64_t)qtype << IONIC_DBELL_QTYPE_SHIFT) |
		      ionic_dbell_val(qpid, 0,
				      (uint16_t)((pos + 1) & q->mask)) |
		      (IONIC_DBELL_EXPDB_SCHED
		       << IONIC_DBELL_EXPDB_SCHED_SHIFT);
		val = htole64(val);
		memcpy((uint8_t *)q->ptr + pos * stride + stride -
			       IONIC_EXP_DBELL_SZ,
		       &val, sizeof(val));
	}
}

void ionic_ring_cmb(struct ionic_ctx *ctx, struct ionic_cq *cq,
		    struct ionic_queue *q, uint16_t *prod_rung,
		    unsigned int qtype, const struct ionic_cmb *cmb)
{
	uint16_t from = *prod_rung, prod = q->prod;

	/*
	 * Credits first: with express doorbells the device may run as soon
	 * as the first WQE's last chunk lands.  The last doorbell's index
	 * doubles as the copy position (upstream's cmb_prod): both advance
	 * only here and restart at 0 on RESET.
	 */
	ionic_cq_reserve(ctx, cq, (prod - from) & q->mask);
	*prod_rung = prod;

	if (cmb->expdb) {
		ionic_cmb_copy_expdb(q, cmb, from, prod);
		return;
	}

	/* regular CMB: copy everything, drain WC, then the usual doorbell */
	ionic_cmb_copy_slots(q, cmb->ptr, from, prod);
	if (cmb->wc)
		ionic_wc_flush();
	ionic_to_device_barrier();
	ionic_dbell_write(ctx->dbpage, qtype, q->dbell | prod);
}

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
	ionic_sq_ring(qp);
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
 * (as other providers do: D24).
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
	ionic_rq_ring(qp);
	ionic_unlock(&rq->lock);
	ionic_unlock(&cq->lock);

	*bad_wr = wr;
	return rc;
}
