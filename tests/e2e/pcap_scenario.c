// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The known scenario of the capture test (tests/e2e/pcap_tshark.sh): two
 * RC QPs of one process, one operation at a time, every completion and
 * byte checked:
 *   1 SEND (64 bytes of text)
 *   2 RDMA WRITE WITH IMM
 *   3 RDMA READ
 *   4 ATOMIC FETCH_AND_ADD
 *   5 SEND before any receive is posted: the responder answers with RNR
 *     NAKs, the requester retransmits the same PSN after each RNR wait,
 *     and once the receive is posted the SEND completes.
 * Payloads are text, so no dissector mistakes them for another protocol
 * carried over InfiniBand.
 */
#include <unistd.h>

#include "verbs_fixture.h"

#define TMO 5000
#define BUF 4096
#define MSG 64

static void wait_ok(struct ibv_cq *cq, int n, enum ibv_wc_opcode op)
{
	struct ibv_wc wc[4];

	REQUIRE_EQ(fx_poll(cq, wc, n, TMO), n);
	for (int i = 0; i < n; i++)
		CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
	CHECK_EQ(wc[n - 1].opcode, op);
}

static void post(struct fx_pair *p, struct ibv_send_wr *wr, size_t off,
		 size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->buf[0] + off,
		.length = (uint32_t)len,
		.lkey = p->mr[0]->lkey,
	};
	struct ibv_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_SIGNALED;
	REQUIRE_EQ(ibv_post_send(p->qp[0], wr, &bad), 0);
}

int main(void)
{
	static const char text[MSG + 1] =
		"ionic-sim capture scenario: a SEND of sixty-four bytes, text.";
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_mr *amr;
	struct ibv_wc wc;
	uint64_t *cnt;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.rnr_retry = 7; /* retry until the receive comes */
	o.min_rnr_timer = 14; /* 1.28 ms */
	fx_pair_create(&p, NULL, NULL, &o, BUF);
	fx_pair_connect(&p);

	SECTION("SEND");
	memcpy(p.buf[0], text, MSG);
	REQUIRE_EQ(fx_post_recv(&p, 1, 1, 0, BUF), 0);
	REQUIRE_EQ(fx_post_send(&p, 0, 1, 0, MSG, IBV_SEND_SIGNALED, false, 0),
		   0);
	wait_ok(p.scq[0], 1, IBV_WC_SEND);
	wait_ok(p.rcq[1], 1, IBV_WC_RECV);
	CHECK(!memcmp(p.buf[1], text, MSG));

	SECTION("RDMA WRITE WITH IMM");
	memcpy(p.buf[0] + 256, "written with an immediate: ionic-sim pcap", 42);
	REQUIRE_EQ(fx_post_recv(&p, 1, 2, 0, 16), 0);
	post(&p,
	     &(struct ibv_send_wr){
		     .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		     .imm_data = htobe32(0x1234abcd),
		     .wr.rdma = { .remote_addr = (uintptr_t)p.buf[1] + 256,
				  .rkey = p.mr[1]->rkey } },
	     256, 42);
	wait_ok(p.scq[0], 1, IBV_WC_RDMA_WRITE);
	REQUIRE_EQ(fx_poll(p.rcq[1], &wc, 1, TMO), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(be32toh(wc.imm_data), 0x1234abcd);
	CHECK(!memcmp(p.buf[1] + 256, p.buf[0] + 256, 42));

	SECTION("RDMA READ");
	memcpy(p.buf[1] + 512, "read back from the peer by an RDMA READ..", 42);
	post(&p,
	     &(struct ibv_send_wr){
		     .opcode = IBV_WR_RDMA_READ,
		     .wr.rdma = { .remote_addr = (uintptr_t)p.buf[1] + 512,
				  .rkey = p.mr[1]->rkey } },
	     1024, 42);
	wait_ok(p.scq[0], 1, IBV_WC_RDMA_READ);
	CHECK(!memcmp(p.buf[0] + 1024, p.buf[1] + 512, 42));

	SECTION("FETCH_AND_ADD");
	cnt = (uint64_t *)(p.buf[1] + 2048);
	*cnt = 40;
	/* the pair's regions allow no atomics: one that does */
	amr = ibv_reg_mr(p.pd, cnt, 8,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	REQUIRE(amr);
	post(&p,
	     &(struct ibv_send_wr){
		     .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		     .wr.atomic = { .remote_addr = (uintptr_t)cnt,
				    .compare_add = 2,
				    .rkey = amr->rkey } },
	     2048, 8);
	wait_ok(p.scq[0], 1, IBV_WC_FETCH_ADD);
	CHECK_EQ(*(uint64_t *)(p.buf[0] + 2048), 40);
	CHECK_EQ(*cnt, 42);
	CHECK_EQ(ibv_dereg_mr(amr), 0);

	SECTION("SEND into an empty RQ: RNR NAKs, then the retransmission");
	memcpy(p.buf[0] + 3072, text, MSG);
	REQUIRE_EQ(fx_post_send(&p, 0, 5, 3072, MSG, IBV_SEND_SIGNALED, false,
				0),
		   0);
	usleep(4000); /* about three RNR waits */
	CHECK_EQ(fx_expect_none(p.scq[0], 1), 0);
	REQUIRE_EQ(fx_post_recv(&p, 1, 5, 0, BUF), 0);
	wait_ok(p.scq[0], 1, IBV_WC_SEND);
	wait_ok(p.rcq[1], 1, IBV_WC_RECV);
	CHECK(!memcmp(p.buf[1], text, MSG));

	fx_pair_destroy(&p);
	return check_finish();
}
