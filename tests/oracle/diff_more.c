// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * More differential scenarios (diff_scenario.c says how they are used):
 * the ibv_wr_* API, memory windows and local invalidate, CQ arming with a
 * completion channel, RNR, an SQ in controller memory behind express
 * doorbells (the IONIC_1.0 call; diff.sh runs it alone, with CMB pages
 * and SQ express doorbells in ionic-sim's profile).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/ionic_dv.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "diff_scenario.h"

/* The pair's QPs replaced by ibv_create_qp_ex ones with the send ops
 * (UD: the two sends, all it has), connected; 0 or the create's errno. */
static int pair_ex(struct fx_pair *p, struct ibv_context *ctx)
{
	bool ud = p->o.type == IBV_QPT_UD;

	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = p->scq[i],
			.recv_cq = p->rcq[i],
			.qp_type = p->o.type,
			.cap = { 16, 16, 2, 2, 64 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = p->pd,
			.send_ops_flags =
				ud ? IBV_QP_EX_WITH_SEND |
						IBV_QP_EX_WITH_SEND_WITH_IMM :
				     IBV_QP_EX_WITH_SEND |
						IBV_QP_EX_WITH_SEND_WITH_IMM |
						IBV_QP_EX_WITH_RDMA_WRITE |
						IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
						IBV_QP_EX_WITH_RDMA_READ |
						IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
						IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		};

		REQUIRE(ibv_destroy_qp(p->qp[i]) == 0);
		p->qp[i] = ibv_create_qp_ex(ctx, &ia);
		if (!p->qp[i])
			return errno;
	}
	fx_pair_connect(p);
	return 0;
}

static void wr_api(struct ibv_context *ctx)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_qp_ex *qx;
	uint64_t raddr;
	uint32_t rkey, lkey;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	mark("wr create");
	fx_pair_create(&p, ctx, NULL, &o, 1 << 16);
	atomic_access(&p);
	REQUIRE(pair_ex(&p, ctx) == 0);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	REQUIRE(qx);
	raddr = (uintptr_t)p.buf[1] + 8192;
	rkey = p.mr[1]->rkey;
	lkey = p.mr[0]->lkey;

	mark("wr send, send imm, write, write imm, read, atomics");
	REQUIRE(recv1(&p, 1, 300, 256) == 0);
	REQUIRE(recv1(&p, 1, 301, 256) == 0);
	REQUIRE(recv1(&p, 1, 302, 256) == 0);
	ibv_wr_start(qx);
	qx->wr_id = 310;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0], 40);
	qx->wr_id = 311;
	ibv_wr_send_imm(qx, htonl(0x5151));
	ibv_wr_set_inline_data(qx, p.buf[0], 30);
	qx->wr_id = 312;
	qx->wr_flags = 0;
	ibv_wr_rdma_write(qx, rkey, raddr);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0], 100);
	qx->wr_id = 313;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qx, rkey, raddr, htonl(0x5252));
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0], 100);
	qx->wr_id = 314;
	ibv_wr_rdma_read(qx, rkey, raddr);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0] + 1024, 64);
	qx->wr_id = 315;
	ibv_wr_atomic_cmp_swp(qx, rkey, raddr + 256, 0, 7);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0] + 2048, 8);
	qx->wr_id = 316;
	ibv_wr_atomic_fetch_add(qx, rkey, raddr + 256, 5);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0] + 2056, 8);
	CHECK(ibv_wr_complete(qx) == 0);
	reap(0, p.scq[0], 6);
	reap(1, p.rcq[1], 3);

	mark("wr abort");
	ibv_wr_start(qx);
	qx->wr_id = 320;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0], 8);
	ibv_wr_abort(qx);
	REQUIRE(recv1(&p, 1, 321, 256) == 0);
	ibv_wr_start(qx);
	qx->wr_id = 322;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0], 9);
	CHECK(ibv_wr_complete(qx) == 0);
	reap(0, p.scq[0], 1);
	reap(1, p.rcq[1], 1);
	fx_pair_destroy(&p);
}

/* UD through ibv_wr_*: a SEND and a SEND_WITH_IMM, each addressed with
 * wr_set_ud_addr.  A provider that refuses the QP, or gives it no such
 * hook, is reported as such and nothing is posted (what an application
 * checks before it calls the hook). */
static void wr_ud(struct ibv_context *ctx)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_qp_ex *qx;
	uint32_t lkey;
	int err;

	fx_qp_opts_default(&o, IBV_QPT_UD);
	mark("wr ud create");
	fx_pair_create(&p, ctx, NULL, &o, 1 << 16);
	err = pair_ex(&p, ctx);
	qx = err ? NULL : ibv_qp_to_qp_ex(p.qp[0]);
	printf("create wr ud qp: %s, wr_set_ud_addr %s\n",
	       err ? strerror(err) : "ok",
	       qx && qx->wr_set_ud_addr ? "yes" : "no");
	lkey = p.mr[0]->lkey;
	mark("wr ud send, send imm");
	if (qx && qx->wr_set_ud_addr) {
		REQUIRE(recv1(&p, 1, 330, 256 + 40) == 0);
		REQUIRE(recv1(&p, 1, 331, 256 + 40) == 0);
		ibv_wr_start(qx);
		qx->wr_id = 332;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ibv_wr_set_ud_addr(qx, p.ah[0], p.qp[1]->qp_num, p.o.qkey);
		ibv_wr_set_sge(qx, lkey, (uintptr_t)p.buf[0], 48);
		qx->wr_id = 333;
		ibv_wr_send_imm(qx, htonl(0x5353));
		ibv_wr_set_ud_addr(qx, p.ah[0], p.qp[1]->qp_num, p.o.qkey);
		ibv_wr_set_inline_data(qx, p.buf[0], 20);
		CHECK(ibv_wr_complete(qx) == 0);
		reap(0, p.scq[0], 2);
		reap(1, p.rcq[1], 2);
	}
	fx_pair_destroy(&p);
}

static int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, wr, &bad);
}

/* Bind type-2 window mw to 4 KiB of side 1's region with key, from side 1,
 * by a BIND_MW work request. */
static void bind2(struct fx_pair *p, struct ibv_mw *mw, uint32_t key,
		  uint64_t wr_id)
{
	struct ibv_send_wr b = {
		.wr_id = wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { mw,
			     key,
			     { p->mr[1], (uintptr_t)p->buf[1] + 8192, 4096,
			       IBV_ACCESS_REMOTE_WRITE } },
	};

	CHECK(post(p->qp[1], &b) == 0);
	reap(1, p->scq[1], 1);
}

/* Windows: type 1 bound by ibv_bind_mw, type 2 by a BIND_MW WR, used by
 * an RDMA WRITE, invalidated locally and remotely (SEND_WITH_INV). */
static void windows(struct ibv_context *ctx)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_mw *mw1, *mw2;
	struct ibv_sge sge;
	uint32_t key2;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	mark("mw create");
	fx_pair_create(&p, ctx, NULL, &o, 1 << 16);
	for (int i = 0; i < 2; i++) {
		REQUIRE(ibv_dereg_mr(p.mr[i]) == 0);
		p.mr[i] = ibv_reg_mr(
			p.pd, p.buf[i], p.buf_len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
		REQUIRE(p.mr[i]);
	}
	fx_pair_connect(&p);
	mw1 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	REQUIRE(mw1 && mw2);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 64, p.mr[0]->lkey };

	mark("mw type 1 bind, write through it");
	{
		struct ibv_mw_bind b = {
			.wr_id = 400,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = { p.mr[1], (uintptr_t)p.buf[1] + 4096,
				       4096, IBV_ACCESS_REMOTE_WRITE },
		};
		struct ibv_send_wr w = { .wr_id = 401,
					 .sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_RDMA_WRITE,
					 .send_flags = IBV_SEND_SIGNALED };

		CHECK(ibv_bind_mw(p.qp[1], mw1, &b) == 0);
		reap(1, p.scq[1], 1);
		w.wr.rdma.remote_addr = (uintptr_t)p.buf[1] + 4096;
		w.wr.rdma.rkey = mw1->rkey;
		CHECK(post(p.qp[0], &w) == 0);
		reap(0, p.scq[0], 1);
	}
	mark("mw type 2 bind, local invalidate");
	key2 = ibv_inc_rkey(mw2->rkey);
	{
		struct ibv_send_wr inv = { .wr_id = 411,
					   .opcode = IBV_WR_LOCAL_INV,
					   .send_flags = IBV_SEND_SIGNALED,
					   .invalidate_rkey = key2 };

		bind2(&p, mw2, key2, 410);
		CHECK(post(p.qp[1], &inv) == 0);
		reap(1, p.scq[1], 1);
	}
	mark("mw type 2 bind, send with invalidate");
	key2 = ibv_inc_rkey(key2);
	{
		struct ibv_send_wr s = { .wr_id = 421,
					 .sg_list = &sge,
					 .num_sge = 1,
					 .opcode = IBV_WR_SEND_WITH_INV,
					 .send_flags = IBV_SEND_SIGNALED,
					 .invalidate_rkey = key2 };

		bind2(&p, mw2, key2, 420);
		REQUIRE(recv1(&p, 1, 422, 256) == 0);
		CHECK(post(p.qp[0], &s) == 0);
		reap(0, p.scq[0], 1);
		reap(1, p.rcq[1], 1);
	}
	CHECK(ibv_dealloc_mw(mw1) == 0);
	CHECK(ibv_dealloc_mw(mw2) == 0);
	fx_pair_destroy(&p);
}

/* Arm a CQ with a channel, then a completion: the event must come. */
static void arming(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_cq *cq, *old;
	struct pollfd pfd;
	void *cq_ctx;

	REQUIRE(ch);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	mark("arm create");
	cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	REQUIRE(cq);
	fx_pair_create(&p, ctx, NULL, &o, 1 << 16);
	/* side 1 receives on the CQ with the channel */
	old = p.rcq[1];
	p.rcq[1] = cq;
	REQUIRE(ibv_destroy_qp(p.qp[1]) == 0);
	{
		struct ibv_qp_init_attr ia = { .send_cq = p.scq[1],
					       .recv_cq = cq,
					       .qp_type = IBV_QPT_RC,
					       .cap = { 4, 4, 1, 1, 0 } };

		p.qp[1] = ibv_create_qp(p.pd, &ia);
		REQUIRE(p.qp[1]);
	}
	fx_pair_connect(&p);
	for (int solicited = 0; solicited < 2; solicited++) {
		mark(solicited ? "arm solicited, solicited send" :
				 "arm, then a send");
		REQUIRE(recv1(&p, 1, 500, 64) == 0);
		CHECK(ibv_req_notify_cq(cq, solicited) == 0);
		CHECK(fx_post_send(&p, 0, 501, 0, 16,
				   IBV_SEND_SIGNALED |
					   (solicited ? IBV_SEND_SOLICITED : 0),
				   false, 0) == 0);
		reap(0, p.scq[0], 1);
		pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
		printf("event %s\n", poll(&pfd, 1, 1000) == 1 ? "yes" : "no");
		if (pfd.revents & POLLIN) {
			struct ibv_cq *ev_cq;

			CHECK(ibv_get_cq_event(ch, &ev_cq, &cq_ctx) == 0);
			ibv_ack_cq_events(ev_cq, 1);
		}
		reap(1, cq, 1);
	}
	fx_pair_destroy(&p);
	CHECK(ibv_destroy_cq(old) == 0);
	CHECK(ibv_destroy_comp_channel(ch) == 0);
}

/* RNR: a SEND with no receive posted and no RNR retry. */
static void rnr(struct ibv_context *ctx)
{
	struct fx_qp_opts o;
	struct fx_pair p;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.rnr_retry = 0;
	mark("rnr create");
	fx_pair_create(&p, ctx, NULL, &o, 1 << 16);
	fx_pair_connect(&p);
	mark("rnr send");
	CHECK(fx_post_send(&p, 0, 600, 0, 16, IBV_SEND_SIGNALED, false, 0) ==
	      0);
	reap(0, p.scq[0], 1);
	fx_pair_destroy(&p);
}

/* The SQ in controller memory behind express doorbells: a QP with the
 * fixture's capabilities (4 SGEs, 64 inline bytes) and one with the least
 * (1 SGE, no inline), whose WQEs fit the 64-byte window; then the RQ in
 * controller memory (the other IONIC_1.0 call), the SQ in host memory. */
void diff_cmb(struct ibv_context *ctx)
{
	static const char *const kind[] = { "big", "small", "rq" };

	for (int v = 0; v < 3; v++) {
		const char *t = kind[v];
		bool small = v == 1;
		struct ibv_pd *pd = ibv_alloc_pd(ctx);
		struct fx_qp_opts o;
		struct fx_pair p;
		char name[48];

		REQUIRE(pd);
		snprintf(name, sizeof(name), "cmb %s create", t);
		mark(name);
		if (v == 2)
			CHECK(ionic_dv_pd_set_rqcmb(pd, true, false, false) ==
			      0);
		else
			CHECK(ionic_dv_pd_set_sqcmb(pd, true, true, false) ==
			      0);
		fx_qp_opts_default(&o, IBV_QPT_RC);
		if (small) {
			o.max_send_sge = 1;
			o.max_inline = 0;
		}
		fx_pair_create(&p, ctx, pd, &o, 1 << 16);
		fx_pair_connect(&p);
		for (int k = 0; k < 3; k++) {
			unsigned int f = IBV_SEND_SIGNALED;

			if (!k && !small)
				f |= IBV_SEND_INLINE;
			snprintf(name, sizeof(name), "cmb %s send %d", t, k);
			mark(name);
			REQUIRE(recv1(&p, 1, 700 + (uint64_t)k, 256) == 0);
			CHECK(fx_post_send(&p, 0, 710 + (uint64_t)k, 0,
					   20u + 50u * k, f, k == 2,
					   0x77) == 0);
			reap(0, p.scq[0], 1);
			reap(1, p.rcq[1], 1);
		}
		fx_pair_destroy(&p);
		CHECK(ibv_dealloc_pd(pd) == 0);
	}
}

void diff_more(struct ibv_context *ctx)
{
	wr_api(ctx);
	wr_ud(ctx);
	windows(ctx);
	arming(ctx);
	rnr(ctx);
}
