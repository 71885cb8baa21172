// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The extended verbs without a device: ibv_wr_* batches on a real UD QP
 * (wr.c: UD addressing, sticky errors, abort, a full SQ, the QP state)
 * and extended CQ polling with its readers (cq_ex.c), the test playing
 * the device (tests/support/provider_fixture.h).
 */
#include <errno.h>
#include <string.h>

#include "provider_fixture.h"

static struct unit_dev *dev;

/* Extended CQ: start/next/end_poll and the readers. */
static void test_cq_ex(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ibv_cq_ex *cq_ex = &vcq->vcq.cq_ex;
	struct ionic_qp *qp = unit_qp(dev, vcq, true, 0x4e, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_sge sge = { .length = 2048 };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_poll_cq_attr attr = { 0 };

	ionic_vcq_init_ex(vcq, IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
				       IBV_WC_EX_WITH_QP_NUM |
				       IBV_WC_EX_WITH_SRC_QP |
				       IBV_WC_EX_WITH_SL);
	CHECK(cq_ex->read_slid == NULL);

	CHECK_EQ(ibv_start_poll(cq_ex, &attr), ENOENT);

	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 8), 0);
	unit_cqe_recv(&hw, 0x4e, 0, IONIC_CQE_RECV_OP_SEND_IMM, 0x99, 1064,
		      1234, IONIC_CQE_RECV_IS_IPV4, false);
	unit_cqe_npg(&hw, 0x4e, 0, false, 0);

	CHECK_EQ(ibv_start_poll(cq_ex, &attr), 0);
	CHECK_EQ(cq_ex->wr_id, 7);
	CHECK_EQ(cq_ex->status, IBV_WC_SUCCESS);
	CHECK_EQ(ibv_wc_read_opcode(cq_ex), IBV_WC_RECV);
	CHECK_EQ(ibv_wc_read_byte_len(cq_ex), 1064);
	CHECK_EQ(be32toh(ibv_wc_read_imm_data(cq_ex)), 1234);
	CHECK_EQ(ibv_wc_read_qp_num(cq_ex), 0x4e);
	CHECK_EQ(ibv_wc_read_src_qp(cq_ex), 0x99);
	CHECK_EQ(ibv_wc_read_sl(cq_ex), 2);
	CHECK_EQ(ibv_wc_read_wc_flags(cq_ex), IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(ibv_next_poll(cq_ex), 0);
	CHECK_EQ(cq_ex->wr_id, 8);
	CHECK_EQ(ibv_wc_read_opcode(cq_ex), IBV_WC_SEND);
	CHECK_EQ(ibv_next_poll(cq_ex), ENOENT);
	ibv_end_poll(cq_ex);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/* Extended send API: batch, UD address, sticky errors, abort, full. */
static void test_wr_api(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, true, 0x4f, 1);
	struct ibv_qp_ex *qpx;
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_wc wc[8];
	char data[8] = "abcdefg";
	struct ionic_wqe *w;
	unsigned int i;

	/* the ibv_wr_* callbacks are installed at creation */
	qpx = ibv_qp_to_qp_ex(&qp->vqp.qp);
	CHECK(qpx == &qp->vqp.qp_ex);

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htobe32(1234));
	ibv_wr_set_ud_addr(qpx, &unit_ah.ibah, 0x22, 0x33);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	qpx->wr_id = 2;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &unit_ah.ibah, 0x22, 0x33);
	ibv_wr_set_inline_data(qpx, data, sizeof(data));
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0x4f000002ull);
	w = ionic_queue_at(&qp->sq.q, 0);
	CHECK_EQ(w->base.op, IONIC_V2_OP_SEND_IMM);
	CHECK_EQ(be32toh(w->common.send.dest_qpn), 0x22);
	CHECK_EQ(be32toh(w->common.send.ah_id), 3);
	w = ionic_queue_at(&qp->sq.q, 1);
	CHECK(w->base.flags & htobe16(IONIC_WQE_FLAG_INL));
	CHECK(!memcmp(w->common.pld.data, data, sizeof(data)));
	unit_cqe_npg(&hw, 0x4f, 0, false, 0);
	unit_cqe_npg(&hw, 0x4f, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[1].wr_id, 2);
	CHECK_EQ(wc[1].byte_len, 8);

	/* abort puts prod, MSN and colour back */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &unit_ah.ibah, 1, 1);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	CHECK_EQ(qp->sq.q.prod, 3);
	ibv_wr_abort(qpx);
	CHECK_EQ(qp->sq.q.prod, 2);

	/* sticky error: an operation UD QPs lack, then a good WR: all dropped */
	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, 1, 2);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	CHECK_EQ(ibv_wr_complete(qpx), EOPNOTSUPP);
	CHECK_EQ(qp->sq.q.prod, 2);

	/* RC-only opcode on UD through post_send: EINVAL, nothing produced */
	{
		struct ibv_sge sge = { 0x1000, 8, 5 };
		struct ibv_send_wr rw = {
			.wr_id = 9, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
		}, *bad;

		CHECK_EQ(ionic_post_send(&qp->vqp.qp, &rw, &bad), EINVAL);
		CHECK(bad == &rw);
		CHECK_EQ(qp->sq.q.prod, 2);
	}

	/* builder without data setter */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	CHECK_EQ(ibv_wr_complete(qpx), EINVAL);

	/* full SQ: sticky ENOMEM (upstream never checks,
	 * docs/upstream-defects.md D4) */
	ibv_wr_start(qpx);
	for (i = 0; i <= qp->sq.q.mask; i++) {
		ibv_wr_send(qpx);
		ibv_wr_set_ud_addr(qpx, &unit_ah.ibah, 1, 1);
		ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	}
	CHECK_EQ(ibv_wr_complete(qpx), ENOMEM);
	CHECK_EQ(qp->sq.q.prod, 2);

	/* not in RTS: EINVAL from wr_complete */
	qp->vqp.qp.state = IBV_QPS_RESET;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &unit_ah.ibah, 1, 1);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	CHECK_EQ(ibv_wr_complete(qpx), EINVAL);
	CHECK_EQ(qp->sq.q.prod, 2);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * An open ibv_wr_* batch holds the SQ lock only: its CQ can be polled
 * meanwhile, even from the thread building it, and the batch's WQEs are
 * invisible to the poller until wr_complete publishes them, even to a
 * CQE that claims them (docs/device-contract.md §16.5, §16.7).
 */
static void test_wr_batch_poll(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x50, 8);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(&qp->vqp.qp);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_wc wc[4];

	ibv_wr_start(qpx);
	qpx->wr_id = 7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	/* the CQ lock is free: a poll returns at once, with nothing */
	CHECK(!ionic_lock_held(&vcq->cq[0].lock));
	CHECK_EQ(unit_poll(vcq, wc, 4), 0);
	/* an MSN CQE covering the unpublished WQE breaks the contract */
	unit_cqe_msn(&hw, 0x50, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 4), 0);
	CHECK_EQ(qp->sq.q.cons, 0);
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0x50000001ull);
	/* published, the device's CQE completes it */
	unit_cqe_msn(&hw, 0x50, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 4), 1);
	CHECK_EQ(wc[0].wr_id, 7);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

int main(void)
{
	dev = unit_dev_create(NULL);

	test_cq_ex();
	test_wr_api();
	test_wr_batch_poll();

	unit_dev_destroy(dev);
	return check_finish();
}
