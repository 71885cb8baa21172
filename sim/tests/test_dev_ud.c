// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device rules, end to end through the real engine thread and
 * fabric but without the provider or the kernel layer (dev_fixture.h):
 * UD: one NPG CQE per WQE signalled or not, the GRH area of the receive
 * buffer (IPv4 header for IPv4-mapped GIDs, and the CQE's IPv4 bit), SL in
 * the VLAN tag, the qkey filter and the privileged qkey, the port MTU
 * limit.
 */
#include <stdlib.h>
#include <string.h>

#include "dev_fixture.h"

static uint8_t sbuf[8192], rbuf[4][4096];

static void test_ud(void)
{
	struct hcq *cq_c = make_cq(4), *cq_d = make_cq(5);
	struct hqp *c = make_qp(30, IBV_QPT_UD, cq_c, cq_c);
	struct hqp *d = make_qp(31, IBV_QPT_UD, cq_d, cq_d);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	struct idev_ah_create ah = {
		.ahid = 3,
		.pdid = FX_PDID,
		.av = { .sgid_index = 1, .hop_limit = 64, .sl = 5 },
	};
	struct ionic_cqe e;
	uint8_t *g = rbuf[0];

	isim_node_gid(FX_NODE, 1, ah.av.dgid);
	fx_lock();
	CHECK(idev_ah_create(fx_dev, &ah) == 0);
	fx_unlock();

	bring_up(c, 0, 0, 0, 0);
	bring_up(d, 0, 0, 0, 0);
	post_recv(d, rbuf[0], 4096, rkey);
	post_recv(d, rbuf[1], 4096, rkey);
	/* Unsignalled, yet one NPG CQE per WQE naming its slot. */
	post_send(c, IONIC_V2_OP_SEND, sbuf, 100, skey, 0, 3, 31, 0x1111);
	CHECK(poll_cqe(cq_c, &e, 2000));
	CHECK(cqe_type(&e) == IONIC_CQE_TYPE_SEND_NPG && !cqe_err(&e) &&
	      (le64toh(e.send.npg_wqe_idx_timestamp) & 0xffff) == 0);
	CHECK(poll_cqe(cq_d, &e, 2000));
	CHECK(cqe_type(&e) == IONIC_CQE_TYPE_RECV && !cqe_err(&e));
	CHECK(cqe_status_len(&e) == 140);
	CHECK((be32toh(e.recv.src_qpn_op) & 0xffffff) == 30);
	/* it came over IPv4: the IPv4 bit, the host's wc.sl = 2 */
	CHECK(be32toh(e.recv.src_qpn_op) & IONIC_CQE_RECV_IS_IPV4);
	CHECK(be16toh(e.recv.vlan_tag) >> 13 == 5);
	/* GRH area: IPv4-mapped GIDs -> IPv4 header at offset 20. */
	CHECK(g[0] == 0 && g[19] == 0 && g[20] == 0x45 && g[28] == 64 &&
	      g[29] == 17);
	CHECK(g[32] == 198 && g[33] == 18 && g[35] == 1);
	CHECK(g[36] == 198 && g[39] == 1);
	CHECK(!memcmp(g + 40, sbuf, 100));

	/* Wrong qkey: dropped silently.  Privileged qkey: the QP's own. */
	post_send(c, IONIC_V2_OP_SEND, sbuf, 10, skey, 0, 3, 31, 0x2222);
	CHECK(poll_cqe(cq_c, &e, 2000) && !cqe_err(&e));
	CHECK(!poll_cqe(cq_d, &e, 30));
	post_send(c, IONIC_V2_OP_SEND, sbuf, 10, skey, 0, 3, 31, 0x80000000);
	CHECK(poll_cqe(cq_c, &e, 2000) && !cqe_err(&e));
	CHECK(poll_cqe(cq_d, &e, 2000) && cqe_status_len(&e) == 50);

	/* Larger than the port MTU (1024 at netdev MTU 1500): LOCAL_LEN. */
	post_send(c, IONIC_V2_OP_SEND, sbuf, 1025, skey, 0, 3, 31, 0x1111);
	CHECK(poll_cqe(cq_c, &e, 2000));
	CHECK(cqe_type(&e) == IONIC_CQE_TYPE_SEND_NPG && cqe_err(&e) &&
	      cqe_status_len(&e) == IONIC_STS_LOCAL_LEN_ERR &&
	      (le64toh(e.send.npg_wqe_idx_timestamp) & 0xffff) == 3);
	CHECK(qp_query(c).state == IBV_QPS_ERR);

	destroy_qp(c);
	destroy_qp(d);
	destroy_cq(cq_c);
	destroy_cq(cq_d);
	fx_lock();
	CHECK(idev_ah_destroy(fx_dev, 3) == 0);
	fx_unlock();
}

int main(void)
{
	if (fx_start())
		return 1;
	test_ud();
	return fx_stop();
}
