// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-datapath, error completions and flushes: bad lkeys, a receive
 * buffer too small, modify to ERR, chains with a bad WR, unpolled CQEs at
 * reset/destroy; every WR completes exactly once.
 */
#include <poll.h>
#include <unistd.h>

#include "datapath.h"

static void expect_flushes(struct ibv_cq *cq, uint64_t first, int count,
			   const char *what)
{
	struct ibv_wc wc[128];
	int n = fx_poll(cq, wc, count, TMO);

	if (n != count)
		check_fail(__FILE__, __LINE__,
			   "%s: %d flush completions, expected %d", what, n,
			   count);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], first + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, 0,
			 what);
	/* exactly once: nothing more */
	fx_expect_none(cq, 50);
}

void test_bad_lkey(void)
{
	struct fx_pair p;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_wc wc;
	struct ibv_sge sge[6];
	struct ibv_send_wr wr[6], *bad;

	SECTION("bad lkey: LOC_PROT_ERR, then every outstanding WR flushed once");
	pair(&p, IBV_QPT_RC, 0, 4096);
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_recv(&p, 0, 300 + i, 0, 64), 0);
	for (int i = 0; i < 6; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[0], 32,
					   i == 0 ? p.mr[0]->lkey ^ 0x5a5a00 :
						    p.mr[0]->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = 10 + i,
			.sg_list = &sge[i],
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			/* the failing one is unsignalled: errors always show */
			.send_flags = i == 0 ? 0 : IBV_SEND_SIGNALED,
			.next = i < 5 ? &wr[i + 1] : NULL,
		};
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 10, IBV_WC_LOC_PROT_ERR, 0, "bad lkey");
	expect_flushes(p.scq[0], 11, 5, "send flush after bad lkey");
	expect_flushes(p.rcq[0], 300, 3, "recv flush after bad lkey");
	CHECK_RC(ibv_query_qp(p.qp[0], &qa, IBV_QP_STATE, &qi), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);
	/* WRs posted in ERR flush too, exactly once */
	wr[5].next = NULL;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr[5], &bad), 0);
	expect_flushes(p.scq[0], 15, 1, "send posted in ERR");
	CHECK_RC(fx_post_recv(&p, 0, 400, 0, 64), 0);
	expect_flushes(p.rcq[0], 400, 1, "recv posted in ERR");
	/* the peer received nothing */
	fx_expect_none(p.rcq[1], 0);
	fx_pair_destroy(&p);
}

static bool is_remote_err(enum ibv_wc_status s)
{
	return s == IBV_WC_REM_INV_REQ_ERR || s == IBV_WC_REM_ACCESS_ERR ||
	       s == IBV_WC_REM_OP_ERR;
}

void test_short_recv(void)
{
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION("receive buffer too small: LOC_LEN_ERR / remote error");
	pair(&p, IBV_QPT_RC, 1, 8192);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, 100), 0);
	CHECK_RC(fx_post_send(&p, 0, 2, 0, 1000, 0, false, 0), 0);
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 1, IBV_WC_LOC_LEN_ERR, 0, "short recv");
	fx_poll_one(p.scq[0], &wc, TMO);
	if (wc.wr_id != 2 || !is_remote_err(wc.status))
		check_fail(
			__FILE__, __LINE__,
			"sender: wr_id %llu status %s, expected 2 and a remote error (REM_INV_REQ_ERR)",
			(unsigned long long)wc.wr_id, fx_wc_status(wc.status));
	else if (wc.status != IBV_WC_REM_INV_REQ_ERR)
		fprintf(stderr,
			"note: sender status %s (IBTA: REM_INV_REQ_ERR)\n",
			fx_wc_status(wc.status));
	fx_pair_destroy(&p);

	SECTION("UD receive buffer too small");
	pair(&p, IBV_QPT_UD, 1, 8192);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, GRH + 10), 0);
	CHECK_RC(fx_post_send(&p, 0, 2, 0, 500, 0, false, 0), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	/* UD: the sender cannot know */
	check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, "UD sender");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 1, IBV_WC_LOC_LEN_ERR, 0, "UD short recv");
	fx_pair_destroy(&p);
}

void test_modify_err(enum ibv_qp_type t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct fx_pair p;

	SECTION(t == IBV_QPT_UD ? "UD modify to ERR flushes" :
				  "RC modify to ERR flushes");
	pair(&p, t, 1, 4096);
	for (int i = 0; i < 10; i++)
		CHECK_RC(fx_post_recv(&p, 1, 50 + i, 0, 64), 0);
	CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
	expect_flushes(p.rcq[1], 50, 10, "recv flush on modify ERR");
	fx_expect_none(p.scq[1], 0);
	fx_pair_destroy(&p);
}

/* docs/upstream-defects.md D1: the receive flush must name the right WRs after
 * the free list of receive metadata has been recycled. */
void test_flush_after_recycle(enum ibv_qp_type t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[64];
	struct fx_pair p;
	int n;

	SECTION(t == IBV_QPT_UD ?
			"UD flush names the right WRs after recycling" :
			"RC flush names the right WRs after recycling");
	pair(&p, t, 1, 4096);
	for (int i = 0; i < 10; i++)
		CHECK_RC(fx_post_recv(&p, 1, 100 + i, 0, 256), 0);
	/* consume 4, then post 6 more: slots and metadata recycle */
	for (int i = 0; i < 4; i++)
		CHECK_RC(fx_post_send(&p, 0, i, 0, 8, 0, false, 0), 0);
	CHECK_EQ(fx_poll(p.scq[0], wc, 4, TMO), 4);
	n = fx_poll(p.rcq[1], wc, 4, TMO);
	CHECK_EQ(n, 4);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], 100 + (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_RECV,
			 "before recycle");
	for (int i = 0; i < 6; i++)
		CHECK_RC(fx_post_recv(&p, 1, 200 + i, 0, 256), 0);
	/* consume 3 more (104..106) */
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_send(&p, 0, 10 + i, 0, 8, 0, false, 0), 0);
	CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
	n = fx_poll(p.rcq[1], wc, 3, TMO);
	CHECK_EQ(n, 3);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], 104 + (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_RECV,
			 "after recycle");
	/* outstanding: 107..109 then 200..205, flushed in that order */
	CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
	n = fx_poll(p.rcq[1], wc, 9, TMO);
	CHECK_EQ(n, 9);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i],
			 i < 3 ? 107 + (uint64_t)i : 200 + (uint64_t)i - 3,
			 IBV_WC_WR_FLUSH_ERR, 0, "recycled flush");
	fx_expect_none(p.rcq[1], 50);
	fx_pair_destroy(&p);
}

/* docs/upstream-defects.md D21: WRs the device already completed, then modify
 * to ERR: each WR still completes exactly once (whether the device's CQEs
 * had all arrived by then or not). */
static void err_after_done_once(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[32];
	uint8_t seen[16] = { 0 };
	struct fx_pair p;
	int n;

	SECTION("modify to ERR with completed, unpolled WRs: exactly once each");
	pair(&p, IBV_QPT_RC, 1, 4096);
	for (int i = 0; i < 8; i++)
		CHECK_RC(fx_post_recv(&p, 1, 100 + i, 0, 256), 0);
	for (int i = 0; i < 8; i++)
		CHECK_RC(fx_post_send(&p, 0, i, 0, 8, 0, false, 0), 0);
	/* wait until everything arrived (receiver side), sender unpolled */
	CHECK_EQ(fx_poll(p.rcq[1], wc, 8, TMO), 8);
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
	n = fx_poll(p.scq[0], wc, 8, TMO);
	CHECK_EQ(n, 8);
	for (int i = 0; i < n; i++) {
		if (wc[i].wr_id >= 8) {
			check_fail(__FILE__, __LINE__, "bogus wr_id %llu",
				   (unsigned long long)wc[i].wr_id);
			continue;
		}
		seen[wc[i].wr_id]++;
		if (wc[i].status != IBV_WC_SUCCESS)
			CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
	for (int i = 0; i < 8; i++)
		CHECK_EQ(seen[i], 1);
	fx_expect_none(p.scq[0], 50);
	fx_pair_destroy(&p);
}

/*
 * docs/upstream-defects.md D21 itself: a SEND whose completion the device has written before the
 * modify to ERR is reported with its real status, never as flushed.  The
 * send CQ's completion event says the device wrote a CQE, without polling
 * it; with one SEND outstanding that CQE is the SEND's.  (With several,
 * the device may write a CQE for the first ones before the rest are
 * acknowledged, so the event would not say that all had completed.)
 * Without the deferral in modify_qp (ionic_qp_request_flush) the flush
 * reports the SEND as WR_FLUSH_ERR.  Several rounds, each on a fresh pair.
 */
static void err_after_written_cqe(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct pollfd pfd;
	struct ibv_cq *ev_cq;
	struct ibv_wc wc[4];
	struct fx_qp_opts o;
	struct fx_pair p;
	void *ev_ctx;
	int n;

	SECTION("D21: a SEND completed before modify to ERR never flushes");
	REQUIRE(ch);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.send_channel = ch;
	for (int round = 0; round < 4; round++) {
		fx_pair_create(&p, ctx, pd, &o, 4096);
		fx_pair_connect(&p);
		CHECK_RC(fx_post_recv(&p, 1, 100, 0, 256), 0);
		CHECK_RC(ibv_req_notify_cq(p.scq[0], 0), 0);
		CHECK_RC(fx_post_send(&p, 0, 7, 0, 8, IBV_SEND_SIGNALED, false,
				      0),
			 0);
		pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
		REQUIRE_EQ(poll(&pfd, 1, TMO), 1);
		REQUIRE_EQ(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
		CHECK(ev_cq == p.scq[0]);
		ibv_ack_cq_events(ev_cq, 1);
		CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
		n = fx_poll(p.scq[0], wc, 4, 200);
		CHECK_EQ(n, 1);
		if (n == 1)
			check_wc(
				&wc[0], 7, IBV_WC_SUCCESS, IBV_WC_SEND,
				"a SEND whose CQE was written before the modify to ERR");
		fx_expect_none(p.scq[0], 50);
		CHECK_EQ(fx_poll(p.rcq[1], wc, 1, TMO), 1);
		fx_pair_destroy(&p);
	}
	CHECK_RC(ibv_destroy_comp_channel(ch), 0);
}

void test_err_after_done(void)
{
	err_after_done_once();
	err_after_written_cqe();
}

/* A chain whose middle WR is bad: the ones before are posted and
 * complete, *bad_wr names the bad one, the ones after are not posted. */
void test_partial_chain(enum ibv_qp_type t)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr wr[4], *bad;
	struct ibv_recv_wr rwr[4], *rbad;
	struct ibv_wc wc[8];
	struct fx_pair p;
	int n;

	SECTION(t == IBV_QPT_UD ? "UD chain with a bad WR in the middle" :
				  "RC chain with a bad WR in the middle");
	pair(&p, t, 1, 8192);
	for (int i = 0; i < 16; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[0], 4,
					   p.mr[0]->lkey };
	for (int i = 0; i < 4; i++) {
		wr[i] = (struct ibv_send_wr){
			.wr_id = 10 + i,
			.sg_list = sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.next = i < 3 ? &wr[i + 1] : NULL,
		};
		if (t == IBV_QPT_UD) {
			wr[i].wr.ud.ah = p.ah[0];
			wr[i].wr.ud.remote_qpn = p.qp[1]->qp_num;
			wr[i].wr.ud.remote_qkey = p.o.qkey;
		}
	}
	wr[2].num_sge = (int)p.cap[0].max_send_sge + 1;
	for (int i = 0; i < 4; i++)
		CHECK_RC(fx_post_recv(&p, 1, 50 + i, 0, 256), 0);
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], wr, &bad), EINVAL);
	CHECK(bad == &wr[2]);
	n = fx_poll(p.scq[0], wc, 2, TMO);
	CHECK_EQ(n, 2);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], 10 + (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_SEND,
			 "chain head");
	CHECK_EQ(fx_poll(p.rcq[1], wc, 2, TMO), 2);
	fx_expect_none(p.scq[0], 30);
	fx_expect_none(p.rcq[1], 0);

	/* the same for receives */
	for (int i = 0; i < 4; i++)
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = 60 + i,
			.sg_list = sge,
			.num_sge = 1,
			.next = i < 3 ? &rwr[i + 1] : NULL,
		};
	for (int i = 0; i < 16; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[1], 256,
					   p.mr[1]->lkey };
	rwr[1].num_sge = (int)p.cap[1].max_recv_sge + 1;
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[1], rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr[1]);
	/* one posted now (60) plus 52, 53 from before: three sends land in
	 * 52, 53, 60 */
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_send(&p, 0, 20 + i, 0, 8, 0, false, 0), 0);
	CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
	n = fx_poll(p.rcq[1], wc, 3, TMO);
	CHECK_EQ(n, 3);
	if (n == 3) {
		check_wc(&wc[0], 52, IBV_WC_SUCCESS, IBV_WC_RECV, "rchain");
		check_wc(&wc[1], 53, IBV_WC_SUCCESS, IBV_WC_RECV, "rchain");
		check_wc(&wc[2], 60, IBV_WC_SUCCESS, IBV_WC_RECV, "rchain");
	}
	fx_pair_destroy(&p);
}

void test_recv_bad_lkey(void)
{
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *rbad;
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION("receive with a bad lkey: receiver LOC_PROT_ERR, sender remote error");
	pair(&p, IBV_QPT_RC, 1, 4096);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[1], 256,
				p.mr[1]->lkey ^ 0x3300 };
	rwr = (struct ibv_recv_wr){ .wr_id = 5, .sg_list = &sge, .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	CHECK_RC(fx_post_send(&p, 0, 6, 0, 64, 0, false, 0), 0);
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 5, IBV_WC_LOC_PROT_ERR, 0, "recv bad lkey");
	fx_poll_one(p.scq[0], &wc, TMO);
	if (wc.wr_id != 6 || !is_remote_err(wc.status))
		check_fail(
			__FILE__, __LINE__,
			"sender: wr_id %llu status %s, expected 6 and a remote error",
			(unsigned long long)wc.wr_id, fx_wc_status(wc.status));
	fx_pair_destroy(&p);
}

/* CQEs of a QP that is reset or destroyed before they are polled must
 * vanish, and the CQ must keep working for the next QP. */
void test_clean_on_destroy(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[16];
	struct fx_pair p;

	SECTION("reset/destroy with unpolled CQEs: they vanish, CQ keeps working");
	pair(&p, IBV_QPT_RC, 1, 4096);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 6; i++)
			CHECK_RC(fx_post_recv(&p, 1, 100 + i, 0, 256), 0);
		for (int i = 0; i < 6; i++)
			CHECK_RC(fx_post_send(&p, 0, i, 0, 8, 0, false, 0), 0);
		CHECK_EQ(fx_poll(p.rcq[1], wc, 6, TMO), 6);
		usleep(20000); /* the sender's CQEs are in its CQ now */
		if (round == 0) {
			CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
			CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
		} else {
			struct ibv_qp_init_attr ia = {
				.send_cq = p.scq[0],
				.recv_cq = p.rcq[0],
				.qp_type = IBV_QPT_RC,
				.sq_sig_all = 1,
				.cap = { p.o.max_send_wr, p.o.max_recv_wr, 4, 4,
					 0 },
			};

			CHECK_RC(ibv_destroy_qp(p.qp[0]), 0);
			p.qp[0] = ibv_create_qp(p.pd, &ia);
			REQUIRE(p.qp[0]);
			CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
		}
		fx_expect_none(p.scq[0], 30);
		fx_pair_connect(&p);
		/* the CQ still delivers, exactly */
		for (int i = 0; i < 3; i++)
			CHECK_RC(fx_post_recv(&p, 1, 300 + i, 0, 256), 0);
		for (int i = 0; i < 3; i++)
			CHECK_RC(fx_post_send(&p, 0, 30 + i, 0, 8, 0, false, 0),
				 0);
		CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
		for (int i = 0; i < 3; i++)
			check_wc(&wc[i], 30 + (uint64_t)i, IBV_WC_SUCCESS,
				 IBV_WC_SEND, "after clean");
		CHECK_EQ(fx_poll(p.rcq[1], wc, 3, TMO), 3);
		for (int i = 0; i < 3; i++)
			check_wc(&wc[i], 300 + (uint64_t)i, IBV_WC_SUCCESS,
				 IBV_WC_RECV, "after clean");
		fx_expect_none(p.scq[0], 20);
	}
	fx_pair_destroy(&p);
}
