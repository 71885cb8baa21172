// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-rdma, operations that succeed: RDMA WRITE (0 bytes, inline,
 * multi-SGE, larger than the MTU), WRITE with immediate, RDMA READ, CAS and
 * FAA; every byte compared.
 */
#include <arpa/inet.h>

#include "rdma.h"

void test_write_read(void)
{
	struct fx_pair p;
	struct ibv_sge sgl[3];
	struct ibv_send_wr wr;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;
	uint32_t rkey;

	SECTION("RDMA WRITE / WRITE_WITH_IMM / READ");
	mkpair(&p, 0, ACC_ALL, ACC_ALL, QP_ACC);
	rkey = p.mr[1]->rkey;
	fx_fill(p.buf[0], BUF, 1);
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
	fx_poll_one(p.rcq[1], &wc, TMO);
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

	fx_fill(p.buf[1], BUF, 2);
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
	fx_expect_none(p.scq[1], 20);
	fx_expect_none(p.rcq[0], 20);
	fx_pair_destroy(&p);
}

void test_atomics(void)
{
	struct fx_pair p;
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
	fx_pair_destroy(&p);
}
