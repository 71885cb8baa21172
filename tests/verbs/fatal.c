// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The device fails under a running program (docs/device-contract.md §9.1,
 * docs/kernel-contract.md §13).  Run under ionic-sim with
 *   --fatal-trigger               the program sends SIGUSR1 to the
 *                                 launcher, with work outstanding;
 *   --fatal-trigger --fatal-reset and "--reset": the same, the program
 *                                 creating the trigger file itself, then a
 *                                 context opened afterwards works again;
 *   --fatal-after MS and "--after": the device fails on its own.
 *
 * What a user checks: a completion event on the CQ's channel and
 * IBV_EVENT_DEVICE_FATAL (port 1) on the async fd; once that event is
 * read, every outstanding work request completes exactly once as flushed,
 * and so does every later post, and no data moves any more; creates,
 * modifies, queries and arming fail with ENODEV, never hang; destroying
 * everything succeeds.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define TMO 10000
#define NARECV 4
#define NSEND 8
#define NRECV 16

static bool mode_reset, mode_after;

/* Fail the device: SIGUSR1 to the launcher (our parent, whose pid names
 * the run directory), or the trigger file created by hand. */
static void trigger(bool by_signal)
{
	const char *dir = getenv("IONIC_SIM_RUNDIR");
	char path[4096];
	int fd;

	REQUIRE(dir);
	if (by_signal) {
		snprintf(path, sizeof(path), "ionic-sim.%d.", (int)getppid());
		REQUIRE(strstr(dir, path));
		REQUIRE_EQ(kill(getppid(), SIGUSR1), 0);
		return;
	}
	snprintf(path, sizeof(path), "%s/device-fatal", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	REQUIRE(fd >= 0);
	close(fd);
}

static void wait_fatal(struct ibv_context *ctx)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	REQUIRE_EQ(poll(&pfd, 1, TMO), 1);
	REQUIRE_EQ(ibv_get_async_event(ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	CHECK_EQ(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);
	/* one event per context */
	CHECK_EQ(poll(&pfd, 1, 100), 0);
}

/* Poll 'cq' until 'n' completions, each of them flushed; the wr_ids in
 * [base, base + n) exactly once. */
static void expect_flushed(struct ibv_cq *cq, uint64_t base, int n)
{
	struct ibv_wc wc[32];
	uint8_t seen[64] = { 0 };
	int got = fx_poll(cq, wc, n, TMO), i;

	CHECK_EQ(got, n);
	for (i = 0; i < got; i++) {
		CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		REQUIRE(wc[i].wr_id >= base && wc[i].wr_id < base + 64);
		CHECK_EQ(seen[wc[i].wr_id - base]++, 0);
	}
	fx_expect_none(cq, 100);
}

static void after_death(struct fx_pair *p, struct ibv_cq *ecq)
{
	struct ibv_qp_init_attr init;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = p->gid, .sgid_index = 1, .hop_limit = 64 },
	};
	struct ibv_qp_init_attr ia = {
		.send_cq = p->scq[0],
		.recv_cq = p->rcq[0],
		.qp_type = IBV_QPT_RC,
		.cap = { 4, 4, 1, 1, 0 },
	};
	uint8_t a0[64], b0[64];
	struct ibv_pd *pd;

	SECTION("posts complete as flushed, and move no data");
	/* B still has receives posted and sends waiting for A's: a device
	 * that kept its queues would deliver into either buffer */
	fx_fill(p->buf[0], 64, 5);
	fx_fill(p->buf[1], 64, 6);
	memcpy(a0, p->buf[0], 64);
	memcpy(b0, p->buf[1], 64);
	CHECK_RC(fx_post_send(p, 0, 100, 0, 64, IBV_SEND_SIGNALED, false, 0),
		 0);
	expect_flushed(p->scq[0], 100, 1);
	CHECK_RC(fx_post_recv(p, 0, 101, 0, 64), 0);
	expect_flushed(p->rcq[0], 101, 1);
	usleep(200 * 1000);
	CHECK(!memcmp(p->buf[0], a0, 64));
	CHECK(!memcmp(p->buf[1], b0, 64));

	SECTION("creates, modifies, queries and arming fail with ENODEV");
	CHECK_NULL_ERRNO(ibv_create_cq(p->ctx, 4, NULL, NULL, 0), ENODEV);
	CHECK_NULL_ERRNO(ibv_create_qp(p->pd, &ia), ENODEV);
	CHECK_NULL_ERRNO(ibv_reg_mr(p->pd, p->buf[0], 4096,
				    IBV_ACCESS_LOCAL_WRITE),
			 ENODEV);
	CHECK_NULL_ERRNO(ibv_alloc_mw(p->pd, IBV_MW_TYPE_2), ENODEV);
	CHECK_NULL_ERRNO(ibv_create_ah(p->pd, &aa), ENODEV);
	CHECK_RC(ibv_modify_qp(p->qp[0], &qa, IBV_QP_STATE), ENODEV);
	{
		/* a failed query leaves the caller's buffers alone
		 * (docs/upstream-defects.md D20) */
		struct ibv_qp_init_attr init0;
		struct ibv_qp_attr qa0;

		memset(&qa, 0xa5, sizeof(qa));
		memset(&init, 0x5a, sizeof(init));
		qa0 = qa;
		init0 = init;
		CHECK_RC(ibv_query_qp(p->qp[0], &qa, IBV_QP_STATE | IBV_QP_CAP,
				      &init),
			 ENODEV);
		CHECK(!memcmp(&qa, &qa0, sizeof(qa)));
		CHECK(!memcmp(&init, &init0, sizeof(init)));
	}
	CHECK_RC(ibv_req_notify_cq(ecq, 0), ENODEV);
	/* what needs no firmware still works */
	CHECK_RC(ibv_query_device(p->ctx, &da), 0);
	CHECK_RC(ibv_query_port(p->ctx, 1, &pa), 0);
	pd = ibv_alloc_pd(p->ctx);
	CHECK(pd);
	if (pd)
		CHECK_RC(ibv_dealloc_pd(pd), 0);
}

/* A context opened after the failure: dead, or working after a reset. */
static void new_context(void)
{
	struct ibv_context *ctx = fx_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;

	REQUIRE(pd);
	if (!mode_reset) {
		SECTION("a context opened later: the device stays dead");
		CHECK_NULL_ERRNO(ibv_create_cq(ctx, 4, NULL, NULL, 0), ENODEV);
		CHECK_RC(ibv_dealloc_pd(pd), 0);
		CHECK_RC(ibv_close_device(ctx), 0);
		return;
	}
	SECTION("a context opened after the reset works");
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, ctx, NULL, &o, 4096);
	fx_pair_connect(&p);
	fx_fill(p.buf[0], 512, 9);
	REQUIRE_EQ(fx_post_recv(&p, 1, 1, 0, 512), 0);
	REQUIRE_EQ(fx_post_send(&p, 0, 2, 0, 512, IBV_SEND_SIGNALED, false, 0),
		   0);
	fx_poll_one(p.scq[0], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	fx_poll_one(p.rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK(!memcmp(p.buf[0], p.buf[1], 512));
	fx_pair_destroy(&p);
	CHECK_RC(ibv_close_device(ctx), 0);
}

static void fail_after(void)
{
	struct ibv_context *ctx = fx_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);

	SECTION("the device fails on its own (fatal_after_ms)");
	REQUIRE(pd);
	wait_fatal(ctx);
	CHECK_NULL_ERRNO(ibv_create_cq(ctx, 4, NULL, NULL, 0), ENODEV);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *ecq, *evcq;
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_mw *mw;
	void *ctx_ev;
	int i;

	for (i = 1; i < argc; i++) {
		mode_reset |= !strcmp(argv[i], "--reset");
		mode_after |= !strcmp(argv[i], "--after");
	}
	if (mode_after) {
		fail_after();
		return check_finish();
	}

	SECTION("work outstanding when the device fails");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, NULL, NULL, &o, 4096);
	fx_pair_connect(&p);
	ch = ibv_create_comp_channel(p.ctx);
	REQUIRE(ch);
	ecq = ibv_create_cq(p.ctx, 16, NULL, ch, 0);
	REQUIRE(ecq);
	REQUIRE_EQ(ibv_req_notify_cq(ecq, 0), 0);
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	/* A takes only NARECV of B's NSEND sends: the rest wait for RNR
	 * retries (rnr_retry 7) that never end */
	for (i = 0; i < NARECV; i++)
		REQUIRE_EQ(fx_post_recv(&p, 0, (uint64_t)i, 0, 64), 0);
	for (i = 0; i < NSEND; i++)
		REQUIRE_EQ(fx_post_send(&p, 1, (uint64_t)i, 0, 64,
					IBV_SEND_SIGNALED, false, 0),
			   0);
	{
		struct ibv_wc wc[NSEND];

		CHECK_EQ(fx_poll(p.rcq[0], wc, NARECV, TMO), NARECV);
		CHECK_EQ(fx_poll(p.scq[1], wc, NARECV, TMO), NARECV);
	}
	/* and receives B will never get */
	for (i = 0; i < NRECV; i++)
		REQUIRE_EQ(fx_post_recv(&p, 1, (uint64_t)i, 0, 64), 0);

	/* the reset run uses the file, the other the launcher's signal */
	trigger(!mode_reset);

	SECTION("a completion event wakes the channel, DEVICE_FATAL follows");
	REQUIRE_EQ(ibv_get_cq_event(ch, &evcq, &ctx_ev), 0);
	CHECK(evcq == ecq);
	ibv_ack_cq_events(ecq, 1);
	wait_fatal(p.ctx);

	SECTION("everything outstanding completes exactly once, flushed");
	expect_flushed(p.scq[1], NARECV, NSEND - NARECV);
	expect_flushed(p.rcq[1], 0, NRECV);
	fx_expect_none(p.scq[0], 100);
	fx_expect_none(p.rcq[0], 100);

	after_death(&p, ecq);

	SECTION("destroying everything succeeds");
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	CHECK_RC(ibv_destroy_cq(ecq), 0);
	CHECK_RC(ibv_destroy_comp_channel(ch), 0);
	fx_pair_destroy(&p);

	new_context();
	return check_finish();
}
