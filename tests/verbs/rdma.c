// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * RDMA, atomic and memory-window operations through ionic-sim, with
 * ibv_post_send and with the extended send API (ionic-device.md §16.4,
 * §16.5; real-clients.md §1.6):
 *  - RDMA WRITE (0 bytes, inline, multi-SGE, larger than the MTU), WRITE
 *    with immediate (the receiver's WC), RDMA READ (0 bytes and large),
 *    every byte compared;
 *  - CAS and FAA: the original value in the local buffer, the result in
 *    remote memory, WC opcode and byte_len 8 (upstream: D6);
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
 */
#include <arpa/inet.h>

#include "harness.h"

#define TMO 5000
#define BUF (1 << 17)

#define ACC_ALL                                              \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |  \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
	 IBV_ACCESS_MW_BIND)
#define QP_ACC                                              \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_ATOMIC)

#define EX_RC_OPS                                                         \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |             \
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |       \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |  \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |                              \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | \
	 IBV_QP_EX_WITH_BIND_MW)

static struct ibv_context *ctx;
static struct ibv_pd *pd;

/*
 * An RC pair, both QPs signalling every WR.  ex_ops != 0: extended QPs
 * with those send_ops_flags.  mr_acc[i]: access of side i's region;
 * qp_acc1: remote access of QP 1 (the usual responder).
 */
static void mkpair(struct h_pair *p, uint64_t ex_ops, int mr_acc0, int mr_acc1,
		   int qp_acc1)
{
	int mr_acc[2] = { mr_acc0, mr_acc1 };
	struct h_qp_opts o;

	h_qp_opts_default(&o, IBV_QPT_RC);
	o.sq_sig_all = 1;
	h_pair_create(p, ctx, pd, &o, BUF);
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
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(h_rc_to_rtr(p->qp[i], &p->gid, p->qp[!i]->qp_num,
				       &p->o),
			   0);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(h_rc_to_rts(p->qp[i], &p->o), 0);
}

static void unpair(struct h_pair *p)
{
	p->ctx = NULL;
	p->pd = NULL;
	h_pair_destroy(p);
}

static uint64_t va(struct h_pair *p, int i, size_t off)
{
	return (uintptr_t)(p->buf[i] + off);
}

/* Post one WR; returns the errno of ibv_post_send. */
static int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(qp, wr, &bad);

	if (rc)
		CHECK(bad == wr);
	return rc;
}

/* The next send completion of side i: wr_id, status, opcode, byte_len. */
static void expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status st,
		      enum ibv_wc_opcode op, uint32_t len)
{
	struct ibv_wc wc;

	h_poll_one(cq, &wc, TMO);
	CHECK_EQ(wc.wr_id, wr_id);
	if (wc.status != st)
		h_fail(__FILE__, __LINE__, "wr_id %llu: status %s, want %s",
		       (unsigned long long)wc.wr_id, h_wc_status(wc.status),
		       h_wc_status(st));
	if (st == IBV_WC_SUCCESS) {
		CHECK_EQ(wc.opcode, op);
		CHECK_EQ(wc.byte_len, len);
	}
}

static struct ibv_send_wr rdma_wr(enum ibv_wr_opcode op, uint64_t id,
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
static int write_to(struct h_pair *p, uint64_t id, size_t loff, size_t len,
		    uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { va(p, 0, loff), (uint32_t)len, p->mr[0]->lkey };
	struct ibv_send_wr wr =
		rdma_wr(IBV_WR_RDMA_WRITE, id, &sge, 1, raddr, rkey);

	return post(p->qp[0], &wr);
}

static void test_write_read(void)
{
	struct h_pair p;
	struct ibv_sge sgl[3];
	struct ibv_send_wr wr;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;
	uint32_t rkey;

	SECTION("RDMA WRITE / WRITE_WITH_IMM / READ");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	rkey = p.mr[1]->rkey;
	h_fill(p.buf[0], BUF, 1);
	memset(p.buf[1], 0xee, BUF);

	/* zero bytes: no SGE at all; nothing changes remotely */
	wr = rdma_wr(IBV_WR_RDMA_WRITE, 1, NULL, 0, va(&p, 1, 0), rkey);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0);
	CHECK_EQ(p.buf[1][0], 0xee);

	/* small inline write */
	sgl[0] = (struct ibv_sge){ va(&p, 0, 7), 20, 0 };
	wr = rdma_wr(IBV_WR_RDMA_WRITE, 2, sgl, 1, va(&p, 1, 100), rkey);
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 20);
	CHECK(!memcmp(p.buf[1] + 100, p.buf[0] + 7, 20));
	CHECK_EQ(p.buf[1][99], 0xee);
	CHECK_EQ(p.buf[1][120], 0xee);

	/* three SGEs gathered into one remote range */
	sgl[0] = (struct ibv_sge){ va(&p, 0, 1000), 100, p.mr[0]->lkey };
	sgl[1] = (struct ibv_sge){ va(&p, 0, 5), 1, p.mr[0]->lkey };
	sgl[2] = (struct ibv_sge){ va(&p, 0, 9000), 3000, p.mr[0]->lkey };
	wr = rdma_wr(IBV_WR_RDMA_WRITE, 3, sgl, 3, va(&p, 1, 4096), rkey);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 3101);
	CHECK(!memcmp(p.buf[1] + 4096, p.buf[0] + 1000, 100));
	CHECK_EQ(p.buf[1][4196], p.buf[0][5]);
	CHECK(!memcmp(p.buf[1] + 4197, p.buf[0] + 9000, 3000));
	CHECK_EQ(p.buf[1][7197], 0xee);

	/* far more than the 1024-byte path MTU */
	CHECK_RC(write_to(&p, 4, 100, 40000, va(&p, 1, 20000), rkey), 0);
	expect_wc(p.scq[0], 4, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 40000);
	CHECK(!memcmp(p.buf[1] + 20000, p.buf[0] + 100, 40000));
	CHECK_EQ(p.buf[1][60000], 0xee);

	/* WRITE_WITH_IMM consumes a receive and reports the immediate */
	sgl[0] = (struct ibv_sge){ va(&p, 1, 0), 16, p.mr[1]->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 50, .sg_list = sgl, .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	sgl[1] = (struct ibv_sge){ va(&p, 0, 300), 5000, p.mr[0]->lkey };
	wr = rdma_wr(IBV_WR_RDMA_WRITE_WITH_IMM, 5, &sgl[1], 1,
		     va(&p, 1, 70000), rkey);
	wr.imm_data = htonl(0x1234abcd);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 5000);
	h_poll_one(p.rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 50);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM);
	CHECK_EQ(ntohl(wc.imm_data), 0x1234abcd);
	CHECK_EQ(wc.byte_len, 5000);
	CHECK(!memcmp(p.buf[1] + 70000, p.buf[0] + 300, 5000));
	/* the receive buffer is untouched */
	CHECK_EQ(p.buf[1][0], 0xee);

	/* READ of zero bytes, then a large READ into two SGEs */
	wr = rdma_wr(IBV_WR_RDMA_READ, 6, NULL, 0, va(&p, 1, 0), rkey);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 6, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 0);

	h_fill(p.buf[1], BUF, 2);
	memset(p.buf[0], 0, BUF);
	sgl[0] = (struct ibv_sge){ va(&p, 0, 10), 20000, p.mr[0]->lkey };
	sgl[1] = (struct ibv_sge){ va(&p, 0, 50000), 30001, p.mr[0]->lkey };
	wr = rdma_wr(IBV_WR_RDMA_READ, 7, sgl, 2, va(&p, 1, 333), rkey);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 7, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 50001);
	CHECK(!memcmp(p.buf[0] + 10, p.buf[1] + 333, 20000));
	CHECK(!memcmp(p.buf[0] + 50000, p.buf[1] + 20333, 30001));
	CHECK_EQ(p.buf[0][9], 0);
	CHECK_EQ(p.buf[0][20010], 0);
	CHECK_EQ(p.buf[0][80001], 0);

	/* nothing else completed on either side */
	h_expect_none(p.scq[1], 20);
	h_expect_none(p.rcq[0], 20);
	unpair(&p);
}

static struct ibv_send_wr atomic_wr(enum ibv_wr_opcode op, uint64_t id,
				    struct ibv_sge *sge, uint64_t raddr,
				    uint32_t rkey, uint64_t cmp_add,
				    uint64_t swap)
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

static void test_atomics(void)
{
	struct h_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	uint64_t *res, *tgt;
	uint32_t rkey;

	SECTION("ATOMIC CMP_AND_SWP / FETCH_AND_ADD");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	rkey = p.mr[1]->rkey;
	res = (uint64_t *)(p.buf[0] + 64);
	tgt = (uint64_t *)(p.buf[1] + 128);
	*tgt = 0x1122334455667788ull;
	sge = (struct ibv_sge){ (uintptr_t)res, 8, p.mr[0]->lkey };

	/* compare matches: swapped; the old value comes back */
	*res = 0;
	wr = atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, 1, &sge, (uintptr_t)tgt, rkey,
		       0x1122334455667788ull, 0xa5a5a5a5deadbeefull);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
	CHECK_EQ(*res, 0x1122334455667788ull);
	CHECK_EQ(*tgt, 0xa5a5a5a5deadbeefull);

	/* compare differs: memory unchanged, still the old value back */
	*res = 0;
	wr = atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, 2, &sge, (uintptr_t)tgt, rkey,
		       0x1122334455667788ull, 7);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 2, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
	CHECK_EQ(*res, 0xa5a5a5a5deadbeefull);
	CHECK_EQ(*tgt, 0xa5a5a5a5deadbeefull);

	/* fetch and add, with a carry across the 32-bit halves */
	*tgt = 0x00000001ffffffffull;
	wr = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 3, &sge, (uintptr_t)tgt,
		       rkey, 0x100000001ull, 0);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 8);
	CHECK_EQ(*res, 0x00000001ffffffffull);
	CHECK_EQ(*tgt, 0x0000000300000000ull);
	/* nothing around the target moved */
	CHECK_EQ(tgt[-1], 0);
	CHECK_EQ(tgt[1], 0);
	CHECK_EQ(res[-1], 0);
	CHECK_EQ(res[1], 0);

	/* a chain: FAA, FAA, CAS; completions in order */
	*tgt = 10;
	{
		struct ibv_sge s2[3];
		struct ibv_send_wr w[3], *bad;

		for (int i = 0; i < 3; i++)
			s2[i] = (struct ibv_sge){ (uintptr_t)(res + 2 + i), 8,
						  p.mr[0]->lkey };
		w[0] = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 10, &s2[0],
				 (uintptr_t)tgt, rkey, 5, 0);
		w[1] = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 11, &s2[1],
				 (uintptr_t)tgt, rkey, 5, 0);
		w[2] = atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, 12, &s2[2],
				 (uintptr_t)tgt, rkey, 20, 99);
		w[0].next = &w[1];
		w[1].next = &w[2];
		CHECK_RC(ibv_post_send(p.qp[0], w, &bad), 0);
		expect_wc(p.scq[0], 10, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 8);
		expect_wc(p.scq[0], 11, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 8);
		expect_wc(p.scq[0], 12, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
		CHECK_EQ(res[2], 10);
		CHECK_EQ(res[3], 15);
		CHECK_EQ(res[4], 20);
		CHECK_EQ(*tgt, 99);
	}
	unpair(&p);
}

/* Invalid WRs: positive errno, *bad_wr, nothing produced. */
static void test_post_errors(void)
{
	struct h_pair p;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr;
	struct ibv_mw *mw;
	uint32_t rkey;

	SECTION("per-opcode rules of ibv_post_send");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	rkey = p.mr[1]->rkey;
	sge[0] = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
	sge[1] = (struct ibv_sge){ va(&p, 0, 8), 8, p.mr[0]->lkey };

	wr = rdma_wr(IBV_WR_RDMA_WRITE, 1, sge, 1, va(&p, 1, 0), rkey);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr = rdma_wr(IBV_WR_RDMA_READ, 1, sge, 1, va(&p, 1, 0), rkey);
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);

	wr = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 1, sge, va(&p, 1, 0), rkey,
		       1, 0);
	wr.num_sge = 2; /* exactly one SGE */
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.num_sge = 0;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.num_sge = 1;
	sge[0].length = 4; /* of exactly 8 bytes */
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	sge[0].length = 16;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	sge[0].length = 8;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);

	wr = (struct ibv_send_wr){ .wr_id = 1,
				   .opcode = IBV_WR_LOCAL_INV,
				   .send_flags = IBV_SEND_SOLICITED };
	wr.invalidate_rkey = rkey;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
	wr.opcode = IBV_WR_TSO;
	wr.send_flags = 0;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
#if IONIC_IBVERBS_RDMA_CORE >= 44 /* IBV_WR_ATOMIC_WRITE */
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
#endif
#if IONIC_IBVERBS_RDMA_CORE >= 45 /* IBV_WR_FLUSH */
	wr.opcode = IBV_WR_FLUSH;
	CHECK_RC(post(p.qp[0], &wr), EINVAL);
#endif

	/* windows: type 1 is not bound through the send queue, and a type-2
	 * window needs a length */
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	wr = (struct ibv_send_wr){ .wr_id = 1, .opcode = IBV_WR_BIND_MW };
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info =
		(struct ibv_mw_bind_info){ p.mr[1], va(&p, 1, 0), 64,
					   IBV_ACCESS_REMOTE_WRITE };
	CHECK_RC(post(p.qp[1], &wr), EINVAL);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.length = 0;
	CHECK_RC(post(p.qp[1], &wr), EINVAL);
	/* a new rkey naming another window */
	wr.bind_mw.bind_info.length = 64;
	wr.bind_mw.rkey = mw->rkey ^ 0x100;
	CHECK_RC(post(p.qp[1], &wr), EINVAL);
	{
		struct ibv_mw_bind b = {
			.wr_id = 1,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = { p.mr[1], va(&p, 1, 0), 64,
				       IBV_ACCESS_REMOTE_WRITE },
		};

		/* ibv_bind_mw is for type-1 windows only */
		CHECK(ibv_bind_mw(p.qp[1], mw, &b) != 0);
	}
	CHECK_RC(ibv_dealloc_mw(mw), 0);

	/* none of it reached the device; the QPs still work */
	h_expect_none(p.scq[0], 20);
	h_expect_none(p.scq[1], 20);
	h_fill(p.buf[0], 64, 3);
	CHECK_RC(write_to(&p, 9, 0, 64, va(&p, 1, 0), rkey), 0);
	expect_wc(p.scq[0], 9, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	CHECK(!memcmp(p.buf[0], p.buf[1], 64));
	unpair(&p);

	SECTION("UD: SEND and SEND_WITH_IMM only");
	{
		struct h_qp_opts o;
		static const enum ibv_wr_opcode rc_only[] = {
			IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM,
			IBV_WR_RDMA_READ,
			IBV_WR_ATOMIC_CMP_AND_SWP,
			IBV_WR_ATOMIC_FETCH_AND_ADD,
			IBV_WR_LOCAL_INV,
			IBV_WR_SEND_WITH_INV,
		};

		h_qp_opts_default(&o, IBV_QPT_UD);
		h_pair_create(&p, ctx, pd, &o, 4096);
		h_pair_connect(&p);
		sge[0] = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
		for (size_t i = 0; i < sizeof(rc_only) / sizeof(rc_only[0]);
		     i++) {
			wr = rdma_wr(rc_only[i], 1, sge, 1, va(&p, 1, 0),
				     p.mr[1]->rkey);
			wr.wr.ud.ah = p.ah[0];
			CHECK_RC(post(p.qp[0], &wr), EINVAL);
		}
		h_expect_none(p.scq[0], 20);
		unpair(&p);
	}
}

/* A WRITE that must fail with a remote access error. */
static void expect_write_denied(struct h_pair *p, uint64_t id, uint64_t raddr,
				uint32_t rkey)
{
	CHECK_RC(write_to(p, id, 0, 32, raddr, rkey), 0);
	expect_wc(p->scq[0], id, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE, 0);
}

static void test_access_errors(void)
{
	struct h_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	SECTION("remote access errors");
	/* region without REMOTE_WRITE */
	mkpair(&p, 0, ACC_ALL, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
	       QP_ACC);
	memset(p.buf[1], 0x5a, 64);
	expect_write_denied(&p, 1, va(&p, 1, 0), p.mr[1]->rkey);
	CHECK_EQ(p.buf[1][0], 0x5a);
	unpair(&p);

	/* responder QP without any remote access */
	mkpair(&p, 0, ACC_ALL, ACC_ALL, 0);
	memset(p.buf[1], 0x5a, 64);
	expect_write_denied(&p, 2, va(&p, 1, 0), p.mr[1]->rkey);
	CHECK_EQ(p.buf[1][0], 0x5a);
	unpair(&p);

	/* region without REMOTE_ATOMIC: the atomic fails, memory intact */
	mkpair(&p, 0, ACC_ALL, ACC_ALL & ~IBV_ACCESS_REMOTE_ATOMIC, QP_ACC);
	*(uint64_t *)p.buf[1] = 42;
	sge = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
	wr = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, 3, &sge, va(&p, 1, 0),
		       p.mr[1]->rkey, 1, 0);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 3, IBV_WC_REM_ACCESS_ERR, IBV_WC_FETCH_ADD, 0);
	CHECK_EQ(*(uint64_t *)p.buf[1], 42);
	unpair(&p);

	/* a READ with a wrong rkey */
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	sge = (struct ibv_sge){ va(&p, 0, 0), 8, p.mr[0]->lkey };
	wr = rdma_wr(IBV_WR_RDMA_READ, 4, &sge, 1, va(&p, 1, 0),
		     p.mr[1]->rkey + 0x100);
	CHECK_RC(post(p.qp[0], &wr), 0);
	expect_wc(p.scq[0], 4, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ, 0);
	unpair(&p);
}

/* Type 1: ibv_bind_mw on side 1's QP over side 1's region. */
static int bind1(struct h_pair *p, struct ibv_mw *mw, uint64_t id,
		 struct ibv_mr *mr, size_t off, size_t len, int acc)
{
	struct ibv_mw_bind b = {
		.wr_id = id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { mr, mr ? va(p, 1, off) : 0, len, (unsigned)acc },
	};

	return ibv_bind_mw(p->qp[1], mw, &b);
}

static void test_mw_type1(void)
{
	struct h_pair p;
	struct ibv_mw *mw;
	uint32_t old;

	SECTION("MW type 1: ibv_bind_mw, write, unbind");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	old = mw->rkey;
	CHECK_RC(bind1(&p, mw, 21, p.mr[1], 4096, 8192,
		       IBV_ACCESS_REMOTE_WRITE),
		 0);
	CHECK_EQ(mw->rkey, ibv_inc_rkey(old));
	expect_wc(p.scq[1], 21, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);

	h_fill(p.buf[0], 4096, 4);
	CHECK_RC(write_to(&p, 1, 0, 4096, va(&p, 1, 4096 + 100), mw->rkey), 0);
	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 4096);
	CHECK(!memcmp(p.buf[1] + 4196, p.buf[0], 4096));

	/* rebinding moves the key on; the old key is dead */
	old = mw->rkey;
	CHECK_RC(bind1(&p, mw, 22, p.mr[1], 0, 4096, IBV_ACCESS_REMOTE_WRITE),
		 0);
	CHECK_EQ(mw->rkey, ibv_inc_rkey(old));
	expect_wc(p.scq[1], 22, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	CHECK_RC(write_to(&p, 2, 0, 64, va(&p, 1, 8), mw->rkey), 0);
	expect_wc(p.scq[0], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	CHECK(!memcmp(p.buf[1] + 8, p.buf[0], 64));

	/* unbind: zero length and no region (upstream crashed: D12) */
	old = mw->rkey;
	CHECK_RC(bind1(&p, mw, 23, NULL, 0, 0, 0), 0);
	CHECK_EQ(mw->rkey, old);
	expect_wc(p.scq[1], 23, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	expect_write_denied(&p, 3, va(&p, 1, 8), mw->rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	unpair(&p);

	SECTION("MW type 1: unbind with a region, dealloc");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	CHECK_RC(bind1(&p, mw, 24, p.mr[1], 0, 4096, IBV_ACCESS_REMOTE_WRITE),
		 0);
	expect_wc(p.scq[1], 24, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	CHECK_RC(bind1(&p, mw, 25, p.mr[1], 0, 0, 0), 0);
	expect_wc(p.scq[1], 25, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	expect_write_denied(&p, 4, va(&p, 1, 0), mw->rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	unpair(&p);

	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	REQUIRE(mw);
	CHECK_RC(bind1(&p, mw, 26, p.mr[1], 0, 4096, IBV_ACCESS_REMOTE_WRITE),
		 0);
	expect_wc(p.scq[1], 26, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	CHECK_RC(write_to(&p, 5, 0, 64, va(&p, 1, 0), mw->rkey), 0);
	expect_wc(p.scq[0], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	old = mw->rkey;
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	expect_write_denied(&p, 6, va(&p, 1, 0), old);
	unpair(&p);
}

/* Type 2 by ibv_post_send on side 1; returns the new rkey. */
static uint32_t bind2_post(struct h_pair *p, struct ibv_mw *mw, uint64_t id,
			   size_t off, size_t len, int acc)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_BIND_MW };
	uint32_t rkey = ibv_inc_rkey(mw->rkey);

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){ p->mr[1],
							  va(p, 1, off), len,
							  (unsigned)acc };
	CHECK_RC(post(p->qp[1], &wr), 0);
	expect_wc(p->scq[1], id, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	return rkey;
}

static void test_mw_type2(void)
{
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct h_pair p;
	struct ibv_mw *mw;
	uint32_t rkey;

	SECTION("MW type 2: bind by post_send, LOCAL_INV");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	rkey = bind2_post(&p, mw, 31, 1000, 5000,
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	h_fill(p.buf[0], 5000, 5);
	CHECK_RC(write_to(&p, 1, 0, 5000, va(&p, 1, 1000), rkey), 0);
	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 5000);
	CHECK(!memcmp(p.buf[1] + 1000, p.buf[0], 5000));
	/* a second bind of a bound type-2 window is refused by the device */

	wr = (struct ibv_send_wr){ .wr_id = 32, .opcode = IBV_WR_LOCAL_INV };
	wr.invalidate_rkey = rkey;
	CHECK_RC(post(p.qp[1], &wr), 0);
	expect_wc(p.scq[1], 32, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, 0);

	/* the free window binds again under a key the application picks;
	 * mw->rkey still holds the key it was allocated with */
	wr = (struct ibv_send_wr){ .wr_id = 33, .opcode = IBV_WR_BIND_MW };
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(rkey);
	wr.bind_mw.bind_info =
		(struct ibv_mw_bind_info){ p.mr[1], va(&p, 1, 0), 4096,
					   IBV_ACCESS_REMOTE_WRITE };
	CHECK_RC(post(p.qp[1], &wr), 0);
	expect_wc(p.scq[1], 33, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	h_fill(p.buf[0], 64, 6);
	CHECK_RC(write_to(&p, 3, 0, 64, va(&p, 1, 0), ibv_inc_rkey(rkey)), 0);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 64);
	CHECK(!memcmp(p.buf[1], p.buf[0], 64));

	/* the key invalidated before stays dead */
	expect_write_denied(&p, 2, va(&p, 1, 1000), rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	unpair(&p);

	SECTION("MW type 2: ibv_wr_bind_mw, SEND_WITH_INV");
	mkpair(&p, EX_RC_OPS, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	{
		struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(p.qp[1]);
		struct ibv_mw_bind_info bi = { p.mr[1], va(&p, 1, 0), 8192,
					       IBV_ACCESS_REMOTE_WRITE };

		REQUIRE(qx);
		rkey = ibv_inc_rkey(mw->rkey);
		ibv_wr_start(qx);
		qx->wr_id = 41;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(qx, mw, rkey, &bi);
		CHECK_RC(ibv_wr_complete(qx), 0);
		expect_wc(p.scq[1], 41, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 0);
	}
	h_fill(p.buf[0], 256, 6);
	CHECK_RC(write_to(&p, 3, 0, 256, va(&p, 1, 512), rkey), 0);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 256);
	CHECK(!memcmp(p.buf[1] + 512, p.buf[0], 256));

	/* side 0 sends with invalidate: side 1's window dies */
	sge = (struct ibv_sge){ va(&p, 1, 16384), 64, p.mr[1]->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 60,
				    .sg_list = &sge,
				    .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	{
		struct ibv_sge s = { va(&p, 0, 0), 16, p.mr[0]->lkey };

		wr = (struct ibv_send_wr){ .wr_id = 4,
					   .sg_list = &s,
					   .num_sge = 1,
					   .opcode = IBV_WR_SEND_WITH_INV };
		wr.invalidate_rkey = rkey;
		CHECK_RC(post(p.qp[0], &wr), 0);
	}
	expect_wc(p.scq[0], 4, IBV_WC_SUCCESS, IBV_WC_SEND, 16);
	h_poll_one(p.rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 60);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, 16);
	CHECK(wc.wc_flags & IBV_WC_WITH_INV);
	CHECK_EQ(wc.invalidated_rkey, rkey);
	CHECK(!memcmp(p.buf[1] + 16384, p.buf[0], 16));
	expect_write_denied(&p, 5, va(&p, 1, 512), rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	unpair(&p);

	SECTION("MW type 2: window without REMOTE_WRITE, dealloc");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	rkey = bind2_post(&p, mw, 33, 0, 4096, IBV_ACCESS_LOCAL_WRITE);
	expect_write_denied(&p, 6, va(&p, 1, 0), rkey);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	unpair(&p);

	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	REQUIRE(mw);
	rkey = bind2_post(&p, mw, 34, 0, 4096, IBV_ACCESS_REMOTE_WRITE);
	CHECK_RC(ibv_dealloc_mw(mw), 0);
	expect_write_denied(&p, 7, va(&p, 1, 0), rkey);
	unpair(&p);
}

/* Every RC builder of the extended API, in one batch where possible. */
static void test_wrx(void)
{
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_qp_ex *qx;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct h_pair p;
	uint64_t *res, *tgt;
	uint32_t rkey;

	SECTION("ibv_wr_*: RDMA and atomic builders");
	mkpair(&p, EX_RC_OPS, ACC_ALL, ACC_ALL, QP_ACC);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	REQUIRE(qx);
	rkey = p.mr[1]->rkey;
	h_fill(p.buf[0], 8192, 7);
	h_fill(p.buf[1], BUF, 8);
	res = (uint64_t *)(p.buf[0] + 65536);
	tgt = (uint64_t *)(p.buf[1] + 65536);
	*tgt = 100;

	sge = (struct ibv_sge){ va(&p, 1, 0), 16, p.mr[1]->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 70,
				    .sg_list = &sge,
				    .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);

	ibv_wr_start(qx);
	qx->wr_flags = 0;
	qx->wr_id = 1;
	ibv_wr_rdma_write(qx, rkey, va(&p, 1, 4096));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 0), 3000);
	qx->wr_id = 2;
	ibv_wr_rdma_write(qx, rkey, va(&p, 1, 8000));
	ibv_wr_set_inline_data(qx, p.buf[0] + 3000, 33);
	qx->wr_id = 3;
	ibv_wr_rdma_write_imm(qx, rkey, va(&p, 1, 9000), htonl(1234));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 4000), 2000);
	qx->wr_id = 4;
	ibv_wr_rdma_read(qx, rkey, va(&p, 1, 20000));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 30000), 5000);
	qx->wr_id = 5;
	ibv_wr_rdma_read(qx, rkey, va(&p, 1, 0));
	ibv_wr_set_sge_list(qx, 0, NULL);
	qx->wr_id = 6;
	ibv_wr_atomic_fetch_add(qx, rkey, (uintptr_t)tgt, 11);
	ibv_wr_set_sge(qx, p.mr[0]->lkey, (uintptr_t)res, 8);
	qx->wr_id = 7;
	ibv_wr_atomic_cmp_swp(qx, rkey, (uintptr_t)tgt, 111, 7777);
	ibv_wr_set_sge(qx, p.mr[0]->lkey, (uintptr_t)(res + 1), 8);
	CHECK_RC(ibv_wr_complete(qx), 0);

	expect_wc(p.scq[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 3000);
	expect_wc(p.scq[0], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 33);
	expect_wc(p.scq[0], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 2000);
	expect_wc(p.scq[0], 4, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 5000);
	expect_wc(p.scq[0], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 0);
	expect_wc(p.scq[0], 6, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 8);
	expect_wc(p.scq[0], 7, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
	CHECK(!memcmp(p.buf[1] + 4096, p.buf[0], 3000));
	CHECK(!memcmp(p.buf[1] + 8000, p.buf[0] + 3000, 33));
	CHECK(!memcmp(p.buf[1] + 9000, p.buf[0] + 4000, 2000));
	CHECK(!memcmp(p.buf[0] + 30000, p.buf[1] + 20000, 5000));
	CHECK_EQ(res[0], 100);
	CHECK_EQ(res[1], 111);
	CHECK_EQ(*tgt, 7777);
	h_poll_one(p.rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(ntohl(wc.imm_data), 1234);
	CHECK_EQ(wc.byte_len, 2000);

	SECTION("ibv_wr_*: errors discard the batch");
	/* an atomic with a 4-byte SGE, after a good WRITE */
	memset(p.buf[1] + 100, 0x33, 16);
	ibv_wr_start(qx);
	qx->wr_id = 8;
	ibv_wr_rdma_write(qx, rkey, va(&p, 1, 100));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 0), 16);
	ibv_wr_atomic_fetch_add(qx, rkey, (uintptr_t)tgt, 1);
	ibv_wr_set_sge(qx, p.mr[0]->lkey, (uintptr_t)res, 4);
	CHECK_RC(ibv_wr_complete(qx), EINVAL);
	/* READ with inline data */
	ibv_wr_start(qx);
	ibv_wr_rdma_read(qx, rkey, va(&p, 1, 100));
	ibv_wr_set_inline_data(qx, p.buf[0], 8);
	CHECK_RC(ibv_wr_complete(qx), EINVAL);
	/* builders the device has no opcode for, in the releases that have
	 * them (the ibv_qp_ex slots of newer releases) */
#if IONIC_IBVERBS_RDMA_CORE >= 44
	ibv_wr_start(qx);
	ibv_wr_atomic_write(qx, rkey, va(&p, 1, 100), p.buf[0]);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
#endif
#if IONIC_IBVERBS_RDMA_CORE >= 45
	ibv_wr_start(qx);
	ibv_wr_flush(qx, rkey, va(&p, 1, 100), 8, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
#endif
	ibv_wr_start(qx);
	ibv_wr_send_tso(qx, p.buf[0], 8, 64);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
	h_expect_none(p.scq[0], 30);
	CHECK_EQ(p.buf[1][100], 0x33);
	unpair(&p);

	SECTION("ibv_wr_*: only the operations of send_ops_flags");
	mkpair(&p, IBV_QP_EX_WITH_SEND, ACC_ALL, ACC_ALL, QP_ACC);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	ibv_wr_start(qx);
	ibv_wr_rdma_write(qx, p.mr[1]->rkey, va(&p, 1, 0));
	ibv_wr_set_sge(qx, p.mr[0]->lkey, va(&p, 0, 0), 8);
	CHECK_RC(ibv_wr_complete(qx), EOPNOTSUPP);
	h_expect_none(p.scq[0], 20);
	unpair(&p);

	SECTION("send_ops_flags at creation");
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_RC,
			.cap = { 8, 8, 1, 1, 0 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			.send_ops_flags = EX_RC_OPS,
		};
		struct ibv_qp *qp;

		REQUIRE(cq);
		ia.send_cq = ia.recv_cq = cq;
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
#if IONIC_IBVERBS_RDMA_CORE >= 44
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_ATOMIC_WRITE;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
#endif
#if IONIC_IBVERBS_RDMA_CORE >= 45
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_FLUSH;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
#endif
		ia.send_ops_flags = IBV_QP_EX_WITH_TSO;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
		ia.qp_type = IBV_QPT_UD;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_SEND_WITH_IMM;
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_WRITE;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
		CHECK_RC(ibv_destroy_cq(cq), 0);
	}
}

int main(void)
{
	ctx = h_open();
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
	return h_finish();
}
