// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Extended send API (ibv_wr_*; docs/device-contract.md §16.5): every opcode of
 * the WQE preparer on RC; SEND and SEND_WITH_IMM with wr_set_ud_addr on
 * UD (upstream gives UD QPs RC-format WQEs: docs/upstream-defects.md D5).  The
 * preparer applies the same per-opcode rules as ibv_post_send, so an RC-only
 * opcode on a UD QP fails the batch with EINVAL.
 *
 * wr_start takes the SQ lock and holds it until wr_complete / wr_abort;
 * wr_complete publishes the batch through ibv_post_send's publish path
 * (ionic_post_publish(), which takes the send CQ lock), so a poller of
 * that CQ never waits for a batch being built: the WQEs it builds are past the published producer index,
 * which pollers do not look beyond (qp_priv.h).  A builder records a WR
 * template; the data setter completes it and prepares the WQE at once
 * through the same preparer as ibv_post_send.  The first error is sticky
 * and returned by wr_complete, which then discards the whole batch.
 * Every WR checks for a full SQ (upstream: D4) and wr_abort restores the
 * producer index, MSN producer and colour (upstream: D3).
 *
 * A builder of an operation the QP was not created for (send_ops_flags)
 * fails the batch with EOPNOTSUPP.
 * LOCAL_INV and BIND_MW have no data setter: their builders prepare the
 * WQE.  Builders the device has no opcode for (TSO, ATOMIC_WRITE, FLUSH, XRC)
 * set EOPNOTSUPP, so a client gets an error from wr_complete, not a crash.
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

/*
 * wr_start, wr_complete and wr_abort come in two variants, chosen when
 * the QP is created: with the SQ lock, and without any lock for a QP and
 * send CQ of a thread domain (ionic_qp_locked()).
 */
static inline __attribute__((always_inline)) void
ionic_wr_start_tmpl(struct ibv_qp_ex *qpx, bool locked)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);
	struct ionic_sq *sq = &qp->sq;

	if (locked)
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

static inline __attribute__((always_inline)) int
ionic_wr_complete_tmpl(struct ibv_qp_ex *qpx, bool locked)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);
	int err = qp->wrx.err;

	/* a builder without its data setter is an incomplete WR */
	if (!err && qp->wrx.pending)
		err = EINVAL;

	if (err)
		ionic_wr_rollback(qp);
	else
		ionic_post_publish(qp, true, locked);

	if (locked)
		ionic_unlock(&qp->sq.lock);
	return err;
}

static inline __attribute__((always_inline)) void
ionic_wr_abort_tmpl(struct ibv_qp_ex *qpx, bool locked)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	ionic_wr_rollback(qp);
	if (locked)
		ionic_unlock(&qp->sq.lock);
}

#define IONIC_WR_VARIANTS(sfx, locked)                           \
	static void ionic_wr_start##sfx(struct ibv_qp_ex *qpx)   \
	{                                                        \
		ionic_wr_start_tmpl(qpx, locked);                \
	}                                                        \
	static int ionic_wr_complete##sfx(struct ibv_qp_ex *qpx) \
	{                                                        \
		return ionic_wr_complete_tmpl(qpx, locked);      \
	}                                                        \
	static void ionic_wr_abort##sfx(struct ibv_qp_ex *qpx)   \
	{                                                        \
		ionic_wr_abort_tmpl(qpx, locked);                \
	}

IONIC_WR_VARIANTS(_locked, true)
IONIC_WR_VARIANTS(_nolock, false)

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

	/*
	 * Only the operations chosen in send_ops_flags are defined; for the
	 * opcodes up to SEND_WITH_INV, IBV_QP_EX_WITH_<op> is 1 << IBV_WR_<op>
	 * (asserted in wqe.c).
	 */
	if (!(qp->wr_ops & (1u << op))) {
		ionic_wr_fail(qp, EOPNOTSUPP);
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
static void ionic_wr_finish(struct ionic_qp *qp, const struct ibv_sge *sgl,
			    int num_sge, unsigned int extra_flags)
{
	struct ibv_send_wr *wr = &qp->wrx.wr;
	int rc;

	if (qp->wrx.err)
		return;
	if (!qp->wrx.pending) {
		ionic_wr_fail(qp, EINVAL);
		return;
	}
	if (ionic_queue_full_acquire(&qp->sq.q)) {
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

static void ionic_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
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

static void ionic_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = ionic_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void ionic_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			  uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = ionic_wr_begin(qpx, op);

	if (!wr)
		return;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->wr.rdma.rkey = rkey;
	wr->imm_data = imm_data;
}

static void ionic_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	ionic_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void ionic_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	ionic_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		      imm_data);
}

static void ionic_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	ionic_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void ionic_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *wr = ionic_wr_begin(qpx, op);

	if (!wr)
		return;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void ionic_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	ionic_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void ionic_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	ionic_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

/* Local operations carry no data: their builders prepare the WQE. */
static void ionic_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = ionic_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (!wr)
		return;
	wr->invalidate_rkey = invalidate_rkey;
	ionic_wr_finish(qpx_to_qp(qpx), NULL, 0, 0);
}

/* Type-2 windows only: the preparer refuses type 1 on this path. */
static void ionic_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = ionic_wr_begin(qpx, IBV_WR_BIND_MW);

	if (!wr)
		return;
	if (!bind_info) {
		ionic_wr_fail(qpx_to_qp(qpx), EINVAL);
		return;
	}
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
	ionic_wr_finish(qpx_to_qp(qpx), NULL, 0, 0);
}

/* ---- not supported by the device: wr_complete returns EOPNOTSUPP ---- */

static void ionic_wr_unsupported(struct ibv_qp_ex *qpx)
{
	struct ionic_qp *qp = qpx_to_qp(qpx);

	if (!qp->wrx.err)
		ionic_wr_fail(qp, EOPNOTSUPP);
}

static void ionic_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t srqn)
{
	(void)srqn;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz,
			      uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	ionic_wr_unsupported(qpx);
}

/* Only some releases have these two slots (ibverbs-private/variants.h). */
static void ionic_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	(void)rkey;
	(void)remote_addr;
	(void)atomic_wr;
	ionic_wr_unsupported(qpx);
}

static void ionic_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			   uint64_t remote_addr, size_t len, uint8_t type,
			   uint8_t level)
{
	(void)rkey;
	(void)remote_addr;
	(void)len;
	(void)type;
	(void)level;
	ionic_wr_unsupported(qpx);
}

void ionic_qp_init_wr(struct ionic_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (ionic_qp_locked(qp, true)) {
		qpx->wr_start = ionic_wr_start_locked;
		qpx->wr_complete = ionic_wr_complete_locked;
		qpx->wr_abort = ionic_wr_abort_locked;
	} else {
		qpx->wr_start = ionic_wr_start_nolock;
		qpx->wr_complete = ionic_wr_complete_nolock;
		qpx->wr_abort = ionic_wr_abort_nolock;
	}

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
	qpx->wr_local_inv = ionic_wr_local_inv;
	qpx->wr_send_inv = ionic_wr_send_inv;
	qpx->wr_send_tso = ionic_wr_send_tso;
	qpx->wr_set_xrc_srqn = ionic_wr_set_xrc_srqn;
	IONIC_IBV_QPX_SET_ATOMIC_WRITE(qpx, ionic_wr_atomic_write);
	IONIC_IBV_QPX_SET_FLUSH(qpx, ionic_wr_flush);

	/* set after the create command, which resets comp_mask */
	qp->vqp.comp_mask |= VERBS_QP_EX;
}
