// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device on a faulty wire (sim/fabric/fault.c), through the real
 * engine thread and fabric (dev_fixture.h):
 *   - UD: losses are losses: every send completes successfully, some
 *     receives never happen, those that do are intact; the same seed
 *     loses the same messages again;
 *   - RC through loss, duplication, reordering and corruption: every
 *     message arrives exactly once, in order, intact, and the MSN counts
 *     them all; the corrupted frames were dropped by the receiver's
 *     checks and retransmitted;
 *   - RDMA READs and FETCH_ADDs through the same: every READ returns the
 *     source, every atomic executes exactly once.
 */
#include <stdlib.h>
#include <string.h>

#include "dev_fixture.h"
#include "fabric/fabric.h"

#define UD_MSGS 200
#define RC_MSGS 400

static uint8_t sbuf[4096], rbuf[64][256];

static void faults(uint32_t loss, uint32_t dup, uint32_t reorder,
		   uint32_t corrupt, uint64_t seed)
{
	struct ifab_faults f = {
		.loss_ppm = loss,
		.dup_ppm = dup,
		.reorder_ppm = reorder,
		.corrupt_ppm = corrupt,
		.seed = seed,
	};

	fx_lock();
	ifab_faults_set(&f);
	fx_unlock();
}

/* Every one of the n bytes at p is v. */
static bool payload_is(const uint8_t *p, uint8_t v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (p[k] != v)
			return false;
	return true;
}

/* UD_MSGS sends through 30% loss: which ones arrived (bitmap). */
static void ud_run(uint64_t seed, uint8_t got[UD_MSGS])
{
	struct hcq *cq_c = make_cq(4), *cq_d = make_cq(5);
	struct hqp *c = make_qp(30, IBV_QPT_UD, cq_c, cq_c);
	struct hqp *d = make_qp(31, IBV_QPT_UD, cq_d, cq_d);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	struct idev_ah_create ah = {
		.ahid = 3,
		.pdid = FX_PDID,
		.av = { .sgid_index = 1, .hop_limit = 64 },
	};
	struct ionic_cqe e;
	int i, n = 0;

	memset(got, 0, UD_MSGS);
	faults(300000, 0, 0, 0, seed);
	isim_node_gid(FX_NODE, 1, ah.av.dgid);
	fx_lock();
	CHECK(idev_ah_create(fx_dev, &ah) == 0);
	fx_unlock();
	bring_up(c, 0, 0, 0, 0);
	bring_up(d, 0, 0, 0, 0);
	/* one receive posted at a time: the n-th arrival lands in the n-th */
	post_recv(d, rbuf[0], 256, rkey);
	for (i = 0; i < UD_MSGS; i++) {
		sbuf[0] = (uint8_t)i;
		memset(sbuf + 1, i ^ 0x5a, 99);
		post_send(c, IONIC_V2_OP_SEND, sbuf, 100, skey, 0, 3, 31,
			  0x1111);
		/* every UD send completes, lost on the wire or not */
		CHECK(poll_cqe(cq_c, &e, 2000) && !cqe_err(&e));
		if (poll_cqe(cq_d, &e, 20)) {
			CHECK(!cqe_err(&e) && cqe_status_len(&e) == 140);
			CHECK(rbuf[n % 64][40] == (uint8_t)i);
			CHECK(payload_is(rbuf[n % 64] + 41, (uint8_t)(i ^ 0x5a),
					 99));
			got[i] = 1;
			n++;
			post_recv(d, rbuf[n % 64], 256, rkey);
		}
	}
	faults(0, 0, 0, 0, 0);
	/* about 70% arrive */
	CHECK(n > UD_MSGS / 2 && n < UD_MSGS);
	destroy_qp(c);
	destroy_qp(d);
	destroy_cq(cq_c);
	destroy_cq(cq_d);
	fx_lock();
	CHECK(idev_ah_destroy(fx_dev, 3) == 0);
	fx_unlock();
}

static void test_ud_losses(void)
{
	uint8_t a[UD_MSGS], b[UD_MSGS];

	ud_run(1234, a);
	ud_run(1234, b);
	CHECK(!memcmp(a, b, sizeof(a))); /* the same seed, the same losses */
}

static void test_rc_faults(void)
{
	struct hcq *cq_a = make_cq(1), *cq_b = make_cq(2);
	struct hqp *a = make_qp(10, IBV_QPT_RC, cq_a, cq_a);
	struct hqp *b = make_qp(11, IBV_QPT_RC, cq_b, cq_b);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	struct idev_stats stats;
	struct ionic_cqe c;
	uint32_t msn = 0;
	int i, sent = 0, recvd = 0;

	/* retries enough for 10% loss; a 10 ms ACK timeout (the floor) */
	bring_up(a, 11, 7, 7, 1);
	bring_up(b, 10, 7, 7, 1);
	faults(100000, 100000, 100000, 50000, 99);
	for (i = 0; i < 32; i++)
		post_recv(b, rbuf[i], 256, rkey);
	while (recvd < RC_MSGS) {
		/* a window of up to 16 messages in flight; a send buffer is
		 * reused only once its message completed at the sender, since
		 * a retransmission reads it again until then */
		while (sent < RC_MSGS && sent - recvd < 16 &&
		       sent - (int)msn < 16) {
			for (int k = 0; k < 200; k++)
				sbuf[(sent % 16) * 200 + k] =
					(uint8_t)(sent * 7 + k);
			post_send(a, IONIC_V2_OP_SEND, sbuf + (sent % 16) * 200,
				  200, skey, IONIC_WQE_FLAG_SIG, 0, 0, 0);
			sent++;
		}
		if (recvd == sent) {
			/* all sent messages arrived: wait for their ACKs */
			if (!poll_cqe(cq_a, &c, 5000)) {
				CHECK(0 && "a send never completed");
				break;
			}
			CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN &&
			      !cqe_err(&c) && be32toh(c.send.msg_msn) > msn);
			msn = be32toh(c.send.msg_msn);
			continue;
		}
		if (!poll_cqe(cq_b, &c, 5000)) {
			CHECK(0 && "a message never arrived");
			break;
		}
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c));
		CHECK(cqe_status_len(&c) == 200);
		/* in order, exactly once: receive i holds message i */
		for (int k = 0; k < 200; k++)
			if (rbuf[recvd % 32][k] != (uint8_t)(recvd * 7 + k)) {
				CHECK(0 && "message out of order or corrupted");
				break;
			}
		recvd++;
		post_recv(b, rbuf[(recvd + 31) % 32], 256, rkey);
		/* the send side's MSN CQEs: successful, strictly advancing */
		while (poll_cqe(cq_a, &c, 0)) {
			CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN &&
			      !cqe_err(&c) && be32toh(c.send.msg_msn) > msn);
			msn = be32toh(c.send.msg_msn);
		}
	}
	while (msn < RC_MSGS && poll_cqe(cq_a, &c, 5000)) {
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && !cqe_err(&c));
		msn = be32toh(c.send.msg_msn);
	}
	CHECK(msn == RC_MSGS);
	CHECK(!poll_cqe(cq_b, &c, 50)); /* no duplicate delivered */
	fx_lock();
	idev_get_stats(fx_dev, &stats);
	fx_unlock();
	CHECK(stats.cnt.retransmits > 0);
	CHECK(stats.cnt.drops > 0); /* corrupted and duplicate frames */
	faults(0, 0, 0, 0, 0);
	destroy_qp(a);
	destroy_qp(b);
	destroy_cq(cq_a);
	destroy_cq(cq_b);
}

/* READs and atomics through the same faults: responses lost, repeated
 * and overtaken; every READ returns the source, every FETCH_ADD executes
 * exactly once (the results are a permutation of 0..n-1). */
#define RDMA_ROUNDS 60
static uint8_t rsrc[16384], rdst[2][4096];
static uint64_t counter, fa_res[2];

static void test_rc_rdma_faults(void)
{
	struct hcq *cq_a = make_cq(6), *cq_b = make_cq(7);
	struct hqp *a = make_qp(12, IBV_QPT_RC, cq_a, cq_a);
	struct hqp *b = make_qp(13, IBV_QPT_RC, cq_b, cq_b);
	uint32_t ldst = mr_key(rdst, sizeof(rdst), IBV_ACCESS_LOCAL_WRITE);
	uint32_t lres = mr_key(fa_res, sizeof(fa_res), IBV_ACCESS_LOCAL_WRITE);
	uint32_t rread = mr_key(rsrc, sizeof(rsrc), IBV_ACCESS_REMOTE_READ);
	uint32_t ratom =
		mr_key(&counter, sizeof(counter), IBV_ACCESS_REMOTE_ATOMIC);
	enum ionic_status st = IONIC_STS_OK;
	uint8_t seen[2 * RDMA_ROUNDS] = { 0 };
	uint32_t msn = 0;

	for (size_t i = 0; i < sizeof(rsrc); i++)
		rsrc[i] = (uint8_t)(i * 31 + 7);
	counter = 0;
	a->attr.max_rd_atomic = 4;
	bring_up(a, 13, 7, 7, 1);
	bring_up(b, 12, 7, 7, 1);
	faults(100000, 100000, 100000, 50000, 7);
	for (int r = 0; r < RDMA_ROUNDS; r++) {
		size_t off[2] = { (size_t)r * 97 % 12000,
				  (size_t)r * 211 % 12000 };

		memset(rdst, 0, sizeof(rdst));
		/* two 3-packet READs and two FETCH_ADDs in flight */
		for (int k = 0; k < 2; k++) {
			post_rdma(a, IONIC_V2_OP_RDMA_READ, rdst[k], 3000, ldst,
				  rsrc + off[k], rread, 0);
			post_atomic(a, IONIC_V2_OP_ATOMIC_FA, &fa_res[k], lres,
				    &counter, ratom, 1, 0);
		}
		msn += 4;
		if (!wait_msn(cq_a, msn, &st) || st != IONIC_STS_OK) {
			CHECK(0 && "READ/atomic round did not complete");
			break;
		}
		for (int k = 0; k < 2; k++) {
			CHECK(!memcmp(rdst[k], rsrc + off[k], 3000));
			if (fa_res[k] < 2 * RDMA_ROUNDS && !seen[fa_res[k]])
				seen[fa_res[k]] = 1;
			else
				CHECK(0 && "a FETCH_ADD result twice or wild");
		}
	}
	CHECK(counter == 2 * RDMA_ROUNDS);
	faults(0, 0, 0, 0, 0);
	destroy_qp(a);
	destroy_qp(b);
	destroy_cq(cq_a);
	destroy_cq(cq_b);
}

int main(void)
{
	if (fx_start())
		return 1;
	test_ud_losses();
	test_rc_faults();
	test_rc_rdma_faults();
	return fx_stop();
}
