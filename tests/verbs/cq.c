// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * CQ verbs through ionic-sim: create/destroy and their errno paths,
 * create_cq_ex with every standard wc flag (and reading the extended CQ
 * after real traffic), completion channels: arm then block must not hang,
 * solicited-only arming, ack + destroy must not hang.
 *
 *   verbs-cq [--phc 0|1]
 */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define TMO 5000

static struct ibv_context *ctx;
static int phc = 1;

static void test_create(void)
{
	struct ibv_device_attr da;
	struct ibv_cq *cq;
	int nvec = ctx->num_comp_vectors;

	SECTION("create_cq sizes and vectors");
	CHECK_RC(ibv_query_device(ctx, &da), 0);
	CHECK_GE(nvec, 1);
	for (int i = 0; i < 4; i++) {
		int sizes[4] = { 1, 100, da.max_cqe / 2, da.max_cqe };

		cq = ibv_create_cq(ctx, sizes[i], NULL, NULL, 0);
		CHECK(cq);
		if (!cq)
			continue;
		CHECK_GE(cq->cqe, sizes[i]);
		CHECK_RC(ibv_destroy_cq(cq), 0);
	}
	for (int v = 0; v < nvec; v++) {
		cq = ibv_create_cq(ctx, 16, NULL, NULL, v);
		CHECK(cq);
		if (cq)
			CHECK_RC(ibv_destroy_cq(cq), 0);
	}

	SECTION("create_cq errno paths");
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, 0, NULL, NULL, 0), EINVAL);
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, -1, NULL, NULL, 0), EINVAL);
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, da.max_cqe + 1, NULL, NULL, 0),
			 EINVAL);
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, 16, NULL, NULL, nvec), EINVAL);
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, 16, NULL, NULL, nvec + 5), EINVAL);
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, 16, NULL, NULL, -1), EINVAL);

	SECTION("create_cq_ex errno paths");
	{
		struct ibv_cq_init_attr_ex a = { .cqe = 16 };
		struct ibv_cq_ex *cx;

		a.cqe = 0;
		CHECK_NULL_ERRNO(ibv_create_cq_ex(ctx, &a), EINVAL);
		a.cqe = (uint32_t)da.max_cqe + 1;
		CHECK_NULL_ERRNO(ibv_create_cq_ex(ctx, &a), EINVAL);
		a.cqe = 16;
		a.comp_vector = (uint32_t)nvec;
		CHECK_NULL_ERRNO(ibv_create_cq_ex(ctx, &a), EINVAL);
		a.comp_vector = 0;
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
		cx = ibv_create_cq_ex(ctx, &a);
		CHECK(cx || errno == EOPNOTSUPP);
		if (cx)
			CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)), 0);
		a.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
		cx = ibv_create_cq_ex(ctx, &a);
		CHECK(cx || errno == EOPNOTSUPP);
		if (cx)
			CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)), 0);
		a.flags = 1u << 7; /* no such flag */
		CHECK_NULL_ERRNO(ibv_create_cq_ex(ctx, &a), EOPNOTSUPP);
	}
}

static const struct {
	uint64_t flag;
	const char *name;
	int expect; /* 0 = must work, EOPNOTSUPP = must be refused, -1 = PHC */
} wc_flags[] = {
	{ IBV_WC_EX_WITH_BYTE_LEN, "BYTE_LEN", 0 },
	{ IBV_WC_EX_WITH_IMM, "IMM", 0 },
	{ IBV_WC_EX_WITH_QP_NUM, "QP_NUM", 0 },
	{ IBV_WC_EX_WITH_SRC_QP, "SRC_QP", 0 },
	{ IBV_WC_EX_WITH_SLID, "SLID", 0 },
	{ IBV_WC_EX_WITH_SL, "SL", 0 },
	{ IBV_WC_EX_WITH_DLID_PATH_BITS, "DLID_PATH_BITS", 0 },
	{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, "COMPLETION_TIMESTAMP", -1 },
	{ IBV_WC_EX_WITH_CVLAN, "CVLAN", EOPNOTSUPP },
	{ IBV_WC_EX_WITH_FLOW_TAG, "FLOW_TAG", EOPNOTSUPP },
	{ IBV_WC_EX_WITH_TM_INFO, "TM_INFO", EOPNOTSUPP },
	{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, "TIMESTAMP_WALLCLOCK",
	  -1 },
};

static void test_wc_flags(void)
{
	SECTION("create_cq_ex with each standard wc flag");
	for (unsigned int i = 0; i < sizeof(wc_flags) / sizeof(wc_flags[0]);
	     i++) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = 32,
			.wc_flags = wc_flags[i].flag,
		};
		int expect = wc_flags[i].expect;
		struct ibv_cq_ex *cx;

		if (expect < 0)
			expect = phc ? 0 : EOPNOTSUPP;
		errno = 0;
		cx = ibv_create_cq_ex(ctx, &a);
		if (expect == 0 && !cx)
			check_fail(__FILE__, __LINE__, "wc flag %s: errno %d",
				   wc_flags[i].name, errno);
		else if (expect && cx)
			check_fail(__FILE__, __LINE__,
				   "wc flag %s accepted, expected EOPNOTSUPP",
				   wc_flags[i].name);
		else if (expect && errno != expect)
			check_fail(__FILE__, __LINE__,
				   "wc flag %s: errno %d, expected %d",
				   wc_flags[i].name, errno, expect);
		if (cx)
			CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)), 0);
	}
	{
		struct ibv_cq_init_attr_ex a = {
			.cqe = 32,
			.wc_flags = 1ull << 40,
		};

		CHECK_NULL_ERRNO(ibv_create_cq_ex(ctx, &a), EOPNOTSUPP);
	}
}

/* A UD pair whose receive CQ on side 1 is an extended CQ. */
static void test_cq_ex_traffic(void)
{
	uint64_t flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			 IBV_WC_EX_WITH_SL;
	struct ibv_cq_init_attr_ex a = { .cqe = 64 };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *cx, *sx;
	struct fx_qp_opts o;
	struct fx_pair p;
	uint64_t t0 = 0, t1 = 0;
	int rc, got = 0;

	SECTION("extended CQ after real traffic");
	if (phc)
		flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	a.wc_flags = flags;
	cx = ibv_create_cq_ex(ctx, &a);
	REQUIRE(cx);
	sx = ibv_create_cq_ex(ctx, &a);
	REQUIRE(sx);
	fx_qp_opts_default(&o, IBV_QPT_UD);
	fx_pair_create(&p, ctx, NULL, &o, 8192);
	/* rebuild QP 1 on the extended CQs */
	CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = ibv_cq_ex_to_cq(sx),
			.recv_cq = ibv_cq_ex_to_cq(cx),
			.qp_type = IBV_QPT_UD,
			.cap = { 8, 8, 1, 1, 0 },
		};

		p.qp[1] = ibv_create_qp(p.pd, &ia);
		REQUIRE(p.qp[1]);
	}
	fx_pair_connect(&p);
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_recv(&p, 1, 40 + i, 1024 * i, 1024), 0);
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_send(&p, 0, 50 + i, 0, 100 + i,
				      IBV_SEND_SIGNALED, i == 1,
				      htobe32(0xfeed)),
			 0);
	/* the sender's plain CQ */
	{
		struct ibv_wc wc[3];

		CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
	}
	for (uint64_t end = fx_now_ms() + TMO; got < 3 && fx_now_ms() < end;) {
		rc = ibv_start_poll(cx, &pa);
		if (rc == ENOENT) {
			usleep(100);
			continue;
		}
		CHECK_RC(rc, 0);
		if (rc)
			break;
		do {
			CHECK_EQ(cx->wr_id, 40 + got);
			CHECK_EQ(cx->status, IBV_WC_SUCCESS);
			CHECK_EQ(ibv_wc_read_opcode(cx), IBV_WC_RECV);
			CHECK_EQ(ibv_wc_read_byte_len(cx), 40 + 100 + got);
			CHECK_EQ(ibv_wc_read_qp_num(cx), p.qp[1]->qp_num);
			CHECK_EQ(ibv_wc_read_src_qp(cx), p.qp[0]->qp_num);
			CHECK(ibv_wc_read_wc_flags(cx) & IBV_WC_GRH);
			/* network header type: IPv4 (GID 1) */
			CHECK_EQ(ibv_wc_read_sl(cx), 2);
			CHECK_EQ(!!(ibv_wc_read_wc_flags(cx) & IBV_WC_WITH_IMM),
				 got == 1);
			if (got == 1)
				CHECK_EQ(ibv_wc_read_imm_data(cx),
					 htobe32(0xfeed));
			if (phc) {
				/* the emulator leaves CQE timestamps 0
				 * (allowed, docs/device-contract.md §5.7): only
				 * check the readers exist and never go
				 * backwards */
				uint64_t ts = ibv_wc_read_completion_ts(cx);
				uint64_t ns =
					ibv_wc_read_completion_wallclock_ns(cx);

				CHECK(ts >= t0);
				CHECK(ns >= t1);
				t0 = ts;
				t1 = ns;
			}
			got++;
			rc = ibv_next_poll(cx);
		} while (rc == 0 && got < 10);
		CHECK(rc == 0 || rc == ENOENT);
		ibv_end_poll(cx);
	}
	CHECK_EQ(got, 3);
	for (int i = 0; i < 3; i++)
		CHECK(!memcmp(p.buf[1] + 1024 * i + 40, p.buf[0], 100 + i));
	/* ENOENT when empty */
	CHECK_RC(ibv_start_poll(cx, &pa), ENOENT);

	CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
	p.qp[1] = NULL;
	CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)), 0);
	CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(sx)), 0);
	fx_pair_destroy(&p);
}

/* wait for the channel fd to become readable, bounded */
static int wait_fd(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms);
}

static int get_event(struct ibv_comp_channel *ch, struct ibv_cq *want, int ms)
{
	struct ibv_cq *cq = NULL;
	void *cctx = NULL;

	if (wait_fd(ch->fd, ms) != 1)
		return 0;
	REQUIRE_EQ(ibv_get_cq_event(ch, &cq, &cctx), 0);
	CHECK(cq == want);
	CHECK(cctx == want->cq_context);
	return 1;
}

static void test_channel(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *ecq;
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;
	int flags, events = 0;

	SECTION("req_notify_cq without a channel");
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		int rc;

		REQUIRE(cq);
		rc = ibv_req_notify_cq(cq, 0);
		/* nothing to deliver to, yet portable code that arms every
		 * CQ must work: 0 as mlx5 and rxe (upstream: -ENOENT) */
		CHECK_RC(rc, 0);
		CHECK_RC(ibv_req_notify_cq(cq, 1), 0);
		CHECK_RC(ibv_destroy_cq(cq), 0);
	}

	SECTION("arm, then block on the channel: must not hang");
	ch = ibv_create_comp_channel(ctx);
	REQUIRE(ch);
	flags = fcntl(ch->fd, F_GETFL);
	REQUIRE(fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) == 0);
	ecq = ibv_create_cq(ctx, 32, (void *)0x1234, ch, 0);
	REQUIRE(ecq);
	CHECK(ecq->channel == ch);
	/* the channel is in use */
	CHECK_RC(ibv_destroy_comp_channel(ch), EBUSY);

	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, ctx, NULL, &o, 4096);
	CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = p.scq[1],
			.recv_cq = ecq,
			.qp_type = IBV_QPT_RC,
			.cap = { 8, 8, 1, 1, 0 },
		};

		p.qp[1] = ibv_create_qp(p.pd, &ia);
		REQUIRE(p.qp[1]);
	}
	fx_pair_connect(&p);

	for (int round = 0; round < 3; round++) {
		CHECK_RC(ibv_req_notify_cq(ecq, 0), 0);
		/* nothing happened yet: no event */
		CHECK_EQ(wait_fd(ch->fd, round ? 0 : 200), 0);
		CHECK_RC(fx_post_recv(&p, 1, 10 + round, 0, 256), 0);
		CHECK_RC(fx_post_send(&p, 0, 20 + round, 0, 64, 0, false, 0),
			 0);
		/* block (bounded) without ever polling the CQ */
		if (!get_event(ch, ecq, TMO)) {
			check_fail(__FILE__, __LINE__,
				   "round %d: no completion event", round);
			break;
		}
		events++;
		fx_poll_one(ecq, &wc, TMO);
		CHECK_EQ(wc.wr_id, 10 + round);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		/* one arm, one event */
		CHECK_EQ(wait_fd(ch->fd, 50), 0);
	}

	SECTION("unarmed CQ raises no event");
	CHECK_RC(fx_post_recv(&p, 1, 30, 0, 256), 0);
	CHECK_RC(fx_post_send(&p, 0, 31, 0, 64, 0, false, 0), 0);
	fx_poll_one(ecq, &wc, TMO);
	CHECK_EQ(wc.wr_id, 30);
	CHECK_EQ(wait_fd(ch->fd, 100), 0);

	SECTION("completion already queued when arming raises an event");
	CHECK_RC(fx_post_recv(&p, 1, 32, 0, 256), 0);
	CHECK_RC(fx_post_send(&p, 0, 33, 0, 64, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO); /* RC: acked, so received */
	usleep(20000);
	CHECK_RC(ibv_req_notify_cq(ecq, 0), 0);
	if (get_event(ch, ecq, TMO))
		events++;
	else
		check_fail(__FILE__, __LINE__,
			   "no event for a CQE already in the CQ");
	fx_poll_one(ecq, &wc, TMO);
	CHECK_EQ(wc.wr_id, 32);

	SECTION("solicited-only arm");
	CHECK_RC(ibv_req_notify_cq(ecq, 1), 0);
	CHECK_RC(fx_post_recv(&p, 1, 34, 0, 256), 0);
	CHECK_RC(fx_post_send(&p, 0, 35, 0, 64, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	if (wait_fd(ch->fd, 200) != 0)
		check_fail(
			__FILE__, __LINE__,
			"event for an unsolicited message under solicited-only arm");
	fx_poll_one(ecq, &wc, TMO);
	CHECK_EQ(wc.wr_id, 34);
	CHECK_RC(fx_post_recv(&p, 1, 36, 0, 256), 0);
	CHECK_RC(fx_post_send(&p, 0, 37, 0, 64, IBV_SEND_SOLICITED, false, 0),
		 0);
	if (get_event(ch, ecq, TMO))
		events++;
	else
		check_fail(__FILE__, __LINE__,
			   "no event for a solicited message");
	fx_poll_one(ecq, &wc, TMO);
	CHECK_EQ(wc.wr_id, 36);

	SECTION("ack events, destroy: must not hang");
	ibv_ack_cq_events(ecq, (unsigned int)events);
	CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
	p.qp[1] = NULL;
	alarm(20);
	CHECK_RC(ibv_destroy_cq(ecq), 0);
	alarm(0);
	CHECK_RC(ibv_destroy_comp_channel(ch), 0);
	fx_pair_destroy(&p);
}

/* A destroyed channel gives every fd back, the emulated kernel's ends of
 * it included (they used to stay until the context was closed). */
static void test_channel_fds(void)
{
	long before;

	SECTION("completion channels give their fds back");
	before = fx_open_fds();
	for (int i = 0; i < 50; i++) {
		struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
		struct ibv_cq *cq;

		REQUIRE(ch);
		cq = ibv_create_cq(ctx, 4, NULL, ch, 0);
		REQUIRE(cq);
		/* in either order: the channel's last user frees it */
		if (i % 2) {
			CHECK_RC(ibv_destroy_cq(cq), 0);
			CHECK_RC(ibv_destroy_comp_channel(ch), 0);
		} else {
			CHECK_RC(ibv_destroy_comp_channel(ch), EBUSY);
			CHECK_RC(ibv_destroy_cq(cq), 0);
			CHECK_RC(ibv_destroy_comp_channel(ch), 0);
		}
	}
	CHECK_EQ(fx_open_fds(), before);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--phc") && i + 1 < argc)
			phc = atoi(argv[++i]);
		else
			check_fatal(__FILE__, __LINE__, "bad argument %s",
				    argv[i]);
	}
	alarm(100); /* nothing here may hang: SIGALRM fails the test */
	ctx = fx_open();
	test_create();
	test_wc_flags();
	test_cq_ex_traffic();
	test_channel();
	test_channel_fds();
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
