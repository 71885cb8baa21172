// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Post and poll paths without a device: a QP and a CQ live in plain
 * memory, the "doorbell page" is an array, and the test plays the device
 * by writing CQEs (ionic-device.md §5-§8, §12).  Checks the WCs of RC
 * (MSN) and UD (NPG) sends and of receives, error completions with exactly
 * one WC per WQE and flushes, skipping of bad CQEs, CQE cleaning, credits
 * and the ring-0 doorbell, and the errno contract of post_send/post_recv.
 * test_golden_cqes() feeds the hand-written CQEs of
 * tests/golden/cqe_golden_bytes.h (what ionic-sim must write, too).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cq.h"
#include "qp.h"
#include "qp_priv.h"
#include "table.h"
#include "golden/cqe_golden_bytes.h"

static int failures;

#define CHECK(cond)                                                    \
	do {                                                           \
		if (!(cond)) {                                         \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, \
				__LINE__, #cond);                      \
			failures++;                                    \
		}                                                      \
	} while (0)

#define CHECK_EQ(a, b)                                                   \
	do {                                                             \
		unsigned long long _a = (a), _b = (b);                   \
		if (_a != _b) {                                          \
			fprintf(stderr,                                  \
				"%s:%d: FAIL: %s = %#llx, want %#llx\n", \
				__FILE__, __LINE__, #a, _a, _b);         \
			failures++;                                      \
		}                                                        \
	} while (0)

#define SQ_QTYPE 1
#define RQ_QTYPE 2
#define CQ_QTYPE 3
#define CQID 5

static uint64_t dbpage[16];
static struct ionic_ctx *ctx;
static struct ionic_ah test_ah = { .ahid = 3 };

/* The device side of one CQ: where it writes next, with which colour. */
struct dev_cq {
	struct ionic_cq *cq;
	uint16_t pos;
	bool color;
};

static struct ionic_vcq *make_vcq(int cqe)
{
	struct ionic_vcq *vcq = calloc(1, sizeof(*vcq));
	struct ionic_cq *cq = &vcq->cq[0];

	vcq->ctx = ctx;
	vcq->udma_mask = 1;
	if (ionic_queue_geometry(&cq->q, cqe + IONIC_CQ_GRACE, 32, 12))
		abort();
	cq->q.ptr = aligned_alloc(4096, cq->q.size);
	memset(cq->q.ptr, 0, cq->q.size);
	ionic_lock_init(&cq->lock, false);
	cq->color = true;
	cq->cqid = CQID;
	cq->q.dbell = ionic_dbell_val(CQID, 0, 0);
	ionic_cq_pub_init(&cq->pub, &cq->q, ctx->dbpage, CQ_QTYPE);
	ionic_list_init(&cq->poll_sq);
	ionic_list_init(&cq->flush_sq);
	ionic_list_init(&cq->flush_rq);
	return vcq;
}

static void free_vcq(struct ionic_vcq *vcq)
{
	free(vcq->cq[0].q.ptr);
	free(vcq);
}

static struct ionic_qp *make_qp(struct ionic_vcq *vcq, bool ud, uint32_t qpid,
				uint32_t depth)
{
	struct ionic_qp *qp = calloc(1, sizeof(*qp));
	uint32_t sz;

	qp->ctx = ctx;
	qp->is_ud = ud;
	qp->version = 2;
	qp->wr_ops = ud ? IONIC_UD_SEND_OPS : IONIC_RC_SEND_OPS;
	qp->qpid = qpid;
	qp->vqp.qp.qp_num = qpid;
	qp->vqp.qp.state = IBV_QPS_RTS;
	qp->send_cq = qp->recv_cq = &vcq->cq[0];
	ionic_list_init(&qp->cq_poll_sq);
	ionic_list_init(&qp->cq_flush_sq);
	ionic_list_init(&qp->cq_flush_rq);

	qp->sq.spec = 2;
	sz = ionic_send_min_size(2, 0, 2, false);
	ionic_queue_geometry(&qp->sq.q, depth, sz, 12);
	qp->sq.q.ptr = aligned_alloc(4096, qp->sq.q.size);
	memset(qp->sq.q.ptr, 0, qp->sq.q.size);
	qp->sq.meta = calloc(qp->sq.q.mask + 1, sizeof(*qp->sq.meta));
	qp->sq.msn_idx = calloc(qp->sq.q.mask + 1, sizeof(*qp->sq.msn_idx));
	qp->sq.max_sge = 2;
	qp->sq.max_inline = 32;
	qp->sq.color = true;
	qp->sq.q.dbell = ionic_dbell_val(qpid, 0, 0);
	ionic_pub_init(&qp->sq.pub, &qp->sq.q, ctx->dbpage, SQ_QTYPE, NULL,
		       false, false);
	ionic_lock_init(&qp->sq.lock, false);

	qp->rq.spec = 2;
	ionic_queue_geometry(&qp->rq.q, depth, 64, 12);
	qp->rq.q.ptr = aligned_alloc(4096, qp->rq.q.size);
	memset(qp->rq.q.ptr, 0, qp->rq.q.size);
	qp->rq.meta = calloc(qp->rq.q.mask + 1, sizeof(*qp->rq.meta));
	qp->rq.max_sge = 2;
	qp->rq.q.dbell = ionic_dbell_val(qpid, 0, 0);
	ionic_pub_init(&qp->rq.pub, &qp->rq.q, ctx->dbpage, RQ_QTYPE, NULL,
		       false, false);
	ionic_lock_init(&qp->rq.lock, false);

	ionic_qp_table_reserve(ctx->qp_table, qpid);
	ionic_qp_table_insert(ctx->qp_table, qpid, qp);
	return qp;
}

static void free_qp(struct ionic_qp *qp)
{
	ionic_qp_table_remove(ctx->qp_table, qp->qpid);
	if (ionic_list_linked(&qp->cq_poll_sq))
		ionic_list_del(&qp->cq_poll_sq);
	if (ionic_list_linked(&qp->cq_flush_sq))
		ionic_list_del(&qp->cq_flush_sq);
	if (ionic_list_linked(&qp->cq_flush_rq))
		ionic_list_del(&qp->cq_flush_rq);
	free(qp->sq.q.ptr);
	free(qp->sq.meta);
	free(qp->sq.msn_idx);
	free(qp->rq.q.ptr);
	free(qp->rq.meta);
	free(qp);
}

/* Write a CQE as the device would: everything, then the colour word. */
static struct ionic_cqe *dev_cqe(struct dev_cq *d, uint32_t qid,
				 enum ionic_cqe_type type, bool err,
				 uint32_t status_length)
{
	struct ionic_cqe *cqe = ionic_queue_at(&d->cq->q, d->pos);

	memset(cqe, 0, 28);
	cqe->status_length = htobe32(status_length);
	cqe->qid_type_flags = htobe32(ionic_cqe_qtf(qid, type, err, d->color));
	d->pos = ionic_queue_next(&d->cq->q, d->pos);
	if (!d->pos)
		d->color = !d->color;
	return cqe;
}

static void dev_msn(struct dev_cq *d, uint32_t qid, uint32_t msn, bool err,
		    uint32_t sts)
{
	struct ionic_cqe *cqe =
		dev_cqe(d, qid, IONIC_CQE_TYPE_SEND_MSN, err, sts);

	cqe->send.msg_msn = htobe32(msn);
	cqe->send.npg_wqe_idx_timestamp = htole64(0x1234ull << 16);
}

static void dev_npg(struct dev_cq *d, uint32_t qid, uint16_t slot, bool err,
		    uint32_t sts)
{
	struct ionic_cqe *cqe =
		dev_cqe(d, qid, IONIC_CQE_TYPE_SEND_NPG, err, sts);

	cqe->send.npg_wqe_idx_timestamp = htole64(slot);
}

static void dev_recv(struct dev_cq *d, uint32_t qid, uint16_t slot, uint32_t op,
		     uint32_t src_qp, uint32_t len, uint32_t imm, uint16_t vlan,
		     bool err)
{
	struct ionic_cqe *cqe = dev_cqe(d, qid, IONIC_CQE_TYPE_RECV, err, len);

	cqe->recv.wqe_idx_timestamp = htole64(slot);
	cqe->recv.src_qpn_op = htobe32(op << 24 | src_qp);
	cqe->recv.imm_data_rkey = htobe32(imm);
	cqe->recv.vlan_tag = htobe16(vlan);
}

static int post_sends(struct ionic_qp *qp, int n, const unsigned int *flags,
		      uint64_t first_id)
{
	struct ibv_send_wr wr[16], *bad = NULL;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = first_id + i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = flags ? flags[i] : IBV_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (qp->is_ud)
			wr[i].wr.ud.ah = &test_ah.ibah;
	}
	return ionic_post_send(&qp->vqp.qp, wr, &bad);
}

static int poll(struct ionic_vcq *vcq, struct ibv_wc *wc, int n)
{
	return ionic_poll_cq(&vcq->vcq.cq, n, wc);
}

static void test_rc_send(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, false, 0x45, 16);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
	unsigned int fl[4] = { IBV_SEND_SIGNALED, 0, IBV_SEND_SIGNALED,
			       IBV_SEND_SIGNALED };
	struct ibv_wc wc[8];
	int reserve = vcq->cq[0].pub.reserve;

	CHECK_EQ(post_sends(qp, 3, fl, 100), 0);
	/* one doorbell: (qpid << 24) | prod, credits spent before it */
	CHECK_EQ(dbpage[SQ_QTYPE], 0x45000003ull);
	CHECK_EQ(vcq->cq[0].pub.reserve, reserve - 3);

	CHECK_EQ(poll(vcq, wc, 8), 0);
	dev_msn(&dev, 0x45, 3, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 100);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_SEND);
	CHECK_EQ(wc[0].qp_num, 0x45);
	CHECK_EQ(wc[0].wc_flags, 0);
	CHECK_EQ(wc[1].wr_id, 102);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	CHECK_EQ(vcq->cq[0].pub.reserve_pending, 3);

	/* coalesced MSN, polled one WC at a time: order kept (phase A) */
	CHECK_EQ(post_sends(qp, 4, NULL, 200), 0);
	dev_msn(&dev, 0x45, 5, false, 0);
	dev_msn(&dev, 0x45, 7, false, 0);
	CHECK_EQ(poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 200);
	CHECK_EQ(poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 201);
	CHECK_EQ(poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 202);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 203);
	CHECK_EQ(poll(vcq, wc, 8), 0);

	/* a stale or future MSN is consumed and skipped, never stalls (D16) */
	dev_msn(&dev, 0x45, 7, false, 0);
	dev_msn(&dev, 0x45, 9, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	CHECK_EQ(vcq->cq[0].q.prod, dev.pos);
	/* unknown CQE type, unknown QP: skipped too */
	dev_cqe(&dev, 0x45, 6, false, 0);
	dev_cqe(&dev, 0x999, IONIC_CQE_TYPE_RECV, false, 0);
	CHECK_EQ(post_sends(qp, 1, NULL, 300), 0);
	dev_msn(&dev, 0x45, 8, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 300);

	free_qp(qp);
	free_vcq(vcq);
}

static void test_rc_error(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, false, 0x46, 16);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
	unsigned int fl[4] = { 0, IBV_SEND_SIGNALED, 0, 0 };
	struct ibv_wc wc[8];

	CHECK_EQ(post_sends(qp, 4, fl, 10), 0);
	/* the second WQE (seq 1) fails remotely: msg_msn = 2 + error */
	dev_msn(&dev, 0x46, 2, true, IONIC_STS_REMOTE_ACC_ERR);
	CHECK_EQ(poll(vcq, wc, 8), 3);
	CHECK_EQ(wc[0].wr_id, 11);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].vendor_err, IONIC_STS_REMOTE_ACC_ERR);
	/* every remaining WQE, unsignalled too, exactly once */
	CHECK_EQ(wc[1].wr_id, 12);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[2].wr_id, 13);
	CHECK_EQ(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	/* later device CQEs for the flushing SQ are ignored */
	dev_msn(&dev, 0x46, 4, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	/* WQEs posted while flushing complete as flushed; credits return */
	CHECK_EQ(post_sends(qp, 2, NULL, 20), 0);
	CHECK_EQ(poll(vcq, wc, 1), 1);
	CHECK_EQ(wc[0].wr_id, 20);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 21);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	CHECK_EQ(vcq->cq[0].pub.reserve + vcq->cq[0].pub.reserve_pending,
		 vcq->cq[0].q.mask);

	free_qp(qp);
	free_vcq(vcq);
}

/* modify to ERR: CQEs already written still report success (D21). */
static void test_flush_request(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, false, 0x47, 16);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
	struct ibv_sge sge = { .length = 8 };
	struct ibv_recv_wr rwr = { .wr_id = 50, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[8];

	CHECK_EQ(post_sends(qp, 3, NULL, 40), 0);
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	rwr.wr_id = 51;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK_EQ(dbpage[RQ_QTYPE], 0x47000002ull);
	dev_msn(&dev, 0x47, 1, false, 0);
	dev_recv(&dev, 0x47, 0, IONIC_CQE_RECV_OP_SEND, 9, 8, 0, 0, false);

	/* what ionic_modify_qp(ERR) sets up */
	qp->sq.flush_req = true;
	ionic_qp_queue_sq_flush(qp);
	qp->rq.flush_req = true;
	ionic_qp_queue_rq_flush(qp);

	CHECK_EQ(poll(vcq, wc, 8), 5);
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
	CHECK_EQ(poll(vcq, wc, 8), 0);

	free_qp(qp);
	free_vcq(vcq);
}

static void test_recv(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *rc = make_qp(vcq, false, 0x48, 4);
	struct ionic_qp *ud = make_qp(vcq, true, 0x49, 4);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
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
	dev_recv(&dev, 0x48, 0, IONIC_CQE_RECV_OP_SEND_IMM, 0x77, 100, 1234, 0,
		 false);
	dev_recv(&dev, 0x48, 1, IONIC_CQE_RECV_OP_RDMA_IMM, 0x77, 0, 0xabcd, 0,
		 false);
	dev_recv(&dev, 0x48, 2, IONIC_CQE_RECV_OP_SEND_INV, 0x77, 5, 0x1234501,
		 0, false);
	dev_recv(&dev, 0x49, 0, IONIC_CQE_RECV_OP_SEND, 0x88, 1064, 0, 0xa005,
		 false);

	CHECK_EQ(poll(vcq, wc, 8), 4);
	CHECK_EQ(wc[0].wr_id, 60);
	CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
	CHECK_EQ(wc[0].byte_len, 100);
	CHECK_EQ(wc[0].src_qp, 0x77);
	CHECK_EQ(wc[0].wc_flags, IBV_WC_WITH_IMM);
	CHECK_EQ(be32toh(wc[0].imm_data), 1234);
	CHECK_EQ(wc[1].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(be32toh(wc[1].imm_data), 0xabcd);
	CHECK_EQ(wc[2].wc_flags, IBV_WC_WITH_INV);
	CHECK_EQ(wc[2].invalidated_rkey, 0x1234501);
	CHECK_EQ(wc[3].wr_id, 70);
	CHECK_EQ(wc[3].wc_flags, IBV_WC_GRH);
	CHECK_EQ(wc[3].sl, 5);
	CHECK_EQ(wc[3].byte_len, 1064);
	CHECK_EQ(wc[3].qp_num, 0x49);
	CHECK_EQ(wc[3].src_qp, 0x88);

	/* a receive error completes that entry, then flushes the RQ */
	dev_recv(&dev, 0x49, 1, 0, 0, IONIC_STS_LOCAL_LEN_ERR, 0, 0, true);
	CHECK_EQ(poll(vcq, wc, 8), 2);
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
	dev_recv(&dev, 0x48, 0x7fff, 0, 0, 4, 0, 0, false);
	CHECK_EQ(poll(vcq, wc, 8), 0);

	free_qp(rc);
	free_qp(ud);
	free_vcq(vcq);
}

static void test_ud_npg(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, true, 0x4a, 8);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
	unsigned int fl[3] = { 0, IBV_SEND_SIGNALED, IBV_SEND_SIGNALED };
	struct ibv_wc wc[8];

	CHECK_EQ(post_sends(qp, 3, fl, 80), 0);
	/* completions are in order: slot 1 waits for slot 0 */
	dev_npg(&dev, 0x4a, 1, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	dev_npg(&dev, 0x4a, 0, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 81);
	/* a slot that is not outstanding is skipped */
	dev_npg(&dev, 0x4a, 5, false, 0);
	/* status 14 maps to LOC_QP_OP_ERR like the kernel (D25) */
	dev_npg(&dev, 0x4a, 2, true, IONIC_STS_LOCAL_SGL_INV_ERR);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 82);
	CHECK_EQ(wc[0].status, IBV_WC_LOC_QP_OP_ERR);
	CHECK_EQ(wc[0].vendor_err, 14);

	free_qp(qp);
	free_vcq(vcq);
}

/* A device flush indicator (NPG, status 4) starts the SQ flush. */
static void test_flush_indicator(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, false, 0x4b, 8);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
	struct ibv_wc wc[8];

	CHECK_EQ(post_sends(qp, 2, NULL, 90), 0);
	dev_msn(&dev, 0x4b, 1, false, 0);
	dev_npg(&dev, 0x4b, 0, true, IONIC_STS_WQE_FLUSHED_ERR);
	CHECK_EQ(poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 90);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[1].wr_id, 91);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);

	free_qp(qp);
	free_vcq(vcq);
}

static void test_clean_and_credits(void)
{
	struct ionic_vcq *vcq = make_vcq(1);
	struct ionic_cq *cq = &vcq->cq[0];
	struct ionic_qp *qp = make_qp(vcq, false, 0x4c, 8);
	struct dev_cq dev = { cq, 0, true };
	struct ibv_wc wc[8];
	unsigned int i;

	CHECK_EQ(post_sends(qp, 1, NULL, 1), 0);
	dev_msn(&dev, 0x4c, 1, false, 0);
	ionic_cq_clean(cq, 0x4c);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	CHECK_EQ(cq->q.prod, 1);

	/* run the CQ around its ring: colour flips, ring 0 syncs */
	dbpage[CQ_QTYPE] = 0;
	/* what a reset does: outstanding WQEs give their credits back */
	cq->pub.reserve_pending += ionic_queue_length(&qp->sq.q);
	qp->sq.q.prod = qp->sq.q.cons = qp->sq.pub.prod_rung = 0;
	qp->sq.msn_prod = qp->sq.msn_cons = 0;
	for (i = 0; i < 3u * (cq->q.mask + 1); i++) {
		CHECK_EQ(post_sends(qp, 1, NULL, i), 0);
		dev_msn(&dev, 0x4c, (qp->sq.msn_prod) & qp->sq.q.mask, false,
			0);
		if (poll(vcq, wc, 8) != 1 || wc[0].wr_id != i) {
			CHECK(!"lost a completion");
			break;
		}
	}
	/* the device was told how far the host read, never past it */
	CHECK(dbpage[CQ_QTYPE] != 0);
	CHECK_EQ(dbpage[CQ_QTYPE] >> 24, CQID);
	CHECK(cq->pub.reserve > 0);

	/* arm-style sync: reported position = read position */
	ionic_cq_sync(&cq->pub, &cq->q);
	CHECK_EQ(dbpage[CQ_QTYPE], ionic_dbell_val(CQID, 0, cq->q.prod));
	CHECK_EQ(cq->pub.reserve + cq->pub.reserve_pending, cq->q.mask);

	free_qp(qp);
	free_vcq(vcq);
}

static void test_post_errors(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, false, 0x4d, 1);
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
	CHECK_EQ(dbpage[SQ_QTYPE], ionic_dbell_val(0x4d, 0, qp->sq.q.mask));

	/* a bad WR in the middle: EINVAL, bad_wr points at it */
	qp->sq.q.prod = qp->sq.q.cons = qp->sq.pub.prod_rung = 0;
	qp->sq.msn_prod = qp->sq.msn_cons = 0;
	wr[3].num_sge = 3;
	CHECK_EQ(ionic_post_send(&qp->vqp.qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[3]);
	CHECK_EQ(qp->sq.q.prod, 3);

	free_qp(qp);
	free_vcq(vcq);
}

/* Extended CQ: start/next/end_poll and the readers. */
static void test_cq_ex(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ibv_cq_ex *cq_ex = &vcq->vcq.cq_ex;
	struct ionic_qp *qp = make_qp(vcq, true, 0x4e, 8);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
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
	CHECK_EQ(post_sends(qp, 1, NULL, 8), 0);
	dev_recv(&dev, 0x4e, 0, IONIC_CQE_RECV_OP_SEND_IMM, 0x99, 1064, 1234,
		 0x4000, false);
	dev_npg(&dev, 0x4e, 0, false, 0);

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

	free_qp(qp);
	free_vcq(vcq);
}

/* Extended send API: batch, UD address, sticky errors, abort, full. */
static void test_wr_api(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, true, 0x4f, 1);
	struct ibv_qp_ex *qpx;
	struct dev_cq dev = { &vcq->cq[0], 0, true };
	struct ibv_wc wc[8];
	char data[8] = "abcdefg";
	struct ionic_wqe *w;
	unsigned int i;

	ionic_qp_init_wr(qp);
	qpx = ibv_qp_to_qp_ex(&qp->vqp.qp);
	CHECK(qpx == &qp->vqp.qp_ex);

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htobe32(1234));
	ibv_wr_set_ud_addr(qpx, &test_ah.ibah, 0x22, 0x33);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	qpx->wr_id = 2;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &test_ah.ibah, 0x22, 0x33);
	ibv_wr_set_inline_data(qpx, data, sizeof(data));
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	CHECK_EQ(dbpage[SQ_QTYPE], 0x4f000002ull);
	w = ionic_queue_at(&qp->sq.q, 0);
	CHECK_EQ(w->base.op, IONIC_V2_OP_SEND_IMM);
	CHECK_EQ(be32toh(w->common.send.dest_qpn), 0x22);
	CHECK_EQ(be32toh(w->common.send.ah_id), 3);
	w = ionic_queue_at(&qp->sq.q, 1);
	CHECK(w->base.flags & htobe16(IONIC_WQE_FLAG_INL));
	CHECK(!memcmp(w->common.pld.data, data, sizeof(data)));
	dev_npg(&dev, 0x4f, 0, false, 0);
	dev_npg(&dev, 0x4f, 1, false, 0);
	CHECK_EQ(poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[1].wr_id, 2);
	CHECK_EQ(wc[1].byte_len, 8);

	/* abort puts prod, MSN and colour back */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &test_ah.ibah, 1, 1);
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

	/* full SQ: sticky ENOMEM (upstream never checks, D4) */
	ibv_wr_start(qpx);
	for (i = 0; i <= qp->sq.q.mask; i++) {
		ibv_wr_send(qpx);
		ibv_wr_set_ud_addr(qpx, &test_ah.ibah, 1, 1);
		ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	}
	CHECK_EQ(ibv_wr_complete(qpx), ENOMEM);
	CHECK_EQ(qp->sq.q.prod, 2);

	/* not in RTS: EINVAL from wr_complete */
	qp->vqp.qp.state = IBV_QPS_RESET;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &test_ah.ibah, 1, 1);
	ibv_wr_set_sge(qpx, 5, 0x1000, 64);
	CHECK_EQ(ibv_wr_complete(qpx), EINVAL);
	CHECK_EQ(qp->sq.q.prod, 2);

	free_qp(qp);
	free_vcq(vcq);
}

/*
 * The device's CQEs as written by hand from the spec (golden/
 * cqe_golden_bytes.h, also what ionic-sim's CQE writer must produce,
 * sim/tests/test_dev_cqe.c): the WCs each must turn into.
 */
static void dev_golden(struct dev_cq *d, const uint8_t *bytes)
{
	/* every golden CQE carries colour 1: first pass only */
	CHECK(d->color);
	memcpy(ionic_queue_at(&d->cq->q, d->pos), bytes, GC_SIZE);
	d->pos = ionic_queue_next(&d->cq->q, d->pos);
	if (!d->pos)
		d->color = !d->color;
}

static void test_golden_cqes(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, true, GC_QPN, 16);
	struct dev_cq dev = { &vcq->cq[0], 0, true };
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
	CHECK_EQ(post_sends(qp, 2, NULL, 600), 0);

	dev_golden(&dev, gc_recv);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 500);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
	CHECK_EQ(wc[0].byte_len, GC_RECV_LEN);
	CHECK_EQ(wc[0].qp_num, GC_QPN);
	CHECK_EQ(wc[0].src_qp, GC_RECV_SRC_QPN);
	CHECK_EQ(wc[0].imm_data, htobe32(GC_RECV_IMM));
	CHECK_EQ(wc[0].wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(wc[0].sl, GC_RECV_SL);

	dev_golden(&dev, gc_npg);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 600);
	CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[0].opcode, IBV_WC_SEND);

	/* flush indicators name no WQE: everything outstanding flushes */
	dev_golden(&dev, gc_sq_flush);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 601);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	dev_golden(&dev, gc_rq_flush);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 501);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	free_qp(qp);
	free_vcq(vcq);

	/* RC QP: a receive in RQ slot 3, five sends with MSNs 0..4 */
	vcq = make_vcq(64);
	qp = make_qp(vcq, false, GC_QPN, 16);
	dev = (struct dev_cq){ &vcq->cq[0], 0, true };
	qp->rq.q.prod = qp->rq.q.cons = qp->rq.pub.prod_rung = GC_RECV_ERR_SLOT;
	rwr.wr_id = 700;
	CHECK_EQ(ionic_post_recv(&qp->vqp.qp, &rwr, &rbad), 0);
	CHECK_EQ(post_sends(qp, 5, NULL, 710), 0);

	dev_golden(&dev, gc_recv_err);
	CHECK_EQ(poll(vcq, wc, 8), 1);
	CHECK_EQ(wc[0].wr_id, 700);
	CHECK_EQ(wc[0].status, IBV_WC_LOC_LEN_ERR);
	CHECK_EQ(wc[0].vendor_err, GC_RECV_ERR_STATUS);

	/* MSN 3: the sends with MSN 0, 1, 2 are done */
	dev_golden(&dev, gc_msn);
	CHECK_EQ(poll(vcq, wc, 8), 3);
	CHECK_EQ(wc[0].wr_id, 710);
	CHECK_EQ(wc[2].wr_id, 712);
	CHECK_EQ(wc[2].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[2].opcode, IBV_WC_SEND);

	/* MSN 4 + REMOTE_ACC: MSN 3 failed, the rest flushes */
	dev_golden(&dev, gc_msn_err);
	CHECK_EQ(poll(vcq, wc, 8), 2);
	CHECK_EQ(wc[0].wr_id, 713);
	CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc[0].vendor_err, GC_MSN_ERR_STATUS);
	CHECK_EQ(wc[1].wr_id, 714);
	CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(poll(vcq, wc, 8), 0);
	free_qp(qp);
	free_vcq(vcq);
}

/*
 * SQ in controller memory (ionic-device.md §11.4), with a plain buffer as
 * the window: the WQEs of each post land at the same offsets, also across
 * the wrap; regular mode rings the doorbell register, express-doorbell
 * mode does not and carries each slot's trailer instead.
 */
static void test_cmb(void)
{
	struct ionic_vcq *vcq = make_vcq(64);
	struct ionic_qp *qp = make_qp(vcq, false, 0x45, 16);
	struct ionic_queue *q = &qp->sq.q;
	size_t stride = ionic_queue_stride(q);
	uint8_t *win = aligned_alloc(4096, q->size);
	struct ionic_queue ex = { 0 };
	uint64_t v, want;
	int posted = 0;

	memset(win, 0, q->size);
	ionic_pub_init(&qp->sq.pub, q, ctx->dbpage, SQ_QTYPE, win, true, false);

	/* regular: three batches of 7 on 16 slots, the third one wraps */
	for (int b = 0; b < 3; b++) {
		uint16_t start = q->prod;

		dbpage[SQ_QTYPE] = 0;
		CHECK_EQ(post_sends(qp, 7, NULL, 100 + posted), 0);
		posted += 7;
		CHECK_EQ(dbpage[SQ_QTYPE], htole64(q->dbell | q->prod));
		for (uint16_t i = start; i != q->prod;
		     i = ionic_queue_next(q, i))
			CHECK_EQ(memcmp(win + i * stride, ionic_queue_at(q, i),
					stride),
				 0);
		/* the device took them: room for the next batch */
		q->cons = q->prod;
		qp->sq.msn_cons = qp->sq.msn_prod;
	}
	CHECK_EQ(q->prod, 21 & q->mask);

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

	/* express doorbell: no register write, trailers travel along */
	qp->sq.expdb = true;
	ionic_pub_init(&qp->sq.pub, q, ctx->dbpage, SQ_QTYPE, win, true, true);
	qp->sq.pub.prod_rung = q->prod;
	memset(win, 0, q->size);
	for (int b = 0; b < 2; b++) {
		uint16_t start = q->prod;

		dbpage[SQ_QTYPE] = 0;
		CHECK_EQ(post_sends(qp, 7, NULL, 100 + posted), 0);
		posted += 7;
		CHECK_EQ(dbpage[SQ_QTYPE], 0);
		for (uint16_t i = start; i != q->prod;
		     i = ionic_queue_next(q, i)) {
			CHECK_EQ(memcmp(win + i * stride, ionic_queue_at(q, i),
					stride),
				 0);
			memcpy(&v, win + i * stride + stride - 8, 8);
			want = ((uint64_t)SQ_QTYPE << 48) |
			       ((uint64_t)qp->qpid << 24) | (0xbull << 19) |
			       ionic_queue_next(q, i);
			CHECK_EQ(le64toh(v), want);
		}
		q->cons = q->prod;
		qp->sq.msn_cons = qp->sq.msn_prod;
	}

	qp->sq.pub.win = NULL;
	free(win);
	free_qp(qp);
	free_vcq(vcq);
}

int main(void)
{
	ctx = calloc(1, sizeof(*ctx));
	ctx->dbpage = dbpage;
	ctx->sq_qtype = SQ_QTYPE;
	ctx->rq_qtype = RQ_QTYPE;
	ctx->cq_qtype = CQ_QTYPE;
	ctx->version = 2;
	ctx->page_shift = 12;
	ctx->udma_count = 1;
	ctx->udma_mask = 1;
	ctx->qp_table = ionic_qp_table_create();

	test_rc_send();
	test_rc_error();
	test_flush_request();
	test_recv();
	test_ud_npg();
	test_flush_indicator();
	test_clean_and_credits();
	test_post_errors();
	test_cq_ex();
	test_wr_api();
	test_golden_cqes();
	test_cmb();

	ionic_qp_table_destroy(ctx->qp_table);
	free(ctx);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("post/poll: all checks passed\n");
	return 0;
}
