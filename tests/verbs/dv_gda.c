// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * GDA host flow under ionic-sim (docs/gpu-direct-verbs.md §3, §4): with
 * ionic_dv_qp_set_gda() on, ibv_post_send and ibv_post_recv write work
 * requests but the device sees no doorbell (nothing completes, and the
 * emulator's trace shows no doorbell for the queue); the application then
 * writes ionic_dv_qp_get_send/recv_dbell_data()'s value to the doorbell
 * register of ionic_dv_get_ctx() and the work completes.  Also: turning
 * GDA off lets the provider's next doorbell cover held work, and the
 * descriptor getters' error paths on real objects.
 *
 * Needs the run's trace (ionic-sim --trace, $IONIC_SIM_TRACE): the
 * doorbells the device decoded are counted from it.
 *
 *   verbs-dv-gda-prog [--cmb]
 *     --cmb   the run's device has controller memory (--cmb-pages): the
 *             send queue is placed there, GDA still copies each WQE to it
 */
#include <stdio.h>

#include "dv_link.h"

#define TMO 5000
#define QUIET_MS 300 /* no completion within this: no doorbell arrived */

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static int post_send(struct dvl_link *l, uint64_t wr_id, size_t off,
		     uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(l->buf + off), len, l->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	return ibv_post_send(l->qp, &wr, &bad);
}

static int post_recv(struct dvl_link *l, uint64_t wr_id, size_t off,
		     uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(l->buf + off), len, l->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(l->qp, &wr, &bad);
}

/* Doorbells the device decoded for one queue of the QP ("SQ" or "RQ"). */
static int doorbells(const struct ibv_qp *qp, const char *q)
{
	char needle[64];
	int n;

	snprintf(needle, sizeof(needle), " DB %s qp %u prod ", q, qp->qp_num);
	n = dvl_trace_count(needle);
	REQUIRE(n >= 0); /* the test runs with a trace */
	return n;
}

static void ring(const struct ionic_dv_ctx *dc, unsigned int qtype,
		 uint64_t val)
{
	volatile uint64_t *reg = dc->db_ptr + qtype;

	*reg = htole64(val);
}

static void expect_wcs(struct ibv_cq *cq, int n, uint64_t first_id,
		       enum ibv_wc_opcode op, uint32_t len)
{
	struct ibv_wc wc[8];

	REQUIRE(n <= 8);
	CHECK_EQ(fx_poll(cq, wc, n, TMO), n);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, first_id + (uint64_t)i);
		CHECK_EQ(wc[i].opcode, op);
		if (op == IBV_WC_RECV)
			CHECK_EQ(wc[i].byte_len, len);
	}
}

static void test_send(struct dvl_link *l, const struct ionic_dv_ctx *dc)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(l->cq);
	struct ionic_dv_qp dq;
	uint64_t v = 0;

	SECTION("GDA send: WQEs written, no doorbell, the app rings");
	REQUIRE_EQ(ionic_dv_get_qp(&dq, l->qp), 0);
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, true, false), 0);
	for (int i = 0; i < 3; i++) {
		fx_fill(l->buf + 1024 * i, 300, 40 + i);
		CHECK_RC(dvl_peer_recv(l, 10 + i, 1024 * i, 1024), 0);
		CHECK_RC(post_send(l, 20 + i, 1024 * i, 300), 0);
	}
	CHECK_EQ(fx_expect_none(cq, QUIET_MS), 0);
	CHECK_EQ(fx_expect_none(l->peer_cq, 10), 0);
	CHECK_EQ(doorbells(l->qp, "SQ"), 0);

	CHECK_RC(ionic_dv_qp_get_send_dbell_data(l->qp, &v), 0);
	CHECK_EQ(v, ((uint64_t)l->qp->qp_num << 24) | 3);
	CHECK_EQ(v, dq.sq.db_val | 3);
	ring(dc, dc->sq_qtype, v);
	expect_wcs(cq, 3, 20, IBV_WC_SEND, 0);
	expect_wcs(l->peer_cq, 3, 10, IBV_WC_RECV, 300);
	for (int i = 0; i < 3; i++)
		CHECK(!memcmp(l->peer_buf + 1024 * i, l->buf + 1024 * i, 300));
	CHECK_EQ(doorbells(l->qp, "SQ"), 1);

	SECTION("GDA off: the provider's next doorbell covers held WQEs");
	CHECK_RC(dvl_peer_recv(l, 13, 0, 1024), 0);
	CHECK_RC(dvl_peer_recv(l, 14, 1024, 1024), 0);
	CHECK_RC(post_send(l, 23, 0, 100), 0);
	CHECK_EQ(fx_expect_none(cq, QUIET_MS / 3), 0);
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, false, false), 0);
	CHECK_RC(post_send(l, 24, 1024, 100), 0);
	expect_wcs(cq, 2, 23, IBV_WC_SEND, 0);
	expect_wcs(l->peer_cq, 2, 13, IBV_WC_RECV, 100);
	CHECK_EQ(doorbells(l->qp, "SQ"), 2);
	CHECK_RC(ionic_dv_qp_get_send_dbell_data(l->qp, &v), 0);
	CHECK_EQ(v, dq.sq.db_val | 5);
}

/*
 * GDA for several laps of the send ring: every doorbell value is db_val |
 * (producer index & mask), the application's store is the only doorbell
 * the device sees, and every round's data arrives.
 */
static void test_send_laps(struct dvl_link *l, const struct ionic_dv_ctx *dc)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(l->cq);
	struct ionic_dv_qp dq;
	uint64_t v = 0, idx;
	int rounds, rung;

	SECTION("GDA over several laps of the ring: exact doorbell values");
	REQUIRE_EQ(ionic_dv_get_qp(&dq, l->qp), 0);
	CHECK_RC(ionic_dv_qp_get_send_dbell_data(l->qp, &v), 0);
	idx = v & dq.sq.mask;
	rung = doorbells(l->qp, "SQ");
	rounds = 2 * (dq.sq.mask + 1) / 3 + 1;
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, true, false), 0);
	for (int r = 0; r < rounds && !check_failures(); r++) {
		for (int i = 0; i < 3; i++) {
			size_t off = 1024 * (size_t)i;

			fx_fill(l->buf + off, 200, (unsigned int)(r * 3 + i));
			CHECK_RC(dvl_peer_recv(l, 100 + (uint64_t)i, off, 1024),
				 0);
			CHECK_RC(post_send(l, 200 + (uint64_t)i, off, 200), 0);
		}
		idx = (idx + 3) & dq.sq.mask;
		CHECK_RC(ionic_dv_qp_get_send_dbell_data(l->qp, &v), 0);
		CHECK_EQ(v, dq.sq.db_val | idx);
		CHECK_EQ(doorbells(l->qp, "SQ"), rung + r);
		ring(dc, dc->sq_qtype, v);
		expect_wcs(cq, 3, 200, IBV_WC_SEND, 0);
		expect_wcs(l->peer_cq, 3, 100, IBV_WC_RECV, 200);
		for (int i = 0; i < 3; i++)
			CHECK(!memcmp(l->peer_buf + 1024 * i, l->buf + 1024 * i,
				      200));
	}
	CHECK_EQ(doorbells(l->qp, "SQ"), rung + rounds);
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, false, false), 0);
}

static void test_recv(struct dvl_link *l, const struct ionic_dv_ctx *dc)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(l->cq);
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .num_sge = 1 },
			   *bad;
	struct ibv_sge sge = { 0, 200, l->peer_mr->lkey };
	uint64_t v = 0;

	SECTION("GDA receive: buffers posted, the device has none until rung");
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, false, true), 0);
	CHECK_RC(post_recv(l, 30, 8192, 1024), 0);
	CHECK_RC(post_recv(l, 31, 9216, 1024), 0);
	CHECK_EQ(doorbells(l->qp, "RQ"), 0);
	fx_fill(l->peer_buf + 8192, 400, 77);
	wr.sg_list = &sge;
	for (int i = 0; i < 2; i++) {
		sge.addr = (uintptr_t)(l->peer_buf + 8192 + 200 * i);
		wr.wr_id = 40 + (uint64_t)i;
		CHECK_RC(ibv_post_send(l->peer, &wr, &bad), 0);
	}
	/* the peer keeps retrying (RNR), nothing completes on either side */
	CHECK_EQ(fx_expect_none(cq, QUIET_MS), 0);
	CHECK_EQ(fx_expect_none(l->peer_cq, 10), 0);

	CHECK_RC(ionic_dv_qp_get_recv_dbell_data(l->qp, &v), 0);
	CHECK_EQ(v, ((uint64_t)l->qp->qp_num << 24) | 2);
	ring(dc, dc->rq_qtype, v);
	expect_wcs(cq, 2, 30, IBV_WC_RECV, 200);
	expect_wcs(l->peer_cq, 2, 40, IBV_WC_SEND, 0);
	CHECK(!memcmp(l->buf + 8192, l->peer_buf + 8192, 200));
	CHECK(!memcmp(l->buf + 9216, l->peer_buf + 8392, 200));
	CHECK_EQ(doorbells(l->qp, "RQ"), 1);
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, false, false), 0);
}

static void test_errors(struct dvl_link *l)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(l->cq);
	struct ionic_dv_cq dcq;
	struct ionic_dv_qp dqp;
	uint64_t v;

	SECTION("descriptor getters: bad pipeline, NULL descriptors");
	CHECK_EQ(ionic_dv_cq_get_udma_mask(cq), 1);
	CHECK_RC(ionic_dv_get_cq(&dcq, cq, 0), 0);
	CHECK_RC(ionic_dv_get_cq(&dcq, cq, 1), EINVAL);
	CHECK_RC(ionic_dv_get_cq(&dcq, cq, 2), EINVAL);
	CHECK_RC(ionic_dv_get_cq(&dcq, cq, 255), EINVAL);
	CHECK_RC(ionic_dv_get_cq(NULL, cq, 0), EINVAL);
	CHECK_RC(ionic_dv_get_qp(NULL, l->qp), EINVAL);
	CHECK_RC(ionic_dv_get_ctx(NULL, ctx), EINVAL);
	CHECK_RC(ionic_dv_qp_get_send_dbell_data(l->qp, NULL), EINVAL);
	CHECK_RC(ionic_dv_qp_get_recv_dbell_data(l->qp, NULL), EINVAL);
	CHECK_RC(ionic_dv_get_qp(&dqp, l->qp), 0);
	CHECK_RC(ionic_dv_qp_get_recv_dbell_data(l->qp, &v), 0);
	CHECK_EQ(v, dqp.rq.db_val | 2);
	CHECK(ionic_dv_is_ionic_ctx(ctx) && ionic_dv_is_ionic_pd(pd) &&
	      ionic_dv_is_ionic_pd(l->par) && ionic_dv_is_ionic_cq(cq) &&
	      ionic_dv_is_ionic_qp(l->qp));
	/* no express doorbells here: GDA on both queues is allowed */
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, true, true), 0);
	CHECK_RC(ionic_dv_qp_set_gda(l->qp, false, false), 0);
}

int main(int argc, char **argv)
{
	struct dvl_opts o = { .udma = 0, .depth = 16, .buf_len = 16384 };
	struct ionic_dv_ctx dc;
	struct dvl_link l;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cmb"))
			o.cmb = true;
		else
			check_fatal(__FILE__, __LINE__, "bad argument %s",
				    argv[i]);
	}
	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	REQUIRE_EQ(ionic_dv_get_ctx(&dc, ctx), 0);
	dvl_create(&l, ctx, pd, &o);
	{
		struct ionic_dv_qp dq;

		/* in controller memory the device reads the window */
		REQUIRE_EQ(ionic_dv_get_qp(&dq, l.qp), 0);
		REQUIRE(o.cmb ? dq.sq.ptr != l.alloc.ptr[DVL_SQ] :
				dq.sq.ptr == l.alloc.ptr[DVL_SQ]);
	}
	dvl_connect(&l);
	test_send(&l, &dc);
	test_send_laps(&l, &dc);
	test_recv(&l, &dc);
	test_errors(&l);
	dvl_destroy(&l);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
