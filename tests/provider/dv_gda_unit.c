// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The extended DV API without a device (tests/support/provider_fixture.h): GDA mode
 * as publish.h implements it (WQEs written and copied, no doorbell store,
 * the exact doorbell value reported), the descriptors against the
 * provider's own rings, express-doorbell masks, and sq_sig_all with the
 * vendor bits.  The doorbell page is an array, so every store the
 * provider makes is seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/ionic_dv.h>

#include "provider_fixture.h"

#define QPID 0x77

static struct unit_dev *dev;

static uint64_t db(unsigned int qtype)
{
	return le64toh(dev->dbpage[qtype]);
}

static uint64_t send_data(struct ionic_qp *qp)
{
	uint64_t v = ~0ull;

	CHECK_EQ(ionic_dv_qp_get_send_dbell_data(&qp->vqp.qp, &v), 0);
	return v;
}

static uint64_t recv_data(struct ionic_qp *qp)
{
	uint64_t v = ~0ull;

	CHECK_EQ(ionic_dv_qp_get_recv_dbell_data(&qp->vqp.qp, &v), 0);
	return v;
}

/* ibv_post_send, ibv_wr_* and ibv_post_recv with and without GDA. */
static void test_gda_host(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, QPID, 16);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	uint64_t base = (uint64_t)QPID << 24;
	int reserve = qp->send_cq->pub.reserve;

	CHECK_EQ(send_data(qp), base);
	CHECK_EQ(recv_data(qp), base);
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, true, true), 0);
	CHECK(ionic_pub_gda(&qp->sq.pub) && ionic_pub_gda(&qp->rq.pub));

	/* WQEs written, CQ credits spent, but no doorbell */
	dev->dbpage[UNIT_SQ_QTYPE] = 0;
	CHECK_EQ(unit_post_sends(qp, 3, NULL, 1), 0);
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0);
	CHECK_EQ(qp->sq.q.prod, 3);
	CHECK_EQ(qp->send_cq->pub.reserve, reserve - 3);
	CHECK_EQ(((struct ionic_wqe *)ionic_queue_at(&qp->sq.q, 2))->base.op,
		 IONIC_V2_OP_SEND);
	CHECK_EQ(send_data(qp), base | 3);

	/* the extended API publishes the same way; a batch in progress is
	 * not in the value */
	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0, 0, 0);
	CHECK_EQ(qp->sq.pub.prod_rung, 3);
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0);
	CHECK_EQ(send_data(qp), base | 4);

	/* receive side */
	dev->dbpage[UNIT_RQ_QTYPE] = 0;
	CHECK_EQ(unit_post_recv(qp, 1, 64), 0);
	CHECK_EQ(unit_post_recv(qp, 2, 64), 0);
	CHECK_EQ(dev->dbpage[UNIT_RQ_QTYPE], 0);
	CHECK_EQ(recv_data(qp), base | 2);

	/* off again: the next doorbell covers the held WQEs too */
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, false, true), 0);
	CHECK(!ionic_pub_gda(&qp->sq.pub) && ionic_pub_gda(&qp->rq.pub));
	CHECK_EQ(unit_post_sends(qp, 1, NULL, 10), 0);
	CHECK_EQ(db(UNIT_SQ_QTYPE), base | 5);
	CHECK_EQ(send_data(qp), base | 5);
	CHECK_EQ(unit_post_recv(qp, 3, 64), 0);
	CHECK_EQ(dev->dbpage[UNIT_RQ_QTYPE], 0);
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, false, false), 0);
	CHECK_EQ(unit_post_recv(qp, 4, 64), 0);
	CHECK_EQ(db(UNIT_RQ_QTYPE), base | 4);

	/* GDA survives a RESET; the value restarts with the queue */
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, true, false), 0);
	ionic_pub_reset(&qp->sq.pub, &qp->sq.q);
	qp->sq.q.prod = qp->sq.q.cons = 0;
	CHECK(ionic_pub_gda(&qp->sq.pub));
	CHECK_EQ(send_data(qp), base);

	CHECK_EQ(ionic_dv_qp_get_send_dbell_data(&qp->vqp.qp, NULL), EINVAL);
	CHECK_EQ(ionic_dv_qp_get_recv_dbell_data(&qp->vqp.qp, NULL), EINVAL);
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/* Controller memory: the copy still happens; express doorbells refuse. */
static void test_gda_cmb(void)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, QPID, 16);
	struct ionic_queue *q = &qp->sq.q;
	uint8_t *win = aligned_alloc(4096, q->size);
	struct ionic_dv_qp dq;

	REQUIRE(win);
	memset(win, 0, q->size);
	ionic_pub_init(&qp->sq.pub, q, dev->ctx.dbpage, UNIT_SQ_QTYPE, win,
		       true, false);
	CHECK_EQ(ionic_dv_get_qp(&dq, &qp->vqp.qp), 0);
	CHECK(dq.sq.ptr == win); /* the ring the device reads */
	CHECK(dq.rq.ptr == qp->rq.q.ptr);

	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, true, false), 0);
	dev->dbpage[UNIT_SQ_QTYPE] = 0;
	CHECK_EQ(unit_post_sends(qp, 2, NULL, 1), 0);
	CHECK_EQ(dev->dbpage[UNIT_SQ_QTYPE], 0);
	CHECK_EQ(memcmp(win, q->ptr, 2 * ionic_queue_stride(q)), 0);
	CHECK_EQ(send_data(qp), ((uint64_t)QPID << 24) | 2);
	CHECK_EQ(qp->sq.pub.mode, IONIC_PUB_CMB | IONIC_PUB_GDA);

	/* express doorbells: refused, and neither queue changes */
	qp->sq.expdb = true;
	ionic_pub_init(&qp->sq.pub, q, dev->ctx.dbpage, UNIT_SQ_QTYPE, win,
		       true, true);
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, true, true), EINVAL);
	CHECK_EQ(qp->sq.pub.mode, IONIC_PUB_EXPDB);
	CHECK(!ionic_pub_gda(&qp->rq.pub));
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, false, true), 0);
	CHECK(ionic_pub_gda(&qp->rq.pub));
	CHECK_EQ(ionic_dv_qp_set_gda(&qp->vqp.qp, false, false), 0);

	qp->sq.pub.win = NULL;
	free(win);
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

static void check_queue(const struct ionic_dv_queue *d,
			const struct ionic_queue *q)
{
	CHECK(d->ptr == q->ptr);
	CHECK_EQ(d->size, q->size);
	CHECK_EQ(d->db_val, q->dbell);
	CHECK_EQ(d->mask, q->mask);
	CHECK_EQ(d->depth_log2, q->depth_log2);
	CHECK_EQ(d->stride_log2, q->stride_log2);
	CHECK_EQ(d->size, (size_t)1 << (d->depth_log2 + d->stride_log2));
	CHECK_EQ(d->mask, (1u << d->depth_log2) - 1);
}

static void test_descriptors(void)
{
	struct ibv_context *ibctx = &dev->ctx.vctx.context;
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, QPID, 16);
	struct ionic_dv_ctx dc;
	struct ionic_dv_cq dcq;
	struct ionic_dv_qp dq;

	memset(&dc, 0xee, sizeof(dc));
	CHECK_EQ(ionic_dv_get_ctx(&dc, ibctx), 0);
	CHECK(dc.db_ptr == dev->dbpage);
	CHECK(dc.db_page == dev->ctx.dbpage_map);
	CHECK_EQ(dc.sq_qtype, UNIT_SQ_QTYPE);
	CHECK_EQ(dc.rq_qtype, UNIT_RQ_QTYPE);
	CHECK_EQ(dc.cq_qtype, UNIT_CQ_QTYPE);
	CHECK_EQ(ionic_dv_get_ctx(NULL, ibctx), EINVAL);

	CHECK_EQ(ionic_dv_get_cq(&dcq, &vcq->vcq.cq, 0), 0);
	check_queue(&dcq.q, &vcq->cq[0].q);
	CHECK_EQ(dcq.q.db_val, (uint64_t)UNIT_CQID << 24);
	CHECK_EQ(dcq.q.stride_log2, 5);
	/* the unit device has one pipeline */
	CHECK_EQ(ionic_dv_cq_get_udma_mask(&vcq->vcq.cq), 1);
	CHECK_EQ(ionic_dv_get_cq(&dcq, &vcq->vcq.cq, 1), EINVAL);
	CHECK_EQ(ionic_dv_get_cq(&dcq, &vcq->vcq.cq, 2), EINVAL);
	CHECK_EQ(ionic_dv_get_cq(&dcq, &vcq->vcq.cq, 255), EINVAL);
	CHECK_EQ(ionic_dv_get_cq(NULL, &vcq->vcq.cq, 0), EINVAL);

	memset(&dq, 0xee, sizeof(dq));
	CHECK_EQ(ionic_dv_get_qp(&dq, &qp->vqp.qp), 0);
	check_queue(&dq.rq, &qp->rq.q);
	check_queue(&dq.sq, &qp->sq.q);
	CHECK_EQ(dq.sq.db_val, (uint64_t)QPID << 24);
	CHECK_EQ(dq.sq.stride_log2, 6);
	CHECK_EQ(ionic_dv_get_qp(NULL, &qp->vqp.qp), EINVAL);
	CHECK_EQ(ionic_dv_qp_get_udma_idx(&qp->vqp.qp), 0);

	CHECK(ionic_dv_is_ionic_ctx(ibctx));
	CHECK(ionic_dv_is_ionic_pd(&dev->pd.ibpd));
	CHECK(ionic_dv_is_ionic_cq(&vcq->vcq.cq));
	CHECK(ionic_dv_is_ionic_qp(&qp->vqp.qp));
	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
}

/* The CMB request an SQ of 'max_sge' SGEs would send the kernel. */
static uint8_t sq_cmb_asked(struct ionic_pd *pd, uint32_t max_sge)
{
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = &vcq->vcq.cq,
		.recv_cq = &vcq->vcq.cq,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = max_sge,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &pd->ibpd,
	};
	struct ionic_qp *qp = NULL;
	uint8_t sq_cmb = 0, rq_cmb;

	CHECK_EQ(ionic_qp_alloc(&dev->ctx, &attr, &sq_cmb, &rq_cmb, &qp), 0);
	if (qp)
		ionic_qp_free(qp);
	unit_cq_destroy(vcq);
	return sq_cmb;
}

static void test_expdb_mask(void)
{
	struct unit_dev_opts o = { .udma_count = 1,
				   .expdb_mask = 0xf,
				   .sq_expdb = true };
	struct ibv_parent_domain_init_attr pa = { 0 };
	struct ibv_pd *par;

	unit_dev_destroy(dev);
	dev = unit_dev_create(&o);
	/* default: express doorbells for 64-byte WQEs only */
	CHECK_EQ(dev->pd.expdb_mask, IONIC_EXPDB_64);
	CHECK(sq_cmb_asked(&dev->pd, 1) & IONIC_CMB_EXPDB); /* 64 B */
	CHECK(!(sq_cmb_asked(&dev->pd, 4) & IONIC_CMB_EXPDB)); /* 128 B */
	CHECK(sq_cmb_asked(&dev->pd, 4) & IONIC_CMB_ENABLE);

	CHECK_EQ(ionic_dv_pd_set_expdb_mask(&dev->pd.ibpd, 0xff), 0);
	CHECK_EQ(dev->pd.expdb_mask, 0xf); /* only the four size bits */
	CHECK(sq_cmb_asked(&dev->pd, 4) & IONIC_CMB_EXPDB);
	CHECK_EQ(ionic_dv_pd_set_expdb_mask(&dev->pd.ibpd, IONIC_EXPDB_128), 0);
	CHECK(!(sq_cmb_asked(&dev->pd, 1) & IONIC_CMB_EXPDB));

	/* parent domains copy the mask, then keep their own */
	pa.pd = &dev->pd.ibpd;
	par = ionic_alloc_parent_domain(&dev->ctx.vctx.context, &pa);
	REQUIRE(par);
	CHECK_EQ(to_ionic_pd(par)->expdb_mask, IONIC_EXPDB_128);
	CHECK_EQ(ionic_dv_pd_set_expdb_mask(par, 0), 0);
	CHECK_EQ(to_ionic_pd(par)->expdb_mask, 0);
	CHECK_EQ(dev->pd.expdb_mask, IONIC_EXPDB_128);
	CHECK(!(sq_cmb_asked(to_ionic_pd(par), 4) & IONIC_CMB_EXPDB));
	CHECK_EQ(ionic_dealloc_pd(par), 0);

	/* the device's sizes bound the PD's: 64 B only on this device */
	unit_dev_destroy(dev);
	o.expdb_mask = IONIC_EXPDB_64;
	dev = unit_dev_create(&o);
	CHECK_EQ(ionic_dv_pd_set_expdb_mask(&dev->pd.ibpd, 0xf), 0);
	CHECK(!(sq_cmb_asked(&dev->pd, 4) & IONIC_CMB_EXPDB));
}

/* sq_sig_all: bit 0 (or any non-vendor bit) signals all; 16-19 never. */
static void test_sig_all(void)
{
	static const struct {
		int sq_sig_all;
		bool sig_all;
		uint32_t vendor;
	} v[] = {
		{ 0, false, 0 },
		{ 1, true, 0 },
		{ 2, true, 0 }, /* verbs: any non-zero value */
		{ 0x10000, false, 0x10000 },
		{ 0x50000, false, 0x50000 },
		{ 0xf0000, false, 0xf0000 },
		{ 0xf0001, true, 0xf0000 },
		{ 0x70001, true, 0x70000 },
		{ 0x100000, true, 0 }, /* bit 20 is no vendor flag */
	};
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);

	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct ibv_qp_init_attr_ex attr = {
			.send_cq = &vcq->vcq.cq,
			.recv_cq = &vcq->vcq.cq,
			.cap = { 8, 8, 1, 1, 0 },
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = v[i].sq_sig_all,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = &dev->pd.ibpd,
		};
		struct ionic_qp *qp = NULL;
		uint8_t sc, rc;

		CHECK_EQ(ionic_qp_alloc(&dev->ctx, &attr, &sc, &rc, &qp), 0);
		if (!qp)
			continue;
		CHECK_EQ(qp->sig_all, v[i].sig_all);
		CHECK_EQ(qp->vendor_flags, v[i].vendor);
		ionic_qp_free(qp);
	}
	unit_cq_destroy(vcq);
}

int main(void)
{
	dev = unit_dev_create(&(struct unit_dev_opts){ .udma_count = 1 });
	test_gda_host();
	test_gda_cmb();
	test_descriptors();
	test_sig_all();
	test_expdb_mask();
	unit_dev_destroy(dev);
	return check_finish();
}
