// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Extended send API (ibv_wr_*; ionic-device.md §16.5) for the opcodes the
 * WQE preparer supports: SEND and SEND_WITH_IMM on RC and UD, with
 * wr_set_ud_addr for UD (upstream gives UD QPs RC-format WQEs: D5).
 *
 * wr_start takes the send CQ lock then the SQ lock (the CQ -> SQ order)
 * and holds both until wr_complete / wr_abort.  A builder records a WR
 * template; the data setter completes it and prepares the WQE at once
 * through the same preparer as ibv_post_send.  The first error is sticky
 * and returned by wr_complete, which then discards the whole batch.
 * Every WR checks for a full SQ (upstream: D4) and wr_abort restores the
 * producer index, MSN producer and colour (upstream: D3).
 *
 * Builders of opcodes not supported yet set EOPNOTSUPP, so a client that
 * calls them gets an error from wr_complete instead of a crash.
 */
#include <errno.h>
#include <string.h>

#include "qp_priv.h"

#define IONIC_WR_INLINE_BUFS 16

static inline struct ionic_qp *qpx_to_qp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct ionic_qp, vqp.qp_ex);
}

static inline void ionic_wr_fail(struct ionic_qp *qp, int err)
{
	if (!qp->wrx.err)
		qp->wrx.err = err;
	qp->wrx.pending = false;
}

static void ionic_wr_start(struct ibv_qp_ex *qpx)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);
	struct ionic_sq *sq = &qp->sq;

	ionic_lock(&qp->send_cq->lock);
	ionic_lock(&sq->lock);

	qp->wrx.err = qp->vqp.qp.state < IBV_QPS_RTS ? EINVAL : 0;
	qp->wrx.pending = false;
	qp->wrx.start_prod = sq->q.prod;
	qp->wrx.start_msn = sq->msn_prod;
	qp->wrx.start_color = sq->color;
}

static void ionic_wr_rollback(struct ionic_qp *qp)
{
	struct ionic_sq *sq = &qp->sq;

	sq->q.prod = qp->wrx.start_prod;
	sq->msn_prod = qp->wrx.start_msn;
	sq->color = qp->wrx.start_color;
	qp->wrx.pending = false;
}

static int ionic_wr_complete(struct ibv_qp_ex *qpx)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);
	struct ionic_sq *sq = &qp->sq;
	struct ionic_cq *cq = qp->send_cq;
	int err = qp->wrx.err;

	/* a builder without its data setter is an incomplete WR */
	if (!err && qp->wrx.pending)
		err = EINVAL;

	if (err) {
		ionic_wr_rollback(qp);
	} else {
		ionic_ring_queue(qp->ctx, cq, &sq->q, &sq->prod_rung,
				 qp->ctx->sq_qtype);
		if (unlikely(sq->flush))
			ionic_qp_queue_sq_flush(qp);
	}

	ionic_unlock(&sq->lock);
	ionic_unlock(&cq->lock);
	return err;
}

static void ionic_wr_abort(struct ibv_qp_ex *qpx)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	ionic_wr_rollback(qp);
	ionic_unlock(&qp->sq.lock);
	ionic_unlock(&qp->send_cq->lock);
}

/* Start a WR template for opcode 'op' (builders). */
static inline struct ibv_send_wr *ionic_wr_begin(struct ibv_qp_ex *qpx,
						 enum ibv_wr_opcode op)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);
	struct ibv_send_wr *wr = &qp->wrx.wr;

	if (qp->wrx.err)
		return NULL;
	/* the previous WR never got its data: that one is incomplete */
	if (qp->wrx.pending) {
		ionic_wr_fail(qp, EINVAL);
		return NULL;
	}

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = qpx->wr_id;
	wr->opcode = op;
	wr->send_flags = qpx->wr_flags;
	qp->wrx.pending = true;
	return wr;
}

static void ionic_wr_send(struct ibv_qp_ex *qpx)
{
	ionic_wr_begin(qpx, IBV_WR_SEND);
}

static void ionic_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct ibv_send_wr *wr = ionic_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm_data;
}

static void ionic_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	if (qp->wrx.err)
		return;
	if (!qp->wrx.pending || !qp->is_ud || !ah) {
		ionic_wr_fail(qp, EINVAL);
		return;
	}
	qp->wrx.wr.wr.ud.ah = ah;
	qp->wrx.wr.wr.ud.remote_qpn = remote_qpn;
	qp->wrx.wr.wr.ud.remote_qkey = remote_qkey;
}

/* Data setters end a WR: prepare its WQE now. */
static void ionic_wr_finish(struct ionic_qp *qp,
			    const struct ibv_sge *sgl, int num_sge,
			    unsigned int extra_flags)
{
	struct ibv_send_wr *wr = &qp->wrx.wr;
	int rc;

	if (qp->wrx.err)
		return;
	if (!qp->wrx.pending) {
		ionic_wr_fail(qp, EINVAL);
		return;
	}
	if (ionic_queue_full(&qp->sq.q)) {
		ionic_wr_fail(qp, ENOMEM);
		return;
	}

	wr->sg_list = (struct ibv_sge *)sgl;
	wr->num_sge = num_sge;
	wr->send_flags |= extra_flags;
	rc = ionic_prep_send(qp, wr);
	if (rc)
		ionic_wr_fail(qp, rc);
	qp->wrx.pending = false;
}

static void ionic_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	qp->wrx.sge.addr = addr;
	qp->wrx.sge.length = length;
	qp->wrx.sge.lkey = lkey;
	ionic_wr_finish(qp, &qp->wrx.sge, 1, 0);
}

static void ionic_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	if (num_sge > qp->sq.max_sge) {
		ionic_wr_fail(qp, EINVAL);
		return;
	}
	ionic_wr_finish(qp, sg_list, (int)num_sge, 0);
}

static void ionic_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	if (length > qp->sq.max_inline) {
		ionic_wr_fail(qp, EINVAL);
		return;
	}
	qp->wrx.sge.addr = (uintptr_t)addr;
	qp->wrx.sge.length = (uint32_t)length;
	qp->wrx.sge.lkey = 0;
	ionic_wr_finish(qp, &qp->wrx.sge, 1, IBV_SEND_INLINE);
}

static void ionic_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);
	struct ibv_sge sgl[IONIC_WR_INLINE_BUFS];
	size_t i;

	/* no allocation on the data path: a bounded on-stack list */
	if (num_buf > IONIC_WR_INLINE_BUFS) {
		ionic_wr_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->sq.max_inline) {
			ionic_wr_fail(qp, EINVAL);
			return;
		}
		sgl[i].addr = (uintptr_t)buf_list[i].addr;
		sgl[i].length = (uint32_t)buf_list[i].length;
		sgl[i].lkey = 0;
	}
	ionic_wr_finish(qp, sgl, (int)num_buf, IBV_SEND_INLINE);
}

/* ---- opcodes the preparer does not support yet ---------------------- */

static void ionic_wr_unsupported(struct ibv_qp_ex *qpx)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	if (!qp->wrx.err)
		ionic_wr_fail(qp, EOPNOTSUPP);
}

static void ionic_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	(void)rkey;
	(void)remote_addr;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	(void)rkey;
	(void)remote_addr;
	(void)imm_data;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	(void)rkey;
	(void)remote_addr;
	(void)compare;
	(void)swap;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	(void)rkey;
	(void)remote_addr;
	(void)add;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	(void)mw;
	(void)rkey;
	(void)bind_info;
	ionic_wr_unsupported(qpx);
}

/* wr_local_inv, wr_send_inv, wr_rdma_read and wr_set_xrc_srqn share it */
static void ionic_wr_rkey_op(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	(void)rkey;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	(void)remote_addr;
	ionic_wr_rkey_op(qpx, rkey);
}

static void ionic_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr,
			      uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	(void)rkey;
	(void)remote_addr;
	(void)atomic_wr;
	ionic_wr_unsupported(qpx);
}

void ionic_qp_init_wr(struct ionic_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_start = ionic_wr_start;
	qpx->wr_complete = ionic_wr_complete;
	qpx->wr_abort = ionic_wr_abort;

	qpx->wr_send = ionic_wr_send;
	qpx->wr_send_imm = ionic_wr_send_imm;
	qpx->wr_set_ud_addr = ionic_wr_set_ud_addr;
	qpx->wr_set_sge = ionic_wr_set_sge;
	qpx->wr_set_sge_list = ionic_wr_set_sge_list;
	qpx->wr_set_inline_data = ionic_wr_set_inline_data;
	qpx->wr_set_inline_data_list = ionic_wr_set_inline_data_list;

	qpx->wr_rdma_write = ionic_wr_rdma_write;
	qpx->wr_rdma_write_imm = ionic_wr_rdma_write_imm;
	qpx->wr_rdma_read = ionic_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = ionic_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = ionic_wr_atomic_fetch_add;
	qpx->wr_bind_mw = ionic_wr_bind_mw;
	qpx->wr_local_inv = ionic_wr_rkey_op;
	qpx->wr_send_inv = ionic_wr_rkey_op;
	qpx->wr_send_tso = ionic_wr_send_tso;
	qpx->wr_set_xrc_srqn = ionic_wr_rkey_op;
	qpx->wr_atomic_write = ionic_wr_atomic_write;

	/* set after the create command, which resets comp_mask */
	qp->vqp.comp_mask |= VERBS_QP_EX;
}
