// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Pulling the link, and a peer that stops answering, through ionic-sim's
 * fault injection (sim/fabric/fault.c).  One RC pair of one process: four
 * messages go through (eight frames: SEND and ACK each), then the run's
 * profile takes the wire away at the ninth frame:
 *
 *   verbs-link-down --down         link_down_after=9, down for good: the
 *                                  next SEND completes RETRY_EXC_ERR after
 *                                  its retries, the SENDs behind it and
 *                                  the posted receives flush, the QP is in
 *                                  ERR, the context gets IBV_EVENT_PORT_ERR
 *                                  and port 1 reads DOWN
 *   verbs-link-down --down-up MS   the same, then the link comes back after
 *                                  MS ms: IBV_EVENT_PORT_ACTIVE, port 1
 *                                  ACTIVE, and a new pair works
 *   verbs-link-down --mute         mute_after=8: the NIC stops answering;
 *                                  the same completions, no port event
 *   verbs-link-down --delay US     delay_us=US: every frame is late, so
 *                                  each SEND completes after its frame and
 *                                  its ACK crossed (>= 2 US), intact, with
 *                                  no retry (the timeout is above 2 US)
 */
#include <poll.h>

#include "verbs_fixture.h"

#define TMO 10000

enum mode { DOWN, DOWN_UP, MUTE, DELAY };

static struct ibv_context *ctx;

/* The next async event within 'ms', or -1. */
static int next_event(int ms, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	if (ibv_get_async_event(ctx, ev))
		return -1;
	ibv_ack_async_event(ev);
	return (int)ev->event_type;
}

static void traffic(struct fx_pair *p, int n)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		REQUIRE_EQ(fx_post_recv(p, 1, 100 + i, 0, 256), 0);
		REQUIRE_EQ(fx_post_send(p, 0, i, 512, 64, IBV_SEND_SIGNALED,
					false, 0),
			   0);
		fx_poll_one(p->scq[0], &wc, TMO);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		fx_poll_one(p->rcq[1], &wc, TMO);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	}
}

static enum ibv_port_state port_state(void)
{
	struct ibv_port_attr pa;

	REQUIRE_EQ(ibv_query_port(ctx, 1, &pa), 0);
	return pa.state;
}

/* Every frame held delay_us: 4 SENDs, one at a time, each >= 2 delays. */
static int delayed(struct fx_qp_opts *o, int delay_us)
{
	struct fx_pair p;
	uint64_t t0, ms;

	REQUIRE(delay_us >= 1000);
	/* above the round trip: a retry would be a fault of its own */
	o->timeout = 14; /* 67 ms */
	while (o->timeout < 30 && (4096ull << o->timeout) < 8000ull * delay_us)
		o->timeout++;
	fx_pair_create(&p, ctx, NULL, o, 4096);
	fx_pair_connect(&p);
	SECTION("every frame delayed");
	t0 = fx_now_ms();
	traffic(&p, 4);
	ms = fx_now_ms() - t0;
	printf("4 round trips in %llu ms, delay %d us\n",
	       (unsigned long long)ms, delay_us);
	CHECK(ms * 1000 >= 4ull * 2 * (uint64_t)delay_us);
	CHECK_EQ(port_state(), IBV_PORT_ACTIVE);
	fx_pair_destroy(&p);
	CHECK_EQ(ibv_close_device(ctx), 0);
	return check_finish();
}

int main(int argc, char **argv)
{
	enum mode mode = DOWN;
	int up_ms = 0, delay_us = 0;
	struct ibv_async_event ev;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc[4];
	int n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--down-up") && i + 1 < argc) {
			mode = DOWN_UP;
			up_ms = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--mute")) {
			mode = MUTE;
		} else if (!strcmp(argv[i], "--delay") && i + 1 < argc) {
			mode = DELAY;
			delay_us = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--down")) {
			check_fatal(__FILE__, __LINE__,
				    "usage: %s --down|--down-up MS|--mute|"
				    "--delay US",
				    argv[0]);
		}
	}
	ctx = fx_open();
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 12; /* 16.8 ms */
	o.retry_cnt = 3;
	if (mode == DELAY)
		return delayed(&o, delay_us);
	fx_pair_create(&p, ctx, NULL, &o, 4096);
	fx_pair_connect(&p);

	SECTION("traffic while the wire is there");
	traffic(&p, 4);
	CHECK_EQ(port_state(), IBV_PORT_ACTIVE);

	SECTION("the wire goes: RETRY_EXC_ERR, then flushes");
	REQUIRE_EQ(fx_post_recv(&p, 0, 200, 0, 256), 0);
	REQUIRE_EQ(fx_post_recv(&p, 0, 201, 0, 256), 0);
	for (int i = 0; i < 3; i++)
		REQUIRE_EQ(fx_post_send(&p, 0, 10 + i, 512, 64,
					IBV_SEND_SIGNALED, false, 0),
			   0);
	n = fx_poll(p.scq[0], wc, 3, TMO);
	REQUIRE_EQ(n, 3);
	CHECK_EQ(wc[0].wr_id, 10);
	CHECK_EQ(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	for (int i = 1; i < 3; i++) {
		CHECK_EQ(wc[i].wr_id, 10 + i);
		CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
	n = fx_poll(p.rcq[0], wc, 2, TMO);
	REQUIRE_EQ(n, 2);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(wc[i].wr_id, 200 + i);
		CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
	CHECK_EQ(fx_expect_none(p.scq[0], 50), 0);
	REQUIRE_EQ(ibv_query_qp(p.qp[0], &qa, IBV_QP_STATE, &qia), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);

	SECTION("the port");
	if (mode == MUTE) {
		/* a peer that stops answering is no link event */
		CHECK_EQ(next_event(100, &ev), -1);
		CHECK_EQ(port_state(), IBV_PORT_ACTIVE);
	} else {
		CHECK_EQ(next_event(TMO, &ev), IBV_EVENT_PORT_ERR);
		CHECK_EQ(ev.element.port_num, 1);
		CHECK_EQ(port_state(), IBV_PORT_DOWN);
	}
	fx_pair_destroy(&p);

	if (mode == DOWN_UP) {
		SECTION("the wire comes back: PORT_ACTIVE, traffic again");
		CHECK_EQ(next_event(up_ms + TMO, &ev), IBV_EVENT_PORT_ACTIVE);
		CHECK_EQ(ev.element.port_num, 1);
		CHECK_EQ(port_state(), IBV_PORT_ACTIVE);
		fx_pair_create(&p, ctx, NULL, &o, 4096);
		fx_pair_connect(&p);
		traffic(&p, 4);
		fx_pair_destroy(&p);
	}
	CHECK_EQ(ibv_close_device(ctx), 0);
	return check_finish();
}
