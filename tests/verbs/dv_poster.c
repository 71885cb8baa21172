// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The device-side poster of dv_poster.h: ring formats from
 * common/ionic_hw.h, the sequence from docs/gpu-direct-verbs.md §4.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../common/ionic_hw.h"
#include "dv_poster.h"
#include "verbs_fixture.h"

#define CREDIT_EVERY 100 /* IONIC_CQ_GRACE, as the GPU stacks use */

static void db_store(const struct ionic_dv_ctx *c, unsigned int qtype,
		     uint64_t val)
{
	volatile uint64_t *reg = c->db_ptr + qtype;

	/* the WQE (or the CQE reads) before the doorbell */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*reg = htole64(val);
}

static void dvp_fail(struct dvp *p, const char *what, uint64_t a, uint64_t b)
{
	if (!p->err[0])
		snprintf(p->err, sizeof(p->err), "qp %u: %s (0x%llx, 0x%llx)",
			 p->qpn, what, (unsigned long long)a,
			 (unsigned long long)b);
}

void dvp_return_credits(struct dvp *p)
{
	db_store(&p->dctx, p->dctx.cq_qtype,
		 p->dcq.q.db_val | (p->cq_pos & p->dcq.q.mask));
	p->unreturned = 0;
}

/* Consume one CQE if there is one; false if none or on error. */
static bool dvp_poll(struct dvp *p)
{
	const struct ionic_dv_queue *q = &p->dcq.q;
	struct ionic_cqe *cqe =
		(struct ionic_cqe *)((uint8_t *)q->ptr +
				     ((p->cq_pos & q->mask) << q->stride_log2));
	bool color = !((p->cq_pos >> q->depth_log2) & 1);
	uint32_t qtf, msn;

	qtf = be32toh(__atomic_load_n(&cqe->qid_type_flags, __ATOMIC_ACQUIRE));
	if (!!(qtf & IONIC_CQE_COLOR) != color)
		return false;
	if (((qtf >> IONIC_CQE_QID_SHIFT) & IONIC_CQE_QID_MASK) != p->qpn) {
		dvp_fail(p, "CQE of another QP", qtf, p->cq_pos);
		return false;
	}
	if (qtf & IONIC_CQE_ERROR) {
		dvp_fail(p, "error CQE", qtf, be32toh(cqe->status_length));
		return false;
	}
	if (((qtf >> IONIC_CQE_TYPE_SHIFT) & IONIC_CQE_TYPE_MASK) !=
	    IONIC_CQE_TYPE_SEND_MSN) {
		dvp_fail(p, "not an MSN CQE", qtf, p->cq_pos);
		return false;
	}
	msn = be32toh(cqe->send.msg_msn) & 0xffffff;
	/* 24-bit serial arithmetic: it moves forward, never past what was
	 * posted */
	if (!((msn - p->msn) & 0xffffff) ||
	    ((msn - p->msn) & 0xffffff) >
		    (((uint32_t)p->sq_pos - p->msn) & 0xffffff)) {
		dvp_fail(p, "MSN out of range", msn, p->sq_pos);
		return false;
	}
	p->msn = msn;
	p->cq_pos++;
	p->cqes++;
	if (++p->unreturned >= CREDIT_EVERY)
		dvp_return_credits(p);
	return true;
}

bool dvp_drain(struct dvp *p, int wait_ms)
{
	uint64_t end = fx_now_ms() + (uint64_t)wait_ms;

	while ((p->msn & 0xffffff) != (p->sq_pos & 0xffffff)) {
		if (p->err[0])
			return false;
		if (!dvp_poll(p)) {
			if (p->err[0])
				return false;
			if (fx_now_ms() > end) {
				dvp_fail(p, "no completion", p->msn, p->sq_pos);
				return false;
			}
			usleep(20);
		}
	}
	return true;
}

void dvp_write_wqe(struct dvp *p, const struct dvp_op *op, bool signal)
{
	const struct ionic_dv_queue *q = &p->dqp.sq;
	struct ionic_wqe *w =
		(struct ionic_wqe *)((uint8_t *)q->ptr +
				     ((p->sq_pos & q->mask) << q->stride_log2));
	uint16_t flags = 0;

	memset((uint8_t *)w + IONIC_WQE_HDR_SIZE, 0,
	       sizeof(*w) - IONIC_WQE_HDR_SIZE);
	w->base.wqe_idx = htole64(p->sq_pos);
	w->base.imm_data_key = 0;
	w->common.length = htobe32(op->len);
	if (op->kind == DVP_SEND_INL) {
		w->base.op = p->fw >= 2 ? IONIC_V2_OP_SEND : IONIC_V1_OP_SEND;
		w->base.num_sge_key = 0;
		memcpy(w->common.pld.data, op->src, op->len);
		flags |= IONIC_WQE_FLAG_INL;
	} else {
		if (op->kind == DVP_SEND) {
			w->base.op = p->fw >= 2 ? IONIC_V2_OP_SEND :
						  IONIC_V1_OP_SEND;
		} else {
			w->base.op = p->fw >= 2 ? IONIC_V2_OP_RDMA_WRITE :
						  IONIC_V1_OP_RDMA_WRITE;
			w->common.rdma.remote_va_high =
				htobe32((uint32_t)(op->remote_va >> 32));
			w->common.rdma.remote_va_low =
				htobe32((uint32_t)op->remote_va);
			w->common.rdma.remote_rkey = htobe32(op->rkey);
		}
		w->base.num_sge_key = 1;
		w->common.pld.sgl[0].va = htobe64((uintptr_t)op->src);
		w->common.pld.sgl[0].len = htobe32(op->len);
		w->common.pld.sgl[0].lkey = htobe32(p->lkey);
	}
	/* colour 1 on the first lap of the ring, flipping every lap */
	if (!((p->sq_pos >> q->depth_log2) & 1))
		flags |= IONIC_WQE_FLAG_COLOR;
	if (signal)
		flags |= IONIC_WQE_FLAG_SIG;
	__atomic_store_n(&w->base.flags, htobe16(flags), __ATOMIC_RELEASE);
	p->sq_pos++;
}

void dvp_ring_sq(struct dvp *p)
{
	db_store(&p->dctx, p->dctx.sq_qtype,
		 p->dqp.sq.db_val | (p->sq_pos & p->dqp.sq.mask));
}
