// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A process that dies disappears from the emulated fabric as a host drops
 * off a network: its RC peer's next send must complete with
 * IBV_WC_RETRY_EXC_ERR within the QP's retry budget (timeout 12 = 16.8 ms,
 * retry_cnt 3) and the receive it had posted flushes; nothing hangs.
 *
 * The peer is a forked child with its own device context (its own NIC
 * state, same fabric node), connected over pipes, then killed with
 * SIGKILL: no destroy, no goodbye.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_fixture.h"

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t buf[256];
	union ibv_gid gid;
};

static void end_create(struct end *e, const struct fx_qp_opts *o)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	(void)o;
	/* the payload goes on the wire: no uninitialised bytes (memcheck) */
	memset(e->buf, 0x5a, sizeof(e->buf));
	e->ctx = fx_open();
	e->pd = ibv_alloc_pd(e->ctx);
	REQUIRE(e->pd);
	e->cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	REQUIRE(e->cq);
	e->mr = ibv_reg_mr(e->pd, e->buf, sizeof(e->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(e->mr);
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &ia);
	REQUIRE(e->qp);
	REQUIRE_EQ(ibv_query_gid(e->ctx, 1, 1, &e->gid), 0);
}

static void end_connect(struct end *e, uint32_t dqpn,
			const struct fx_qp_opts *o)
{
	REQUIRE_EQ(fx_rc_to_init(e->qp), 0);
	REQUIRE_EQ(fx_rc_to_rtr(e->qp, &e->gid, dqpn, o), 0);
	REQUIRE_EQ(fx_rc_to_rts(e->qp, o), 0);
}

static int post_recv(struct end *e, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + 128, 128, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int post_send(struct end *e, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, 64, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(e->qp, &wr, &bad);
}

int main(void)
{
	int to_child[2], to_parent[2], status;
	uint32_t qpn, peer_qpn;
	struct fx_qp_opts o;
	struct ibv_wc wc;
	struct end e;
	uint64_t t0;
	pid_t child;

	SECTION("a killed peer process: RETRY_EXC_ERR, flush, no hang");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 12;
	o.retry_cnt = 3;
	REQUIRE(pipe(to_child) == 0 && pipe(to_parent) == 0);

	child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		end_create(&e, &o);
		qpn = e.qp->qp_num;
		if (read(to_child[0], &peer_qpn, sizeof(peer_qpn)) != 4 ||
		    write(to_parent[1], &qpn, sizeof(qpn)) != 4)
			_exit(2);
		end_connect(&e, peer_qpn, &o);
		REQUIRE_EQ(post_recv(&e, 1), 0);
		/* connected: tell the parent, then answer its one message */
		if (write(to_parent[1], &qpn, sizeof(qpn)) != 4)
			_exit(2);
		fx_poll_one(e.cq, &wc, 10000);
		if (wc.status != IBV_WC_SUCCESS || post_send(&e, 2))
			_exit(3);
		fx_poll_one(e.cq, &wc, 10000);
		pause(); /* until SIGKILL */
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);

	end_create(&e, &o);
	qpn = e.qp->qp_num;
	REQUIRE(write(to_child[1], &qpn, sizeof(qpn)) == 4);
	REQUIRE(read(to_parent[0], &peer_qpn, sizeof(peer_qpn)) == 4);
	CHECK(peer_qpn != qpn);
	end_connect(&e, peer_qpn, &o);
	REQUIRE(read(to_parent[0], &peer_qpn, sizeof(peer_qpn)) == 4);

	/* one exchange proves the path works */
	REQUIRE_EQ(post_recv(&e, 10), 0);
	REQUIRE_EQ(post_send(&e, 11), 0);
	for (int i = 0; i < 2; i++) {
		fx_poll_one(e.cq, &wc, 10000);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	}

	REQUIRE_EQ(post_recv(&e, 20), 0);
	kill(child, SIGKILL);
	REQUIRE(waitpid(child, &status, 0) == child);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	t0 = fx_now_ms();
	REQUIRE_EQ(post_send(&e, 21), 0);
	fx_poll_one(e.cq, &wc, 20000);
	CHECK_EQ(wc.wr_id, 21);
	CHECK_EQ(wc.status, IBV_WC_RETRY_EXC_ERR);
	/* 4 tries of 16.8 ms, give or take scheduling */
	CHECK(fx_now_ms() - t0 < 10000);
	fx_poll_one(e.cq, &wc, 10000);
	CHECK_EQ(wc.wr_id, 20);
	CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);

	ibv_destroy_qp(e.qp);
	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.cq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	return check_finish();
}
