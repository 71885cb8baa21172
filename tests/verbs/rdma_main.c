// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * RDMA, atomic and memory-window operations through ionic-sim, with
 * ibv_post_send and with the extended send API (docs/device-contract.md §16.4,
 * §16.5; docs/testing.md §1.6):
 *  - RDMA WRITE (0 bytes, inline, multi-SGE, larger than the MTU), WRITE
 *    with immediate (the receiver's WC), RDMA READ (0 bytes and large),
 *    every byte compared;
 *  - CAS and FAA: the original value in the local buffer, the result in
 *    remote memory, WC opcode and byte_len 8 (upstream:
 *    docs/upstream-defects.md D6);
 *  - per-opcode send_flags rules, SGE rules of atomics, RC-only opcodes on
 *    UD, send_ops_flags at creation: positive errno, nothing produced;
 *  - remote access errors: MR without REMOTE_WRITE / REMOTE_ATOMIC, QP
 *    without remote access;
 *  - windows: type 1 by ibv_bind_mw (new rkey = ibv_inc_rkey, NULL MR for
 *    an unbind: upstream D12), type 2 by ibv_post_send and ibv_wr_bind_mw;
 *    writes through the window land in the region; after a zero-length
 *    bind, LOCAL_INV, SEND_WITH_INV or dealloc, a WRITE gives
 *    IBV_WC_REM_ACCESS_ERR.
 * Run under both firmware versions (atomic body v1/v2, opcode tables).
 *
 * One program in several files: rdma_ops.c, rdma_errors.c, rdma_mw.c and
 * rdma_wrx.c hold the tests, this file the helpers they share and main().
 */
#include "rdma.h"

struct ibv_context *ctx;
struct ibv_pd *pd;

/*
 * An RC pair, both QPs signalling every WR.  ex_ops != 0: extended QPs
 * with those send_ops_flags.  mr_acc[i]: access of side i's region;
 * qp_acc1: remote access of QP 1 (the usual responder).
 */
void mkpair(struct fx_pair *p, uint64_t ex_ops, int mr_acc0, int mr_acc1,
	    int qp_acc1)
{
	int mr_acc[2] = { mr_acc0, mr_acc1 };
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.sq_sig_all = 1;
	fx_pair_create(p, ctx, pd, &o, BUF);
	for (int i = 0; i < 2; i++) {
		CHECK_RC(ibv_dereg_mr(p->mr[i]), 0);
		p->mr[i] = ibv_reg_mr(pd, p->buf[i], BUF, mr_acc[i]);
		REQUIRE(p->mr[i]);
		if (!ex_ops)
			continue;

		struct ibv_qp_init_attr_ex ia = {
			.send_cq = p->scq[i],
			.recv_cq = p->rcq[i],
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 1,
			.cap = { 64, 64, 4, 4, 64 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			.send_ops_flags = ex_ops,
		};

		CHECK_RC(ibv_destroy_qp(p->qp[i]), 0);
		p->qp[i] = ibv_create_qp_ex(ctx, &ia);
		REQUIRE(p->qp[i]);
		p->cap[i] = ia.cap;
	}

	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT,
			.port_num = 1,
			.qp_access_flags = i ? qp_acc1 : QP_ACC,
		};

		REQUIRE_EQ(ibv_modify_qp(p->qp[i], &a,
					 IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						 IBV_QP_PORT |
						 IBV_QP_ACCESS_FLAGS),
			   0);
	}
	fx_pair_rc_rtr_rts(p);
}

uint64_t va(struct fx_pair *p, int i, size_t off)
{
	return (uintptr_t)(p->buf[i] + off);
}

/* Post one WR; returns the errno of ibv_post_send. */
int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(qp, wr, &bad);

	if (rc)
		CHECK(bad == wr);
	return rc;
}

/* The next send completion of side i: wr_id, status, opcode, byte_len. */
void expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status st,
	       enum ibv_wc_opcode op, uint32_t len)
{
	struct ibv_wc wc;

	fx_poll_one(cq, &wc, TMO);
	CHECK_EQ(wc.wr_id, wr_id);
	if (wc.status != st)
		check_fail(__FILE__, __LINE__, "wr_id %llu: status %s, want %s",
			   (unsigned long long)wc.wr_id,
			   fx_wc_status(wc.status), fx_wc_status(st));
	if (st == IBV_WC_SUCCESS) {
		CHECK_EQ(wc.opcode, op);
		CHECK_EQ(wc.byte_len, len);
	}
}

struct ibv_send_wr rdma_wr(enum ibv_wr_opcode op, uint64_t id,
			   struct ibv_sge *sgl, int n, uint64_t raddr,
			   uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = sgl,
		.num_sge = n,
		.opcode = op,
	};

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return wr;
}

/* A WRITE from side 0 to side 1 at 'raddr' through 'rkey'. */
int write_to(struct fx_pair *p, uint64_t id, size_t loff, size_t len,
	     uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { va(p, 0, loff), (uint32_t)len, p->mr[0]->lkey };
	struct ibv_send_wr wr =
		rdma_wr(IBV_WR_RDMA_WRITE, id, &sge, 1, raddr, rkey);

	return post(p->qp[0], &wr);
}

struct ibv_send_wr atomic_wr(enum ibv_wr_opcode op, uint64_t id,
			     struct ibv_sge *sge, uint64_t raddr, uint32_t rkey,
			     uint64_t cmp_add, uint64_t swap)
{
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = op,
	};

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return wr;
}

/* A WRITE that must fail with a remote access error. */
void expect_write_denied(struct fx_pair *p, uint64_t id, uint64_t raddr,
			 uint32_t rkey)
{
	CHECK_RC(write_to(p, id, 0, 32, raddr, rkey), 0);
	expect_wc(p->scq[0], id, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE, 0);
}

int main(void)
{
	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	test_write_read();
	test_atomics();
	test_post_errors();
	test_access_errors();
	test_mw_type1();
	test_mw_type2();
	test_wrx();
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
