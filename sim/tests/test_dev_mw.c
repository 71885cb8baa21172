// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device rules, end to end through the real engine thread and
 * fabric but without the provider or the kernel layer (dev_fixture.h):
 * Memory windows: BIND_MW with a new key byte, RDMA WRITE through the
 * window, LOCAL_INV, rebinding, SEND_WITH_INV (a foreign key is an invalid
 * request; the window's key is invalidated and reported to the
 * receiver), a refused zero-length type-2 bind.
 */
#include <stdlib.h>
#include <string.h>

#include "dev_fixture.h"

static uint8_t sbuf[8192], rbuf[4][4096];

/* Is there a valid key 'key' (a bound window with this key byte)? */
static bool key_valid(uint32_t key)
{
	bool v;

	fx_lock();
	v = idev_key_valid(fx_dev, key);
	fx_unlock();
	return v;
}

static void test_mw(void)
{
	struct hcq *cq_e = make_cq(8), *cq_f = make_cq(9);
	struct hqp *e = make_qp(50, IBV_QPT_RC, cq_e, cq_e);
	struct hqp *f = make_qp(51, IBV_QPT_RC, cq_f, cq_f);
	uint32_t lsrc = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t region = mr_key(rbuf, sizeof(rbuf),
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	uint32_t key0 = make_mw(IBV_MW_TYPE_2), key1 = (key0 & ~0xffu) | 0x11;
	uint32_t key2 = (key0 & ~0xffu) | 0x12;
	enum ionic_status st;
	struct ionic_cqe c;

	bring_up(e, 51, 7, 7, 14);
	bring_up(f, 50, 7, 7, 14);
	/* Bind [rbuf[1], +4096) for remote write/read with key byte 0x11. */
	post_local(f, IONIC_V2_OP_BIND_MW, key0, 0x11, rbuf[1], 4096, region,
		   IONIC_MRF_REMOTE_WRITE | IONIC_MRF_REMOTE_READ |
			   IONIC_MRF_MW_2);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && !cqe_err(&c) &&
	      (le64toh(c.send.npg_wqe_idx_timestamp) & 0xffff) == 0);
	CHECK(key_valid(key1));

	/* The old key is dead; the new one writes into the window. */
	memset(rbuf[1], 0, 4096);
	post_rdma(e, IONIC_V2_OP_RDMA_WRITE, sbuf, 100, lsrc, rbuf[1] + 8, key1,
		  0);
	CHECK(wait_msn(cq_e, 1, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(rbuf[1] + 8, sbuf, 100));

	/* LOCAL_INV: completes on NPG; afterwards the key is refused. */
	post_local(f, IONIC_V2_OP_LOCAL_INV, key1, 0, NULL, 0, 0, 0);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && !cqe_err(&c));
	CHECK(!key_valid(key1));
	post_rdma(e, IONIC_V2_OP_RDMA_WRITE, sbuf, 100, lsrc, rbuf[1] + 8, key1,
		  0);
	CHECK(!wait_msn(cq_e, 2, &st) || st);
	CHECK(st == IONIC_STS_REMOTE_ACC_ERR);

	/* Rebind (type 2 is free again), then SEND_WITH_INV invalidates it
	 * and the receiver learns the rkey. */
	modify(e, IBV_QPS_RESET);
	modify(f, IBV_QPS_RESET);
	while (poll_cqe(cq_f, &c, 20))
		; /* flush indicators of the error above */
	bring_up(e, 51, 7, 7, 14);
	bring_up(f, 50, 7, 7, 14);
	post_local(f, IONIC_V2_OP_BIND_MW, key1, 0x12, rbuf[1], 4096, region,
		   IONIC_MRF_REMOTE_WRITE | IONIC_MRF_MW_2);
	CHECK(poll_cqe(cq_f, &c, 2000) && !cqe_err(&c) && key_valid(key2));
	post_recv(f, rbuf[0], 4096, region);
	/* A key that is not ours to invalidate: invalid request. */
	post_send_inv(e, sbuf, 10, lsrc, 0xabcd0000);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_REMOTE_INV_REQ_ERR);
	CHECK(!wait_msn(cq_e, 1, &st) || st);
	CHECK(st == IONIC_STS_REMOTE_INV_REQ_ERR);
	CHECK(key_valid(key2));

	modify(e, IBV_QPS_RESET);
	modify(f, IBV_QPS_RESET);
	while (poll_cqe(cq_f, &c, 20))
		;
	while (poll_cqe(cq_e, &c, 20))
		;
	bring_up(e, 51, 7, 7, 14);
	bring_up(f, 50, 7, 7, 14);
	post_recv(f, rbuf[0], 4096, region);
	post_send_inv(e, sbuf, 10, lsrc, key2);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c) &&
	      ((be32toh(c.recv.src_qpn_op) >> 24) & 0x1f) ==
		      IONIC_CQE_RECV_OP_SEND_INV &&
	      be32toh(c.recv.imm_data_rkey) == key2);
	CHECK(wait_msn(cq_e, 1, &st) && st == IONIC_STS_OK);
	CHECK(!key_valid(key2));

	/* A type-2 bind of length 0 is refused: NPG MEM_MGMT_OPER error. */
	post_local(f, IONIC_V2_OP_BIND_MW, key2, 0x13, rbuf[1], 0, region,
		   IONIC_MRF_MW_2);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_MEM_MGMT_OPER_ERR);
	CHECK(qp_query(f).state == IBV_QPS_ERR);

	destroy_qp(e);
	destroy_qp(f);
	destroy_cq(cq_e);
	destroy_cq(cq_f);
}

int main(void)
{
	if (fx_start())
		return 1;
	test_mw();
	return fx_stop();
}
