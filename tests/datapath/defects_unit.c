// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Upstream provider defects that only show without a device, each checked
 * on real provider objects (tests/support/provider_fixture.h) where libionic does
 * better (docs/upstream-defects.md):
 *
 *  D2  per-WQE timestamps of a coalesced MSN CQE with a local operation
 *      completed in between;
 *  D3  the SQ colour after a wr_abort across a ring wrap;
 *  D7  the v1 atomic WQE with an express doorbell: at least 128 bytes, and
 *      EINVAL should a 64-byte layout ever be asked for;
 *  D8  the RQ express-doorbell decision on the rounded WQE size;
 *  D9  the SQ colour after a reset to RESET.
 */
#include <errno.h>
#include <string.h>

#include "provider_fixture.h"

static bool wqe_color(struct ionic_qp *qp, uint16_t slot)
{
	const struct ionic_wqe *w = ionic_queue_at(&qp->sq.q, slot);

	return !!(be16toh(w->base.flags) & IONIC_WQE_FLAG_COLOR);
}

/* Post one signalled SEND and complete it (RC NPG-free: a SEND is remote,
 * so its MSN CQE). */
static void send_and_complete(struct ionic_qp *qp, struct ionic_vcq *vcq,
			      struct unit_cq_dev *hw)
{
	struct ibv_wc wc;

	REQUIRE_EQ(unit_post_sends(qp, 1, NULL, 1), 0);
	unit_cqe_msn(hw, qp->qpid, (uint32_t)qp->sq.msn_prod, false, 0);
	CHECK_EQ(unit_poll(vcq, &wc, 1), 1);
}

static void test_d2_timestamps(void)
{
	struct unit_dev *dev = unit_dev_create(NULL);
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x61, 8);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_cq_ex *cq = &vcq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = { 0 };
	struct ibv_sge sge = { 0x1000, 64, 5 };
	struct ibv_send_wr wr[3], *bad;
	struct ionic_cqe *c;
	uint64_t ts[3];

	SECTION("D2: coalesced MSN CQE, a local operation in between");
	/* what creation with the timestamp flag sets up */
	vcq->want_ts = true;
	ionic_vcq_init_ex(vcq, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 3; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].wr.rdma.rkey = 9;
	}
	wr[1].opcode = IBV_WR_LOCAL_INV;
	wr[1].num_sge = 0;
	wr[1].invalidate_rkey = 0x77;
	REQUIRE_EQ(ionic_post_send(&qp->vqp.qp, wr, &bad), 0);
	/* the LOCAL_INV (slot 1) first, then both WRITEs at once */
	c = unit_cqe(&hw, 0x61, IONIC_CQE_TYPE_SEND_NPG, false, 0);
	c->send.npg_wqe_idx_timestamp = htole64(1 | 0x1111ull << 16);
	c = unit_cqe(&hw, 0x61, IONIC_CQE_TYPE_SEND_MSN, false, 0);
	c->send.msg_msn = htobe32(2);
	c->send.npg_wqe_idx_timestamp = htole64(0x2222ull << 16);

	REQUIRE_EQ(ibv_start_poll(cq, &attr), 0);
	for (int i = 0; i < 3; i++) {
		if (i)
			REQUIRE_EQ(ibv_next_poll(cq), 0);
		REQUIRE(cq->wr_id < 3);
		CHECK_EQ(cq->status, IBV_WC_SUCCESS);
		ts[cq->wr_id] = ibv_wc_read_completion_ts(cq);
	}
	CHECK_EQ(ibv_next_poll(cq), ENOENT);
	ibv_end_poll(cq);
	/* each WQE its own CQE's time (upstream gives the LOCAL_INV the
	 * WRITEs' and the second WRITE a stale one) */
	CHECK_EQ(ts[0], 0x2222);
	CHECK_EQ(ts[1], 0x1111);
	CHECK_EQ(ts[2], 0x2222);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev);
}

static void test_d3_abort_colour(void)
{
	struct unit_dev *dev = unit_dev_create(NULL);
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x62, 4);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(&qp->vqp.qp);
	uint16_t last = qp->sq.q.mask;
	bool lap;

	SECTION("D3: wr_abort across a ring wrap restores the colour");
	/* up to the last slot of the first lap */
	while (qp->sq.q.prod != last)
		send_and_complete(qp, vcq, &hw);
	lap = qp->sq.color;
	ibv_wr_start(qx);
	for (int i = 0; i < 2; i++) {
		ibv_wr_send(qx);
		ibv_wr_set_sge(qx, 5, 0x1000, 64);
	}
	CHECK_EQ(qp->sq.q.prod, 1); /* wrapped */
	ibv_wr_abort(qx);
	CHECK_EQ(qp->sq.q.prod, last);
	/* the same two WRs again: the last slot still in the first lap's
	 * colour, slot 0 in the second's */
	REQUIRE_EQ(unit_post_sends(qp, 2, NULL, 10), 0);
	CHECK_EQ(wqe_color(qp, last), lap);
	CHECK_EQ(wqe_color(qp, 0), !lap);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev);
}

static void test_d7_v1_atomic_expdb(void)
{
	struct unit_dev_opts o = { .version = 1,
				   .expdb_mask = 0xf,
				   .sq_expdb = true };
	struct unit_dev *dev = unit_dev_create(&o);
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct unit_qp_opts qo = { .qpid = 0x63, .depth = 8, .max_sge = 1 };
	struct ionic_qp *qp;
	struct ibv_sge sge = { 0x1000, 8, 5 };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint8_t stride;

	SECTION("D7: firmware v1, express doorbell: 128-byte atomic WQEs");
	/* every window size allowed (ionic_dv_pd_set_expdb_mask) */
	dev->pd.expdb_mask = 0xf;
	qp = unit_qp_create(dev, vcq, &qo);
	CHECK(qp->sq.expdb);
	CHECK_GE(ionic_queue_stride(&qp->sq.q), 128);
	wr.wr.atomic.remote_addr = 0x2000;
	wr.wr.atomic.rkey = 9;
	CHECK_EQ(ionic_post_send(&qp->vqp.qp, &wr, &bad), 0);
	/* a 64-byte layout would put the SGE over the doorbell trailer */
	stride = qp->sq.q.stride_log2;
	qp->sq.q.stride_log2 = 6;
	CHECK_EQ(ionic_post_send(&qp->vqp.qp, &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	qp->sq.q.stride_log2 = stride;

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev);
}

static void test_d8_rq_expdb_rounded(void)
{
	struct unit_dev_opts o = { .expdb_mask = 0xf, .rq_expdb = true };
	struct unit_dev *dev = unit_dev_create(&o);
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct unit_qp_opts qo = { .qpid = 0x64, .depth = 8, .max_sge = 4 };
	uint32_t raw = ionic_recv_min_size(4, dev->ctx.spec, true);
	struct ionic_qp *qp;

	SECTION("D8: RQ express doorbell decided on the rounded size");
	/* the case upstream gets wrong: the raw size is no window size */
	CHECK(raw & (raw - 1));
	CHECK(!ionic_expdb_size_ok(raw, 0xf));
	dev->pd.expdb_mask = 0xf;
	qp = unit_qp_create(dev, vcq, &qo);
	CHECK(qp->rq.expdb);
	CHECK_EQ(ionic_queue_stride(&qp->rq.q), 1u << ionic_bitlen(raw - 1));
	CHECK_GE(qp->rq.max_sge, 4);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev);
}

static void test_d9_reset_colour(void)
{
	struct unit_dev *dev = unit_dev_create(NULL);
	struct ionic_vcq *vcq = unit_cq_create(dev, 64);
	struct ionic_qp *qp = unit_qp(dev, vcq, false, 0x65, 4);
	struct unit_cq_dev hw = unit_cq_dev(&vcq->cq[0]);

	SECTION("D9: RESET puts the SQ colour back to 1");
	/* past one wrap: the colour of the second lap is 0 */
	for (unsigned int i = 0; i <= qp->sq.q.mask + 1u; i++)
		send_and_complete(qp, vcq, &hw);
	CHECK(!qp->sq.color);
	/* what ionic_modify_qp does once the kernel accepted RESET */
	ionic_qp_reset(qp);
	CHECK_EQ(qp->sq.q.prod, 0);
	REQUIRE_EQ(unit_post_sends(qp, 1, NULL, 20), 0);
	/* the device restarts at slot 0 expecting the first lap's colour */
	CHECK(wqe_color(qp, 0));

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev);
}

int main(void)
{
	test_d2_timestamps();
	test_d3_abort_colour();
	test_d7_v1_atomic_expdb();
	test_d8_rq_expdb_rounded();
	test_d9_reset_colour();
	return check_finish();
}
