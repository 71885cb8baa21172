// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The oracle of the provider-cq fuzz target (provider_cq.c lists what it
 * checks): after every poll, the WCs against the requests the model says
 * are outstanding, the queues' consumer indexes, the CQ credits and how
 * far the host read each CQ ring.  A violation ends the run (FUZZ_CHECK).
 */
#include "provider_cq.h"

static bool fz_is_recv_op(enum ibv_wc_opcode op)
{
	return op == IBV_WC_RECV || op == IBV_WC_RECV_RDMA_WITH_IMM;
}

static struct fz_qp *fz_qp_by_num(struct fz *fz, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < fz->nqp; i++)
		if (fz->qp[i].qp && fz->qp[i].qpid == qpn)
			return &fz->qp[i];
	return NULL;
}

/*
 * The send WCs of one poll for 'f', in order, against the requests the
 * provider retired meanwhile (its SQ consumer index moved by 'retired').
 */
static void fz_check_send(struct fz_qp *f, const struct ibv_wc *wc,
			  unsigned int nwc)
{
	struct fz_queue *q = &f->sq;
	uint16_t cons = f->qp->sq.q.cons;
	unsigned int retired = (uint16_t)(cons - q->cons) & f->qp->sq.q.mask;
	unsigned int i, w = 0;

	FUZZ_CHECK(retired <= fz_len(q),
		   "QP %u: %u sends retired, %u outstanding", f->qpid, retired,
		   fz_len(q));
	for (i = 0; i < retired; i++) {
		struct fz_wr *e = fz_at(q, q->head + i);

		if (w < nwc && wc[w].wr_id == e->wr_id) {
			const struct ibv_wc *c = &wc[w++];

			FUZZ_CHECK(c->opcode == e->wc_op,
				   "QP %u wr %#llx: opcode %d, posted %d",
				   f->qpid, (unsigned long long)e->wr_id,
				   c->opcode, e->wc_op);
			if (c->status == IBV_WC_SUCCESS) {
				FUZZ_CHECK(e->signaled,
					   "QP %u wr %#llx: WC for an "
					   "unsignalled success",
					   f->qpid,
					   (unsigned long long)e->wr_id);
				FUZZ_CHECK(!q->failed,
					   "QP %u wr %#llx: success after the "
					   "SQ failed",
					   f->qpid,
					   (unsigned long long)e->wr_id);
			} else {
				FUZZ_CHECK(
					!q->failed ||
						c->status ==
							IBV_WC_WR_FLUSH_ERR,
					"QP %u wr %#llx: status %d after the "
					"SQ failed",
					f->qpid, (unsigned long long)e->wr_id,
					c->status);
				q->failed = true;
			}
			continue;
		}
		/* retired without a WC: only an unsignalled success */
		FUZZ_CHECK(!e->signaled,
			   "QP %u wr %#llx: signalled, retired without a WC",
			   f->qpid, (unsigned long long)e->wr_id);
		FUZZ_CHECK(!q->failed,
			   "QP %u wr %#llx: retired silently after the SQ "
			   "failed",
			   f->qpid, (unsigned long long)e->wr_id);
	}
	FUZZ_CHECK(w == nwc,
		   "QP %u: send WC wr_id %#llx is no request retired in order",
		   f->qpid, (unsigned long long)wc[w].wr_id);
	q->head += retired;
	if (q->dev_next < q->head)
		q->dev_next = q->head;
	q->cons = cons;
}

static void fz_check_recv(struct fz_qp *f, const struct ibv_wc *c)
{
	struct fz_queue *q = &f->rq;
	unsigned int i;

	for (i = q->head; i != q->tail; i++) {
		struct fz_wr *e = fz_at(q, i);

		if (e->done || e->wr_id != c->wr_id)
			continue;
		e->done = true;
		FUZZ_CHECK(c->status == IBV_WC_WR_FLUSH_ERR || !q->failed,
			   "QP %u recv %#llx: status %d after the RQ failed",
			   f->qpid, (unsigned long long)c->wr_id, c->status);
		if (c->status != IBV_WC_SUCCESS)
			q->failed = true;
		/* drop the reported prefix */
		while (q->head != q->tail && fz_at(q, q->head)->done)
			q->head++;
		if (q->dev_next < q->head)
			q->dev_next = q->head;
		return;
	}
	FUZZ_CHECK(false, "QP %u: receive WC wr_id %#llx was never posted",
		   f->qpid, (unsigned long long)c->wr_id);
}

/* Outstanding requests of every live QP on hardware CQ 'cq'. */
static int fz_outstanding_on(struct fz *fz, const struct ionic_cq *cq)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < fz->nqp; i++) {
		struct fz_qp *f = &fz->qp[i];

		if (!f->qp)
			continue;
		if (f->qp->send_cq == cq)
			n += ionic_queue_length(&f->qp->sq.q);
		if (f->qp->recv_cq == cq)
			n += ionic_queue_length(&f->qp->rq.q);
	}
	return n;
}

/* Invariants of every hardware CQ of vCQ 'v'; 'drained': poll < asked. */
void fz_check_cqs(struct fz *fz, unsigned int v, bool drained)
{
	unsigned int u;

	for (u = 0; u < IONIC_MAX_UDMA; u++) {
		struct fz_hwcq *hw = fz_hw_of(fz, v, u);
		const struct ionic_cq *cq = &fz->vcq[v]->cq[u];
		unsigned int slots = cq->q.mask + 1u;
		unsigned int read;

		if (!(fz->vcq[v]->udma_mask & (1u << u)))
			continue;

		FUZZ_CHECK(cq->pub.reserve + cq->pub.reserve_pending +
					   fz_outstanding_on(fz, cq) ==
				   (int)cq->q.mask,
			   "CQ %u: credits %d + %d + %d outstanding != %u",
			   cq->cqid, cq->pub.reserve, cq->pub.reserve_pending,
			   fz_outstanding_on(fz, cq), cq->q.mask);

		/* how far the host read: a whole lap if only the colour moved */
		read = (uint16_t)(cq->q.prod - hw->prod) & cq->q.mask;
		if (!read && !!cq->color != hw->color)
			read = slots;
		hw->prod = cq->q.prod;
		hw->color = !!cq->color;
		if (hw->overrun)
			continue;
		FUZZ_CHECK(read <= hw->unread,
			   "CQ %u: host read %u CQEs, the device wrote %u",
			   cq->cqid, read, hw->unread);
		hw->unread -= read;
		if (drained)
			FUZZ_CHECK(!hw->unread && cq->q.prod == hw->d.pos &&
					   !!cq->color == hw->d.color,
				   "CQ %u stalls: host at %u, device at %u, "
				   "%u unread",
				   cq->cqid, cq->q.prod, hw->d.pos, hw->unread);
	}
}

/* Check the WCs of one poll of vCQ 'v'. */
void fz_check_poll(struct fz *fz, unsigned int v, const struct ibv_wc *wc,
		   unsigned int nwc, bool drained)
{
	struct ibv_wc sends[16];
	unsigned int i, j, n;

	for (i = 0; i < nwc; i++) {
		struct fz_qp *f = fz_qp_by_num(fz, wc[i].qp_num);

		FUZZ_CHECK(f,
			   "WC wr_id %#llx names QP %u, which does not exist",
			   (unsigned long long)wc[i].wr_id, wc[i].qp_num);
		if (fz_is_recv_op(wc[i].opcode)) {
			FUZZ_CHECK(fz->vcq[f->recv_vcq] == fz->vcq[v],
				   "QP %u: receive WC on another CQ", f->qpid);
			fz_check_recv(f, &wc[i]);
		} else {
			FUZZ_CHECK(fz->vcq[f->send_vcq] == fz->vcq[v],
				   "QP %u: send WC on another CQ", f->qpid);
		}
	}
	/* send WCs per QP, in order, against what each SQ retired */
	for (j = 0; j < fz->nqp; j++) {
		struct fz_qp *f = &fz->qp[j];

		if (!f->qp)
			continue;
		for (i = n = 0; i < nwc; i++)
			if (wc[i].qp_num == f->qpid &&
			    !fz_is_recv_op(wc[i].opcode))
				sends[n++] = wc[i];
		fz_check_send(f, sends, n);
		/* one WC for every receive retired, none without */
		for (i = n = 0; i < nwc; i++)
			n += wc[i].qp_num == f->qpid &&
			     fz_is_recv_op(wc[i].opcode);
		FUZZ_CHECK(((uint16_t)(f->qp->rq.q.cons - f->rq.cons) &
			    f->qp->rq.q.mask) == n,
			   "QP %u: %u receive WCs, RQ moved from %u to %u",
			   f->qpid, n, f->rq.cons, f->qp->rq.q.cons);
		f->rq.cons = f->qp->rq.q.cons;
	}
	fz_check_cqs(fz, v, drained);
}
