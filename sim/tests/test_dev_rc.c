// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device rules, end to end through the real engine thread and
 * fabric but without the provider or the kernel layer (dev_fixture.h):
 * RC SEND segmentation and MSN completions (cumulative, strictly
 * advancing, final value = remote WQEs completed), RECV CQEs in order with
 * echoed wqe_idx; RNR NAK wait and retry, RNR retry exhaustion; ACK
 * timeout to a vanished peer (RETRY_EXCEEDED); receive length error on
 * both sides; local protection error on NPG; flush indicators; RESET
 * restarting the MSN.
 */
#include <stdlib.h>
#include <string.h>

#include "dev_fixture.h"

static uint8_t sbuf[8192], rbuf[4][4096];

static void test_rc_send_msn(void)
{
	struct hcq *cq_a = make_cq(1), *cq_b = make_cq(2);
	struct hqp *a = make_qp(10, IBV_QPT_RC, cq_a, cq_a);
	struct hqp *b = make_qp(11, IBV_QPT_RC, cq_b, cq_b);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	static const uint32_t lens[3] = { 10, 3000, 0 };
	struct ionic_cqe c;
	uint32_t last_msn = 0, i;

	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 7 + 1);
	bring_up(a, 11, 7, 7, 14);
	bring_up(b, 10, 7, 7, 14);
	for (i = 0; i < 4; i++)
		post_recv(b, rbuf[i], 4096, rkey);
	/* Unsignalled sends are completed too: the MSN covers them all. */
	for (i = 0; i < 3; i++)
		post_send(a, IONIC_V2_OP_SEND, sbuf + 100 * i, lens[i], skey,
			  i == 1 ? 0 : IONIC_WQE_FLAG_SIG, 0, 0, 0);

	for (i = 0; i < 3; i++) {
		CHECK(poll_cqe(cq_b, &c, 2000));
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c));
		CHECK((le64toh(c.recv.wqe_idx_timestamp) & 0xffff) == i);
		CHECK(cqe_status_len(&c) == lens[i]);
		CHECK((be32toh(c.recv.src_qpn_op) & 0xffffff) == 10);
		CHECK(!memcmp(rbuf[i], sbuf + 100 * i, lens[i]));
	}
	/* MSN CQEs: strictly advancing, ending at 3. */
	while (last_msn < 3 && poll_cqe(cq_a, &c, 2000)) {
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && !cqe_err(&c));
		CHECK(be32toh(c.send.msg_msn) > last_msn);
		last_msn = be32toh(c.send.msg_msn);
	}
	CHECK(last_msn == 3);
	CHECK(!poll_cqe(cq_a, &c, 20));

	/* SEND_IMM with the solicited flag: op and raw imm echoed. */
	post_send(a, IONIC_V2_OP_SEND_IMM, sbuf, 5, skey,
		  IONIC_WQE_FLAG_SIG | IONIC_WQE_FLAG_SOL, 0, 0, 0);
	CHECK(poll_cqe(cq_b, &c, 2000));
	CHECK(((be32toh(c.recv.src_qpn_op) >> 24) & 0x1f) ==
	      IONIC_CQE_RECV_OP_SEND_IMM);
	CHECK(c.recv.imm_data_rkey == htobe32(0xabcd0003));
	CHECK(poll_cqe(cq_a, &c, 2000) && be32toh(c.send.msg_msn) == 4);

	/* RNR: no receive WQE left after the one below is used ... */
	post_send(a, IONIC_V2_OP_SEND, sbuf, 64, skey, IONIC_WQE_FLAG_SIG, 0, 0,
		  0);
	CHECK(!poll_cqe(cq_a, &c, 50)); /* RNR NAKs, retrying forever */
	CHECK(qp_query(a).cnt.rnr_naks_rx > 0);
	post_recv(b, rbuf[0], 4096, rkey); /* ... until one is posted */
	CHECK(poll_cqe(cq_b, &c, 2000) && !cqe_err(&c) &&
	      cqe_status_len(&c) == 64);
	CHECK(poll_cqe(cq_a, &c, 2000) && be32toh(c.send.msg_msn) == 5);

	/* RESET restarts the MSN at 0 (the first completion says 1). */
	modify(a, IBV_QPS_RESET);
	modify(b, IBV_QPS_RESET);
	bring_up(a, 11, 7, 7, 14);
	bring_up(b, 10, 7, 7, 14);
	post_recv(b, rbuf[0], 4096, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 2048, skey, IONIC_WQE_FLAG_SIG, 0,
		  0, 0);
	CHECK(poll_cqe(cq_b, &c, 2000) &&
	      (le64toh(c.recv.wqe_idx_timestamp) & 0xffff) == 0);
	CHECK(poll_cqe(cq_a, &c, 2000) && be32toh(c.send.msg_msn) == 1);

	/* Receive buffer too small: LOCAL_LEN on the receiver, REMOTE_INV_REQ
	 * on the sender (msg_msn = its seq + 1), both QPs in ERR. */
	post_recv(b, rbuf[0], 16, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 100, skey, 0, 0, 0, 0);
	CHECK(poll_cqe(cq_b, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_LOCAL_LEN_ERR);
	CHECK(poll_cqe(cq_a, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_REMOTE_INV_REQ_ERR &&
	      be32toh(c.send.msg_msn) == 2);
	CHECK(qp_query(a).state == IBV_QPS_ERR &&
	      qp_query(b).state == IBV_QPS_ERR);

	/* A doorbell in ERR with work posted: one flush indicator. */
	post_recv(a, rbuf[1], 64, rkey);
	CHECK(poll_cqe(cq_a, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_WQE_FLUSHED_ERR);
	post_recv(a, rbuf[1], 64, rkey);
	CHECK(!poll_cqe(cq_a, &c, 20));

	destroy_qp(a);
	destroy_qp(b);
	destroy_cq(cq_a);
	destroy_cq(cq_b);
}

static void test_rc_errors(void)
{
	struct hcq *cq = make_cq(3);
	struct hqp *a = make_qp(20, IBV_QPT_RC, cq, cq);
	struct hqp *b = make_qp(21, IBV_QPT_RC, cq, cq);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	struct ionic_cqe c;
	uint64_t rexmit, t0;

	/* RNR retries exhausted: RNR_RETRY_EXCEEDED on the MSN CQE; the
	 * requester's RQ had work, so it gets a flush indicator. */
	bring_up(a, 21, 7, 2, 14);
	bring_up(b, 20, 7, 7, 14);
	post_recv(a, rbuf[3], 64, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, IONIC_WQE_FLAG_SIG, 0, 0,
		  0);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_RNR_RETRY_EXCEEDED &&
	      be32toh(c.send.msg_msn) == 1);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_WQE_FLUSHED_ERR &&
	      (be32toh(c.qid_type_flags) >> 8) == 20);
	CHECK(qp_query(a).state == IBV_QPS_ERR);
	CHECK(qp_query(a).cnt.rnr_naks_rx == 3);

	/* Peer gone: ACK timeouts, then RETRY_EXCEEDED (timeout 1 is
	 * clamped to 10 ms; retry_cnt 2 = three transmissions). */
	modify(a, IBV_QPS_RESET);
	bring_up(a, 55, 2, 7, 1);
	rexmit = qp_query(a).cnt.retransmits;
	t0 = fx_now_ns();
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, 0, 0, 0, 0);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, 0, 0, 0, 0);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(fx_now_ns() - t0 >= 30000000ull);
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_RETRY_EXCEEDED &&
	      be32toh(c.send.msg_msn) == 1);
	CHECK(qp_query(a).cnt.retransmits - rexmit == 2);

	/* Local protection error (bad lkey): NPG CQE naming the slot. */
	modify(a, IBV_QPS_RESET);
	modify(b, IBV_QPS_RESET);
	bring_up(a, 21, 7, 7, 14);
	bring_up(b, 20, 7, 7, 14);
	post_recv(b, rbuf[0], 4096, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, 0, 0, 0, 0);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, 0x7777, 0, 0, 0, 0);
	/* In order: the good send's MSN first, then the error. */
	CHECK(poll_cqe(cq, &c, 2000) && cqe_type(&c) == IONIC_CQE_TYPE_RECV);
	CHECK(poll_cqe(cq, &c, 2000) &&
	      cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN &&
	      be32toh(c.send.msg_msn) == 1);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_LOCAL_PROT_ERR &&
	      (le64toh(c.send.npg_wqe_idx_timestamp) & 0xffff) == 1);
	CHECK(qp_query(a).state == IBV_QPS_ERR);

	/* User modify to ERR with receives posted: RECV flush indicator. */
	post_recv(b, rbuf[0], 4096, rkey);
	modify(b, IBV_QPS_ERR);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_WQE_FLUSHED_ERR &&
	      (be32toh(c.qid_type_flags) >> 8) == 21);
	CHECK(!poll_cqe(cq, &c, 20));

	destroy_qp(a);
	destroy_qp(b);
	destroy_cq(cq);
}

int main(void)
{
	if (fx_start())
		return 1;
	test_rc_send_msn();
	test_rc_errors();
	return fx_stop();
}
