// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Asynchronous events: a responder that refuses an RDMA WRITE (its region
 * lacks REMOTE_WRITE) reports IBV_EVENT_QP_ACCESS_ERR for its QP on the
 * context's async fd, as one 16-byte record libibverbs decodes; once the
 * event is acknowledged, destroying the QP returns instead of waiting for
 * it (the destroy response carries the exact number of events delivered).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "verbs_fixture.h"

int main(void)
{
	struct ibv_async_event ev;
	struct ibv_send_wr wr, *bad;
	struct fx_qp_opts o;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct fx_pair p;
	struct pollfd pfd;

	SECTION("QP access error raises IBV_EVENT_QP_ACCESS_ERR");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, NULL, NULL, &o, 4096);
	REQUIRE_EQ(ibv_dereg_mr(p.mr[1]), 0);
	p.mr[1] = ibv_reg_mr(p.pd, p.buf[1], p.buf_len, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(p.mr[1]);
	fx_pair_connect(&p);

	/* nothing pending before the error */
	pfd = (struct pollfd){ .fd = p.ctx->async_fd, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 0), 0);

	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 64, p.mr[0]->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 7,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)p.buf[1], p.mr[1]->rkey },
	};
	REQUIRE_EQ(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, 10000);
	CHECK_EQ(wc.wr_id, 7);
	CHECK_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);

	REQUIRE_EQ(poll(&pfd, 1, 10000), 1);
	REQUIRE_EQ(ibv_get_async_event(p.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
	CHECK(ev.element.qp == p.qp[1]);
	ibv_ack_async_event(&ev);

	/* exactly one event: nothing else queued */
	CHECK_EQ(poll(&pfd, 1, 200), 0);

	/* the responder QP is in ERR, as query_qp reports */
	{
		struct ibv_qp_init_attr init;
		struct ibv_qp_attr attr;

		REQUIRE_EQ(ibv_query_qp(p.qp[1], &attr, IBV_QP_STATE, &init),
			   0);
		CHECK_EQ(attr.qp_state, IBV_QPS_ERR);
	}

	/* returns (the acked count equals the reported count) */
	fx_pair_destroy(&p);
	return check_finish();
}
