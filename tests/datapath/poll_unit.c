// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The poll path without a device: real QPs and a vCQ in host memory
 * (tests/support/provider_fixture.h), the test playing the device by writing CQEs
 * (docs/device-contract.md §5-§8, §12).  Checks the WCs of RC (MSN) and UD
 * (NPG) sends and of receives, error completions with exactly one WC per WQE
 * and flushes, and the skipping of CQEs that break the device contract.
 * test_golden_cqes() feeds the hand-written CQEs of
 * tests/golden/cqe_golden_bytes.h (what ionic-sim must write, too).
 * Credits, doorbells and CMB: publish_unit.c; ibv_wr_* and the extended
 * CQ: extended_unit.c.
 */
#include <errno.h>
#include <string.h>

#include "provider_fixture.h"
#include "golden/cqe_golden_bytes.h"

static struct unit_dev *dev;

static void test_rc_send(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x45, 16);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	unsigned int fl[4] = { IBV_SEND_SIGNALED, 0, IBV_SEND_SIGNALED,
			       IBV_SEND_SIGNALED };
	struct ibv_wc wc[8];
	int reserve = vcq->cq[0].pub.reserve;

	CHECK_EQ(unit_post_sends(qp, 3, fl, 100), 0);
	/* one doorbell: (qpid << 24) | prod, credits spent before it */
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0x45000003ull);
	CHECK_EQ(vcq->cq[0].pub.reserve, reserve - 3);

	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	unit_cqe_msn(&hw, 0x45, 3, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_SEND);
	CHECK_EQ(wc[0].qp_num, 0x45);
	CHECK_EQ(wc[0].wc_flags, 0);
	CHECK_EQ(wc[1].wr_id, 102);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	CHECK_EQ(vcq->cq[0].pub.reserve_pending, 3);

	/* coalesced MSN, polled one WC at a time: order kept (phase A) */
	CHECK_EQ(unit_post_sends(qp, 4, NULL, 200), 0);
	unit_cqe_msn(&hw, 0x45, 5, false, 0);
	unit_cqe_msn(&hw, 0x45, 7, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 200);
	CHECK_EQ(unit_poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 201);
	CHECK_EQ(unit_poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 202);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 203);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);

	/* a stale or future MSN is consumed and skipped, never stalls
	 * (docs/upstream-defects.md D16) */
	unit_cqe_msn(&hw, 0x45, 7, false, 0);
	unit_cqe_msn(&hw, 0x45, 9, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	CHECK_EQ(vcq->cq[0].q.prod, hw.pos);
	/* unknown CQE type, unknown QP: skipped too */
	unit_cqe(&hw, 0x45, 6, false, 0);
	unit_cqe(&hw, 0x999, IONIC_CQE_TYPE_RECV, false, 0);
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 300), 0);
	unit_cqe_msn(&hw, 0x45, 8, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 300);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

static void test_rc_error(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x46, 16);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	unsigned int fl[4] = { 0, IBV_SEND_SIGNALED, 0, 0 };
	struct ibv_wc wc[8];

	CHECK_EQ(unit_post_sends(qp, 4, fl, 10), 0);
	/* the second WQE (seq 1) fails remotely: msg_msn = 2 + error */
	unit_cqe_msn(&hw, 0x46, 2, true, IONIC_STS_REMOTE_ACC_ERR);
	CHECK_EQ(unit_poll(vcq, wc, 8), 3);
	CHECK_EQ(wc[0].wr_id, 11);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].vendor_err, IONIC_STS_REMOTE_ACC_ERR);
	/* every remaining WQE, unsignalled too, exactly once */
	CHECK_EQ(wc[1].wr_id, 12);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].wr_id, 13);
	CHECK_EQ(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	/* later device CQEs for the flushing SQ are ignored */
	unit_cqe_msn(&hw, 0x46, 4, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	/* WQEs posted while flushing complete as flushed; credits return */
	CHECK_EQ(unit_post_sends(qp, 2, NULL, 20), 0);
	CHECK_EQ(unit_poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 20);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 21);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	CHECK_EQ(vcq->cq[0].pub.reserve + vcq->cq[0].pub.reserve_pending,
		 vcq->cq[0].q.mask);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/* modify to ERR: CQEs already written still report success
 * (docs/upstream-defects.md D21). */
static void test_flush_request(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x47, 16);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_sge sge = { .length = 8 };
	struct ibv_recv_wr rwr = { .wr_id = 50, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[8];

	CHECK_EQ(unit_post_sends(qp, 3, NULL, 40), 0);
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	rwr.wr_id = 51;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK_EQ(dev->dbpage[UNIT_RQ_QTYPE], 0x47000002ull);
	unit_cqe_msn(&hw, 0x47, 1, false, 0);
	unit_cqe_recv(&hw, 0x47, 0, IONIC_CQE_RECV_OP_SEND, 9, 8, 0, 0, false);

	/* what ionic_modify_qp(ERR) sets up */
	qp->sq.flush_req = true;
	ionic_qp_queue_sq_flush(qp);
	qp->rq.flush_req = true;
	ionic_qp_queue_rq_flush(qp);

	CHECK_EQ(unit_poll(vcq, wc, 8), 5);
	CHECK_EQ(wc[0].wr_id, 40);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 50);
	CHECK_EQ(wc[1].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[1].opcode, IBV_WC_RECV);
	CHECK_EQ(wc[2].wr_id, 41);
	CHECK_EQ(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[3].wr_id, 42);
	CHECK_EQ(wc[4].wr_id, 51);
	CHECK_EQ(wc[4].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * modify to ERR, then an error CQE found by the same poll: the error
 * starts the flush and must also end the request, or the QP never leaves
 * the flush list and every QP queued behind it stalls (found by
 * fuzz-provider-cq, corpus/provider-cq/stall-flush-req-after-error).
 */
static void test_flush_request_after_error(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *a = unit_qp(dev, vcq, false, 0x4c, 8);
	struct ionic_qp *b = unit_qp(dev, vcq, false, 0x4d, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_wc wc[8];
	int i;

	CHECK_EQ(unit_post_sends(a, 2, NULL, 60), 0);
	CHECK_EQ(unit_post_sends(b, 3, NULL, 70), 0);
	/* the device failed a's first WQE (MSN 1, remote access error) */
	unit_cqe_msn(&hw, 0x4c, 1, true, IONIC_STS_REMOTE_ACC_ERR);

	/* what ionic_modify_qp(ERR) sets up, a first, before the poll */
	a->sq.flush_req = true;
	ionic_qp_queue_sq_flush(a);
	b->sq.flush_req = true;
	ionic_qp_queue_sq_flush(b);

	CHECK_EQ(unit_poll(vcq, wc, 8), 5);
	CHECK_EQ(wc[0].wr_id, 60);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[1].wr_id, 61);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(wc[2 + i].wr_id, 70 + i);
		CHECK_EQ(wc[2 + i].status, IBV_WC_WR_FLUSH_ERR);
	}
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	CHECK(!ionic_list_linked(&a->cq_flush_sq));
	CHECK(!ionic_list_linked(&b->cq_flush_sq));

	unit_qp_destroy(b);
	unit_qp_destroy(a);
	unit_cq_destroy(vcq);
}

static void test_recv(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *rc = unit_qp(dev, vcq, false, 0x48, 4);
	struct ionic_qp *ud = unit_qp(dev, vcq, true, 0x49, 4);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_sge sge = { .length = 2048 };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[8];
	int i;

	for (i = 0; i < 3; i++) {
		rwr.wr_id = 60 + i;
		CHECK_EQ(ionic_post_recv(&rc->vqp.qp, &rwr, &rbad), 0);
		rwr.wr_id = 70 + i;
		CHECK_EQ(ionic_post_recv(&ud->vqp.qp, &rwr, &rbad), 0);
	}
	/* the IPv4 bit on RC: wc.sl stays 0 */
	unit_cqe_recv(&hw, 0x48, 0, IONIC_CQE_RECV_OP_SEND_IMM, 0x77, 100, 1234,
		      IONIC_CQE_RECV_IS_IPV4, false);
	unit_cqe_recv(&hw, 0x48, 1, IONIC_CQE_RECV_OP_RDMA_IMM, 0x77, 0, 0xabcd,
		      0, false);
	unit_cqe_recv(&hw, 0x48, 2, IONIC_CQE_RECV_OP_SEND_INV, 0x77, 5,
		      0x1234501, 0, false);
	/* UD over IPv6 (bit clear, VLAN flag set): wc.sl = 1, never the PCP */
	unit_cqe_recv(&hw, 0x49, 0, IONIC_CQE_RECV_OP_SEND, 0x88, 1064, 0,
		      IONIC_CQE_RECV_IS_VLAN, false);

	CHECK_EQ(unit_poll(vcq, wc, 8), 4);
	CHECK_EQ(wc[0].wr_id, 60);
	CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
	CHECK_EQ(wc[0].byte_len, 100);
	CHECK_EQ(wc[0].src_qp, 0x77);
	CHECK_EQ(wc[0].wc_flags, IBV_WC_WITH_IMM);
	CHECK_EQ(wc[0].sl, 0);
	CHECK_EQ(be32toh(wc[0].imm_data), 1234);
	CHECK_EQ(wc[1].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(be32toh(wc[1].imm_data), 0xabcd);
	CHECK_EQ(wc[2].wc_flags, IBV_WC_WITH_INV);
	CHECK_EQ(wc[2].invalidated_rkey, 0x1234501);
	CHECK_EQ(wc[3].wr_id, 70);
	CHECK_EQ(wc[3].wc_flags, IBV_WC_GRH);
	CHECK_EQ(wc[3].sl, 1);
	CHECK_EQ(wc[3].byte_len, 1064);
	CHECK_EQ(wc[3].qp_num, 0x49);
	CHECK_EQ(wc[3].src_qp, 0x88);

	/* a receive error completes that entry, then flushes the RQ */
	unit_cqe_recv(&hw, 0x49, 1, 0, 0, IONIC_STS_LOCAL_LEN_ERR, 0, 0, true);
	CHECK_EQ(unit_poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 71);
	CHECK_EQ(wc[0].status, IBV_WC_LOC_LEN_ERR);
	CHECK_EQ(wc[0].vendor_err, 1);
	CHECK_EQ(wc[1].wr_id, 72);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);

	/* RQ full at exactly max_recv_wr (= mask): the next one is ENOMEM */
	for (i = 0; i < (int)rc->rq.q.mask - 0; i++) {
		rwr.wr_id = 1000 + i;
		if (ionic_post_recv(&rc->vqp.qp, &rwr, &rbad))
			break;
	}
	CHECK_EQ(i, rc->rq.q.mask - 0);
	CHECK_EQ(ionic_queue_length(&rc->rq.q), rc->rq.q.mask);
	rwr.wr_id = 2000;
	CHECK_EQ(ionic_post_recv(&rc->vqp.qp, &rwr, &rbad), ENOMEM);
	CHECK(rbad == &rwr);

	/* a RECV CQE naming a slot never posted: skipped */
	unit_cqe_recv(&hw, 0x48, 0x7fff, 0, 0, 4, 0, 0, false);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);

	unit_qp_destroy(rc);
	unit_qp_destroy(ud);
	unit_cq_destroy(vcq);
}

static void test_ud_npg(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, true, 0x4a, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	unsigned int fl[3] = { 0, IBV_SEND_SIGNALED, IBV_SEND_SIGNALED };
	struct ibv_wc wc[8];

	CHECK_EQ(unit_post_sends(qp, 3, fl, 80), 0);
	/* completions are in order: slot 1 waits for slot 0 */
	unit_cqe_npg(&hw, 0x4a, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	unit_cqe_npg(&hw, 0x4a, 0, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 81);
	/* a slot that is not outstanding is skipped */
	unit_cqe_npg(&hw, 0x4a, 5, false, 0);
	/* status 14 maps to LOC_QP_OP_ERR like the kernel
	 * (docs/upstream-defects.md D25) */
	unit_cqe_npg(&hw, 0x4a, 2, true, IONIC_STS_LOCAL_SGL_INV_ERR);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 82);
	CHECK_EQ(wc[0].status, IBV_WC_LOC_QP_OP_ERR);
	CHECK_EQ(wc[0].vendor_err, 14);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/* A device flush indicator (NPG, status 4) starts the SQ flush. */
static void test_flush_indicator(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x4b, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_wc wc[8];

	CHECK_EQ(unit_post_sends(qp, 2, NULL, 90), 0);
	unit_cqe_msn(&hw, 0x4b, 1, false, 0);
	unit_cqe_npg(&hw, 0x4b, 0, true, IONIC_STS_WQE_FLUSHED_ERR);
	CHECK_EQ(unit_poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 90);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 91);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * The device's CQEs as written by hand from the spec (golden/
 * cqe_golden_bytes.h, also what ionic-sim's CQE writer must produce,
 * sim/tests/test_dev_cqe.c): the WCs each must turn into.
 */
static void test_golden_cqes(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, true, GC_QPN, 16);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_sge sge = { .length = 8192 };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[8];

	/* UD QP: receives in RQ slots 2 and 3, sends in SQ slots 5 and 6 */
	qp->rq.q.prod = qp->rq.q.cons = qp->rq.pub.prod_rung = GC_RECV_SLOT;
	qp->sq.q.prod = qp->sq.q.cons = qp->sq.pub.prod_rung = GC_NPG_SLOT;
	rwr.wr_id = 500;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	rwr.wr_id = 501;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK_EQ(unit_post_sends(qp, 2, NULL, 600), 0);

	unit_cqe_bytes(&hw, gc_recv);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 500);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
	CHECK_EQ(wc[0].byte_len, GC_RECV_LEN);
	CHECK_EQ(wc[0].qp_num, GC_QPN);
	CHECK_EQ(wc[0].src_qp, GC_RECV_SRC_QPN);
	CHECK_EQ(wc[0].imm_data, htobe32(GC_RECV_IMM));
	CHECK_EQ(wc[0].wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(wc[0].sl, GC_RECV_SL);

	unit_cqe_bytes(&hw, gc_npg);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 600);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_SEND);

	/* flush indicators name no WQE: everything outstanding flushes */
	unit_cqe_bytes(&hw, gc_sq_flush);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 601);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	unit_cqe_bytes(&hw, gc_rq_flush);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 501);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);

	/* RC QP: a receive in RQ slot 3, five sends with MSNs 0..4 */
	vcq = unit_cq_create(dev, 64);
	qp = unit_qp(dev, vcq, false, GC_QPN, 16);
	hw = unit_cq_dev(&vcq->cq[0]);
	qp->rq.q.prod = qp->rq.q.cons = qp->rq.pub.prod_rung = GC_RECV_ERR_SLOT;
	rwr.wr_id = 700;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK_EQ(unit_post_sends(qp, 5, NULL, 710), 0);

	unit_cqe_bytes(&hw, gc_recv_err);
	CHECK_EQ(unit_poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 700);
	CHECK_EQ(wc[0].status, IBV_WC_LOC_LEN_ERR);
	CHECK_EQ(wc[0].vendor_err, GC_RECV_ERR_STATUS);

	/* MSN 3: the sends with MSN 0, 1, 2 are done */
	unit_cqe_bytes(&hw, gc_msn);
	CHECK_EQ(unit_poll(vcq, wc, 8), 3);
	CHECK_EQ(wc[0].wr_id, 710);
	CHECK_EQ(wc[2].wr_id, 712);
	CHECK_EQ(wc[2].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[2].opcode, IBV_WC_SEND);

	/* MSN 4 + REMOTE_ACC: MSN 3 failed, the rest flushes */
	unit_cqe_bytes(&hw, gc_msn_err);
	CHECK_EQ(unit_poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 713);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].vendor_err, GC_MSN_ERR_STATUS);
	CHECK_EQ(wc[1].wr_id, 714);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * A poll of a CQ with nothing to do takes no lock and stores nothing
 * (docs/device-contract.md §16.7): with both hardware CQs locked by
 * someone else it still returns at once, and the pipeline polled first
 * only alternates after a call that returned something.
 */
static void test_idle_poll(void)
{
	struct unit_dev_opts two = { .udma_count = 2 };
	struct unit_dev *dev2 = unit_dev_create(&two);
	struct ionic_vcq *vcq = unit_cq_create(dev2, 64);
	struct ionic_qp *qp = unit_qp(dev2, vcq, false, 0x61, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_wc wc[2];
	uint8_t first = vcq->poll_idx;

	vcq->cq[0].lock.free = 0;
	vcq->cq[1].lock.free = 0;
	CHECK_EQ(unit_poll(vcq, wc, 2), 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 0);
	CHECK_EQ(vcq->poll_idx, first);
	vcq->cq[0].lock.free = 1;
	vcq->cq[1].lock.free = 1;

	CHECK_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(&hw, 0x61, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK_EQ(wc[0].wr_id, 1);
	CHECK_EQ(vcq->poll_idx, first ^ 1);
	/* both locks free again after a poll that took them */
	CHECK(!ionic_lock_held(&vcq->cq[0].lock) &&
	      !ionic_lock_held(&vcq->cq[1].lock));

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev2);
}

/*
 * The poller remembers the QP of the last CQE; a destroyed QP must not
 * be found that way (under ASan a stale pointer would be a
 * use-after-free): its number's CQEs are then skipped, and a new QP that
 * gets the number is the one they complete.
 */
static void test_qp_memo(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x62, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_wc wc[2];

	CHECK_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(&hw, 0x62, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK(vcq->cq[0].last_qp == qp);
	unit_qp_destroy(qp);
	CHECK(vcq->cq[0].last_qp == NULL);

	unit_cqe_msn(&hw, 0x62, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 0);
	CHECK_EQ(vcq->cq[0].q.prod, hw.pos);

	qp = unit_qp(dev, vcq, false, 0x62, 8);
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 2), 0);
	unit_cqe_msn(&hw, 0x62, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK_EQ(wc[0].wr_id, 2);
	CHECK(vcq->cq[0].last_qp == qp);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * A CQE naming a QP on the other pipeline's CQ is skipped, and the memo
 * does not take that QP: the QP's destroy forgets it only on its own CQs,
 * so it would outlive the QP (a use-after-free, found by the provider-cq
 * fuzzer).
 */
static void test_qp_memo_other_cq(void)
{
	struct unit_dev_opts two = { .udma_count = 2 };
	struct unit_dev *dev2 = unit_dev_create(&two);
	struct ionic_vcq *vcq = unit_cq_create(dev2, 64);
	struct ionic_qp *qp = unit_qp(dev2, vcq, false, 0x64, 8);
	struct ionic_cq *other = qp->send_cq == &vcq->cq[0] ? &vcq->cq[1] :
							      &vcq->cq[0];
	struct unit_cq_dev hw = unit_cq_dev(other);
	struct ibv_wc wc[2];

	CHECK_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(&hw, 0x64, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 0);
	CHECK_EQ(other->q.prod, hw.pos);
	CHECK(other->last_qp == NULL);
	CHECK_EQ(ionic_queue_length(&qp->sq.q), 1);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev2);
}

/*
 * A device may write every slot of the ring before the host reads one
 * (it never overwrites what the host has not read).  A poll that reads
 * that whole lap ends at the slot it started from with the colour
 * flipped; it must keep both, or each later poll takes the same lap again
 * and misses every CQE after it (a fuzz finding:
 * tests/fuzz/corpus/provider-cq/stall-full-lap-of-skipped-cqes.bin).
 */
static void test_full_lap(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_cq *cq = &vcq->cq[0];
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x63, 8);
	struct unit_cq_dev hw = unit_cq_dev(cq);
	unsigned int slots = cq->q.mask + 1u, i;
	struct ibv_wc wc[2];

	/* start the lap off slot 0 */
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(&hw, 0x63, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK_EQ(cq->q.prod, 1);

	/* a whole ring of CQEs that complete nothing, the last one a WQE */
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 2), 0);
	for (i = 0; i + 1 < slots; i++)
		unit_cqe(&hw, IONIC_CQE_QID_CLEANED, IONIC_CQE_TYPE_RECV, false,
			 0);
	unit_cqe_msn(&hw, 0x63, 2, false, 0);
	CHECK_EQ(hw.pos, 1);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK_EQ(wc[0].wr_id, 2);
	CHECK_EQ(cq->q.prod, hw.pos);
	CHECK_EQ(!!cq->color, hw.color);
	CHECK_EQ(unit_poll(vcq, wc, 2), 0);

	/* the same with nothing completed at all */
	for (i = 0; i < slots; i++)
		unit_cqe(&hw, IONIC_CQE_QID_CLEANED, IONIC_CQE_TYPE_RECV, false,
			 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 0);
	CHECK_EQ(cq->q.prod, hw.pos);
	CHECK_EQ(!!cq->color, hw.color);

	/* and the CQE after the lap completes its WQE */
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 3), 0);
	unit_cqe_msn(&hw, 0x63, 3, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK_EQ(wc[0].wr_id, 3);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

int main(void)
{
	dev = unit_dev_create(NULL);

	test_rc_send();
	test_rc_error();
	test_flush_request();
	test_flush_request_after_error();
	test_recv();
	test_ud_npg();
	test_flush_indicator();
	test_golden_cqes();
	test_idle_poll();
	test_qp_memo();
	test_qp_memo_other_cq();
	test_full_lap();

	unit_dev_destroy(dev);
	return check_finish();
}
