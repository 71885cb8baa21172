// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Publishing to the device without a device (providers/ionic/publish.h):
 * what post_send and post_recv ring (including when they fail part-way),
 * CQ credits and the ring-0 sync over many laps of a small CQ, the arm
 * doorbells of ibv_req_notify_cq, the choice of a publish mode, and the
 * copies to controller memory with and without express doorbells.  Real
 * QPs and vCQs in host memory; the doorbell page is an array
 * (tests/support/provider_fixture.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "provider_fixture.h"

static struct unit_dev *dev;

static void test_clean_and_credits(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 1);
	struct ionic_cq *cq = &vcq->cq[0];
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x4c, 8);
	struct unit_cq_dev hw = unit_cq_dev(cq);
	struct ibv_wc wc[8];
	unsigned int i;

	CHECK_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(&hw, 0x4c, 1, false, 0);
	ionic_cq_clean(cq, 0x4c);
	CHECK_EQ(unit_poll(vcq, wc, 8), 0);
	CHECK_EQ(cq->q.prod, 1);

	/* run the CQ around its ring: colour flips, ring 0 syncs */
	dev->dbpage[UNIT_CQ_QTYPE] = 0;
	/* what a reset does: outstanding WQEs give their credits back */
	cq->pub.reserve_pending += ionic_queue_length(&qp->sq.q);
	qp->sq.q.prod = qp->sq.q.cons = qp->sq.pub.prod_rung = 0;
	qp->sq.msn_prod = qp->sq.msn_cons = 0;
	for (i = 0; i < 3u * (cq->q.mask + 1); i++) {
		CHECK_EQ(unit_post_sends(qp, 1, NULL, i), 0);
		unit_cqe_msn(&hw, 0x4c, (qp->sq.msn_prod) & qp->sq.q.mask,
			     false, 0);
		if (unit_poll(vcq, wc, 8) != 1 || wc[0].wr_id != i) {
			CHECK(!"lost a completion");
			break;
		}
	}
	/* the device was told how far the host read, never past it */
	CHECK(dev->dbpage[UNIT_CQ_QTYPE] != 0);
	CHECK_EQ(dev->dbpage[UNIT_CQ_QTYPE] >> 24, UNIT_CQID);
	CHECK(cq->pub.reserve > 0);

	/* arm-style sync: reported position = read position */
	ionic_cq_sync(&cq->pub, &cq->q);
	CHECK_EQ(dev->dbpage[UNIT_CQ_QTYPE],
		 ionic_dbell_val(UNIT_CQID, 0, cq->q.prod));
	CHECK_EQ(cq->pub.reserve + cq->pub.reserve_pending, cq->q.mask);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

static void test_post_errors(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x4d, 1);
	struct ibv_send_wr wr[80], *bad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad = NULL;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 80; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i + 1 < 80 ? &wr[i + 1] : NULL;
	}

	CHECK_EQ(ionic_post_send(&qp->vqp.qp, wr, NULL), EINVAL);
	qp->vqp.qp.state = IBV_QPS_RTR;
	CHECK_EQ(ionic_post_send(&qp->vqp.qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[0]);
	qp->vqp.qp.state = IBV_QPS_RESET;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr);
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, NULL), EINVAL);
	qp->vqp.qp.state = IBV_QPS_INIT;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK(rbad == NULL);

	/* full SQ: ENOMEM at WR #mask, everything before it rung */
	qp->vqp.qp.state = IBV_QPS_RTS;
	CHECK_EQ(ionic_post_send(&qp->vqp.qp, wr, &bad), ENOMEM);
	CHECK(bad == &wr[qp->sq.q.mask]);
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE],
		 ionic_dbell_val(0x4d, 0, qp->sq.q.mask));

	/* a bad WR in the middle: EINVAL, bad_wr points at it */
	qp->sq.q.prod = qp->sq.q.cons = qp->sq.pub.prod_rung = 0;
	qp->sq.msn_prod = qp->sq.msn_cons = 0;
	wr[3].num_sge = 3;
	CHECK_EQ(ionic_post_send(&qp->vqp.qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[3]);
	CHECK_EQ(qp->sq.q.prod, 3);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * ibv_req_notify_cq arms at once (docs/upstream-defects.md D10): ring 0 first
 * hands back what was read and banks the credits, then ring 1 (any) or 2
 * (solicited) with an arm index of its own, on every pipeline of the vCQ.
 */
static void test_arm(void)
{
	struct unit_dev_opts two = { .udma_count = 2 };
	struct unit_dev *dev2 = unit_dev_create(&two);
	struct ionic_vcq *vcq = unit_cq_create(dev2, 64);
	struct ionic_cq *cq = &vcq->cq[0];
	struct ionic_qp *qp = unit_qp(dev2, vcq, false, 0x51, 8);
	struct unit_cq_dev hw = unit_cq_dev(cq);
	struct ibv_comp_channel channel = { 0 };
	uint64_t *cqdb = &dev2->dbpage[UNIT_CQ_QTYPE];
	struct ibv_wc wc[2];
	uint16_t i;

	/* no channel, no event: success as mlx5 and rxe, nothing rung */
	CHECK_EQ(ionic_req_notify_cq(&vcq->vcq.cq, 0), 0);
	CHECK_EQ(*cqdb, 0);
	vcq->vcq.cq.channel = &channel;

	CHECK_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(&hw, 0x51, 1, false, 0);
	CHECK_EQ(unit_poll(vcq, wc, 2), 1);
	CHECK_EQ(cq->q.cons, 0);
	CHECK_EQ(cq->pub.reserve_pending, 1);

	CHECK_EQ(ionic_req_notify_cq(&vcq->vcq.cq, 0), 0);
	CHECK_EQ(cq->q.cons, cq->q.prod);
	CHECK_EQ(cq->pub.reserve_pending, 0);
	CHECK_EQ(cq->pub.reserve, cq->q.mask);
	CHECK_EQ(cq->pub.arm_prod[0], 1);
	/* both pipelines armed; the last store is pipeline 1's */
	CHECK_EQ(vcq->cq[1].pub.arm_prod[0], 1);
	CHECK_EQ(*cqdb, ionic_dbell_val(UNIT_CQID + 1, 1, 1));

	CHECK_EQ(ionic_req_notify_cq(&vcq->vcq.cq, 1), 0);
	CHECK_EQ(*cqdb, ionic_dbell_val(UNIT_CQID + 1, 2, 1));
	CHECK_EQ(cq->pub.arm_prod[1], 1);
	CHECK_EQ(cq->pub.arm_prod[0], 1);

	/* the arm index counts modulo the ring */
	for (i = 0; i < cq->q.mask; i++)
		CHECK_EQ(ionic_req_notify_cq(&vcq->vcq.cq, 0), 0);
	CHECK_EQ(cq->pub.arm_prod[0], 0);
	CHECK_EQ(*cqdb, ionic_dbell_val(UNIT_CQID + 1, 1, 0));

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev2);
}

/*
 * The one place that decides how a queue is published: no window means
 * the host ring whatever the flags; a reset restarts at index 0 and gives
 * a cleared express-doorbell ring its trailers back.
 */
static void test_pub_modes(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x52, 8);
	struct ionic_pub *pub = &qp->rq.pub;
	struct ionic_queue *q = &qp->rq.q;
	uint64_t win[8], v;

	CHECK_EQ(pub->mode, IONIC_PUB_HOST);
	CHECK(pub->dbreg == &dev->dbpage[UNIT_RQ_QTYPE]);
	ionic_pub_init(pub, q, dev->ctx.dbpage, UNIT_RQ_QTYPE, NULL, true,
		       true);
	CHECK_EQ(pub->mode, IONIC_PUB_HOST);
	CHECK(!pub->wc);

	ionic_pub_init(pub, q, dev->ctx.dbpage, UNIT_RQ_QTYPE, win, false,
		       true);
	CHECK_EQ(pub->mode, IONIC_PUB_EXPDB);
	memcpy(&v, (uint8_t *)q->ptr + ionic_queue_stride(q) - 8, 8);
	CHECK_EQ(le64toh(v), ((uint64_t)UNIT_RQ_QTYPE << 48) |
				     ionic_dbell_val(0x52, 0, 1) |
				     (0xbull << 19));

	pub->prod_rung = 5;
	memset(q->ptr, 0, q->size);
	ionic_pub_reset(pub, q);
	CHECK_EQ(pub->prod_rung, 0);
	memcpy(&v, (uint8_t *)q->ptr + ionic_queue_stride(q) - 8, 8);
	CHECK_EQ(le64toh(v), ((uint64_t)UNIT_RQ_QTYPE << 48) |
				     ionic_dbell_val(0x52, 0, 1) |
				     (0xbull << 19));

	/* nothing produced: nothing published, not even a CQ credit */
	dev->dbpage[UNIT_RQ_QTYPE] = 0;
	ionic_post_publish(qp, false, true);
	CHECK_EQ(dev->dbpage[UNIT_RQ_QTYPE], 0);
	CHECK_EQ(qp->recv_cq->pub.reserve, qp->recv_cq->q.mask);

	pub->win = NULL;
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/*
 * SQ in controller memory, with a plain buffer as the window: the WQEs of
 * each post land at the same offsets, also across the wrap; regular mode
 * rings the doorbell register, express-doorbell mode does not and carries
 * each slot's trailer instead.
 */
static void test_cmb(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x45, 16);
	struct ionic_queue *q = &qp->sq.q;
	size_t stride = ionic_queue_stride(q);
	uint8_t *win = aligned_alloc(4096, q->size);
	struct ionic_queue ex = { 0 };
	uint64_t v, want;
	int posted = 0;

	memset(win, 0, q->size);
	ionic_pub_init(&qp->sq.pub, q, dev->ctx.dbpage, UNIT_SQ_QTYPE, win,
		       true, false);
	CHECK_EQ(qp->sq.pub.mode, IONIC_PUB_CMB);

	/* regular: three batches of 7 from 10 slots before the end: the
	 * second one wraps */
	q->prod = q->cons = qp->sq.pub.prod_rung = q->mask - 9;
	for (int b = 0; b < 3; b++) {
		uint16_t start = q->prod;

		dev->dbpage[UNIT_SQ_QTYPE] = 0;
		CHECK_EQ(unit_post_sends(qp, 7, NULL, 100 + posted), 0);
		posted += 7;
		CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE],
			 htole64(q->dbell | q->prod));
		for (uint16_t i = start; i != q->prod;
		     i = ionic_queue_next(q, i))
			CHECK_EQ(memcmp(win + i * stride, ionic_queue_at(q, i),
					stride),
				 0);
		/* the device took them: room for the next batch */
		q->cons = q->prod;
		qp->sq.msn_cons = qp->sq.msn_prod;
	}
	CHECK_EQ(q->prod, (q->mask - 9 + 21) & q->mask);

	/* the trailer of the spec's example: qtype 3, QP 0x123, slot 0 */
	CHECK_EQ(ionic_queue_geometry(&ex, 63, 64, 12), 0);
	CHECK_EQ(ex.mask, 63);
	ex.ptr = aligned_alloc(4096, ex.size);
	memset(ex.ptr, 0, ex.size);
	ionic_expdb_prefill(&ex, 3, 0x123);
	memcpy(&v, (uint8_t *)ex.ptr + 64 - 8, 8);
	CHECK_EQ(le64toh(v), 0x0003000123580001ull);
	memcpy(&v, (uint8_t *)ex.ptr + 63 * 64 + 64 - 8, 8);
	CHECK_EQ(le64toh(v), 0x0003000123580000ull);
	free(ex.ptr);

	/* express doorbell: no register write, trailers travel along (the
	 * WQE layout of a 64-byte slot then ends before the trailer) */
	qp->sq.expdb = true;
	qp->sq.trailer64 = stride == IONIC_WQE_MIN_SIZE;
	ionic_pub_init(&qp->sq.pub, q, dev->ctx.dbpage, UNIT_SQ_QTYPE, win,
		       true, true);
	CHECK_EQ(qp->sq.pub.mode, IONIC_PUB_EXPDB);
	qp->sq.pub.prod_rung = q->prod;
	memset(win, 0, q->size);
	for (int b = 0; b < 2; b++) {
		uint16_t start = q->prod;

		dev->dbpage[UNIT_SQ_QTYPE] = 0;
		CHECK_EQ(unit_post_sends(qp, 7, NULL, 100 + posted), 0);
		posted += 7;
		CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0);
		for (uint16_t i = start; i != q->prod;
		     i = ionic_queue_next(q, i)) {
			CHECK_EQ(memcmp(win + i * stride, ionic_queue_at(q, i),
					stride),
				 0);
			memcpy(&v, win + i * stride + stride - 8, 8);
			want = ((uint64_t)UNIT_SQ_QTYPE << 48) |
			       ((uint64_t)qp->qpid << 24) | (0xbull << 19) |
			       ionic_queue_next(q, i);
			CHECK_EQ(le64toh(v), want);
		}
		q->cons = q->prod;
		qp->sq.msn_cons = qp->sq.msn_prod;
	}

	qp->sq.pub.win = NULL;
	free(win);
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

int main(void)
{
	dev = unit_dev_create(NULL);

	test_clean_and_credits();
	test_post_errors();
	test_arm();
	test_pub_modes();
	test_cmb();

	unit_dev_destroy(dev);
	return check_finish();
}
